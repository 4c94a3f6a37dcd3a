"""`ono99 serve`: one asyncio process owning every table (docs/protocol.md).

Rules are applied only by each table's TableSession; this module moves
messages. Every seat is told only what its TableSession subscription gives it
(its own view and redacted events), errors go to the connection that caused
them, and bots decide on a worker thread so a slow decision stalls no table.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import ipaddress
import itertools
import logging
import secrets
import shlex
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..bots.levels import Bot
from ..engine.game import NAME_RULE, GameSetupError, check_name
from ..engine.rules import RulesError, rules_from_dict
from ..table import BotTurn, IllegalMove, NotYourTurn, SeatError, StalePlay, TableError, TableOver
from ..table.seats import bot_seed
from .protocol import (CLIENT_MESSAGES, MAX_LINE, VERSION, LineBuffer, ProtocolError, encode, encode_state, parse,
                       view_public_json, view_to_dict)
from .guesses import Guesses
from .manifest import SeatEntry, TableEntry, manifest_path, read_manifest, write_manifest
from .tables import HostedTable, LobbyError, Seat

log = logging.getLogger("ono99.server")

MIN_TOKEN = 22  # characters in a seat token a client proposes (as many as the server's own)
RESUME_EVENTS = 400  # events sent to a seat that (re)joins a game in progress
STAND_IN_LEVEL = "medium"  # plays for an absent player once the turn timer runs out
MAX_WRITE_BUFFER = 1 << 20  # a client this far behind is not reading: it is dropped
GATEWAY = "(gateway)"  # what loopback connections count under on a gateway's inner server, until hello


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 7099
    password: str | None = None
    turn_timer: float = 30.0  # seconds an absent player's turn waits before a bot plays it
    # seconds a connected player's turn waits before a bot plays that one card (0: for ever): a
    # player who sits and never plays must not hold a table of others for good
    move_timer: float = 120.0
    bot_delay: float = 0.0  # seconds a bot "thinks" at least, so people can follow
    max_tables: int = 200
    max_connections: int = 1000
    # the limits on strangers (docs/deploy.md names each with its flag)
    per_address: int = 8  # connections open at once from one address, counted from the TCP accept
    hello_timeout: float = 10.0  # seconds from the accept to a hello; then the socket is closed
    # seconds a connection that said hello but is at no table (no seat, not watching) may stay
    # silent; then it is closed (0: never). Idle connections after a hello would otherwise hold
    # --max-connections for good.
    lobby_timeout: float = 600.0
    tables_per_connection: int = 2  # tables one connection may have made that are not over
    tables_per_address: int = 6  # ...and all the connections from one address together
    abandoned_after: float = 600.0  # seconds a started table waits with no person at it; then it is closed
    # a gateway's inner server (serve-ssh, web): its password is a secret only the gateway's children
    # know, and a hello with it from loopback may name the player's address ("address"): the
    # per-address limits then apply to the player, not to 127.0.0.1
    gateway: bool = False
    # a gateway's front door: whether strangers are kept out (web --password, serve-ssh
    # --authorized-keys; the inner server's own secret says nothing of that). Its tables are then
    # marked private like a --password server's, and resumed only where strangers are kept out again.
    door_closed: bool = False
    door_flag: str = "--password (or --password-file)"  # what closes this kind of server's door
    # ono99 host's server: one table, the host's; while it is not over nobody makes another (a
    # guest's second table broke the join line the host gave out: "several tables are waiting")
    single_table: bool = False
    rate: float = 50.0  # messages per second a connection may send, on average...
    burst: int = 100  # ...with bursts up to this many
    seed: int | None = None  # tables are seeded from this (tests); None: random
    save: bool = False  # autosave hosted games into the saves folder
    resume: bool = False  # (with save) keep a manifest of the tables being played; resume them on a restart
    manifest: Path | None = None  # where (default: DATA/server/tables.json)


class Refused(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


_serials = itertools.count(1)


class Connection:
    def __init__(self, server: "Server", reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 address: str = "?"):
        self.server, self.reader, self.writer = server, reader, writer
        self.serial = next(_serials)
        self.address = address  # the player's: the peer's, or the one a gateway's hello gives
        self.counted: str | None = None  # the key it is counted under in Server.addresses
        self.hello_timer: asyncio.TimerHandle | None = None
        self.name: str | None = None
        self.table: HostedTable | None = None
        self.seat: int | None = None  # None with a table: watching
        self.sub = None
        self.closed = False
        self._tokens = float(server.config.burst)
        self._last = time.monotonic()
        self._flood_told = False
        self.heard = time.monotonic()  # when it last sent anything (the lobby timeout)

    def send(self, message: dict) -> None:
        if not self.closed:
            self.send_bytes(encode(message))

    def send_bytes(self, line: bytes) -> None:
        """An encoded message (``encode``, ``encode_state``)."""
        if self.closed:
            return
        transport = self.writer.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
            self.close()
            return
        self.writer.write(line)

    def error(self, code: str, message: str, re=None) -> None:
        out = {"type": "error", "code": code, "message": message}
        if re is not None:
            out["re"] = re
        self.send(out)

    def allow(self) -> bool:
        """Token bucket: a flood is refused (one error per flood), never queued."""
        now = time.monotonic()
        cfg = self.server.config
        self._tokens = min(cfg.burst, self._tokens + (now - self._last) * cfg.rate)
        self._last = now
        if self._tokens >= 1:
            self._tokens -= 1
            self._flood_told = False
            return True
        if not self._flood_told:
            self._flood_told = True
            self.error("flood", f"too many messages: at most {cfg.rate:g} a second; the rest are dropped")
        return False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.writer.close()


def _tables(n: int) -> str:
    """"1 table that is", "6 tables that are": a cap's words."""
    return "1 table that is" if n == 1 else f"{n} tables that are"


