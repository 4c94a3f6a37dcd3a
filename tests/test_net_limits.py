"""A public table server strangers cannot wear out (issue 21): tables nobody is at go (a lobby
table at once, a started one after --abandoned-after, its save kept as abandoned, never brought
back by a restart), and every front door has a limit: tables per connection and per address,
a hello timeout and a connection cap per address counted from the TCP accept, the player's
address as a gateway names it.

Each test waits on the server's own signals: its answers, the socket it closes, its log lines."""

import asyncio
import json
import logging
import os
import time

import pytest

from ono99_tui.net.client import Client, ServerError
from ono99_tui.net.manifest import manifest_path
from ono99_tui.net.protocol import VERSION, encode
from ono99_tui.net.server import Server, ServerConfig
from ono99_tui.store.saves import SaveStore

from .netplay import HOST, connect, run, serving, table_with, wait_for
from .soak import ServeProcess


class LogWatch(logging.Handler):
    """The server's log lines as they come, and a wait for one (the server logs on its loop)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines: list[str] = []
        self._event: asyncio.Event | None = None

    def emit(self, record):
        self.lines.append(record.getMessage())
        if self._event is not None:
            self._event.set()

    async def until(self, predicate, what: str, timeout: float = 20) -> None:
        end = asyncio.get_running_loop().time() + timeout
        while not predicate(self.lines):
            self._event = asyncio.Event()
            left = end - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(f"the server never logged {what}; it logged {self.lines[-5:]}")
            try:
                await asyncio.wait_for(self._event.wait(), left)
            except TimeoutError:
                pass

    def count(self, words: str) -> int:
        return sum(words in line for line in self.lines)


@pytest.fixture
def server_log():
    logger = logging.getLogger("ono99.server")
    watch, level = LogWatch(), logger.level
    logger.addHandler(watch)
    logger.setLevel(logging.INFO)
    yield watch
    logger.removeHandler(watch)
    logger.setLevel(level)


async def connect_from(server: Server, source: str, name: str, **hello) -> Client:
    """A client whose connection comes from ``source`` (any 127.x.y.z is this machine on Linux)."""
    reader, writer = await asyncio.open_connection(HOST, server.port, local_addr=(source, 0))
    client = Client(reader, writer)
    client.welcome = await client.request({"type": "hello", "version": VERSION, "name": name, **hello})
    return client


async def raw_from(server: Server, source: str = HOST):
    return await asyncio.open_connection(HOST, server.port, local_addr=(source, 0))


async def soon(check, what: str, turns: int = 10_000) -> None:
    """Until ``check()`` (maybe awaitable) holds: the server handles a closed socket on a later turn
    of its loop; an assertion, not a hang, if it never does."""
    for _ in range(turns):
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"never: {what}")


async def ended(reader) -> list[dict]:
    """Every line the server sends until it closes the socket."""
    data = await reader.read()
    return [json.loads(line) for line in data.splitlines() if line.strip()]


# -- the table lifecycle ----------------------------------------------------------------------
def test_a_lobby_table_goes_as_soon_as_nobody_sits_at_it_however_its_creator_left():
    """Issue 21, point 6: the creator sat down and left before the start (the table leaked, and
    a plain `ono99 join` then met 'several tables are waiting')."""
    async def main():
        async with serving() as server:
            other = await connect(server, "Obs")

            async def tables():
                return (await other.request({"type": "tables"}))["tables"]

            async def tables_are(ids):
                return [x["id"] for x in await tables()] == ids

            a = await connect(server, "Ann")  # sat down, then the connection ends
            t = (await a.request({"type": "create", "seats": 2}))["table"]
            await a.request({"type": "sit", "table": t})
            await a.request({"type": "bots", "count": 1})
            await a.aclose()
            await soon(lambda: tables_are([]), "Ann's table gone")
            b = await connect(server, "Bob")  # sat down, then stood up
            t = (await b.request({"type": "create", "seats": 2}))["table"]
            await b.request({"type": "sit", "table": t})
            await b.request({"type": "stand"})
            assert await tables() == []
            # made one, then sat at someone else's: nobody comes to the one it made
            mine = (await b.request({"type": "create", "seats": 3}))["table"]
            c = await connect(server, "Cy")
            theirs = (await c.request({"type": "create", "seats": 2}))["table"]
            await c.request({"type": "sit", "table": theirs})
            await b.request({"type": "sit", "table": theirs})
            assert [x["id"] for x in await tables()] == [theirs] and mine != theirs
            # a table just made waits for its creator's first sit, and the lobby says its state
            d = await connect(server, "Dee")
            fresh = (await d.request({"type": "create", "seats": 2}))["table"]
            listed = {x["id"]: x for x in await tables()}
            assert listed[fresh]["state"] == "waiting" and listed[theirs]["state"] == "waiting"
            await c.request({"type": "start"})
            assert {x["id"]: x["state"] for x in await tables()}[theirs] == "playing"
            await d.aclose()
            await soon(lambda: tables_are([theirs]), "the table Dee made and left gone")
    run(main())


def test_a_started_table_nobody_is_at_closes_after_abandoned_after_its_save_kept_as_abandoned(server_log):
    async def main():
        async with serving(save=True, resume=True, abandoned_after=0.5, turn_timer=60) as server:
            table_id, (a, b), _, tokens = await table_with(server, ["Ann", "Bob"], bots=1)
            save = server.tables[table_id].save_name
            watcher = await connect(server, "Wes")
            await watcher.request({"type": "watch", "table": table_id})
            await a.aclose()  # one person left: the table plays on (the turn timer covers Ann)
            listing = (await watcher.request({"type": "tables"}))["tables"]
            assert listing[0]["state"] == "playing"
            await b.aclose()  # nobody left (a watcher is nobody): the clock runs
            await wait_for(watcher, lambda m: m["type"] == "table" and not any(
                s["connected"] for s in m["table"]["seats"] if s["player"] == "human"))
            listing = (await watcher.request({"type": "tables"}))["tables"]
            assert listing[0]["state"] == "away" and 0 <= listing[0]["closes_in"] <= 1
            told = await wait_for(watcher, lambda m: m["type"] == "notice")
            assert "its players have all left" in told["message"]
            await server_log.until(lambda lines: server_log.count(f"table {table_id} (Table {table_id}) closed"),
                                   "the table closed")
            assert server_log.count(f"its save {save!r} is kept as an abandoned game") == 1
            assert (await watcher.request({"type": "tables"}))["tables"] == []
            assert json.loads(manifest_path().read_text())["tables"] == []
            back = await connect(server, "Ann", token=tokens[0])  # its seat tokens died with it
            assert back.welcome["resumed"] is False
            assert (await back.request({"type": "create", "seats": 2}))["table"] != table_id
        (info,) = [i for i in SaveStore().infos() if i.name == save]
        assert info.abandoned and not info.finished and info.state.endswith(", abandoned")
    run(main())


def test_a_restart_never_brings_back_a_table_whose_time_ran_out_while_it_was_stopped(server_log):
    """The manifest keeps since when nobody was at a table: a restart goes on with that clock (a
    table whose time ran out is closed, its save kept as abandoned, and leaves the manifest);
    a table whose players the stop cut off gets its whole time again."""
    async def main():
        async with serving(save=True, resume=True, abandoned_after=300, turn_timer=60) as server:
            left, (a,), _, _ = await table_with(server, ["Ann"], bots=1)
            kept, (b,), _, kept_tokens = await table_with(server, ["Bob"], bots=1)
            left_save = server.tables[left].save_name
            await a.aclose()
            await soon(lambda: server.tables[left].away_since is not None, "Ann's table away")
        doc = json.loads(manifest_path().read_text())
        entries = {t["id"]: t for t in doc["tables"]}
        assert "away_since" in entries[left] and "away_since" not in entries[kept]
        # 300 s pass while the server is stopped (the manifest written as if Ann left long ago)
        entries[left]["away_since"] -= 301
        manifest_path().write_text(json.dumps(doc))
        async with serving(save=True, resume=True, abandoned_after=300, turn_timer=60) as server:
            assert list(server.tables) == [kept]
            assert any(f"table {left} " in x and "expired while the server was stopped" in x
                       for x in server_log.lines)
            assert [t["id"] for t in json.loads(manifest_path().read_text())["tables"]] == [kept]
            listing = (await connect(server, "Obs")).request({"type": "tables"})
            (row,) = (await listing)["tables"]
            assert row["state"] == "away" and row["closes_in"] > 290  # a whole new clock
            back = await connect(server, "Bob", token=kept_tokens[0])
            assert back.welcome["resumed"]
        assert [i.name for i in SaveStore().infos() if i.abandoned] == [left_save]
    run(main(), timeout=40)


# -- limits -------------------------------------------------------------------------------------
def test_one_connection_cannot_make_more_tables_than_its_cap_nor_one_address(server_log):
    async def main():
        async with serving(tables_per_connection=2, tables_per_address=2, abandoned_after=2) as server:
            a = await connect_from(server, "127.0.0.2", "Ann")
            first = (await a.request({"type": "create", "seats": 2}))["table"]
            await a.request({"type": "create", "seats": 2})
            with pytest.raises(ServerError, match="one connection may have at most 2 tables") as exc:
                await a.request({"type": "create", "seats": 2})
            assert exc.value.code == "too_many_tables"
            await a.request({"type": "sit", "table": first})  # the other one goes: room for one more
            await a.request({"type": "create", "seats": 2})
            b = await connect_from(server, "127.0.0.2", "Bob")  # same address: 2 at most in all
            with pytest.raises(ServerError, match=r"from one address \(127.0.0.2\)") as exc:
                await b.request({"type": "create", "seats": 2})
            assert exc.value.code == "too_many_tables"
            c = await connect_from(server, "127.0.0.3", "Cy")  # another address is not held up
            await c.request({"type": "create", "seats": 2})
            # a started table counts until it is over or closed, after its maker has gone too
            await a.request({"type": "bots"})
            await a.request({"type": "start"})
            await a.aclose()  # (the table Ann made and never sat at goes with her)
            await soon(lambda: server.addresses.get("127.0.0.2") == 1, "Ann's connection gone")
            await b.request({"type": "create", "seats": 2})
            d = await connect_from(server, "127.0.0.2", "Dee")
            with pytest.raises(ServerError, match=r"from one address"):
                await d.request({"type": "create", "seats": 2})
            await server_log.until(lambda lines: server_log.count(f"table {first} (Table {first}) closed"),
                                   "Ann's table closed")
            await d.request({"type": "create", "seats": 2})
    run(main())


def test_an_address_at_its_table_cap_is_told_when_a_table_it_left_closes():
    """A play-tester's find: a browser player who started a game and closed the tab, six times,
    was told "at most 6 tables that are not over may be made from one address (127.0.0.1)" and
    nothing more: their games, left by everyone, close by themselves (--abandoned-after), and
    the refusal now says when the first does. With a cap of 1 it read "at most 1 tables"."""
    async def main():
        async with serving(tables_per_connection=1, tables_per_address=1, abandoned_after=300) as server:
            a = await connect_from(server, "127.0.0.2", "Ann")
            table = (await a.request({"type": "create", "seats": 2}))["table"]
            with pytest.raises(ServerError) as exc:
                await a.request({"type": "create", "seats": 2})
            assert str(exc.value).startswith("one connection may have at most 1 table that is not over"), exc.value
            await a.request({"type": "sit", "table": table})
            await a.request({"type": "bots"})
            await a.request({"type": "start"})
            await a.aclose()  # (the browser tab closed mid-game)
            await soon(lambda: server.addresses.get("127.0.0.2") is None, "Ann's connection gone")
            b = await connect_from(server, "127.0.0.2", "Bob")
            with pytest.raises(ServerError) as exc:
                await b.request({"type": "create", "seats": 2})
            said = str(exc.value)
            assert said.startswith("at most 1 table that is not over may be made from one address (127.0.0.2)"), said
            import re

            assert re.search(r"; the first of them that nobody is at closes in (29\d|300) s$", said), said
    run(main())


def test_sockets_that_never_say_hello_are_closed_and_cannot_lock_out_a_real_player():
    async def main():
        async with serving(per_address=3, max_connections=5, hello_timeout=0.5) as server:
            idle = [await raw_from(server, "127.0.0.2") for _ in range(3)]
            # the address's cap is counted from the accept: a fourth is refused at once
            reader, _ = await raw_from(server, "127.0.0.2")
            (refused,) = await ended(reader)
            assert refused["code"] == "server_full" and "from 127.0.0.2" in refused["message"]
            # someone else gets in while they idle, and plays
            ann = await connect_from(server, "127.0.0.3", "Ann")
            table = (await ann.request({"type": "create", "seats": 2}))["table"]
            await ann.request({"type": "sit", "table": table})
            # half a second after its accept, each idle socket is told and closed
            started = time.monotonic()
            for reader, _ in idle:
                (told,) = await ended(reader)
                assert told["code"] == "hello_timeout"
            assert time.monotonic() - started < 5
            await soon(lambda: "127.0.0.2" not in server.addresses, "the idle sockets uncounted")
            bob = await connect_from(server, "127.0.0.2", "Bob")  # the address is free again
            await bob.request({"type": "sit", "table": table})
            assert server.addresses == {"127.0.0.2": 1, "127.0.0.3": 1}
            # a slow hello counts from the accept too: a byte at a time does not keep it open
            reader, writer = await raw_from(server, "127.0.0.4")
            hello = encode({"type": "hello", "version": VERSION, "name": "Slow"})
            line = b""
            for byte in hello[:-1]:
                writer.write(bytes([byte]))
                try:
                    line = await asyncio.wait_for(reader.readline(), 0.05)
                    break
                except TimeoutError:
                    continue
            assert json.loads(line)["code"] == "hello_timeout"
            assert await reader.read() == b""
    run(main())


def test_a_connection_silent_at_no_table_is_closed_after_the_lobby_timeout_and_no_other():
    """Sockets that say hello and then nothing would hold --max-connections for good (the hello
    timeout ends only those that never say hello). One at no table goes after --lobby-timeout;
    one seated at a table waiting for friends, one watching and one that keeps talking stay."""
    async def main():
        async with serving(lobby_timeout=0.5, max_connections=6) as server:
            idle = await connect_from(server, "127.0.0.2", "Idle")
            ann = await connect_from(server, "127.0.0.3", "Ann")
            table = (await ann.request({"type": "create", "seats": 2}))["table"]
            await ann.request({"type": "sit", "table": table})
            eve = await connect_from(server, "127.0.0.4", "Eve")
            await eve.request({"type": "watch", "table": table})
            chatty = await connect_from(server, "127.0.0.5", "Chatty")
            # a stranger's find: a space now and then, never a whole line, kept a socket for good
            trickle = await connect_from(server, "127.0.0.6", "Trickle")
            started = time.monotonic()
            closed = asyncio.ensure_future(ended(idle.reader))
            trickled = asyncio.ensure_future(ended(trickle.reader))
            # Chatty asks for the lobby all the while (the 60 s only ends a hang: it is never reached)
            while not (closed.done() and trickled.done()) and time.monotonic() - started < 60:
                await chatty.request({"type": "tables"})
                if not trickled.done():
                    trickle.writer.write(b" ")
                await asyncio.sleep(0.05)
            assert closed.done() and trickled.done(), "a connection at no table outlived the lobby timeout"
            for result in (closed.result(), trickled.result()):
                (told,) = [m for m in result if m.get("type") == "error"]
                assert told["code"] == "lobby_timeout" and "0.5 s" in told["message"]
            assert time.monotonic() - started >= 0.5
            # the sweep that closed it passed over the others: each is still served
            for client in (ann, eve, chatty):
                assert (await client.request({"type": "ping"}))["type"] == "pong"
            await soon(lambda: "127.0.0.2" not in server.addresses, "the idle connection uncounted")
    run(main())


def test_a_connection_cap_per_address_holds_for_players_who_said_hello_too():
    async def main():
        async with serving(per_address=2) as server:
            held = [await connect_from(server, "127.0.0.2", n) for n in ("Ann", "Bob")]
            with pytest.raises(ServerError, match="too many connections from 127.0.0.2") as exc:
                await connect_from(server, "127.0.0.2", "Cy")
            assert exc.value.code == "server_full"
            held.append(await connect_from(server, "127.0.0.3", "Dee"))
            assert server.addresses == {"127.0.0.2": 2, "127.0.0.3": 1}
    run(main())


def test_a_gateway_names_each_players_address_and_only_its_own_children_may():
    """serve-ssh and web: every player's `ono99 join` comes from 127.0.0.1 with the gateway's
    secret (the inner server's password) and the player's address; the caps are the player's."""
    secret = "s" * 32

    async def main():
        async with serving(gateway=True, password=secret, per_address=2, tables_per_address=1) as server:
            kids = [await connect_from(server, HOST, f"P{i}", password=secret, address="203.0.113.7")
                    for i in range(2)]
            with pytest.raises(ServerError, match="from 203.0.113.7"):
                await connect_from(server, HOST, "P3", password=secret, address="203.0.113.7")
            for i in range(3):  # other players through the same gateway: more than 2 from 127.0.0.1
                kids.append(await connect_from(server, HOST, f"Q{i}", password=secret, address=f"198.51.100.{i}"))
            assert server.addresses == {"203.0.113.7": 2, "198.51.100.0": 1, "198.51.100.1": 1,
                                        "198.51.100.2": 1}
            await kids[0].request({"type": "create", "seats": 2})
            with pytest.raises(ServerError, match=r"from one address \(203.0.113.7\)"):
                await kids[1].request({"type": "create", "seats": 2})
            with pytest.raises(ServerError, match="wrong password"):  # without the secret: nobody
                await connect_from(server, HOST, "X", password="guess", address="192.0.2.1")
        async with serving(per_address=2) as plain:  # on any other server the claim is ignored
            held = [await connect_from(plain, "127.0.0.2", f"X{i}", address=f"192.0.2.{i}") for i in range(2)]
            with pytest.raises(ServerError, match="from 127.0.0.2"):
                await connect_from(plain, "127.0.0.2", "X9", address="192.0.2.9")
            assert len(held) == 2
    run(main())


# -- as a stranger does it, against `ono99 serve` ------------------------------------------------
def serve(*flags: str) -> ServeProcess:
    """`ono99 serve -v` (bots without delay) in a process of its own, in this test's data folder."""
    return ServeProcess(["--bot-delay", "0", *flags], dict(os.environ))


def stop(server: ServeProcess) -> None:
    assert server.stop() == 0
    assert not any("Traceback" in x for x in server.lines), server.lines


def strangers(port: int, n: int) -> None:
    """Issue 21, point 1: n times connect, hello, create a 2-seat table, sit, bots, start, close."""
    async def main():
        for i in range(n):
            c = await Client.connect(HOST, port, f"S{i}")
            table = (await c.request({"type": "create", "seats": 2}))["table"]
            await c.request({"type": "sit", "table": table})
            await c.request({"type": "bots"})
            await c.request({"type": "start"})
            await c.aclose()
    run(main(), timeout=120)


def lobby(port: int) -> tuple[list[dict], int]:
    """(the tables listed, the id of a table a newcomer makes)."""
    async def main():
        c = await Client.connect(HOST, port, "Newcomer")
        listed = (await c.request({"type": "tables"}))["tables"]
        made = (await c.request({"type": "create", "seats": 2}))["table"]
        await c.aclose()
        return listed, made
    return run(main())


def test_200_tables_made_and_left_by_strangers_close_by_themselves_and_a_restart_brings_none_back():
    import subprocess
    import sys

    server = serve("--abandoned-after", "2", "--tables-per-address", "1000", "--hello-timeout", "1")
    try:
        strangers(server.port, 200)
        # each table is closed 2 s after its stranger left, its save kept; then a create succeeds
        server.until(lambda lines: server.count("kept as an abandoned game") >= 200, "200 tables closed")
        listed, _ = lobby(server.port)
        assert listed == []

        async def idle():  # and a socket that never says hello is closed, told why
            reader, _ = await asyncio.open_connection(HOST, server.port)
            return await ended(reader)
        assert [m["code"] for m in run(idle())] == ["hello_timeout"]
    finally:
        stop(server)
    saves = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "list"], capture_output=True, text=True)
    assert saves.returncode == 0 and saves.stdout.count(", abandoned") == 200, saves.stdout[-500:]
    assert json.loads(manifest_path().read_text())["tables"] == []

    # stopped before their time is up, they are in the manifest; started again after it, none is back
    server = serve("--abandoned-after", "3", "--tables-per-address", "1000")
    try:
        strangers(server.port, 30)
        left = time.time()
    finally:
        stop(server)
    waiting = json.loads(manifest_path().read_text())["tables"]
    assert waiting and all("away_since" in t for t in waiting)
    time.sleep(max(0.0, left + 3.1 - time.time()))  # (the clock itself is what is waited for)
    server = serve("--abandoned-after", "3", "--tables-per-address", "1000")
    try:
        # (every table is resumed or closed before the server says it listens)
        server.until(lambda lines: server.count("expired while the server was stopped") >= len(waiting),
                     "the tables expired")
        listed, made = lobby(server.port)
        assert listed == [] and made not in [t["id"] for t in waiting]
    finally:
        stop(server)
    assert json.loads(manifest_path().read_text())["tables"] == []


