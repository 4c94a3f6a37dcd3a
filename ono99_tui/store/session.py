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

import threading

from ..engine import Game
from ..engine.record import Record, SeatSpec
from .atomic import remove_stale_temps
from .journal import JournalWriter, journal_path, new_id
from .lock import Lock
from .saves import SaveError, SaveStore

FOLD_EVERY = 400  # plays in a journal before the record is rewritten anyway (a round that runs long)


class SaveSession:
    def __init__(self, store: SaveStore, name: str, seats: list[SeatSpec], rules_label: str,
                 undo_used: bool = False):
        self.store, self.name, self.seats, self.rules_label = store, name, list(seats), rules_label
        self.undo_used = undo_used
        self.lock: Lock | None = None
        self.read_only = False
        self.failed: str | None = None  # why the last save failed (None once saving works again)
        self._journal: JournalWriter | None = None
        self._base: tuple | None = None  # (game object, round, over, undo mark) the record was last written for
        self._saved = 0  # plays made durable (record + journal)
        self._game: Game | None = None  # the last game saved, for close()
        self._mutex = threading.Lock()  # the journal: the caller's appends vs the writer's restarting it
        self._writer = _Writer()

    def open(self) -> str | None:
        """Take the lock; a message (and read-only) when another ono99 holds it."""
        try:
            lock = Lock(self.store.path(self.name))
            if lock.acquire():
                self.lock = lock
                remove_stale_temps(self.store.folder, older_than=0.0, prefix=f".{self.name}.toml.")
                return None
            owner, hint = lock.owner(), ("" if lock.exact else f" If no ono99 has it open, delete {lock.path}.")
        except (OSError, SaveError) as exc:
            self.failed = f"cannot use the saves folder {self.store.folder}: {getattr(exc, 'strerror', None) or exc}"
            return f"Not saving: {self.failed}. Play continues; saving is tried again after each play."
        self.read_only = True
        return (f"{self.name!r} is open in another ono99 ({owner}): opened read-only, "
                f"so nothing here will be saved over it. Use Save as to keep a copy.{hint}")

    def opened(self, game: Game) -> None:
        """``game`` is what the save (and its journal) already hold, as just read from disk:
        nothing is written for it. Opening a save, even a finished one, leaves the file (its
        mtime, saved_at and place in the listing) as it was; the first new play writes."""
        self._game = game
        self._saved = len(game.plays)
        self._base = self._state(game)

    def record(self, game: Game) -> Record:
        meta = {"rules": self.rules_label, "finished": game.over, "undo_used": self.undo_used}
        return Record.from_game(game, self.seats, meta)

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
                            "not saving over it. Use Save as to keep a copy.")
                self.lock = lock
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
            text = str(exc) if isinstance(exc, SaveError) else f"cannot save to {self.store.folder}: {exc.strerror or exc}"
            self.failed = text
            if was_failing:
                return None
            return f"Not saving: {text}. Play continues; saving is tried again after each play."
        self.failed = None
        if was_failing:
            return f"Saving again: {self.name!r} is up to date."
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
            rest = [(n, line) for n, line in journal.tail if n > plays]
            if keep_journal or rest:
                self._journal = JournalWriter(journal.path, journal.id, rest, durable=True)
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
        if keep_journal and not game.over:
            self._journal = JournalWriter(journal_path(path), journal_id)
        else:
            journal_path(path).unlink(missing_ok=True)

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
        """Move the game to a new name and keep autosaving there; returns the name used.

        The save under the old name is removed (Save as moves the game: Load would
        otherwise list it twice), unless it is someone else's (opened read-only)."""
        if self.store._exists(self.store.path(name)):
            raise SaveError(f"a save named {name.strip()!r} already exists; choose another name")
        lock = Lock(self.store.path(name))
        try:
            if not lock.acquire():
                raise SaveError(f"{name!r} is open in another ono99")
        except OSError as exc:
            raise SaveError(f"cannot save to {self.store.folder}: {exc.strerror or exc}") from None
        old, ours = self.name, self.lock is not None and not self.read_only
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
        if ours and old != self.name:
            old_lock = previous[1]
            try:
                self.store.delete_owned(old)
            except SaveError:
                pass  # the copy stays; nothing is lost
            old_lock.release()
        elif previous[1] is not None:
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
