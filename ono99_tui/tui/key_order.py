"""Keys typed together reach the screen they were typed at, even when one of them opens another.

A paste, SSH or a fast typist brings several keys in one read, and Textual queues them all at
once. A key that opens a screen (Ctrl+S, ?, n on the menu) opens it as the app reads it when its
binding is a priority one; but the keys read with it then met a screen whose focus was not set
yet (Textual sets it when the screen first resumes), and were lost or went on to the app. Before
this, on a play-tester's terminal, Ctrl+S then "save1" opened Save as and played card 1 under
it; on the menu, "n" then "Aq" opened New game and quit.

Here a key that arrives while the screen on top has not yet resumed for the first time (nothing
focused, ``stack_updates`` still 0) waits, with every key after it, and they are handled in
order once that screen is ready: they act there, as they would have had they been typed a
moment later. Tab and Shift+Tab move the focus as they are read (priority bindings), so the
letters after a Tab go to the field it moved to, not the one it left.
"""

from __future__ import annotations

from textual import events
from textual.actions import SkipAction
from textual.binding import Binding
from textual.command import CommandPalette

READY_PASSES = 20  # idle passes a screen may take to resume before its keys are handled anyway


class KeysInOrder:
    """A mixin for the App: keys wait for a new screen to be ready (see the module's docstring)."""

    KEY_BINDINGS = [Binding("tab", "focus_next", "Focus next", show=False, priority=True),
                    Binding("shift+tab", "focus_previous", "Focus previous", show=False, priority=True),
                    Binding("enter", "palette_enter", show=False, priority=True)]

    _held_keys: list[events.Key] | None = None
    _held_passes = 0
    _holding = False  # a command chosen in the palette has not run yet: every key waits for it

    def action_palette_enter(self) -> None:
        """Enter in the command palette (Ctrl+P), as it is read. The palette runs its command after
        it closes, by a message; the keys typed with the Enter went on to the palette meanwhile:
        "Enter x2 Enter" at Save as lost "x2", and the second Enter closed the palette a second
        time, which closed the table under it. Now they wait until the command has run, and go to
        what it opened."""
        palette = self.screen
        if not isinstance(palette, CommandPalette):
            raise SkipAction()
        self._holding = True
        self._held_passes = 0
        palette._select_or_command()  # (Textual's own Enter; tests/test_keys_in_order.py fails if it moves)
        self.call_after_refresh(self._palette_done, palette)

    def _palette_done(self, palette) -> None:
        if palette in self.screen_stack and self._held_passes < READY_PASSES:  # (still choosing)
            self._held_passes += 1
            self.call_after_refresh(self._palette_done, palette)
            return
        self._holding = False  # (closed: its command was called after the close, before this)
        self._held_passes = 0
        if self._held_keys:
            self.call_after_refresh(self._handle_held_keys)

    def _screen_ready(self) -> bool:
        screen = self.screen
        return screen.focused is not None or getattr(screen, "stack_updates", 1) > 0

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._holding or self._held_keys or not self._screen_ready():
                if self._held_keys is None:
                    self._held_keys = []
                self._held_keys.append(event)
                if len(self._held_keys) == 1 and not self._holding:
                    self._held_passes = 0
                    self.call_after_refresh(self._handle_held_keys)
                return
        await super().on_event(event)

    async def _handle_held_keys(self) -> None:
        while self._held_keys and not self._holding:
            if not self._screen_ready() and self._held_passes < READY_PASSES:
                self._held_passes += 1
                self.call_after_refresh(self._handle_held_keys)
                return
            self._held_passes = 0
            await super().on_event(self._held_keys.pop(0))
