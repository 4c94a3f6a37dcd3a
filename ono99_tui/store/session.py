"""The save behind one table: autosave after every play, Save as, the lock, undo's mark.

UI-free: the table calls it and shows what it returns. Each play is appended to the
save's journal (store/journal.py), a cost that does not grow with the game; the
record is rewritten whole ("folded") at round ends, at the game's end, after an
undo, every FOLD_EVERY plays and on close(). A failing disk never stops the game:
saving says why once, and is tried again after the next play.

Threads (benchmarks/saves.py measures both costs): the journal append stays on the
caller's thread, synchronous, because it is the crash safety -- a play is durable
when save() returns -- and it costs a write and an fdatasync (median ~0.3 ms, flat
with the game's length). The round-end fold (Record -> TOML, two fsyncs and a .bak:
4 ms median, 18 ms p95 and more on a busy disk at 5,000 plays) runs on one background
writer thread. It is safe to do late because the journal is not restarted by such a
fold: the new record names the same journal, whose lines it already holds are skipped
on reading, so a kill before, during or after the rewrite finds every acknowledged
play in record + journal; only once the record is on disk is the journal started
again (compacted) with the lines the record does not hold. Folds that rewind the game
(undo, a new game object, Save as, retrying after a failure) start a new journal and
stay synchronous, after waiting for the writer. close() and flush() wait for it too,
so leaving the table or the app writes everything.
"""

from __future__ import annotations

import os
import shlex
import threading

from ..engine import Game
from ..engine.record import Record, SeatSpec
from ..text import counted
from .atomic import remove_stale_temps
from .journal import JournalWriter, journal_path, new_id
from .lock import Lock
from .saves import SaveError, SaveStore, now_iso, write_protected  # (net/server.py imports it from here)

FOLD_EVERY = 400  # plays in a journal before the record is rewritten anyway (a round that runs long)


