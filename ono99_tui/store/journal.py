"""A save's journal, NAME.toml.journal: the plays made since the record was last written.

Autosave appends one line per play (a few dozen bytes, one write and one fdatasync),
so its cost does not grow with the game; the record itself is rewritten ("folded")
only at round ends, on undo and on leaving the table. The first line names the
record it continues (the record's meta.journal), so a journal left over from
before a fold, or from another game of the same name, is ignored instead of
replayed twice.

Every play line carries a check value that chains it to the line before and, through
the first line, to the journal's id, which the record names (docs/record-format.md,
"The journal"): a line damaged, edited (even to another legal card), reordered, left
out or cut short is found, and it and every line after it are *set aside* -- reported
(JournalRead.problem) and kept in a file of their own by the save session, never
dropped in silence. The check is against accidents (disks, sync tools, editors,
CRLF conversion) and naive edits, not against someone rewriting their files with
this code in hand.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.record import Record

MAGIC = "ono99-journal"
VERSION = 2  # 1: no check values (read as before, set aside only where a line does not follow)
MAX_BYTES = 4 * 1024 * 1024  # a journal never holds more than one round or a few hundred plays
CHECK_LEN = 16


def journal_path(save_path: Path) -> Path:
    return Path(save_path).with_name(Path(save_path).name + ".journal")


def new_id() -> str:
    return secrets.token_hex(8)


def read_id(path: Path) -> str | None:
    """The id the journal at ``path`` names in its first line, or None when it names none."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            header = fh.readline(200).decode("utf-8", "replace").split(" ")
    except OSError:
        return None
    return header[2].strip() if len(header) >= 3 and header[0] == MAGIC else None


def chain(previous: str, payload: str) -> str:
    """The check value of a line whose play is ``payload`` (its JSON text), after ``previous``."""
    return hashlib.sha256(f"{previous}\n{payload}".encode("utf-8")).hexdigest()[:CHECK_LEN]


def chain_start(journal_id: str) -> str:
    """What the first line of a new journal chains from: the journal's id, named by the record."""
    return chain("ono99-journal", journal_id)


def write_all(fd: int, data: bytes) -> None:
    """All of ``data``, however many writes it takes; OSError if the disk stops taking any.
    (A kill between two writes leaves a line cut short, which a reader sets aside.)"""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.EIO, "the journal took no more bytes")
        view = view[n:]


def _sync(fd: int) -> None:
    os.fdatasync(fd) if hasattr(os, "fdatasync") else os.fsync(fd)


def play_line(play: tuple[int, int, str, str], previous: str) -> tuple[bytes, str]:
    """(the line, its check value) for (play number, round, seat name, card) after ``previous``."""
    payload = json.dumps(list(play), ensure_ascii=False)
    check = chain(previous, payload)
    return f"{check} {payload}\n".encode("utf-8"), check


