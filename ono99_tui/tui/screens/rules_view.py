"""House rules: every preset (shipped ones read-only, yours editable), every key with its rule.

Each key gets a fitting widget (yes/no, a choice, a number). What is typed is
checked as it is typed by the engine's own validation, and shown as invalid
with the reason next to the key; Save stays refused until everything is valid.
Saving writes only the keys that differ from the standard rules.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from ..widgets.choice import Choice
from ..widgets.ordered_input import OrderedInput
from textual.widgets import Button, Footer, Header, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from ...engine.rules import KEYS, Rules, RulesError, rules_from_dict
from ...store import rule_presets as rp
from ...store.paths import settings_file
from .notice import _Notice
from .save_as import NameScreen
from ...text import for_markup, visible


def escape(text: object) -> str:
    """Text from a file or the player, for a markup string: shown as is, control characters visible."""
    return for_markup(text)


def _widget_id(path: str) -> str:
    return "key-" + path.replace(".", "--").replace("_", "-")


def key_widget(spec, value):
    wid = _widget_id(spec.path)
    if spec.kind is bool:
        return Choice([("yes", True), ("no", False)], value=value, allow_blank=False, compact=True, id=wid)
    if spec.choices:
        return Choice([(c, c) for c in spec.choices], value=value, allow_blank=False, compact=True, id=wid)
    return OrderedInput(str(value), compact=True, id=wid, restrict=r"-?[0-9]*")


def key_help(spec) -> str:
    """The rule a key changes and what it allows, in the words of its widget (yes/no, not true/false)."""
    allowed = "yes or no" if spec.kind is bool else spec.allowed()
    return f"{spec.rule}: {escape(spec.help)}; {escape(allowed)}"


def nest(values: dict[str, object]) -> dict:
    doc: dict = {}
    for path, value in values.items():
        section, _, key = path.rpartition(".")
        (doc.setdefault(section, {}) if section else doc)[key] = value
    return doc


def _not_deletable(path) -> str | None:
    """Why Delete here cannot remove a preset of yours at ``path`` (a link, which ono99 never acts
    on inside its folders, or a folder), or None. A play-tester was told "Delete it here" for
    both, and Delete then answered "Not deleted" after asking."""
    if path is None:
        return None
    if path.is_symlink():
        return (f"{path} is a link, which ono99 leaves alone inside its config folder: remove it "
                "or put the file itself there, outside ono99.")
    if path.is_dir():
        return f"{path} is a folder: move or remove it outside ono99."
    return None


class RulesViewScreen(Screen):
    BINDINGS = [
        # Ctrl+O ("write out", as in nano) saves your own preset; Ctrl+S was Save as here first
        # priority: the keys typed after one go to the dialog it opens, and those typed before it
        # into a key's field are that field's first (tui/key_order.py); a name typed with Ctrl+S
        # went to the field under the dialog
        Binding("ctrl+o", "save", "Save", priority=True),
        Binding("ctrl+s", "save_as", "Save as", priority=True),
        Binding("ctrl+r", "rename", "Rename", priority=True),
        Binding("delete", "delete", "Delete"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, current: str = "standard"):
        super().__init__()
        self.current = current
        self.presets: list[rp.Preset] = []
        self.rules: Rules | None = None
        self.valid = True
        self.unreadable = False  # the preset shown cannot be read: nothing to save
        self.shown: int | None = None  # the preset whose keys are on screen (its index)
        self.loaded: dict[str, object] = {}  # its values as read: anything else is an unsaved edit
        # why the keys on screen are not valid, as the last check found: (key, message); the key is
        # "deck" for the deck as a whole (too small...), which no one key's line shows
        self.problems: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        with Horizontal(id="rules-view"):
            yield OptionList(id="presets")
            with VerticalScroll(id="rules-keys", can_focus=False):  # focus goes to the keys
                yield Static(id="rules-text")
                section = ""
                for spec in KEYS:
                    # keys under their TOML section, as in a rules file: the label is the short
                    # key, so the longest one still leaves a gap before its value
                    group, _, key = spec.path.rpartition(".")
                    if group != section:
                        section = group
                        yield Static(f"[{group}]", classes="rule-section", markup=False)
                    with Horizontal(classes="rule-row"):
                        yield Label(key, classes="rule-key", markup=False)
                        yield key_widget(spec, spec.default)
                    yield Static(key_help(spec), classes="rule-help",
                                 id=_widget_id(spec.path) + "-help")
                yield Static("", id="rules-error")
                with Horizontal(id="rules-buttons"):
                    yield Button("Save as (Ctrl+S)", id="save-as", compact=True)
                    yield Button("Save (Ctrl+O)", id="save", compact=True, variant="primary")
        yield Footer(show_command_palette=not self.app.ascii)

    NARROW = 77  # columns: fewer, and the presets go above the keys
    SLIM = 53  # fewer still, and a key's value goes under its name, not beside it

    def on_resize(self) -> None:
        # (at 40x12 the keys had 12 columns: a value was off the screen, typed into unseen)
        self.set_class(self.size.width < self.NARROW, "narrow")
        self.set_class(self.size.width < self.SLIM, "slim")

    def on_mount(self) -> None:
        self.query_one("#presets").border_title = "Presets"
        self.query_one("#rules-keys").border_title = "Keys"
        self.reload(self.current)

    def reload(self, select: str | None = None) -> None:
        self.presets = rp.all_presets()
        presets = self.query_one("#presets", OptionList)
        presets.clear_options()
        presets.add_options(Option(Text(visible(p.name) + ("  (yours)" if p.mine else "")), id=p.name)
                            for p in self.presets)
        names = [p.name for p in self.presets]
        self.shown = None  # (the list is new: whatever is highlighted is loaded)
        presets.highlighted = names.index(select) if select in names else 0
        presets.focus()

    @property
    def preset(self) -> rp.Preset:
        index = self.query_one("#presets", OptionList).highlighted or 0
        return self.presets[index]

    @property
    def edited(self) -> bool:
        """Keys changed on screen and not saved (leaving, or showing another preset, loses them)."""
        return self.shown is not None and not self.unreadable and self.read_values() != self.loaded

    def _unless_edited(self, go, stay=None) -> None:
        """``go`` now, or once the player agrees to lose the unsaved edits (a play-tester's were
        lost without a word by Escape); ``stay``: what keeping them means."""
        if not self.edited:
            go()
            return
        preset = self.presets[self.shown]
        name = preset.name
        valid = self.validate() is not None

        def answer(choice: str | None) -> None:
            if choice == "discard":
                self._show(self.shown)  # the preset's own values back on screen, then on
                go()
            elif choice == "save" and self._save_shown():
                go()
            elif stay is not None:  # (Keep editing, or a save that failed: its reason is shown)
                stay()

        if not valid:
            how = "They are not valid yet, so they cannot be saved: Keep editing to fix them"
        elif preset.mine:
            how = "Save (or Save as) keeps them"
        else:
            how = "Save as keeps them as your own"
        # Save is offered where it can save: your own preset, its keys valid (as Settings' Stay / Save / Discard)
        save = (("save", "Save"),) if preset.mine and valid else ()
        self.app.push_screen(_Notice(f"Unsaved changes to {name}", f"Your changes to {name} are not saved. {how}.",
                                     (("stay", "Keep editing"), *save, ("discard", "Discard changes")), asked=True), answer)

    def action_back(self) -> None:
        self._unless_edited(self.app.pop_screen)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = event.option_index
        if index == self.shown:
            return  # (back on the preset being edited: its keys are still on screen)
        presets = self.query_one("#presets", OptionList)
        self._unless_edited(lambda: self._show(index), stay=lambda: setattr(presets, "highlighted", self.shown))

    def _show(self, index: int) -> None:
        preset = self.presets[index]
        self.shown = index
        keys = self.query_one("#rules-keys")
        try:
            rules = rp.load(preset)
        except RulesError as exc:
            # no keys, no Save: the values on screen were the preset shown before, and Save would
            # have written them over this file, which its owner may mean to fix by hand
            self.rules, self.unreadable = None, True
            keys.add_class("unreadable")
            self.query_one("#rules-text", Static).update(
                f"[b]{escape(preset.name)}[/b] cannot be read: {escape(str(exc))}\n"
                + escape(_not_deletable(preset.path) or "Fix the file in an editor, or Delete it here."))
            return
        self.unreadable = False
        keys.remove_class("unreadable")
        self.rules = rules
        for spec in KEYS:
            widget = self.query_one("#" + _widget_id(spec.path))
            value = getattr(rules, spec.field)
            widget.value = value if isinstance(widget, Select) else str(value)
        self.loaded = self.read_values()
        owner = f"yours ({preset.path})" if preset.mine else "shipped, read-only: Save as to make your own"
        self.query_one("#rules-text", Static).update(
            f"[b]{escape(preset.name)}[/b]: {escape(preset.description)}\n{escape(owner)}")
        self.query_one("#save").disabled = not preset.mine
        self.call_after_refresh(self.validate)

    # -- checking as you type -----------------------------------------------------------
    def read_values(self) -> dict[str, object]:
        values: dict[str, object] = {}
        for spec in KEYS:
            widget = self.query_one("#" + _widget_id(spec.path))
            if isinstance(widget, Select):
                values[spec.path] = widget.value
            else:
                text = widget.value.strip()
                # (int() refuses past 4,300 digits: a pasted run of them stopped the app with ValueError)
                values[spec.path] = int(text) if text.lstrip("-").isdecimal() and len(text) <= 100 else text
        return values

    def validate(self) -> Rules | None:
        for spec in KEYS:
            help_ = self.query_one("#" + _widget_id(spec.path) + "-help", Static)
            help_.remove_class("invalid")
            help_.update(key_help(spec))
        error = self.query_one("#rules-error", Static)
        try:
            rules = rules_from_dict(nest(self.read_values()), "")
        except RulesError as exc:
            whole = []
            self.problems = []
            for problem in exc.problems:
                spec_id = _widget_id(problem.key) + "-help" if problem.key else None
                target = self.query(f"#{spec_id}") if spec_id else []
                if target:
                    target.first().add_class("invalid")
                    target.first().update(f"[b]invalid:[/b] {escape(problem.message)}")
                else:
                    whole.append(problem.message)
                self.problems.append((problem.key, problem.message))
            error.update("[b]Not valid, not saved:[/b] " + escape("; ".join(whole) or "see the keys marked invalid"))
            self.valid = False
            return None
        error.update("")
        self.problems = []
        self.valid = True
        return rules

    def _refuse_invalid(self) -> None:
        """Save or Save as with keys not valid: say why in a notice, and bring the first problem
        into sight. A play-tester's Ctrl+O only rang the bell: at 80x24 the reason was at the
        bottom of the keys, a dozen Tabs away, and nothing on screen changed."""
        self.app.bell()
        order = [spec.path for spec in KEYS]
        named = [f"{key}: {message}" if key in order else message for key, message in self.problems]
        more = len(named) - 3
        why = "; ".join(named[:3]) + (f"; and {more} more" if more > 0 else "") if named else "see the keys marked invalid"
        self.notify(f"Not valid, not saved: {why}", severity="error", timeout=10, markup=False)
        self._show_problem(order)

    def _show_problem(self, order: list[str]) -> None:
        """Focus the key of the first problem in the order of the screen, the line under it (the
        reason) in view. The deck as a whole goes to the first deck key (what to change); a problem
        of no key, to the line at the bottom that says it."""
        first_deck = next(path for path in order if path.startswith("deck."))
        places = sorted(order.index(key) if key in order else order.index(first_deck) if key == "deck"
                        else len(order) for key, _ in self.problems)
        if not places or places[0] == len(order):
            self.call_after_refresh(self.query_one("#rules-error").scroll_visible, animate=False)
            return
        widget = self.query_one("#" + _widget_id(order[places[0]]))
        widget.focus(scroll_visible=False)
        keys = self.query_one("#rules-keys", VerticalScroll)
        self.call_after_refresh(keys.scroll_to_center, widget, animate=False)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.validate()

    def on_select_changed(self, event: Select.Changed) -> None:
        if self.is_mounted:
            self.validate()

    # -- saving and managing ------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "save-as":
            self.action_save_as()
        elif event.button.id == "save":
            self.action_save()

    def _refuse_unreadable(self) -> bool:
        if self.unreadable:
            self.app.bell()
            self.notify(f"{visible(self.preset.name)} cannot be read, so there is nothing to save; "
                        "fix the file or delete it.", timeout=6, markup=False)
        return self.unreadable

    def action_save(self) -> None:
        self._save_shown()

    def _save_shown(self) -> bool:
        """Save the preset whose keys are on screen (the highlight may already be on another one,
        while "Unsaved changes" asks); whether it was saved."""
        if self._refuse_unreadable():
            return False
        preset = self.presets[self.shown] if self.shown is not None else self.preset
        if not preset.mine:  # (the key is in the footer for every preset: said, not only a bell)
            self.app.bell()
            self.notify(f"{visible(preset.name)} is shipped and read-only; Save as (Ctrl+S) makes your own copy.",
                        timeout=5, markup=False)
            return False
        rules = self.validate()
        if rules is None:
            self._refuse_invalid()
            return False
        try:
            rp.save_preset(preset.name, rules, preset.description, overwrite=True)
        except (ValueError, OSError) as exc:  # an unwritable folder: the edits stay on screen
            self.notify(f"Not saved: {_why(exc, preset.path, 'write')}. Your changes are still here.",
                        severity="error", timeout=10)
            return False
        self.loaded = self.read_values()
        self.app.preset_saved(preset.name, rules)
        self.notify(f"Saved {preset.name}", timeout=4)
        return True

    def action_save_as(self) -> None:
        if self._refuse_unreadable():
            return
        rules = self.validate()
        if rules is None:
            self._refuse_invalid()
            return

        source = self.preset.name

        def save(name: str) -> str | None:
            try:
                path = rp.save_preset(name, rules, f"House rules: {name} (from {source})")
            except (ValueError, OSError) as exc:
                return str(exc)  # (shown in the dialog, which stays open for another name)
            self.notify(f"Saved your preset {name} to {path}", timeout=5, markup=False)
            self.reload(name)
            return None

        self.app.push_screen(NameScreen("Save rules as", f"my {source}", act=save))

    def action_rename(self) -> None:
        if not self.preset.mine:  # (said at once: asking about the edits first led nowhere)
            self.notify("Shipped presets cannot be renamed; Save as makes your own copy.", timeout=5)
            return
        self._unless_edited(self._rename)  # (the renamed preset is read again from its file)

    def _rename(self) -> None:
        preset = self.preset

        def rename(name: str) -> str | None:
            if name == preset.name:
                return None
            try:
                rp.rename_preset(preset.name, name)
            except (ValueError, OSError) as exc:
                return str(exc)
            self._follow(preset.name, name, f"Renamed {preset.name} to {name}")
            self.reload(name)
            return None

        self.app.push_screen(NameScreen(f"Rename {preset.name}", preset.name, "Rename", act=rename))

    def action_delete(self) -> None:
        preset = self.preset
        if not preset.mine:
            self.notify("Shipped presets cannot be deleted.", timeout=4)
            return
        if (why := _not_deletable(preset.path)) is not None:  # (said now, not after "Delete?")
            self.notify(f"Not deleted: {why}", severity="error", timeout=10, markup=False)
            return

        def done(choice: str | None) -> None:
            if choice == "delete":
                try:
                    rp.delete_preset(preset.name)
                except (ValueError, OSError) as exc:
                    self.notify(f"Not deleted: {_why(exc, preset.path, 'delete')}", severity="error", timeout=10)
                    return
                self._follow(preset.name, None, f"Deleted {preset.name}")
                self.reload()

        body = f"{preset.path} is removed from disk."
        if self.app.uses_preset(preset.name):  # (asked before, not found out at the next start)
            body += f" Settings use {preset.name} as the rules for new games: they go back to standard."
        self.app.push_screen(_Notice(f"Delete {preset.name}?", body,
                                     (("keep", "Keep it"), ("delete", "Delete")), asked=True), done)

    def _follow(self, old: str, new: str | None, done: str) -> None:
        """After a rename (``new``) or a delete (None), Settings that used ``old`` follow: the new
        name, or standard; said in the notice with ``done`` (what was done to the preset)."""
        uses = self.app.uses_preset(old)
        spec = new or "standard"
        try:
            self.app.follow_preset(old, new)
        except (OSError, ValueError) as exc:  # (the preset is renamed or gone all the same)
            self.notify(f"{done}, but the settings file still names {old} for the next start: "
                        f"{_why(exc, settings_file(), 'write')}. Choose the rules in Settings.",
                        severity="error", timeout=12, markup=False)
            return
        if uses:
            self.notify(f"{done}. Settings now use {spec} for new games (saved).", timeout=6, markup=False)
        elif new is not None:
            self.notify(f"{done}.", timeout=4, markup=False)


def _why(exc: Exception, path, verb: str) -> str:
    """What went wrong, naming the file: "cannot write PATH: Permission denied"."""
    if isinstance(exc, OSError):
        return f"cannot {verb} {path}: {exc.strerror or exc}"
    return str(exc)
