"""What a plain SSH session (`ssh HOST plain`, or no PTY) lets through, both ways: lines.

Its `ono99 join --plain` runs on pipes, not a terminal, so the gateway itself does what a
terminal's line discipline would: :class:`LineInput` turns the bytes typed into whole lines
(a line longer than the limit is refused at once, never buffered; whole lines, not bytes,
are held to the input rate limit, so two lines are never run together; when the player's
side has a PTY, their terminal sends keys, so it echoes them and handles Backspace, Ctrl+U,
Ctrl+C and Ctrl+D). :class:`LineOutput` lets only lines out: printable text and newlines
(CR LF on a PTY, which has to move the cursor back itself), never an escape or another
control character, whatever the child writes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from .child import InputBucket

_NOT_TEXT = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # controls (C0 but the newline, DEL, C1)
_ERASE = (0x08, 0x7F)  # Backspace as terminals send it


def _chars(line: bytes | bytearray) -> int:
    """Characters in UTF-8 bytes (continuation bytes are not counted)."""
    return sum(1 for b in line if b & 0xC0 != 0x80)


@dataclass
class Fed:
    """What one chunk of typed bytes comes to."""

    lines: bytes = b""  # whole lines for the child, each ending in a newline
    echo: bytes = b""  # what the player's terminal shows of their typing (PTY only)
    notes: list[str] = field(default_factory=list)  # lines the gateway says to the player
    end: bool = False  # the player ended their input (Ctrl+D on an empty line)


class LineInput:
    """Typed bytes to whole lines for the child, what to echo, and what to tell the player.

    Without a PTY the client sends lines (its own terminal edits them): they are split and
    measured a chunk at a time (a flood costs little), and held to the rate limit whole. With
    a PTY it sends keys: they are held to the rate limit as keys are in a full-screen session
    (the rest dropped), then edited one at a time."""

    SLOW = "typing faster than anyone types: lines are dropped; type the dropped ones again in a moment"

    def __init__(self, max_line: int, rate: float, burst: int, echo: bool):
        self.max_line = max_line
        self.bucket = InputBucket(rate, burst)
        self.echo = echo  # the player has a PTY: their keys arrive one by one, unechoed
        self._line = bytearray()
        self._dropping = False  # in a line that was too long: dropped up to its end
        self._after_cr = False  # a CR LF pair is one line end
        self._slowed = False  # "too fast" said, and no line through since
        self._esc = 0  # in a key's escape sequence: 1 after ESC, 2 in CSI/SS3 (up to its final byte)

    @property
    def too_long(self) -> str:
        return f"a line longer than {self.max_line} characters is not read: type it again, shorter"

    def feed(self, data: bytes) -> Fed:
        if not self.echo:
            return self._lines(data)
        kept = self.bucket.take(data)
        fed = self._keys(kept)
        if len(kept) < len(data) and not self._slowed:
            self._slowed = True
            fed.notes.append(self.SLOW)
        elif len(kept) == len(data) and data:
            self._slowed = False
        return fed

    # -- lines (no PTY) --------------------------------------------------------------------------
    def _lines(self, data: bytes) -> Fed:
        out, notes = bytearray(), []
        if not data:
            return Fed()
        if self._after_cr and data[:1] == b"\n":
            data = data[1:]
        self._after_cr = data[-1:] == b"\r"
        pos = 0
        for end in _LINE_END.finditer(data):
            if self.bucket.room() < 1:  # over the rate: every line this chunk ends is dropped, at once
                last = _LINE_END_LAST.search(data)
                self._line.clear()
                self._dropping = False
                self._slow(notes)
                pos = last.end()
                break
            self._add(data[pos:end.start()], notes)
            self._end(out, notes)
            pos = end.end()
        self._add(data[pos:], notes)
        return Fed(bytes(out), b"", notes)

    def _add(self, part: bytes, notes: list[str]) -> None:
        if self._dropping or not part:
            return
        self._line += part
        if len(self._line) > self.max_line and _chars(self._line) > self.max_line:
            self._line.clear()
            self._dropping = True
            notes.append(self.too_long)

    def _end(self, out: bytearray, notes: list[str]) -> None:
        if self._dropping:
            self._dropping = False
            return
        line = bytes(self._line) + b"\n"
        self._line.clear()
        if self.bucket.allow(len(line)):
            out += line
            self._slowed = False
        else:
            self._slow(notes)

    def _slow(self, notes: list[str]) -> None:
        if not self._slowed:  # (said once, not once a line: a flood gets one line back)
            self._slowed = True
            notes.append(self.SLOW)

    # -- keys (a PTY) ----------------------------------------------------------------------------
    def _keys(self, data: bytes) -> Fed:
        out, echo, notes = bytearray(), bytearray(), []
        for b in data:
            if b == 0x0A and self._after_cr:
                self._after_cr = False
                continue
            self._after_cr = b == 0x0D
            if b in (0x0A, 0x0D):
                echo += b"\r\n"
                if self._dropping:
                    self._dropping = False
                    continue
                out += bytes(self._line) + b"\n"
                self._line.clear()
                continue
            if self._esc or b == 0x1B:  # an arrow or function key is no text: the whole sequence goes
                self._esc = _next_esc(self._esc, b)
                continue
            if self._dropping:
                continue
            if b in _ERASE:
                if self._line:
                    while self._line and self._line.pop() & 0xC0 == 0x80:  # a whole character
                        pass
                    echo += b"\b \b"
                continue
            if b == 0x15:  # Ctrl+U: the line so far is dropped
                echo += b"\b \b" * _chars(self._line)
                self._line.clear()
                continue
            if b == 0x03:  # Ctrl+C: as in a shell, the line so far is dropped
                self._line.clear()
                echo += b"^C\r\n"
                continue
            if b == 0x04:  # Ctrl+D on an empty line: the end of input
                if not self._line:
                    return Fed(bytes(out), bytes(echo), notes, end=True)
                continue
            if b < 0x20 or b == 0x7F:
                continue  # (a terminal's other keys are not text)
            self._line.append(b)
            echo.append(b)
            if len(self._line) > self.max_line and _chars(self._line) > self.max_line:
                self._line.clear()
                self._dropping = True
                notes.append(self.too_long)
        return Fed(bytes(out), bytes(echo), notes)


_LINE_END = re.compile(rb"\r\n|\r|\n")
_LINE_END_LAST = re.compile(rb"(?s).*(?:\r\n|\r|\n)")  # up to the last line end


def _next_esc(state: int, b: int) -> int:
    if b == 0x1B:
        return 1
    if state == 1:
        return 2 if b in b"[O" else 0
    return 0 if 0x40 <= b <= 0x7E else 2  # (CSI parameters until the final byte)


class LineOutput:
    """The child's output and the gateway's own lines, as lines of text only."""

    def __init__(self, crlf: bool):
        self.crlf = crlf
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.at_line_start = True
        self._typing = False  # the echo of a line being typed is on the last line shown

    def text(self, data: bytes) -> bytes:
        """The child's bytes, every control character but the newline dropped (its lines start
        on a line of their own, not after what the player is typing)."""
        text = _NOT_TEXT.sub("", self._decode.decode(data))
        if text and self._typing:
            text, self._typing = "\n" + text, False
        return self._out(text)

    def say(self, line: str) -> bytes:
        """One line of the gateway's own, on a line of its own."""
        text = _NOT_TEXT.sub("", line.replace("\n", " "))
        self._typing = False
        return self._out(("" if self.at_line_start else "\n") + text + "\n")

    def echoed(self, echo: bytes) -> bytes:
        """The echo of what the player types (it leaves the cursor where the line continues)."""
        if echo:
            self.at_line_start = echo.endswith(b"\n")
            self._typing = not self.at_line_start
        return echo

    def _out(self, text: str) -> bytes:
        if not text:
            return b""
        self.at_line_start = text.endswith("\n")
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return text.encode("utf-8")
