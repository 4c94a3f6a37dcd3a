"""The last table set up in New game (seats, levels, rules, dealer), so the next one starts there.

Kept in last-setup.toml in the config folder (it is a preference, not a game: saves
hold games). Written when a game is started from New game. Read leniently: a
missing file means the defaults; a damaged one is reported (which file, what is
wrong) and the defaults are used. The seed is never kept: each new game gets a new deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tomli_w

from ..engine.game import GameSetupError, check_names
from ..engine.record import BOT_LEVELS, player_problem
from ..text import visible
from .atomic import write_atomic
from .paths import config_dir, user_rules_dir
from .readfile import ReadError, load_toml

DEALER_CHOICES = ("rules", "high-card", "random")


def last_setup_file() -> Path:
    return config_dir() / "last-setup.toml"


@dataclass(frozen=True)
class LastSetup:
    seats: tuple[tuple[str, str], ...]  # (name, "human" or "bot:LEVEL")
    rules: str  # a preset name or a rules file
    dealer: str  # "rules", "high-card", "random" or "seat:N"


def _check(doc: dict) -> LastSetup:
    seats = doc.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
        raise ValueError("seats: must be a list of tables with name and player")
    pairs = []
    for i, seat in enumerate(seats, start=1):
        name, player = seat.get("name"), seat.get("player")
        if not isinstance(name, str) or player_problem(player):
            allowed = ["human"] + [f"bot:{lv}" for lv in BOT_LEVELS]
            raise ValueError(f"seat {i}: needs a name and a player, one of {', '.join(allowed)}")
        pairs.append((name, player))
    try:
        check_names([n for n, _ in pairs])
    except GameSetupError as exc:
        raise ValueError(f"seats: {exc}") from None
    rules, dealer = doc.get("rules"), doc.get("dealer", "rules")
    if not isinstance(rules, str) or not rules.strip():
        raise ValueError("rules: must be a preset name or a rules file")
    seat_dealer = isinstance(dealer, str) and dealer.startswith("seat:") and dealer[5:].isdecimal() \
        and int(dealer[5:]) < len(pairs)
    if dealer not in DEALER_CHOICES and not seat_dealer:
        raise ValueError(f"dealer: one of {', '.join(DEALER_CHOICES)} or seat:N, got {dealer!r}")
    return LastSetup(tuple(pairs), rules, dealer)


def load_last_setup(path: Path | None = None) -> tuple[LastSetup | None, str | None]:
    """The remembered setup (None when there is none) and, if the file was damaged, why."""
    path = path or last_setup_file()
    try:  # the safe reader: a FIFO, a device or deep nesting here never hangs or crashes New game
        return _check(load_toml(path, "last setup file")), None
    except ReadError as exc:
        return None, None if exc.missing else f"{visible(exc)}; New game starts from the defaults"
    except ValueError as exc:
        return None, f"{visible(path)}: {visible(exc)}; New game starts from the defaults"


def save_last_setup(setup: LastSetup, path: Path | None = None) -> Path:
    from .presets import lasting_spec

    path = path or last_setup_file()
    # a rules file given relative to this folder is kept absolute: the next New game may start elsewhere
    doc = {"rules": lasting_spec(setup.rules, user_rules_dir()), "dealer": setup.dealer,
           "seats": [{"name": name, "player": player} for name, player in setup.seats]}
    write_atomic(path, "# ono99: the last New game setup, written when a game starts\n" + tomli_w.dumps(doc),
                 backup=False)
    return path


def follow_preset(old: str, new: str, path: Path | None = None) -> Path | None:
    """As settings.follow_preset, for New game's remembered rules: after a rename (or a delete:
    ``new`` "standard") it named a preset that is no longer there, and New game offered it as a
    file by that name. The file written, or None when it names other rules (or has none)."""
    from dataclasses import replace

    path = path or last_setup_file()
    last, _ = load_last_setup(path)
    if last is None or last.rules != old:
        return None
    return save_last_setup(replace(last, rules=new), path)

