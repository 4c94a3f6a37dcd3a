"""A save's journal, NAME.toml.journal: the plays made since the record was last written.

Autosave appends one line per play (a few dozen bytes, one write and one fdatasync),
so its cost does not grow with the game; the record itself is rewritten ("folded")
only at round ends, on undo and on leaving the table. The first line names the
record it continues (the record's meta.journal), so a journal left over from
before a fold, or from another game of the same name, is ignored instead of
replayed twice. A line cut short by a crash is ignored too: at most the play in
flight is lost.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.record import Record

MAGIC = "ono99-journal 1"
MAX_BYTES = 4 * 1024 * 1024  # a journal never holds more than one round or a few hundred plays


def journal_path(save_path: Path) -> Path:
    return Path(save_path).with_name(Path(save_path).name + ".journal")


def new_id() -> str:
    return secrets.token_hex(8)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data``, however many writes it takes; OSError if the disk stops taking any.
    (A kill between two writes leaves a line cut short, which a reader ignores.)"""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.EIO, "the journal took no more bytes")
        view = view[n:]


def _sync(fd: int) -> None:
    os.fdatasync(fd) if hasattr(os, "fdatasync") else os.fsync(fd)


def play_line(play: tuple[int, int, str, str]) -> bytes:
    return (json.dumps(list(play), ensure_ascii=False) + "\n").encode("utf-8")


class JournalWriter:
    """The open journal of one save, for appending.

    ``lines``: (play number, line) already in it, written with the header (a journal started
    again after a fold keeps the plays the record does not hold yet); ``durable`` syncs them
    before the new journal replaces the old one."""

    def __init__(self, path: Path, journal_id: str, lines: list[tuple[int, bytes]] = (), durable: bool = False):
        self.path, self.id = Path(path), journal_id
        tmp = self.path.with_name(f".{self.path.name}.{journal_id}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)  # never through a link
        try:
            write_all(fd, f"{MAGIC} {journal_id}\n".encode() + b"".join(line for _, line in lines))
            if durable:
                _sync(fd)
            os.replace(tmp, self.path)  # a whole new journal or the old one, never a mix
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        self.fd: int | None = fd
        os.lseek(fd, 0, os.SEEK_END)
        self.tail: list[tuple[int, bytes]] = list(lines)  # what it holds, for starting it again
        self.lines = len(self.tail)

    def append(self, plays: list[tuple[int, int, str, str]]) -> None:
        """(play number, round, seat name, card) for each new play, made durable before returning."""
        lines = [(p[0], play_line(p)) for p in plays]
        write_all(self.fd, b"".join(line for _, line in lines))
        _sync(self.fd)
        self.tail.extend(lines)
        self.lines += len(plays)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def journal_plays(record: "Record", save_path: Path) -> list[tuple[int, str, str]]:
    """The journal's plays that follow the record: (round, seat name, card) each.

    Only a journal whose id matches the record's meta.journal counts, and only its
    unbroken run of plays numbered from the record's last play on. Whether each is
    legal is for the engine to say (SaveStore.open_game plays them)."""
    wanted = record.meta.get("journal")
    path = journal_path(save_path)
    if not isinstance(wanted, str):
        return []
    try:
        st = os.stat(path)
        if not _is_regular(st) or st.st_size > MAX_BYTES:
            return []
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError:
        return []
    lines = raw.decode("utf-8", "replace").split("\n")
    if not lines or lines[0] != f"{MAGIC} {wanted}":
        return []
    names = set(record.names)
    count = record.play_count
    last_round = len(record.rounds)
    plays = []
    for line in lines[1:-1]:  # the last piece has no newline: empty, or a line cut short
        try:
            n, round_no, name, card = json.loads(line)
        except (ValueError, TypeError, RecursionError):
            break
        if not (isinstance(n, int) and isinstance(round_no, int) and isinstance(name, str) and name in names
                and isinstance(card, str)):
            break
        if n <= count:
            continue
        if n != count + 1 or round_no < last_round:
            break
        plays.append((round_no, name, card))
        count, last_round = n, round_no
    return plays


def _is_regular(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(st.st_mode)
