"""A Footer that rebuilds its keys only when the keys on offer change.

Textual's Footer re-composes on every focus change. On the table, focus moves
between cards all game long, which rebuilt the footer per play, and the old
FooterKey widgets stayed referenced (memory grew every round).

A key's label that follows the play (Enter's "Play 3": the outlined card) is
changed in place with ``relabel``, never by a rebuild. (Dimming Play during others' turns was tried:
restyling the key at every turn cost 0.4x of the bare app per play in benchmarks/table_screen.py.)
"""

from __future__ import annotations

from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # private: tests/test_keys_in_order.py fails if it moves


class StableFooter(Footer):
    _offered: tuple | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._labels: dict[str, str] = {}  # action -> the label shown instead of the binding's

    def bindings_changed(self, screen) -> None:
        # only the keys it shows: a focus change that brings hidden keys (a scrollable's) is no rebuild
        offered = tuple((key, b.binding.action, b.binding.description, b.enabled)
                        for key, b in screen.active_bindings.items() if b.binding.show)
        if offered == self._offered and self._bindings_ready:
            return
        if not screen.app.app_focus:
            # Footer leaves the rebuild until the app has the focus again (its window in the
            # background, a browser tab not yet focused): nothing is noted as shown, so the keys
            # offered when the focus is back are built, even if they are the ones offered now
            self._bindings_ready = True
            self._offered = None
            return
        self._offered = offered
        super().bindings_changed(screen)

    def compose(self):
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.action in self._labels:
                widget.description = self._labels[widget.action]
            yield widget

    def relabel(self, action: str, label: str) -> None:
        """Show ``label`` for the key bound to ``action``, now and after any rebuild."""
        if self._labels.get(action) == label:
            return
        self._labels[action] = label
        for key in self.query(FooterKey):
            if key.action == action and key.description != label:
                key.description = label
                key.refresh(layout=True)  # "Play 10" is wider than "Play 9"
