"""`ono99 host`/`ono99 join`: the local table screen, driven through the protocol. A host app
(server in its own loop) and a protocol client play a whole game at one table."""

import contextlib
import random
import time

import pytest

from ono99_tui.engine import cards as C
from ono99_tui.net.client import Client
from ono99_tui.net.lobby import JoinPlan
from ono99_tui.tui.join import JoinApp
from ono99_tui.net.server import ServerConfig
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.widgets.hand import HandPane

from .cli import ono99
from .netplay import HANG, HOST, play_randomly

SHORT = {"scoring": {"tokens": 1, "extra_life": False}}


async def seated_at_a_new_table(port: int, name: str) -> tuple[Client, int]:
    """A protocol client named ``name`` at a new two-seat table (short rules) it made and sat at."""
    client = await Client.connect(HOST, port, name)
    table = (await client.request({"type": "create", "seats": 2, "rules": SHORT}))["table"]
    await client.request({"type": "sit", "table": table})
    return client, table


async def until(pilot, condition, what: str, budget: float = HANG):
    """Until ``condition()`` holds (the app has what the server sent), checked at each pause; the
    budget only ends a hang (see tests/netplay.py) and names what was waited for."""
    end = time.monotonic() + budget
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"never happened (waited {budget:.0f} s): {what}")
        await pilot.pause(0.01)


async def test_a_host_and_a_guest_play_a_whole_game_on_the_table_screen():
    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    plan = JoinPlan(HOST, 0, "Ann", create={"rules": SHORT, "seats": 3}, serve=config, address_hint="join me")
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        await until(pilot, lambda: "join me" in str(app.screen.query_one("#lobby").render()),
                    "the hint in the lobby")  # (the lobby is drawn from a message: it may come a frame later)
        guest = await Client.connect(HOST, plan.port, "Bob")
        seat = (await guest.request({"type": "sit", "table": app.table_id}))["seat"]
        await pilot.press("b")  # the third seat: a bot
        await until(pilot, lambda: any(s["player"] == "bot:medium" for s in app._table["seats"]), "bot seated")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        screen = app.screen
        session = app.server.tables[app.table_id].session
        assert not screen.table.runs_bots and not screen.table.saves_here and screen.viewer == app.seat
        # the server keeps the save: no Save as in the footer, on Ctrl+S or in the palette
        assert screen.check_action("save_as", ()) is False
        assert "Save as" not in [c.title for c in screen.palette_commands()]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        shown = [c.card for c in screen.query_one(HandPane).cards if c.card]
        assert sorted(shown) == sorted(session.game.hands[app.seat])
        guest_game = pilot.app.run_worker(play_randomly(guest, random.Random(2), seat))
        plays = 0
        while not session.over and plays < 400:
            if session.current == app.seat and not screen.busy and session.seq == screen.table.seq \
                    and app.screen is screen:
                legal = session.game.legal_plays()
                cards = screen.query_one(HandPane).cards
                index = next(i for i, c in enumerate(cards, 1) if c.card in legal and not c.busts) \
                    if any(c.card in legal and not c.busts for c in cards) else \
                    next(i for i, c in enumerate(cards, 1) if c.card in legal)
                before = session.seq
                await pilot.press(str(index))
                if cards[index - 1].busts:
                    await pilot.press(str(index))  # confirm the bust
                await until(pilot, lambda: session.seq > before or app.screen is not screen, "the play arrives")
                plays += 1
            elif app.screen is not screen:  # a notice (round over): continue
                await pilot.press("enter")
            await pilot.pause(0.01)
        assert session.over and plays == sum(s == app.seat for s, _ in session.game.plays) > 0
        await until(pilot, lambda: app.screen is not screen, "the game-over notice")
        await guest_game.wait()


def test_join_says_in_one_line_why_it_cannot_sit_down():
    proc = ono99("join", "127.0.0.1:1", "--name", "Ann")
    assert proc.returncode == 2 and "cannot connect to 127.0.0.1:1: connection refused" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    for args, words in [(["127.0.0.1:x", "--name", "A"], "port must be a number"),
                        (["127.0.0.1", "--name", "\x1b[2J"], "--name must be 1 to 24 printable")]:
        proc = ono99("join", *args)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr


async def test_join_finds_the_one_waiting_table_or_asks_which():
    from ono99_tui.net.lobby import choose_table
    from ono99_tui.net.client import ServerError

    from .netplay import connect, serving

    async with serving() as server:
        a = await connect(server, "Ann")
        plan = JoinPlan(HOST, server.port, "Bob")
        try:
            await choose_table(a, plan)
        except ServerError as exc:
            assert "no table" in str(exc) and "--or-create" in str(exc) and "ono99 watch" in str(exc)
        else:
            raise AssertionError("no table to choose")
        first = (await a.request({"type": "create", "seats": 2}))["table"]
        assert await choose_table(a, plan) == first
        await a.request({"type": "create", "seats": 2, "name": "Second"})
        try:
            await choose_table(a, plan)
        except ServerError as exc:
            assert "--table N" in str(exc) and "Second" in str(exc)
        else:
            raise AssertionError("two tables: the player must choose")


def test_the_table_says_when_someone_drops_and_comes_back():
    from ono99_tui.net.remote import RemoteTable

    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.net.protocol import view_to_dict
    from ono99_tui.table import TableSession

    session = TableSession([SeatSpec("Ann"), SeatSpec("Bob")], seed=1)
    state = {"view": view_to_dict(session.view_for(0)), "seq": 0, "events": [], "full": True}
    remote = RemoteTable(client=None, table_id=1, seat=0, first_state=state)
    told = []
    remote.subscribe(told.append, 0)
    seats = lambda bob: {"seats": [{"name": "Ann", "player": "human", "connected": True},  # noqa: E731
                                   {"name": "Bob", "player": "human", "connected": bob}]}
    remote.handle({"type": "table", "table": seats(True)})
    remote.handle({"type": "table", "table": seats(False)})
    remote.handle({"type": "table", "table": seats(True)})
    assert [u.notices for u in told] == [["Bob lost the connection; a bot plays their turns until they are back."],
                                         ["Bob is back."]]
    left = {"seats": [{"name": "Ann", "player": "human", "connected": True},
                      {"name": "Bob", "player": "human", "connected": False, "left": True}]}
    remote.handle({"type": "table", "table": left})
    assert told[-1].notices == ["Bob left the table; a bot plays their turns until they are back."]


