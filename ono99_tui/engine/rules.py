"""House rules: one immutable value, loaded from and written to TOML.

One schema (``KEYS``) drives everything: defaults, validation, the commented
``rules show`` output and, later, the rules editor. Every key names the rule
(R-number in docs/rules.md) it changes.
"""

from __future__ import annotations

import dataclasses
import datetime
import difflib
from dataclasses import dataclass, field
from typing import Any

import tomli_w

from ..parsing import ReadError, parse_toml
from ..text import counted, quoted, shorten, visible
from . import cards as C


@dataclass(frozen=True)
class KeySpec:
    path: str  # dotted TOML path, e.g. "deck.ten"
    kind: type  # int, bool or str
    default: Any
    rule: str
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    @property
    def field(self) -> str:
        return self.path.replace(".", "_")

    def allowed(self) -> str:
        if self.kind is bool:
            return "true or false"
        if self.choices:
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        return f"a whole number from {self.low} to {self.high}"


KEYS: tuple[KeySpec, ...] = (
    KeySpec("target", int, 99, "R5.1", "a play that brings the total to this or more loses the round", 10, 999),
    KeySpec("hand_size", int, 4, "R3.1", "cards dealt to each player", 1, 10),
    KeySpec(
        "forced_bust_plays_lowest", bool, True, "R5.3",
        "when every legal card busts, the player must bust with the lowest one",
    ),
    KeySpec("deck.number_each", int, 3, "R1.1", "copies of each number card 2-9", 0, 12),
    KeySpec("deck.ten", int, 10, "R1.1", "Ten cards (+10)", 0, 40),
    KeySpec("deck.minus_ten", int, 4, "R1.1", "Minus Ten cards (-10)", 0, 40),
    KeySpec("deck.hold", int, 4, "R1.1", "Hold cards", 0, 40),
    KeySpec("deck.reverse", int, 6, "R1.1", "Reverse cards", 0, 40),
    KeySpec("deck.double_play", int, 2, "R1.1", "Double Play cards", 0, 40),
    KeySpec("deck.ninety_nine", int, 4, "R1.1", "99 cards", 0, 40),
    KeySpec(
        "dealer.first", str, "high-card", "R2.2", "how the first dealer is chosen",
        choices=("high-card", "agree", "random"),
    ),
    KeySpec(
        "dealer.next", str, "left", "R2.3", "who deals the next round",
        choices=("left", "loser"),
    ),
    KeySpec(
        "double_play.no_double_on_first", bool, True, "R6.3",
        "a Double Play may not be the first of the two plays it forces",
    ),
    KeySpec(
        "double_play.deflect", bool, True, "R6.4",
        "a Hold or Reverse as the first of two plays passes the whole obligation on",
    ),
    KeySpec(
        "ninety_nine_card.playable_on_tens", bool, False, "R7.2",
        "a 99 may be played (like a Hold) when the total ends in 0",
    ),
    KeySpec("scoring.mode", str, "tokens", "R8/R9", "tokens (R8) or points (R9)", choices=("tokens", "points")),
    KeySpec("scoring.tokens", int, 3, "R8.1", "tokens each player starts with", 1, 20),
    KeySpec(
        "scoring.extra_life", bool, True, "R8.2",
        "a player with no tokens left plays on until one more loss",
    ),
    KeySpec("scoring.limit", int, 500, "R9.2", "points limit", 1, 100000),
    KeySpec(
        "scoring.end", str, "elimination", "R9.2/R9.3",
        "elimination: out at the limit, last left wins; first-to-limit: game ends, lowest wins",
        choices=("elimination", "first-to-limit"),
    ),
    KeySpec("scoring.bust_penalty", int, 25, "R9.1", "points added to the round's loser", 0, 1000),
)

KEY_BY_PATH: dict[str, KeySpec] = {k.path: k for k in KEYS}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(k.path.split(".")[0] for k in KEYS if "." in k.path))

#: deck.* key for each card.
DECK_KEYS: dict[str, str] = {
    C.TEN: "deck_ten",
    C.MINUS_TEN: "deck_minus_ten",
    C.HOLD: "deck_hold",
    C.REVERSE: "deck_reverse",
    C.DOUBLE: "deck_double_play",
    C.NINETY_NINE: "deck_ninety_nine",
}


