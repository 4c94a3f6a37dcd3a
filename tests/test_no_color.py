"""NO_COLOR means no colour (no-color.org): not one colour code reaches the terminal.

Textual's own answer to NO_COLOR is greys (its Monochrome filter, 256-colour codes that force
dark backgrounds on a light terminal); the app swaps in Textual's NoColor filter. The swap
edits Textual's private ``App._filters``: the first test fails if that moves."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys

import pyte

from ono99_tui.tui.app import Ono99App

SGR = re.compile(rb"\x1b\[([0-9;]*)m")


def colour_codes(raw: bytes) -> set[str]:
    """Every SGR parameter that sets a colour other than the terminal's own (39, 49)."""
    found = set()
    for params in SGR.findall(raw):
        parts = params.decode().split(";")
        i = 0
        while i < len(parts):
            p = int(parts[i] or 0)
            if p in (38, 48):  # 38;5;N / 38;2;R;G;B
                found.add(";".join(parts[i:i + (3 if parts[i + 1] == "5" else 5)]))
                i += 3 if parts[i + 1] == "5" else 5
                continue
            if 30 <= p <= 37 or 40 <= p <= 47 or 90 <= p <= 97 or 100 <= p <= 107:
                found.add(str(p))
            i += 1
    return found


def test_colour_codes_reads_what_a_terminal_would_colour():
    assert colour_codes(b"\x1b[1;38;5;245;48;5;234mX\x1b[0m\x1b[97;40m") == {"38;5;245", "48;5;234", "97", "40"}
    assert colour_codes(b"\x1b[39;49m\x1b[1;7;39;49mX\x1b[0m") == set()


async def test_no_color_takes_textuals_no_color_filter_not_its_greys(monkeypatch):
    from textual.filter import Monochrome, NoColor

    monkeypatch.setenv("NO_COLOR", "1")
    app = Ono99App(bot_delay=600)
    assert any(isinstance(f, NoColor) for f in app._filters)
    assert not any(isinstance(f, Monochrome) for f in app._filters)


def test_a_game_under_no_color_sends_no_colour_code_on_a_256_colour_terminal(tmp_path):
    """As SSH gives it (TERM=xterm-256color, no COLORTERM), a quick game's first turn: every
    byte written, not a settled screen."""
    import fcntl
    import struct
    import termios

    env = {k: v for k, v in os.environ.items() if k != "COLORTERM"}
    env.update(NO_COLOR="1", TERM="xterm-256color", ONO99_DATA_DIR=str(tmp_path / "d"),
               ONO99_CONFIG_DIR=str(tmp_path / "c"), ONO99_BOT_DELAY="0")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "ono99_tui"], stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True, close_fds=True)
    os.close(slave)
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    raw = bytearray()

    def until(text: str) -> None:
        while text not in "\n".join(screen.display):
            # (a hang guard of a minute of silence, not a timing check)
            assert select.select([master], [], [], 60)[0], f"never showed {text!r}:\n" + "\n".join(screen.display)
            chunk = os.read(master, 65536)
            raw.extend(chunk)
            stream.feed(chunk)

    try:
        until("Quick game")
        # the line Enter picks shows without colour: underlined (Textual draws a list's lines
        # without reverse), where it had been only bold like the menu's title
        assert re.search(rb"\x1b\[[0-9;]*\b4\b[0-9;]*mNew game", bytes(raw)), bytes(raw)[bytes(raw).find(b"New game") - 60:][:120]
        os.write(master, b"g")
        until("Your hand")
        until("Play")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        os.close(master)
    assert SGR.search(bytes(raw))  # (styled: bold, reverse)
    assert colour_codes(bytes(raw)) == set()
