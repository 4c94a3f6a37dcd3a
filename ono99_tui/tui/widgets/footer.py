"""A Footer that rebuilds its keys only when the keys on offer change.

Textual's Footer re-composes on every focus change. On the table, focus moves
between cards all game long, which rebuilt the footer per play, and the old
FooterKey widgets stayed referenced (memory grew every round).
"""

from __future__ import annotations

from textual.widgets import Footer


class StableFooter(Footer):
    _offered: tuple | None = None

    def bindings_changed(self, screen) -> None:
        # only the keys it shows: a focus change that brings hidden keys (a scrollable's) is no rebuild
        offered = tuple((key, b.binding.action, b.binding.description, b.enabled)
                        for key, b in screen.active_bindings.items() if b.binding.show)
        if offered == self._offered and self._bindings_ready:
            return
        self._offered = offered
        super().bindings_changed(screen)
