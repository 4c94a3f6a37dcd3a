"""Settings: theme (live), ASCII, bot delay, your name, default rules, undo, bust confirmation, turn alerts. Saved to config.toml."""

from __future__ import annotations

import dataclasses

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from ..messages import SettingsSaved
from ..widgets.choice import Choice
from ..widgets.ordered_input import OrderedInput
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from textual.content import Content

from ...engine.game import MAX_NAME
from ...engine.rules import RulesError
from ...store.rule_presets import all_presets, resolve as resolve_rules
from ...text import visible
from ...store.settings import HELP, Settings, _check, save_settings


# The config file's help says "true/false"; beside a Yes/No choice the words are Yes and No.
SCREEN_HELP = {
    **HELP,
    "ascii": "Yes: ASCII characters only. No: Unicode where the terminal can draw it "
             "(the Linux console, vt100 and dumb terminals get ASCII anyway)",
    "undo": "Yes: you may take back a play when every other seat is a bot",
    "confirm_bust": "Yes: a card that would lose the round needs a second press while a safe card exists",
    "turn_alert": "Yes: at a network table (ono99 join), the bell when your turn comes, and a desktop "
                  "notification where the terminal shows one. Never at a local table",
}


def _yes_no(value: bool, id: str) -> Select:
    return Choice([("Yes", True), ("No", False)], value=value, allow_blank=False, compact=True, id=id)


class SettingsScreen(Screen):
    BINDINGS = [Binding("ctrl+s", "save", "Save", priority=True), Binding("escape", "cancel", "Back")]

    def __init__(self, settings: Settings):
        super().__init__()
        self.start = settings

    def compose(self) -> ComposeResult:
        s = self.start
        themes = list(getattr(self.app, "ono99_themes", {})) or [s.theme]
        presets = [p.name for p in all_presets()]
        yield Header(icon=self.app.glyphs.icon)
        with VerticalScroll(id="settings", classes="form", can_focus=False) as box:  # focus goes to the fields
            box.border_title = "Settings"
            rows = (
                ("Theme", Choice([(Text(visible(t)), t) for t in themes], value=s.theme if s.theme in themes else themes[0],
                                 allow_blank=False, compact=True, id="theme")),
                ("ASCII only", _yes_no(s.ascii, "ascii")),
                ("Bot delay (s)", OrderedInput(str(s.bot_delay), compact=True, id="bot_delay", type="number")),
                ("Your name", OrderedInput(s.player_name, max_length=MAX_NAME, compact=True, id="player_name")),
                ("Rules", Choice([(Text(visible(p)), p) for p in presets]
                                 + ([(Text(visible(s.rules)), s.rules)] if s.rules not in presets else []),
                                 value=s.rules, allow_blank=False, compact=True, id="rules")),
                ("Undo allowed", _yes_no(s.undo, "undo")),
                ("Confirm bust", _yes_no(s.confirm_bust, "confirm_bust")),
                ("Turn alert", _yes_no(s.turn_alert, "turn_alert")),
            )
            for label, widget in rows:
                with Horizontal(classes="form-row"):
                    yield Label(label, classes="form-label")
                    yield widget
                yield Static(SCREEN_HELP[widget.id], classes="form-help")
            yield Static("ASCII takes effect the next time ono99 starts; the theme changes now.", classes="form-note")
            yield Static("", id="form-error")
            yield Button("Save (Ctrl+S)", id="save", variant="primary", compact=True)
        yield Footer(show_command_palette=not self.app.ascii)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "theme" and event.value in getattr(self.app, "ono99_themes", {}):
            try:
                self.app.theme = str(event.value)
            except Exception as exc:  # noqa: BLE001 - a theme file the checks missed: name it, keep the old one
                self.notify(f"Theme {event.value} cannot be used: {exc}", severity="error")
                self.query_one("#theme", Select).value = self.app.theme

    def read(self) -> Settings:
        values = {
            "theme": str(self.query_one("#theme", Select).value),
            "ascii": self.query_one("#ascii", Select).value is True,
            "player_name": self.query_one("#player_name", Input).value,
            "rules": str(self.query_one("#rules", Select).value),
            "undo": self.query_one("#undo", Select).value is True,
            "confirm_bust": self.query_one("#confirm_bust", Select).value is True,
            "turn_alert": self.query_one("#turn_alert", Select).value is True,
        }
        raw = self.query_one("#bot_delay", Input).value.strip()
        try:
            values["bot_delay"] = float(raw)
        except ValueError:
            raise ValueError(f"bot_delay: must be a number of seconds from 0 to 5, got {raw!r}") from None
        for key, value in values.items():
            try:
                values[key] = _check(key, value)  # normalised: the name stripped (issue 15 item 2)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
        try:  # (a preset that cannot be read was saved, then warned about, and standard played)
            resolve_rules(values["rules"])
        except (RulesError, OSError, ValueError) as exc:
            raise ValueError(f"rules: {exc}; choose other rules, or mend the preset in House rules") from None
        return dataclasses.replace(self.start, **values)

    def action_save(self) -> None:
        try:
            settings = self.read()
        except ValueError as exc:
            self._error(Content.from_markup("[b]Not saved:[/b] $why", why=visible(exc)))
            return
        try:
            # only what was changed here: a line edited by hand since the app started is kept
            path = save_settings(settings, changed={f.name for f in dataclasses.fields(settings)
                                                     if getattr(settings, f.name) != getattr(self.start, f.name)})
        except OSError as exc:
            from ...store.atomic import why_not_written
            from ...store.paths import settings_file

            self._error(Content.from_markup("[b]Not saved:[/b] $why",
                                            why=visible(why_not_written(settings_file(), exc))))
            return
        self.app.post_message(SettingsSaved(settings))
        self.notify(f"Settings saved to {path}", timeout=5)
        self.app.pop_screen()

    def _error(self, text: Content) -> None:
        """Why it was not saved, in sight: at 80x24 the line under the form was below the box, and
        Ctrl+S seemed to do nothing. The error and Save are scrolled into view (as on New game)."""
        self.query_one("#form-error", Static).update(text)
        # (to the form's end, where Save is, once the line's new height is laid out: Ctrl+S acts
        # as it is read, and the box's height measured then is the one before the error line)
        self.call_after_refresh(self.query_one("#settings").scroll_end, animate=False)
        self.app.bell()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_save()

    def _changed(self) -> bool:
        """Whether the form differs from the settings it opened with (a value that does not read
        as a setting counts as a change: it was typed)."""
        try:
            return self.read() != self.start
        except ValueError:
            return True

    def action_cancel(self) -> None:
        """Escape: back; with changes made, asked first (the footer's "Back" does not say they go)."""
        if not self._changed():
            self._back()
            return
        from .notice import _Notice

        def answered(choice: str | None) -> None:
            if choice == "discard":
                self._back()
            elif choice == "save":
                self.action_save()

        self.app.push_screen(_Notice("Leave settings?", "Your changes are not saved yet.",
                                     (("stay", "Stay"), ("save", "Save"), ("discard", "Discard changes")), asked=True),
                             answered)

    def _back(self) -> None:
        if self.app.theme != self.app.settings.theme and self.app.settings.theme in self.app.ono99_themes:
            self.app.theme = self.app.settings.theme  # unsaved: put the theme back
        self.app.pop_screen()