@pytest.mark.parametrize("key", ["escape", "ctrl+q"])
async def test_a_guest_who_leaves_the_table_screen_is_told_to_the_others_as_leaving(key):
    """A stranger's find: a guest who left on purpose (Escape) was announced to the table as
    having "lost the connection". The join now says "stand" before closing; the seat is kept
    all the same (a bot plays it), and coming back with its token clears the mark."""
    from ono99_tui.net.server import Server

    server = Server(ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9))
    port = await server.start()
    try:
        ann, table = await seated_at_a_new_table(port, "Ann")
        app = JoinApp(JoinPlan(HOST, port, "Bob", table=table))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None and app._table is not None, "seated")
            bob, token = app.seat, server.tables[table].seats[app.seat].token
            await ann.request({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            screen = app.screen
            await pilot.press(key)
            if key == "escape":  # the menu asks "Leave the table?" with Stay, Leave; Ctrl+Q quits at once
                await until(pilot, lambda: app.screen is not screen, "the question")
                assert app.screen.title_text == "Leave the table?"
                await pilot.press("right", "enter")
            await until(pilot, lambda: not app.is_running, "the join ended")
        seen = []
        while True:  # every change of Bob's seat that Ann was told of, up to his leaving
            msg = await ann.recv()
            if msg["type"] == "table":
                seen.append(msg["table"]["seats"][bob])
                if seen[-1]["player"] == "human" and not seen[-1]["connected"]:
                    break
        assert seen[-1] == {"name": "Bob", "player": "human", "connected": False, "left": True}, seen
        assert server.tables[table].seats[bob].token == token  # kept: he may come back
        back = await Client.connect(HOST, port, "Bob", token=token)
        assert back.welcome["resumed"] is True and not server.tables[table].seats[bob].left
        msg = await ann.recv()
        while msg["type"] != "table":
            msg = await ann.recv()
        assert msg["table"]["seats"][bob] == {"name": "Bob", "player": "human", "connected": True}
        await back.aclose()
        await ann.aclose()
    finally:
        await server.close()


async def test_the_scoreboard_shows_who_is_away_during_the_game():
    from ono99_tui.tui.widgets.panes import ScorePane

    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    plan = JoinPlan(HOST, 0, "Ann", create={"rules": SHORT, "seats": 3}, serve=config)
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        guest = await Client.connect(HOST, plan.port, "[b]Bob")  # a name that looks like markup
        reply = await guest.request({"type": "sit", "table": app.table_id})
        await pilot.press("b")
        await until(pilot, lambda: any(s["player"] == "bot:medium" for s in app._table["seats"]), "bot seated")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        rows = lambda: str(app.screen.query_one(ScorePane).render()).splitlines()  # noqa: E731
        bob = reply["seat"]
        assert "[b]Bob" in rows()[bob] and "away" not in "\n".join(rows())
        await guest.aclose()
        await until(pilot, lambda: "away" in rows()[bob], "Bob shown away")
        assert sum("away" in r for r in rows()) == 1  # the bot and Ann are there
        back = await Client.connect(HOST, plan.port, "[b]Bob", token=reply["token"])
        await until(pilot, lambda: "away" not in rows()[bob], "Bob shown back")
        await back.aclose()


async def test_join_keeps_its_seat_token_and_comes_back_to_its_hand_after_the_server_restarts():
    from ono99_tui.net.kept_seats import kept_token
    from ono99_tui.net.server import Server

    def config(port):
        return ServerConfig(host=HOST, port=port, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9,
                            save=True, resume=True)

    server = Server(config(0))
    port = await server.start()
    bob, table = await seated_at_a_new_table(port, "Bob")
    app = JoinApp(JoinPlan(HOST, port, "Ann", table=table, keep=True))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None and app._table is not None, "seated")
            assert kept_token(HOST, port, "Ann") == server.tables[table].seats[app.seat].token
            await bob.request({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            screen = app.screen
            hand = sorted(server.tables[table].session.game.hands[app.seat])
            seq = server.tables[table].session.seq
            told = []  # what the table tells its screen (the same updates the screen draws)
            app.remote.subscribe(lambda update: told.extend(update.notices), app.seat)
            await server.close()  # as on SIGTERM
            hint = lambda: str(screen.query_one("#hint").render())  # noqa: E731
            await until(pilot, lambda: "Reconnecting" in hint(), "the reconnecting line")
            # why, as the table told it: the line itself moves on to "try 2... (connection refused)"
            # at its next try, which a loaded machine reached before this looked (a flaky check, found)
            assert "Connection lost: the server is shutting down. Reconnecting..." in told, told
            assert app.failure is None
            await pilot.press("1", "2", "3", "1", "enter")  # keys while away: nothing is sent, nothing breaks
            server = Server(config(port))  # started again, on the same address: the join comes back by itself
            await server.start()
            await until(pilot, lambda: app.remote.status is None, "reconnected")

            def cards():
                panes = app.screen.query(HandPane)  # (empty until the screen is composed)
                return sorted(c.card for pane in panes for c in pane.cards if c.card)
            await until(pilot, lambda: cards() == hand, "the hand shown again")
            assert app.screen is screen and "Reconnecting" not in hint() and app.failure is None
            assert server.tables[table].session.seq == seq  # the keys pressed while away played nothing
            assert server.tables[table].seats[app.seat].conn is not None
    finally:
        await server.close()
    server = Server(config(port))  # a join run again later takes the kept token back to its seat
    await server.start()
    try:
        token = kept_token(HOST, port, "Ann")
        app = JoinApp(JoinPlan(HOST, port, "Ann", comeback=token, keep=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "back at the table")
            assert app.client.welcome["resumed"]
            await until(pilot, lambda: cards() == hand, "the hand shown")
            assert cards() == sorted(server.tables[table].session.game.hands[app.seat])
    finally:
        await server.close()
    # a kept token whose seat is gone is forgotten, and the join sits down as usual
    server = Server(config(0))
    port2 = await server.start()
    try:
        from ono99_tui.net.kept_seats import keep_token

        keep_token(HOST, port2, "Ann", "x" * 24)
        host = await Client.connect(HOST, port2, "Cy")
        await host.request({"type": "create", "seats": 2})
        app = JoinApp(JoinPlan(HOST, port2, "Ann", comeback="x" * 24, keep=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None, "seated")
            assert not app.client.welcome["resumed"]
            assert kept_token(HOST, port2, "Ann") == server.tables[app.table_id].seats[app.seat].token
    finally:
        await server.close()


async def test_a_new_table_in_between_does_not_cost_a_guest_the_seat_kept_at_the_old_one():
    """A stranger's find: a host restarted for one game without its kept table (--no-save), a
    guest joined that one, and the guest's kept token (one per address and name) was replaced;
    when the host brought the kept game back, the guest could not get back in. The join now
    keeps the last few tokens and says hello with each in turn."""
    from ono99_tui.net.kept_seats import keep_token, kept_tokens
    from ono99_tui.net.lobby import connect_back
    from ono99_tui.net.server import Server

    def config(port, save=True):
        return ServerConfig(host=HOST, port=port, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9,
                            save=save, resume=save)

    def plan():
        kept = kept_tokens(HOST, port, "Bob")
        return JoinPlan(HOST, port, "Bob", comeback=kept[0] if kept else None, older=tuple(kept[1:]), keep=True)

    server = Server(config(0))
    port = await server.start()
    ann, table = await seated_at_a_new_table(port, "Ann")
    bob = await connect_back(plan())
    first = (await bob.request({"type": "sit", "table": table}))["token"]
    keep_token(HOST, port, "Bob", first)
    await ann.request({"type": "start"})
    await ann.aclose()
    await bob.aclose()
    await server.close()  # the kept game

    other = Server(config(port, save=False))  # a game in between, on the same address
    await other.start()
    try:
        joining = plan()
        bob = await connect_back(joining)
        assert not bob.welcome["resumed"] and joining.comeback is None  # that server has no such seat
        host = await Client.connect(HOST, port, "Ann")
        table2 = (await host.request({"type": "create", "seats": 2}))["table"]
        second = (await bob.request({"type": "sit", "table": table2}))["token"]
        keep_token(HOST, port, "Bob", second)
        assert kept_tokens(HOST, port, "Bob") == [second, first]  # the older one is still kept
        await host.aclose()
        await bob.aclose()
    finally:
        await other.close()

    server = Server(config(port))  # the kept game back: Bob's join finds his seat with the older token
    await server.start()
    try:
        joining = plan()
        bob = await connect_back(joining)
        assert bob.welcome["resumed"] and joining.comeback == first
        state = await bob.recv()
        while state["type"] != "state":
            state = await bob.recv()
        assert state["table"] == table
        await bob.aclose()
    finally:
        await server.close()


def test_kept_seats_are_private_and_a_damaged_file_is_only_forgotten():
    import os

    from ono99_tui.net.kept_seats import forget_token, keep_token, kept_path, kept_token

    keep_token("h", 1, "Ann", "t" * 24)
    keep_token("h", 2, "Ann", "u" * 24)
    assert kept_token("h", 1, "Ann") == "t" * 24 and kept_token("h", 1, "Bob") is None
    assert os.stat(kept_path()).st_mode & 0o077 == 0  # tokens are keys: the owner's alone
    forget_token("h", 1, "Ann")
    assert kept_token("h", 1, "Ann") is None and kept_token("h", 2, "Ann") == "u" * 24
    from ono99_tui.net.kept_seats import PER_SEAT, kept_tokens

    for t in "abcd":  # the last few per address and name, newest first
        keep_token("h", 5, "Ann", t * 24)
    assert kept_tokens("h", 5, "Ann") == [t * 24 for t in "dcba"[:PER_SEAT]] and PER_SEAT == 3
    keep_token("h", 5, "Ann", "b" * 24)  # taken again: the newest again
    assert kept_tokens("h", 5, "Ann") == ["b" * 24, "d" * 24, "c" * 24]
    forget_token("h", 5, "Ann", "d" * 24)  # one game over: only its token goes
    assert kept_tokens("h", 5, "Ann") == ["b" * 24, "c" * 24]
    kept_path().write_text('{"version": 1, "seats": {"h:6\\u0000Ann": "%s"}}' % ("w" * 24))  # the old file
    assert kept_tokens("h", 6, "Ann") == ["w" * 24]
    for junk in (b"{", b"[1, 2]", b'{"seats": [1]}', b"\xff\x00"):
        kept_path().write_bytes(junk)
        assert kept_token("h", 2, "Ann") is None
        keep_token("h", 3, "Ann", "v" * 24)  # and it is written whole again
        assert kept_token("h", 3, "Ann") == "v" * 24


async def test_a_join_at_a_server_that_keeps_nothing_says_its_table_ends_with_the_server():
    """--no-save: a restart loses the table, and the join says so rather than promising the seat."""
    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    from ono99_tui.net.server import Server

    server = Server(config)
    port = await server.start()
    try:
        bob, table = await seated_at_a_new_table(port, "Bob")
        app = JoinApp(JoinPlan(HOST, port, "Ann", table=table))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None and app._table is not None, "seated")
            await bob.request({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            await server.close()
            await until(pilot, lambda: app.failure is not None, "told the table is gone")
            assert "keeps no table once it stops" in app.failure and "seat is kept" not in app.failure
    finally:
        await server.close()


@contextlib.asynccontextmanager
async def _ann_at_a_started_table(port: int):
    """Bob makes a 2-seat table and sits; Ann joins it on the full screen (keeping her token);
    Bob starts: (Ann's app, its pilot, the table) once her table screen is up."""
    bob, table = await seated_at_a_new_table(port, "Bob")
    app = JoinApp(JoinPlan(HOST, port, "Ann", table=table, keep=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.seat is not None and app._table is not None, "seated")
        await bob.request({"type": "start"})
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        yield app, pilot, table


async def test_a_join_dialling_back_to_a_server_without_its_table_says_so_and_keeps_the_seat():
    """A stranger's find: a --no-save server killed and started again told a redialling guest
    "your seat is gone", which nobody knows: the game may come back. What is known is said: that
    server has no such table now; the seat stays kept here, and the same join brings it back."""
    from ono99_tui.net.kept_seats import kept_tokens
    from ono99_tui.net.server import Server

    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    server = Server(config)
    port = await server.start()
    again = None
    try:
        async with _ann_at_a_started_table(port) as (app, pilot, table):
            for conn in list(server.connections):
                conn.writer.transport.abort()  # killed: no word to anyone
            await server.close()
            again = Server(ServerConfig(host=HOST, port=port, seed=5, rate=1e9, burst=10**9))
            await again.start()  # the same port, no tables
            await until(pilot, lambda: app.failure is not None, "told the server has no such table")
        assert app.failure == (
            f"the connection to the server ended, and the server has no table {table} now (it restarted "
            "without its saved games, or the table was closed). Your seat is still kept on this machine: "
            "if its game comes back to that server, the same ono99 join brings you back to it."), app.failure
        assert kept_tokens(HOST, port, "Ann")  # (and it is)
    finally:
        await server.close()
        if again is not None:
            await again.close()


async def test_a_join_gives_up_in_one_clear_line_when_the_server_never_comes_back():
    from ono99_tui.net import remote as remote_module
    from ono99_tui.net.server import Server

    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9,
                          save=True, resume=True)
    server = Server(config)
    port = await server.start()
    try:
        async with _ann_at_a_started_table(port) as (app, pilot, table):
            app.remote.give_up_after = 0.3
            await server.close()
            await until(pilot, lambda: app.failure is not None, "gave up")
            assert "gave up reconnecting" in app.failure and "Your seat is kept" in app.failure
            assert remote_module.GIVE_UP_AFTER >= 600  # a long time by default
    finally:
        await server.close()


async def test_a_join_whose_connection_drops_in_the_lobby_sits_down_again_by_itself():
    from ono99_tui.net.server import Server

    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    server = Server(config)
    port = await server.start()
    try:
        bob = await Client.connect(HOST, port, "Bob")
        table = (await bob.request({"type": "create", "seats": 3, "rules": SHORT}))["table"]
        await bob.request({"type": "sit", "table": table})
        app = JoinApp(JoinPlan(HOST, port, "Ann", table=table))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None and app._table is not None, "seated")
            seat, first = app.seat, app.client
            lobby = lambda: str(app.screen.query_one("#lobby").render())  # noqa: E731
            ann = next(c for c in server.connections if c.name == "Ann")
            ann.writer.transport.abort()  # the connection drops (no goodbye)
            # (the lobby's text is redrawn from the table message a step after it arrives: waited for too)
            await until(pilot, lambda: app.client is not first and app._table is not None
                        and app._table["seats"][seat]["name"] == "Ann" and app._table["seats"][seat]["connected"]
                        and "Reconnecting" not in lobby(), "seated again, and the lobby says so")
            assert app.failure is None and app.seat == seat
            assert server.tables[table].seats[seat].name == "Ann"
            await pilot.press("b")
            await pilot.press("s")  # and the game starts with Ann in her seat
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            assert app.remote.my_seat == seat
    finally:
        await server.close()


def test_players_see_who_watches_and_a_crowd_of_watchers_is_no_flood_of_lines(monkeypatch):
    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.net import remote as remote_module
    from ono99_tui.net.protocol import view_to_dict
    from ono99_tui.net.remote import RemoteTable
    from ono99_tui.table import TableSession

    clock = [100.0]
    monkeypatch.setattr(remote_module.time, "monotonic", lambda: clock[0])
    session = TableSession([SeatSpec("Ann"), SeatSpec("Bob")], seed=1)
    state = {"view": view_to_dict(session.view_for(0)), "seq": 0, "events": [], "full": True}
    remote = RemoteTable(client=None, table_id=1, seat=0, first_state=state)
    told = []
    remote.subscribe(told.append, 0)
    seats = [{"name": n, "player": "human", "connected": True} for n in ("Ann", "Bob")]
    table = lambda names, count=None: {"type": "table", "table": {  # noqa: E731
        "seats": seats, "watching": names, "watchers": len(names) if count is None else count}}
    remote.handle(table([]))
    remote.handle(table(["[b]Wes"]))
    assert told[-1].notices == ["[b]Wes is watching."] and remote.watching == ["[b]Wes"]
    clock[0] += 1
    remote.handle(table(["Vi", "[b]Wes"]))  # within 10 s of the last line: the scoreboard says it, no line
    assert told[-1].notices == [] and remote.watching == ["Vi", "[b]Wes"]
    clock[0] += 10
    remote.handle(table([f"W{i:02}" for i in range(12)], count=40))
    assert len(told[-1].notices) == 3 and told[-1].notices[-1].startswith("and ")
    assert remote.watching[-1] == "28 more" and len(remote.watching) == 13


async def test_the_lobby_names_the_first_watchers_and_counts_them_all():
    from .netplay import connect, serving

    async with serving(per_address=20) as server:  # 16 connections from this one address
        ann = await connect(server, "Ann")
        table = (await ann.request({"type": "create", "seats": 2}))["table"]
        await ann.request({"type": "sit", "table": table})
        watchers = [await connect(server, f"W{i:02}") for i in range(15)]
        for w in watchers:
            await w.request({"type": "watch", "table": table})
        listing = (await ann.request({"type": "tables"}))["tables"][0]
        assert listing["watchers"] == 15 and listing["watching"] == [f"W{i:02}" for i in range(12)]
        await watchers[0].aclose()
        for _ in range(200):
            listing = (await ann.request({"type": "tables"}))["tables"][0]
            if listing["watchers"] == 14:
                break
        assert listing["watching"][0] == "W01"
        for c in [ann, *watchers[1:]]:
            await c.aclose()


async def test_a_watcher_named_like_a_player_or_another_watcher_is_numbered_and_told_apart():
    # a watcher called "ann" showed as "ann" beside the seated Ann (her log: "ann is watching"
    # of a stranger), and of two Bobs watching, one leaving was never said
    from ono99_tui.net.remote import _watchers_changed
    from .netplay import connect, serving

    async with serving() as server:
        ann = await connect(server, "Ann")
        table = (await ann.request({"type": "create", "seats": 2}))["table"]
        await ann.request({"type": "sit", "table": table})
        watchers = [await connect(server, name) for name in ("ann", "Bob", "Bob", "ann (2)")]
        for w in watchers:
            await w.request({"type": "watch", "table": table})
        before = (await ann.request({"type": "tables"}))["tables"][0]
        assert before["watching"] == ["ann (2)", "Bob", "Bob (2)", "ann (2) (2)"]
        await watchers[2].aclose()
        for _ in range(200):
            after = (await ann.request({"type": "tables"}))["tables"][0]
            if after["watchers"] == 3:
                break
        assert after["watching"] == ["ann (2)", "Bob", "ann (2) (2)"]
        assert _watchers_changed(before, after) == ["Bob (2) stopped watching."]
        for c in [ann, *watchers[:2], watchers[3]]:
            await c.aclose()
    # a client told the same name twice (an older server) still says each coming and going
    assert _watchers_changed({"watching": ["Bob"]}, {"watching": ["Bob", "Bob"]}) == ["Bob is watching."]
    assert _watchers_changed({"watching": ["Bob", "Bob"]}, {"watching": ["Bob"]}) == ["Bob stopped watching."]


async def test_a_server_gone_silent_is_pinged_then_dialled_again(monkeypatch):
    """A connection that dies without a word (Wi-Fi gone: no FIN) is noticed by a ping."""
    import asyncio

    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.net import client as client_module
    from ono99_tui.net.protocol import view_to_dict
    from ono99_tui.net.remote import RemoteTable
    from ono99_tui.table import TableSession

    monkeypatch.setattr(client_module, "PING_AFTER", 0.2)
    monkeypatch.setattr(client_module, "PONG_WITHIN", 0.2)
    heard = []

    async def silent(reader, writer):  # reads everything, answers nothing, never closes
        while line := await reader.readline():
            heard.append(line)

    server = await asyncio.start_server(silent, HOST, 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection(HOST, port)
    session = TableSession([SeatSpec("Ann"), SeatSpec("Bob")], seed=1)
    state = {"view": view_to_dict(session.view_for(0)), "seq": 0, "events": [], "full": True}
    remote = RemoteTable(Client(reader, writer), table_id=1, seat=0, first_state=state)
    dialled, lost = [], asyncio.Event()

    async def redial():
        dialled.append(remote.status)
        if len(dialled) == 2:  # it gives up after this second try: counted, not timed (a busy machine
            remote.give_up_after = 0  # once let 0.5 s pass before the second try)
        raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 7099)")
    remote.redial, remote.give_up_after = redial, 3600
    # (refused as asyncio refuses: its words name the address, the player needs the reason)
    remote.on_lost = lambda why, kind: (lost.set(), dialled.append((why, kind)))
    told = []
    remote.subscribe(lambda update: told.extend(update.notices))
    remote.start()
    await asyncio.wait_for(lost.wait(), 20)
    server.close()
    assert b'"ping"' in b"".join(heard)
    assert dialled[0].startswith("Reconnecting... (the server stopped answering")
    # a stranger whose host was killed saw only the first reason for minutes: each try now says
    # what it met (why the connection was lost is in the log, the line being one line of 80 columns)
    assert dialled[1] == "Reconnecting, try 2... (connection refused)", dialled
    assert told == ["Connection lost: the server stopped answering. Reconnecting..."]
    why, kind = dialled[-1]
    assert kind == "gave_up" and "gave up reconnecting" in why and remote.status is None
    assert why.startswith("the server stopped answering") and why.endswith("(the last try: connection refused)"), why


async def escape_asks_then_stays_then_leaves(pilot, app, words: str, still=lambda: True) -> None:
    """At the table screen: Escape asks (the question holds ``words``), Escape again stays (and
    ``still()`` holds), then Escape and the second button leave."""
    from ono99_tui.tui.screens.notice import _Notice

    screen = app.screen
    await pilot.press("escape")
    await until(pilot, lambda: isinstance(app.screen, _Notice), "the question")
    assert words in str(app.screen.query_one(".dialog-body").render())
    await pilot.press("escape")  # Stay
    await until(pilot, lambda: app.screen is screen, "back at the table")
    assert app.is_running and still()
    await pilot.press("escape")
    await until(pilot, lambda: isinstance(app.screen, _Notice), "the question again")
    await pilot.press("right", "enter")  # Leave
    await until(pilot, lambda: not app.is_running or app.screen is not screen, "leaving")


async def test_the_host_is_asked_before_escape_closes_the_table_for_everyone():
    """A play-tester's host pressed Escape ("esc Menu") mid-game: the program quit at once and the
    guest's game ended. Now the host is asked; Stay is first (Escape keeps the table)."""

    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=600, rate=1e9, burst=10**9)
    plan = JoinPlan(HOST, 0, "Ann", create={"rules": SHORT, "seats": 2}, serve=config, address_hint="join me")
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        guest = await Client.connect(HOST, plan.port, "Bob")
        await guest.request({"type": "sit", "table": app.table_id})
        await until(pilot, lambda: sum(s["player"] == "human" for s in app._table["seats"]) == 2, "Bob seated")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        await escape_asks_then_stays_then_leaves(pilot, app, "game ends for everyone",
                                                 lambda: not app.server.tables[app.table_id].session.over)
        guest.close()


async def test_host_on_port_0_names_the_port_it_got_in_the_lobby():
    """A play-tester's find: `ono99 host --port 0` said "Others join with: ono99 join localhost:0"."""
    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=600, rate=1e9, burst=10**9)
    plan = JoinPlan(HOST, 0, "Ann", create={"rules": SHORT, "seats": 2}, serve=config,
                    address_hint="Others join with: ono99 join localhost:{port} --name NAME")
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        want = f"ono99 join localhost:{plan.port} --name NAME"
        assert plan.port > 0
        await until(pilot, lambda: want in str(app.screen.query_one("#lobby").render()), "the real port in the hint")


def test_the_join_line_names_an_address_a_guest_can_use():
    """A play-tester's find: `--bind 0.0.0.0` showed "ono99 join 0.0.0.0:PORT" (nobody else reaches
    that) and `--bind ::` showed ":::PORT", which join refuses. A wildcard is shown as HOST, said
    to be this machine's address; an IPv6 address in the brackets join reads."""
    import socket

    from ono99_tui.cli import join_line
    from ono99_tui.net.client import split_address

    for wildcard in ("0.0.0.0", "::"):
        line = join_line(wildcard, None, None)
        assert line.startswith("Others join with: ono99 join HOST:{port} --name NAME, where HOST is this "
                               "machine's name or address on their network"), line
        assert socket.gethostname() in line
    for bind, want in [("127.0.0.1", "localhost"), ("::1", "localhost"), ("192.168.1.20", "192.168.1.20"),
                       ("fd00::5", "[fd00::5]"), ("box.lan", "box.lan")]:
        line = join_line(bind, None, None)
        assert line == f"Others join with: ono99 join {want}:{{port}} --name NAME", line
        address = line.split()[5].replace("{port}", "7422")
        assert split_address(address, 7099) == (bind if bind != "::1" and bind != "127.0.0.1" else "localhost",
                                                7422)
    assert join_line("127.0.0.1", "it's", None).endswith(""" --name NAME --password 'it'"'"'s'""")


async def test_a_guest_is_asked_before_escape_leaves_the_table_and_its_seat_is_kept():
    """A play-tester's find: a guest's Escape (the footer says "Menu") quit at once, no question."""

    from .netplay import connect, serving

    async with serving(turn_timer=60, bot_delay=600) as server:
        ann = await connect(server, "Ann")
        table = (await ann.request({"type": "create", "rules": SHORT, "seats": 2}))["table"]
        await ann.request({"type": "sit", "table": table})
        app = JoinApp(JoinPlan(HOST, server.port, "Bob", table=table))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.table_id == table and app.seat is not None, "seated")
            ann.send({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            await escape_asks_then_stays_then_leaves(pilot, app, "Your seat is kept")
        assert not server.tables[table].session.over  # the game goes on without Bob
        ann.close()


async def test_a_watcher_whose_game_the_restarted_server_no_longer_has_is_told_so():
    """A play-tester's find: after `ono99 host` was restarted, a watcher dialled back to table 1,
    now another game, and showed the old one (then the new one's bots as people). A watcher comes
    back only to the same game (a table resumed from its save); otherwise it is told and leaves."""
    from ono99_tui.net.server import Server, ServerConfig

    def config(port):
        return ServerConfig(host=HOST, port=port, seed=7, turn_timer=60, bot_delay=600, rate=1e9, burst=10**9)

    first = Server(config(0))
    port = await first.start()
    ann = await Client.connect(HOST, port, "Ann")
    table = (await ann.request({"type": "create", "rules": SHORT, "seats": 2}))["table"]
    await ann.request({"type": "sit", "table": table})
    await ann.request({"type": "bots"})
    await ann.request({"type": "start"})
    app = JoinApp(JoinPlan(HOST, port, "Wes", table=table, watch=True))
    second = None
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.remote.lobby is not None,
                        "watching the game")
            old_game = app.remote.lobby["game"]
            # killed (kill -9: no "closing" said), and not saved: table 1 will be another game
            first._server.close()
            for conn in list(first.connections):
                conn.writer.transport.abort()
            await first._server.wait_closed()
            second = Server(config(port))
            assert await second.start() == port
            bo = await Client.connect(HOST, port, "Bo")
            again = (await bo.request({"type": "create", "rules": SHORT, "seats": 2}))["table"]
            assert again == table and second.tables[again].game != old_game  # the same number, another game
            await bo.request({"type": "sit", "table": again})
            await bo.request({"type": "bots"})
            await bo.request({"type": "start"})
            await until(pilot, lambda: app.failure is not None or not app.is_running, "the watcher told")
            assert "no longer on the server" in (app.failure or ""), app.failure
            bo.close()
    finally:
        ann.close()
        await first.close()
        if second is not None:
            await second.close()


async def test_a_password_the_server_does_not_ask_is_said_on_the_screen_not_dropped_silently():
    from .netplay import serving

    async with serving() as server, serving(password="s3cret") as locked:
        for srv, given, warned in [(server, "hunter2", True), (server, None, False), (locked, "s3cret", False)]:
            app = JoinApp(JoinPlan(HOST, srv.port, "Ann", password=given, or_create=True))
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")

                def said():
                    return [n.message for n in app._notifications if "asks no password" in n.message]
                if warned:  # (a notice is a message: it may come a frame later)
                    await until(pilot, said, "the note about the password")
                    assert f"{HOST}:{srv.port} asks no password: the one given was not used" in said()[0]
                else:  # (posted as the connection is made, before the table came: it would be here)
                    await pilot.pause()
                    assert not said(), [n.message for n in app._notifications]


async def test_join_with_table_n_that_has_no_seat_says_why_and_what_to_do_before_any_screen():
    import asyncio
    import sys

    from .netplay import connect, serving, started_table

    async with serving(turn_timer=60) as server:
        ann, started = await started_table(server, "Ann")
        full = (await ann.request({"type": "create", "seats": 2}))["table"]
        seated = [await connect(server, name) for name in ("Cy", "Di")]  # (kept: a closed one frees its seat)
        for guest in seated:
            await guest.request({"type": "sit", "table": full})
        where = f"{HOST}:{server.port}"
        for table, words in [(started, f"has started: only its players may come back to it"),
                             (full, f"table {full} on {where} is full"),
                             (99, f"there is no table 99 on {where}; no table is waiting for players: "
                                  "--or-create (without --table) makes one")]:
            for plain in ([], ["--plain"]):
                # each offers to watch in its own kind: a screen, or lines (ono99 watch --plain)
                watch = f"watch it with: ono99 watch {'--plain ' if plain else ''}{where} --table {table}"
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "ono99_tui", "join", where, "--name", "Bob", "--table", str(table),
                    *plain, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE)
                try:
                    out, err = await asyncio.wait_for(proc.communicate(), 60)
                finally:
                    if proc.returncode is None:  # (a screen that started after all: never left behind)
                        proc.kill()
                        await proc.wait()
                assert proc.returncode == 2 and words in err.decode(), (plain, err)
                assert (watch in err.decode()) == (table != 99), (plain, err)
                assert len(err.decode().strip().splitlines()) == 1 and out == b"", (plain, out)  # no screen


async def test_a_host_who_quits_mid_game_comes_back_to_it_and_so_do_the_guests_but_not_after_closing_it():
    """A stranger's find: `ono99 host` quit (Ctrl+Q, a crash, a closed terminal) and started
    again could not give its guests their game back. Now it comes back to the game it left, its
    guests dial back to their seats; only the menu's "Leave and close the table" ends it."""
    import json
    import os
    import socket

    from ono99_tui.cli import build_parser, host_plan
    from ono99_tui.store.saves import SaveStore
    from ono99_tui.net.kept_seats import kept_token
    from ono99_tui.net.manifest import manifest_path
    from ono99_tui.tui.screens.notice import _Notice

    with socket.socket() as s:  # a port of its own: the host comes back on the same one
        s.bind((HOST, 0))
        port = s.getsockname()[1]
    args = build_parser().parse_args(["host", "--port", str(port), "--name", "Ann", "--seats", "2",
                                      "--bot-delay", "0", "--bind", HOST])
    manifest = manifest_path().with_name(f"host-{port}.json")

    async def closing(client) -> dict:
        while True:
            msg = await client.recv()
            if msg["type"] == "closing":
                return msg

    plan = host_plan(args)
    assert plan.keep and plan.comeback is None
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        bob = await Client.connect(HOST, port, "Bob")
        bob_seat = (await bob.request({"type": "sit", "table": app.table_id}))
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        table, seat = app.table_id, app.seat
        session = app.server.tables[table].session
        hand, seq = sorted(session.game.hands[seat]), session.seq
        save_path = SaveStore().path(app.server.tables[table].save_name)
        app.exit()  # as Ctrl+Q: no question, the game is kept
    assert f"Your game at table {table} is kept: run the same ono99 host (port {port}, --name Ann)" in app.farewell
    heard = []

    async def closing(client) -> dict:  # (everything Bob hears until then, kept)
        while True:
            msg = await client.recv()
            heard.append(msg)
            if msg["type"] == "closing":
                return msg
    told = await closing(bob)
    assert told["kept"] is True and "kept until the host starts ono99 host again" in told["message"]
    # the server closed first: Bob is never told the host "lost the connection" (no bot plays now)
    assert not any(m["type"] == "table" and not m["table"]["seats"][seat]["connected"] for m in heard), [(m["type"], m["table"]["seats"] if m["type"] == "table" else "") for m in heard]
    assert [t["id"] for t in json.loads(manifest.read_text())["tables"]] == [table]
    bob.close()

    # the kept game's save write-protected meanwhile: the host's screen says why it is not back (a
    # screen has no stderr for the server's warning), and the game stays kept for a later start
    os.chmod(save_path, 0o444)
    app = JoinApp(host_plan(args))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: any("write-protected" in n.message and "chmod u+w" in n.message
                                       for n in app._notifications), "told why the kept game is not back")
        app.exit()
    os.chmod(save_path, 0o600)

    plan = host_plan(args)  # started again: back to the game, and so is Bob with his token
    assert plan.comeback == kept_token(HOST, port, "Ann") is not None
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "back at the table")
        assert app.client.welcome["resumed"] and (app.table_id, app.seat) == (table, seat)
        await until(pilot, lambda: any("Back in the game you left" in n.message for n in app._notifications),
                    "told it is the game it left")  # (a notice is a message: it may come a frame later)
        session = app.server.tables[table].session
        assert sorted(session.game.hands[seat]) == hand and session.seq == seq
        bob = await Client.connect(HOST, port, "Bob", token=bob_seat["token"])
        assert bob.welcome["resumed"]
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, _Notice), "the question")
        assert "the game ends for everyone" in str(app.screen.query_one(".dialog-body").render())
        await pilot.press("right", "enter")  # Leave and close the table
        await until(pilot, lambda: not isinstance(app.screen, GameScreen), "left")
    told = await closing(bob)
    assert told["kept"] is False and "closed the table" in told["message"]
    assert json.loads(manifest.read_text())["tables"] == [] and kept_token(HOST, port, "Ann") is None
    bob.close()

    plan = host_plan(args)  # and after that, a new table
    assert plan.comeback is None
    app = JoinApp(plan)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        assert not app._table["started"] and app.table_id != table


