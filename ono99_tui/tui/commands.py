"""Command palette providers of ono99's own."""

from __future__ import annotations

from functools import partial

from textual.theme import ThemeProvider


class ThemeCommands(ThemeProvider):
    """Only ono99's themes (shipped and the user's), each with its description."""

    @property
    def commands(self):
        app = self.app
        themes = getattr(app, "ono99_themes", {}) or {}

        def use(name: str) -> None:
            app.theme = name

        return [(name, partial(use, name)) for name in themes]
