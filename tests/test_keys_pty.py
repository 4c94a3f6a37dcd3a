"""Keys typed together on a real terminal: the app on a PTY (tests/keys_table.py, a stacked
table) gets several keys in ONE write, as a paste or SSH delivers them, and its screen (read
with pyte) shows which card was played. Waits are on what the screen shows, never on time (the
deadline only ends a test that would otherwise hang)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from .test_net_e2e import Term

ROOT = Path(__file__).resolve().parent.parent
RIGHT, LEFT, ENTER = b"\x1b[C", b"\x1b[D", b"\r"


def table(case: str) -> Term:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", PYTHONPATH=str(ROOT))
    return Term("You", [sys.executable, "-m", "tests.keys_table", case], env)


async def typed(case: str, *writes: tuple[bytes, str]) -> str:
    """Start ``case``; for each (keys, shown): write ``keys`` in one write, then wait until the
    screen shows ``shown``. The screen as it is then."""
    term = table(case)
    try:
        deadline = time.monotonic() + 60
        await term.wait(lambda t: "Your turn" in t or "play twice" in t, "the player's turn", deadline)
        for keys, shown in writes:
            os.write(term.master, keys)  # one write: the app reads them together
            await term.wait(lambda t: shown in t, repr(shown), deadline)
        return term.text
    finally:
        term.kill()


def run(coro):
    return asyncio.run(coro)


@pytest.mark.parametrize("keys, played", [
    (RIGHT + ENTER, "You play 3 → 3"),
    (RIGHT + RIGHT + ENTER, "You play 4 → 4"),
    (LEFT + ENTER, "You play 5 → 5"),
])
def test_arrows_and_enter_in_one_write_play_the_card_pointed_at(keys, played):
    text = run(typed("plain", (keys, "You play")))
    assert played in text, text


def test_the_bust_question_answered_by_right_and_enter_in_one_write_plays_the_next_card():
    """At 92 with 9, 9, Reverse, 99: Left, Enter ask about the 9 ("Press 2 ... again"); Right and
    Enter in one write, meant for card 3, play the Reverse, not the 9 (101)."""
    text = run(typed("bust", (LEFT + ENTER, "Press 2 or Enter again"), (RIGHT + ENTER, "You play")))
    assert "You play Reverse" in text and "101" not in text, text


def test_a_number_then_arrow_and_enter_in_one_write_make_both_plays_of_a_double():
    # (the hand as You saw it: the 6 drawn in the slot of the 2 played, then 3 4 5)
    text = run(typed("double", (b"1" + RIGHT + ENTER, "You play 3")))
    assert "You play 6 → 8" in text and "You play 3 → 11" in text, text


def test_alt_enter_plays_nothing_and_the_key_after_it_still_counts():
    """A stranger's find: Alt+Enter (GNOME Terminal, Konsole and xterm send ESC CR) played the
    card pointed at, as Enter: Textual's parser dropped the Alt (tui/textual_fixes.py keeps it).
    ESC CR and a 3 in one write: only the 3 plays (the third card, the 4)."""
    text = run(typed("plain", (b"\x1b\r3", "You play")))
    assert "You play 4 → 4" in text and "You play 2" not in text, text


def test_ctrl_s_and_a_name_in_one_write_type_the_name_and_play_nothing():
    """A play-tester's find over a real terminal: Ctrl+S then "save1" in one write opened Save as
    and played card 1 on the table under it. Now the letters are typed into Save as's name."""
    async def go():
        term = table("plain")
        try:
            deadline = time.monotonic() + 60
            await term.wait(lambda t: "Your turn" in t, "the player's turn", deadline)
            os.write(term.master, b"\x13save1")  # Ctrl+S and the name, one write
            await term.wait(lambda t: "save1" in t, "the name typed into Save as", deadline)
            return term.text
        finally:
            term.kill()
    text = run(go())
    assert "You play" not in text, text
