"""Reading files the player (or anyone) can put in our way, safely.

Every file ono99 reads (rules, records, saves, config.toml, themes, stats.toml)
goes through here, so one place decides what a readable file is:

- only a regular file: a FIFO, a device (/dev/zero), a socket or a folder is
  refused with a message, and opening never blocks (O_NONBLOCK, then fstat);
- at most ``limit`` bytes, checked before and while reading, so nothing eats
  the memory;
- UTF-8, with a leading byte-order mark accepted and dropped;
- TOML nested at most ``MAX_DEPTH`` levels, measured before parsing, because
  deep nesting costs tomllib a RecursionError or quadratic time.

Every refusal is one ``ReadError`` whose message names the file, what it was
meant to be and what is wrong. Standard library only (the engine uses it too).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

#: Default size limit: far above any real rules, settings, theme or stats file.
LIMIT = 1024 * 1024
#: For game records and saves: a very long points game stays well under this.
RECORD_LIMIT = 8 * 1024 * 1024
#: Deepest TOML nesting accepted (tables, arrays and dotted keys together);
#: ono99's own files never go past 4.
MAX_DEPTH = 32

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class ReadError(ValueError):
    """A file that cannot be read as the text it should be: ``str()`` is "SOURCE: REASON".

    ``source`` names the file, ``reason`` says what is wrong and what is allowed;
    ``missing`` is true when the file does not exist, for readers that treat that as
    "nothing saved yet" rather than as an error.
    """

    def __init__(self, source: str | Path, reason: str, missing: bool = False):
        self.source, self.reason, self.missing = str(source), reason, missing
        super().__init__(f"{self.source}: {reason}")


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MB" if n >= 1024 * 1024 else f"{max(1, n // 1024)} KB"


def read_bytes(path: str | Path, what: str, limit: int = LIMIT) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or ReadError."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        missing = exc.errno == errno.ENOENT
        reason = "no such file" if missing else (exc.strerror or str(exc)).lower()
        raise ReadError(path, f"cannot read the {what}: {reason}", missing=missing) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
            raise ReadError(path, f"cannot read the {what}: it is {kind}, not a regular file")
        if info.st_size > limit:
            raise ReadError(path, f"the {what} is too large ({_size(info.st_size)}; at most {_size(limit)})")
        chunks, total = [], 0
        while True:  # read to the end, but never past the limit (the file may be growing)
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise ReadError(path, f"the {what} is too large (more than {_size(limit)})")
        return b"".join(chunks)
    except OSError as exc:
        raise ReadError(path, f"cannot read the {what}: {(exc.strerror or str(exc)).lower()}") from None
    finally:
        os.close(fd)


def decode(raw: bytes, source: str, what: str) -> str:
    """UTF-8 text, a leading byte-order mark dropped, or ReadError."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError(source, f"the {what} is not a UTF-8 text file (bad byte at offset {exc.start})") from None


def read_text(path: str | Path, what: str, limit: int = LIMIT) -> str:
    """The text of a regular UTF-8 file of at most ``limit`` bytes, or ReadError."""
    return decode(read_bytes(path, what, limit), str(path), what)


# -- TOML --------------------------------------------------------------------------------

# Where a string or comment starts, or a character that nests (or ends a dotted key run).
_SPECIAL = re.compile(r"\"\"\"|'''|[\"'#\[\]{}.=,\n]")
_STRING_END = {
    '"""': re.compile(r'(?:[^\\]|\\.)*?"""', re.S),
    "'''": re.compile(r".*?'''", re.S),
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"'),
    "'": re.compile(r"[^'\n]*'"),
}
_LINE_END = re.compile(r"[^\n]*")


def toml_depth(text: str) -> int:
    """An upper bound on the nesting of a TOML document: brackets and braces open at a
    point plus the dots of the key (or number) being read there, skipping strings and
    comments. It may overcount by one for a decimal; never undercounts."""
    depth = deepest = dots = 0
    pos, end = 0, len(text)
    while pos < end:
        m = _SPECIAL.search(text, pos)
        if m is None:
            break
        tok, pos = m.group(), m.end()
        if tok in _STRING_END:
            closing = _STRING_END[tok].match(text, pos)
            if closing is None:
                break  # unterminated: tomllib will say where
            pos = closing.end()
        elif tok == "#":
            pos = _LINE_END.match(text, pos).end()
        elif tok in "[{":
            depth += 1
            dots = 0
        elif tok in "]}":
            depth = max(0, depth - 1)
            dots = 0
        elif tok == ".":
            dots += 1
        else:  # = , newline: a new key or value starts
            dots = 0
        deepest = max(deepest, depth + dots + 1)
    return deepest


def parse_toml(text: str, source: str, what: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """A TOML document as a dict, or ReadError (invalid TOML, or nested too deep)."""
    depth = toml_depth(text)
    if depth > max_depth:
        raise ReadError(source, f"the {what} is nested too deeply (about {depth} levels; at most {max_depth})")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ReadError(source, f"the {what} is not valid TOML: {exc}") from None
    except RecursionError:  # belt and braces: toml_depth should have caught it
        raise ReadError(source, f"the {what} is nested too deeply") from None
    except ValueError as exc:  # tomllib lets int()'s own limit through (over 4300 digits)
        raise ReadError(source, f"the {what} is not valid TOML: {exc}"[:200]) from None


def load_toml(path: str | Path, what: str, limit: int = LIMIT, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Read and parse a TOML file safely (see the module docstring), or ReadError."""
    return parse_toml(read_text(path, what, limit), str(path), what, max_depth)
