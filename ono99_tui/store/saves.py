"""Saved games: one game record (docs/record-format.md) per file in the saves folder.

A save is a plain record whose seats say who is human and which bot level each
bot is, plus a few [meta] keys (name, saved_at, rules, finished, undo_used,
journal) and the [summary] a listing shows. Writes are atomic with a .bak of the
previous version; plays since the last write sit in NAME.toml.journal
(store/journal.py); a save is opened under a lock (store/lock.py) so a second
ono99 cannot write over it; names typed by players are checked so nothing can
land outside the folder. Listing reads each save's summary (trusted only when
the file's digest matches) through a cache (store/save_index.py): it costs a
directory scan, not a replay. Opening a save, and `ono99 saves check`, replay
every play through the engine. Nothing read from disk is ever executed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import stat
import time
import unicodedata
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Container, Iterator

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.record import Record

# The engine is imported only when a save must be parsed or replayed: the menu, reading
# the index, starts without it (benchmarks/saves.py --startup).
from .atomic import is_link, remove_stale_temps, write_atomic, write_new, write_protected  # (cli imports it from here)
from .journal import JournalRead, journal_path, read_journal
from .lock import Lock
from ..text import quoted, visible
from .paths import saves_dir
from .readfile import RECORD_LIMIT, STDIN, ReadError, parse_toml, read_stdin, read_text
from .save_index import SaveIndex

__all__ = ["Lock", "SaveError", "SaveInfo", "SaveStore", "check_name"]

SUFFIX = ".toml"
MAX_NAME = 40
# names Windows keeps for devices: a save called "nul" could not be copied to or from it
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10)),
             *(f"{d}{i}" for d in ("com", "lpt") for i in "¹²³")}  # (Windows reads a superscript digit as one)


class SaveError(Exception):
    """A save cannot be read, written, named or opened; the message says which and why."""


def check_name(name: str) -> str:
    """A save name as typed by a player, or SaveError saying what is allowed."""
    # one spelling of "é" (composed), so a name typed on one system finds its file on another
    name = unicodedata.normalize("NFC", name or "").strip()
    if name.lower().endswith(SUFFIX):
        name = name[: -len(SUFFIX)].strip()
    if not name:
        raise SaveError("a save needs a name")
    if len(name) > MAX_NAME:
        raise SaveError(f"save names are at most {MAX_NAME} characters ({len(name)} given)")
    if not _name_ok(name):
        # (shown as typed: Python's quoting doubled a backslash, so the name shown was not the one typed)
        raise SaveError(f"save name {quoted(name)}: use letters, digits, spaces, '-' and '_', starting with a letter "
                        "or digit (no '/', '\\', '..' or leading '.')")
    if name.rstrip().lower() in _RESERVED:
        raise SaveError(f"save name {quoted(name)} is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9); "
                        "choose another")
    return name


# A file in the saves folder whose name is no save name: a copy "mygame (1).toml", a sync tool's
# conflict file, a name in another Unicode form (NFD, from macOS). Listed with this, never opened.
MISNAMED = ("its file name is not a save name, so it cannot be opened: rename it (r in Load) to letters, "
            "digits, spaces, '-' and '_'")


def misnamed(stem: str) -> bool:
    """Whether a file name (without .toml) in the saves folder is not the file of any save name:
    the name it would be opened by leads to another file, or none. Path tricks are never "misnamed"."""
    if not stem or "/" in stem or "\\" in stem or stem.startswith(".") or stem in ("..",):
        return False
    try:
        return check_name(stem) != stem
    except SaveError:
        return True


def name_for(stem: str) -> str:
    """A save name like a file's name that is none ("mygame (1)" -> "mygame 1"): a suggestion."""
    text = unicodedata.normalize("NFC", stem)
    text = "".join(c if c.isalnum() or c in " _-" or unicodedata.category(c) in ("Mn", "Mc") else " " for c in text)
    text = " ".join(text.split()).lstrip(" _-")[:MAX_NAME].rstrip()
    try:
        return check_name(text)
    except SaveError:
        return "game"


def _mtime(entry) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _name_ok(name: str) -> bool:
    """Letters and digits of any script (the marks some scripts write them with too), spaces,
    '-' and '_', starting with a letter or digit: never a path separator, a dot, a control or
    an invisible character, so a name is always one plain file name in the saves folder."""
    return name[0].isalnum() and all(c.isalnum() or c in " _-" or unicodedata.category(c) in ("Mn", "Mc")
                                     for c in name[1:])


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


@dataclass
class SaveInfo:
    name: str
    path: str  # a plain string: a thousand Path objects are a measurable part of a listing
    modified: float
    players: str = ""
    rules: str = ""
    round: int = 0
    scores: str = ""
    finished: bool = False
    undo_used: bool = False
    winner: str | None = None
    abandoned: bool = False  # a server closed it when its players had all gone (meta.abandoned)
    damaged: str | None = None  # the reason, when it cannot be played
    set_aside: str | None = None  # plays an open set aside from a damaged journal: how many, why, where
    has_bak: bool = False  # a NAME.toml.bak (the previous version) is beside it: `saves restore` offers it
    known: bool = True  # False: not read (infos(parse=False) found no index entry for it)
    # the summary shown was confirmed by the plays: written by this ono99 from a game, read by a
    # replay, or confirmed by an open or `saves check`. A summary taken from the file's head on the
    # word of its digest alone is not (a listing stays a cheap read; the digest only finds accidents)
    checked: bool = False

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))

    @property
    def state(self) -> str:
        if self.finished:
            return f"finished, {self.winner} won" if self.winner else "finished"
        return f"round {self.round}, abandoned" if self.abandoned else f"round {self.round}"

    def cached(self) -> dict[str, Any]:
        doc = asdict(self)
        for key in ("name", "path", "modified", "known", "has_bak"):
            doc.pop(key)
        return doc


def _describe_seats(seats) -> str:
    return ", ".join(f"{s.name}{'' if not s.is_bot else ' (' + str(s.bot_level) + ')'}" for s in seats)


