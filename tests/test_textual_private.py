"""The app sets its first theme without Textual's theme watcher (Ono99App._first_theme): the
watcher would restyle the whole app right after its first styling. What the watcher does
besides is done by hand, with two private names of Textual's (Textual is pinned exactly): these
tests fail the day an upgrade changes what the watcher does or moves those names, instead of
the app quietly starting in the wrong colours."""

import inspect
import re

import pytest
from textual.app import App
from textual.filter import ANSIToTruecolor

from ono99_tui.store.settings import Settings
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.themes import load_themes


def test_the_theme_watcher_does_what_first_theme_does_by_hand_and_no_more():
    body = inspect.getsource(App._watch_theme)
    calls = re.findall(r"self\.(\w+)\(", body)
    assert calls == ["update_classes", "_refresh_truecolor_filter", "_invalidate_css", "call_next", "call_next"], calls
    assert "refresh_css" in body and "theme_changed_signal.publish" in body
    assert list(inspect.signature(App._refresh_truecolor_filter).parameters) == ["self", "theme"]
    assert "ANSIToTruecolor" in inspect.getsource(App._refresh_truecolor_filter)


@pytest.mark.parametrize("name", list(load_themes()[0]))
def test_an_app_started_on_a_theme_is_as_one_given_it_by_assignment(private_dirs, name):
    themes = load_themes()[0]
    app = Ono99App(settings=Settings(theme=name))
    assert app.theme == name and not app.notices, app.notices
    # the same app's theme set the way Textual documents, from another theme and back
    other = Ono99App(settings=Settings(theme=next(t for t in themes if t != name)))
    other.theme = name
    assert app.classes == other.classes
    assert app.get_css_variables() == other.get_css_variables() == app.stylesheet._variables
    assert "self.stylesheet = Stylesheet(variables=self.get_css_variables())" in inspect.getsource(App.__init__)
    mine = [f._terminal_theme for f in app._filters if isinstance(f, ANSIToTruecolor)]
    theirs = [f._terminal_theme for f in other._filters if isinstance(f, ANSIToTruecolor)]
    assert mine == theirs == [app.ansi_theme]


async def test_ctrl_c_says_how_to_quit_in_plain_words(private_dirs):
    """Textual answers Ctrl+C with a notice in markup; notices here are text (they carry names):
    a play-tester saw "Press [b]ctrl+q[/b] to quit the app"."""
    app = Ono99App(bot_delay=600)
    told = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        real = app.notify
        app.notify = lambda message, **kw: (told.append(message), real(message, **kw))
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert told == ["Press ctrl+q to quit the app."]


def test_the_alt_keeping_guard_is_on_the_parser_method_textual_calls():
    """tui/textual_fixes.py wraps XTermParser._sequence_to_key_events (private) so Alt+Enter is not
    Enter. Fails the day Textual renames it or stops calling it with ``alt`` for ESC and a key."""
    from textual._xterm_parser import XTermParser

    import ono99_tui.tui.textual_fixes  # noqa: F401

    assert getattr(XTermParser._sequence_to_key_events, "_ono99_guarded", False)
    source = inspect.getsource(XTermParser.parse)
    assert "sequence_to_key_events = self._sequence_to_key_events" in source
    assert "sequence_to_key_events(character, alt=alt)" in source


def test_the_latest_size_guard_is_on_the_method_textual_lays_a_resized_screen_out_by():
    """tui/textual_fixes.py wraps Screen._screen_resized (private) so a screen is laid out at the
    app's latest size, never a stale Resize's (TERM=dumb's endless 80x25/80x24 layouts, see
    tests/test_dumb_terminal.py). Fails the day Textual renames it, stops laying a screen out
    through it, or stops keeping the latest size in App.size before the screens hear of it."""
    from textual.screen import Screen

    import ono99_tui.tui.textual_fixes  # noqa: F401

    assert getattr(Screen._screen_resized, "_ono99_guarded", False)
    assert "self._screen_resized(event.size)" in inspect.getsource(Screen._on_resize)
    app_resize = inspect.getsource(App._on_resize)
    assert "self._size = event.size" in app_resize and "return self._size" in inspect.getsource(App.size.fget)


