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
meant to be and what is wrong. The parsing itself (``decode``, ``parse_toml``, ``ReadError``) is ono99_tui/parsing.py,
which the engine uses without reading any file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from ..parsing import LIMIT, MAX_DEPTH, RECORD_LIMIT, ReadError, decode, parse_toml, toml_depth

__all__ = ["LIMIT", "MAX_DEPTH", "RECORD_LIMIT", "STDIN", "ReadError", "decode", "load_toml", "parse_toml",
           "read_bytes", "read_stdin", "read_text", "toml_depth"]

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _size(n: int) -> str:
    # one decimal where it tells two sizes apart ("8.6 MB; at most 8 MB", not "8 MB; at most 8 MB")
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f}".removesuffix(".0") + " MB"
    return f"{max(1, n // 1024)} KB"


def read_bytes(path: str | Path, what: str, limit: int = LIMIT) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or ReadError."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        missing = exc.errno == errno.ENOENT
        reason = "no such file" if missing else (exc.strerror or str(exc)).lower()
        if exc.errno == errno.EACCES and os.path.isfile(path):  # (mode 000, another user's file)
            import shlex

            reason += f"; to allow it: chmod u+r {shlex.quote(str(path))} (as its owner)"
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


def read_text(path: str | Path, what: str, limit: int = LIMIT) -> str:
    """The text of a regular UTF-8 file of at most ``limit`` bytes, or ReadError."""
    return decode(read_bytes(path, what, limit), str(path), what)


STDIN = "standard input"


def read_stdin(what: str, limit: int = LIMIT, stream=None, command: str = "saves import") -> str:
    """The UTF-8 text piped to standard input (``-`` for a file name), at most ``limit`` bytes, or
    ReadError. A terminal is refused: the command would wait silently for a record typed by hand."""
    import sys

    stream = sys.stdin if stream is None else stream
    if stream is None or stream.closed:
        raise ReadError(STDIN, f"cannot read the {what}: standard input is closed; pipe one in "
                        f"(... | ono99 {command} -) or give a file name")
    if stream.isatty():
        raise ReadError(STDIN, f"cannot read the {what}: standard input is a terminal; pipe one in "
                        f"(... | ono99 {command} -) or give a file name")
    raw = stream.buffer.read(limit + 1)
    if len(raw) > limit:
        raise ReadError(STDIN, f"the {what} is too large (more than {_size(limit)})")
    return decode(raw, STDIN, what)


def load_toml(path: str | Path, what: str, limit: int = LIMIT, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Read and parse a TOML file safely (see the module docstring), or ReadError."""
    return parse_toml(read_text(path, what, limit), str(path), what, max_depth)
