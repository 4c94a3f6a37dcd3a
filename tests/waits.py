"""Waiting in Pilot tests on the app's own signals, never on time.

settle: until the bots' workers are done and the app is idle (what they did is drawn).
until_my_turn: until the human at the table may play, pressing Enter on notices; an
assertion if that never comes. palette_ready: until the command palette has finished
searching for what was typed. fitted: until a dialog is laid out for the terminal's size.
"""

from __future__ import annotations


async def settle(pilot) -> None:
    """Until no worker runs (a bot thinking) and the app has handled what they posted."""
    from textual.worker import WorkerCancelled

    for _ in range(50):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # a bot's worker replaced by a newer one (exclusive group): its play is refused as stale
        await pilot.pause()
        if not pilot.app.workers:
            return
    raise AssertionError("the workers never finished")


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
