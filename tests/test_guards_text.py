"""Text from files and players shown as text (text.py), pinned where planted bugs survived
(issue 25): never markup, never a raw control character, a byte that is not UTF-8 shown as the
byte it is, a long value cut where its message says, and a file name given back as a command a
shell reads as exactly that name."""

from __future__ import annotations

import os
import subprocess

import pytest
from textual.content import Content

from ono99_tui.text import counted, for_markup, quoted, sentence, shell_word, shorten, visible


# -- escapes ------------------------------------------------------------------------------
@pytest.mark.parametrize("raw, shown", [
    (os.fsdecode(b"a\x80b"), "a\\x80b"),  # the lowest byte that is not UTF-8 on its own
    (os.fsdecode(b"\xc3\xff"), "\\xc3\\xff"),
    ("\ud800x\udfff", "\\ud800x\\udfff"),  # lone surrogates that stand for no byte (a JSON file's "\\ud800")
    ("\udd00", "\\udd00"),  # (just past the bytes' surrogates)
    ("\x00\x1f\x7f\x9f", "\\x00\\x1f\\x7f\\x9f"),
    ("\u200e\u202e\u2066\u2028\ufeff", "\\u200e\\u202e\\u2066\\u2028\\ufeff"),
    ("Zo\u00eb \u0100 \u7532 [b]", "Zo\u00eb \u0100 \u7532 [b]"),  # letters of any script are themselves
])
def test_a_character_a_terminal_would_obey_or_garble_is_shown_as_its_escape(raw, shown):
    assert visible(raw) == shown


# -- markup -------------------------------------------------------------------------------
def test_text_for_markup_keeps_its_lines_and_shows_every_other_control():
    """A description or a message of several lines keeps them on the screen; only the other
    control characters become escapes."""
    text = "first [b]line\nsecond\x1b[31m line\ttab"
    assert Content.from_markup(f"[b]{for_markup(text)}[/b]").plain == "first [b]line\nsecond\\x1b[31m line\\x09tab"


# -- values cut short ---------------------------------------------------------------------
def test_a_value_is_echoed_whole_up_to_sixty_characters_and_cut_past_them():
    assert shorten("x" * 60) == "x" * 60 and quoted("x" * 60) == '"' + "x" * 60 + '"'
    assert shorten("x" * 61) == "x" * 60 + "... (61 characters)"
    assert quoted("x" * 61) == '"' + "x" * 60 + '... (61 characters)"'


def test_a_value_is_cut_to_the_limit_asked_counting_its_escapes():
    assert shorten("abcdef", 6) == "abcdef" and shorten("abcdefg", 6) == "abcdef... (7 characters)"
    assert quoted("\x1b[2Jabc", 5) == '"\\x1b[... (10 characters)"'
    assert "\x1b" not in quoted("\x1b" * 100, 10)


# -- words --------------------------------------------------------------------------------
@pytest.mark.parametrize("n, said", [(0, "0 rounds"), (1, "1 round"), (2, "2 rounds"), (11, "11 rounds")])
def test_a_count_takes_its_plural_but_for_one(n, said):
    assert counted(n, "round") == said


@pytest.mark.parametrize("reason, said", [
    ("it is not your turn", "It is not your turn."),
    ("  the table closed  ", "The table closed."),
    ("gone!", "Gone!"), ("why?", "Why?"), ("done.", "Done."),
    ("x", "X."),
    ("", ""), ("   ", ""),
])
def test_a_reason_is_shown_as_a_sentence(reason, said):
    assert sentence(reason) == said


# -- a file name as a shell word -----------------------------------------------------------
NAMES = [
    b"plain.toml", b"with space.toml", b"it's.toml", b"back\\slash.toml", b"$HOME`id`.toml",
    b"line\nbreak.toml", b"\x1b]0;pwned\x07.toml", b"not utf-8 \xff\xfe.toml", b"it's \x1b and \\ too.toml",
    "Zo\u00eb.toml".encode(),
]


@pytest.mark.parametrize("name", NAMES, ids=[repr(n) for n in NAMES])
def test_a_file_name_is_given_as_a_word_bash_reads_back_as_that_very_name(name):
    word = shell_word(os.fsdecode(name))
    assert "\n" not in word and "\x1b" not in word and word.isprintable()
    out = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True, check=True)
    assert out.stdout == name
