"""Lines in, lines out: the only place the plain front end touches stdin and stdout.

Every line written goes through ``visible`` (names and messages from files are shown, never
obeyed) and then any byte below 0x20 but the newline is dropped, so no escape sequence can
leave, whatever a name or a save holds. Input is read as bytes, a line at a time, never with
the readline module (which writes its own escape sequences on some terminals); control
characters in a line (a pasted bracketed-paste marker, a stray arrow key) are dropped.
"""

from __future__ import annotations

import io
import os
import re
import sys
from typing import BinaryIO

from ..text import visible

MAX_LINE = 1024  # bytes of one input line kept; the rest of a longer line is read and dropped
# escape sequences a terminal sends: CSI (ESC [, arrows), SS3 (ESC O: arrows in application mode,
# F1-F4: ESC O B is Down, which read as the letter B), and the other two-character ones
_CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1bO[0-9;]*[ -~]|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


KEYS_ONLY = "Arrow keys and other special keys do nothing here: type your answer, then Enter."


class EndOfInput(Exception):
    """Standard input is closed: the player has left (the game is saved on the way out)."""


class KeysOnly(str):
    """A line that held special keys only (an arrow, Escape, Tab, Ctrl+L) and then Enter: empty
    once cleaned, yet not the Enter alone that accepts a question's default (an arrow key
    pressed out of habit before Enter started the next round, or was told "Nothing typed")."""


def clean_input(raw: bytes) -> str:
    """One typed line as text: decoded leniently, escape sequences and control characters dropped
    (a line of nothing else is a ``KeysOnly``)."""
    text = raw.decode("utf-8", errors="replace")
    cleaned = _CONTROL.sub("", _CSI.sub("", text)).strip()
    if not cleaned and text.strip("\r\n \t"):
        return KeysOnly(cleaned)
    return cleaned


def terminal_stdin() -> BinaryIO:
    """Standard input, unbuffered: a line is read a byte at a time, so what is typed after it
    stays in the terminal's queue, where ``drop_typed_ahead`` can drop it (a buffered reader
    would have taken it already). No standard input at all reads as ended."""
    try:
        return open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)
    except (AttributeError, OSError, ValueError):
        return io.BytesIO()


class Console:
    def __init__(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None):
        self._in = stdin if stdin is not None else sys.stdin.buffer
        self._out = stdout if stdout is not None else sys.stdout.buffer
        self.lines_read = 0
        try:
            self.interactive = os.isatty(self._in.fileno())  # a person at a terminal, not a pipe
        except (AttributeError, OSError, ValueError):
            self.interactive = False

    def drop_typed_ahead(self) -> bool:
        """On a terminal, drop what was typed before the question about to be asked (keys
        bunched in one read, as SSH and fast typists send them, must not answer a question the
        player has not seen: a hand-over, another round). A pipe keeps every line: a script
        types the whole game ahead. True when something was dropped."""
        if not self.interactive:
            return False
        try:
            import fcntl
            import struct
            import termios

            fd = self._in.fileno()
            waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
            if waiting:
                termios.tcflush(fd, termios.TCIFLUSH)
            return waiting > 0
        except (ImportError, OSError, ValueError):
            return False

    def say(self, text: str = "") -> None:
        """Write one line (or several, one per newline in ``text``), safe as text."""
        try:
            for line in str(text).split("\n"):
                safe = _CONTROL.sub("", visible(line))
                self._out.write(safe.encode("utf-8", errors="replace") + b"\n")
            self._out.flush()
        except BrokenPipeError:
            raise  # (its reader gone: ono99 ends quietly, cli.main)
        except OSError as exc:  # (> /dev/full, a full disk: one line, not a traceback)
            from ..errors import UserError

            raise UserError(f"cannot write to standard output: {exc.strerror or exc}") from None

    def ask(self, prompt: str, fresh: bool = False) -> str:
        """Say ``prompt`` on a line of its own and read the answer; EndOfInput when input ends.
        ``fresh``: a question about something new (a hand-over, a round's end): on a terminal,
        what was typed before it is dropped, and the player told."""
        if fresh and self.drop_typed_ahead():
            self.say("(What was typed before this question was dropped.)")
        self.say(prompt)
        line = self.read_line()
        while isinstance(line, KeysOnly):  # (said, and the question asked again)
            self.say(KEYS_ONLY)
            self.say(prompt)
            line = self.read_line()
        if line is None:
            raise EndOfInput
        return line

    def read_line(self) -> str | None:
        """The next line typed, cleaned; None at the end of input."""
        raw = self._in.readline(MAX_LINE)
        if not raw:
            return None
        if not raw.endswith(b"\n") and len(raw) >= MAX_LINE:
            while True:  # drop the rest of an over-long line
                more = self._in.readline(MAX_LINE)
                if not more or more.endswith(b"\n"):
                    break
        self.lines_read += 1
        return clean_input(raw)