def test_on_a_hosts_server_guests_make_no_second_table_and_the_join_line_keeps_working():
    # a stranger's --or-create made "Table 2" on ono99 host; the host's join line then said
    # "several tables are waiting (1: Table 1 (1 seats free); ...)"
    import asyncio

    from ono99_tui.net.client import ServerError
    from ono99_tui.net.lobby import choose_table
    from .netplay import connect, run, serving

    async def main():
        async with serving(single_table=True) as server:
            host = await connect(server, "Hosty")
            mine = (await host.request({"type": "create", "seats": 3}))["table"]
            await host.request({"type": "sit", "table": mine})
            late = await connect(server, "Late")
            with pytest.raises(ServerError, match=r"this server holds one table \(ono99 host\) and makes no other"):
                await late.request({"type": "create", "seats": 2})
            newbie = await connect(server, "Newbie")
            assert await choose_table(newbie, JoinPlan(HOST, server.port, "Newbie")) == mine
            for c in (host, late, newbie):
                await c.aclose()
        async with serving() as server:  # an ordinary server: two tables, each said in good English
            a, b = await connect(server, "A"), await connect(server, "B")
            for c in (a, b):
                t = (await c.request({"type": "create", "seats": 2}))["table"]
                await c.request({"type": "sit", "table": t})
            newbie = await connect(server, "Newbie")
            with pytest.raises(ServerError, match=r"\(1: Table 1 \(1 seat free\); 2: Table 2 \(1 seat free\)\)"):
                await choose_table(newbie, JoinPlan(HOST, server.port, "Newbie"))
            for c in (a, b, newbie):
                await c.aclose()
    run(main())