class JournalWriter:
    """The open journal of one save, for appending.

    ``lines``: (play number, line, check value) already in it, written with the header (a
    journal started again after a fold keeps the plays the record does not hold yet), and
    ``start`` the check value its first line chains from; ``durable`` syncs them before the
    new journal replaces the old one."""

    def __init__(self, path: Path, journal_id: str, lines: list[tuple[int, bytes, str]] = (),
                 durable: bool = False, start: str | None = None):
        self.path, self.id = Path(path), journal_id
        self.start = start or chain_start(journal_id)
        tmp = self.path.with_name(f".{self.path.name}.{journal_id}.tmp")
        # never through a link; the owner's alone, as the save is
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            write_all(fd, f"{MAGIC} {VERSION} {journal_id} {self.start}\n".encode()
                      + b"".join(line for _, line, _ in lines))
            if durable:
                _sync(fd)
            os.replace(tmp, self.path)  # a whole new journal or the old one, never a mix
        except BaseException:
            os.close(fd)
            tmp.unlink(missing_ok=True)
            raise
        self.fd: int | None = fd
        os.lseek(fd, 0, os.SEEK_END)
        self.tail: list[tuple[int, bytes, str]] = list(lines)  # what it holds, for starting it again
        self.lines = len(self.tail)

    @property
    def last_check(self) -> str:
        return self.tail[-1][2] if self.tail else self.start

    def append(self, plays: list[tuple[int, int, str, str]]) -> None:
        """(play number, round, seat name, card) for each new play, made durable before returning."""
        previous, lines = self.last_check, []
        for p in plays:
            line, previous = play_line(p, previous)
            lines.append((p[0], line, previous))
        end = os.lseek(self.fd, 0, os.SEEK_CUR)
        try:
            write_all(self.fd, b"".join(line for _, line, _ in lines))
            _sync(self.fd)
        except OSError:
            # (a full disk took part of a line): taken back out, so the journal ends where its last
            # whole play does; left there, the next open called the save damaged for a play the
            # player was told was not saved
            try:
                os.ftruncate(self.fd, end)
                os.lseek(self.fd, end, os.SEEK_SET)
            except OSError:
                pass
            raise
        self.tail.extend(lines)
        self.lines += len(plays)

    def restarted(self, after: int) -> tuple[list[tuple[int, bytes, str]], str]:
        """(the lines after play ``after``, the check value the first of them chains from)."""
        rest = [t for t in self.tail if t[0] > after]
        dropped = [t for t in self.tail if t[0] <= after]
        return rest, (dropped[-1][2] if dropped else self.start)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass
class JournalRead:
    """What a journal gives a record: the plays that verify and follow it, and what was set aside."""

    plays: list[tuple[int, str, str]]  # (round, seat name, card), in order
    set_aside: int = 0  # play lines (or, past the size limit, lines) not used
    problem: str | None = None  # why they were set aside; None: the journal is whole
    present: bool = False  # a journal file is there (a regular file)
    not_a_file: bool = False  # something that is not a regular file is in its place
    linked: bool = False  # that something is a symbolic link: never followed, whatever it points at

    def describe(self) -> str:
        if self.linked:
            return f"the journal is not read: {self.problem}"
        n = self.set_aside
        return f"{n} play{'' if n == 1 else 's'} in the journal set aside: {self.problem}"


def read_journal(record: "Record", save_path: Path) -> JournalRead:
    """The journal's plays that follow the record, checked line by line (see the module's doc).

    Only a journal whose id matches the record's meta.journal continues it; lines numbered
    at or below the record's plays are skipped (a fold that has not yet started the journal
    again). Reading stops at the first line that does not verify or does not follow; it and
    the lines after it are counted as set aside, with the reason. Whether each play is legal
    is for the engine to say (SaveStore.open_game plays them)."""
    path = journal_path(save_path)
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return JournalRead([])
    except OSError as exc:
        return JournalRead([], 0, f"cannot read {path.name}: {exc.strerror or exc}", present=True)
    if stat.S_ISLNK(st.st_mode):  # (from an archive, a sync tool): it could point at any file
        try:
            target = f" (to {os.readlink(path)})"
        except OSError:
            target = ""
        return JournalRead([], 0, f"{path.name} is a link{target}; ono99 follows no link in the saves folder, "
                                  "so plays in what it points at were not read", present=True,
                           not_a_file=True, linked=True)
    if not stat.S_ISREG(st.st_mode):
        return JournalRead([], not_a_file=True)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
            over = 0
            if len(raw) > MAX_BYTES:  # past the limit: lines counted, never held
                cut = raw.rfind(b"\n", 0, MAX_BYTES) + 1
                over, last = raw[cut:].count(b"\n"), raw[-1:]
                raw = raw[:cut]
                while chunk := fh.read(1 << 20):
                    over += chunk.count(b"\n")
                    last = chunk[-1:]
                over += last != b"\n"  # a last line without its line end is a line too (once)
    except OSError as exc:
        return JournalRead([], 0, f"cannot read {path.name}: {exc.strerror or exc}", present=True)
    read = _parse(raw, record)
    read.present = True
    if over:
        read.set_aside += over
        read.problem = read.problem or (f"the journal is larger than {MAX_BYTES // (1024 * 1024)} MiB; "
                                        "the lines past that were not read")
    return read


