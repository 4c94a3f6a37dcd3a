"""`ono99 join HOST --plain` and `ono99 host --plain`: a network table in lines of text.

The same RemoteTable the table screen is given (net/remote.py) and the same turn handling
as a local plain table (table.py); what differs is time: the others play while you wait,
so the network runs on an asyncio loop in a thread of its own, standard input is read by
another, and this thread takes what comes from both off one queue, in order. A line typed
ahead is the answer to the next question (so a script can pipe a whole game); while others
play, the questions h, t, s, l, r, ? and q are answered at once when they are next in line.
Leaving (q, or the end of input) keeps the seat on the server, as closing the table screen
does: a bot plays it after the turn timer, and the same `ono99 join` comes back to it.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections import deque
from dataclasses import dataclass

from ..errors import UserError
from . import words as W
from .console import Console, EndOfInput
from .table import PROMPT, Leave, PlainTable

DEFAULT_PORT = 7099
ASK_AT_ONCE = ("h", "t", "s", "l", "r", "?", "q")  # answered even while someone else plays
NEW_TABLE = -1


class Lost(Exception):
    """The connection ended; the message says why."""


@dataclass
class Plan:
    host: str
    port: int
    name: str
    password: str | None = None
    table: int | None = None
    create: dict | None = None  # hosting: {"rules": ..., "seats": N}
    serve: object | None = None  # hosting: a ServerConfig run in this process
    or_create: bool = False
    token: str | None = None
    comeback: str | None = None
    keep: bool = False
    address_hint: str = ""  # hosting: what the others type to join


class Inbox:
    """What this thread waits for: typed lines (in order, None for the end of input) and
    everything else (network messages, table updates), each in its own line of waiting."""

    def __init__(self):
        self.q: queue.Queue = queue.Queue()
        self.typed: deque = deque()
        self.other: deque = deque()

    def put(self, item) -> None:
        self.q.put(item)

    def pump(self) -> None:
        """Wait for one more item and sort it."""
        item = self.q.get()
        if item[0] == "line":
            self.typed.append(item[1])
        else:
            self.other.append(item)

    def next_line(self) -> str:
        while not self.typed:
            self.pump()
        line = self.typed.popleft()
        if line is None:
            self.typed.appendleft(None)  # the end stays the end
            raise EndOfInput
        return line


class InboxConsole(Console):
    """A console whose answers come from the inbox (typed ahead or not), never read directly."""

    def __init__(self, console: Console, inbox: Inbox):
        super().__init__(console._in, console._out)
        self.inbox = inbox

    def ask(self, prompt: str) -> str:
        self.say(prompt)
        return self.inbox.next_line()


def read_stdin(console: Console, inbox: Inbox) -> None:
    while True:
        line = console.read_line()
        inbox.put(("line", line))
        if line is None:
            return


class Network:
    """The asyncio loop in its thread, and the one client on it."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="ono99-plain-net", daemon=True)
        self.thread.start()
        self.client = None
        self.server = None

    def run(self, coro, timeout: float | None = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def send(self, message: dict) -> None:
        self.loop.call_soon_threadsafe(self.client.send, message)

    def call(self, func, *args) -> None:
        self.loop.call_soon_threadsafe(func, *args)

    def stop(self) -> None:
        async def closing():
            if self.client is not None:
                await self.client.aclose()
            if self.server is not None:
                await self.server.close("the host left")

        try:
            self.run(closing(), timeout=10)
        except Exception:  # noqa: BLE001 - leaving: nothing to tell anyone any more
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)


