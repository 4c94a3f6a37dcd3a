"""A Select that keeps to ASCII when the app does (its arrows are not ASCII)."""

from __future__ import annotations

from textual.widgets import Select


class Choice(Select):
    def on_mount(self) -> None:
        if getattr(self.app, "ascii", False):
            for arrow, text in ((".down-arrow", "v"), (".up-arrow", "^")):
                for widget in self.query(arrow):
                    widget.update(text)