async def test_a_guest_late_to_a_hosts_game_is_not_told_to_make_a_table_the_host_refuses():
    # ono99 host holds one table; a guest whose seat was gone was told "make one with
    # --or-create", which that server refuses: the advice could not be followed
    from .netplay import ono99_run, serving, started_table

    async with serving(single_table=True, turn_timer=60) as server:
        host, _ = await started_table(server, "Hosty")
        where = f"{HOST}:{server.port}"
        for extra, plain in [([], []), ([], ["--plain"]), (["--table", "99"], []), (["--table", "99"], ["--plain"]),
                             (["--or-create"], ["--plain"])]:  # (a screen says the last one on the screen)
            code, _, said = await ono99_run("join", where, "--name", "Bob", *extra, *plain)
            assert code == 2 and len(said.strip().splitlines()) == 1, (extra, plain, said)
            assert "--or-create" not in said and "sit at it" not in said, (extra, plain, said)
            assert ("ask the host to start another" in said if extra != ["--or-create"]
                    else "makes no other" in said), (extra, plain, said)
        await host.aclose()


async def test_a_guest_at_a_hosts_full_table_not_yet_started_is_told_it_is_full_and_may_watch():
    """A play-tester's find: a guest at a host's table that was full but not started was told
    "this is a host's table (ono99 host), which holds one game: ask the host to start another",
    as if its game were over. The guest is told it is full and has not started, and (with the
    table screen) how to watch it."""
    import asyncio
    import sys

    from .netplay import connect, serving

    async with serving(single_table=True, turn_timer=60) as server:
        host = await connect(server, "Hosty")
        table = (await host.request({"type": "create", "seats": 3}))["table"]
        await host.request({"type": "sit", "table": table})
        await host.request({"type": "bots"})  # full; the host has not pressed S
        where = f"{HOST}:{server.port}"
        for extra, plain in [([], []), ([], ["--plain"]), (["--table", str(table)], []),
                             (["--table", str(table)], ["--plain"])]:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ono99_tui", "join", where, "--name", "Bob", *extra, *plain,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
            try:
                out, err = await asyncio.wait_for(proc.communicate(), 60)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            said = err.decode()
            assert proc.returncode == 2 and len(said.strip().splitlines()) == 1, (extra, plain, said)
            assert f"the host's table on {where} (ono99 host, which holds one game) is full: its 3 seats are " \
                   "taken and its game has not started" in said, (extra, plain, said)
            assert "start another" not in said, (extra, plain, said)
            assert f"watch it with ono99 watch {'--plain ' if plain else ''}{where}" in said, (extra, plain, said)
        assert not server.tables[table].started
        await host.aclose()