def test_an_abandoned_mark_holds_every_play_and_goes_with_the_next_play_when_resumed_locally():
    """The mark a server puts on a closed table's save: `ono99 saves list` says "abandoned", the
    save holds every play (the journal folded in), and `ono99 resume` playing on clears it."""
    import random

    from ono99_tui.engine import Game
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.store.session import SaveSession
    from ono99_tui.table import TableSession
    from tests.test_saves import SEATS

    store = SaveStore()
    game, rng = Game([s.name for s in SEATS], DEFAULT, 5), random.Random(5)
    session = SaveSession(store, "table", SEATS, "standard")
    session.open()
    for _ in range(7):  # (journalled plays, not yet folded into the record)
        game.play(rng.choice(game.legal_plays()))
        session.save(game)
    assert session.mark_abandoned(game)
    session.close()
    (info,) = store.infos()
    assert info.abandoned and info.state == f"round {game.round_no}, abandoned"
    record, again = store.open_game("table")
    assert again.plays == game.plays and "abandoned" in record.meta
    # a table resumed and closed at once (its time ran out while the server was stopped): no new
    # play, nothing in a journal, and still the mark is written
    del record.meta["abandoned"]
    store.write("table", record)
    assert not next(iter(store.infos())).abandoned
    record, again = store.open_game("table")
    reopened = SaveSession(store, "table", record.seats, "standard")
    reopened.open(again)
    reopened.opened(again)
    assert reopened.mark_abandoned(again)
    reopened.close()
    assert next(iter(store.infos())).abandoned
    record, again = store.open_game("table")
    table = TableSession(record.seats, record.rules, record.seed, game=again)
    table.attach_save(SaveSession(store, "table", record.seats, "standard"), opened=True)
    table.submit(again.current, again.legal_plays()[0], table.seq)
    table.close()
    (info,) = store.infos()
    assert not info.abandoned and info.state == f"round {again.round_no}"


