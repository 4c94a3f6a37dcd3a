"""SVG snapshots of every screen at 80x24 (pytest-textual-snapshot).

Refresh after a deliberate change: python -m pytest tests/test_tui_snapshots.py --snapshot-update
"""

import pytest

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import load_rules_text
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.modals import GameOverScreen, OutScreen, PassScreen, RoundEndScreen
from ono99_tui.tui.setup import TableSetup
from ono99_tui.tui.widgets.card import CardWidget
from tests.waits import settle

SIZE = (80, 24)


def app(**kw):
    return Ono99App(bot_delay=600, seed=7, **kw)  # bots wait: the picture cannot change under us


def test_menu(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE)


def _steady_cursor(pilot):
    """A focused Input's cursor blinks: held steady, the picture is the same every run."""
    from textual.widgets import Input

    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False


def test_new_game(snap_compare):
    async def go(pilot):
        await pilot.press("n")
        await pilot.pause()
        _steady_cursor(pilot)
        await pilot.pause()
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


def test_table(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, press=["g"])


def test_table_ascii(snap_compare):
    assert snap_compare(app(ascii=True), terminal_size=SIZE, press=["g"])


def test_table_no_color(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app(), terminal_size=SIZE, press=["g"])


@pytest.mark.parametrize("theme", ["ono99-light", "ono99-high-contrast", "ono99-ansi"])
def test_table_themes(snap_compare, theme):
    assert snap_compare(app(theme=theme), terminal_size=SIZE, press=["g"])


def test_help(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, press=["g", "question_mark"])


def test_house_rules(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, run_before=lambda pilot: pilot.app.menu_choice("rules"))


def test_settings(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, run_before=lambda pilot: pilot.app.menu_choice("settings"))


def test_too_small(snap_compare):
    assert snap_compare(app(), terminal_size=(60, 20), press=["g"])


async def _play_until(pilot, kinds):
    """Play the first playable card whenever it is a human's turn until one of ``kinds`` shows."""
    for _ in range(2000):
        screen = pilot.app.screen
        if isinstance(screen, kinds):
            return
        if isinstance(screen, (RoundEndScreen, PassScreen, OutScreen)):
            await pilot.press("enter")
        elif hasattr(screen, "_human_may_play") and screen._human_may_play():
            playable = [c.index for c in screen.query(CardWidget) if c.reason is None]
            await pilot.press(str(playable[0]))
        else:
            await settle(pilot)
    raise AssertionError(f"never reached {kinds}")


def _two_player(rules_text="", humans=1):
    rules = load_rules_text(rules_text)
    seats = [SeatSpec("Ana"), SeatSpec("Bo", "bot:easy" if humans == 1 else "human")]
    return TableSetup(seats, rules, "test", seed=21)


def test_round_end(snap_compare):
    async def go(pilot):
        pilot.app.bot_delay = 0
        pilot.app.start_game(_two_player())
        await _play_until(pilot, (RoundEndScreen,))
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


def test_round_end_points_breakdown(snap_compare):
    async def go(pilot):
        pilot.app.bot_delay = 0
        pilot.app.start_game(_two_player("[scoring]\nmode = 'points'\n"))
        await _play_until(pilot, (RoundEndScreen,))
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


def test_game_over(snap_compare):
    async def go(pilot):
        pilot.app.bot_delay = 0
        pilot.app.start_game(_two_player("[scoring]\ntokens = 1\nextra_life = false\n"))
        await _play_until(pilot, (GameOverScreen,))
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


def test_pass_the_keyboard(snap_compare):
    async def go(pilot):
        pilot.app.start_game(_two_player(humans=2))
        await _play_until(pilot, (PassScreen,))
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


@pytest.fixture
def fixed_data_dir(monkeypatch, tmp_path):
    """Saves in a folder of this test's own that the Load screen shows as the same path every
    run (``~/ono99-snapshot-data``: HOME is the test's folder), at fixed times in UTC."""
    import os
    import time

    from tests.test_saves import save

    from ono99_tui.store.saves import SaveStore

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "ono99-snapshot-data"))
    store = SaveStore()
    save(store, "friday", plays=30)
    store.path("broken").write_text("not a save")
    for i, name in enumerate(("friday", "broken")):
        os.utime(store.path(name), (1_790_000_000 - i * 60, 1_790_000_000 - i * 60))
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()  # TZ back as it was, and the C library told so: no later test runs in UTC
    time.tzset()


def test_load(snap_compare, fixed_data_dir):

    async def open_load(pilot):
        pilot.app.menu_choice("load")
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()  # the list fills in from a worker
        await pilot.pause()

    assert snap_compare(app(), terminal_size=SIZE, run_before=open_load)


def test_statistics(snap_compare, fixed_data_dir):
    assert snap_compare(app(), terminal_size=SIZE, run_before=lambda pilot: pilot.app.menu_choice("stats"))


def test_table_120x40(snap_compare):
    """A big terminal gives the room to the cards, the table and the scoreboard (issue 12)."""
    assert snap_compare(app(), terminal_size=(120, 40), press=["g"])
