"""Who sits at a table, checked in one place: names, human or bot level, how many.

The simulator, the New game screen, records being opened and (later) the
network lobby all come through here, so a seat is accepted or refused the same
way everywhere. Bots are seeded here too: one seeding for every front end.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from typing import Callable

from ..bots.levels import LEVELS, Bot
from ..engine.game import MAX_SEATS, MIN_SEATS, Game, GameSetupError, check_names
from ..engine.record import SeatSpec, player_problem
from ..text import visible

TEST_ONLY_LEVELS = ("oracle", "oracle-hands")  # see hidden cards: yardsticks, never offered to players

Mover = Callable[[Game, int], str]


class SeatError(ValueError):
    """Seats that cannot make a table; the message says which and why."""


def parse_levels(text: str, allow_oracle: bool = False, what: str = "--bots") -> list[str]:
    """'hard,medium' -> ['hard', 'medium'], refusing unknown levels and bad seat counts."""
    levels = [part.strip().lower() for part in text.split(",")]
    if "" in levels:  # (",,," listed four empty names as "unknown bot level '', '', '', ''")
        where = f"a level is missing between commas in {visible(repr(text))}" if text.strip() else "no levels given"
        raise SeatError(f"{what}: {where}; levels are {', '.join(LEVELS)}, one per seat (e.g. hard,medium)")
    extra = TEST_ONLY_LEVELS if allow_oracle else ()
    unknown = [lv for lv in levels if player_problem(f"bot:{lv}", extra)]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown)
        raise SeatError(f"{what}: unknown bot level {shown}; levels are {', '.join(LEVELS)}")
    if not MIN_SEATS <= len(levels) <= MAX_SEATS:
        raise SeatError(f"{what}: a game needs {MIN_SEATS} to {MAX_SEATS} seats, got {len(levels)} ({text!r})")
    return levels


def check_seats(seats: list[SeatSpec], allow_oracle: bool = False) -> list[SeatSpec]:
    """The seats of one table: 2-8, distinct printable names, each human or a known bot level."""
    try:
        check_names([s.name for s in seats])
    except GameSetupError as exc:
        raise SeatError(str(exc)) from None
    extra = TEST_ONLY_LEVELS if allow_oracle else ()
    for i, seat in enumerate(seats, start=1):
        problem = player_problem(seat.player, extra)
        if problem:
            raise SeatError(f"seat {i} ({seat.name}): {problem}")
    return list(seats)


def bot_names(levels: list[str]) -> list[str]:
    """Readable, unique names for bot seats: 'Hard', 'Medium', 'Medium 2', ..."""
    seen: Counter[str] = Counter()
    names = []
    for level in levels:
        seen[level] += 1
        k = seen[level]
        names.append(level.capitalize() + (f" {k}" if k > 1 else ""))
    return names


BOT_NAMES = ("Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy")  # a new table's bots, in order


def free_bot_name(taken) -> str:
    """The first bot name unlike every name taken, case and Unicode form aside: a player who
    calls herself Bo (or bo) keeps her name and the bots skip it (it crashed the quick game)."""
    seen = {unicodedata.normalize("NFC", n).casefold() for n in taken}
    spare = tuple(f"Bot {k}" for k in range(1, MAX_SEATS + 2))  # more than a table can take
    return next(n for n in BOT_NAMES + spare if n.casefold() not in seen)


def free_bot_names(taken, count: int) -> list[str]:
    names = list(taken)
    for _ in range(count):
        names.append(free_bot_name(names))
    return names[len(names) - count:]


def bot_seed(game_seed: int, seat: int) -> str:
    """Every front end seeds seat ``seat``'s bot the same way, so a seed means one game."""
    return f"{game_seed}/{seat}"


def make_mover(level: str, seed: str) -> Mover:
    """A bot as a function of (game, seat). Only the test-only oracles look past the seat's view."""
    if level == "oracle":
        from ..bots.oracle import Oracle

        return Oracle(seed).choose
    if level == "oracle-hands":
        from ..bots.oracle import HandsOracle

        return HandsOracle(seed).choose
    bot = Bot(level, seed)
    return lambda game, seat: bot.choose(game.view(seat))