def test_ipv6_peers_are_counted_by_their_64_a_subscribers_block_not_each_address():
    """A stranger's find: the per-address caps counted each IPv6 address, and one subscriber
    holds a /64 of them, so one machine could fill every table. An IPv6 peer counts (and is
    named) by its /64; IPv4, IPv4 on a dual-stack socket and loopback as before."""
    from ono99_tui.net.server import _address

    assert _address("2001:db8:1:2::5") == _address("2001:db8:1:2:ffff:ffff:ffff:1") == "2001:db8:1:2::/64"
    assert _address("2001:db8:1:3::5") == "2001:db8:1:3::/64"
    assert _address("::1") == "::1" and _address("::ffff:10.0.0.1") == "10.0.0.1" and _address("10.0.0.1") == "10.0.0.1"
    assert _address("fe80::1%eth0") == "fe80::/64"


def test_a_full_server_closes_the_table_nobody_has_been_at_longest_for_a_newcomer(server_log):
    # a play-tester's strangers made, started and left 200 tables: the next player met "server
    # full" for the whole --abandoned-after (600 s), and could be locked out again after it
    async def main():
        async with serving(max_tables=3, tables_per_address=100) as server:
            made = []
            for name in ("S0", "S1"):  # started and left: nobody at them, their clocks running
                c = await connect(server, name)
                made.append((await c.request({"type": "create", "seats": 2}))["table"])
                await c.request({"type": "sit", "table": made[-1]})
                await c.request({"type": "bots"})
                await c.request({"type": "start"})
                await c.aclose()
            ann = await connect(server, "Ann")  # started, and Ann is still at it
            mine = (await ann.request({"type": "create", "seats": 2}))["table"]
            await ann.request({"type": "sit", "table": mine})
            await ann.request({"type": "bots"})
            await ann.request({"type": "start"})

            async def away(n):
                return sum(t.away_since is not None for t in server.tables.values()) == n
            await soon(lambda: away(2), "two tables nobody is at")
            newcomer = await connect(server, "Newcomer")
            first = (await newcomer.request({"type": "create", "seats": 2}))["table"]
            assert sorted(server.tables) == sorted([made[1], mine, first])  # S0's, away longest, closed
            other = await connect(server, "Other")
            second = (await other.request({"type": "create", "seats": 2}))["table"]
            assert sorted(server.tables) == sorted([mine, first, second])
            late = await connect(server, "Late")  # only tables people are at: full, and said so
            with pytest.raises(ServerError, match="server full: 3 tables already"):
                await late.request({"type": "create", "seats": 2})
            for c in (ann, newcomer, other, late):
                await c.aclose()
    run(main())
    closed = [line for line in server_log.lines if "the server was full" in line]
    assert [line.split(" closed:")[0] for line in closed] == ["table 1 (Table 1)", "table 2 (Table 2)"], closed


