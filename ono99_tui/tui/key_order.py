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
from textual.binding import Binding

READY_PASSES = 20  # idle passes a screen may take to resume before its keys are handled anyway


class KeysInOrder:
    """A mixin for the App: keys wait for a new screen to be ready (see the module's docstring)."""

    KEY_BINDINGS = [Binding("tab", "focus_next", "Focus next", show=False, priority=True),
                    Binding("shift+tab", "focus_previous", "Focus previous", show=False, priority=True)]

    _held_keys: list[events.Key] | None = None
    _held_passes = 0

    def _screen_ready(self) -> bool:
        screen = self.screen
        return screen.focused is not None or getattr(screen, "stack_updates", 1) > 0

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if self._held_keys or not self._screen_ready():
                if self._held_keys is None:
                    self._held_keys = []
                self._held_keys.append(event)
                if len(self._held_keys) == 1:
                    self._held_passes = 0
                    self.call_after_refresh(self._handle_held_keys)
                return
        await super().on_event(event)

    async def _handle_held_keys(self) -> None:
        while self._held_keys:
            if not self._screen_ready() and self._held_passes < READY_PASSES:
                self._held_passes += 1
                self.call_after_refresh(self._handle_held_keys)
                return
            self._held_passes = 0
            await super().on_event(self._held_keys.pop(0))
