"""Load: every save with its players, rules, round, scores and when it was last played.

Damaged saves are listed with the reason; they can be deleted, never opened.
"""

from __future__ import annotations

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from ...store.saves import SaveError, SaveInfo, SaveStore
from .modals import _Notice
from .save_as import NameScreen


def describe(info: SaveInfo) -> str:
    if info.damaged:
        return f"[b]{escape(info.name)}[/b]  DAMAGED\n  {escape(info.damaged)}"
    state = "finished" if info.finished else f"round {info.round}"
    undo = ", undo used" if info.undo_used else ""
    return (f"[b]{escape(info.name)}[/b]  {info.when}  {state}{undo}\n"
            f"  {escape(info.players)}; rules: {escape(info.rules)}\n  {escape(info.scores)}")


class LoadScreen(Screen):
    BINDINGS = [
        Binding("enter", "open", "Open", show=True),
        Binding("d", "delete", "Delete"),
        Binding("r", "rename", "Rename"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self, store: SaveStore | None = None):
        super().__init__()
        self.store = store or SaveStore()
        self.infos: list[SaveInfo] = []

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        yield OptionList(id="saves")
        yield Static("", id="load-note")
        yield Footer(show_command_palette=not self.app.ascii)

    def on_mount(self) -> None:
        self.query_one("#saves").border_title = "Saved games"
        self.reload()

    def reload(self) -> None:
        self.infos = self.store.listing()
        saves = self.query_one("#saves", OptionList)
        saves.clear_options()
        saves.add_options(Option(describe(i), id=i.name) for i in self.infos)
        self.query_one("#load-note", Static).update(
            (f"Enter open, d delete, r rename. Folder: {self.store.folder}" if self.infos
             else f"No saved games yet: games are saved after every play, in {self.store.folder}"))
        if self.infos:
            saves.highlighted = 0
        saves.focus()

    def _current(self) -> SaveInfo | None:
        index = self.query_one("#saves", OptionList).highlighted
        return self.infos[index] if index is not None and index < len(self.infos) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        info = self._current()
        if info is None:
            return
        if info.damaged:
            self.query_one("#load-note", Static).update(
                f"[b]{escape(info.name)} cannot be opened:[/b] {escape(info.damaged)}. Press d to delete it.")
            self.app.bell()
            return
        self.app.resume(info.name)

    def action_delete(self) -> None:
        info = self._current()
        if info is None:
            return

        def done(choice: str | None) -> None:
            if choice != "delete":
                return
            try:
                self.store.delete(info.name)
            except SaveError as exc:
                self.notify(str(exc), severity="error")
            self.reload()

        self.app.push_screen(_Notice(f"Delete {info.name}?", "The save is removed from disk. This cannot be undone.",
                                     (("keep", "Keep it"), ("delete", "Delete"))), done)

    def action_rename(self) -> None:
        info = self._current()
        if info is None:
            return

        def done(name: str | None) -> None:
            if not name or name == info.name:
                return
            try:
                self.store.rename(info.name, name)
            except SaveError as exc:
                self.notify(str(exc), severity="error")
            self.reload()

        self.app.push_screen(NameScreen(f"Rename {info.name}", info.name, "Rename"), done)