@dataclass(frozen=True)
class Problem:
    source: str
    key: str
    message: str

    def __str__(self) -> str:
        # source and key come from the user (a path, a key in the file): never raw
        where = f"{visible(self.source)}: " if self.source else ""
        return f"{where}{shorten(self.key)}: {self.message}" if self.key else f"{where}{self.message}"


class RulesError(ValueError):
    """Every problem found in a rules document, each naming file, key and what is allowed."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Rules:
    target: int = 99
    hand_size: int = 4
    forced_bust_plays_lowest: bool = True
    deck_number_each: int = 3
    deck_ten: int = 10
    deck_minus_ten: int = 4
    deck_hold: int = 4
    deck_reverse: int = 6
    deck_double_play: int = 2
    deck_ninety_nine: int = 4
    dealer_first: str = "high-card"
    dealer_next: str = "left"
    double_play_no_double_on_first: bool = True
    double_play_deflect: bool = True
    ninety_nine_card_playable_on_tens: bool = False
    scoring_mode: str = "tokens"
    scoring_tokens: int = 3
    scoring_extra_life: bool = True
    scoring_limit: int = 500
    scoring_end: str = "elimination"
    scoring_bust_penalty: int = 25
    _deck: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_deck", tuple(self._build_deck()))

    # -- the deck -----------------------------------------------------------
    def _build_deck(self) -> list[str]:
        deck: list[str] = []
        for n in C.NUMBERS:
            deck += [n] * self.deck_number_each
        for card, name in DECK_KEYS.items():
            deck += [card] * getattr(self, name)
        return deck

    @property
    def deck(self) -> tuple[str, ...]:
        """Every card of the deck, in a fixed canonical order."""
        return self._deck

    def count(self, card: str) -> int:
        if card in C.NUMBERS:
            return self.deck_number_each
        return getattr(self, DECK_KEYS[card])

    def max_players(self) -> int:
        return max(0, min(8, len(self._deck) // self.hand_size))

    def too_many_seats(self, seats: int, fix: str | None = None) -> str | None:
        """None when these rules deal to ``seats`` players, else the sentence saying so and, by
        default, how many seats to remove (one removed was not always enough)."""
        most = self.max_players()
        if seats <= most:
            return None
        fix = fix or ("remove a seat" if seats - most == 1 else f"remove {seats - most} seats")
        return f"These rules deal to at most {most} players, not {seats}; {fix}."

    # -- conversions ----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Nested dict of every key, as in a TOML document."""
        out: dict[str, Any] = {}
        for spec in KEYS:
            value = getattr(self, spec.field)
            if "." in spec.path:
                section, key = spec.path.split(".")
                out.setdefault(section, {})[key] = value
            else:
                out[spec.path] = value
        return out

    def changed(self) -> dict[str, Any]:
        """Nested dict of only the keys that differ from the defaults."""
        base = DEFAULT.to_dict()
        out: dict[str, Any] = {}
        for name, value in self.to_dict().items():
            if isinstance(value, dict):
                diff = {k: v for k, v in value.items() if base[name][k] != v}
                if diff:
                    out[name] = diff
            elif base[name] != value:
                out[name] = value
        return out

    def to_toml(self, *, only_changed: bool = False) -> str:
        return tomli_w.dumps(self.changed() if only_changed else self.to_dict())

    def replace(self, **changes: Any) -> "Rules":
        return dataclasses.replace(self, **changes)

    def summary(self) -> list[str]:
        """Short lines describing the rules in force, for help screens and replays."""
        lines = []
        if self.scoring_mode == "tokens":
            life = ", then one extra life" if self.scoring_extra_life else ""
            lines.append(f"Tokens: {self.scoring_tokens} each{life}; last player left wins.")
        elif self.scoring_end == "elimination":
            lines.append(f"Points: out at {self.scoring_limit}; last player left wins.")
        else:
            lines.append(f"Points: game ends when anyone reaches {self.scoring_limit}; lowest wins.")
        lines.append(f"Bust at {self.target}; {counted(self.hand_size, 'card')} in hand; {len(self._deck)}-card deck.")
        if self.ninety_nine_card_playable_on_tens:
            lines.append("A 99 may be played when the total ends in 0.")
        if not self.double_play_deflect:
            lines.append("Hold/Reverse do not deflect a Double Play.")
        return lines


