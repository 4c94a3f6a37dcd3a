"""A seat at a table served elsewhere, with the surface of a TableSession the table screen
uses (subscribe, view_for, events_for, submit, current, over, seq, humans, is_bot, ...).

The server runs the game; this object only keeps what the seat was told (its latest view and
its redacted events) and sends plays. Nothing here decides anything about the rules. No UI.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections import Counter
from typing import Awaitable, Callable

from ..engine.record import SeatSpec
from ..table import HumanTurn, SeatUpdate, TableError, TableOver
from .client import Client, Disconnected, ServerError, Silent, why_not
from .protocol import READ_VIEW, ProtocolError, view_from_dict



RECONNECTED = "Reconnected."  # the notice when the connection is back (plain mode says more after it)

class _Sub:
    def __init__(self, callback, seat):
        self.callback, self.seat = callback, seat


class RemoteTable:
    """A seat at a table a server runs, as the table contract (table/contract.py) says."""

    runs_bots = False  # the server plays its bots
    saves_here = False  # the server saves this game
    plays_again = False  # the server's table ends with its game: the game-over notice offers only leaving

    def __init__(self, client: Client, table_id: int, seat: int | None, first_state: dict):
        self.client = client
        self.table_id = table_id
        self.my_seat = seat
        self.view = client.view(first_state) if client is not None else view_from_dict(first_state["view"])
        if self.view.seat != (-1 if seat is None else seat):  # (a view for another seat than the one taken)
            wrong = ProtocolError("bad_message", f"the state for seat {seat} is the view of seat {self.view.seat}")
            raise wrong if client is None else client.unreadable(wrong)
        self.seq = first_state["seq"]
        self.events: list[dict] = list(first_state["events"])
        # the table as its first state gave it, for a front end that opens after the network thread
        # has moved on: what it says first; every change since reaches subscribers as updates
        self.opening = (self.view, len(self.events))
        self.lobby: dict | None = None  # the latest "table" message's table
        self.undo_allowed = False
        self.undo_used = False
        self.record_stats = False  # the server's business
        self.save = None
        self.unsaved_plays = 0  # (the server saves)
        self.save_later = None  # (nothing is saved here)
        # the connection ended: (why, how: "closing", "kicked", "gone" for good, "refused" when
        # dialling back, "no_table" when the server dialled back has no such table now, "gave_up",
        # "unreadable" when the server sent what this client cannot read, "failed" for this client's own bug, ...)
        self.on_lost: Callable[[str, str], None] | None = None
        # a new connection back to this seat (or watch) after a drop; None: a drop ends the table here
        self.redial: Callable[[], Awaitable[Client]] | None = None
        self.status: str | None = None  # "reconnecting..." while the connection is down, for the screen
        self.dial_try = 0  # while the connection is down: which try at dialling back is under way (1, 2, ...)
        self.give_up_after = GIVE_UP_AFTER
        # the screen's close() leaves the connection to its owner, who shut()s it later: the host of
        # `ono99 host`, whose server must close (and say why) before the host's own connection does
        self.owner_closes = False
        self._subs: list[_Sub] = []
        self._stood = False  # leave() said so
        self._reader: asyncio.Task | None = None
        self._watchers_told = -WATCHERS_TOLD_EVERY  # when a line last said who started or stopped watching
        self._watching_told: list | None = None  # who watched as that line said (the lines are news from it)
        self._watchers_later: asyncio.TimerHandle | None = None  # the line held back by the limit, at its end

    # -- the TableSession surface ------------------------------------------------------
    @property
    def names(self):
        return self.view.names

    @property
    def over(self) -> bool:
        return self.view.over

    @property
    def rules(self):
        return self.view.rules

    @property
    def event_count(self) -> int:
        return len(self.events)

    def round_plays(self, round_no: int) -> tuple[tuple[int, str], ...]:
        """(seat, card) of each play of round ``round_no``, from the play events this seat was told
        (read from the end: a round's plays are the last ones when it is asked for)."""
        plays = []
        for event in reversed(self.events):
            if event["type"] == "play":
                if event["round"] < round_no:
                    break
                if event["round"] == round_no:
                    plays.append((event["seat"], event["card"]))
        return tuple(reversed(plays))

    def standings(self) -> list[int]:
        """Best first: as the server's game-over event says, else from the view's scores."""
        for event in reversed(self.events):
            if event["type"] == "game_over":
                return list(event["standings"])
        view = self.view
        key = (lambda s: (-view.tokens[s],)) if view.rules.scoring_mode == "tokens" else (lambda s: (view.points[s],))
        return sorted(range(len(view.names)), key=lambda s: (s != view.winner, view.out[s], *key(s)))

    @property
    def current(self) -> int | None:
        return None if self.view.over else self.view.current

    @property
    def humans(self) -> list[int]:
        return [] if self.my_seat is None else [self.my_seat]

    @property
    def seats(self) -> list[SeatSpec]:
        if self.lobby is None or len(self.lobby["seats"]) != len(self.view.names):
            return [SeatSpec(n) for n in self.view.names]
        return [SeatSpec(s["name"], s["player"] or "human") for s in self.lobby["seats"]]

    @property
    def watching(self) -> list[str]:
        """Who is watching this table (their names, when the server tells them; else "1 watcher")."""
        if self.lobby is None:
            return []
        names = self.lobby.get("watching")
        count = self.lobby.get("watchers") or 0
        if isinstance(names, list):
            return [str(n) for n in names] + ([f"{count - len(names)} more"] if count > len(names) else [])
        return [f"{count} watcher{'s' if count != 1 else ''}"] if count else []

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

    def undo_refused(self, seat: int) -> str | None:
        return "undo is not offered at a network table"

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
        if self.status is not None:  # no connection: nothing is sent (the server's state decides, once back)
            self._tell(SeatUpdate(self.my_seat, self.view, [], ["Not connected: that card was not played. "
                                                                  "Play it again once the table is back."], False))
            return []
        self.client.send({"type": "play", "card": card, "seq": self.seq if seq is None else seq})
        return []

    def undo(self, seat: int) -> None:
        raise TableError(self.undo_refused(seat))

    def autosave(self, rules_label: str, name: str | None = None, opened: bool = False,
                 store=None) -> str | None:
        return None  # the server saves this game

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
        if not self.owner_closes:
            self.shut()

    def leave(self) -> None:
        """Say that this player leaves on purpose (the front end's leave or quit, never a closed
        terminal or a signal), so that the others are told "left the table", not "lost the
        connection"; the seat is kept all the same (a bot plays it until they come back). Nothing
        once the game is over, for a watcher, or while the connection is down. Call it before the
        connection closes, in its event loop."""
        if self.my_seat is None or self.over or self.status is not None or self._stood:
            return
        self._stood = True
        try:
            self.client.send({"type": "stand"})
        except (ConnectionError, OSError, RuntimeError):
            pass  # (closing anyway)

    def shut(self) -> None:
        """Stop reading and close the connection (``close``, whoever owns it)."""
        if self._watchers_later is not None:
            self._watchers_later.cancel()
        if self._reader is not None:
            self._reader.cancel()
        self.client.close()

    # -- the connection ----------------------------------------------------------------
    def start(self) -> None:
        """Read the server's messages from now on (in the running event loop)."""
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                why, kind = await self._read_until_lost()
                if self.view.over or self.redial is None or kind in ("kicked", "gone", "unreadable"):
                    break
                why, kind = await self._reconnect(why)
                if kind != "back":
                    break
        except Exception as exc:  # noqa: BLE001 - a bug here must not leave a table frozen on screen
            # (this task has no one awaiting it: an exception would end it silently, and the screen
            # would wait for ever for plays it was never shown; the front end says why and leaves)
            # ("failed": this client's fault, not the server's; the server keeps the seat)
            why, kind = f"ono99 failed while reading the table's messages ({type(exc).__name__}: {exc})", "failed"
        self.status = None
        if self.on_lost is not None:
            self.on_lost(why, kind)

    async def _read_until_lost(self) -> tuple[str, str]:
        """Read until the connection ends: (why, kind). A silent server is pinged: a connection
        that died without a word (Wi-Fi gone) is noticed within client.PING_AFTER + PONG_WITHIN."""
        why, kind = "the server closed the connection", ""
        try:
            while True:
                self.handle(await self.client.recv_or_ping())
        except Silent as exc:
            why, kind = str(exc), "silent"
        except ProtocolError as exc:  # (dialling back would be answered the same: the table ends here)
            why, kind = str(exc), "unreadable"
        except (Disconnected, ConnectionError) as exc:
            why = str(exc) or why
        except _Ended as exc:
            why, kind = str(exc), exc.kind
        return why, kind

    async def _reconnect(self, why: str) -> tuple[str, str]:
        """Dial again with backoff (jittered, doubling to BACKOFF_MAX) until the seat is back:
        ("", "back"); or why not: the seat is gone, the server refuses us, or give_up_after passed."""
        self.client.close()
        loop = asyncio.get_running_loop()
        start, tries = loop.time(), 0
        why = why.rstrip(".")
        last = None  # what the last try met, when not what ended the connection (a host killed: refused)
        # why it was lost goes to the log, whole: the status line is one line of the hand pane, and a
        # stranger's 80 columns cut "(why; now what the last try met)" short
        self._tell(SeatUpdate(self.my_seat, self.view, [], [f"Connection lost: {why}. Reconnecting..."], False))
        for delay in backoff():
            self.dial_try = tries + 1
            self._set_status(f"Reconnecting... ({why})" if tries == 0
                             else f"Reconnecting, try {tries + 1}... ({last or why})")
            await asyncio.sleep(delay)
            tries += 1
            try:
                client = await asyncio.wait_for(self.redial(), DIAL_WITHIN)
            except ServerError as exc:
                if exc.code in ("auth", "version", "bad_name", "no_table", "gone", "not_ono99"):
                    # ("refused", not "gone": the seat may still be kept elsewhere, say by a host that
                    # brings its kept game back later, so its token stays kept)
                    return f"{exc}", "refused"
                last = str(exc).rstrip(".") or last
            except ProtocolError as exc:  # (what the server sent: dialling again would be answered the same)
                return str(exc), "unreadable"
            except (OSError, TimeoutError, Disconnected) as exc:
                last = why_not(exc)  # e.g. "connection refused"
            else:
                if self.my_seat is not None and not client.welcome.get("resumed"):
                    # all that is known: the server there has no such table now. The seat is not
                    # known to be gone: a server started again with its saves brings the table back
                    client.close()
                    return (f"the server has no table {self.table_id} now (it restarted without its saved "
                            "games, or the table was closed)", "no_table")
                self.client = client
                self._set_status(None)
                self._tell(SeatUpdate(self.my_seat, self.view, [], [RECONNECTED], False))
                return "", "back"
            if loop.time() - start >= self.give_up_after:
                minutes = max(1, round((loop.time() - start) / 60))
                now = f" (the last try: {last})" if last and last != why else ""
                return (f"{why}; gave up reconnecting after {minutes} minute{'s' if minutes != 1 else ''}{now}",
                        "gave_up")
        return why, "gave_up"  # (never: backoff() has no end)

    def _set_status(self, status: str | None) -> None:
        if status != self.status:
            self.status = status
            self._tell(SeatUpdate(self.my_seat, self.view, [], [], False))  # (redraws the status line)

    def handle(self, msg: dict) -> None:
        kind = msg["type"]
        if kind == "state":
            if msg.get("table") != self.table_id:
                return
            view = msg.get(READ_VIEW) or view_from_dict(msg["view"], self.view.rules)  # (read as it arrived)
            if view.seat != self.view.seat or len(view.names) != len(self.view.names):
                raise self.client.unreadable(ProtocolError("bad_message", "a state for another seat, or another "
                                                           "number of seats, than the table's"))
            self.view, self.seq = view, msg["seq"]
            news, redraw = list(msg["events"]), False
            if msg["full"]:  # (after a reconnect: the latest events, most of them seen already)
                news = _since(self.events, msg["events"])
                redraw = news is None  # (too much happened meanwhile to tell: the screen starts again)
                self.events = list(msg["events"])
            else:
                self.events.extend(news)
            # only what is news is told as news: the rounds lost before a reconnect were told then
            self._tell(SeatUpdate(self.my_seat, view, news or [], [], redraw))
        elif kind == "table":
            before, self.lobby = self.lobby, msg["table"]
            notices = [] if before is None else _comings_and_goings(before["seats"], self.lobby["seats"])
            if before is None:
                self._watching_told = self.lobby.get("watching")
            notices += self._watchers_news()
            if notices or (before is not None and (_connected(before) != _connected(self.lobby)
                                                   or before.get("watchers") != self.lobby.get("watchers"))):
                self._tell(SeatUpdate(self.my_seat, self.view, [], notices, False))  # (redraws who is away)
        elif kind in ("error", "notice"):
            self._tell(SeatUpdate(self.my_seat, self.view, [], [msg.get("message", "")], False))
        elif kind == "kicked":
            raise _Ended(msg.get("message", kind), kind)
        elif kind == "closing":  # "kept": false: the server keeps no table over a restart (--no-save)
            raise _Ended(msg.get("message", kind), "gone" if msg.get("kept") is False else kind)

    def _watchers_news(self) -> list[str]:
        """Who started or stopped watching since the last line said so, at most one line a while:
        watchers coming and going must not bury the table in notices (the scoreboard always names
        who watches). What the limit holds back is said at its end, from where the last line left
        off: after a restart the players were told "Wes stopped watching" as the server came back
        without him, and his coming back a second later went unsaid, so the log said he had gone."""
        if self._watchers_later is not None:
            self._watchers_later.cancel()
            self._watchers_later = None
        watchers = _watchers_changed({"watching": self._watching_told}, self.lobby or {})
        if not watchers:
            return []
        now = time.monotonic()
        wait = self._watchers_told + WATCHERS_TOLD_EVERY - now
        if wait > 0:
            try:
                self._watchers_later = asyncio.get_running_loop().call_later(wait, self._watchers_at_last)
            except RuntimeError:
                pass  # (no event loop: said with the next change)
            return []
        self._watchers_told, self._watching_told = now, self.lobby.get("watching")
        return watchers[:2] + ([f"and {len(watchers) - 2} more."] if len(watchers) > 2 else [])

    def _watchers_at_last(self) -> None:
        self._watchers_later = None
        self.tell(self._watchers_news())

    def tell(self, notices: list[str]) -> None:
        """As TableSession.tell: notices by the route updates take, nothing else changed."""
        notices = [n for n in notices if n]
        if notices:
            self._tell(SeatUpdate(self.my_seat, self.view, [], notices, changed=False))

    def _tell(self, update: SeatUpdate) -> None:
        for sub in list(self._subs):
            sub.callback(update)


DIAL_WITHIN = 10.0  # one reconnection attempt (connect and hello)
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 10.0  # seconds between attempts: doubling, jittered down by up to half
GIVE_UP_AFTER = 15 * 60.0  # seconds of trying before the client gives up
WATCHERS_TOLD_EVERY = 10.0  # seconds: at most one line this often about who started or stopped watching


def _since(seen: list[dict], latest: list[dict]) -> list[dict] | None:
    """The events of ``latest`` (a full state's: the table's last events) after those ``seen``
    ends with, or None when the two do not overlap (more happened than a full state holds)."""
    for start in range(max(0, len(seen) - len(latest)), len(seen)):
        overlap = len(seen) - start
        if seen[start:] == latest[:overlap]:
            return latest[overlap:]
    return None


def backoff(first: float = BACKOFF_FIRST, most: float = BACKOFF_MAX):
    """Seconds to wait before each reconnection attempt: doubling from ``first`` to ``most``, each
    jittered down by up to half (a restarted server is not met by every client at the same instant)."""
    delay = first
    while True:
        yield delay * random.uniform(0.5, 1.0)
        delay = min(delay * 2, most)


def _watchers_changed(before: dict, after: dict) -> list[str]:
    """Who started or stopped watching (when the server names watchers)."""
    old, new = before.get("watching"), after.get("watching")
    if not isinstance(old, list) or not isinstance(new, list):
        return []
    came, left = Counter(map(str, new)) - Counter(map(str, old)), Counter(map(str, old)) - Counter(map(str, new))
    return ([f"{name} is watching." for name in new if came.pop(name, 0)]
            + [f"{name} stopped watching." for name in old if left.pop(name, 0)])


def _connected(table: dict) -> list[bool]:
    return [bool(s["connected"]) for s in table["seats"]]


def _comings_and_goings(before: list[dict], after: list[dict]) -> list[str]:
    """What the table should say when someone's connection drops or comes back."""
    out = []
    for old, new in zip(before, after):
        if new["player"] == "human" and old["connected"] != new["connected"]:
            gone = "left the table" if new.get("left") else "lost the connection"  # (left: on purpose)
            out.append(f"{new['name']} is back." if new["connected"] else
                       f"{new['name']} {gone}; a bot plays their turns until they are back.")
    return out


class _Ended(Exception):
    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


__all__ = ["RemoteTable", "ServerError"]
