"""The network side of a plain seat: the asyncio loop in its own thread, the client on it,
standard input read by another thread, and one inbox where both arrive, in order.

A line typed ahead is the answer to the next question (so a script can pipe a whole game);
everything else (the lobby's messages, the table's updates) waits in its own queue until
the main thread says it. Sitting down follows `ono99 join`: come back with a kept token,
else the table asked for, the one waiting, or (with --or-create) a new one.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections import deque
from dataclasses import dataclass

from ..errors import UserError
from .console import KEYS_ONLY, Console, EndOfInput, KeysOnly

DEFAULT_PORT = 7099
NEW_TABLE = -1
PLAIN_WATCH = "ono99 watch --plain"  # what a player in lines is offered to watch a table with


class Lost(Exception):
    """The connection ended; the message says why, ``kind`` how ("closing": the server stopped)."""

    def __init__(self, why: str, kind: str = ""):
        super().__init__(why)
        self.kind = kind


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
    older: tuple[str, ...] = ()  # older kept tokens (net/lobby.connect_back)
    keep: bool = False
    address_hint: str = ""  # hosting: what the others type to join
    password_flag: str | None = None  # hosting: "--password" or "--password-file FILE" (never the password)
    address: str | None = None  # a gateway's child: the address of the player it plays for (said in hello)
    back_hint: str | None = None  # a gateway's child: how its player comes back to a seat kept over a restart
    redial: bool = True  # a lost connection dials back to the seat by itself (a gateway's child: its gateway says)
    watch: bool = False  # `ono99 watch --plain`: a table's plays, said as they come; no seat is taken
    choose_hint: str = "choose one with --table N"  # (as net.lobby.JoinPlan's: several tables to watch)
    name_hint: str = "connect with another --name"  # a gateway's child: how its player takes another name
    where: str | None = None  # (as net.lobby.JoinPlan's: a gateway's child says "this server")


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

    def ask(self, prompt: str, fresh: bool = False) -> str:
        self.say(prompt)  # (lines typed while others play are answered or dropped as they come)
        line = self.inbox.next_line()
        while isinstance(line, KeysOnly):  # (as Console.ask: said, and the question asked again)
            self.say(KEYS_ONLY)
            self.say(prompt)
            line = self.inbox.next_line()
        return line


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
        self.remote = None  # the table, once the game starts: stop() closes it, in this loop's thread
        self.leaving = False  # the player left it on purpose (q), not by the end of input
        self.server = None
        self.token: str | None = None  # the seat's token, once seated: what dialling back asks with
        self.notes: list[str] = []  # lines about the connection, said once seated
        self.for_good = False  # hosting: the host closed the table on purpose (no table comes back)
        self.password_flag: str | None = None  # hosting: the plan's, named in the line on leaving

    def run(self, coro, timeout: float | None = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def send(self, message: dict) -> None:
        self.loop.call_soon_threadsafe(self.client.send, message)

    def call(self, func, *args) -> None:
        self.loop.call_soon_threadsafe(func, *args)

    def stop(self) -> None:
        async def closing():
            if self.server is not None:  # first: the guests hear why, not that the host "lost the connection"
                from ..net.lobby import host_leaving

                await self.server.close(*host_leaving(self.server.config, not self.for_good, self.remote is not None))
            if self.remote is not None:
                if self.leaving:  # a guest says they leave on purpose (see RemoteTable.leave)
                    self.remote.leave()
                self.remote.shut()
            if self.client is not None:
                await self.client.aclose()
            await _end_tasks()

        try:
            self.run(closing(), timeout=10)
        except Exception:  # noqa: BLE001 - leaving: nothing to tell anyone any more
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        # closed here, once its thread is done: a loop left to the garbage collector at exit
        # closes itself half-torn-down and prints "Exception ignored ... Invalid file descriptor"
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


async def _end_tasks(rounds: int = 5) -> None:
    """End what still runs on this loop (the table's reader, a lobby reader, a redial): a task
    left pending when the loop stops is reported on stderr at exit ("Task was destroyed but it
    is pending!"). Cancelled again while any is left: Python 3.11's wait_for drops a cancel
    that comes as its read ends (the connection just closed), and the reader reads on."""
    for _ in range(rounds):
        rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if not rest:
            return
        for task in rest:
            task.cancel()
        await asyncio.wait(rest, timeout=1)


async def sit(net: Network, plan: Plan) -> tuple[int, int, bool]:
    """Connect (starting the server first when hosting) and sit: (seat, table, came back)."""
    from ..net.client import Client, ServerError, host_port

    if plan.serve is not None:
        from ..net.server import Server

        net.server = Server(plan.serve)
        plan.port = await net.server.start()
        plan.address_hint = plan.address_hint.replace("{port}", str(plan.port), 1)  # (--port 0: the one it got)
    from ..net.lobby import connect_back

    client = net.client = await connect_back(plan)
    net.notes = [n for n in [client.password_note()] if n]  # (said once the player is seated)
    if client.welcome.get("resumed"):
        net.token = plan.token or plan.comeback
        return None, None, True
    if plan.watch:  # (never a seat: `ono99 --plain watch` once sat down as a player)
        from ..net.lobby import choose_watched

        table = plan.table if plan.table is not None else await choose_watched(client, plan)
        reply = await client.request({"type": "watch", "table": table})
        return None, reply["table"], False
    if plan.serve is not None:  # a game kept on this port, not the host's under this --name
        from ..net.lobby import kept_for_another

        kept = kept_for_another(net.server, plan)
        if kept is not None:
            raise ServerError("kept", kept)
    if plan.create is not None:
        plan.table = (await client.request({"type": "create", **plan.create}))["table"]
    tables = (await client.request({"type": "tables"}))["tables"]
    from ..net.lobby import waiting as waiting_in

    waiting = [t["id"] for t in waiting_in(tables)]
    if plan.table is not None:
        if plan.token is None and plan.create is None:
            from ..net.lobby import check_named_table

            await check_named_table(client, plan, PLAIN_WATCH)  # (what to do instead, in words)
        candidates = [plan.table]
    elif plan.or_create:
        candidates = waiting + [NEW_TABLE]
    elif len(waiting) == 1:
        candidates = waiting
    elif not waiting:
        from ..net.lobby import host_table_refusal, one_table

        if one_table(client):  # (a host's server: what its one table's state leaves a guest to do)
            raise ServerError("choose", host_table_refusal(tables, host_port(plan.host, plan.port), PLAIN_WATCH))
        raise ServerError("choose", f"no table on {host_port(plan.host, plan.port)} is waiting for players: make one with "
                          "--or-create, or ask the host to start one (ono99 host)")
    else:
        from ..net.lobby import TABLES_NAMED

        more = f" and {len(waiting) - TABLES_NAMED} more" if len(waiting) > TABLES_NAMED else ""
        raise ServerError("choose", f"several tables are waiting ({', '.join(map(str, waiting[:TABLES_NAMED]))}{more}): "
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
    net.token = reply["token"]
    return reply["seat"], reply["table"], False


def dial_back(net: Network, plan: Plan):
    """RemoteTable.redial for a seat: a new connection whose hello carries the seat's token (as
    the table screen's join dials back). None where lines must not dial by themselves: hosting (the
    server is this process), a gateway's child (its gateway tells the player), no seat."""
    from ..net.client import Client

    if not plan.redial or plan.serve is not None or net.token is None:
        return None

    async def redial():
        client = await Client.connect(plan.host, plan.port, plan.name, plan.password, token=net.token,
                                      address=plan.address)
        old, net.client = net.client, client  # (closed when the table is left)
        if old is not None and old is not client:
            old.close()
        return client
    return redial


async def lobby_reader(net: Network, inbox: Inbox, plan: Plan | None = None) -> None:
    """Until the game starts: the lobby's messages to the inbox; then the RemoteTable reads."""
    from ..net.client import Disconnected
    from ..net.protocol import ProtocolError
    from ..net.remote import RemoteTable

    last = None
    while True:
        try:
            msg = await net.client.recv_or_ping()  # (a server stuck is noticed: Silent)
        except ProtocolError as exc:  # (dialling back would be answered the same)
            inbox.put(("lost", str(exc), "unreadable"))
            return
        except (Disconnected, ConnectionError) as exc:
            why = str(exc) or "the server closed the connection"
            again = None if last is None else await _sit_again(net, plan, inbox, last, why)
            if again == "back":
                continue
            if again is None:
                inbox.put(("lost", why, ""))
            return
        kind = msg["type"]
        if kind == "closing" and last is not None:
            again = await _sit_again(net, plan, inbox, last, msg["message"])  # (a restart: back once it listens)
            if again == "back":
                continue
            if again == "said":
                return
        if kind == "table":
            last = msg
            inbox.put(("table", msg))
        elif kind == "state":
            seat = last["seat"] if last else msg.get("seat")
            table_id = last["table"]["id"] if last else msg["table"]
            try:
                remote = RemoteTable(net.client, table_id, seat, msg)
            except ProtocolError as exc:  # (a state for another seat than the one taken)
                inbox.put(("lost", str(exc), "unreadable"))
                return
            # closed by net.stop() in this loop's thread (the table's own close() runs in the player's)
            remote.owner_closes = True
            net.remote = remote
            remote.lobby = last["table"] if last else None
            remote.on_lost = lambda why, how: inbox.put(("lost", why, how))
            if plan is not None and seat is not None:
                remote.redial = dial_back(net, plan)
            remote.subscribe(lambda update: inbox.put(("update", update)), seat)
            remote.start()
            inbox.put(("started", remote))
            return
        elif kind in ("kicked", "closing"):
            inbox.put(("lost", msg.get("message", kind), kind))
            return
        else:
            inbox.put((kind, msg))


async def _sit_again(net: Network, plan: Plan | None, inbox: Inbox, last: dict, why: str) -> str | None:
    """The connection dropped in the lobby (which frees the seat): dial back with backoff and sit
    at the same table, as the table screen's join does; its table gone (a table nobody else sat at
    closes when its one player drops; a restart keeps none still waiting), --or-create makes
    another. "back": the lobby reads on from the new connection; "said": it cannot be, and "lost"
    is in the inbox; None: not tried, or the long wait passed (the caller says why it was lost)."""
    from ..net.client import Client, ServerError
    from ..net.lobby import table_instead
    from ..net.protocol import ProtocolError
    from ..net.remote import GIVE_UP_AFTER, backoff

    if plan is None or not plan.redial or plan.serve is not None or plan.watch or last.get("seat") is None:
        return None
    net.client.close()
    table, seat = last["table"]["id"], last["seat"]
    loop = asyncio.get_running_loop()
    start = loop.time()
    inbox.put(("notice", {"message": f"Connection lost: {why.rstrip('.')}. Reconnecting..."}))
    told_waiting = False
    for delay in backoff():
        await asyncio.sleep(delay)
        try:
            client = await asyncio.wait_for(Client.connect(plan.host, plan.port, plan.name, plan.password,
                                                           token=net.token, address=plan.address), 10)
        except ServerError as exc:
            if exc.code in ("server_full", "flood"):
                continue
            inbox.put(("lost", f"{why}; dialling back: {exc}", "refused"))
            return "said"
        except (OSError, TimeoutError):
            if loop.time() - start >= GIVE_UP_AFTER:
                return None
            continue
        if not client.welcome.get("resumed"):
            try:
                try:
                    reply = await client.request({"type": "sit", "table": table, "seat": seat})
                except ServerError as exc:
                    if exc.code == "seat_taken":
                        reply = await client.request({"type": "sit", "table": table})
                    elif exc.code == "no_table" and (instead := await table_instead(client, plan)) is not None:
                        if instead == NEW_TABLE:
                            instead = (await client.request({"type": "create"}))["table"]
                        reply = await client.request({"type": "sit", "table": instead})
                        inbox.put(("notice", {"message": "The table you waited at was closed while you were "
                                                         f"away: you sit at table {instead}."}))
                    elif exc.code == "no_table" and plan.table is None:
                        # back before whoever made the table (a restart keeps no table still waiting):
                        # wait for one to open, as a player waiting in the lobby would
                        client.close()
                        if not told_waiting:
                            told_waiting = True
                            inbox.put(("notice", {"message": "The table you waited at was closed while you "
                                                             "were away, and no table is waiting for players: "
                                                             "waiting for one to open (Ctrl+C to stop)."}))
                        if loop.time() - start >= GIVE_UP_AFTER:
                            return None
                        continue
                    else:
                        raise
            except ServerError as exc:
                client.close()
                inbox.put(("lost", f"{why}, and the table is no longer there to sit at again: {exc}", "refused"))
                return "said"
            except ProtocolError as exc:  # (dialling again would be answered the same)
                client.close()
                inbox.put(("lost", str(exc), "unreadable"))
                return "said"
            net.token = reply["token"]
            if plan.keep:
                from ..net.kept_seats import keep_token

                keep_token(plan.host, plan.port, plan.name, reply["token"])
        net.client = client
        inbox.put(("notice", {"message": "Reconnected."}))
        return "back"
    return None


def join_plan(args) -> Plan:
    """`ono99 join ... --plain`: the address, name and seat as `ono99 join` reads them."""
    from ..engine.game import NAME_RULE, GameSetupError, check_name
    from ..net.child import ADDRESS_ENV, COMEBACK_ENV, GATEWAY_ENV, NAME_ENV, SECRET_ENV
    from ..net.client import split_address
    from ..net.kept_seats import kept_tokens, seat_token_from_env

    try:
        host, port = split_address(args.address, DEFAULT_PORT)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        check_name(args.name)
    except GameSetupError:
        raise UserError(f"--name must be {NAME_RULE}, not {args.name!r}") from None
    token = seat_token_from_env()
    # a gateway's child (serve-ssh) keeps no seat token: its data folder is thrown away
    keep = token is None and not os.environ.get(GATEWAY_ENV)
    password = args.password if args.password is not None else os.environ.get(SECRET_ENV) or None
    kept = kept_tokens(host, port, args.name) if keep else []
    return Plan(host, port, args.name, password, args.table, or_create=args.or_create, token=token,
                comeback=next(iter(kept), None), older=tuple(kept[1:]), keep=keep,
                address=os.environ.get(ADDRESS_ENV) or None, back_hint=os.environ.get(COMEBACK_ENV) or None,
                redial=not os.environ.get(GATEWAY_ENV),
                name_hint=os.environ.get(NAME_ENV) or Plan.name_hint,  # (over SSH: no --name to give)
                where="this server" if os.environ.get(GATEWAY_ENV) else None)  # (not its table server's port)
