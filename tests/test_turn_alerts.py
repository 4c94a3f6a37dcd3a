"""Turn alerts: at a network table the bell rings as the player's turn comes (once, not on every
update, never on someone else's turn), with a desktop-notification escape only for terminals
known to show one; never at a local table; the Settings toggle turns it off."""

import asyncio
import dataclasses
import random

from ono99_tui.net.client import Client
from ono99_tui.net.lobby import JoinPlan
from ono99_tui.tui.join import JoinApp
from ono99_tui.net.server import ServerConfig
from ono99_tui.store.settings import Settings, parse_settings
from ono99_tui.tui import alerts
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.widgets.hand import HandPane

from .netplay import HOST, play_randomly
from .test_net_join import SHORT, until


async def _play_some_turns(alert_on: bool, turns: int = 6):
    """Ann (the app) and Bob (a protocol client) play; returns (rings, [(ring count, Ann's turn?)
    after every update the table screen got])."""
    config = ServerConfig(host=HOST, port=0, seed=11, turn_timer=60, bot_delay=0, rate=1e9, burst=10**9)
    plan = JoinPlan(HOST, 0, "Ann", create={"rules": SHORT, "seats": 2}, serve=config)
    app = JoinApp(plan, settings=dataclasses.replace(Settings(), turn_alert=alert_on, confirm_bust=False))
    rings, seen = [], []
    app.bell = lambda: rings.append(app.remote.current if app.remote else None)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.table_id is not None and app._table is not None, "seated")
        bob = await Client.connect(HOST, plan.port, "Bob")
        seat = (await bob.request({"type": "sit", "table": app.table_id}))["seat"]
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the table screen")
        screen, remote = app.screen, app.remote
        remote.subscribe(lambda u: seen.append((len(rings), remote.current == app.seat)), app.seat)
        bob_plays = asyncio.get_running_loop().create_task(play_randomly(bob, random.Random(3), seat))
        session = app.server.tables[app.table_id].session
        played = 0
        while played < turns and not session.over:
            await until(pilot, lambda: session.over or app.screen is not screen or (
                session.current == app.seat and not screen.busy and remote.seq == session.seq), "Ann's turn")
            if app.screen is not screen:
                await pilot.press("enter")
                continue
            if session.over:
                break
            legal = session.game.legal_plays()
            cards = screen.query_one(HandPane).cards
            index = next(i for i, c in enumerate(cards, 1) if c.card in legal)
            before = session.seq
            await pilot.press(str(index))
            await until(pilot, lambda: session.seq > before, "the play arrives")
            played += 1
        bob_plays.cancel()
        await bob.aclose()
    return rings, seen


async def test_the_bell_rings_once_as_each_turn_comes_and_never_on_anyone_elses():
    rings, seen = await _play_some_turns(True)
    assert len(rings) >= 3
    assert all(current == 0 for current in rings)  # (Ann sits first) only ever on her own turn
    # after every update: one more ring exactly when the turn has just come to Ann
    was_mine, count = None, seen[0][0] if seen else 0
    for rang, mine in seen:
        expected = count + (1 if mine and was_mine is False else 0)
        assert rang == expected, seen
        count, was_mine = rang, mine


async def test_the_turn_alert_setting_off_rings_nothing():
    rings, _ = await _play_some_turns(False, turns=3)
    assert rings == []


async def test_a_local_table_never_sends_a_turn_alert(monkeypatch, tmp_path):
    """A whole local game against bots, played by keys: not one turn alert (they are for network
    tables, where the other players are elsewhere)."""
    from ono99_tui.tui.app import Ono99App

    from .test_tui_play import SHORT, play_to_the_end

    sent = []
    monkeypatch.setattr(alerts, "turn_alert", lambda *a, **k: sent.append(a))
    rules = tmp_path / "short.toml"
    rules.write_text(SHORT)
    app = Ono99App(rules_spec=str(rules), bot_delay=0, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        game = await play_to_the_end(pilot, app)
        assert game.over and any(s == 0 for s, _ in game.plays)
    assert sent == [] and app.settings.turn_alert  # on, yet silent at a local table


def test_the_notification_escape_only_for_terminals_known_to_show_it():
    assert alerts.notify_kind({"TERM": "xterm-256color"}) is None
    assert alerts.notify_kind({"TERM": "linux"}) is None
    assert alerts.notify_kind({"TERM_PROGRAM": "iTerm.app"}) == alerts.OSC9
    assert alerts.notify_kind({"TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/tmux-0/default,1,0"}) is None
    assert alerts.notify_kind({"TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"}) is None
    assert alerts.notify_kind({"ONO99_NOTIFY": "osc777"}) == alerts.OSC777
    assert alerts.notify_kind({"ONO99_NOTIFY": "off", "TERM_PROGRAM": "iTerm.app"}) is None
    # a name can never end the escape early or add a control byte
    escape = alerts.notification(alerts.OSC777, "ono99", "A;b\x1b]0;x\x07\x9c it is your turn")
    assert escape.startswith("\x1b]777;notify;ono99;") and escape.endswith("\x1b\\")
    body = escape[len("\x1b]777;notify;ono99;"):-2]
    assert ";" not in body and all(c.isprintable() for c in body)
    assert alerts.notification(None, "t", "b") == ""


async def test_the_escape_goes_through_the_driver_the_bell_uses(monkeypatch):
    """turn_alert writes through App._driver, a private Textual attribute (as App.bell does):
    this fails if Textual moves it."""
    from textual.app import App

    written = []
    app = App()
    async with app.run_test() as pilot:
        driver = app._driver
        assert driver is not None and callable(driver.write)
        monkeypatch.setattr(type(app), "is_headless", property(lambda self: False))
        monkeypatch.setattr(driver, "write", written.append)
        alerts.turn_alert(app, "ono99", "your turn", env={"TERM_PROGRAM": "iTerm.app"})
        await pilot.pause()
    assert written[0] == "\x07" and written[1].startswith("\x1b]9;ono99: your turn")


def test_turn_alert_is_a_setting_read_from_the_file():
    settings, problems = parse_settings("turn_alert = false\n", "config.toml")
    assert settings.turn_alert is False and problems == []
    settings, problems = parse_settings('turn_alert = "loud"\n', "config.toml")
    assert settings.turn_alert is True and "turn_alert: must be true or false" in problems[0]
    assert problems[0].endswith("; using true")  # the default as the file spells it, not Python's True