class SaveSession:
    def __init__(self, store: SaveStore, name: str, seats: list[SeatSpec], rules_label: str,
                 undo_used: bool = False):
        self.store, self.name, self.seats, self.rules_label = store, name, list(seats), rules_label
        self.undo_used = undo_used
        self.game_id: str | None = None  # meta.game (the table's game_id): every copy of the save keeps it
        self.lock: Lock | None = None
        self.read_only = False
        self.failed: str | None = None  # why the last save failed (None once saving works again)
        self._journal: JournalWriter | None = None
        self._base: tuple | None = None  # (game object, round, over, undo mark) the record was last written for
        self._saved = 0  # plays made durable (record + journal)
        self._game: Game | None = None  # the last game saved, for close()
        self._mutex = threading.Lock()  # the journal: the caller's appends vs the writer's restarting it
        self._writer = _Writer()
        # plays set aside from a damaged journal (meta.set_aside): kept in every record written
        self.set_aside: list[dict] = []
        self._journal_problem: str | None = None  # why there is no journal (its path is a folder...)
        self._told_journal: str | None = None
        # when a server closed this game because its players had all gone (meta.abandoned):
        # `ono99 saves list` says so; a later play (ono99 resume) writes the record without it
        self.abandoned: str | None = None

    def open(self, game: Game | None = None) -> str | None:
        """Take the lock; a message (and read-only) when another ono99 holds it.

        ``game``: the game as just read from this save (SaveStore.open_game). Its journal is
        checked again under the lock: plays that do not verify were left out of ``game``, so
        the journal is set aside (kept, renamed) and the record rewritten with the plays that
        verify, and the notice says how many were set aside and why."""
        if (why := self._write_protected()) is not None:
            self.read_only = True
            return why
        try:
            lock = Lock(self.store.path(self.name))
            if lock.acquire():
                self.lock = lock
                remove_stale_temps(self.store.folder, older_than=0.0, prefix=f".{self.name}.toml.")
                self.set_aside = self.store.set_aside_read(self.name)
                return self._settle_journal(game) if game is not None else None
            owner, hint = lock.owner(), ("" if lock.exact else f" If no ono99 has it open, delete {lock.path}.")
        except (OSError, SaveError) as exc:
            self.failed = f"cannot use the saves folder {self.store.folder}: {self._why(exc)}"
            # opened without the lock: another ono99 may save to it meanwhile; the first write that
            # gets the lock checks the save is still as read here (_changed_meanwhile)
            self._unlocked_at = self._on_disk()
            return f"Not saving: {self.failed}. Play continues; saving is tried again after each play."
        self.read_only = True
        notice = (f"{self.name!r} is open in another ono99 ({owner}): opened read-only, "
                  f"so nothing here will be saved over it. Use Save as (Ctrl+S on the screen, w in lines) to keep a "
                  f"copy.{hint}")
        if game is not None:
            report = self.store.journal_report(self.name, game)
            if report is not None and report.set_aside:
                notice += (f" Its journal is damaged: {report.describe()}; they are left where they are "
                           "(the ono99 that has it open keeps them).")
        return notice

    _unlocked_at: tuple | None = None  # the save and journal as read, when opened without the lock

    def _on_disk(self) -> tuple:
        """The save and its journal as they are on disk now: (inode, size, mtime) each, or None."""
        out = []
        path = self.store.path(self.name)
        for where in (path, journal_path(path)):
            try:
                st = os.lstat(where)
                out.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    def _write_protected(self) -> str | None:
        """A notice when the save is write-protected (``write_protected``)."""
        path = self.store.path(self.name)
        if not write_protected(path):
            return None
        return (f"{self.name!r} is write-protected (chmod a-w): opened read-only, so nothing here will be "
                f"saved over it. Use Save as (Ctrl+S on the screen, w in lines) to keep a copy, or "
                f"chmod u+w {shlex.quote(str(path))} to save to it again.")

    def _why(self, exc: OSError) -> str:
        """An OSError's reason, in words; "File exists" from a saves "folder" that is a file says so."""
        from .atomic import file_in_the_way

        folder = self.store.folder
        if os.path.lexists(folder) and not os.path.isdir(folder):
            return "it is a file, not a folder"
        if (in_the_way := file_in_the_way(folder)) is not None:  # (the data folder itself)
            return in_the_way
        name, why = getattr(exc, "filename", None), getattr(exc, "strerror", None)
        if name and why and str(name) != str(folder):  # which file: the lock, the journal...
            return f"{name}: {why}"
        return why or str(exc)

    def _settle_journal(self, game: Game) -> str | None:
        """Under the lock: a damaged journal set aside and the record rewritten without it."""
        report = self.store.journal_report(self.name, game)
        if report is None or not (report.set_aside or report.linked):
            return None
        try:
            kept = self.store.set_aside_journal(self.name)
        except (OSError, SaveError) as exc:
            self.read_only = True  # the next save would start a new journal over the damaged one
            return (f"Damaged journal: {report.describe()}. It could not be set aside "
                    f"({getattr(exc, 'strerror', None) or exc}), so this table does not save over it; "
                    "use Save as to keep a copy.")
        self.set_aside.append({"file": kept, "plays": report.set_aside if not report.linked else "some",
                               "reason": report.problem, "at": now_iso()})
        self._game = game
        try:
            self._fold(game)
        except (OSError, SaveError):
            self._base = None  # the next save rewrites the record
        self._saved = len(game.plays)
        plays = counted(len(game.plays), "play")
        if report.linked:  # the link itself moved aside (never followed): what it points at is untouched
            return (f"Save {self.name!r}: {report.describe()}. Opened with the {plays} of the "
                    f"save itself; the link is kept as {kept} (ono99 saves check lists it).")
        verify = "verifies" if len(game.plays) == 1 else "verify"
        return (f"Damaged save {self.name!r}: {report.describe()}. Opened with the {plays} "
                f"that {verify}; the damaged journal is kept as {kept} (ono99 saves check lists it).")

    def opened(self, game: Game) -> None:
        """``game`` is what the save (and its journal) already hold, as just read from disk:
        nothing is written for it. Opening a save, even a finished one, leaves the file (its
        mtime, saved_at and place in the listing) as it was; the first new play writes."""
        self._game = game
        self._saved = len(game.plays)
        if self._base is None or self._base[0] is not game:
            self._base = self._state(game)

    def unsaved(self, game: Game) -> int:
        """Plays of ``game`` this session keeps nowhere because it cannot write (read-only: a
        write-protected save, one open in another ono99): leaving loses them."""
        return abs(len(game.plays) - self._saved) if self.read_only else 0

    def copy_name(self) -> str:
        """What Save as suggests: "NAME copy" (then "NAME copy 2"...), a name no save has yet
        (the save's own name would be refused)."""
        from .saves import MAX_NAME

        base = f"{self.name[:MAX_NAME - len(' copy 999')].rstrip()} copy"
        name, k = base, 2
        while self.store._exists(self.store.path(name)) and k < 1000:
            name, k = f"{base} {k}", k + 1
        return name

    def record(self, game: Game) -> Record:
        meta = {"rules": self.rules_label, "finished": game.over, "undo_used": self.undo_used}
        if self.game_id is not None:
            meta["game"] = self.game_id
        notes = [n for n in self.set_aside if _kept(self.store.folder, n)]
        if notes:
            meta["set_aside"] = notes
        if self.abandoned is not None:
            meta["abandoned"] = self.abandoned
        return Record.from_game(game, self.seats, meta)

    def mark_abandoned(self, game: Game) -> bool:
        """The record rewritten now with meta.abandoned (the time), every play folded in; False
        when it cannot be (read-only, no lock, a failing disk: the plays stay where they are)."""
        if self.read_only or self.lock is None:
            return False
        self.abandoned = now_iso()
        try:
            self._fold(game, keep_journal=False)
        except (OSError, SaveError):
            self.abandoned = None
            return False
        self._game = game
        return True

    def save(self, game: Game) -> str | None:
        """Autosave; a warning when saving fails (once) and a notice when it works again."""
        if self.read_only:
            return None
        self._game = game
        was_failing = self.failed
        try:
            if self.lock is None:
                lock = Lock(self.store.path(self.name))
                if not lock.acquire():
                    self.read_only = True
                    return (f"{self.name!r} was opened by another ono99 meanwhile: "
                            "not saving over it. Use Save as (Ctrl+S on the screen, w in lines) to keep a copy.")
                if self._unlocked_at is not None and self._on_disk() != self._unlocked_at:
                    lock.release()
                    self.read_only = True
                    return (f"{self.name!r} was saved by another ono99 while this table could not take "
                            "its lock: not saving over it. Use Save as (Ctrl+S on the screen, w in lines) to keep a copy.")
                self.lock, self._unlocked_at = lock, None
            if self._writer.error is not None:  # a round-end fold failed: rewrite the record now
                self._writer.error = None
                self._base = None
            fold = self._needs_fold(game)
            if fold == "now":
                self._fold(game)
            else:
                if len(game.plays) > self._saved:
                    self._append(game)
                if fold == "later":
                    self._fold_later(game)
        except (OSError, SaveError) as exc:
            self._drop_journal()
            self._base = None  # the next save rewrites the record whole
            text = str(exc) if isinstance(exc, SaveError) else f"cannot save to {self.store.folder}: {self._why(exc)}"
            self.failed = text
            if was_failing:
                return None
            return f"Not saving: {text}. Play continues; saving is tried again after each play."
        self.failed = None
        if was_failing:
            return f"Saving again: {self.name!r} is up to date."
        if self._journal_problem and self._journal_problem != self._told_journal:
            self._told_journal = self._journal_problem
            return (f"Saving without a journal: {self._journal_problem}; every play rewrites the whole save "
                    "(slower on long games, nothing is lost).")
        return None

    def _state(self, game: Game) -> tuple:
        return (game, game.round_no, game.over, self.undo_used)

    def _needs_fold(self, game: Game) -> str | None:
        """"now" (a new journal: the game was rewound or replaced, or has none), "later" (a round
        end, the game's end, a long journal: the writer folds, the journal goes on), or None."""
        base = self._base
        # "is", not ==: undo hands over a new game object even when the counts match
        same_game = base is not None and base[0] is game and base[3] == self.undo_used
        new_plays = len(game.plays) > self._saved
        if not same_game or len(game.plays) < self._saved or (self._journal is None and new_plays):
            return "now"
        if self._journal is None:
            return None  # nothing new since the record was written (or read)
        if base[1:3] != (game.round_no, game.over) or (new_plays and self._journal.lines >= FOLD_EVERY
                                                        and not self._writer.pending):
            return "later"
        return None

    def _fold_later(self, game: Game) -> None:
        """The record as it stands, for the writer thread to write; the journal goes on meanwhile."""
        record = self.record(game)  # a copy: the game moves on while it is written
        record.meta["journal"] = self._journal.id
        self._base = self._state(game)
        plays, keep = len(game.plays), not game.over  # now: the game moves on while the writer works
        self._writer.submit(lambda: self._write_folded(record, plays, keep))

    def _write_folded(self, record: Record, plays: int, keep_journal: bool) -> None:
        """On the writer thread: the record, then the journal started again without what it holds."""
        name = self.name
        path = self.store.write(name, record)
        with self._mutex:
            journal = self._journal
            if journal is None or journal.id != record.meta["journal"] or name != self.name:
                return  # a synchronous fold has replaced that journal meanwhile
            rest, start = journal.restarted(plays)
            if keep_journal or rest:
                self._journal = JournalWriter(journal.path, journal.id, rest, durable=True, start=start)
            else:
                self._journal = None
                journal_path(path).unlink(missing_ok=True)
            journal.close()

    def wait(self) -> None:
        """Until the writer thread has written every fold asked for."""
        self._writer.wait()

    def _fold(self, game: Game, keep_journal: bool = True) -> None:
        """Rewrite the record whole, then start a fresh journal that continues it."""
        self._writer.wait()  # an older record must never land after this one
        self._writer.error = None
        self._drop_journal()
        journal_id = new_id()
        record = self.record(game)
        record.meta["journal"] = journal_id
        path = self.store.write(self.name, record)
        self._saved = len(game.plays)
        self._base = self._state(game)
        jpath = journal_path(path)
        try:
            if keep_journal and not game.over:
                self._journal = JournalWriter(jpath, journal_id)
            elif not os.path.isdir(jpath):
                jpath.unlink(missing_ok=True)
            self._journal_problem = None
        except OSError as exc:
            # the record is written and holds every play: only the journal is missing, so each
            # play folds (rewrites the record) instead; told once, not "Not saving" every play
            what = "is a folder" if os.path.isdir(jpath) else f"cannot be written ({exc.strerror or exc})"
            self._journal_problem = f"{jpath} {what}"

    def _append(self, game: Game) -> None:
        names = game.names
        start = self._saved
        plays = [(n, _round_of(game, n), names[seat], card)
                 for n, (seat, card) in enumerate(game.plays[start:], start=start + 1)]
        with self._mutex:
            self._journal.append(plays)
        self._saved = len(game.plays)

    def _drop_journal(self) -> None:
        with self._mutex:
            if self._journal is not None:
                self._journal.close()
                self._journal = None

    def save_as(self, game: Game, name: str) -> str:
        """Write a copy of the game as it stands under ``name``, a save a player can return to;
        this session goes on autosaving under its own name. Returns the name used.

        Opened read-only (another ono99 has this save), there is no autosave of our own: the
        copy becomes this table's save, autosaved from now on."""
        path = self.store.path(name)
        if self.store._exists(path):
            raise SaveError(f"a save named {name.strip()!r} already exists; choose another name")
        lock = Lock(path)
        try:
            if not lock.acquire():
                raise SaveError(f"{name!r} is open in another ono99")
        except OSError as exc:
            raise SaveError(f"cannot save to {self.store.folder}: {exc.strerror or exc}") from None
        if not self.read_only and self.lock is not None:
            try:
                record = self.record(game)
                record.meta.pop("set_aside", None)  # those kept files belong to this save, not the copy
                self.store.write(name, record)
            except OSError as exc:
                raise SaveError(f"cannot save to {self.store.folder}: {exc.strerror or exc}") from None
            finally:
                lock.release()
            try:  # this game, not the copy, is the one going on: Continue opened the copy after Esc
                os.utime(self.store.path(self.name), follow_symlinks=False)
            except (OSError, NotImplementedError):
                pass
            return self.store.check_name(name)
        self._writer.wait()
        self._drop_journal()
        previous = (self.name, self.lock, self.read_only, self.failed, self._base)
        self.name, self.lock, self.read_only, self.failed, self._base = name, lock, False, None, None
        try:
            self._fold(game)
        except (OSError, SaveError) as exc:
            lock.release()
            self.name, self.lock, self.read_only, self.failed, self._base = previous
            raise exc if isinstance(exc, SaveError) else SaveError(
                f"cannot save to {self.store.folder}: {exc.strerror or exc}") from None
        self._game = game
        if previous[1] is not None:
            previous[1].release()
        return self.name

    def flush(self) -> None:
        """Fold the journal into the record now (the table is being left): the writer's folds
        first, then whatever the journal still holds."""
        self._writer.wait()
        if self._game is not None and not self.read_only and self.lock is not None:
            try:
                if self._journal is not None and self._journal.lines:
                    self._fold(self._game, keep_journal=False)
                elif self._journal is not None:  # the record already holds every play: no journal left
                    path = self._journal.path
                    self._drop_journal()
                    path.unlink(missing_ok=True)
            except (OSError, SaveError):
                pass  # the journal keeps the plays; the next open reads them from there
        self._drop_journal()

    def close(self) -> None:
        self.flush()
        if self.lock is not None:
            self.lock.release()
            self.lock = None


