"""A hosted table: its lobby seats (who sits where, connected or not) and, once
started, the TableSession that runs the game. No sockets here."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from ..engine.game import GameSetupError
from ..engine.record import SeatSpec, player_problem
from ..engine.rules import Rules
from ..table import TableSession
from ..table.seats import bot_names
from ..text import alike
from .protocol import WATCHERS_NAMED  # watchers named in a table's listing (all are counted)


@dataclass
class Seat:
    name: str | None = None  # None: empty
    player: str | None = None  # "human" or "bot:LEVEL"
    token: str | None = None  # a human seat's key for coming back
    conn: object | None = None  # the connection playing this seat now, if any
    # its player stood up on purpose ("stand") during the game, rather than losing the connection:
    # the others are told they left, not that the connection dropped (until they are back)
    left: bool = False

    @property
    def empty(self) -> bool:
        return self.player is None

    @property
    def is_bot(self) -> bool:
        return bool(self.player) and self.player.startswith("bot:")

    def public(self) -> dict:
        out = {"name": self.name, "player": self.player, "connected": self.is_bot or self.conn is not None}
        if self.left and not out["connected"]:
            out["left"] = True  # (only then: older clients and the lobby listing see the same seats)
        return out




@dataclass
class HostedTable:
    id: int
    name: str
    rules: Rules
    rules_label: str
    seats: list[Seat]
    session: TableSession | None = None
    watchers: set = field(default_factory=set)
    creator: object | None = None  # the connection that made it, until it sits anywhere or leaves
    # who made it, for the caps on tables per connection and per address (kept after they leave:
    # a table someone made and left still counts against their address until it goes)
    made_by: int | None = None  # the connection's number
    made_from: str | None = None  # the player's address
    # since when (time.time()) no person has been connected at this started table; None while
    # someone is. After the server's --abandoned-after the table is closed (its save kept)
    away_since: float | None = None
    closes_at: float | None = None  # away_since + abandoned-after, for the lobby listing
    save_name: str | None = None  # its autosave, once started with saving on
    # absent seats whose turn timer has run out: the stand-in bot plays their turns at once
    # until their player comes back (then the timer applies again)
    stood_in: set[int] = field(default_factory=set)
    timeouts: int = 0  # how often a turn timer ran out (for the tests and the log)
    # (session, SeatUpdate.change, view_public_json): the public part of the last change's views,
    # encoded by the first connection told of it and shared by the others (net/server.py)
    public_view: tuple = (None, 0, "")
    # which game this is, for a watcher dialling back after a restart: a table resumed from its
    # save is the same game (its save's name); any other table is a new one, even at the same id
    uid: str = field(default_factory=lambda: secrets.token_hex(6))

    @property
    def game(self) -> str:
        return self.save_name or self.uid

    @property
    def started(self) -> bool:
        return self.session is not None

    @property
    def over(self) -> bool:
        return self.session is not None and self.session.over

    @property
    def state(self) -> str:
        """waiting (for players, not started), playing, away (started; no person connected: it
        closes at ``closes_at``), over."""
        if not self.started:
            return "waiting"
        if self.session.over:
            return "over"
        return "playing" if self.away_since is None else "away"

    def humans_present(self) -> bool:
        return any(s.conn is not None for s in self.seats if not s.is_bot)

    def anyone_seated(self) -> bool:
        """A person sits here (connected or not; before the start a seat is only kept while
        its player is there)."""
        return any(not s.empty and not s.is_bot for s in self.seats)

    def public(self, now: float | None = None) -> dict:
        """What anyone in the lobby may know about the table."""
        out = {"id": self.id, "name": self.name, "rules": self.rules_label, "rules_table": self.rules.to_dict(),
               "seats": [s.public() for s in self.seats], "started": self.started,
               "over": self.over, "watchers": len(self.watchers), "state": self.state,
               # who watches: players see their names (a name someone chose to show, like a seat's);
               # the first few only, so a crowd of watchers cannot make every table message huge
               "watching": self.watcher_names()[:WATCHERS_NAMED],
               "game": self.game}
        if self.state == "away" and self.closes_at is not None and now is not None:
            out["closes_in"] = max(0, round(self.closes_at - now))
        return out

    def watcher_names(self) -> list[str]:
        """The watchers' names as the table shows them, in the order they came: one that looks like a
        seated player's or an earlier watcher's is numbered ("Ann (2)"), or Ann's log would say "Ann
        is watching" of someone else, and one of two Bobs leaving would go unsaid."""
        taken = {alike(s.name) for s in self.seats if s.name is not None}
        names = []
        for conn in sorted(self.watchers, key=lambda c: c.serial):
            if not conn.name:
                continue
            name, n = conn.name, 1
            while alike(name) in taken:
                n += 1
                name = f"{conn.name} ({n})"
            taken.add(alike(name))
            names.append(name)
        return names

    def connections(self) -> list:
        return [s.conn for s in self.seats if s.conn is not None] + list(self.watchers)

    def seat_of_name(self, name: str) -> int | None:
        """The seat of ``name`` or of a name that looks the same ("Zoë" in another Unicode form, "ann"):
        two such players would be one on the scoreboard, in the log and in the statistics."""
        for i, s in enumerate(self.seats):
            if s.name is not None and alike(s.name) == alike(name):
                return i
        return None

    def sit(self, name: str, seat: int | None, token: str | None = None) -> tuple[int, str]:
        """A human sits (before the start); returns (seat, token). Raises LobbyError."""
        if self.started:
            raise LobbyError("started", "the game has started: only its players may come back (with their token)")
        if (taken := self.seat_of_name(name)) is not None:
            alike = "" if self.seats[taken].name == name else " (a name that looks the same)"
            raise LobbyError("name_taken", f"someone called {name!r} already sits at this table{alike}; "
                             "connect with another --name")
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s.empty]
            if not free:
                raise LobbyError("table_full", f"table {self.id} is full")
            seat = free[0]
        if not 0 <= seat < len(self.seats):
            raise LobbyError("no_seat", f"table {self.id} has seats 0 to {len(self.seats) - 1}, not {seat}")
        if not self.seats[seat].empty:
            raise LobbyError("seat_taken", f"seat {seat} is taken")
        token = token or secrets.token_urlsafe(18)
        self.seats[seat] = Seat(name, "human", token)
        return seat, token

    def fill_bots(self, level: str, count: int | None) -> int:
        if self.started:
            raise LobbyError("started", "the game has started")
        problem = player_problem(f"bot:{level}") if isinstance(level, str) else "a bot level is a word"
        if problem:
            raise LobbyError("bad_level", problem)
        free = [i for i, s in enumerate(self.seats) if s.empty]
        if count is not None:
            if count < 1:
                raise LobbyError("bad_message", "bots: count must be at least 1")
            free = free[:count]
        taken = {s.name for s in self.seats if s.name}
        names = [n for n in bot_names([level] * (len(self.seats) + len(taken))) if n not in taken]
        for i, name in zip(free, names):
            self.seats[i] = Seat(name, f"bot:{level}")
        return len(free)

    def start(self, seed: int, dealer: int | None = None) -> TableSession:
        if self.started:
            raise LobbyError("started", "the game has already started")
        empty = [str(i) for i, s in enumerate(self.seats, start=1) if s.empty]  # (as every lobby numbers them)
        if empty:
            raise LobbyError("seats_empty", f"seat{'' if len(empty) == 1 else 's'} {', '.join(empty)} "
                             f"{'is' if len(empty) == 1 else 'are'} empty: "
                             "someone must sit there, or fill the empty seats with bots")
        if dealer is not None and not 0 <= dealer < len(self.seats):
            raise LobbyError("no_seat", f"start: dealer must be a seat, 0 to {len(self.seats) - 1}")
        if dealer is None and self.rules.dealer_first == "agree":
            dealer = 0  # the rules leave it to the table: the first seat deals unless start names another
        try:
            self.session = TableSession([SeatSpec(s.name, s.player) for s in self.seats], self.rules, seed,
                                        first_dealer=dealer)
        except GameSetupError as exc:
            raise LobbyError("bad_seats", str(exc)) from None
        return self.session


class LobbyError(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
