"""Save as: a name for this game, checked as it is typed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from ..widgets.ordered_input import OrderedInput
from textual.widgets import Button, Footer, Input, Static

from ...store.saves import SaveError, check_name


class NameScreen(ModalScreen[str | None]):
    """Ask for a save name; Enter accepts a valid one, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, current: str = "", button: str = "Save"):
        super().__init__()
        self.title_text, self.current, self.button = title, current, button

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = self.title_text
            yield OrderedInput(self.current, placeholder="a name: letters, digits, spaces, - and _", id="save-name")
            yield Static("", id="name-error")
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
        if problem:
            self.query_one("#name-error", Static).update(problem)
            return
        self._answer(check_name(value))

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
    def __init__(self, current: str = ""):
        super().__init__("Save as", current)
