"""A message with a row of buttons, over the screen it is about: the base of every notice
(round end, game over, pass the keyboard, help, the card reference, "Delete ...?")."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from rich.text import Text
from textual.widgets import Button, Footer, Static

from ...text import visible


class _Notice(ModalScreen[str]):
    """A message with a row of buttons.

    One button has focus from the start (Enter presses it); arrows and Tab move
    between the buttons (Up/Down scroll instead when the text is longer than the box). Escape always means back/close: it answers ``escape``
    (by default the first button, which callers make the safe one).

    Every button stays in sight on a small terminal: a row of buttons wider than the box is
    stacked, one a line, and the text gets what room is left (it scrolls), never the buttons.
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("left", "move(-1)", "Previous", show=False),
        Binding("right", "move(1)", "Next", show=False),
        Binding("up", "move(-1, True)", "Previous", show=False),
        Binding("down", "move(1, True)", "Next", show=False),
        Binding("pageup", "scroll(-1)", show=False),
        Binding("pagedown", "scroll(1)", show=False),
    ]

    def __init__(self, title: str, body: str, buttons: tuple[tuple[str, str], ...] = (("ok", "Continue"),),
                 escape: str | None = None, markup: bool = False, asked: bool = False):
        """``markup``: the body is Textual markup (only for text the program wrote, with any
        user text in it escaped); otherwise title, body and labels are shown as plain text."""
        super().__init__()
        if not markup:  # (a name from a file or a player: an ESC, or a file name that is not UTF-8, seen as such)
            body = visible(body, keep_newlines=True)
        self.title_text, self.body, self.buttons, self.markup = visible(title), body, buttons, markup
        self.escape = escape or buttons[0][0]
        self.asked = asked or self.asked  # (a class may say so for all of its own: Help)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = Text(self.title_text)  # names in titles are text
            # focus stays on the buttons; arrows (one button) and Page keys still scroll
            with VerticalScroll(classes="dialog-scroll", can_focus=False):
                yield Static(self.body, classes="dialog-body", markup=self.markup)
            with Horizontal(classes="dialog-buttons"):
                for key, label in self.buttons:
                    yield Button(Text(label), id=f"btn-{key}",
                                 variant="primary" if key == self.buttons[0][0] else "default")
        # its own footer, over the table's: a dialog offers only its own keys (never "Play 1" or "Undo")
        yield Footer(show_command_palette=False)

    # A key typed before this notice came up was meant for what was on screen then (an Enter for
    # the last notice, bunched over SSH or typed as the game ended): it must not answer this one.
    # Key events carry the time they were read, on the clock Textual stamps every message with.
    _since = float("inf")

    # A question a key asks (Escape over unsaved changes, d at Load) is answered by the keys read
    # with that key, after it: "d", Right, Enter in one read left "Delete?" up, Right and Enter
    # taken for keys typed before it came up. ``asked``: it opens in answer to the key just
    # handled (tui/key_order.py's key_time); a notice that comes up by itself keeps its mount time.
    asked = False

    @on(events.Mount)
    def _mounted_at(self, event: events.Mount) -> None:
        key_time = getattr(self.app, "key_time", None)
        self._since = min(event.time, key_time) if self.asked and key_time is not None else event.time
        self.call_after_refresh(self._fit)
        if getattr(self.app, "ascii", False):  # (no scrollbars in ASCII: their glyphs are not ASCII)
            body = self.query_one(".dialog-scroll", VerticalScroll)
            self.watch(body, "scroll_y", self._mark_more)
            self.watch(body, "virtual_size", self._mark_more)

    def on_resize(self) -> None:
        self.fitted = False
        self.call_after_refresh(self._fit)
        if getattr(self.app, "ascii", False):
            self.call_after_refresh(self._mark_more)

    _row_width = 0  # what the buttons take side by side (measured when they last were)
    fitted = False  # laid out for the terminal's size (tests wait on it)

    def _fit(self, passes: int = 0) -> None:
        """At 40x12 "Leave settings?" showed Stay and Save, and "Discard changes" was past the box's
        right edge; the help's buttons were below the screen. Buttons wider than the box go one a
        line; the text's box is cut to what the screen leaves over the buttons."""
        if not self.is_mounted or not self.query(".dialog-buttons"):
            return
        row = self.query_one(".dialog-buttons", Horizontal)
        buttons = list(row.query(Button))
        stacked = row.has_class("-stacked")
        if not stacked:
            self._row_width = sum(b.outer_size.width + b.styles.margin.width for b in buttons)
        stack = len(buttons) > 1 and self._row_width > row.content_size.width
        if stack != stacked:
            row.set_class(stack, "-stacked")
            self.call_after_refresh(self._fit, passes + 1)  # (the height once the buttons are laid out anew)
            return
        dialog = self.query_one(".dialog")
        body = self.query_one(".dialog-scroll", VerticalScroll)
        footer = self.query(Footer)
        room = (self.size.height - sum(f.outer_size.height for f in footer)
                - dialog.styles.margin.height - dialog.styles.gutter.height
                - row.outer_size.height - row.styles.margin.height)
        wanted = body.styles.base.max_height  # the stylesheet's own limit (rows, or a share of the screen)
        most = int(wanted.resolve(self.size, self.app.size)) if wanted is not None else room
        limit = max(1, min(most, room))
        if passes < 4 and (getattr(body.styles.inline.max_height, "value", None) != limit
                           or body.outer_size.height > limit):  # (a limit set is not yet laid out)
            body.styles.max_height = limit
            self.call_after_refresh(self._fit, passes + 1)  # (measured again once laid out so)
        else:
            self.fitted = True

    def _mark_more(self, *_) -> None:
        """ASCII has no scrollbar, so a text longer than its box says so on the box's lower
        edge until its end is in sight (the help at 80x24 on TERM=linux hid half of itself)."""
        if not self.is_mounted or not self.query(".dialog-scroll"):
            return
        body = self.query_one(".dialog-scroll", VerticalScroll)
        more = body.max_scroll_y > 0 and body.scroll_y < body.max_scroll_y - 0.5
        self.query_one(".dialog").border_subtitle = "more below: Down, PgDn" if more else ""

    _at = 0  # the button the keys point at: known at once (focus follows a step later)

    def on_mount(self) -> None:
        buttons = self.query(Button)
        if buttons:  # (none when it was dismissed before it was mounted: a notice the table closed at once)
            buttons.first().focus()

    # Arrows and Enter act here, in the order they were typed: as bindings, an arrow acted only
    # after Enter had pressed the button focused before it (keys in one read: "Right Right Enter"
    # moved one step and pressed the wrong button).
    _MOVES = {"left": (-1, False), "right": (1, False), "up": (-1, True), "down": (1, True)}

    def on_key(self, event: events.Key) -> None:
        if event.time < self._since:
            event.stop()  # it goes no further: no button, binding or Escape acts on it
            event.prevent_default()
            return
        if event.key in self._MOVES or event.key == "enter":
            event.stop()
            event.prevent_default()
            if event.key == "enter":
                buttons = list(self.query(Button))
                if buttons:
                    self._answer(buttons[self._at % len(buttons)].id.removeprefix("btn-"))
            else:
                self.action_move(*self._MOVES[event.key])

    def on_descendant_focus(self, event) -> None:
        """A button focused by Tab or a click: the keys point there from now on."""
        buttons = list(self.query(Button))
        if event.widget in buttons and event.widget is self.focused:
            self._at = buttons.index(event.widget)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self._answer(event.button.id.removeprefix("btn-"))

    def action_close(self) -> None:
        self._answer(self.escape)

    _answered = False

    def _answer(self, choice: str) -> None:
        """Answer once. The screen leaves a step after dismiss: a second Enter bunched with the
        first (over SSH, or a double press) arrived while it was still here and dismissed it again,
        and Textual stopped the app ("Can't pop screen")."""
        if not self._answered:
            self._answered = True
            self.dismiss(choice)

    def action_move(self, step: int, vertical: bool = False) -> None:
        buttons = list(self.query(Button))
        body = self.query_one(".dialog-scroll", VerticalScroll)
        if len(buttons) == 1 or (vertical and body.max_scroll_y > 0):
            self.action_scroll(step, page=False)  # Up/Down read a text longer than the box
            return
        self._at = (self._at + step) % len(buttons)
        buttons[self._at].focus()

    def action_scroll(self, step: int, page: bool = True) -> None:
        body = self.query_one(".dialog-scroll", VerticalScroll)
        if page:
            body.scroll_page_down() if step > 0 else body.scroll_page_up()
        else:
            body.scroll_down() if step > 0 else body.scroll_up()