@dataclass
class _Entry:
    """A save file as the directory scan found it."""

    name: str
    path: str
    stamp: tuple[int, int]  # (mtime_ns, size): the index's key
    modified: float  # the later of the save's and its journal's
    problem: str | None = None  # not a readable regular file
    has_bak: bool = False


class SaveStore:
    def __init__(self, folder: Path | None = None):
        # a folder given by the caller is resolved once, like the data folder (store/paths.py);
        # the default one is the data folder's "saves", which must be a real folder
        self.folder = Path(os.path.realpath(folder)) if folder is not None else saves_dir()

    def path(self, name: str) -> Path:
        self._check_folder()
        return self.folder / (check_name(name) + SUFFIX)

    def file_of(self, name: str) -> Path:
        """``path``, or for a file already in the folder whose name is no save name ("mygame
        (1).toml", a sync tool's "x.sync-conflict-....toml", a name in another Unicode form) that
        file: such a save is listed and can be renamed or deleted, never opened as it is named."""
        self._check_folder()
        raw = self.folder / (name + SUFFIX)
        if misnamed(name) and os.path.lexists(raw):  # (never the save it would be read as: "abc .toml"
            return raw                                 # is not "abc.toml", which may be a save of its own)
        return self.path(name)  # (or the SaveError saying what a name may be)

    def _check_folder(self) -> None:
        """SaveError when the saves folder is a link: ono99 follows no link inside the data folder."""
        if is_link(self.folder):
            try:
                target = f" (to {os.readlink(self.folder)})"
            except OSError:
                target = ""
            raise SaveError(f"the saves folder {self.folder} is a link{target}; ono99 follows no link inside "
                            "its data folder: put a real folder there, or link or move the data folder itself "
                            "(ONO99_DATA_DIR)")

    @staticmethod
    def check_name(name: str) -> str:
        return check_name(name)

    # -- writing -------------------------------------------------------------------------
    def write(self, name: str, record: "Record") -> Path:
        path = self.path(name)
        meta = dict(record.meta)
        meta["name"] = check_name(name)
        meta["saved_at"] = now_iso()
        record.meta = meta
        try:
            write_atomic(path, record.to_toml())
        except OSError as exc:
            raise SaveError(f"cannot save to {path}: {exc.strerror or exc}") from None
        if isinstance(record.summary, dict):
            _note_checked(self.folder, meta["name"], path)
        return path

    def _confirm(self, name: str, path: Path, record: "Record", truth: dict | None = None) -> None:
        """The listing's index told what the save at ``path`` (as it is now on disk) says, as
        confirmed by its plays: ``truth`` (the summary its replay gave), or, without it, the
        record's summary (a record this ono99 made from a game and has just written)."""
        summary = truth if truth is not None else record.summary
        if not isinstance(summary, dict):
            return
        try:
            st = os.stat(path)
        except OSError:
            return
        info = SaveInfo(name, str(path), st.st_mtime, checked=True)
        info.players = _describe_seats(record.seats)
        _from_head(info, record.names, record.meta, summary, str(path))
        index = SaveIndex(self.folder)
        index.put(name, (st.st_mtime_ns, st.st_size), info.cached())
        index.flush()

    def _create(self, name: str, record: "Record") -> bool:
        """Write a new save named ``name``, only if no save has that name: False when one has."""
        path = self.path(name)
        if self._exists(path):
            return False
        meta = dict(record.meta)
        meta["name"] = check_name(name)
        meta["saved_at"] = now_iso()
        record.meta = meta
        lock = Lock(path)  # held while leftovers are cleared: a rename into this name holds it too
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if not lock.acquire():
                return False  # someone is making a save of this name right now: take another
            try:
                if self._exists(path):
                    return False
                self._clear_leftovers(path)
                if not write_new(path, record.to_toml()):
                    return False
                if isinstance(record.summary, dict):  # set by the replay that checked it
                    _note_checked(self.folder, meta["name"], path)
                return True
            finally:
                lock.release()
        except OSError as exc:
            raise SaveError(f"cannot save to {path}: {exc.strerror or exc}") from None

    def new_name(self, prefix: str = "game") -> str:
        """A name no save has, reserved by creating its lock file exclusively: two ono99s
        starting games in the same second never pick one name (the session that opens the
        save then takes that lock; an unused reservation is an empty file nobody holds)."""
        from .atomic import open_nofollow

        stamp = time.strftime("%Y-%m-%d %H-%M-%S")
        name, k = f"{prefix} {stamp}", 2
        while True:
            path = self.path(name)
            if not self._exists(path):
                try:
                    self.folder.mkdir(parents=True, exist_ok=True)
                except OSError:  # (FileExistsError too: a file where the folder should be)
                    return name  # an unusable folder: saving will say so, with the reason
                try:
                    os.close(open_nofollow(Lock(path).path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                    return name
                except FileExistsError:
                    pass  # (that name's lock is taken: another ono99 reserved it this second)
                except OSError:
                    return name
            name, k = f"{prefix} {stamp} {k}", k + 1
            if k > 10_000:  # (never in use: a name is always free within a few tries)
                return name

    # -- reading -------------------------------------------------------------------------
    def open_game(self, name: str, events_from_round: int | None = None, record_events: bool = True):
        """(record, game): the save with its journal's plays, replayed once through the rules.

        ``events_from_round`` < 0 counts from the end: -1 keeps the events of the last two
        rounds only (a table's log starts there). Plays of a damaged journal that do not verify
        are left out here (the save session that opens the save sets them aside and says so)."""
        record, game, _ = self._open(name, events_from_round, record_events)
        return record, game

    def _open(self, name: str, events_from_round: int | None = None, record_events: bool = True):
        """(record, game, what the journal gave): see open_game."""
        from ..engine.record import Record, RecordError, summary_of

        path = self.path(name)
        if not self._exists(path):
            raise SaveError(f"no save named {name!r} in {self.folder}")
        if is_link(path):
            raise SaveError(f"{path} is a link, not a save: ono99 follows no link in the saves folder "
                            "(delete it, or put the real file there)")
        try:
            record = Record.loads(_read_text(path), str(path))
            written = record.summary  # the file's word; replay() sets the plays' own
            read = read_journal(record, path)
            extra = read.plays
            start = events_from_round
            if start is not None and start < 0:
                start = max(1, max(len(record.rounds), extra[-1][0] if extra else 0) + start)
            game = record.replay(record_events=record_events, events_from_round=start)
            self._confirmed_by_open(name, path, record, written, summary_of(game))
            _play_journal(record, game, read, start if record_events else None)
            _remember(path, len(game.plays), read)
        except RecordError as exc:
            reason = _with_source(exc, path)
            self._note_damaged(name, path, _without_source(str(exc), path))
            raise SaveError(f"damaged save: {reason}") from None
        return record, game, read

    def _confirmed_by_open(self, name: str, path: Path, record: "Record", written, truth: dict) -> None:
        """An open replayed the file: the listing shows what its plays say from now on, marked
        checked (only when the index does not say so already: an open costs no index write then)."""
        index = SaveIndex(self.folder)
        try:
            st = os.stat(path)
        except OSError:
            return
        cached = index.get(name, (st.st_mtime_ns, st.st_size))
        if cached is not None and cached.get("checked") and not cached.get("damaged") \
                and written == truth and cached.get("finished") == truth["finished"]:
            return
        self._confirm(name, path, record, truth)

    def journal_report(self, name: str, game) -> JournalRead | None:
        """What the save's journal gives beyond ``game`` (as open_game made it): None when there
        is no journal, or it holds nothing ``game`` lacks; else how many plays do not verify and
        why. Cheap when there is no journal (one lstat), the usual case after leaving a table."""
        from ..engine.record import Record, RecordError

        path = self.path(name)
        if not os.path.lexists(journal_path(path)):
            return None
        known = _recalled(path, len(game.plays))  # what open_game found, if neither file changed since
        if known is not None:
            return known if known.set_aside or known.not_a_file else None
        try:
            record = Record.loads(_read_text(path), str(path))
        except (RecordError, SaveError):
            return None
        read = read_journal(record, path)
        if read.not_a_file:
            return read
        expected = record.play_count + len(read.plays)
        if len(game.plays) < expected:  # the engine refused one: it and those after it
            n = len(game.plays) + 1
            read.set_aside += expected - len(game.plays)
            read.problem = read.problem or f"play {n} breaks the rules"
        return read if read.set_aside else None

    def set_aside_read(self, name: str) -> list[dict]:
        """The save's meta.set_aside notes (plays set aside from a damaged journal), read from the
        head of the file alone; [] when there is no save or none."""
        path = self.path(name)
        try:
            text = _read_text(path)
        except Exception:  # noqa: BLE001 - no save yet, or one that is not readable: no notes
            return []
        cut = text.find("\n[rules")
        try:
            doc = parse_toml(text[: cut if cut >= 0 else len(text)], str(path), "save")
        except (ReadError, RecursionError):
            return []
        notes = doc.get("meta", {}).get("set_aside") if isinstance(doc.get("meta"), dict) else None
        return [dict(n) for n in notes if isinstance(n, dict)] if isinstance(notes, list) else []

    def set_aside_journal(self, name: str) -> str:
        """Move the save's journal out of the way, kept (never deleted) as
        NAME.toml.journal-damaged-STAMP; the new file's name."""
        src = journal_path(self.path(name))
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for k in range(1, 1000):
            dst = src.with_name(f"{src.name}-damaged-{stamp}" + (f"-{k}" if k > 1 else ""))
            if os.path.lexists(dst):
                continue
            try:
                os.link(src, dst, follow_symlinks=False)  # exclusive: never over another kept journal
            except FileExistsError:
                continue
            except OSError:
                if os.path.lexists(dst):
                    continue
                os.rename(src, dst)  # a filesystem without hard links
                return dst.name
            src.unlink()
            return dst.name
        raise SaveError(f"cannot set aside {src}: too many kept journals beside it")

    def restore(self, name: str) -> tuple[str, str]:
        """Put the save's .bak (its previous version) back as the save. The save it replaces is
        kept as NAME.toml.replaced-STAMP and its journal (plays since it was written, which
        would not follow the .bak) as NAME.toml.replaced-STAMP.journal. Refused when the .bak
        does not replay, or the save is write-protected. Returns those kept files' names
        ("" for none).

        Crash-safe: the kept files are made first (new names only), then the restored record
        replaces the save in one rename (the commit), then the journal is removed. The restored
        record names the replaced journal (meta.replaced_journal), so a journal a crash left
        beside it is not read as its own, nor reported as damage."""
        from ..engine.record import Record, RecordError
        from .journal import new_id, read_id

        path = self.path(name)
        bak = path.with_name(path.name + ".bak")
        if not os.path.lexists(bak):
            if not os.path.lexists(path):
                raise SaveError(f"no save named {name!r} in {self.folder}")
            raise SaveError(f"{name!r} has no .bak (previous version) to restore")
        if write_protected(path):  # kept as it is on purpose, as a table opening it keeps it
            raise SaveError(f"{name!r} is write-protected (chmod a-w), so its .bak was not restored over it; "
                            f"to restore it, allow writing first: chmod u+w {shlex.quote(str(path))}")
        for what, where in (("a previous version", bak), ("a save", path)):
            if is_link(where):  # (its target could be any file of the user's: never copied, never replaced)
                raise SaveError(f"{where} is a link, not {what}: ono99 follows no link in the saves "
                                "folder (nothing was restored)")
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            raise SaveError(f"{path} is not a regular file, so the .bak was not restored over it "
                            "(move it away, then restore)")
        try:
            record = Record.loads(_read_text(bak), str(bak))
            record.replay(record_events=False)  # also sets its summary
        except RecordError as exc:
            raise SaveError(f"the .bak of {name!r} is damaged too: {_with_source(exc, bak)}") from None
        jpath = journal_path(path)
        with self._locked(name, path, "restore"):
            if self._same_game(name, record):  # (a second restore kept one more identical copy each time)
                raise SaveError(f"{name!r} already holds the same plays as its .bak (previous version): "
                                "nothing to restore")
            journal = jpath if _regular(jpath) else None
            meta = {**record.meta, "name": check_name(name), "journal": new_id()}
            meta.pop("replaced_journal", None)
            if journal is not None and (old := read_id(jpath)) is not None:
                meta["replaced_journal"] = old
            record.meta = meta
            kept = kept_journal = None
            if os.path.lexists(path) or journal is not None:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                kept, k = path.with_name(f"{path.name}.replaced-{stamp}"), 2
                while os.path.lexists(kept) or os.path.lexists(f"{kept}.journal"):
                    kept, k = path.with_name(f"{path.name}.replaced-{stamp}-{k}"), k + 1
                kept_journal = kept.with_name(kept.name + ".journal") if journal is not None else None
                kept = kept if os.path.lexists(path) else None
            made = []
            try:
                for src, dst in ((path, kept), (jpath, kept_journal)):
                    if dst is not None:
                        _link_or_copy(src, dst)
                        made.append(dst)
                write_atomic(path, record.to_toml(), backup=False)  # the commit
            except OSError as exc:
                for dst in made:  # new names only: the save and its journal are as they were
                    dst.unlink(missing_ok=True)
                raise SaveError(f"cannot restore {path}: {exc.strerror or exc} (nothing was restored)") from None
            _note_checked(self.folder, meta["name"], path)
            if journal is not None:
                try:
                    jpath.unlink()
                except OSError:
                    pass  # named by meta.replaced_journal: never read as the restored save's
        return (kept.name if kept else ""), (kept_journal.name if kept_journal else "")

    def _same_game(self, name: str, record: "Record") -> bool:
        """Whether the save ``name`` (its journal's plays included) replays to ``record``'s game:
        the same seats, rules, deal and plays (its meta aside). A damaged save is not."""
        from dataclasses import replace

        from ..engine.record import RecordError

        try:
            now = self.load(name)
        except (SaveError, RecordError, OSError):
            return False
        return replace(now, meta={}) == replace(record, meta={})

    def load(self, name: str) -> "Record":
        """The save as a record, every play checked (its journal's plays included)."""
        return self.open_game(name, record_events=False)[0]

    def _scan(self) -> list[_Entry]:
        """Every NAME.toml in the folder, newest first; SaveError when the folder cannot be read."""
        self._check_folder()
        try:
            with os.scandir(self.folder) as it:
                found = list(it)
        except FileNotFoundError:
            return []
        except OSError as exc:
            from .atomic import file_in_the_way

            why = file_in_the_way(self.folder / "x") or exc.strerror or exc
            raise SaveError(f"cannot read the saves folder {self.folder}: {why}") from None
        journals: dict[str, float] = {}
        baks: set[str] = set()
        entries: list[_Entry] = []
        for e in found:
            fname = e.name
            if fname.startswith("."):
                continue
            if fname.endswith(SUFFIX + ".journal"):
                try:
                    journals[fname[: -len(".journal")]] = e.stat().st_mtime
                except OSError:
                    pass
                continue
            if fname.endswith(SUFFIX + ".bak"):
                baks.add(fname[: -len(".bak")])
                continue
            if not fname.endswith(SUFFIX):
                continue
            name, path = fname[: -len(SUFFIX)], e.path
            if misnamed(name):  # (listed, never opened: every save's name is its own file's)
                entries.append(_Entry(name, path, (0, 0), _mtime(e), MISNAMED))
                continue
            if e.is_symlink():  # never followed: it could point at any file
                entries.append(_Entry(name, path, (0, 0), 0.0, "a link, not a save (ono99 follows no link in "
                                      "the saves folder; delete it, or put the real file there)"))
                continue
            try:
                st = e.stat()  # follows a symlink; it may also have been deleted since the scan
            except FileNotFoundError:
                if e.is_symlink():
                    entries.append(_Entry(name, path, (0, 0), 0.0, "a link to a file that does not exist"))
                continue  # deleted meanwhile (by another ono99): not a save any more
            except OSError as exc:
                entries.append(_Entry(name, path, (0, 0), 0.0, f"cannot read: {exc.strerror or exc}"))
                continue
            problem = None if stat.S_ISREG(st.st_mode) else "not a regular file"
            entries.append(_Entry(name, path, (st.st_mtime_ns, st.st_size), st.st_mtime, problem))
        for entry in entries:
            entry.modified = max(entry.modified, journals.get(entry.name + SUFFIX, 0.0))
            entry.has_bak = entry.name + SUFFIX in baks
        entries.sort(key=lambda en: en.modified, reverse=True)
        return entries

    def lone_baks(self) -> list[str]:
        """Names whose previous version (NAME.toml.bak) is there without the save itself (deleted
        by hand, or a delete cut short): nothing lists them as saves, yet restore puts them back."""
        self._check_folder()
        try:
            with os.scandir(self.folder) as it:
                files = {e.name for e in it}
        except OSError:
            return []
        return sorted(f[: -len(SUFFIX + ".bak")] for f in files
                      if f.endswith(SUFFIX + ".bak") and not f.startswith(".") and f[: -len(".bak")] not in files)

    def names(self) -> list[str]:
        """Save names, the most recently played first. SaveError when the folder cannot be read."""
        return [e.name for e in self._scan()]

    def infos(self, replay: bool = True, read_at_most: int | None = None) -> Iterator[SaveInfo]:
        """Each save's listing line, newest first, read from the index where it is current,
        else from the save's summary, else by replaying it. Never raises for a bad save;
        SaveError when the folder cannot be read.

        ``replay=False`` (the menu) never replays: a save without a trusted summary
        (version 1, edited by hand) is judged by its meta.finished mark alone; that much is
        indexed as a partial entry, so the next menu visit costs a directory listing, and a
        full listing (Load) still reads and indexes the whole line.
        ``read_at_most`` bounds how many saves the index does not know are read; the ones
        after those are yielded unread, with ``known`` False (the menu, on the UI thread,
        leaves them to a worker)."""
        entries = self._scan()
        index = SaveIndex(self.folder)
        index.keep_only({e.name for e in entries})
        budget = [len(entries) if read_at_most is None else read_at_most]
        full = read_at_most is None and replay
        confirmed, taken = _take_checked(self.folder, consume=full)
        done = False
        try:
            for entry in entries:
                yield self._info(entry, index, replay, budget, confirmed)
            done = True
        finally:
            index.flush()
            if taken is not None and done:  # what it told is in the index now
                try:
                    os.unlink(taken)
                except OSError:
                    pass
        if read_at_most is None:
            remove_stale_temps(self.folder)

    def info(self, name: str) -> SaveInfo:
        entry = next((e for e in self._scan() if e.name == name), None)
        if entry is None:
            return SaveInfo(name, str(self.folder / (name + SUFFIX)), 0.0, damaged="no such save")
        index = SaveIndex(self.folder)
        try:
            return self._info(entry, index)
        finally:
            index.flush()

    def _info(self, entry: _Entry, index: SaveIndex, replay: bool = True, budget: list[int] | None = None,
              confirmed: frozenset = frozenset()) -> SaveInfo:
        info = SaveInfo(entry.name, entry.path, entry.modified, has_bak=entry.has_bak)
        if entry.problem:
            info.damaged = entry.problem
            return info
        vouched = (entry.name, *entry.stamp) in confirmed  # this file, as ono99 wrote it from a game
        cached = index.get(entry.name, entry.stamp, partial=not replay)
        if cached is not None and vouched and not cached.get("checked") and not cached.get("damaged"):
            cached = None  # read its head again: the index entry is then marked checked
        if cached is None and budget is not None:
            if budget[0] <= 0:
                info.known = False
                return info
            budget[0] -= 1
        if cached is None:
            from ..engine.record import RecordError

            try:
                info.checked = vouched
                if not _fill(info, _read_text(entry.path), entry.path, replay):
                    # what the meta says (players, finished): enough for the menu, not for Load
                    index.put(entry.name, entry.stamp, info.cached(), partial=True)
                    return info
            except RecordError as exc:
                info.damaged = _without_source(str(exc), entry.path)
            except Exception as exc:  # noqa: BLE001 - a save must never crash the list
                info.damaged = f"unreadable ({type(exc).__name__})"
            index.put(entry.name, entry.stamp, info.cached())
            return info
        for key, value in cached.items():
            if key in SaveInfo.__dataclass_fields__ and key not in ("name", "path", "modified"):
                setattr(info, key, value)
        return info

    def _note_damaged(self, name: str, path: Path, reason: str) -> None:
        """Found damaged when opened: the listing says so from now on."""
        try:
            st = os.stat(path)
        except OSError:
            return
        index = SaveIndex(self.folder)
        info = SaveInfo(name, str(path), st.st_mtime, damaged=reason)
        index.put(name, (st.st_mtime_ns, st.st_size), info.cached())
        index.flush()

    def listing(self) -> list[SaveInfo]:
        return list(self.infos())

    def latest_unfinished(self, passed_over: Container[str] = ()) -> SaveInfo | None:
        """The most recently played save that is not finished and not known to be damaged, nor
        one of ``passed_over`` (the saves network servers keep: net.manifest.kept_saves).

        The listing's word (a summary) is checked against the plays before it is trusted: a save
        whose summary says "round 3" of a game its plays finish is finished (and listed so)."""
        for info in self.infos():
            if info.damaged or (info.finished and info.checked) or info.name in passed_over:
                continue
            try:
                _, game, _ = self._open(info.name, record_events=False)
            except SaveError:
                continue  # damaged: _open noted it for the listing
            if game.over:
                self._note_finished(info, game)
                continue
            return info
        return None

    def _note_finished(self, info: SaveInfo, game) -> None:
        """The listing put right for a save its summary called unfinished."""
        from ..engine.record import scores_text, summary_of

        try:
            st = os.stat(info.path)
        except OSError:
            return
        summary = summary_of(game)
        info.finished, info.round, info.winner = True, summary["round"], summary.get("winner")
        info.checked = True
        info.scores = scores_text(list(game.names), summary)
        index = SaveIndex(self.folder)
        index.put(info.name, (st.st_mtime_ns, st.st_size), info.cached())
        index.flush()

    def check(self) -> Iterator[tuple[str, str | None]]:
        """Every save replayed in full: (name, None) when it plays and agrees with itself,
        (name, reason) when not: a record that does not replay, journal plays that do not
        verify, plays an open set aside earlier (their file still kept), a [summary] or an
        index entry that says other than the plays. A wrong index entry is put right."""
        from ..engine.record import Record, scores_text, summary_of

        index = SaveIndex(self.folder)
        self.playable: set[str] = set()
        try:
            for entry in self._scan():
                if entry.problem:
                    yield entry.name, entry.problem
                    continue
                try:
                    record, game, read = self._open(entry.name, record_events=False)
                except SaveError as exc:
                    yield entry.name, _without_source(str(exc).removeprefix("damaged save: "), entry.path)
                    continue
                problems = []
                if read.set_aside or read.linked:
                    problems.append(read.describe())
                    self.playable.add(entry.name)  # (its record plays: only journal plays are set aside)
                problems += [f"{note}" for note in set_aside_notes(record.meta, self.folder)]
                try:  # the file alone, its journal aside: does its [summary] say what its plays do?
                    written = Record.loads(_read_text(Path(entry.path)), entry.path)
                    said = written.summary  # replay() sets it anew
                    alone = summary_of(written.replay(record_events=False))
                except Exception:  # noqa: BLE001 - it opened a moment ago: changed meanwhile
                    written = alone = said = None
                if said is not None:
                    wrong = _summary_mismatch(said, alone)
                    if wrong:
                        problems.append(f"its [summary] says {wrong}")
                cached = index.get(entry.name, entry.stamp)
                if cached is not None and alone is not None and not cached.get("damaged"):
                    want = {"round": alone["round"], "finished": alone["finished"], "winner": alone.get("winner"),
                            "scores": scores_text(written.names, alone)}
                    if {k: cached.get(k) for k in want} != want:
                        problems.append("the listing's index said other than its plays (put right)")
                    if {k: cached.get(k) for k in want} != want or not cached.get("checked"):
                        index.put(entry.name, entry.stamp, {**cached, **want, "checked": True})
                yield entry.name, "; ".join(problems) if problems else None
        finally:
            index.flush()

    # -- managing ------------------------------------------------------------------------
    def delete(self, name: str) -> None:
        """Delete a save nobody has open, holding its lock while deleting (another ono99 cannot
        open it between the check and the delete). A save that is a symlink -- dangling, or a
        loop that cannot be followed -- is deleted as the link itself."""
        path = self.file_of(name)
        try:
            os.lstat(path)  # the entry itself: a link that loops cannot be stat()ed through
        except FileNotFoundError:
            raise SaveError(f"no save named {name!r} in {self.folder}") from None
        except OSError as exc:
            raise SaveError(f"cannot look for {path}: {exc.strerror or exc}") from None
        with self._locked(name, path, "delete"):
            self.delete_owned(name)

    def _locked(self, name: str, path: Path, verb: str):
        """The save's lock, held for the block; SaveError when another ono99 has it."""
        from contextlib import contextmanager

        @contextmanager
        def held():
            lock = Lock(path)
            try:
                got = lock.acquire()
            except OSError as exc:  # (its lock at fault, a folder say: named, not the save)
                at = f"{exc.filename}: " if exc.filename and exc.strerror and str(exc.filename) != str(path) else ""
                raise SaveError(f"cannot {verb} {path}: {at}{exc.strerror or exc}") from None
            if not got:
                raise SaveError(f"{name!r} is open in another ono99 ({lock.owner()}); {lock.hint()}")
            try:
                yield lock
            finally:
                lock.release()

        return held()

    def delete_owned(self, name: str) -> None:
        """Delete a save this process holds the lock of (Save as moving it), or nobody does.

        Its previous version (.bak) goes first, then the save: that unlink is the delete. A
        .bak left without its save is offered back (``saves list``: "previous version only"), so
        a kill between the two brought the deleted save back; cut short before the save goes,
        the save is whole. A journal left after it belongs to no save and is cleared when the
        name is next used (``_clear_leftovers``)."""
        path = self.file_of(name)
        bak = path.with_name(path.name + ".bak")
        try:
            bak.unlink(missing_ok=True)
        except OSError as exc:
            raise SaveError(f"cannot delete {bak}: {exc.strerror or exc}") from None
        try:
            path.unlink()
        except OSError as exc:
            raise SaveError(f"cannot delete {path}: {exc.strerror or exc}") from None
        try:
            path.with_name(path.name + ".journal").unlink(missing_ok=True)
        except OSError:
            pass  # the save itself is gone; a leftover journal is harmless
        # (not the .lock: its holder removes it on release; removing it here would let another
        # ono99 take a second lock on a new file while ours still stands)

    def _clear_leftovers(self, path: Path) -> None:
        """A journal or .bak under a name with no save is a leftover (of a delete, or of a rename
        cut short before its last step): nothing reads it, and a new save of that name must
        not inherit it."""
        for extra in (".journal", ".bak"):
            try:
                path.with_name(path.name + extra).unlink(missing_ok=True)
            except OSError:
                pass

    def rename(self, old: str, new: str) -> None:
        src, dst = self.file_of(old), self.path(new)
        if not self._exists(src):
            raise SaveError(f"no save named {old!r} in {self.folder}")
        if self._exists(dst):
            raise SaveError(f"a save named {check_name(new)!r} already exists; choose another name")
        with self._locked(old, src, "rename"), self._locked(new, dst, "rename to"):
            self._move(src, dst)

    def _move(self, src: Path, dst: Path) -> None:
        """The save and its journal and .bak under a new name, crash-safe at every step.

        Each file is hard-linked (or, without hard links, copied) to the new name, the save
        last: until then the old name is whole and the new one has no save (its journal and
        .bak are leftovers, cleared); from then on the new name is whole. Only then are the
        old names removed, the save first. A crash anywhere leaves one whole save, with every
        play, under one of the two names (at worst both)."""
        if is_link(src):
            raise SaveError(f"{src} is a link, not a save; ono99 follows no link in the saves folder")
        self._clear_leftovers(dst)
        try:
            for extra in (".journal", ".bak"):
                part = src.with_name(src.name + extra)
                if os.path.lexists(part) and not is_link(part):
                    _link_or_copy(part, dst.with_name(dst.name + extra))
            _link_or_copy(src, dst)  # the commit point: the new name is a whole save from here
        except FileExistsError:
            self._clear_leftovers(dst)
            raise SaveError(f"a save named {dst.name[: -len(SUFFIX)]!r} already exists; choose another name") from None
        except OSError as exc:
            self._clear_leftovers(dst)
            raise SaveError(f"cannot rename {src.name} to {dst.name} in {src.parent}: {exc.strerror or exc}") from None
        try:
            src.unlink()
        except OSError as exc:  # undone: the old name still holds the whole game
            why = f"cannot rename {src.name} to {dst.name} in {src.parent}: {exc.strerror or exc}"
            try:
                dst.unlink()
            except OSError:
                raise SaveError(f"{why}; it is now under both names") from None
            self._clear_leftovers(dst)
            raise SaveError(why) from None
        self._clear_leftovers(src)

    def export(self, name: str, target: Path, why: list[str] | None = None) -> Path:
        """Write the save (its journal's plays included) to a new file. ``why``: a journal's plays
        left out (damaged: they do not verify) are said there, as replay says them."""
        target = Path(target)
        exists = f"{target} already exists; ono99 does not overwrite files (choose a new name)"
        if os.path.lexists(target):
            raise SaveError(exists)
        if not target.parent.is_dir():  # (a mistyped folder was made, with every folder above it)
            raise SaveError(f"cannot write {target}: there is no folder {target.parent}")
        record = self.exported(name, why)
        try:
            written = write_new(target, record.to_toml())  # (taken by another meanwhile: not overwritten)
        except OSError as exc:
            raise SaveError(f"cannot write {target}: {exc.strerror or exc}") from None
        if not written:
            raise SaveError(exists)
        return target

    def exported(self, name: str, why: list[str] | None = None) -> "Record":
        """The save as a record to export, every play checked; journal plays that do not verify
        are left out and said in ``why`` (an export said nothing of them)."""
        record, _game, read = self._open(name, record_events=False)
        if read.set_aside and why is not None:
            why.append(f"{self.path(name)}: {read.describe()}; exported without them")
        # the name it is exported from: a renamed save still says its old name inside (a rename
        # moves the file), and an import of the export came back under that old name
        record.meta["name"] = check_name(name)
        return record

    def import_file(self, source: Path, why: list[str] | None = None) -> str:
        """Add a record file to the saves; the name it was saved under. When that is not the name
        the record (or the file) gives, the reason is appended to ``why``."""
        from ..engine.record import Record, RecordError

        piped = str(source) == "-"  # the record on standard input (saves export NAME - | ...)
        source = Path(source)
        label = STDIN if piped else str(source)
        try:
            text = _read_stdin("record to import") if piped else _read_text(source, "file to import")
            record = Record.loads(text, label)
            record.replay(record_events=False)  # also sets its summary
        except RecordError as exc:
            raise SaveError(_with_source(exc, label)) from None
        record.meta.pop("journal", None)  # that journal belongs to the other folder
        named = record.meta.get("name")  # (a name that is not a string, true or 5, names nothing)
        given = named.strip() if isinstance(named, str) and named.strip() else "imported" if piped else source.stem
        notes = []
        try:
            wanted = check_name(given)
        except SaveError as exc:
            wanted = "imported"
            reason = str(exc).removeprefix(f"save name {given!r}").removesuffix("; choose another").lstrip(" :")
            notes.append(f"{given!r} cannot be a save name: {'it ' if reason.startswith('is ') else ''}{reason}")
        name, k = wanted, 2
        while not self._create(name, record):  # exclusive: two imports never take one name
            name, k = f"{wanted[: MAX_NAME - 4]} {k}", k + 1
            if k > 10_000:
                raise SaveError(f"too many saves named {wanted!r} ...; rename or delete some")
        if name != wanted:
            notes.append(f"a save named {wanted!r} already exists")
        if why is not None:
            why.extend(notes)
        return name

    @staticmethod
    def _exists(path: Path) -> bool:
        """Whether a file (or a link) is there; a folder we cannot look into is a SaveError, not "no"."""
        try:
            os.lstat(path)
        except FileNotFoundError:
            return False
        except NotADirectoryError:
            return False
        except OSError as exc:
            raise SaveError(f"cannot look for {path}: {exc.strerror or exc}") from None
        return True


CHECKED = ".checked"  # (name, mtime_ns, size) of each save ono99 wrote from a game since the last listing


def _note_checked(folder: Path, name: str, path: Path) -> None:
    """Tell the listing that the save at ``path``, as it is now, was written by ono99 from a game
    (its summary is the plays' own): one line appended to saves/.checked, so a write costs the
    same however many saves there are (the listing folds the lines into its index). Only a
    cache: a line lost costs a "(*)" in `saves list` until the save is opened or checked."""
    from .atomic import open_nofollow, refuse_shared

    try:
        st = os.stat(path)
        fd = open_nofollow(folder / CHECKED, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        refuse_shared(fd, folder / CHECKED)  # (closed: a hard link would take our lines elsewhere)
    except OSError:
        return
    try:
        if os.fstat(fd).st_size < (1 << 20):  # never grows without bound (a listing takes it)
            os.write(fd, (json.dumps([name, st.st_mtime_ns, st.st_size], ensure_ascii=False) + "\n").encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def _take_checked(folder: Path, consume: bool) -> tuple[frozenset, Path | None]:
    """The saves the lines of saves/.checked vouch for, as (name, mtime_ns, size); with
    ``consume``, the file is first moved aside (new lines go to a new one) and that moved file
    returned for the caller to delete once its index holds what it told."""
    from .atomic import TEMP_SUFFIX, is_link, open_nofollow

    src = folder / CHECKED
    path = src
    if consume:
        path = folder / f"{CHECKED}.{os.getpid()}{TEMP_SUFFIX}"
        try:
            if is_link(src):
                src.unlink()  # never read through a link; it told nothing
                return frozenset(), None
            os.replace(src, path)
        except OSError:
            return frozenset(), None
    try:
        fd = open_nofollow(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(1 << 20)
    except OSError:
        return frozenset(), (path if consume else None)
    found = set()
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            name, mtime, size = json.loads(line)
        except (ValueError, TypeError, RecursionError):
            continue
        if isinstance(name, str) and isinstance(mtime, int) and isinstance(size, int):
            found.add((name, mtime, size))
    return frozenset(found), (path if consume else None)


def _link_or_copy(src: Path, dst: Path) -> None:
    """``dst`` as a second name of ``src`` (FileExistsError if taken); a durable copy where the
    file system has no hard links."""
    import errno

    try:
        os.link(src, dst, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        with open(src, "rb") as fh:  # not a link: checked by the caller
            data = fh.read()
        if not write_new(dst, data):
            raise FileExistsError(errno.EEXIST, "exists", str(dst)) from None
        return
    from .atomic import _fsync_dir

    _fsync_dir(dst.parent)


def restored_kept(kept: str, journal: str) -> str:
    """What `saves restore` kept aside, as the end of its sentence ("" for nothing)."""
    if kept and journal:
        return f"; the save it replaced is kept as {kept}, and its journal (plays since) as {journal}"
    if kept:
        return f"; the save it replaced is kept as {kept}"
    return f"; the journal left beside it is kept as {journal}" if journal else ""


def _regular(path: Path) -> bool:
    """A regular file (never a link followed) is at ``path``."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _play_journal(record: "Record", game, read: JournalRead, events_from_round: int | None = None) -> None:
    """The journal's plays, each checked by the engine like a record's; the first that does
    not follow (a damaged journal) ends them, and the record keeps every play before it.
    ``read`` is told how many were refused and why. With ``events_from_round``, events are
    kept only from that round on (as Record.replay does)."""
    from ..engine.record import summary_of

    plays = read.plays
    late = events_from_round is not None and game.round_no < events_from_round and bool(plays)
    if late:
        game._recording = False  # noqa: SLF001 - the engine's own switch, as Record.replay sets it
    for i, (round_no, name, card) in enumerate(plays):
        if late and game.round_no >= events_from_round:
            game._recording = True  # noqa: SLF001
            late = False
        if game.over or game.round_no != round_no or game.names[game.current] != name or card not in game.legal_plays():
            refused = len(plays) - i
            read.plays = plays[:i]
            read.set_aside += refused
            read.problem = read.problem or f"play {len(game.plays) + 1} ({name}: {card}) breaks the rules"
            break
        game.play(card)
        while len(record.rounds) < round_no:
            record.rounds.append([])
        record.rounds[round_no - 1].append((name, card))
    if late:
        game._recording = True  # noqa: SLF001
    if plays:
        record.summary = summary_of(game)


# What open_game last found in a save's journal, so the save session's look under the lock does
# not parse the record again (a 5,000-play record: ~20 ms): path -> (the files' stamps, plays, read)
_READS: dict[str, tuple[tuple, int, JournalRead]] = {}


def _stamps(path: Path) -> tuple | None:
    try:
        return tuple((st.st_ino, st.st_size, st.st_mtime_ns)
                     for st in (os.stat(path), os.lstat(journal_path(path))))
    except OSError:
        return None


def _remember(path: Path, plays: int, read: JournalRead) -> None:
    stamps = _stamps(path)
    if stamps is None:
        return
    if len(_READS) > 16:
        _READS.clear()
    _READS[str(path)] = (stamps, plays, dataclasses.replace(read, plays=list(read.plays)))


def _recalled(path: Path, plays: int) -> JournalRead | None:
    entry = _READS.get(str(path))
    if entry is None or entry[1] != plays or entry[0] != _stamps(path):
        return None
    return entry[2]


def set_aside_notes(meta: dict, folder: Path) -> list[str]:
    """The save's notes of plays set aside from a damaged journal whose kept file is still there."""
    notes = meta.get("set_aside")
    out = []
    if isinstance(notes, list):
        for note in notes:
            if not (isinstance(note, dict) and isinstance(note.get("file"), str)):
                continue
            if "/" in note["file"] or not os.path.lexists(Path(folder) / note["file"]):
                continue
            plays = note.get("plays") if isinstance(note.get("plays"), int) else "some"
            out.append(f"{plays} play{'' if plays == 1 else 's'} set aside from a damaged journal "
                       f"({visible(str(note.get('reason', 'damaged')))}), kept in {visible(note['file'])}")
    return out


def _summary_mismatch(written: dict, truth: dict) -> str | None:
    """What the written [summary] gets wrong, or None."""
    from ..engine.record import shown

    for key in ("round", "plays", "finished", "winner", "scores", "out"):
        if written.get(key) != truth.get(key):
            said = f"{key} = {shown(written[key])}" if key in written else f"no {key}"
            return f"{said} (the plays: {'none' if truth.get(key) is None else shown(truth[key])})"
    return None


def _read_text(path: Path, what: str = "save") -> str:
    """A save's text: a regular file only (a FIFO would hang us), of a sane size, UTF-8."""
    from ..engine.record import RecordError

    try:
        return read_text(path, what, RECORD_LIMIT)
    except ReadError as exc:
        raise RecordError(visible(exc)) from None


def _read_stdin(what: str) -> str:
    from ..engine.record import RecordError

    try:
        return read_stdin(what, RECORD_LIMIT)
    except ReadError as exc:
        raise RecordError(visible(exc)) from None


def _fill(info: SaveInfo, text: str, path: str, replay: bool = True) -> bool:
    """The listing line from the save's head when its digest vouches for it, else by replay
    (or, without ``replay``, only whether it is finished, from its meta: False then)."""
    from ..engine.record import Record, summary_of

    head = _trusted_head(text)
    if head is not None:
        info.players = _describe_seats(head[0])
        meta, summary = head[1], head[2]
    elif not replay:
        record = Record.loads(text, str(path))
        info.players = _describe_seats(record.seats)
        info.finished = record.meta.get("finished") is True
        return False
    else:
        record = Record.loads(text, str(path))
        game = record.replay(record_events=False)
        info.players = _describe_seats(record.seats)
        meta, summary = record.meta, summary_of(game)
        info.checked = True  # replayed: the plays' own word
    _from_head(info, [s.name for s in (head[0] if head else record.seats)], meta, summary, path)
    return True


def _from_head(info: SaveInfo, names: list[str], meta: dict, summary: dict, path: str) -> None:
    """The listing line's fields from a save's meta and a summary (the file's, or its replay's)."""
    from ..engine.record import scores_text

    info.rules = str(meta.get("rules", "")) or "custom"
    info.set_aside = "; ".join(set_aside_notes(meta, Path(path).parent)) or None
    info.undo_used = meta.get("undo_used") is True
    info.abandoned = isinstance(meta.get("abandoned"), str)
    info.round = summary["round"]
    info.finished = summary["finished"]
    info.winner = summary.get("winner")
    info.scores = scores_text(names, summary)


def _trusted_head(text: str):
    """(seats, meta, summary) read from the head alone, or None when the file must be replayed."""
    from ..engine.record import VERSION, Record, RecordError, check_digest

    if check_digest(text) is not True:
        return None
    cut = text.find("\n[rules")
    if cut < 0:
        return None
    try:
        doc = parse_toml(text[:cut], "head", "save")
        version = doc.get("version")
        if not isinstance(version, int) or not 1 <= version <= VERSION:
            return None
        record = Record.from_dict({**doc, "rules": {}}, "head")
    except (ReadError, RecordError, RecursionError):
        return None
    summary = record.summary
    if not (isinstance(summary, dict) and isinstance(summary.get("round"), int)
            and isinstance(summary.get("finished"), bool) and isinstance(summary.get("scores"), list)
            and isinstance(summary.get("out"), list) and isinstance(summary.get("scoring"), str)):
        return None
    return record.seats, record.meta, summary


def _without_source(text: str, path: Path) -> str:
    """A problem as a save's list says it, under the save's name: without its path, keeping
    where in the file ("line 3: ..." of "PATH, line 3: ...")."""
    return text.replace(f"{path}: ", "").replace(f"{path}, ", "")


def _with_source(exc: Exception, path: Path | str) -> str:
    text = str(exc)
    return text if text.startswith(str(path)) else f"{path}: {text}"