def test_a_taken_name_is_said_in_the_gateways_words(private_dirs):
    # over serve-ssh the name is the SSH user's: "connect with another --name" told Sue of a flag
    # she does not have; the gateway gives its child the words (ONO99_NAME_HINT). On a PTY, as an
    # SSH session's child runs
    import asyncio
    import os
    import sys

    from .cli import on_a_pty
    from .netplay import run
    from .soak import ServeProcess
    from ono99_tui.net.client import Client

    def join_on_a_pty(env, *more) -> tuple[int, str]:
        return on_a_pty([sys.executable, "-m", "ono99_tui", "join", f"{HOST}:{server.port}", "--name", "Sue", *more],
                        env)

    hint = "log in as another user (ssh OTHER@HOST) to take another name"
    server = ServeProcess(["--bot-delay", "0"], dict(os.environ))
    try:
        async def main():
            sue = await Client.connect(HOST, server.port, "Sue")
            table = (await sue.request({"type": "create", "seats": 3}))["table"]
            await sue.request({"type": "sit", "table": table})
            env = dict(os.environ, TERM="xterm-256color", ONO99_GATEWAY="1")
            told = await asyncio.to_thread(join_on_a_pty, dict(env, ONO99_NAME_HINT=hint))
            plain = await asyncio.to_thread(join_on_a_pty, env)
            lines = await asyncio.to_thread(join_on_a_pty, dict(env, ONO99_NAME_HINT=hint), "--plain")  # (ssh HOST plain)
            await sue.aclose()
            return told, plain, lines
        (code, text), (plain_code, plain_text), (lines_code, lines_text) = run(main(), timeout=120)
    finally:
        server.proc.terminate()
        server.proc.wait(10)
    assert code == 2 and f"ono99: someone called 'Sue' already sits at this table; {hint}" in text, text[-300:]
    assert lines_code == 2 and f"already sits at this table; {hint}" in lines_text, lines_text[-300:]
    assert plain_code == 2 and "already sits at this table; connect with another --name" in plain_text


