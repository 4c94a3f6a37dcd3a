"""Work-arounds for Textual bugs found by the UI fuzz (benchmarks/fuzz_ui.py), applied when
the app is imported. Each is a guard around one private method, and does nothing when the
method is missing (a Textual that has changed it).

- OptionList page up / page down before the list has laid out its lines (the command
  palette's list, pressed at once after ctrl+p) raised KeyError from _index_to_line, and
  the app stopped. Such a key press is now dropped: the list is not on screen yet.
- Alt with a key that has a name of its own (Enter, Tab, Ctrl+letter) arrives as ESC and that
  key; the parser dropped the Alt, so Alt+Enter (which terminals such as GNOME Terminal send as
  ESC CR) played the card pointed at. It now keeps it ("alt+enter"), which nothing is bound to.
- A screen lays itself out at the size a Resize event names, and when that changes its own size
  it posts itself another Resize of that size. Two sizes queued at once, with any other message
  between them (an on_resize that calls call_after_refresh, as the menu's and the notices' do),
  then answer each other for ever: 24 rows, 25, 24, ... at 100% CPU, the event loop never free
  to read a key (TERM=dumb did it at every start: Rich says 80x25 there, the driver the real
  size). A screen is now laid out at the app's latest size, whatever a queued event says: a stale
  one changes nothing, and posts nothing.
- A Header sets its title in a callback its mount schedules; when its screen went before that
  callback ran (a screen replaced or the app closed at once, on a loaded machine: New game
  started by a name and Ctrl+S in one read), the callback found no title widget and raised
  NoMatches, and the app stopped. A header whose title widget is gone now sets nothing.
- Text wrapped to a width of exactly 0 (the menu's option list in a terminal 1 to 6 columns
  wide: a pane split down to a sliver, a window dragged narrow) reached Rich's chop_cells, whose
  range() step of 0 raised ValueError, and the app stopped with a traceback. Such text is now
  wrapped as at a width of 1 (only its height is asked there; nothing of it fits on screen).
- The terminal's size was asked of shutil.get_terminal_size, which prefers the COLUMNS and LINES
  environment variables to the terminal itself: with COLUMNS=200 exported (as some shell profiles
  do) the screen was drawn 200 columns wide in an 80-column window, resizing it changed nothing,
  and COLUMNS=100000 LINES=100000 took gigabytes and drew nothing. The terminal is now asked
  first; the variables are used only where there is no terminal to ask.
"""

from __future__ import annotations

import os
import sys

import rich.text
import textual.content
from textual import events
from textual.drivers.linux_driver import LinuxDriver
from textual._xterm_parser import XTermParser
from textual.screen import Screen
from textual.widgets import Header, OptionList
from textual.widgets._header import HeaderTitle


def _guard(cls, name: str, make) -> None:
    """``cls.name`` replaced by ``make(the original)``, once; nothing when Textual no longer has it
    (tests/test_textual_private.py fails then)."""
    original = getattr(cls, name, None)
    if original is None or getattr(original, "_ono99_guarded", False):
        return
    replacement = make(original)
    replacement._ono99_guarded = True
    setattr(cls, name, replacement)


def _paging_once_laid_out(move_page):
    def _move_page(self, direction):
        lines = getattr(self, "_index_to_line", None)
        if isinstance(lines, dict) and (self.highlighted or 0) not in lines:
            return  # not laid out yet: nothing on screen to page through
        move_page(self, direction)
    return _move_page


def _keeping_alt(keys):
    def _sequence_to_key_events(self, sequence, alt=False):
        for event in keys(self, sequence, alt):
            if alt and not event.key.startswith("alt+"):
                event = events.Key(f"alt+{event.key}", event.character)
            yield event
    return _sequence_to_key_events


def _at_the_latest_size(resized):
    def _screen_resized(self, size):
        latest = self.app.size  # (set from each Resize the app gets, before its screens get it)
        resized(self, latest if latest else size)
    return _screen_resized


def _titles_while_titled(on_mount):
    def _on_mount(self, event):
        watch = self.watch

        def watching(obj, attribute, callback, *args, **kwargs):
            async def set_title() -> None:
                if self.query(HeaderTitle):  # (gone with its screen: nothing to title)
                    await callback()
            return watch(obj, attribute, set_title, *args, **kwargs)

        self.watch = watching
        try:
            on_mount(self, event)
        finally:
            del self.watch
    return _on_mount


def _never_at_width_zero(divide_line):
    def _divide_line(text, width, fold=True):
        return divide_line(text, width or 1, fold)
    return _divide_line


def terminal_size() -> tuple[int, int] | None:
    """The terminal's own size (columns, lines), never the COLUMNS and LINES variables; None
    when no standard stream is a terminal that knows its size."""
    for stream in (sys.__stdout__, sys.__stderr__, sys.__stdin__):
        try:
            columns, lines = os.get_terminal_size(stream.fileno())
        except (AttributeError, OSError, ValueError):
            continue
        if columns > 0 and lines > 0:
            return columns, lines
    return None


def _the_terminals_own_size(get_size):
    def _get_terminal_size(self):
        return terminal_size() or get_size(self)
    return _get_terminal_size


_guard(OptionList, "_move_page", _paging_once_laid_out)
_guard(LinuxDriver, "_get_terminal_size", _the_terminals_own_size)
# (each module that calls Rich's divide_line, by the name it imported it under)
_guard(rich.text, "divide_line", _never_at_width_zero)
_guard(textual.content, "divide_line", _never_at_width_zero)
_guard(Header, "_on_mount", _titles_while_titled)
_guard(XTermParser, "_sequence_to_key_events", _keeping_alt)
_guard(Screen, "_screen_resized", _at_the_latest_size)