class Server:
    def __init__(self, config: ServerConfig | None = None):
        self.config = config or ServerConfig()
        self.tables: dict[int, HostedTable] = {}
        self.tokens: dict[str, tuple[HostedTable, int]] = {}
        self.connections: set[Connection] = set()
        self._next_id = 1
        self._server: asyncio.base_events.Server | None = None
        self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ono99-bot")
        self._drivers: dict[int, asyncio.Task] = {}
        self._wake: dict[int, asyncio.Event] = {}
        self.port: int | None = None
        self._handlers: set[asyncio.Task] = set()
        self._manifest_told: str | None = None  # the last manifest write failure logged
        self._manifest_lock = None  # held while this process keeps the manifest
        self._closing = False
        self._stopping = False  # close() has begun: the tables' clocks stop
        self._resuming = False  # the manifest is written once, after every table is resumed
        self._keep_none = False  # closing for good: the manifest names no table (close(keep=False))
        # tables the manifest names whose save cannot be opened now, for a reason that can pass (it
        # is write-protected, open in another ono99, the disk failed): named again in the manifest, so
        # a later start resumes them, never dropped because of one start
        self._not_now: list = []
        self.start_warnings: list[str] = []  # what starting had to say (a host's screen shows it)
        self.addresses: dict[str, int] = {}  # connections open per address (no entry at 0)
        self._guesses = Guesses()  # wrong passwords per address: a few a minute, then wait
        self._sweeper: asyncio.Task | None = None  # closes connections idle at no table (lobby_timeout)
        # every client message type, to the method that handles it (none by name lookup)
        self._dispatch = {"hello": self._on_hello, "ping": self._on_ping, "tables": self._on_tables,
                          "create": self._on_create, "sit": self._on_sit, "watch": self._on_watch,
                          "stand": self._on_stand, "bots": self._on_bots, "start": self._on_start,
                          "play": self._on_play, "undo": self._on_undo}
        assert set(self._dispatch) == set(CLIENT_MESSAGES), "a message type without a handler"

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> int:
        self.config, warning = fit_open_files(self.config)
        # a gateway's inner server: the gateway (serve-ssh, web) fits the whole process and says
        # so once (two warnings asked for two different limits). A host's one table: nothing to say
        if warning and not self.config.gateway and not self.config.single_table:
            log.warning("%s", warning)
            self.start_warnings.append(warning)
        _quiet_accept_errors(asyncio.get_running_loop())
        self._server = await asyncio.start_server(self._serve, self.config.host, self.config.port,
                                                  limit=MAX_LINE)
        self.port = self._server.sockets[0].getsockname()[1]
        if self.config.save and self.config.resume:
            # listening (the port was free), but no connection is served before this returns;
            # its warnings are kept too, for a host's screen, which has no stderr to show
            heard = _Heard(self.start_warnings)
            logging.getLogger("ono99").addHandler(heard)
            try:
                self._resume_tables()
            finally:
                logging.getLogger("ono99").removeHandler(heard)
        if self.config.lobby_timeout > 0:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_lobby())
        return self.port

    async def _sweep_lobby(self) -> None:
        """Close the connections that said hello, sit at no table and have said nothing for
        --lobby-timeout (checked a few times per timeout: one pass over the connections)."""
        limit = self.config.lobby_timeout
        while not self._stopping:
            await asyncio.sleep(min(limit / 4, 30.0))
            cutoff = time.monotonic() - limit
            for conn in list(self.connections):
                if conn.name is not None and conn.table is None and conn.heard < cutoff and not conn.closed:
                    conn.error("lobby_timeout", f"nothing heard for {limit:g} s while at no table: closed")
                    conn.close()

    async def serve_forever(self) -> None:
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    async def close(self, message: str = "the server is shutting down", keep: bool = True) -> None:
        """Tell everyone, save every table, stop. ``keep=False``: no table comes back on a restart
        (the host of ``ono99 host`` closed the table for everyone)."""
        if not keep:
            self._keep_none = True
        # tables someone was at when the server stopped: their --abandoned-after clock starts
        # again when the server does (nobody chose to leave them)
        cut_off = [t for t in self.tables.values() if t.humans_present()]
        for conn in list(self.connections):
            # "kept": whether its seats come back once the server is started again (its clients then reconnect)
            conn.send({"type": "closing", "message": message,
                       "kept": self.config.save and self.config.resume and not self._keep_none})
            conn.close()
        if self._server is not None:
            self._server.close()
        # each clock stops at its next step even if a cancel is lost (Python 3.11's wait_for can
        # swallow one that comes as its wait ends)
        self._stopping = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in list(self.tables.values()):
            self._wake_table(table)
        for task in self._drivers.values():
            task.cancel()
        if self._drivers:
            await asyncio.wait(list(self._drivers.values()), timeout=5)
        if self._handlers:  # their connections are closed: they end by themselves
            await asyncio.wait(list(self._handlers), timeout=5)
        for table in self.tables.values():
            if table.session is not None:
                table.session.close()  # every play is in its save (the journal folded in)
        for table in cut_off:
            table.away_since = table.closes_at = None
        self._write_manifest()  # ...and the manifest names every table still being played
        self._closing = True
        if self._manifest_lock is not None:
            self._manifest_lock.release()
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- one connection -----------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        conn = Connection(self, reader, writer, _address(peer[0]) if peer else "?")
        cfg = self.config
        if len(self.connections) >= cfg.max_connections:
            conn.error("server_full", "server full: try again later")
            conn.close()
            return
        # counted from the accept: sockets that never say hello count too, until the hello timeout
        key = GATEWAY if cfg.gateway and _is_loopback(conn.address) else conn.address
        if not self._count(conn, key):
            conn.error("server_full", f"too many connections from {conn.address}: at most {cfg.per_address} "
                       "at once")
            conn.close()
            return
        self.connections.add(conn)
        self._handlers.add(asyncio.current_task())
        conn.hello_timer = asyncio.get_running_loop().call_later(cfg.hello_timeout, self._hello_late, conn)
        lines = LineBuffer(MAX_LINE)
        try:
            while not conn.closed:
                data = await reader.read(65536)
                if not data:
                    break
                for line in lines.feed(data):
                    if conn.closed:
                        break
                    if not conn.allow():
                        continue
                    if line is None:
                        conn.error("too_long", f"a line may hold at most {MAX_LINE} bytes; it was dropped")
                        continue
                    if not line.strip():
                        continue
                    # heard: a whole message, not bytes (a space a second with no newline is silence)
                    conn.heard = time.monotonic()
                    self._handle_line(conn, line)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            # (a handler still reading as the loop ends, cancelled by asyncio.run: Python 3.11's
            # streams then call task.exception() on it, which raises, and the log got a traceback,
            # "Exception in callback StreamReaderProtocol...", seen in a soak run. It ends quietly)
            pass
        finally:
            self._handlers.discard(asyncio.current_task())
            if conn.hello_timer is not None:
                conn.hello_timer.cancel()
            self._uncount(conn)
            self._gone(conn)
            conn.close()

    def _count(self, conn: Connection, key: str) -> bool:
        """Count ``conn`` under ``key`` (an address), unless that address has its fill."""
        n = self.addresses.get(key, 0)
        if key != GATEWAY and n >= self.config.per_address:
            return False
        self.addresses[key] = n + 1
        conn.counted = key
        return True

    def _uncount(self, conn: Connection) -> None:
        key, conn.counted = conn.counted, None
        if key is not None:
            n = self.addresses[key] - 1
            if n:
                self.addresses[key] = n
            else:
                del self.addresses[key]

    def _hello_late(self, conn: Connection) -> None:
        if conn.name is None and not conn.closed:
            conn.error("hello_timeout", f"no hello within {self.config.hello_timeout:g} s: closed")
            conn.close()

    def _handle_line(self, conn: Connection, line: bytes) -> None:
        re = None
        try:
            message = parse(line)
            re = message.get("id")
            if conn.name is None and message["type"] not in ("hello", "ping"):
                raise Refused("hello_first", "say hello first: {\"type\": \"hello\", \"version\": "
                              f"{VERSION}, \"name\": \"...\"}}")
            reply = self._dispatch[message["type"]](conn, message)
        except ProtocolError as exc:
            conn.error(exc.code, str(exc), exc.re)
            return
        except (Refused, LobbyError) as exc:
            conn.error(exc.code, str(exc), re)
            return
        except Exception:  # a bug: this connection is told, the server and its tables go on
            log.exception("handling a message from %s", conn.name)
            conn.error("internal", "the server could not handle that message", re)
            return
        if reply is not None:
            if re is not None:
                reply["re"] = re
            conn.send(reply)

    # -- handshake ---------------------------------------------------------------------
    def _on_ping(self, conn, msg) -> dict:
        return {"type": "pong"}

    def _on_hello(self, conn: Connection, msg) -> dict | None:
        if conn.name is not None:
            raise Refused("bad_message", "hello was already said on this connection")
        if msg["version"] != VERSION:
            conn.error("version", f"this server speaks protocol version {VERSION}, the client "
                       f"version {msg['version']}: use the same ono99 version on both sides "
                       f"(the server runs ono99 {__version__})", msg.get("id"))
            conn.close()
            return None
        password = self.config.password
        if password is not None:
            wait = self._guesses.wait(conn.address) if conn.counted != GATEWAY else 0
            if wait:  # (not checked at all: the answer would tell a guess right or wrong)
                conn.error("auth", f"too many wrong passwords from {conn.address}: try again in {wait} s",
                           msg.get("id"))
                conn.close()
                return None
            if not hmac.compare_digest(msg.get("password", "").encode(), password.encode()):
                if "password" in msg and conn.counted != GATEWAY:
                    self._guesses.wrong(conn.address)
                conn.error("auth", "wrong password for this server" if "password" in msg
                           else "this server needs a password (--password)", msg.get("id"))
                conn.close()
                return None
        try:
            check_name(msg["name"])
        except GameSetupError:
            raise Refused("bad_name", f"a name is {NAME_RULE}") from None
        gateway = self._player_address(conn, msg)
        # on a gateway's inner server, counted from now on under the player's address, or its own
        # (a gateway without a secret cannot tell its players apart: its own caps apply, not these)
        if conn.counted == GATEWAY and (gateway or self.config.password is not None):
            self._uncount(conn)
            if not self._count(conn, gateway or conn.address):
                conn.error("server_full", f"too many connections from {gateway or conn.address}: at most "
                           f"{self.config.per_address} at once", msg.get("id"))
                conn.close()
                return None
            if gateway:
                conn.address = gateway
        if conn.hello_timer is not None:
            conn.hello_timer.cancel()
            conn.hello_timer = None
        conn.name = msg["name"]
        # "password": whether this server asks one, so a client that gave one it did not need can
        # say so (the wrong server? a host who forgot --password?)
        welcome = {"type": "welcome", "version": VERSION, "server": f"ono99 {__version__}", "name": conn.name,
                   "password": password is not None}
        if self.config.single_table:  # a host's server: a client must not advise --or-create
            welcome["one_table"] = True
        token = msg.get("token")
        if token is not None:
            found = self.tokens.get(token)
            if found is None:
                welcome["resumed"] = False
            else:
                conn.send(welcome | {"resumed": True} | ({"re": msg["id"]} if "id" in msg else {}))
                self._take_seat(conn, *found)
                return None
        return welcome

    def _player_address(self, conn: Connection, msg) -> str | None:
        """The player's address a gateway's child names in its hello, trusted only on a gateway's
        inner server (config.gateway), from loopback, with the secret password (checked before
        this); None otherwise: a claim from anyone else is ignored."""
        cfg = self.config
        if "address" not in msg or not cfg.gateway or cfg.password is None or not _is_loopback(conn.address):
            return None
        try:
            ipaddress.ip_address(msg["address"].split("%")[0])
        except ValueError:
            return None
        return _address(msg["address"])

    # -- lobby ------------------------------------------------------------------------------
    def _on_tables(self, conn, msg) -> dict:
        now = time.time()
        return {"type": "tables", "tables": [t.public(now) for t in self.tables.values()]}

    def _on_create(self, conn, msg) -> dict:
        cfg = self.config
        if cfg.single_table and any(not t.over for t in self.tables.values()):
            raise Refused("too_many_tables", "this server holds one table (ono99 host) and makes no other: join it while a seat is free, or watch it")
        if len(self.tables) >= cfg.max_tables and not self._make_room():
            raise Refused("server_full", f"server full: {cfg.max_tables} tables already")
        live = [t for t in self.tables.values() if not t.over]
        if sum(t.made_by == conn.serial for t in live) >= cfg.tables_per_connection:
            raise Refused("too_many_tables", f"one connection may have at most {_tables(cfg.tables_per_connection)} "
                          "not over: sit at one of yours, or wait until one ends")
        made_from = None if conn.counted == GATEWAY else conn.address  # (see _on_hello)
        ours = [t for t in live if t.made_from == made_from]
        if made_from is not None and len(ours) >= cfg.tables_per_address:
            # when the player can make one again: a game everyone left (a browser tab closed mid-game)
            # closes by itself, and counts until then
            closing = [t.closes_at for t in ours if t.closes_at is not None]
            when = (f"the first of them that nobody is at closes in {max(0, round(min(closing) - time.time()))} s"
                    if closing else "wait until one of them ends")
            raise Refused("too_many_tables", f"at most {_tables(cfg.tables_per_address)} not over may "
                          f"be made from one address ({conn.address}); {when}")
        rules, label = self._rules(msg.get("rules"))
        seats = msg.get("seats", 4)
        most = min(8, rules.max_players())
        if not 2 <= seats <= most:
            raise Refused("bad_message", f"create: seats must be 2 to {most} with these rules, not {seats}")
        if not msg.get("name", "").isprintable():  # (before a number is taken: none used up by a refusal)
            raise Refused("bad_message", "create: a table name is printable text")
        table_id = self._next_id
        self._next_id += 1
        name = msg.get("name") or f"Table {table_id}"
        self.tables[table_id] = HostedTable(table_id, name, rules, label, [Seat() for _ in range(seats)],
                                            creator=conn, made_by=conn.serial, made_from=made_from)
        return {"type": "ok", "table": table_id}

    def _rules(self, spec):
        from ..store.rule_presets import all_presets, resolve

        if spec is None:
            spec = "standard"
        if isinstance(spec, str):
            names = [p.name for p in all_presets()]
            # only a preset by name: a client never names a file on the server
            if spec not in names:
                raise Refused("bad_rules", f"no rules preset {spec[:40]!r} on this server; presets: {', '.join(names)}"
                              " (or send the rules table itself)")
            try:
                return resolve(spec)
            except RulesError as exc:
                raise Refused("bad_rules", str(exc)) from None
        try:
            return rules_from_dict(spec, "rules"), "custom"
        except RulesError as exc:
            raise Refused("bad_rules", "; ".join(str(p) for p in exc.problems)[:1000]) from None

    def _table(self, table_id: int) -> HostedTable:
        table = self.tables.get(table_id)
        if table is None:
            raise Refused("no_table", f"there is no table {table_id}")
        return table

    def _seated(self, conn) -> HostedTable:
        if conn.table is None or conn.seat is None:
            raise Refused("not_seated", "sit at a table first")
        return conn.table

    def _on_sit(self, conn: Connection, msg) -> dict | None:
        if conn.table is not None:
            raise Refused("already_seated", f"you are already at table {conn.table.id}: stand first")
        table = self._table(msg["table"])
        token = msg.get("token")
        if token is not None and len(token) < MIN_TOKEN:
            # a token of the client's own (serve-ssh derives one from the SSH key): long, and unused
            raise Refused("bad_token", f"sit: a token of your own must be at least {MIN_TOKEN} characters; "
                          "leave it out to be given one")
        if token is not None and token in self.tokens:
            # (the same SSH key or browser tab in two sessions at once: one sat down first)
            raise Refused("bad_token", "sit: this player already has a seat here, taken from another session "
                          "a moment ago; come back to it from there, or connect again to take it over")
        seat, token = table.sit(conn.name, msg.get("seat"), token)
        self.tokens[token] = (table, seat)
        self._take_seat(conn, table, seat, reply={"type": "ok", "table": table.id, "seat": seat, "token": token,
                                                  **({"re": msg["id"]} if "id" in msg else {})})
        # a table this connection made and sits elsewhere than: nobody is coming to it
        for made in [t for t in self.tables.values() if t.creator is conn]:
            made.creator = None
            self._forget_if_done(made)
        return None

    def _on_watch(self, conn: Connection, msg) -> dict | None:
        if conn.table is not None:
            raise Refused("already_seated", f"you are already at table {conn.table.id}: stand first")
        table = self._table(msg["table"])
        conn.table, conn.seat = table, None
        table.watchers.add(conn)
        out = {"type": "ok", "table": table.id, "game": table.game}
        if "id" in msg:
            out["re"] = msg["id"]
        conn.send(out)
        self._lobby_changed(table)
        if table.started:
            self._subscribe(conn)
        return None

    def _take_seat(self, conn: Connection, table: HostedTable, seat: int, reply: dict | None = None) -> None:
        old = table.seats[seat].conn
        if old is not None and old is not conn:
            old.send({"type": "kicked", "message": "you joined this seat from somewhere else"})
            self._leave(old)
            old.close()
        if conn.table is not None:
            self._leave(conn)
        table.seats[seat].conn = conn
        table.seats[seat].left = False
        table.away_since = table.closes_at = None  # someone is here: the table is not abandoned
        table.stood_in.discard(seat)  # back: should they leave again, the turn timer applies again
        conn.table, conn.seat = table, seat
        if reply is not None:
            conn.send(reply)
        self._lobby_changed(table)
        if table.started:
            self._subscribe(conn)
            self._wake_table(table)
            self._write_manifest()

    def _on_stand(self, conn: Connection, msg) -> dict:
        if conn.table is None:
            raise Refused("not_seated", "you are not at a table")
        table = conn.table
        if conn.seat is not None and not table.started:
            seat = table.seats[conn.seat]
            self.tokens.pop(seat.token, None)
            table.seats[conn.seat] = Seat()
        elif conn.seat is not None and table.seats[conn.seat].conn is conn:
            table.seats[conn.seat].left = True  # on purpose: the others hear "left", not "lost the connection"
        self._leave(conn)
        self._forget_if_done(table)
        return {"type": "ok"}

    def _on_bots(self, conn, msg) -> dict:
        table = self._seated(conn)
        added = table.fill_bots(msg.get("level", "medium"), msg.get("count"))
        self._lobby_changed(table)
        return {"type": "ok", "added": added}

    def _on_start(self, conn, msg) -> dict | None:
        table = self._seated(conn)
        seed = secrets.randbits(32) if self.config.seed is None else self.config.seed * 1000 + table.id
        try:
            session = table.start(seed, msg.get("dealer"))
        except SeatError as exc:
            raise Refused("bad_seats", str(exc)) from None
        if self.config.save:
            self._attach_save(table)
        self._lobby_changed(table)
        for c in table.connections():
            self._subscribe(c)
        self._run_table(table)
        self._write_manifest()
        return {"type": "ok", "re": msg["id"]} if "id" in msg else {"type": "ok"}

    def _attach_save(self, table: HostedTable) -> None:
        notice = table.session.autosave(table.rules_label)
        if table.session.save is not None:
            table.save_name = table.session.save.name
        if notice:
            for c in table.connections():
                c.send({"type": "notice", "message": notice})

    def _run_table(self, table: HostedTable) -> None:
        self._wake[table.id] = asyncio.Event()
        self._drivers[table.id] = asyncio.get_running_loop().create_task(self._drive(table, table.session))

    # -- the manifest: resuming tables after a restart ------------------------------------------
    def _manifest_path(self) -> Path:
        return self.config.manifest or manifest_path()

    def _write_manifest(self) -> None:
        """Name every table being played (started, saving, not over) in the manifest. A failing
        disk is logged (once per reason) and never stops a game."""
        if self._manifest_lock is None or self._closing or self._resuming:
            return
        private = self._private()
        entries = [TableEntry(t.id, t.name, t.rules_label, t.save_name,
                              [SeatEntry(s.name, s.player, s.token) for s in t.seats], t.away_since, private)
                   for t in self.tables.values()
                   if t.started and not t.session.over and t.save_name is not None]
        entries += [e for e in self._not_now if e.id not in self.tables]
        if self._keep_none:
            entries = []
        try:
            write_manifest(self._manifest_path(), entries, self._next_id)
        except OSError as exc:
            why = f"cannot write the server manifest {self._manifest_path()}: {exc.strerror or exc}"
            if why != self._manifest_told:
                log.warning("%s; a restart will not resume these tables", why)
            self._manifest_told = why
        else:
            self._manifest_told = None

    def _private(self) -> bool:
        """Whether strangers are kept out: a password, or a gateway's closed door (a gateway's inner
        server always has a secret of its own, which says nothing of its players)."""
        cfg = self.config
        return cfg.door_closed if cfg.gateway else cfg.password is not None

    def _resume_tables(self) -> None:
        """Every unfinished table the manifest names, rebuilt from its save with the same seat
        tokens. Nobody is connected yet: each table waits for its first player to come back."""
        from ..store.lock import Lock
        from ..store.saves import SaveError, SaveStore

        path = self._manifest_path()
        lock = Lock(path)
        try:
            if not lock.acquire():
                log.warning("another ono99 server (%s) keeps the tables of this data folder (%s): this one "
                            "neither resumes them nor keeps its own for a restart", lock.owner(), path.parent)
                return
        except OSError as exc:
            log.warning("not resuming any table: cannot use %s: %s", path.parent, exc.strerror or exc)
            return
        self._manifest_lock = lock
        entries, next_id = read_manifest(path)
        self._next_id = max(self._next_id, next_id)
        store = SaveStore()
        self._resuming = True
        try:
            for entry in entries:
                try:
                    self._resume(store, entry)
                except (_NotNow, OSError) as exc:
                    self._not_now.append(entry)
                    log.warning("table %d (%s) not resumed now: %s; it stays listed, and the next start tries "
                                "again", entry.id, entry.name, getattr(exc, "strerror", None) or exc)
                except (SaveError, ValueError) as exc:
                    log.warning("table %d (%s) not resumed: %s", entry.id, entry.name, exc)
                except Exception:  # a bug: that table is not resumed, the server starts
                    log.exception("table %d (%s) not resumed", entry.id, entry.name)
        finally:
            self._resuming = False
        if entries:
            self._write_manifest()  # the tables that expired or could not be resumed are dropped from it

    def _resume(self, store, entry: TableEntry) -> None:
        from ..engine.record import SeatSpec
        from ..store.session import write_protected
        from ..table import TableSession

        if entry.id in self.tables:
            raise ValueError(f"table id {entry.id} is already in use")
        if entry.password and not self._private():
            # resumed here it would be open to anyone who reaches the port: it waits, listed, for a
            # start that keeps strangers out again (a password, or SSH keys: either will do)
            raise _NotNow("it was played with a password (or SSH keys) and this server lets anyone in: start it "
                          f"with {self.config.door_flag} to resume it")
        path = store.path(entry.save)
        if write_protected(path):
            raise _NotNow(f"its save {entry.save!r} is write-protected: chmod u+w {shlex.quote(str(path))}, "
                          "then start again")
        record, game = store.open_game(entry.save, events_from_round=-1)
        if game.over:
            log.info("table %d (%s): its game %r is over: not resumed", entry.id, entry.name, entry.save)
            return
        listed = [SeatSpec(s.name, s.player) for s in entry.seats]
        if listed != list(record.seats):
            raise ValueError(f"its seats do not match those of the save {entry.save!r}")
        tokens = [s.token for s in entry.seats if s.token is not None]
        if len(set(tokens)) != len(tokens) or any(t in self.tokens for t in tokens):
            raise ValueError("a seat token is used twice")
        session = TableSession(record.seats, record.rules, record.seed, game=game,
                               undo_used=record.meta.get("undo_used") is True, game_id=record.game_id)
        notice = session.autosave(entry.rules, entry.save, store=store)
        save = session.save
        if save is None or save.read_only or save.lock is None:
            session.close()
            if save is not None and save.read_only:  # (open in another ono99: it may close)
                raise _NotNow(f"its save {entry.save!r} is open in another ono99; close it there, then start again")
            raise ValueError(notice or f"cannot open the save {entry.save!r}")
        if notice:  # e.g. a damaged journal set aside: nobody is connected yet to be told
            log.warning("table %d (%s): %s", entry.id, entry.name, notice)
        table = HostedTable(entry.id, entry.name, record.rules, entry.rules,
                            [Seat(s.name, s.player, s.token) for s in entry.seats], session=session,
                            save_name=entry.save)
        self.tables[table.id] = table
        for i, s in enumerate(entry.seats):
            if s.token is not None:
                self.tokens[s.token] = (table, i)
        # nobody is connected yet: a table its players had left before the stop keeps its clock,
        # one they were at when it stopped starts it now; one whose time ran out meanwhile is closed
        self._set_away(table, entry.away_since if entry.away_since is not None else time.time())
        if table.closes_at <= time.time():
            self._abandon(table, "expired while the server was stopped")
            return
        self._run_table(table)
        log.info("table %d (%s) resumed from %r at play %d", table.id, table.name, entry.save, session.seq)

    # -- the game ------------------------------------------------------------------------------
    def _on_play(self, conn: Connection, msg) -> dict:
        table = self._seated(conn)
        session = table.session
        if session is None:
            raise Refused("not_started", "the game has not started")
        seq, card = msg["seq"], msg["card"]
        plays = session.game.plays
        if 0 <= seq < len(plays) and plays[seq] == (conn.seat, card):
            return {"type": "ok", "seq": session.seq, "duplicate": True}  # a retry of a play already made
        try:
            session.submit(conn.seat, card, seq)
        except StalePlay as exc:
            raise Refused("stale", str(exc)) from None
        except NotYourTurn as exc:
            raise Refused("not_your_turn", str(exc)) from None
        except IllegalMove as exc:
            raise Refused("illegal", str(exc)) from None
        except TableError as exc:
            raise Refused("refused", str(exc)) from None
        self._wake_table(table)
        return {"type": "ok", "seq": session.seq}

    def _on_undo(self, conn: Connection, msg) -> dict:
        table = self._seated(conn)
        if table.session is None:
            raise Refused("not_started", "the game has not started")
        try:
            table.session.undo(conn.seat)
        except TableError as exc:
            raise Refused("refused", str(exc)) from None
        self._wake_table(table)
        return {"type": "ok", "seq": table.session.seq}

    def _subscribe(self, conn: Connection) -> None:
        table, seat = conn.table, conn.seat
        session = table.session
        if conn.sub is not None:
            session.unsubscribe(conn.sub)

        def changed(update, conn=conn, table=table):
            if update.undone:
                self._send_full(conn, table)
                return
            public = table.public_view
            if public[0] is not session or public[1] != update.change:
                # the first seat told of this change: the view's public part is encoded once for all
                public = table.public_view = (session, update.change, view_public_json(update.view))
            conn.send_bytes(encode_state(table.id, update.seat, session.seq, update.view, public[2], update.events))
            for notice in update.notices:
                conn.send({"type": "notice", "message": notice})

        conn.sub = session.subscribe(changed, seat)
        self._send_full(conn, table)

    def _send_full(self, conn: Connection, table: HostedTable) -> None:
        session = table.session
        since = max(0, len(session.game.events) - RESUME_EVENTS)
        conn.send({"type": "state", "table": table.id, "seat": conn.seat, "seq": session.seq,
                   "view": view_to_dict(session.view_for(conn.seat)),
                   "events": session.events_for(conn.seat, since), "full": True})

    def _wake_table(self, table: HostedTable) -> None:
        event = self._wake.get(table.id)
        if event is not None:
            event.set()

    async def _drive(self, table: HostedTable, session) -> None:
        """The table's clock: bots move, and absent players' turns are played after the timer."""
        loop = asyncio.get_running_loop()
        wake = self._wake[table.id]
        stand_ins: dict[int, Bot] = {}
        deadline: tuple[int, float] | None = None  # (seq, when) an absent player's turn times out
        move_deadline: tuple[int, float] | None = None  # (seq, when) a connected player's turn does

        def stand_in(seat: int) -> Bot:
            if seat not in stand_ins:
                stand_ins[seat] = Bot(STAND_IN_LEVEL, f"{bot_seed(session.game.seed, seat)}/stand-in")
            return stand_ins[seat]
        while not self._stopping and not isinstance(step := session.next_step(), TableOver):
            wake.clear()
            seat = step.seat
            if isinstance(step, BotTurn):
                if self.config.bot_delay:
                    await asyncio.sleep(self.config.bot_delay)
                    step = session.next_step()  # the table may have moved on meanwhile
                    if not isinstance(step, BotTurn):
                        continue
                card = await loop.run_in_executor(self._executor, step.decide)
                self._submit_quietly(session, step.seat, card, step.seq)
                continue
            if table.seats[seat].conn is None:
                if not table.humans_present():
                    # nobody is at the table (a restarted server, everyone dropped): the game waits
                    # for someone to come back rather than being played out by stand-ins, and is
                    # closed when nobody has come back for --abandoned-after
                    deadline = None
                    if table.closes_at is None:
                        self._set_away(table, time.time())
                    left = table.closes_at - time.time()
                    if left <= 0:
                        self._abandon(table, f"nobody was at it for {self.config.abandoned_after:g} s")
                        return
                    await _nap(wake, left)
                    continue
                if seat not in table.stood_in:
                    if deadline is None or deadline[0] != session.seq:
                        deadline = (session.seq, loop.time() + self.config.turn_timer)
                    left = deadline[1] - loop.time()
                    if left > 0:
                        await _nap(wake, left)
                        continue
                    # the timer ran out once: the stand-in plays this seat's turns from now on
                    table.stood_in.add(seat)
                    table.timeouts += 1
                    log.info("table %d: %s is away; a bot plays their turns", table.id, table.seats[seat].name)
                elif self.config.bot_delay:
                    await asyncio.sleep(self.config.bot_delay)
                    if table.seats[seat].conn is not None or session.current != seat:
                        continue  # they came back (or the table moved on) meanwhile
                view, seq = session.view_for(seat), session.seq
                card = await loop.run_in_executor(self._executor, stand_in(seat).choose, view)
                if table.seats[seat].conn is None:
                    self._submit_quietly(session, seat, card, seq)
                continue
            limit = self.config.move_timer
            if limit and len([s for s in table.seats if s.conn is not None]) > 1:
                # a connected player with others at the table: their turn waits --move-timer, then a
                # bot plays that one card (alone with bots, a player may take all the time they like)
                if move_deadline is None or move_deadline[0] != session.seq:
                    move_deadline = (session.seq, loop.time() + limit)
                left = move_deadline[1] - loop.time()
                if left > 0:
                    await _nap(wake, left)
                    continue
                view, seq = session.view_for(seat), session.seq
                card = await loop.run_in_executor(self._executor, stand_in(seat).choose, view)
                if session.seq == seq and session.current == seat:
                    name = table.seats[seat].name
                    table.timeouts += 1
                    log.info("table %d: %s did not play within %g s; a bot played for them", table.id, name, limit)
                    # told first, so that everyone's log reads the play that follows as the bot's
                    mine = table.seats[seat].conn
                    for conn in table.connections():
                        conn.send({"type": "notice", "message": (
                            f"You did not play within {limit:g} s: a bot plays this card for you." if conn is mine
                            else f"{name} did not play within {limit:g} s: a bot plays this card for them.")})
                    self._submit_quietly(session, seat, card, seq)
                continue
            await wake.wait()
        if self._stopping:
            return
        self._write_manifest()  # over: a restart has nothing to resume here
        self._forget_if_done(table)

    def _submit_quietly(self, session, seat: int, card: str, seq: int) -> None:
        if self._stopping:
            return  # decided while the server stopped: the saved game ends before it
        try:
            session.submit(seat, card, seq)
        except TableError:
            pass  # the table moved on while the bot thought (an undo, or the player came back and played)

    # -- leaving ----------------------------------------------------------------------------------
    def _leave(self, conn: Connection) -> None:
        table = conn.table
        if table is None:
            return
        if conn.sub is not None and table.session is not None:
            table.session.unsubscribe(conn.sub)
        conn.sub = None
        if conn.seat is not None and table.seats[conn.seat].conn is conn:
            table.seats[conn.seat].conn = None
        table.watchers.discard(conn)
        conn.table, conn.seat = None, None
        if table.started and not table.over and not table.humans_present() and table.away_since is None:
            self._set_away(table, time.time())  # the last person left: the --abandoned-after clock runs
            if not self._stopping:
                self._write_manifest()  # (so that a restart keeps that clock)
        self._lobby_changed(table)
        self._wake_table(table)

    def _set_away(self, table: HostedTable, since: float) -> None:
        table.away_since, table.closes_at = since, since + self.config.abandoned_after

    def _gone(self, conn: Connection) -> None:
        self.connections.discard(conn)
        table = conn.table
        if table is not None:
            if conn.seat is not None and not table.started and table.seats[conn.seat].conn is conn:
                self.tokens.pop(table.seats[conn.seat].token, None)
                table.seats[conn.seat] = Seat()  # a seat in a lobby is only kept while its player is there
            self._leave(conn)
            self._forget_if_done(table)
        for made in [t for t in self.tables.values() if t.creator is conn]:
            made.creator = None  # (after the seat above is freed: a table it sat at and left goes too)
            self._forget_if_done(made)

    def _forget_if_done(self, table: HostedTable) -> None:
        """A table that has not started goes as soon as no person sits at it (except while its
        creator, still connected, has not sat down anywhere yet); a started one once its game is
        over and nobody is at it. (A started game nobody is at is closed by its clock: _drive.)"""
        if self.tables.get(table.id) is not table:
            return
        if not table.started:
            if table.creator is None and not table.anyone_seated():
                self._close(table, f"table {table.id} closed: nobody sits at it")
            return
        if table.over and not table.connections():
            self._remove(table)

    def _make_room(self) -> bool:
        """At --max-tables, the started game nobody has been at for longest is closed now, as its
        clock would close it later (its save kept as abandoned): strangers who make, start and
        leave tables locked a play-tester's server for --abandoned-after. False: none to close."""
        away = [t for t in self.tables.values()
                if t.started and not t.over and t.away_since is not None and not t.humans_present()]
        if not away:
            return False
        oldest = min(away, key=lambda t: t.away_since)
        driver = self._drivers.get(oldest.id)
        self._abandon(oldest, f"the server was full, and nobody had been at it for "
                              f"{max(0.0, time.time() - oldest.away_since):.0f} s")
        if driver is not None:
            driver.cancel()  # (it slept until the table's own clock; the table is gone)
        return True

    def _abandon(self, table: HostedTable, why: str) -> None:
        """A started game whose players have all gone: its save marked abandoned and kept, the
        table closed (out of the lobby and the manifest, its seat tokens dead)."""
        session = table.session
        save = session.save
        kept = save is not None and save.mark_abandoned(session.game)
        log.info("table %d (%s) closed: %s; %s", table.id, table.name, why,
                 f"its save {table.save_name!r} is kept as an abandoned game" if kept else "it was not saved")
        self._close(table, f"table {table.id} was closed: its players have all left")

    def _close(self, table: HostedTable, notice: str) -> None:
        """Remove a table, telling whoever watches it."""
        for conn in table.connections():
            conn.send({"type": "notice", "message": notice})
            self._leave(conn)
        self._remove(table)

    def _remove(self, table: HostedTable) -> None:
        self.tables.pop(table.id, None)
        for seat in table.seats:
            self.tokens.pop(seat.token, None)
        self._drivers.pop(table.id, None)
        self._wake.pop(table.id, None)
        if table.session is not None:
            table.session.close()
            if table.started:
                self._write_manifest()

    def _lobby_changed(self, table: HostedTable) -> None:
        if not table.connections():
            return
        info = {"type": "table", "table": table.public(time.time())}
        for c in table.connections():
            c.send(info | {"seat": c.seat})


