"""The main menu."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

MENU = (
    ("new", "New game: you against three medium bots"),
    ("new-easy", "New game: you against three easy bots"),
    ("new-hard", "New game: you against three hard bots"),
    ("hotseat", "New game: two players at this keyboard"),
    ("help", "Help and rules"),
    ("quit", "Quit"),
)


class MenuScreen(Screen):
    BINDINGS = [Binding("n", "choose('new')", "New game"), Binding("question_mark", "choose('help')", "Help"),
                Binding("q", "choose('quit')", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        with Center(), Vertical(id="menu-box"):
            yield Static("[b]O'NO 99[/b]\nkeep the total under 99", id="logo")
            yield OptionList(*(Option(label, id=key) for key, label in MENU), id="menu")
        yield Footer(show_command_palette=not self.app.ascii)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(event.option.id)

    def action_choose(self, key: str) -> None:
        self.app.menu_choice(key)