async def _sit(net: Network, plan: Plan) -> tuple[int, int, bool]:
    """Connect (starting the server first when hosting) and sit: (seat, table, came back)."""
    from ..net.client import Client, ServerError

    if plan.serve is not None:
        from ..net.server import Server

        net.server = Server(plan.serve)
        asked, plan.port = plan.port, await net.server.start()
        if asked == 0:  # any free port: the others need the one it got
            plan.address_hint = plan.address_hint.replace(":0 ", f":{plan.port} ")
    client = net.client = await Client.connect(plan.host, plan.port, plan.name, plan.password,
                                               token=plan.token or plan.comeback)
    if client.welcome.get("resumed"):
        return None, None, True
    if plan.comeback is not None and plan.token is None and plan.keep:
        from ..net.kept_seats import forget_token

        forget_token(plan.host, plan.port, plan.name)
    if plan.create is not None:
        plan.table = (await client.request({"type": "create", **plan.create}))["table"]
    tables = (await client.request({"type": "tables"}))["tables"]
    waiting = [t["id"] for t in tables if not t["started"] and any(s["player"] is None for s in t["seats"])]
    if plan.table is not None:
        candidates = [plan.table]
    elif plan.or_create:
        candidates = waiting + [NEW_TABLE]
    elif len(waiting) == 1:
        candidates = waiting
    elif not waiting:
        raise ServerError("choose", f"no table on {plan.host}:{plan.port} is waiting for players "
                          "(ask the host to start one with: ono99 host)")
    else:
        raise ServerError("choose", f"several tables are waiting ({', '.join(map(str, waiting))}): "
                          "choose one with --table N")
    for table in candidates:
        if table == NEW_TABLE:
            table = (await client.request({"type": "create"}))["table"]
        sit = {"type": "sit", "table": table}
        if plan.token is not None:
            sit["token"] = plan.token
        try:
            reply = await client.request(sit)
            break
        except ServerError as exc:
            if table == candidates[-1] or exc.code not in ("table_full", "started", "no_table"):
                raise
    if plan.keep:
        from ..net.kept_seats import keep_token

        keep_token(plan.host, plan.port, plan.name, reply["token"])
    return reply["seat"], reply["table"], False


async def _lobby_reader(net: Network, inbox: Inbox) -> None:
    """Until the game starts: the lobby's messages to the inbox; then the RemoteTable reads."""
    from ..net.client import Disconnected
    from ..net.protocol import ProtocolError
    from ..net.remote import RemoteTable

    last = None
    while True:
        try:
            msg = await net.client.recv()
        except (Disconnected, ConnectionError, ProtocolError) as exc:
            inbox.put(("lost", str(exc) or "the server closed the connection", ""))
            return
        kind = msg["type"]
        if kind == "table":
            last = msg
            inbox.put(("table", msg))
        elif kind == "state":
            seat = last["seat"] if last else msg.get("seat")
            table_id = last["table"]["id"] if last else msg["table"]
            remote = RemoteTable(net.client, table_id, seat, msg)
            remote.lobby = last["table"] if last else None
            remote.on_lost = lambda why, how: inbox.put(("lost", why, how))
            remote.subscribe(lambda update: inbox.put(("update", update)), seat)
            remote.start()
            inbox.put(("started", remote))
            return
        elif kind in ("kicked", "closing"):
            inbox.put(("lost", msg.get("message", kind), kind))
            return
        else:
            inbox.put((kind, msg))


def lobby_lines(table: dict, seat: int | None, hint: str = "") -> list[str]:
    parts = []
    for i, s in enumerate(table["seats"]):
        if s["player"] is None:
            who = "empty"
        elif s["player"].startswith("bot:"):
            who = f"{s['name']}, {s['player'][4:]} bot"
        else:
            who = f"{s['name']}" + (", you" if i == seat else "") + ("" if s["connected"] else ", away")
        parts.append(f"seat {i + 1}, {who}")
    lines = [f"{table['name']}, rules {table['rules']}: " + "; ".join(parts) + "."]
    if hint:
        lines.append(hint)
    return lines


LOBBY_PROMPT = "Type b to fill the empty seats with bots, s to start once every seat is taken, or q to leave."


