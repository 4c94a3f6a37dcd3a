"""The game record, the "PGN" of O'NO 99 (see docs/record-format.md).

A record holds what determines a game: seats, rules in full, seed, first
dealer, any stacked decks, and the plays in order, grouped by round. Replaying
it through the engine reproduces the game exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import tomli_w

from ..parsing import ReadError, parse_toml
from ..text import quoted as in_quotes, shorten, visible
from . import cards as C
from .game import MAX_ROUND_PLAYS, Game, GameSetupError, IllegalPlay, normalise_name
from .rules import Rules, RulesError, rules_from_dict

FORMAT = "ono99-record"
# 2: [summary] and digest, written so a listing need not replay; 3: rounds.undo (an undo shuffled
# the unseen pile) and the checked journal (docs/record-format.md)
VERSION = 3
HEAD = "# O'NO 99 game record (docs/record-format.md); replay it with `ono99 replay FILE`\n"
DIGEST_KEY = "digest = "
_PLAYER = re.compile(r"^(human|bot:[a-z][a-z0-9-]*)$")
_DEALER_METHODS = ("high-card", "random", "named")
GAME_ID = re.compile(r"^[0-9A-Za-z_-]{8,64}$")  # meta.game: ono99 writes 16 hex digits


# The bot levels a seat may name ("bot:LEVEL"); bots/levels.py plays them. Here, in the engine,
# because records, saves, the New game form and the network lobby all check seats against them,
# and the engine may not import the bots.
BOT_LEVELS = ("random", "easy", "medium", "hard")


class RecordError(ValueError):
    """A record that is malformed, or whose plays break the rules."""


def player_problem(player: Any, extra_levels: tuple[str, ...] = ()) -> str | None:
    """Why ``player`` cannot play a seat, or None: a seat is "human" or "bot:LEVEL" with a known
    level (``extra_levels``: more levels allowed here, e.g. the test-only oracles). The one check
    of a seat's player, used by every reader of seats."""
    if not isinstance(player, str) or not _PLAYER.match(player):
        return f"player must be \"human\" or \"bot:LEVEL\", not {shown(player)}"
    if player.startswith("bot:") and player[4:] not in BOT_LEVELS + tuple(extra_levels):
        return f"unknown bot level {shorten(repr(player[4:]))}; levels are {', '.join(BOT_LEVELS)}"
    return None


@dataclass(frozen=True)
class SeatSpec:
    name: str
    player: str = "human"  # "human" or "bot:LEVEL"

    def __post_init__(self) -> None:
        # normalise_name's strip, for every way a seat is made (its other checks run when a
        # game starts, so a form can still hold an empty name while it is being filled in)
        if isinstance(self.name, str) and self.name != self.name.strip():
            object.__setattr__(self, "name", self.name.strip())

    @property
    def is_bot(self) -> bool:
        return self.player.startswith("bot:")

    @property
    def bot_level(self) -> str | None:
        return self.player[4:] if self.is_bot else None