def test_a_host_name_that_is_not_known_is_said_in_words():
    # `join no.such.host.invalid:47999` said "cannot connect to ...: unknown error -2"
    from .cli import ono99

    for plain in ([], ["--plain"]):
        proc = ono99("join", "no.such.host.invalid:47999", "--name", "Ann", *plain)
        assert proc.returncode == 2 and "unknown error" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("ono99: cannot connect to no.such.host.invalid:47999: no such host ("), proc.stderr


async def test_a_player_coming_back_from_elsewhere_is_told_where_the_seat_is_kept():
    # Bob, at a new terminal with another data folder: "has started: only its players may come
    # back to it", which says he is not one of them
    from .netplay import ono99_run, serving, started_table

    async with serving(turn_timer=60) as server:
        bob, table = await started_table(server, "Bob")
        where = f"{HOST}:{server.port}"
        for name, words in (("bob", f"bob's seat at table {table} on {where} is kept for the ono99 that took it: "
                                    "come back with the same ono99 join from that machine and user"),
                            ("Zed", "has started: only its players may come back to it")):
            code, _, err = await ono99_run("join", where, "--name", name, "--table", str(table), "--plain")
            assert code == 2 and words in err, err
        await bob.aclose()


async def test_a_host_whose_port_keeps_a_game_for_another_name_is_told_which_name_or_that_none_is_kept_here():
    """What `ono99 host` says when its port resumed a game that is not its own under this
    --name: the name this machine keeps that game's host seat for, else that no seat is kept
    here (only another --port then makes a new table); nothing when no game is kept."""
    from ono99_tui.net.kept_seats import keep_token
    from ono99_tui.net.lobby import kept_for_another

    from .netplay import connect, serving

    async with serving(single_table=True, turn_timer=60) as server:
        plan = JoinPlan(HOST, server.port, "Hana")
        assert kept_for_another(server, plan) is None  # (no table at all)
        hal = await connect(server, "Hal")
        table = (await hal.request({"type": "create", "seats": 2}))["table"]
        token = (await hal.request({"type": "sit", "table": table}))["token"]
        await hal.request({"type": "bots"})
        await hal.request({"type": "start"})
        assert kept_for_another(server, plan) == (
            f"port {server.port} keeps a game started earlier (table {table}: Hal, Medium), and no seat of it is "
            "kept on this machine for --name Hana: run ono99 host with another --port to start a new table")
        keep_token(HOST, server.port, "Bob", "not-a-seat-of-it-at-all-xx")
        keep_token(HOST, server.port, "Hal", token)
        assert kept_for_another(server, plan) == (
            f"a game kept for --name Hal is on port {server.port}: run ono99 host with --name Hal (and --port "
            f"{server.port}) to carry it on, or with another --port to start a new table")
        await hal.aclose()