def _few_files() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))


def test_a_server_under_a_low_open_file_limit_refuses_past_it_cleanly_and_serves_again():
    # a play-tester's strangers filled a server with ulimit -n 1024: it accepted nobody, spun, and
    # logged a traceback for every refused accept (1.4 GB in nine minutes)
    server = ServeProcess(["--bot-delay", "0", "--per-address", "1000", "--hello-timeout", "120"],
                          dict(os.environ), preexec_fn=_few_files)
    try:
        server.until(lambda lines: any("open files are limited to 128" in x for x in lines), "the fitted limits")
        said = next(x for x in server.lines if "open files are limited to 128" in x)
        most = int(said.split("serving at most ")[1].split()[0])
        assert 0 < most < 128

        async def strangers():
            conns = [await asyncio.open_connection(HOST, server.port) for _ in range(most + 60)]
            reads = [asyncio.ensure_future(r.read()) for r, _ in conns]
            done, pending = await asyncio.wait(reads, timeout=5)  # the refused are told, and closed
            refused = [json.loads(t.result().splitlines()[0])["code"] for t in done]
            files = len(os.listdir(f"/proc/{server.pid}/fd"))
            for _, w in conns:
                w.close()
            for t in pending:
                t.cancel()
            return len(pending), refused, files
        kept, refused, files = run(strangers(), timeout=60)
        assert kept == most and refused == ["server_full"] * 60 and files < 128
        listed, made = lobby(server.port)  # they left: a newcomer is served
        assert made
    finally:
        stop(server)
    assert not any("out of system resource" in x or "cannot accept" in x for x in server.lines), server.lines[-5:]