@dataclass
class Record:
    seats: list[SeatSpec]
    rules: Rules
    seed: int
    first_dealer: str | None = None
    dealer_chosen_by: str | None = None
    decks: dict[int, tuple[str, ...]] = field(default_factory=dict)
    rounds: list[list[tuple[str, str]]] = field(default_factory=list)  # [(name, card)] per round
    meta: dict[str, Any] = field(default_factory=dict)
    # what a listing shows (round, scores, winner), as written; replay never reads it
    summary: dict[str, Any] | None = field(default=None, compare=False)
    # round -> after how many of its plays an undo shuffled the unseen pile (Game.shuffle_unseen)
    undos: dict[int, list[int]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def play_count(self) -> int:
        return sum(len(r) for r in self.rounds)

    @property
    def game_id(self) -> str:
        """Which game this record is of, the same for every copy of it (Save as, export and import,
        a save's .bak put back): its meta.game, which ono99 writes in every save. A record without
        one (an older ono99's save, a simulation's, one written by hand) is known by what fixed
        the game at its start (seed, seats, rules, first dealer, a stacked first deal), so its
        copies agree, and that id is written into it the next time it is saved."""
        given = self.meta.get("game")
        if isinstance(given, str) and GAME_ID.match(given):
            return given
        start = [self.seed, [[s.name, s.player] for s in self.seats], self.rules.to_dict(), self.first_dealer,
                 self.dealer_chosen_by, list(self.decks.get(1, ()))]
        return hashlib.sha256(json.dumps(start, sort_keys=True, ensure_ascii=True).encode()).hexdigest()[:16]

    # -- from a game ------------------------------------------------------------
    @classmethod
    def from_game(cls, game: Game, seats: list[SeatSpec] | None = None, meta: dict | None = None) -> "Record":
        seats = seats or [SeatSpec(n) for n in game.names]
        rounds = [[(game.names[s], c) for s, c in rp] for rp in game.round_plays]
        undos = {i: list(m) for i, m in enumerate(game.undo_marks, start=1) if m}
        while rounds and not rounds[-1] and len(rounds) not in undos:
            rounds.pop()  # a round dealt but not yet played is implied by the seed
        return cls(
            seats=list(seats),
            rules=game.rules,
            seed=game.seed,
            first_dealer=game.names[game.first_dealer],
            dealer_chosen_by=game.dealer_method,
            decks=dict(game.decks),
            rounds=rounds,
            meta=dict(meta or {}),
            summary=summary_of(game),
            undos=undos,
        )

    # -- to a game ----------------------------------------------------------------
    def new_game(self, record_events: bool = True) -> Game:
        """The game as dealt, before any play."""
        named = self.first_dealer if self.dealer_chosen_by in (None, "named") else None
        try:
            game = Game(self.names, self.rules, self.seed, first_dealer=named, decks=self.decks,
                        record_events=record_events)
        except GameSetupError as exc:
            raise RecordError(str(exc)) from None
        if self.first_dealer is not None and named is None:
            chosen = game.names[game.first_dealer]
            if chosen != self.first_dealer:
                raise RecordError(
                    f"first_dealer is {self.first_dealer!r}, but {self.dealer_chosen_by} with seed "
                    f"{self.seed} chooses {chosen!r}; name the dealer with dealer_chosen_by = \"named\""
                )
        return game

    def replay(self, record_events: bool = True, events_from_round: int | None = None) -> Game:
        """Play every recorded play; raise RecordError at the first one that breaks a rule.

        With ``events_from_round``, events are kept only from that round on (a table
        resuming a long game shows the recent plays without building every past event)."""
        late = events_from_round is not None and events_from_round > 1
        game = self.new_game(record_events and not late)
        n = 0
        for i in range(1, max(len(self.rounds), max(self.undos, default=0)) + 1):
            plays = self.rounds[i - 1] if i <= len(self.rounds) else []
            if late and record_events and i == events_from_round:
                game._recording = True  # noqa: SLF001 - the engine's own switch, set before the round's plays
            marks = self.undos.get(i, [])
            if marks and (game.over or game.round_no != i or marks[-1] > len(plays)):
                raise RecordError(f"round {i}: undo = {marks} does not fit its {len(plays)} plays "
                                  f"(an undo mark counts the round's plays before it)")
            for j, (name, card) in enumerate(plays):
                self._shuffle_at(game, i, marks, j)
                n += 1
                where = f"play {n} (round {i}, {name} plays {C.LABEL.get(card, card)})"
                if game.over:
                    raise RecordError(f"{where}: the game is already over")
                if game.round_no != i:
                    raise RecordError(
                        f"{where}: round {i} is already over (it ended after play {n - 1}); "
                        f"start round {game.round_no} as a new [[rounds]] entry"
                    )
                to_move = game.names[game.current]
                if name != to_move:
                    raise RecordError(f"{where}: it is {to_move}'s turn, not {name}'s")
                try:
                    game.play(card)
                except IllegalPlay as exc:
                    raise RecordError(f"{where}: {exc}") from None
            self._shuffle_at(game, i, marks, len(plays))
            if i < len(self.rounds) and game.round_no == i and not game.over:
                raise RecordError(
                    f"round {i} ends in the record after play {n}, but the round is not over "
                    f"({game.names[game.current]} to play)"
                )
        if late and record_events:
            game._recording = True  # noqa: SLF001 - fewer rounds recorded than asked for
        self.summary = summary_of(game)
        return game

    @staticmethod
    def _shuffle_at(game: Game, round_no: int, marks: list[int], played: int) -> None:
        """The undo shuffles recorded after ``played`` of the round's plays."""
        for _ in range(marks.count(played)):
            if game.over or game.round_no != round_no:
                raise RecordError(f"round {round_no}: an undo mark after play {played} of the round, "
                                  "but the round is over by then")
            try:
                game.shuffle_unseen()
            except IllegalPlay as exc:
                raise RecordError(f"round {round_no}: the undo after play {played} of the round: {exc}") from None

    def rewound(self, plays: int) -> "Record":
        """The record of this game's first ``plays`` plays (with the undo marks before them)."""
        rounds, undos, left = [], {}, plays
        for i in range(1, max(len(self.rounds), max(self.undos, default=0)) + 1):
            rp = self.rounds[i - 1] if i <= len(self.rounds) else []
            take = list(rp[:left])
            rounds.append(take)
            kept = [m for m in self.undos.get(i, []) if m <= len(take)]
            if kept:
                undos[i] = kept
            left -= len(take)
            if len(take) < len(rp):
                break  # cut in this round: the rounds after it were never dealt
        while rounds and not rounds[-1] and len(rounds) not in undos:
            rounds.pop()
        return Record(list(self.seats), self.rules, self.seed, self.first_dealer, self.dealer_chosen_by,
                      dict(self.decks), rounds, dict(self.meta), None, undos)

    # -- TOML ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        doc = self._head_dict()
        doc["rules"] = self.rules.to_dict()
        rounds = self._rounds_out()
        if rounds:
            doc["rounds"] = [{**({"deck": list(deck)} if deck else {}), **({"undo": list(undo)} if undo else {}),
                              "plays": [f"{n}: {c}" for n, c in plays]}
                             for deck, undo, plays in rounds]
        return doc

    def _head_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "seed": self.seed}
        if self.first_dealer is not None:
            doc["first_dealer"] = self.first_dealer
        if self.dealer_chosen_by is not None:
            doc["dealer_chosen_by"] = self.dealer_chosen_by
        if self.meta:
            doc["meta"] = self.meta
        if self.summary:
            doc["summary"] = self.summary
        doc["seats"] = [{"name": s.name, "player": s.player} for s in self.seats]
        return doc

    def _rounds_out(self) -> list[tuple[tuple[str, ...] | None, list[int] | None, list[tuple[str, str]]]]:
        last = max(len(self.rounds), max(self.decks, default=0), max(self.undos, default=0))
        return [(self.decks.get(i), self.undos.get(i), self.rounds[i - 1] if i <= len(self.rounds) else [])
                for i in range(1, last + 1)]

    def to_toml(self) -> str:
        """The record as TOML: head (format, seats, meta, summary), rules, rounds, with a digest
        of the whole text on line 2 so a listing can trust the summary without replaying."""
        rules = {"rules": self.rules.to_dict()}
        parts = [tomli_w.dumps(self._head_dict(), multiline_strings=False), "\n",
                 tomli_w.dumps(rules, multiline_strings=False)]
        quoted: dict[tuple[str, str], str] = {}  # each seat/card pair formatted once: saves stay fast when long
        for deck, undo, plays in self._rounds_out():
            parts.append("\n[[rounds]]\n")
            if deck:
                parts.append(tomli_w.dumps({"deck": list(deck)}, multiline_strings=False))
            if undo:
                parts.append(f"undo = [{', '.join(str(m) for m in undo)}]\n")
            items = []
            for play in plays:
                text = quoted.get(play)
                if text is None:
                    text = quoted[play] = f"    {toml_string(f'{play[0]}: {play[1]}')},\n"
                items.append(text)
            parts.append("plays = [\n" + "".join(items) + "]\n" if items else "plays = []\n")
        body = "".join(parts)
        return HEAD + DIGEST_KEY + toml_string(digest(HEAD + body)) + "\n" + body

    @classmethod
    def from_dict(cls, doc: Any, source: str = "record") -> "Record":
        if not isinstance(doc, dict):
            raise RecordError(f"{source}: a record must be a TOML table")
        fmt = doc.get("format")
        if not doc:  # (an empty file: a save cut off before its first byte)
            raise RecordError(f"{source}: the file is empty, not an ono99 record")
        if fmt is None:
            raise RecordError(f'{source}: has no format field; an ono99 record has format = "{FORMAT}"')
        if fmt != FORMAT:
            raise RecordError(f'{source}: format must be "{FORMAT}", not {shown(fmt)}; is this an ono99 record?')
        version = doc.get("version")
        if version is None:
            raise RecordError(f"{source}: has no version field; an ono99 record has version = 1 to {VERSION} "
                              f"(this ono99 writes {VERSION})")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise RecordError(f"{source}: version must be a whole number from 1, not {shown(version)}")
        if version > VERSION:
            raise RecordError(
                f"{source}: written by a newer ono99 (record version {version}); "
                f"this one reads versions up to {VERSION}"
            )
        known = {"format", "version", "digest", "seed", "first_dealer", "dealer_chosen_by", "meta", "summary",
                 "seats", "rules", "rounds"}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise RecordError(f"{source}: unknown key {shorten(repr(unknown[0]))} (keys: {', '.join(sorted(known))})")
        seed = doc.get("seed")
        if seed is None:
            raise RecordError(f"{source}: has no seed field; an ono99 record has seed = a whole number "
                              "(it decides the deals)")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RecordError(f"{source}: seed must be a whole number, not {shown(seed)}")
        seats = _seats(doc.get("seats"), source)
        rules_doc = doc.get("rules")
        if not isinstance(rules_doc, dict):
            raise RecordError(f"{source}: [rules] is missing or not a table")
        try:
            rules = rules_from_dict(rules_doc, source)
        except RulesError as exc:
            raise RecordError("\n".join(f"{p.source}: rules.{p.key}: {p.message}" if p.key else str(p)
                                        for p in exc.problems)) from None
        names = [s.name for s in seats]
        first = doc.get("first_dealer")
        if isinstance(first, str):
            first = first.strip()  # as the seat names are
        if first is not None and first not in names:
            raise RecordError(f"{source}: first_dealer {shown(first)} is not a seat ({', '.join(names)})")
        method = doc.get("dealer_chosen_by")
        if method is not None and method not in _DEALER_METHODS:
            raise RecordError(f"{source}: dealer_chosen_by must be one of {', '.join(_DEALER_METHODS)}, "
                              f"not {shown(method)}")
        meta = doc.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError(f"{source}: meta must be a table")
        summary = doc.get("summary")
        if summary is not None and not isinstance(summary, dict):
            raise RecordError(f"{source}: summary must be a table")
        decks, rounds, undos = _rounds(doc.get("rounds", []), names, source)
        return cls(seats, rules, seed, first, method, decks, rounds, meta, summary, undos)

    @classmethod
    def loads(cls, text: str, source: str = "record") -> "Record":
        source = visible(source)
        try:
            doc = parse_toml(text.removeprefix("\ufeff"), source, "record")
        except ReadError as exc:
            raise RecordError(str(exc)) from None
        return cls.from_dict(doc, source)


