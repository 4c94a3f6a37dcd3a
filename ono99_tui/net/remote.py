"""A seat at a table served elsewhere, with the surface of a TableSession the table screen
uses (subscribe, view_for, events_for, submit, current, over, seq, humans, is_bot, ...).

The server runs the game; this object only keeps what the seat was told (its latest view and
its redacted events) and sends plays. Nothing here decides anything about the rules. No UI.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Callable

from ..engine.record import SeatSpec
from ..table import HumanTurn, SeatUpdate, TableError, TableOver
from .client import Client, Disconnected, ServerError
from .protocol import ProtocolError, view_from_dict


class _Sub:
    def __init__(self, callback, seat):
        self.callback, self.seat = callback, seat


class RemoteGame:
    """The bits of a Game the screen reads, from the seat's latest view and events."""

    def __init__(self, table: "RemoteTable"):
        self._t = table

    @property
    def _view(self):
        return self._t.view

    names = property(lambda self: self._view.names)
    n = property(lambda self: len(self._view.names))
    rules = property(lambda self: self._view.rules)
    winner = property(lambda self: self._view.winner)
    points = property(lambda self: list(self._view.points))
    tokens = property(lambda self: list(self._view.tokens))
    out = property(lambda self: list(self._view.out))
    over = property(lambda self: self._view.over)
    events = property(lambda self: self._t.events)

    def standings(self) -> list[int]:
        for event in reversed(self._t.events):
            if event["type"] == "game_over":
                return list(event["standings"])
        view = self._view
        key = (lambda s: (-view.tokens[s],)) if view.rules.scoring_mode == "tokens" else (lambda s: (view.points[s],))
        return sorted(range(self.n), key=lambda s: (s != view.winner, view.out[s], *key(s)))


class RemoteTable:
    """A seat at a table a server runs, as the table contract (table/contract.py) says."""

    runs_bots = False  # the server plays its bots
    saves_here = False  # the server saves this game

    def __init__(self, client: Client, table_id: int, seat: int | None, first_state: dict):
        self.client = client
        self.table_id = table_id
        self.my_seat = seat
        self.view = client.view(first_state) if client is not None else view_from_dict(first_state["view"])
        self.seq = first_state["seq"]
        self.events: list[dict] = list(first_state["events"])
        self.game = RemoteGame(self)
        self.lobby: dict | None = None  # the latest "table" message's table
        self.undo_allowed = False
        self.undo_used = False
        self.record_stats = False  # the server's business
        self.save = None
        self.save_later = None  # (nothing is saved here)
        self.on_lost: Callable[[str, str], None] | None = None  # the connection ended (why; "closing", ...)
        self._subs: list[_Sub] = []
        self._reader: asyncio.Task | None = None

    # -- the TableSession surface ------------------------------------------------------
    @property
    def names(self):
        return self.view.names

    @property
    def over(self) -> bool:
        return self.view.over

    @property
    def current(self) -> int | None:
        return None if self.view.over else self.view.current

    @property
    def humans(self) -> list[int]:
        return [] if self.my_seat is None else [self.my_seat]

    @property
    def seats(self) -> list[SeatSpec]:
        if self.lobby is None:
            return [SeatSpec(n) for n in self.view.names]
        return [SeatSpec(s["name"], s["player"] or "human") for s in self.lobby["seats"]]

    @property
    def away(self) -> set[int]:
        """The seats whose player is not connected (public: the lobby tells everyone)."""
        if self.lobby is None:
            return set()
        return {i for i, s in enumerate(self.lobby["seats"]) if s["player"] == "human" and not s["connected"]}

    def is_bot(self, seat: int) -> bool:
        return False  # the server plays its bots: nothing to schedule here

    def next_step(self):
        """As TableSession.next_step, from here: someone's move (bots included: the server plays
        them), or the game is over."""
        if self.view.over:
            return TableOver(self.view.winner)
        return HumanTurn(self.view.current, self.seq)

    bot_to_move = False

    def may_undo(self, seat: int) -> bool:
        return False

    def view_for(self, seat):
        if seat == self.my_seat:
            return self.view
        return dataclasses.replace(self.view, seat=-1, hand=())  # never more than this seat was told

    def events_for(self, seat, since: int = 0) -> list[dict]:
        return self.events[since:]

    def submit(self, seat: int, card: str, seq: int | None = None) -> list[dict]:
        """Send the play; the server's answer arrives later as an update (or a notice)."""
        if seat != self.my_seat:
            raise TableError("that is not your seat")
        self.client.send({"type": "play", "card": card, "seq": self.seq if seq is None else seq})
        return []

    def undo(self, seat: int) -> None:
        raise TableError("nothing to undo")

    def attach_save(self, save, opened: bool = False) -> str | None:
        return None

    can_save_as = False  # the server saves this game: no Save as here

    def save_as(self, name: str) -> str:
        raise TableError("the server saves this game")

    def subscribe(self, callback, seat=None) -> _Sub:
        sub = _Sub(callback, seat)
        self._subs.append(sub)
        return sub

    def unsubscribe(self, sub) -> None:
        if sub in self._subs:
            self._subs.remove(sub)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        self.client.close()

    # -- the connection ----------------------------------------------------------------
    def start(self) -> None:
        """Read the server's messages from now on (in the running event loop)."""
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        why, kind = "the server closed the connection", ""
        try:
            while True:
                self.handle(await self.client.recv())
        except (Disconnected, ConnectionError, ProtocolError) as exc:
            why = str(exc) or why
        except _Ended as exc:
            why, kind = str(exc), exc.kind
        if self.on_lost is not None:
            self.on_lost(why, kind)

    def handle(self, msg: dict) -> None:
        kind = msg["type"]
        if kind == "state":
            if msg.get("table") != self.table_id:
                return
            view = view_from_dict(msg["view"], self.view.rules)
            self.view, self.seq = view, msg["seq"]
            if msg["full"]:
                self.events = list(msg["events"])
            else:
                self.events.extend(msg["events"])
            self._tell(SeatUpdate(self.my_seat, view, list(msg["events"]), [], bool(msg["full"])))
        elif kind == "table":
            before, self.lobby = self.lobby, msg["table"]
            notices = [] if before is None else _comings_and_goings(before["seats"], self.lobby["seats"])
            if notices or (before is not None and _connected(before) != _connected(self.lobby)):
                self._tell(SeatUpdate(self.my_seat, self.view, [], notices, False))  # (redraws who is away)
        elif kind in ("error", "notice"):
            self._tell(SeatUpdate(self.my_seat, self.view, [], [msg.get("message", "")], False))
        elif kind in ("kicked", "closing"):
            raise _Ended(msg.get("message", kind), kind)

    def _tell(self, update: SeatUpdate) -> None:
        for sub in list(self._subs):
            sub.callback(update)


def _connected(table: dict) -> list[bool]:
    return [bool(s["connected"]) for s in table["seats"]]


def _comings_and_goings(before: list[dict], after: list[dict]) -> list[str]:
    """What the table should say when someone's connection drops or comes back."""
    out = []
    for old, new in zip(before, after):
        if new["player"] == "human" and old["connected"] != new["connected"]:
            out.append(f"{new['name']} is back." if new["connected"] else
                       f"{new['name']} lost the connection; a bot plays their turns until they are back.")
    return out


class _Ended(Exception):
    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


__all__ = ["RemoteTable", "RemoteGame", "ServerError"]