def _parse(raw: bytes, record: "Record") -> JournalRead:
    wanted = record.meta.get("journal")
    text = raw.decode("utf-8", "replace")
    lines = text.split("\n")
    tail = lines.pop()  # the last piece has no newline: empty, or a line cut short
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]  # CRLF conversion
    count = record.play_count
    if not lines:
        return JournalRead([])  # not even its first line whole: no play in it can be known
    header = lines[0].split(" ")
    body = lines[1:]
    beyond = _beyond(body, count) + (1 if tail else 0)
    if len(header) < 3 or header[0] != MAGIC or header[1] not in ("1", "2"):
        if beyond:
            return JournalRead([], beyond, "its first line is not an ono99 journal header (damaged)")
        return JournalRead([])
    version, journal_id = int(header[1]), header[2]
    if not isinstance(wanted, str) or journal_id != wanted:
        # a journal from before the record was last written: the record holds all its plays.
        # One with plays the record does not hold has a damaged id, or is not this save's --
        # unless it is the journal of the save a restore replaced (kept beside that save).
        if beyond and journal_id != record.meta.get("replaced_journal"):
            named = repr(wanted[:16]) if isinstance(wanted, str) else "no journal"
            return JournalRead([], beyond, f"it continues another record (journal id {journal_id[:16]!r}, "
                                           f"the save names {named})")
        return JournalRead([])
    previous = None
    if version == 2:
        previous = header[3] if len(header) == 4 and len(header[3]) == CHECK_LEN else None
        if previous is None:
            return JournalRead([], beyond, "its first line is damaged") if beyond else JournalRead([])
    names = set(record.names)
    last_n, last_round = None, len(record.rounds)
    plays: list[tuple[int, str, str]] = []
    for k, line in enumerate(body, start=2):
        problem = None
        payload = line
        if version == 2:
            check, _, payload = line.partition(" ")
            if chain(previous, payload) != check:
                problem = "damaged or edited (its check value does not match)"
        if problem is None:
            try:
                parsed = json.loads(payload)
                n, round_no, name, card = parsed
            except (ValueError, TypeError, RecursionError):
                problem = "not a play"
            else:
                if not (isinstance(n, int) and isinstance(round_no, int) and isinstance(name, str)
                        and name in names and isinstance(card, str)):
                    problem = "not a play of this game"
                elif last_n is not None and n != last_n + 1:
                    problem = f"play numbers jump from {last_n} to {n}"
                elif n > count and n != count + 1 + len(plays):
                    # (only a first line: after one, a number out of step is a jump, above)
                    problem = f"play {n} does not follow play {count}"
                elif n > count and round_no < last_round:
                    problem = f"play {n} goes back to round {round_no}"
        if problem is not None:
            rest = body[k - 2:]
            return JournalRead(plays, _beyond(rest, count + len(plays), damaged_first=True)
                               + (1 if tail else 0), f"line {k}: {problem}")
        if version == 2:
            previous = check
        last_n = n
        if n <= count:
            continue
        plays.append((round_no, name, card))
        last_round = round_no
    if tail:
        return JournalRead(plays, 1, f"line {len(body) + 2} is cut short (the play being saved when ono99 "
                                     "stopped, or damage)")
    return JournalRead(plays)


def _beyond(lines: list[str], count: int, damaged_first: bool = False) -> int:
    """How many of ``lines`` are plays the record does not hold (a line that cannot be read
    counts: it may have been one)."""
    n = 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        payload = line.partition(" ")[2] if line[:1] != "[" else line
        try:
            number = json.loads(payload)[0]
            known = isinstance(number, int) and number <= count and not (damaged_first and i == 0)
        except (ValueError, TypeError, IndexError, KeyError, RecursionError):
            known = False
        n += not known
    return n
