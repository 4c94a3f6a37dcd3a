"""The table screen on a remote table (`ono99 host`/`join`), where keys arrive bunched: a second
key pressed before the server has answered the first is not sent as a second play for the same
move (it would be refused as stale, and its slot freed for nothing). Issue 25: the screen's
"busy" guard in _choose survived every test."""

from textual import events

from ono99_tui.net.client import Client
from ono99_tui.net.lobby import JoinPlan
from ono99_tui.tui.join import JoinApp
from ono99_tui.net.server import ServerConfig
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.widgets.hand import HandPane

from .netplay import HOST
from .test_net_join import SHORT, until


async def test_two_keys_bunched_on_a_remote_table_make_one_play_and_no_stale_refusal():
    config = ServerConfig(host=HOST, port=0, seed=5, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    plan = JoinPlan(HOST, 0, "Ann", create={"rules": SHORT, "seats": 2}, serve=config)
    app = JoinApp(plan)
    notices = []
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        guest = await Client.connect(HOST, plan.port, "Bob")
        bob = (await guest.request({"type": "sit", "table": app.table_id}))["seat"]
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        screen = app.screen
        screen.notify = lambda message, **kw: notices.append(message)
        session = app.server.tables[app.table_id].session
        if session.current == bob:  # Bob opens: he plays, then it is Ann's turn
            state = await guest.recv()
            while state["type"] != "state" or not guest.view(state).my_turn:
                state = await guest.recv()
            await guest.request({"type": "play", "card": guest.view(state).legal_plays()[0], "seq": state["seq"]})
        await until(pilot, lambda: session.current == app.seat and screen.table.seq == session.seq
                    and not screen.busy, "Ann's turn on her screen")
        cards = screen.query_one(HandPane).cards
        safe = [c.index for c in cards if c.card and c.reason is None and not c.busts]
        assert len(safe) >= 2, [(c.card, c.reason, c.busts) for c in cards]
        before, first = session.seq, cards[safe[0] - 1].card
        sent = []
        real_submit = screen.table.submit
        screen.table.submit = lambda *a: sent.append(a) or real_submit(*a)
        for index in safe[:2]:  # as a terminal delivers one write: both keys queued before either is handled
            app.post_message(events.Key(str(index), str(index)))
        await until(pilot, lambda: screen.table.seq > before, "Ann's play back from the server")
        assert session.game.plays[before:] == [(app.seat, first)]
        # Bob answers with a play: by then the server has handled all Ann sent (one connection, in order)
        state = await guest.recv()
        while state["type"] != "state" or not guest.view(state).my_turn:
            state = await guest.recv()
        await guest.request({"type": "play", "card": guest.view(state).legal_plays()[0], "seq": state["seq"]})
        await until(pilot, lambda: screen.table.seq == session.seq == before + 2, "Bob's play on Ann's screen")
        assert sent == [(app.seat, first, before)], sent  # one play sent for this move, not one per key
        assert not notices, notices  # no "that play was for move ..." from the server
        assert not screen.query_one(HandPane).pending.get(app.seat)  # no slot freed for a play never made
        await guest.aclose()


async def test_the_lobby_lines_up_wide_names_by_columns(private_dirs):
    """A name of emoji or CJK characters takes two columns a character: the lobby pads by
    display width, so every seat's state starts in the same column."""
    import types

    from textual.widgets import Static

    from ono99_tui.text import display_width
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.join import LobbyScreen

    class Lobby(Ono99App):
        plan = types.SimpleNamespace(watch=False)
        remote = None

        def start_connecting(self):
            pass

        def on_mount(self):
            self.push_screen(LobbyScreen())

    seats = [{"name": n, "player": "human", "connected": True} for n in ("Ann", "\U0001f642\U0001f642 Zo\u00eb", "\u7532\u4e59")]
    app = Lobby()
    async with app.run_test(size=(80, 24)) as pilot:
        while not (isinstance(app.screen, LobbyScreen) and app.screen.query("#lobby")):
            await pilot.pause()
        app.screen.show({"name": "t", "rules": "standard", "seats": seats}, 0, "")
        await pilot.pause()
        text = str(app.screen.query_one("#lobby", Static).render())
        rows = [line for line in text.splitlines() if "connected" in line]
        assert len(rows) == 3
        assert {display_width(line[:line.index("connected")]) for line in rows} == {len("  1. ") + 24 + 1}