class Lobby:
    def __init__(self, con: Console, inbox: Inbox, net: Network, hint: str):
        self.con, self.inbox, self.net, self.hint = con, inbox, net, hint

    def wait(self):
        """Until the game starts: the RemoteTable. Leave, EndOfInput or Lost on the way out."""
        waiting = None  # "table" after b, "start" after s: lines typed ahead wait for the answer
        shown = None
        while True:
            while self.inbox.other:
                kind, *rest = self.inbox.other.popleft()
                if kind == "started":
                    return rest[0]
                if kind == "lost":
                    raise Lost(rest[0])
                if kind == "table":
                    msg = rest[0]
                    lines = lobby_lines(msg["table"], msg.get("seat"), self.hint)
                    if lines != shown:
                        shown = lines
                        for line in lines:
                            self.con.say(line)
                        self.con.say(LOBBY_PROMPT)
                    if waiting == "table":
                        waiting = None
                elif kind == "error":
                    self.con.say(W.cap(rest[0].get("message", "refused")) + ".")
                    waiting = None
                elif kind == "notice":
                    self.con.say(rest[0].get("message", ""))
            if waiting is None and self.inbox.typed:
                line = self.inbox.typed.popleft()
                if line is None:
                    raise EndOfInput
                key = line.lower()
                if key == "q":
                    raise Leave
                if key == "b":
                    self.net.send({"type": "bots"})
                    waiting = "table"
                elif key == "s":
                    self.net.send({"type": "start"})
                    waiting = "start"
                elif key:
                    self.con.say("The game has not started: type b, s or q.")
                continue
            self.inbox.pump()


class RemotePlain(PlainTable):
    """A seat at a network table: the turn flow of a local plain table, the plays sent away."""

    def __init__(self, con: InboxConsole, remote, setup, net: Network, settings=None):
        super().__init__(con, remote, setup, settings=settings)
        remote.unsubscribe(self._sub)  # the network thread's subscription feeds the inbox instead
        self.inbox = con.inbox
        self.net = net
        self.seat = remote.my_seat
        self._asked = None  # the position whose hand was said and prompt asked
        self._sent = None  # the position a play was sent for (its answer has not come yet)

    def run(self) -> str:
        try:
            self._introduce()
            return self._loop()
        except Leave:
            self._gone("You left the table.")
            return "menu"
        except EndOfInput:
            self._gone("End of input.")
            raise

    def _gone(self, why: str) -> None:
        if self.table.over:
            self.con.say(f"{why} The game is over.")
        elif self.net.server is not None:
            self.con.say(f"{why} The table closes: you were its host.")
        else:
            self.con.say(f"{why} Your seat is kept: a bot plays it after the server's turn timer, "
                         "and the same ono99 join brings you back to it.")

    def _take_updates(self) -> None:
        while self.inbox.other:
            kind, *rest = self.inbox.other.popleft()
            if kind == "update":
                update = rest[0]
                self._pending.append(update)
                if update.notices and not update.events:
                    self._sent = self._asked = None  # a play refused (or news): the turn is asked again
            elif kind == "lost":
                if not self.table.over:
                    raise Lost(rest[0])

    def _flush(self) -> None:
        if self._pending:
            self._seen = self._pending[-1].view
        super()._flush()

    def _loop(self) -> str:
        # Whose turn it is comes from the last update said, not from the RemoteTable: the
        # network thread moves that on while the updates before wait to be said.
        self._seen = self.table.view
        while True:
            self._take_updates()
            self._flush()
            view = self._seen
            if view.over:
                return self._game_over()
            if self.pace is None and view.out[self.seat]:
                self._out_of_game()
                continue
            where = (view.round, len(view.round_plays))
            mine = view.current == self.seat and self._sent != where
            if mine and self._asked != where:
                self._asked = where
                self._start_turn(self.seat)
                self.con.say(PROMPT)
            if self.inbox.typed and not self.inbox.other:
                head = self.inbox.typed[0]
                if head is None:
                    raise EndOfInput
                if mine:
                    self.inbox.typed.popleft()
                    if self._answer(self.seat, head):
                        self._sent = where
                    else:
                        self.con.say(PROMPT)
                    continue
                if head.lower() in ASK_AT_ONCE:
                    self.inbox.typed.popleft()
                    self._between_turns(head.lower())
                    continue
            self.inbox.pump()

    def _between_turns(self, key: str) -> None:
        view = self.table.view_for(self.seat)
        if key == "q":
            raise Leave
        if key == "h":
            cards = W.and_list([W.card(c) for c in W.hand_order(view)]) or "no cards"
            self.con.say(f"Your hand: {cards}. " + W.total_line(view))
            return
        for line in self._command(key, view) or []:
            self.con.say(line)

    def _submit(self, seat: int, card: str) -> None:
        self.net.call(self.table.submit, seat, card, self.table.seq)

    def _undo(self, seat: int) -> bool:
        self.con.say("Nothing to undo: undo is only for a game against bots on this computer.")
        return False

    def _save_as(self) -> None:
        self.con.say("The server saves this game; there is nothing to save here.")

    def _game_over(self) -> str:
        from ..engine.describe import agree

        view = self.table.view
        names = view.names
        order = _standings(self.table.events, view)
        ranked = "; ".join(f"{W.ORDINAL[i]} {names[s]}" + (f" with {view.points[s]} points"
                                                            if view.rules.scoring_mode == "points" else "")
                           for i, s in enumerate(order))
        winner = names[view.winner] if view.winner is not None else names[order[0]]
        self.con.say(f"Game over after {view.round} rounds. {winner} {agree(winner, 'wins')}.")
        self.con.say(f"Standings: {ranked}.")
        return "menu"


