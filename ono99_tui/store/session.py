"""The save behind one table: autosave after every play, Save as, the lock, undo's mark.

UI-free: the table screen calls it and shows what it returns. A failing disk
never stops the game; it turns saving off and says why, once.
"""

from __future__ import annotations

from ..engine import Game
from ..engine.record import Record, SeatSpec
from .saves import Lock, SaveError, SaveStore


class SaveSession:
    def __init__(self, store: SaveStore, name: str, seats: list[SeatSpec], rules_label: str,
                 undo_used: bool = False):
        self.store, self.name, self.seats, self.rules_label = store, name, list(seats), rules_label
        self.undo_used = undo_used
        self.lock: Lock | None = None
        self.read_only = False
        self.failed: str | None = None  # why saving stopped

    def open(self) -> str | None:
        """Take the lock; a message (and read-only) when another ono99 holds it."""
        try:
            lock = Lock(self.store.path(self.name))
            if lock.acquire():
                self.lock = lock
                return None
            owner = lock.owner()
        except OSError as exc:
            self.failed = f"cannot use the saves folder {self.store.folder}: {exc.strerror or exc}"
            return f"Not saving: {self.failed}. Play continues."
        self.read_only = True
        return (f"{self.name!r} is open in another ono99 ({owner}): opened read-only, "
                "so nothing here will be saved over it. Use Save as to keep a copy.")

    def record(self, game: Game) -> Record:
        meta = {"rules": self.rules_label, "finished": game.over, "undo_used": self.undo_used}
        return Record.from_game(game, self.seats, meta)

    def save(self, game: Game) -> str | None:
        """Autosave; returns a warning the first time saving fails."""
        if self.read_only or self.failed:
            return None
        try:
            self.store.write(self.name, self.record(game))
        except SaveError as exc:
            self.failed = str(exc)
            return f"Not saving any more: {exc}. Play continues."
        return None

    def save_as(self, game: Game, name: str) -> str:
        """Write under a new name and keep autosaving there; returns the name used."""
        if self.store.path(name).exists():
            raise SaveError(f"a save named {name.strip()!r} already exists; choose another name")
        lock = Lock(self.store.path(name))
        if not lock.acquire():
            raise SaveError(f"{name!r} is open in another ono99")
        try:
            self.store.write(name, self.record(game))
        except SaveError:
            lock.release()
            raise
        self.close()
        self.lock, self.name, self.read_only, self.failed = lock, name, False, None
        return name

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def rebuild(game: Game, plays: int) -> Game:
    """The same game with only its first ``plays`` plays made (for undo)."""
    record = Record.from_game(game)
    fresh = record.new_game()
    for seat, card in game.plays[:plays]:
        assert fresh.current == seat
        fresh.play(card)
    return fresh
