"""Fail or kill a file operation between each of its steps (issue 20: every multi-file operation
crash-safe). A *step* is one call that changes the disk: creating a file (os.open with O_CREAT),
fsync, link, rename/replace, unlink, mkdir. ``Faults(at=k)`` makes the k-th such call raise
(``kill=True``: the process SIGKILLs itself instead, before or after the call), so a test can walk
k = 0, 1, 2, ... until the operation runs through, and check after each what survived.

Used by tests/test_crash_steps.py (faults, in the suite) and benchmarks/crash_steps.py (kills).
"""

from __future__ import annotations

import errno
import os
import random
import signal

from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.session import SaveSession

SEATS = [SeatSpec("You"), SeatSpec("Bo", "bot:easy"), SeatSpec("Cy", "bot:medium")]
_NAMES = ("link", "replace", "rename", "unlink", "fsync", "mkdir", "open")


class Injected(OSError):
    pass


class Faults:
    """Within the block, the ``at``-th disk-changing call fails (or kills); ``steps`` counts them."""

    def __init__(self, at: int | None, kill: str | None = None):
        self.at, self.kill, self.steps, self.fired = at, kill, 0, False
        self._saved: dict = {}

    def _wrap(self, name, real):
        def call(*args, **kwargs):
            if name == "open" and not (len(args) > 1 and args[1] & os.O_CREAT):
                return real(*args, **kwargs)  # a read
            k = self.steps
            self.steps += 1
            if k == self.at:
                self.fired = True
                if self.kill == "before":
                    os.kill(os.getpid(), signal.SIGKILL)
                if self.kill is None:
                    raise Injected(errno.EIO, f"injected fault at step {k} ({name})")
            result = real(*args, **kwargs)
            if k == self.at and self.kill == "after":
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        return call

    def __enter__(self):
        for name in _NAMES:
            self._saved[name] = getattr(os, name)
            setattr(os, name, self._wrap(name, self._saved[name]))
        return self

    def __exit__(self, *exc):
        for name, real in self._saved.items():
            setattr(os, name, real)
        return False


def mid_round_save(store: SaveStore, name: str = "friday", seed: int = 4) -> int:
    """A save whose journal holds plays the record does not (a game left mid-round, as a crash
    leaves it), with a .bak beside it; the number of plays acknowledged."""
    game = Game([s.name for s in SEATS], DEFAULT, seed)
    rng = random.Random(seed)
    session = SaveSession(store, name, SEATS, "standard")
    session.open()
    session.save(game)
    rounds, round_start = 0, 0
    while not game.over:
        before = game.round_no
        game.play(rng.choice(game.legal_plays()))
        session.save(game)
        session.wait()
        if game.round_no != before:
            rounds, round_start = rounds + 1, len(game.plays)
        elif rounds >= 2 and len(game.plays) - round_start >= 12:
            break  # two rounds folded into the record, 12 plays of the third only in the journal
    session.wait()
    session._drop_journal()  # as a killed process leaves it: journal unfolded, lock dropped
    session.lock.release()
    return len(game.plays)


def record_file(path, seed: int = 9, name: str = "friday") -> int:
    game = Game([s.name for s in SEATS], DEFAULT, seed)
    rng = random.Random(seed)
    while not game.over and len(game.plays) < 40:
        game.play(rng.choice(game.legal_plays()))
    path.write_text(Record.from_game(game, SEATS, {"name": name}).to_toml())
    return len(game.plays)


def finished_game(seed: int = 7) -> Game:
    game = Game([s.name for s in SEATS], DEFAULT, seed)
    rng = random.Random(seed)
    while not game.over:
        game.play(rng.choice(game.legal_plays()))
    return game


# -- the operations and what must hold after each is cut short --------------------------------

def setup(op: str, folder) -> dict:
    store = SaveStore(folder / "saves")
    state = {"op": op}
    if op in ("rename", "delete", "import", "fold", "restore"):
        state["plays"] = mid_round_save(store)
    if op == "restore":  # the .bak holds fewer plays than the save and its journal
        from ono99_tui.store.files import load_record

        state["bak_plays"] = load_record(store.path("friday").with_name("friday.toml.bak")).play_count
        assert state["bak_plays"] < state["plays"]
    if op == "import":
        state["import_plays"] = record_file(folder / "incoming.toml")
    if op == "stats":
        from ono99_tui.store.stats import record_game

        record_game(finished_game(), SEATS, folder / "stats.toml")
    return state