def test_the_header_guard_is_on_the_mount_that_watches_the_titles():
    """tui/textual_fixes.py wraps Header._on_mount (private) so its title callbacks set nothing
    once the title widget is gone. Fails the day Textual stops titling the header that way."""
    from textual.widgets import Header

    import ono99_tui.tui.textual_fixes  # noqa: F401

    assert getattr(Header._on_mount, "_ono99_guarded", False)
    source = inspect.getsource(Header._on_mount.__wrapped__ if hasattr(Header._on_mount, "__wrapped__") else
                               next(c.cell_contents for c in Header._on_mount.__closure__ if callable(c.cell_contents)))
    assert source.count("self.watch(") == 4 and "query_one(HeaderTitle)" in source


async def test_a_header_whose_title_is_gone_is_not_titled(private_dirs):
    """A play-tester's loaded machine: a screen went (replaced, or the app closed) before its
    header's title callback ran; the callback raised NoMatches and the app stopped. Here the
    title widget is removed and the app's title changed, which runs those callbacks."""
    from textual.widgets._header import HeaderTitle

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.screen.query_one(HeaderTitle).remove()
        app.title = "another title"
        await pilot.pause()
        assert app.is_running


def test_widget_focus_moves_the_focus_by_the_callback_key_order_waits_for():
    """tui/key_order.py holds keys while a Widget.focus() has not landed, known by its callback's
    name: this fails the day Textual renames it or sets the focus otherwise."""
    from textual.widget import Widget

    from ono99_tui.tui.key_order import FOCUS_CALLBACK

    body = inspect.getsource(Widget.focus)
    assert "def set_focus(" in body and "self.app.call_later(set_focus, self)" in body
    assert FOCUS_CALLBACK == f"{Widget.focus.__qualname__}.<locals>.set_focus"


def test_the_width_zero_guard_is_on_each_divide_line_that_wraps_text():
    """tui/textual_fixes.py wraps rich.text's and textual.content's divide_line (Rich's private
    rich._wrap) so text wrapped to width 0 does not raise. Fails the day either stops calling it."""
    import rich.text
    import textual.content

    import ono99_tui.tui.textual_fixes  # noqa: F401 - (applied on import)

    for module in (rich.text, textual.content):
        assert getattr(module.divide_line, "_ono99_guarded", False), module
        assert "divide_line(" in inspect.getsource(module).split("import divide_line", 1)[1]
    assert rich.text.divide_line("abc", 0) == [1, 2]  # (as at width 1: one cell a line)


def test_the_terminal_is_asked_its_size_before_the_columns_and_lines_variables(monkeypatch):
    """With COLUMNS=200 LINES=60 exported (some shell profiles do), the screen was drawn 200
    columns wide in an 80x24 window, and COLUMNS=100000 LINES=100000 took gigabytes: Textual's
    LinuxDriver asks shutil.get_terminal_size, which prefers the variables to the terminal."""
    import os

    from textual.drivers.linux_driver import LinuxDriver

    import ono99_tui.tui.textual_fixes  # noqa: F401 - (applied on import)

    assert getattr(LinuxDriver._get_terminal_size, "_ono99_guarded", False)
    assert "self._get_terminal_size()" in inspect.getsource(LinuxDriver)  # (what it sizes the screen by)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("LINES", "60")
    monkeypatch.setattr(os, "get_terminal_size", lambda fd: os.terminal_size((80, 24)))
    assert LinuxDriver._get_terminal_size(None) == (80, 24)

    def no_terminal(fd):
        raise OSError(25, "Inappropriate ioctl for device")
    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert LinuxDriver._get_terminal_size(None) == (200, 60)  # (no terminal to ask: the variables)
