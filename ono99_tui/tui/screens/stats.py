"""Statistics per player name."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...store.stats import load_stats, stats_lines
from ...text import visible


class StatsTable(Static):
    """The statistics, laid out for the width the screen gives them (stats_lines): at 80 columns a
    row with a long or wide name and "medium 1000/1000" was wider than the box, and its bot levels
    wrapped onto a line of their own, their counts under the names."""

    def __init__(self, players: dict, problem: str | None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.players, self.problem = players, problem
        self._laid_out_for: int | None = None

    def on_resize(self, event) -> None:
        self.lay_out(event.size.width)

    def lay_out(self, width: int) -> None:
        if width < 1 or width == self._laid_out_for:
            return
        self._laid_out_for = width
        # stats_lines and the problem already show control characters visibly; no markup
        text = "\n".join(stats_lines(self.players, width)) + (f"\n\n{self.problem}" if self.problem else "")
        self.update(Content(visible(text, keep_newlines=True)))


class StatsScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        players, problem = load_stats()
        with VerticalScroll(id="stats") as box:
            box.border_title = "Statistics"
            yield StatsTable(players, problem)
        yield Footer(show_command_palette=not self.app.ascii)
