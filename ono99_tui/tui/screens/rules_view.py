"""House rules: every preset, and every key of the chosen one with its rule number."""

from __future__ import annotations

import tomli_w
from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from ...engine.presets import load_preset, preset_description, preset_names
from ...engine.rules import KEYS, Rules


def rules_rows(rules: Rules) -> list[tuple[str, str]]:
    """(key = value, rule and meaning) for every key, the changed ones marked."""
    rows = []
    for spec in KEYS:
        value = getattr(rules, spec.field)
        literal = tomli_w.dumps({"v": value})[4:].strip()
        changed = "  [b](changed)[/b]" if value != spec.default else ""
        rows.append((f"{escape(spec.path)} = [b]{escape(literal)}[/b]{changed}", f"{spec.rule}: {escape(spec.help)}"))
    return rows


class RulesViewScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, current: str = "standard"):
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        with Horizontal(id="rules-view"):
            names = preset_names()
            yield OptionList(*(Option(n, id=n) for n in names), id="presets")
            with VerticalScroll(id="rules-keys"):
                yield Static(id="rules-text")
                yield Vertical(id="rules-rows")
        yield Footer(show_command_palette=not self.app.ascii)

    def on_mount(self) -> None:
        presets = self.query_one("#presets", OptionList)
        presets.border_title = "Presets"
        self.query_one("#rules-keys").border_title = "Keys"
        names = preset_names()
        presets.highlighted = names.index(self.current) if self.current in names else 0
        presets.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        name = event.option.id
        rules = load_preset(name)
        self.query_one("#rules-text", Static).update(
            f"[b]{escape(name)}[/b]: {escape(preset_description(name))} (shipped, read-only)")
        box = self.query_one("#rules-rows", Vertical)
        box.remove_children()
        box.mount_all(w for key, help_ in rules_rows(rules)
                      for w in (Static(key, classes="rule-key"), Static(help_, classes="rule-help")))
