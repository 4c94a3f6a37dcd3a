"""The main menu."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from ..messages import ResumeFailed, SavesRead

MENU = (
    ("new", "New game..."),
    ("quick", "Quick game: you against three medium bots"),
    ("continue", "Continue"),
    ("load", "Load..."),
    ("rules", "House rules..."),
    ("settings", "Settings..."),
    ("stats", "Statistics"),
    ("help", "Help"),
    ("quit", "Quit"),
)


class MenuScreen(Screen):
    # priority, and chosen at once (not by a message behind the keys read with it): the keys typed
    # after one go to the screen it opens (tui/key_order.py); "n" then "Aq" opened New game and quit
    BINDINGS = [Binding("n", "choose('new')", "New game", priority=True),
                Binding("g", "choose('quick')", "Quick game", priority=True),
                Binding("c", "choose('continue')", "Continue", priority=True),
                Binding("question_mark", "choose('help')", "Help", priority=True),
                Binding("q", "choose('quit')", "Quit", priority=True),
                # and the list's own keys too, so that every key of the menu acts as it is read,
                # in order: a priority letter would otherwise act before an Enter typed before it
                *(Binding(key, f"list('{action}')", show=False, priority=True) for key, action in (
                    ("up", "cursor_up"), ("down", "cursor_down"), ("home", "first"), ("end", "last"),
                    ("pageup", "page_up"), ("pagedown", "page_down"))),
                Binding("enter", "choose_highlighted", show=False, priority=True)]

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        with Center(), Vertical(id="menu-box"):
            yield Static("[b]O'NO 99[/b]\nkeep the total under 99", id="logo")
            yield OptionList(*self._options(), id="menu")
            yield Static("", id="menu-note")
        yield Footer(show_command_palette=not self.app.ascii)

    def _options(self, found: tuple | None = None) -> list[Option]:
        available = self.app.menu_available(found)  # reads the saves: once per call, so call it once
        problem = getattr(self.app, "saves_problem", None)
        if self.is_mounted:
            self._note(problem)
        return [Option(label if key in available else f"{label} ({available.get('_why_' + key, 'not yet')})",
                       id=key, disabled=key not in available) for key, label in self._labels()]

    def _labels(self):
        """MENU, with the quick game saying how many bots the rules of this run seat (fewer than
        three where they deal to fewer players)."""
        from ..setup import quick_words

        rules = getattr(self.app, "rules", None)
        if rules is None:
            return MENU
        quick = f"Quick game: you against {quick_words(rules, 'medium')}"
        return tuple((key, quick if key == "quick" else label) for key, label in MENU)

    def on_mount(self) -> None:
        self._note(getattr(self.app, "saves_problem", None))
        self._just_built = True
        if getattr(self.app, "ascii", False):  # (no scrollbar in ASCII: the list's edge says there is more)
            menu = self.query_one("#menu", OptionList)
            self.watch(menu, "scroll_y", self._mark_more)
            self.watch(menu, "virtual_size", self._mark_more)

    def _note(self, problem: str | None) -> None:
        note = self.query_one("#menu-note", Static)
        note.update(Text(problem or ""))
        if note.has_class("empty") == bool(problem):  # (on a short screen, none takes no line from the entries)
            note.set_class(not problem, "empty")
            self.call_after_refresh(self._fit)

    def _mark_more(self, *_) -> None:
        menu = self.query_one("#menu", OptionList)
        above, below = menu.scroll_y > 0.5, menu.scroll_y < menu.max_scroll_y - 0.5
        menu.border_subtitle = " ".join(w for w, on in (("more above", above), ("more below", below)) if on)

    SHORT = 20  # rows: fewer, and the space above the logo goes to the entries

    fitted = False  # laid out for the terminal's size (tests wait on it)

    def on_resize(self) -> None:
        self.fitted = False
        self.set_class(self.size.height < self.SHORT, "short")
        self.call_after_refresh(self._fit)

    def _fit(self, passes: int = 0) -> None:
        """The list as tall as the screen leaves it: at 40x12 Help and Quit were below the screen,
        out of reach. Shorter, it scrolls, and the highlighted entry is always in sight."""
        if not self.is_mounted:
            return
        box, menu, note = self.query_one("#menu-box"), self.query_one("#menu", OptionList), self.query_one("#menu-note")
        room = (self.size.height - sum(w.outer_size.height for w in self.query("Header, Footer"))
                - box.styles.margin.height - self.query_one("#logo").outer_size.height
                - (note.outer_size.height if note.display else 0))  # (hidden, it keeps its last size)
        limit = max(3, room)  # (an entry and the list's edges, however small)
        if passes < 4 and (getattr(menu.styles.max_height, "value", None) != limit
                           or menu.outer_size.height > limit):
            # (a limit already set, by another pass, is not yet a list laid out to it: CI once
            # saw "fitted" while the list was still 12 rows on a 12-row screen)
            menu.styles.max_height = limit
            self.call_after_refresh(self._fit, passes + 1)  # (measured again once laid out so)
            return
        menu.scroll_to_highlight()
        if getattr(self.app, "ascii", False):
            self._mark_more()
        self.fitted = True

    def on_screen_resume(self) -> None:
        if getattr(self, "_just_built", False):  # compose has just read the saves
            self._just_built = False
            return
        self.refresh_options()

    def refresh_options(self, found: tuple | None = None) -> None:
        """The entries again from the saves (back from another screen, or ``found``: the saves
        have been read)."""
        menu = self.query_one("#menu", OptionList)
        options = self._options(found)
        if [(o.prompt, o.disabled) for o in menu.options] == [(o.prompt, o.disabled) for o in options]:
            return
        highlighted = menu.highlighted
        menu.clear_options()
        menu.add_options(options)
        menu.highlighted = highlighted if highlighted is not None else 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(event.option.id)

    async def action_list(self, action: str) -> None:
        await self.query_one("#menu", OptionList).run_action(action)

    def action_choose_highlighted(self) -> None:
        """Enter: the entry highlighted, chosen at once (OptionList's own select is a message,
        which a letter typed after the Enter would overtake)."""
        menu = self.query_one("#menu", OptionList)
        if menu.highlighted is not None and not (option := menu.get_option_at_index(menu.highlighted)).disabled:
            self.action_choose(option.id)

    def action_choose(self, key: str) -> None:
        # the app's own method, not a message: a message would come after the keys read with this
        # one, and they would act on the menu first
        self.app.menu_choice(key)

    def on_saves_read(self, message: SavesRead) -> None:
        self.refresh_options(message.found)

    def on_resume_failed(self, message: ResumeFailed) -> None:
        self.on_screen_resume()  # Continue no longer offers the damaged save
