"""TERM=dumb: a play-tester's game hung at 100% CPU from the start, the menu drawn without its
footer, and no key did anything (q did not quit; SIGTERM did not stop it). Rich says 80x25 for a
terminal called dumb or unknown without measuring it, and Textual took the app's first size from
Rich, then the driver's measured 80x24: the menu screen laid itself out at each in turn for ever
(each layout that changed its size posted it another Resize, and its on_resize's
call_after_refresh kept Textual from merging the two). The app now gives Rich the measured size
(Ono99App._measure_a_dumb_terminal), and a screen is laid out at the app's latest size whatever
a queued Resize says (tui/textual_fixes.py), so no two sizes can answer each other again.

Waits are on what the screen shows, never on time (the deadline only ends a test that would
otherwise hang)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from textual import events
from textual.geometry import Size

from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.menu import MenuScreen

from .test_net_e2e import Term

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("term", ["dumb", "unknown"])
def test_on_a_dumb_terminal_the_menu_comes_up_whole_and_q_quits(tmp_path, term):
    async def play() -> tuple[str, int]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES")}
        env.update(TERM=term, PYTHONPATH=str(ROOT), ONO99_DATA_DIR=str(tmp_path / "data"),
                   ONO99_CONFIG_DIR=str(tmp_path / "config"))
        t = Term("You", [sys.executable, "-m", "ono99_tui"], env)
        try:
            deadline = time.monotonic() + 60
            # the whole menu, its footer on the last of the 24 rows (the hung game had none)
            shown = await t.wait(lambda s: "New game..." in s and "q Quit" in s.splitlines()[-1],
                                 "the menu with its footer", deadline)
            t.press("q")
            await t.wait(lambda s: t.eof, "the game ending after q", deadline)
            return shown, await asyncio.to_thread(t.proc.wait, max(0.1, deadline - time.monotonic()))
        finally:
            t.kill()

    shown, status = asyncio.run(play())
    assert "+--" in shown and "╭" not in shown, shown  # ASCII on a dumb terminal (README)
    assert status == 0


def test_a_dumb_terminal_s_first_size_is_the_one_measured(private_dirs, monkeypatch):
    """Rich would say 80x25 (it never measures TERM=dumb); the driver measures with
    shutil.get_terminal_size, which says 120x40 here."""
    monkeypatch.setenv("TERM", "dumb")
    for name in ("COLUMNS", "LINES"):  # (Rich would take these as they are)
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a, **k: os.terminal_size((120, 40)))
    assert Ono99App().size == Size(120, 40)


async def test_two_sizes_queued_for_the_menu_settle_on_the_latest(private_dirs, monkeypatch):
    """A stale Resize (80x25) and the real one (80x24) queued for the menu with a message between
    them, as TERM=dumb's start left them: once laid out at the terminal's size the screen stays
    so. Before, each posted itself another Resize of its own size and the menu's on_resize a
    call_after_refresh after it, and the two were handled in turn for ever (counted here, and
    let stop after 100, so that the old code fails instead of hanging)."""
    handled = []
    fit = MenuScreen.on_resize

    def on_resize(self) -> None:
        handled.append(self.size)
        if len(handled) < 100:
            fit(self)

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MenuScreen) and screen.size == Size(80, 24)
        monkeypatch.setattr(MenuScreen, "on_resize", on_resize)
        screen.post_message(events.Resize(Size(80, 25), Size(80, 25)))
        screen.call_later(lambda: None)  # (any message between the two keeps Textual from merging them)
        screen.post_message(events.Resize(Size(80, 24), Size(80, 24)))
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        assert len(handled) <= 4, f"{len(handled)} resizes handled: {handled[:6]}"
        assert screen.size == app.size == Size(80, 24)
        await pilot.press("q")  # and keys still count
    assert app.return_code in (0, None)
