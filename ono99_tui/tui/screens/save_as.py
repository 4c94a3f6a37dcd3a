"""Save as: a name for this game, checked as it is typed."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from ..widgets.ordered_input import OrderedInput
from textual.widgets import Button, Footer, Input, Static

from ...store.saves import SaveError, check_name


class NameScreen(ModalScreen[str | None]):
    """Ask for a save name; Enter accepts a valid one, Escape cancels.

    ``act``, when given, does what the name is for (save, rename...) and returns why it could not
    (a name already taken, a shipped preset's), shown in the dialog, which stays open for another
    name: a refusal must not close it and send the next keys to the screen behind."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, current: str = "", button: str = "Save",
                 act: Callable[[str], str | None] | None = None):
        super().__init__()
        self.title_text, self.current, self.button, self.act = title, current, button, act

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = Text(self.title_text)  # (a name is text: "[red]x" is no markup)
            yield OrderedInput(self.current, placeholder="a name: letters, digits, spaces, - and _", id="save-name")
            yield Static("", id="name-error", markup=False)  # (it quotes what was typed: "[/" crashed it)
            yield Button(self.button, id="ok", variant="primary")
        yield Footer(show_command_palette=False)  # only this dialog's keys, not the table's

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#name-error", Static).update(self._problem(event.value) or "")

    @staticmethod
    def _problem(text: str) -> str | None:
        try:
            check_name(text)
        except SaveError as exc:
            return str(exc)
        return None

    def _accept(self) -> None:
        value = self.query_one(Input).value
        problem = self._problem(value)
        name = None if problem else check_name(value)
        if name is not None and self.act is not None and not self._answered:
            problem = self.act(name)
        if problem:
            self.query_one("#name-error", Static).update(problem)
            return
        self._answer(name)

    _answered = False

    def _answer(self, choice: str | None) -> None:
        """Once: a second Enter bunched with the first would dismiss it again (as _Notice._answer)."""
        if not self._answered:
            self._answered = True
            self.dismiss(choice)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._accept()

    def action_cancel(self) -> None:
        self._answer(None)


class SaveAsScreen(NameScreen):
    def __init__(self, current: str = "", act: Callable[[str], str | None] | None = None):
        super().__init__("Save as", current, act=act)
