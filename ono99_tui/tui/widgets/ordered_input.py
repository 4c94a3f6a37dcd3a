"""An Input whose own editing keys act in the order they were typed.

Textual's Input inserts a printable key in its own key handler, but its editing keys
(Backspace, Delete, arrows, Home, End, Enter...) are bindings, which the app checks only
once the key has bubbled up to it. When several keys come in one read (a paste, SSH, a fast
typist), the letters after a Backspace were inserted before the Backspace acted: "Ben" with
Backspace then "x" stayed "Ben"... (a play-tester's find). Here every key the Input binds is
acted on in its key handler, in order with the letters; nothing else changes.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.widgets import Input


def _key_actions(bindings) -> dict[str, str]:
    actions: dict[str, str] = {}
    for b in bindings:
        keys, action = (b.key, b.action) if isinstance(b, Binding) else (b[0], b[1])
        for key in keys.split(","):
            actions.setdefault(key.strip(), action)
    return actions


class OrderedInput(Input):
    _ACTIONS = _key_actions(Input.BINDINGS)

    async def _on_key(self, event: events.Key) -> None:
        action = self._ACTIONS.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()  # (it goes no further: the app does not run the binding a second time)
        event.prevent_default()
        await self.run_action(action)