def test_accepts_refused_for_want_of_files_are_said_once_a_minute(caplog):
    from ono99_tui.net.server import _quiet_accept_errors

    async def main():
        loop = asyncio.get_running_loop()
        _quiet_accept_errors(loop)
        for _ in range(1000):
            loop.call_exception_handler({"message": "socket.accept() out of system resource",
                                         "exception": OSError(24, "Too many open files")})
    with caplog.at_level(logging.WARNING, logger="ono99"):
        run(main())
    said = [r.getMessage() for r in caplog.records]
    assert said == ["cannot accept connections: [Errno 24] Too many open files (said once a minute while it lasts)"]


def test_password_guesses_from_one_address_wait_after_five_a_minute():
    # a play-tester's script tried 300 passwords in 0.11 s from one address
    async def main():
        async with serving(password="s3cret") as server:
            for i in range(5):
                with pytest.raises(ServerError, match="wrong password"):
                    await connect_from(server, "127.0.0.2", "Guess", password=f"g{i}")
            for pw in ("g5", "s3cret"):  # now not even the right one is checked from there...
                with pytest.raises(ServerError, match=r"too many wrong passwords from 127\.0\.0\.2: try again in"):
                    await connect_from(server, "127.0.0.2", "Guess", password=pw)
            ok = await connect_from(server, "127.0.0.3", "Ann", password="s3cret")  # ...but from elsewhere
            with pytest.raises(ServerError, match="needs a password"):  # (no password is no guess)
                await connect_from(server, "127.0.0.3", "Bo")
            await ok.aclose()
    run(main())