DEFAULT = Rules()


# -- loading and validation -------------------------------------------------

#: Unknown keys reported one by one; the rest are counted (a file of 200,000 unknown keys
#: must not take a minute of "did you mean").
MAX_UNKNOWN = 20


def _allowed_in(table: str, is_table: bool) -> str:
    """What may be written in ``table`` ("" for the top level), for an unknown key there."""
    tables = ", ".join(f"[{t}]" for t in SECTIONS)
    if is_table:
        return f"allowed tables: {tables}"
    if table:
        leaves = [k.path.rpartition(".")[2] for k in KEYS if k.path.rpartition(".")[0] == table]
        return f"allowed in [{table}]: {', '.join(leaves)}"
    top = [k.path for k in KEYS if "." not in k.path]
    return f"allowed at the top level: {', '.join(top)}, and the tables {tables}"


def _nearest(name: str, is_table: bool = False) -> str:
    """A "did you mean" for an unknown key, looking across tables: a key put under the wrong
    table (hand_sise under [ninety_nine_card]) is matched by its own name first. With
    nothing close, what that table allows (the "deck." two names share is no likeness)."""
    table, _, leaf = name.rpartition(".")
    if len(name) <= 60:
        if not is_table:
            by_leaf: dict[str, str] = {}
            for option in KEY_BY_PATH:
                by_leaf.setdefault(option.rpartition(".")[2], option)
            same = difflib.get_close_matches(leaf, list(by_leaf), n=1, cutoff=0.75)
            if same and by_leaf[same[0]].rpartition(".")[0] != table:
                found = by_leaf[same[0]]
                where = f"[{found.rpartition('.')[0]}]" if "." in found else "the top level, outside any table"
                return f' (did you mean "{found}"? "{same[0]}" belongs in {where})'
        here = {} if is_table else {p.rpartition(".")[2]: p for p in KEY_BY_PATH if p.rpartition(".")[0] == table}
        if not table:
            here.update({s: s for s in SECTIONS})
        close = difflib.get_close_matches(leaf, list(here), n=1, cutoff=0.6)
        if close:
            return f' (did you mean "{here[close[0]]}"?)'
    return f"; {_allowed_in(table, is_table)}"


def _unknown(source: str, path: str, problems: list[Problem], count: list[int], is_table: bool = False) -> None:
    count[0] += 1
    if count[0] <= MAX_UNKNOWN:
        what = "unknown table" if is_table else "unknown key"
        problems.append(Problem(source, path, what + _nearest(path, is_table)))


def _check_value(spec: KeySpec, value: Any, source: str, problems: list[Problem]) -> bool:
    bad = None
    if spec.kind is bool:
        if not isinstance(value, bool):
            bad = f"must be true or false, not {_show(value)}"
    elif spec.kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            bad = f"must be a whole number, not {_show(value)}; allowed: {spec.allowed()}"
        elif not spec.low <= value <= spec.high:
            bad = f"{shorten(value)} is out of range; allowed: {spec.allowed()}"
    elif spec.kind is str:
        if not isinstance(value, str):
            bad = f"must be a string, not {_show(value)}; allowed: {spec.allowed()}"
        elif value not in spec.choices:
            bad = f"{quoted(value)} is not allowed; allowed: {spec.allowed()}"
    if bad:
        problems.append(Problem(source, spec.path, bad))
        return False
    return True


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return f"{quoted(value)} (a string)"
    if isinstance(value, float):
        return f"{value} (a decimal)"
    if isinstance(value, int):
        return f"{shorten(value)} (a whole number)"
    # TOML's own date and time values, in TOML's words, not Python's (datetime.date(1979, 5, 27))
    for kind, words in ((datetime.datetime, "a date and time"), (datetime.date, "a date"), (datetime.time, "a time")):
        if isinstance(value, kind):
            return f"{value.isoformat()} ({words})"
    return f"{shorten(repr(value))} ({type(value).__name__})"