def run(op: str, folder) -> None:
    store = SaveStore(folder / "saves")
    if op == "rename":
        store.rename("friday", "saturday")
    elif op == "delete":
        store.delete("friday")
    elif op == "restore":
        store.restore("friday")
    elif op == "import":
        store.import_file(folder / "incoming.toml")
    elif op == "stats":
        from ono99_tui.store.stats import record_game

        record_game(finished_game(), SEATS, folder / "stats.toml")
    elif op == "fold":  # the save reopened and closed: its journal folded into the record
        record, game = store.open_game("friday")
        session = SaveSession(store, "friday", SEATS, "standard")
        session.open()
        session.opened(game)
        session._base = None
        session.save(game)
        session.close()


def check(state: dict, folder) -> list[str]:
    """What was lost or damaged: [] when every acknowledged play is still there."""
    op, store, lost = state["op"], SaveStore(folder / "saves"), []
    if op == "stats":
        from ono99_tui.store.stats import load_stats

        players, problem = load_stats(folder / "stats.toml")
        if problem:
            return [f"stats unreadable: {problem}"]
        if players.get("You", {}).get("games") not in (1, 2):
            lost.append(f"stats count {players.get('You', {}).get('games')}, not 1 or 2")
        return lost
    if op == "restore":
        return _restore_lost(state, store)
    names = store.names()
    for info in store.listing():
        if info.damaged:
            lost.append(f"{info.name}: damaged: {info.damaged}")
    expect = {"friday": state["plays"], "saturday": state["plays"]}
    for name in names:
        try:
            count = store.load(name).play_count
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            lost.append(f"{name}: does not open: {exc}")
            continue
        want = expect.get(name, state.get("import_plays"))
        if count != want:
            lost.append(f"{name}: {count} plays of {want}")
    if op in ("rename", "fold", "import") and not ({"friday", "saturday"} & set(names)):
        lost.append("the save is gone")
    if op == "delete" and names and names != ["friday"]:
        lost.append(f"unexpected saves {names}")
    if op == "delete" and not names and store.lone_baks():
        # (a delete cut short after the save went: `saves list` offered the deleted save back as
        # "[previous version only]", to be restored)
        lost.append(f"the deleted save is offered back: {store.lone_baks()}")
    # a new save made under a name a cut-short operation used must not inherit its journal
    for name in ("friday", "saturday"):
        if name not in names:
            store.write(name, Record.from_game(Game([s.name for s in SEATS], DEFAULT, 1), SEATS, {}))
            if store.load(name).play_count != 0:
                lost.append(f"a new save {name!r} took a leftover journal")
            store.delete(name)
    return lost


def _restore_lost(state: dict, store: SaveStore) -> list[str]:
    """A restore cut short leaves the save as it was (every play, its journal's too) or the .bak
    restored whole, and then the save it replaced kept with its journal; nothing reads as damaged."""
    from ono99_tui.store.journal import read_journal

    lost = [f"{name}: {why}" for name, why in store.check() if why]
    if lost:
        return lost
    count = store.load("friday").play_count
    if count == state["plays"]:
        return []
    if count != state["bak_plays"]:
        return [f"friday: {count} plays, neither the save's {state['plays']} nor the .bak's {state['bak_plays']}"]
    kept = sorted(p for p in store.folder.iterdir() if p.name.startswith("friday.toml.replaced-")
                  and not p.name.endswith(".journal"))
    if len(kept) != 1:
        return [f"restored, but the save it replaced is kept {len(kept)} times"]
    from ono99_tui.store.files import load_record

    record = load_record(kept[0])
    read = read_journal(record, kept[0])
    if record.play_count + len(read.plays) != state["plays"] or read.set_aside:
        return [f"the kept save and journal hold {record.play_count} + {len(read.plays)} plays "
                f"of {state['plays']}"]
    return []


OPERATIONS = ("rename", "delete", "import", "stats", "fold", "restore")
