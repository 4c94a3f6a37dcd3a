"""Statistics per player name."""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...store.stats import load_stats, stats_lines


class StatsScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        players, problem = load_stats()
        with VerticalScroll(id="stats") as box:
            box.border_title = "Statistics"
            yield Static(escape("\n".join(stats_lines(players))) + (f"\n\n{escape(problem)}" if problem else ""))
        yield Footer(show_command_palette=not self.app.ascii)