def rules_from_dict(data: Any, source: str = "", base: Rules = DEFAULT) -> Rules:
    """Build rules from a (possibly partial) nested dict, collecting every problem."""
    problems: list[Problem] = []
    values: dict[str, Any] = {}
    if not isinstance(data, dict):
        raise RulesError([Problem(source, "", "the rules must be a TOML table")])
    unknown = [0]
    for name, value in data.items():
        if name in SECTIONS:
            if not isinstance(value, dict):
                problems.append(Problem(source, name, f"must be a table ([{name}]), not {_show(value)}"))
                continue
            for key, sub in value.items():
                path = f"{name}.{key}"
                spec = KEY_BY_PATH.get(path)
                if spec is None:
                    _unknown(source, path, problems, unknown)
                elif _check_value(spec, sub, source, problems):
                    values[spec.field] = sub
        elif name in KEY_BY_PATH:
            spec = KEY_BY_PATH[name]
            if _check_value(spec, value, source, problems):
                values[spec.field] = value
        else:
            _unknown(source, name, problems, unknown, isinstance(value, dict))
    if unknown[0] > MAX_UNKNOWN:
        problems.append(Problem(source, "", f"and {unknown[0] - MAX_UNKNOWN:,} more unknown keys"))
    if problems:
        raise RulesError(problems)
    rules = dataclasses.replace(base, **values)
    _check_whole(rules, source, problems)
    if problems:
        raise RulesError(problems)
    return rules


def _check_whole(rules: Rules, source: str, problems: list[Problem]) -> None:
    deck = len(rules.deck)
    need = 2 * rules.hand_size
    if deck < need:
        problems.append(
            Problem(
                source, "deck",
                f"a {deck}-card deck is too small to deal {counted(rules.hand_size, 'card')} to 2 players "
                f"(needs at least {need} cards; raise deck.* or lower hand_size)",
            )
        )
    net = sum(C.EFFECT[c] for c in rules.deck)
    playable = [c for c in rules.deck if c != C.NINETY_NINE or rules.ninety_nine_card_playable_on_tens]
    if not deck:
        pass  # too small to deal, said above; nothing else about cards it does not have
    elif not playable:  # (not "Minus Tens outweighing the rest": a play-tester's deck of 99s)
        problems.append(
            Problem(
                source, "deck",
                "the deck holds only 99s, which cannot be played (R7.1): every round would be lost at "
                "once by its first player, who has no card to play (R5.2); add number cards or Tens "
                "(deck.number_each, deck.ten)",
            )
        )
    elif not any(c in C.ADDERS for c in rules.deck):
        problems.append(
            Problem(
                source, "deck",
                f"the deck has no number cards or Tens: no card adds to the total, so it never reaches "
                f"{rules.target} and a round may never end; add number cards or Tens (deck.number_each, deck.ten)",
            )
        )
    elif net <= 0:
        problems.append(
            Problem(
                source, "deck",
                f"the deck's cards add up to {net}: with Minus Tens outweighing the rest a round may "
                "never end; the cards must add up to more than 0 (fewer deck.minus_ten, or more numbers/Tens)",
            )
        )
    if rules.dealer_first == "high-card":
        draw = [c for c in rules.deck if c in C.HIGH_CARD_DRAW]
        if len(set(draw)) < 2 or len(draw) < 8:
            problems.append(
                Problem(
                    source, "dealer.first",
                    '"high-card" needs at least 8 number/Ten cards of at least two values to draw '
                    f'from (this deck has {len(draw)}); use "random" or "agree"',
                )
            )


def load_rules_text(text: str, source: str = "<text>") -> Rules:
    try:
        data = parse_toml(text.removeprefix("\ufeff"), source, "rules file")
    except ReadError as exc:
        raise RulesError([Problem(exc.where, "", exc.reason)]) from None
    return rules_from_dict(data, source)


def commented_toml(rules: Rules, header: str = "") -> str:
    """Every key with its value, each commented with its rule and meaning."""
    lines = [f"# {line}" for line in header.splitlines()] if header else []
    section = None
    for spec in KEYS:
        sec, _, key = spec.path.rpartition(".")
        if sec != section:
            if lines:
                lines.append("")
            if sec:
                lines.append(f"[{sec}]")
            section = sec
        value = getattr(rules, spec.field)
        literal = tomli_w.dumps({"v": value})[4:].strip()
        note = f"{spec.rule}: {spec.help}; {spec.allowed()}"
        if value != spec.default:
            note += f" (default {tomli_w.dumps({'v': spec.default})[4:].strip()})"
        lines.append(f"{key or spec.path} = {literal}  # {note}")
    return "\n".join(lines) + "\n"