def _standings(events: list[dict], view) -> list[int]:
    """Seats best first, as the server's game_over event gives them (from the view without one)."""
    for event in reversed(events):
        if event["type"] == "game_over":
            return list(event["standings"])
    score = (lambda s: -view.tokens[s]) if view.rules.scoring_mode == "tokens" else (lambda s: view.points[s])
    return sorted(range(len(view.names)), key=lambda s: (s != view.winner, view.out[s], score(s), s))


def run_join(plan: Plan) -> int:
    """The lobby, then the table, on this terminal's lines; exit status 0, or UserError."""
    from ..net.client import ServerError
    from ..store.settings import load_settings
    from ..text import visible
    from ..tui.setup import TableSetup

    settings, _ = load_settings()
    console = Console()
    inbox = Inbox()
    net = Network()
    try:
        try:
            seat, table_id, resumed = net.run(_sit(net, plan))
        except ServerError as exc:
            raise UserError(str(exc)) from None
        except (OSError, TimeoutError) as exc:
            raise UserError(f"cannot connect to {plan.host}:{plan.port}: "
                            f"{getattr(exc, 'strerror', None) or exc or 'no answer'}") from None
        console.say("Back in your seat." if resumed else f"Seated at table {table_id}, seat {seat + 1}.")
        asyncio.run_coroutine_threadsafe(_lobby_reader(net, inbox), net.loop)
        threading.Thread(target=read_stdin, args=(console, inbox), name="ono99-plain-stdin", daemon=True).start()
        con = InboxConsole(console, inbox)
        try:
            remote = Lobby(con, inbox, net, plan.address_hint).wait()
            label = visible(remote.lobby["rules"]) if remote.lobby else "the server's"
            RemotePlain(con, remote, TableSetup(remote.seats, remote.view.rules, label), net,
                        settings=settings).run()
            if remote.over and plan.keep:
                from ..net.kept_seats import forget_token

                forget_token(plan.host, plan.port, plan.name)
        except Leave:
            con.say("You left the table.")
        except EndOfInput:
            pass
        except Lost as exc:
            raise UserError(f"the connection to the server ended: {exc}") from None
    finally:
        net.stop()
    return 0


def join_plan(args) -> Plan:
    """`ono99 join ... --plain`: the address, name and seat as `ono99 join` reads them."""
    from ..engine.game import GameSetupError, check_names
    from ..net.client import split_address
    from ..net.kept_seats import kept_token

    try:
        host, port = split_address(args.address, DEFAULT_PORT)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        check_names([args.name, args.name + "'"])
    except GameSetupError:
        raise UserError(f"--name must be 1 to 23 printable characters, not {args.name!r}") from None
    token = os.environ.get("ONO99_SEAT_TOKEN") or None
    return Plan(host, port, args.name, args.password, args.table, or_create=args.or_create, token=token,
                comeback=None if token else kept_token(host, port, args.name), keep=token is None)
