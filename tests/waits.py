"""Waiting in Pilot tests on the app's own signals, never on time.

settle: until the bots' workers are done, what is queued (keys typed together) is handled, and the app is idle.
until_my_turn: until the human at the table may play, pressing Enter on notices; an
assertion if that never comes. palette_ready: until the command palette has finished
searching for what was typed. fitted: until a dialog is laid out for the terminal's size.
"""

from __future__ import annotations


async def _drained(node) -> None:
    """Until ``node`` has handled every message queued for it now: a callback queued behind them
    has run (at once if ``node`` is closing: nothing more will be handled there)."""
    import asyncio

    done = asyncio.Event()
    if node.call_later(done.set):
        try:
            await asyncio.wait_for(done.wait(), 120)  # (a bound for a test that would hang, not a wait)
        except TimeoutError:
            raise AssertionError(f"{node!r} never handled what was queued for it") from None


async def settle(pilot) -> None:
    """Until no worker runs (a bot thinking), the app, its screen and the focused widget have
    handled what was queued for them (keys typed together, what the workers posted), no key
    waits for a screen (tui/key_order.py), and the screen on top is mounted. A test's keys
    sent in one go were otherwise now and then still queued on a loaded machine when it looked
    (a play-tester's "n", "Aq" seemed lost; a resumed table was looked at before its mount)."""
    from textual.worker import WorkerCancelled

    app = pilot.app
    for _ in range(200):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # a bot's worker replaced by a newer one (exclusive group): its play is refused as stale
        if app.is_running and app.screen_stack:
            await _drained(app)
            await _drained(app.screen)
            if app.focused is not None:
                await _drained(app.focused)
        await pilot.pause()
        if not app.is_running or not app.screen_stack:
            return
        if not app.workers and not getattr(app, "_held_keys", None) and not getattr(app, "_holding", False) \
                and app.screen.is_mounted:
            return
    raise AssertionError("the app never settled: workers running, keys held, or its screen not mounted")


async def until_my_turn(pilot, screen, steps: int = 200) -> None:
    from ono99_tui.tui.screens.modals import OutScreen, PassScreen, RoundEndScreen

    for _ in range(steps):
        if screen._human_may_play():
            return
        if isinstance(pilot.app.screen, (RoundEndScreen, PassScreen, OutScreen)):
            await pilot.press("enter")
        await settle(pilot)
    raise AssertionError("never the human's turn")


async def palette_ready(pilot) -> None:
    """Until the command palette on top has searched for its input: its search worker is done
    and it shows the result (its "-ready" class)."""
    from textual.command import CommandPalette

    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette), palette
    for _ in range(50):
        await settle(pilot)
        if palette.has_class("-ready"):
            return
    raise AssertionError("the command palette never finished its search")


async def fitted(pilot, dialog=None) -> None:
    """Until the dialog on top (a _Notice, or the menu) has fitted itself to the terminal: its
    ``fitted`` flag, set once it is laid out for the size it has."""
    dialog = dialog or pilot.app.screen
    for _ in range(50):
        await pilot.pause()
        if getattr(dialog, "fitted", True):  # (a screen that fits nothing: nothing to wait for)
            return
    raise AssertionError("the dialog never fitted itself to the terminal")


async def until_resumed(pilot):
    """Until the game an app was started with (``resume_name``) is on screen and mounted: the
    app opens it after its first refresh, which one settle may come before. The screen."""
    from ono99_tui.tui.screens.game import GameScreen

    for _ in range(200):
        await settle(pilot)
        if isinstance(pilot.app.screen, GameScreen) and pilot.app.screen.is_mounted:
            return pilot.app.screen
    raise AssertionError(f"the game was never opened: {pilot.app.screen!r}")


async def load_screen(pilot):
    """The menu's Load opened and its list filled in (by the screen's worker): the screen."""
    from ono99_tui.tui.screens.load import LoadScreen

    pilot.app.menu_choice("load")
    for _ in range(200):
        await settle(pilot)
        if isinstance(pilot.app.screen, LoadScreen) and not pilot.app.workers:
            return pilot.app.screen
    raise AssertionError(f"Load never opened: {pilot.app.screen!r}")