FILES_PER_TABLE = 3  # a started table holds its save's lock and journal open (one spare)
FILES_SPARE = 256  # listening sockets, the manifest, logs, threads; and sockets accepted only to be refused


def fit_open_files(cfg: ServerConfig) -> tuple[ServerConfig, str | None]:
    """The limits made to fit the open-file limit (ulimit -n): raised to its hard limit if that
    is needed, else --max-connections (then --max-tables) lowered, said in one warning. Past the
    limit the server could accept nobody, and asyncio logged every refused accept (a play-tester's
    strangers filled a 1024-file server and its log grew 1.4 GB in nine minutes)."""
    try:
        import resource
    except ImportError:  # (not on Unix: no such limit to fit)
        return cfg, None
    want = cfg.max_connections + FILES_PER_TABLE * cfg.max_tables + FILES_SPARE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= want:
        return cfg, None
    room = max(0, soft - min(FILES_SPARE, soft // 4))
    tables = min(cfg.max_tables, max(1, room // (2 * FILES_PER_TABLE)))
    connections = min(cfg.max_connections, max(1, room - FILES_PER_TABLE * tables))
    fitted = dataclasses.replace(cfg, max_connections=connections, max_tables=tables)
    return fitted, (f"open files are limited to {soft} (ulimit -n; hard limit {hard}): serving at most "
                    f"{connections} connections and {tables} tables, not {cfg.max_connections} and "
                    f"{cfg.max_tables}; raise the limit (LimitNOFILE= in a systemd unit) to {want} for those")


def fit_gateway_files(connections: int, sessions: int, per_session: int, tables: int,
                      tables_wanted: int | None, server: str, unit: str) -> tuple[int, int, str | None]:
    """A gateway's caps (``connections``, and ``sessions`` of ``per_session`` files each: SSH
    sessions, browser tabs) made to fit the open-file limit (ulimit -n) beside its table server's
    (``tables``: as fitted; ``tables_wanted``: as asked, for the limit to raise to), with some spare;
    raised as far as the hard limit allows first. (connections, sessions, a warning or None).
    Unfitted, a 1024-file gateway's 200th session or so found no file left: its player saw
    "Connection lost" and nothing said why."""
    try:
        import resource
    except ImportError:  # (not on Unix: no such limit to fit)
        return connections, sessions, None

    def files(tables: int) -> int:
        return connections + per_session * sessions + FILES_PER_TABLE * tables + FILES_SPARE

    want = files(max(tables, tables_wanted or 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= files(tables):
        return connections, sessions, None
    room = max(0, soft - min(FILES_SPARE, soft // 4) - FILES_PER_TABLE * tables)
    fitted_sessions = min(sessions, max(1, room // (per_session + 2)))  # (its connection, and one arriving)
    fitted_connections = min(connections, max(2, room - per_session * fitted_sessions))
    return fitted_connections, fitted_sessions, (
        f"open files are limited to {soft} (ulimit -n; hard limit {hard}): the {server} server takes at most "
        f"{fitted_sessions} {unit} and {fitted_connections} connections, not {sessions} and {connections}; "
        f"raise the limit (LimitNOFILE= in a systemd unit) to {want} for those")


def _quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """asyncio logs a traceback each time an accept fails for want of files (and tries again a
    second later, while the listening socket stays ready): one line a minute is said instead."""
    previous = loop.get_exception_handler()
    said = [-1e9]

    def handler(loop, context):
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            now = time.monotonic()
            if now - said[0] >= 60:
                said[0] = now
                log.warning("cannot accept connections: %s (said once a minute while it lasts)",
                            context.get("exception"))
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


class _Heard(logging.Handler):
    """Warnings logged while the server starts, kept as lines."""

    def __init__(self, into: list[str]):
        super().__init__(logging.WARNING)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


class _NotNow(Exception):
    """A table's save cannot be opened now, for a reason that can pass: the table stays listed."""


async def _nap(wake: asyncio.Event, seconds: float) -> None:
    """Until the table is woken (a play, someone comes or goes) or ``seconds`` pass."""
    try:
        await asyncio.wait_for(wake.wait(), seconds)
    except TimeoutError:
        pass


def _address(host: str) -> str:
    """One spelling per address (an IPv4 peer on a dual-stack socket is ::ffff:a.b.c.d)."""
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address) and not ip.is_loopback:
        # one subscriber has a whole /64 (2^64 addresses): counted per address, the per-address
        # caps would hold nobody; counted, and named, by the /64 they are one
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT: a server stops on it, telling its players and saving."""
    import signal

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not the main thread
            pass
    return stop


async def run(config: ServerConfig, ready=None) -> None:
    """Serve until cancelled or SIGTERM/SIGINT; then tell players and save."""
    stop = stop_on_signals()  # before anything is said to be ready: a SIGTERM then stops it cleanly (saving)
    server = Server(config)
    port = await server.start()
    if ready is not None:
        ready(port)
    serving = asyncio.get_running_loop().create_task(server.serve_forever())
    try:
        await stop.wait()
    finally:
        serving.cancel()
        await server.close()