def test_guesses_are_forgotten_after_their_minute():
    from ono99_tui.net.guesses import Guesses

    g = Guesses(most=2, window=0.2)
    g.wrong("a")
    g.wrong("a")
    assert g.wait("a") >= 1 and g.wait("b") == 0
    time.sleep(0.25)  # (the window itself is what is waited for)
    assert g.wait("a") == 0 and g._wrong == {}


def test_a_connection_still_open_when_the_server_leaves_logs_no_traceback():
    """A soak run's server logged "Exception in callback StreamReaderProtocol...": a connection's
    handler still reading when the server's loop ended was cancelled (asyncio.run cancels what is
    left), and Python 3.11's streams called task.exception() on the cancelled task, which raises.
    A handler cancelled so now ends quietly."""
    async def go():
        loop = asyncio.get_running_loop()
        called = []
        loop.set_exception_handler(lambda _loop, context: called.append(context.get("message")))
        async with serving() as server:
            reader, writer = await raw_from(server)
            await soon(lambda: server._handlers, "the connection's handler runs")
            for task in list(server._handlers):
                task.cancel()  # (as asyncio.run cancels the tasks left when its coroutine ends)
            await soon(lambda: not server._handlers, "the handler has ended")
            for _ in range(10):  # (the stream's done-callback runs on a later turn of the loop)
                await asyncio.sleep(0)
            writer.close()
        assert called == [], called
    run(go())