async def test_a_guest_who_quits_mid_game_is_told_the_seat_is_kept_and_how_to_come_back():
    # a guest's Ctrl+Q mid-game ended without a word, where the host is told its game is kept
    from .netplay import connect, serving

    async with serving(turn_timer=60, bot_delay=0) as server:
        ann = await connect(server, "Ann")
        table = (await ann.request({"type": "create", "seats": 3}))["table"]
        await ann.request({"type": "sit", "table": table})
        app = JoinApp(JoinPlan(HOST, server.port, "Bob", table=table))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
            await ann.request({"type": "bots"})
            await ann.request({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            await pilot.press("ctrl+q")
        assert app.farewell == (f"You left table {table} on {HOST}:{server.port}; your seat is kept (a bot plays "
                                "it after the turn timer): the same ono99 join brings you back to it.")
        await ann.aclose()


async def test_after_a_reconnect_only_what_happened_meanwhile_is_news_not_the_rounds_told_before():
    """A play-tester's find: after any reconnect (a server restart, a dropped connection) both
    players got the "Round 1 over" dialog again, over an old board: the full state a server sends
    on a reconnect holds the table's last events, and every one was told to the screen as news.
    Now only the events after those already seen are (tested at the table contract, which the
    screen and the plain front end both read)."""
    from ono99_tui.net.remote import RemoteTable
    from ono99_tui.net.server import Server

    from .netplay import until

    server = Server(ServerConfig(host=HOST, port=0, seed=3, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9))
    port = await server.start()
    try:
        ann = await Client.connect(HOST, port, "Ann")
        table = (await ann.request({"type": "create", "seats": 2}))["table"]
        sat = await ann.request({"type": "sit", "table": table})
        await ann.request({"type": "bots", "level": "random"})
        await ann.request({"type": "start"})
        first = await ann.recv()
        while first["type"] != "state":
            first = await ann.recv()
        remote = RemoteTable(ann, table, sat["seat"], first)

        async def redial():
            return await Client.connect(HOST, port, "Ann", token=sat["token"])
        remote.redial = redial
        told = []
        remote.subscribe(told.append, sat["seat"])
        remote.start()
        rng = random.Random(4)
        played = -1
        while True:  # Ann plays until a round is lost and the next one waits for her
            await until(lambda: remote.view.current == remote.my_seat and remote.seq != played or remote.view.over,
                        "Ann's turn")
            assert not remote.view.over
            if remote.view.round >= 2:
                break
            played = remote.seq
            remote.submit(remote.my_seat, rng.choice(remote.view.legal_plays()))
        assert any(e["type"] == "round_lost" for u in told for e in u.events)
        before, seen = len(told), len(remote.events)
        server.tables[table].seats[remote.my_seat].conn.close()  # the connection drops
        await until(lambda: any(u.view.round >= 2 and not u.notices for u in told[before + 1:])
                    and remote.status is None, "back, and the table told again")
        after = [u for u in told[before:] if u.changed]
        assert after and all(not u.undone for u in after)
        assert [e for u in after for e in u.events] == remote.events[seen:]  # (nothing, or only what is new)
        assert not any(e["type"] == "round_lost" for u in after for e in u.events), [u.events for u in after]
        remote.close()
        await ann.aclose()
    finally:
        await server.close()


async def test_a_lone_player_waiting_with_or_create_is_seated_again_after_a_drop_or_a_restart():
    """A play-tester's find: `ono99 join --or-create` waiting alone in the lobby was thrown out by
    any dropped connection ("the table is no longer there to sit at again": a table nobody else
    sat at closes when its one player drops) and by a server restart ("the server is shutting
    down"). Now it dials back and, its table gone, --or-create makes another and sits there."""
    from ono99_tui.net.server import Server

    def config(port):
        return ServerConfig(host=HOST, port=port, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)

    server = Server(config(0))
    port = await server.start()
    app = JoinApp(JoinPlan(HOST, port, "Lou", or_create=True))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            def seated_again(old):
                return lambda: (app.client is not old and app._table is not None and app.table_id in server.tables
                                and app._table["id"] == app.table_id and app.seat is not None
                                and app._table["seats"][app.seat]["name"] == "Lou")
            await until(pilot, seated_again(None), "seated")
            first, old = app.client, app.table_id
            next(c for c in server.connections if c.name == "Lou").writer.transport.abort()
            await until(pilot, seated_again(first), "seated again at a new table after the drop")
            assert app.failure is None and app.table_id != old and old not in server.tables
            second = app.client
            await server.close()  # as on SIGTERM: "closing", then the connection ends
            server = Server(config(port))
            await server.start()
            await until(pilot, seated_again(second), "seated again after the restart")
            assert app.failure is None and app.is_running
            await pilot.press("b")
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game starts with Lou in it")
    finally:
        await server.close()


def _restartable(port: int) -> ServerConfig:
    """A server's settings, on ``port`` (0: any), to start it and start it again on the same port."""
    return ServerConfig(host=HOST, port=port, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)


async def _ann_waiting_at_a_table():
    """A server with Ann seated at the one table she made, waiting for players: (server, port,
    Ann's client, the table)."""
    from ono99_tui.net.server import Server

    server = Server(_restartable(0))
    port = await server.start()
    ann = await Client.connect(HOST, port, "Ann")
    table = (await ann.request({"type": "create", "seats": 3}))["table"]
    await ann.request({"type": "sit", "table": table})
    return server, port, ann, table


async def _restarted_once_ann_left(pilot, app, who: str, server, ann, port: int):
    """Once ``who`` (the app's join) sits at Ann's table: Ann gone, the server stopped and started
    again on its port (keeping no table); the new server."""
    from ono99_tui.net.server import Server

    await until(pilot, lambda: app.seat is not None and app._table is not None, f"{who} seated at Ann's table")
    await ann.aclose()  # the table's maker is gone when the server comes back
    await server.close()
    server = Server(_restartable(port))
    await server.start()
    return server


async def test_a_player_back_before_anyone_made_a_table_waits_for_one_to_open():
    """`ono99 join` without --or-create, at a table someone else made, was thrown out when a
    restart brought it back before that player ("the table is no longer there to sit at
    again"). Now it waits, says so, and sits at the first table that opens."""
    server, port, ann, _ = await _ann_waiting_at_a_table()
    app = JoinApp(JoinPlan(HOST, port, "Lou"))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            server = await _restarted_once_ann_left(pilot, app, "Lou", server, ann, port)
            await until(pilot, lambda: "waiting for one to open" in app._lobby_line, "Lou waits for a table")
            assert app.failure is None and app.is_running
            cid = await Client.connect(HOST, port, "Cid")
            table = (await cid.request({"type": "create", "seats": 3}))["table"]
            await cid.request({"type": "sit", "table": table})
            await until(pilot, lambda: app._table is not None and app._table["id"] == table and app._lobby_line == ""
                        and {s["name"] for s in app._table["seats"]} >= {"Cid", "Lou"}, "Lou sits with Cid")
            assert app.table_id == table and app.failure is None
            await cid.aclose()
    finally:
        await ann.aclose()
        await server.close()


async def test_a_hand_keeps_its_slots_over_a_dropped_connection_and_a_join_run_again():
    """At a network table the hand keeps its slots as at a table here (engine/hand_order.py): the
    connection dropping and coming back leaves them as they were, and so does quitting and running
    the same ono99 join again (a new process: the slots come from the seat's events the server
    sends); 1 then plays the card shown first."""
    from ono99_tui.net.kept_seats import kept_token

    from .netplay import serving

    def shown(screen):
        return [(c.card, c.has_class("new")) for c in screen.query_one(HandPane).cards]

    async def my_turn(pilot, app):
        await until(pilot, lambda: isinstance(app.screen, GameScreen) and app.screen.is_mounted
                    and app.screen._human_may_play() and app.screen.table.status is None
                    and any(c for c, _ in shown(app.screen)), "Ann's turn, her hand shown")
        return app.screen

    async with serving(seed=8, turn_timer=60, bot_delay=0) as server:
        bo = await Client.connect(HOST, server.port, "Bo")
        table = (await bo.request({"type": "create", "seats": 3}))["table"]
        app = JoinApp(JoinPlan(HOST, server.port, "Ann", table=table, keep=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None and app._table is not None, "seated")
            await pilot.press("b")
            await until(pilot, lambda: all(s["player"] for s in app._table["seats"]), "bots seated")
            await pilot.press("s")
            for _ in range(12):  # until the slots differ from the hand sorted (a drawn card kept its slot)
                screen = await my_turn(pilot, app)
                cards = [c for c, _ in shown(screen) if c]
                if any(new for _, new in shown(screen)) and cards != sorted(cards, key=C.SORT_KEY.get):
                    break
                pick = screen.query_one(HandPane).best_focus()
                before = screen.table.seq
                await pilot.press(str(pick.index))
                if pick.busts:
                    await pilot.press(str(pick.index))
                await until(pilot, lambda: screen.table.seq > before, "the play back from the server")
            left = shown(screen)
            cards = [c for c, _ in left if c]
            assert cards != sorted(cards, key=C.SORT_KEY.get), "never a hand out of sorted order"
            server.tables[table].seats[app.seat].conn.close()  # the connection drops
            await until(pilot, lambda: screen.table.status is not None, "the drop seen")
            assert await my_turn(pilot, app) is screen and shown(screen) == left
            await pilot.press("ctrl+q")  # Ann quits: her seat is kept, and it is her turn
        token = kept_token(HOST, server.port, "Ann")
        again = JoinApp(JoinPlan(HOST, server.port, "Ann", comeback=token, keep=True))
        async with again.run_test(size=(80, 24)) as pilot:
            screen = await my_turn(pilot, again)
            assert shown(screen) == left
            session = server.tables[table].session
            before = session.seq
            await pilot.press("1")
            if screen.query_one(HandPane).cards[0].busts:
                await pilot.press("1")
            await until(pilot, lambda: session.seq > before, "the play made")
            assert session.game.plays[before] == (again.seat, left[0][0])
        await bo.aclose()


async def test_a_join_that_found_the_one_waiting_table_is_not_pinned_to_it_over_a_restart():
    """A play-tester's find: `ono99 join HOST --name Bob` (no --table) sat at the one table
    waiting; the server restarted, the table's maker came back first and made a new table, and
    Bob's join exited with "the server is shutting down". The check before the screen (probe)
    had written the table it found into the plan as if Bob had named --table, so dialling back
    looked for that table only. Now Bob waits for a table to open, as a join from the screen does."""
    import asyncio

    from ono99_tui.net.lobby import probe

    server, port, ann, _ = await _ann_waiting_at_a_table()
    plan = JoinPlan(HOST, port, "Bob")
    await asyncio.to_thread(probe, plan)  # (as cmd_join does, before the screen)
    app = JoinApp(plan)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            server = await _restarted_once_ann_left(pilot, app, "Bob", server, ann, port)
            await until(pilot, lambda: "waiting for one to open" in app._lobby_line or app.failure,
                        "Bob waits for a table")
            assert app.failure is None and app.is_running
    finally:
        await ann.aclose()
        await server.close()


async def test_a_join_at_a_named_table_gone_after_a_restart_says_so_not_that_the_server_is_shutting_down():
    """With --table N, a restart that keeps no table still waiting leaves nowhere to sit again:
    the join said only "the server is shutting down" (the server that had restarted and was
    listening), the lobby's own reason overwritten by the closing message it dialled back on."""
    server, port, ann, table = await _ann_waiting_at_a_table()
    app = JoinApp(JoinPlan(HOST, port, "Bob", table=table))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            server = await _restarted_once_ann_left(pilot, app, "Bob", server, ann, port)
            await until(pilot, lambda: app.failure is not None, "Bob's join ends")
            assert "no longer there to sit at again" in app.failure and f"no table {table}" in app.failure, app.failure
    finally:
        await ann.aclose()
        await server.close()


async def test_a_watcher_back_within_the_line_limit_is_said_at_its_end_so_the_log_ends_true(monkeypatch):
    """A play-tester's find: after a server restart the players' logs said "Wes stopped watching"
    (the server came back before Wes did) and never that Wes was back a second later: that line
    fell within the limit of one a while, and was dropped, so the log's last word was false."""
    import asyncio

    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.net import remote as remote_module
    from ono99_tui.net.protocol import view_to_dict
    from ono99_tui.net.remote import RemoteTable
    from ono99_tui.table import TableSession

    clock = [100.0]
    # (the module's clock only: the event loop's, time.monotonic itself, must go on)
    monkeypatch.setattr(remote_module, "time", type("Clock", (), {"monotonic": staticmethod(lambda: clock[0])}))
    monkeypatch.setattr(remote_module, "WATCHERS_TOLD_EVERY", 0.05)  # (the held line's timer: soon)
    session = TableSession([SeatSpec("Ann"), SeatSpec("Bob")], seed=1)
    state = {"view": view_to_dict(session.view_for(0)), "seq": 0, "events": [], "full": True}
    remote = RemoteTable(client=None, table_id=1, seat=0, first_state=state)
    said = []
    remote.subscribe(lambda update: said.extend(update.notices), 0)
    seats = [{"name": n, "player": "human", "connected": True} for n in ("Ann", "Bob")]
    table = lambda names: {"type": "table", "table": {"seats": seats, "watching": names, "watchers": len(names)}}  # noqa: E731
    remote.handle(table(["Wes"]))  # (the first lobby seen: nothing is news)
    remote.handle(table([]))  # the restart: the server is back before Wes
    assert said == ["Wes stopped watching."]
    clock[0] += 0.01
    remote.handle(table(["Wes"]))  # Wes is back at once, within the limit: no line yet
    remote.handle(table(["Vi", "Wes"]))
    assert said == ["Wes stopped watching."]
    clock[0] += 1  # (the limit is over: the held line is due)
    loop = asyncio.get_running_loop()
    end = loop.time() + HANG
    while len(said) < 3 and loop.time() < end:
        await asyncio.sleep(0.01)
    assert said == ["Wes stopped watching.", "Vi is watching.", "Wes is watching."], said
    remote.handle(table(["Vi", "Wes"]))  # (nothing new: nothing said again)
    assert len(said) == 3


async def test_a_player_back_under_their_name_typed_in_another_case_gets_their_seat_back():
    """A play-tester's find: Zed's terminal closed mid-game; `ono99 join HOST --name zed` found
    no seat kept (the tokens are kept per name as typed) and said no table was waiting for
    players, and with --or-create made a new table while a bot played Zed's hand. The server
    holds "zed" and "Zed" for one name at a table (text.alike): so does the join's memory now."""
    from ono99_tui.net.kept_seats import keep_token, kept_tokens
    from ono99_tui.net.server import Server

    server = Server(ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9))
    port = await server.start()
    try:
        bob, table = await seated_at_a_new_table(port, "Bob")
        zed = await Client.connect(HOST, port, "Zed")
        token = (await zed.request({"type": "sit", "table": table}))["token"]
        keep_token(HOST, port, "Zed", token)
        keep_token(HOST, port, "Zoe", "z" * 24)  # (another name at that address: not Zed's)
        await bob.request({"type": "start"})
        zed.writer.transport.abort()  # the terminal closed
        assert kept_tokens(HOST, port, "zed") == [token] and kept_tokens(HOST, port, "ZED") == [token]
        assert kept_tokens(HOST, port + 1, "zed") == [] and kept_tokens(HOST, port, "Ann") == []
        kept = kept_tokens(HOST, port, "zed")  # (as cmd_join reads them)
        app = JoinApp(JoinPlan(HOST, port, "zed", comeback=kept[0], older=tuple(kept[1:]), keep=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, GameScreen) or app.failure, "back at the table")
            assert app.client.welcome["resumed"] and app.seat == 1 and app.failure is None
            hand = sorted(server.tables[table].session.game.hands[1])
            await until(pilot, lambda: sorted(c.card for pane in app.screen.query(HandPane) for c in pane.cards
                                              if c.card) == hand, "Zed's hand shown")
            await bob.aclose()
    finally:
        await server.close()


async def test_a_watcher_at_a_lobby_table_that_closes_is_told_so_not_left_at_an_empty_lobby():
    """A play-tester's find: `ono99 watch` at a table waiting for players; its one player left, the
    server closed the table and told the watcher ("table 1 closed: nobody sits at it"), but the
    watch screen did not read notices before a game starts: it showed the empty lobby for good."""
    from ono99_tui.net.server import Server

    server = Server(ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9))
    port = await server.start()
    ann = await Client.connect(HOST, port, "Ann")
    table = (await ann.request({"type": "create", "seats": 3}))["table"]
    await ann.request({"type": "sit", "table": table})
    app = JoinApp(JoinPlan(HOST, port, "Wes", table=table, watch=True))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app._table is not None and any(c.name == "Wes" for c in server.tables[table].watchers),
                        "Wes watching the lobby")
            await ann.request({"type": "stand"})  # the one player leaves: the table closes
            await until(pilot, lambda: app.failure is not None, "the watcher told")
            assert app.failure == f"table {table} closed: nobody sits at it", app.failure
    finally:
        await ann.aclose()
        await server.close()


