"""Work-arounds for Textual bugs found by the UI fuzz (benchmarks/fuzz_ui.py), applied when
the app is imported. Each is a guard around one private method, and does nothing when the
method is missing (a Textual that has changed it).

- OptionList page up / page down before the list has laid out its lines (the command
  palette's list, pressed at once after ctrl+p) raised KeyError from _index_to_line, and
  the app stopped. Such a key press is now dropped: the list is not on screen yet.
- Alt with a key that has a name of its own (Enter, Tab, Ctrl+letter) arrives as ESC and that
  key; the parser dropped the Alt, so Alt+Enter (which terminals such as GNOME Terminal send as
  ESC CR) played the card pointed at. It now keeps it ("alt+enter"), which nothing is bound to.
"""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser
from textual.widgets import OptionList


def _guard_option_list_paging() -> None:
    move_page = getattr(OptionList, "_move_page", None)
    if move_page is None or getattr(move_page, "_ono99_guarded", False):
        return

    def _move_page(self, direction):
        lines = getattr(self, "_index_to_line", None)
        if isinstance(lines, dict) and (self.highlighted or 0) not in lines:
            return  # not laid out yet: nothing on screen to page through
        move_page(self, direction)

    _move_page._ono99_guarded = True
    OptionList._move_page = _move_page


_guard_option_list_paging()


def _keep_alt() -> None:
    keys = getattr(XTermParser, "_sequence_to_key_events", None)
    if keys is None or getattr(keys, "_ono99_guarded", False):
        return

    def _sequence_to_key_events(self, sequence, alt=False):
        for event in keys(self, sequence, alt):
            if alt and not event.key.startswith("alt+"):
                event = events.Key(f"alt+{event.key}", event.character)
            yield event

    _sequence_to_key_events._ono99_guarded = True
    XTermParser._sequence_to_key_events = _sequence_to_key_events


_keep_alt()
