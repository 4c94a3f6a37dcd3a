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


class StatsScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        players, problem = load_stats()
        with VerticalScroll(id="stats") as box:
            box.border_title = "Statistics"
            # stats_lines and the problem already show control characters visibly; no markup
            text = "\n".join(stats_lines(players)) + (f"\n\n{problem}" if problem else "")
            yield Static(Content(visible(text, keep_newlines=True)))
        yield Footer(show_command_palette=not self.app.ascii)