async def test_a_host_who_quits_before_the_start_does_not_tell_the_guests_a_game_is_kept():
    """A play-tester's find: `ono99 host` quit (Ctrl+Q) in the lobby, a guest seated; the guest was
    told "the host left; the game is kept until the host starts ono99 host again" and dialled back
    for a game that never was (a table still waiting is kept by no server)."""
    import socket

    from ono99_tui.cli import build_parser, host_plan

    with socket.socket() as s:
        s.bind((HOST, 0))
        port = s.getsockname()[1]
    args = build_parser().parse_args(["host", "--port", str(port), "--name", "Ann", "--seats", "3",
                                      "--bot-delay", "0", "--bind", HOST])
    app = JoinApp(host_plan(args))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        bob = await Client.connect(HOST, port, "Bob")
        await bob.request({"type": "sit", "table": app.table_id})
        app.exit()  # as Ctrl+Q
    try:
        while (msg := await bob.recv())["type"] != "closing":
            pass
        assert msg["message"] == "the host left before the game started", msg
        assert not app.farewell  # (nothing kept to come back to)
    finally:
        await bob.aclose()


async def test_an_ipv6_address_is_named_in_brackets_so_a_line_can_be_copied_into_a_command():
    """A play-tester's find: `ono99 serve --bind ::1` said "listening on ::1:7099", and a join's
    refusals named "::1:7099" ("watch it with: ono99 watch ::1:7099 --table 1"); copied into a
    command, `::1:7099` is read as one IPv6 address (on the default port), and the join failed."""
    import asyncio
    import subprocess
    import sys

    from ono99_tui.net.client import ServerError, host_port, split_address
    from ono99_tui.net.lobby import JoinPlan, check_named_table
    from ono99_tui.net.server import Server

    assert host_port("::1", 7099) == "[::1]:7099" and host_port("localhost", 7099) == "localhost:7099"
    assert split_address(host_port("fd00::5", 7099), 1) == ("fd00::5", 7099)
    server = Server(ServerConfig(host="::1", port=0, bot_delay=0))
    try:
        port = await server.start()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        ann = await Client.connect("::1", port, "Ann")
        table = (await ann.request({"type": "create", "seats": 2}))["table"]
        await ann.request({"type": "sit", "table": table})
        await ann.request({"type": "bots"})
        await ann.request({"type": "start"})
        with pytest.raises(ServerError) as told:
            await check_named_table(ann, JoinPlan("::1", port, "Bob", table=table))
        assert f"ono99 watch [::1]:{port} --table {table}" in str(told.value), told.value
        await ann.aclose()
    finally:
        await server.close()
    proc = await asyncio.to_thread(ono99, "join", f"[::1]:{port}", "--name", "Ann")  # (nothing listens there now)
    assert proc.returncode == 2 and f"cannot connect to [::1]:{port}: " in proc.stderr, proc.stderr
    serve = subprocess.Popen([sys.executable, "-m", "ono99_tui", "serve", "--bind", "::1", "--port", "0", "--no-save"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = await asyncio.to_thread(serve.stdout.readline)
        assert line.startswith("ono99 serve: listening on [::1]:"), line + serve.stderr.read()
    finally:
        serve.terminate()
        serve.communicate(timeout=60)


@pytest.mark.parametrize("watch", [False, True])
async def test_the_table_screen_of_a_join_or_a_watch_offers_leave_not_a_menu_it_does_not_have(watch):
    """A play-tester's find: watching over SSH, the footer offered "esc Menu"; Escape ended the
    session at once (a join has no menu: Escape leaves the table, and ono99 with it). The footer,
    the palette and the help now say Leave."""
    from textual.widgets._footer import FooterKey

    from ono99_tui.net.server import Server
    from ono99_tui.tui.screens.modals import HelpScreen

    server = Server(ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9))
    port = await server.start()
    try:
        ann, table = await seated_at_a_new_table(port, "Ann")
        app = JoinApp(JoinPlan(HOST, port, "Bob", table=table, watch=watch))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app._table is not None and (watch or app.seat is not None), "at the table")
            if watch:
                await ann.request({"type": "bots", "level": "easy"})  # (the watcher takes no seat)
            await ann.request({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            screen = app.screen
            keys = lambda: {k.action: str(k.description) for k in screen.query(FooterKey)}  # noqa: E731
            await until(pilot, lambda: "menu" in keys(), "the footer's keys")
            assert keys()["menu"] == "Leave", keys()
            titles = [c.title for c in screen.palette_commands()]
            assert "Main menu" not in titles and "Leave the table" in titles, titles
            await pilot.press("question_mark")
            await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            assert "back to the menu" not in app.screen.body and "Escape     leave this table" in app.screen.body
        await ann.aclose()
    finally:
        await server.close()


@contextlib.asynccontextmanager
async def _bob_at_anns_table():
    """Bob joined (the table screen up) at a table Ann made and started on a fresh server."""
    from ono99_tui.net.server import Server

    server = Server(ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9))
    port = await server.start()
    try:
        ann, table = await seated_at_a_new_table(port, "Ann")
        app = JoinApp(JoinPlan(HOST, port, "Bob", table=table))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.seat is not None, "seated")
            await ann.request({"type": "start"})
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
            yield app, pilot
        await ann.aclose()
    finally:
        await server.close()


async def test_the_help_at_a_network_table_lists_no_key_that_does_nothing_there():
    """The help at a join listed "u  undo your last play" and "Ctrl+S  save the game as a name of
    your choice": at a network table Ctrl+S did nothing at all (the server keeps the save) and u
    only said undo is not offered; nor does its palette hold a new game or save as."""
    from ono99_tui.tui.screens.modals import HelpScreen

    async with _bob_at_anns_table() as (app, pilot):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        keys = app.screen.body.split("Keys at the table")[1].split("Computer players")[0]
        assert "Ctrl+S" not in keys and "undo" not in keys and "new game" not in keys, keys
        assert "1-9, 0" in keys and "Escape" in keys


async def test_ctrl_s_at_a_network_table_says_why_there_is_no_save_as():
    """Ctrl+S at a join did nothing at all, no word (u at least says why undo is not offered)."""
    async with _bob_at_anns_table() as (app, pilot):
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any("Save as is not offered" in str(n.message) for n in app._notifications),
                    "the reason")
        said = next(str(n.message) for n in app._notifications if "Save as" in str(n.message))
        assert "server saves this game" in said and isinstance(app.screen, GameScreen)