def shown(value: Any) -> str:
    """A value read from a file, as the file spells it (true, "x", [1, 2], a table), for a message:
    never as Python does (True, 'x')."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return in_quotes(value)
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return shorten(json.dumps(value, ensure_ascii=False, default=str))
    return shorten(value)


def toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, except that TOML also forbids a raw DEL."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def check_digest(text: str) -> bool | None:
    """True when line 2 is a digest matching the rest of the text (written by ono99 and not
    changed since), False when it does not match, None when there is none."""
    first, sep, rest = text.partition("\n")
    if not rest.startswith(DIGEST_KEY):
        return None
    line, _, body = rest.partition("\n")
    return line == DIGEST_KEY + toml_string(digest(first + sep + body))


def summary_of(game: Game) -> dict[str, Any]:
    """Round, plays, scores, finished and winner: what a listing shows, known without replaying."""
    tokens = game.rules.scoring_mode == "tokens"
    summary: dict[str, Any] = {
        "round": game.round_no, "plays": len(game.plays), "finished": game.over,
        "scoring": game.rules.scoring_mode,
        "scores": list(game.tokens if tokens else game.points), "out": list(game.out),
    }
    if game.over and game.winner is not None:
        summary["winner"] = game.names[game.winner]
    return summary


def scores_text(names: list[str], summary: dict[str, Any]) -> str:
    """ "Ana 2 tokens, Bo out, Cy won (0 left)": a count always says what it counts, and the
    winner is named as such (a bare "Bo 0" read as Bo having lost everything)."""
    tokens = summary.get("scoring") == "tokens"
    parts = []
    for name, score, out in zip(names, summary.get("scores", []), summary.get("out", [])):
        if tokens:
            text = "out" if out else f"{score} token{'' if score == 1 else 's'}"
            if name == summary.get("winner"):
                text = f"won ({score} left)"
        else:
            text = f"{score} point{'' if score == 1 else 's'}" + (" (out)" if out else "")
            if name == summary.get("winner"):
                text = f"won ({text})"
        parts.append(f"{name} {text}")
    return ", ".join(parts)


def _seats(raw: Any, source: str) -> list[SeatSpec]:
    if not isinstance(raw, list) or not raw:
        raise RecordError(f"{source}: [[seats]] is missing; a record needs 2 to 8 seats")
    if len(raw) > 8:
        raise RecordError(f"{source}: a record has 2 to 8 seats, not {len(raw)}")
    seats = []
    for i, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise RecordError(f"{source}: seat {i} needs a name (name = \"...\")")
        try:
            name = normalise_name(item["name"])  # the one place names are normalised
        except GameSetupError as exc:
            raise RecordError(f"{source}: seat {i}: {exc}") from None
        player = item.get("player", "human")
        problem = player_problem(player)
        if problem:
            raise RecordError(f"{source}: seat {i} ({name}): {problem}")
        extra = set(item) - {"name", "player"}
        if extra:
            raise RecordError(f"{source}: seat {i} has unknown key {shorten(repr(sorted(extra)[0]))} (keys: name, player)")
        seats.append(SeatSpec(name, player))
    return seats


def _rounds(raw: Any, names: list[str], source: str):
    if not isinstance(raw, list):
        raise RecordError(f"{source}: rounds must be an array of tables ([[rounds]])")
    decks: dict[int, tuple[str, ...]] = {}
    undos: dict[int, list[int]] = {}
    rounds: list[list[tuple[str, str]]] = []
    n = 0
    for i, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            raise RecordError(f"{source}: round {i} must be a table")
        extra = set(entry) - {"deck", "undo", "plays"}
        if extra:
            raise RecordError(f"{source}: round {i} has unknown key {shorten(repr(sorted(extra)[0]))} "
                              "(keys: deck, undo, plays)")
        if "undo" in entry:
            undo = entry["undo"]
            if (not isinstance(undo, list) or not undo
                    or not all(isinstance(m, int) and not isinstance(m, bool) and 0 <= m <= MAX_ROUND_PLAYS
                               for m in undo) or undo != sorted(undo)):
                raise RecordError(f"{source}: round {i} undo must be an array of play counts in order "
                                  f"(0 to {MAX_ROUND_PLAYS}), not {shown(undo)}")
            undos[i] = list(undo)
        if "deck" in entry:
            deck = entry["deck"]
            if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                raise RecordError(f"{source}: round {i} deck must be an array of card names")
            try:
                decks[i] = tuple(C.parse_card(c) for c in deck)
            except ValueError as exc:
                raise RecordError(f"{source}: round {i} deck: {shorten(exc, 120)}") from None
        plays = entry.get("plays", [])
        if not isinstance(plays, list):
            raise RecordError(f"{source}: round {i} plays must be an array of \"NAME: CARD\" strings")
        parsed = []
        for text in plays:
            n += 1
            if not isinstance(text, str) or ":" not in text:
                raise RecordError(f"{source}: play {n} (round {i}) must be \"NAME: CARD\", not {shown(text)}")
            name, _, card_text = text.rpartition(":")
            name = name.strip()
            if name not in names:
                raise RecordError(f"{source}: play {n} (round {i}): {shorten(repr(name))} is not a seat ({', '.join(names)})")
            try:
                card = C.parse_card(card_text)
            except ValueError as exc:
                raise RecordError(f"{source}: play {n} (round {i}): {shorten(exc, 120)}") from None
            parsed.append((name, card))
        rounds.append(parsed)
    while rounds and not rounds[-1] and len(rounds) not in undos:
        rounds.pop()
    return decks, rounds, undos


def undo_to(game: Game, plays: int) -> Game:
    """``game`` rewound to its first ``plays`` plays, then the unseen pile shuffled (an undo,
    docs/rules.md "Undo"): the cards the plays taken back drew go back into the draw pile unseen,
    so the next draw cannot be known from before the undo. IllegalPlay (nothing changed) when
    the pile would hold fewer than two cards. The new game's record holds the shuffle
    (rounds.undo), so it replays to the same pile."""
    record = Record.from_game(game).rewound(plays)
    fresh = record.replay(record_events=game._recording)  # noqa: SLF001 - keep the game's own choice
    fresh.shuffle_unseen()
    return fresh