class _Writer:
    """One background thread that runs a session's folds in order, started when first needed.

    At most one fold waits: a newer one replaces it (it holds everything the older one did).
    An error is kept for the session to see on its next save (it then rewrites the record)."""

    def __init__(self):
        self._cond = threading.Condition()
        self._job = None
        self._busy = False
        self._thread: threading.Thread | None = None
        self.error: str | None = None

    def submit(self, job) -> None:
        with self._cond:
            self._job = job
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="ono99-save-writer", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    @property
    def pending(self) -> bool:
        return self._job is not None or self._busy

    def wait(self) -> None:
        with self._cond:
            while self._job is not None or self._busy:
                self._cond.wait()

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._job is None:
                    if not self._cond.wait(timeout=5.0) and self._job is None:
                        self._thread = None  # idle: the thread ends, the next fold starts another
                        return
                job, self._job, self._busy = self._job, None, True
            try:
                job()
            except (OSError, SaveError) as exc:
                self.error = str(exc) if isinstance(exc, SaveError) else (exc.strerror or str(exc))
            except Exception as exc:  # noqa: BLE001 - never lose the thread silently; the next save rewrites
                self.error = f"{type(exc).__name__}: {exc}"
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()


def _kept(folder, note: dict) -> bool:
    """A set-aside note whose kept journal is still beside the save."""
    name = note.get("file") if isinstance(note, dict) else None
    return isinstance(name, str) and "/" not in name and os.path.lexists(os.path.join(folder, name))


def _round_of(game: Game, n: int) -> int:
    """The round of play number n (1-based), counting back from the current round."""
    total = len(game.plays)
    for r in range(len(game.round_plays), 0, -1):
        first = total - len(game.round_plays[r - 1]) + 1
        if n >= first:
            return r
        total = first - 1
    return 1


def rebuild(game: Game, plays: int) -> Game:
    """The same game with only its first ``plays`` plays made (for undo)."""
    record = Record.from_game(game)
    fresh = record.new_game()
    for seat, card in game.plays[:plays]:
        assert fresh.current == seat
        fresh.play(card)
    return fresh
