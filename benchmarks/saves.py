"""Saves at scale (issue 14): autosave per play, listing 1,000 saves, resuming a long game.

Every figure is measured in this run, with its baseline from the same run:

- autosave per play (SaveSession.save, the table's own path: journal append, record
  rewritten at round ends) at 100, 1,000 and 5,000 plays into a game; baseline: a
  plain open().write() of the same record's bytes. Target: median <= 5 ms, and
  5,000 within 1.5x of 100.
- CPU spent autosaving a whole 5,000-play game (it grew with the square of the length).
- `saves list` / the Load screen's reading with 1,000 saves (SaveStore.infos), cold
  (no index: every save's summary read and checked) and warm (index current);
  baseline: tomllib parsing those files. Target <= 1 s.
- resume a 5,000-play save: SaveStore.open_game as the app calls it; the rest of the
  way to the first table frame is timed by `--startup` below. Target <= 0.5 s. Also a
  5,000-play save killed with ~1,000 plays still in its journal (every line's check value
  verified, then each play checked by the engine), and the save session's second look
  at that journal under the lock (SaveStore.journal_report).
- the screens themselves, in one process through Pilot (80x24), each with a same-run
  baseline: the Load screen with 1,000 saves, until its list has every row (cold index and
  warm; baseline: a bare Textual app filling an OptionList with the same 1,000 lines); the
  menu with a cold index and with 1,000 version-1 saves (its first frame, and until its
  worker has read and indexed them all; the second visit; baseline: a directory listing and
  a bare app's first frame); back from a game to the menu with 1,000 saves (baseline: popping
  a screen in a bare app).
- with --startup: start to main menu with 1,000 finished saves, and resume of the
  5,000-play save to its first table frame, each in a fresh headless process, vs a bare
  Textual app. Target <= 1.5x the bare app.

    python benchmarks/saves.py [--startup]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import load_rules_text
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.session import SaveSession

SEATS = [SeatSpec("You"), SeatSpec("Bo", "bot:medium"), SeatSpec("Cy", "bot:medium"), SeatSpec("Di", "bot:medium")]
LONG_RULES = '[scoring]\nmode = "points"\nlimit = 100000\n'  # a points game that runs to thousands of plays


def long_game(plays: int, seed: int = 1) -> Game:
    """A 4-player points game stopped after ``plays`` random legal plays."""
    g = Game([s.name for s in SEATS], load_rules_text(LONG_RULES), seed, record_events=False)
    rng = random.Random(seed)
    while len(g.plays) < plays and not g.over:
        g.play(rng.choice(g.legal_plays()))
    return g


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} ms, p95 {sorted(values)[int(.95 * len(values))]:.2f} ms"


def autosave(tmp: Path) -> None:
    print("autosave per play, SaveSession.save (journal; record rewritten at round ends):")
    store = SaveStore(tmp / "autosave")
    # three games, at 100, 1,000 and 5,000 plays, saved in turn so a busy disk slows all three alike
    window = 150  # plays timed from each mark on (several round ends in each)
    tables = {}
    for mark in (100, 1000, 5000):
        g = long_game(mark, seed=mark)
        session = SaveSession(store, f"at {mark}", SEATS, "points")
        session.open()
        session.save(g)
        tables[mark] = (g, session, random.Random(mark), [], [])
    ends: dict[int, list[float]] = {m: [] for m in tables}
    for _ in range(window):
        for mark, (g, session, rng, wall, cpu) in tables.items():
            round_no = g.round_no
            g.play(rng.choice(g.legal_plays()))
            c, t = time.process_time(), time.perf_counter()
            session.save(g)
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            if g.round_no != round_no:
                ends[mark].append(wall[-1])
    for mark, (g, session, rng, wall, cpu) in tables.items():
        print(f"  at {mark:>5} plays: wall {ms(wall)}; CPU mean {statistics.mean(cpu):.3f} ms; "
              f"at a round end (the fold handed to the writer thread) median {statistics.median(ends[mark]):.2f} ms, "
              f"max {max(ends[mark]):.2f} ms over {len(ends[mark])}")
    w = {m: statistics.median(t[3]) for m, t in tables.items()}
    c = {m: statistics.mean(t[4]) for m, t in tables.items()}
    big = tables[5000][0]
    folds = []
    for _ in range(10):  # what a round end's fold costs at 5,000 plays (now on the writer thread)
        t = time.perf_counter()
        tables[5000][1]._fold(big)
        folds.append((time.perf_counter() - t) * 1000)
    for g, session, *_ in tables.values():
        session.close()
    text = store.path("at 5000").read_text()
    plain = []
    for _ in range(20):
        t = time.perf_counter()
        with open(tmp / "plain.toml", "w") as fh:
            fh.write(text)
        plain.append((time.perf_counter() - t) * 1000)
    print(f"  5,000 / 100: wall median {w[5000] / w[100]:.2f}x, CPU mean {c[5000] / c[100]:.2f}x (target <= 1.5x); "
          f"plain write of the {len(text) // 1024} KiB record: median {statistics.median(plain):.2f} ms")
    print(f"  the record rewritten at a round end, at {len(big.plays)} plays (record, TOML, 2 fsyncs, .bak; "
          f"done by the session's writer thread, off the UI thread): {ms(folds)}")
    g = Game([s.name for s in SEATS], load_rules_text(LONG_RULES), 1, record_events=False)
    rng = random.Random(1)
    session = SaveSession(store, "whole", SEATS, "points")
    session.open()
    cpu_start = time.process_time()
    while len(g.plays) < 5000:
        g.play(rng.choice(g.legal_plays()))
        session.save(g)
    cpu = time.process_time() - cpu_start
    session.close()
    print(f"  CPU for all {len(g.plays)} autosaves of a game: {cpu:.2f} s ({1000 * cpu / len(g.plays):.2f} ms per play; "
          "it grew with the square of the length)")


def make_saves(folder: Path, count: int) -> None:
    """``count`` finished saves (short games, every one different), as ono99 writes them."""
    store = SaveStore(folder)
    rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
    for i in range(count):
        g = Game([s.name for s in SEATS], rules, i, record_events=False)
        rng = random.Random(i)
        while not g.over:
            g.play(rng.choice(g.legal_plays()))
        store.write(f"game {i:04d}", Record.from_game(g, SEATS, {"rules": "short", "finished": True}))


def listing(data: Path) -> None:
    folder = data / "saves"
    t = time.perf_counter()
    make_saves(folder, 1000)
    print(f"1,000 finished saves written in {time.perf_counter() - t:.1f} s")
    store = SaveStore(folder)
    (folder / ".index.json").unlink(missing_ok=True)
    t = time.perf_counter()
    infos = list(store.infos())
    cold = time.perf_counter() - t
    warm = []
    for _ in range(5):
        t = time.perf_counter()
        infos = list(store.infos())
        warm.append(time.perf_counter() - t)
    t = time.perf_counter()
    for p in folder.glob("*.toml"):
        tomllib.loads(p.read_text())
    parse = time.perf_counter() - t
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "list"], capture_output=True, text=True,
                         env={**os.environ, "ONO99_DATA_DIR": str(data)}, timeout=120)
    cli = time.perf_counter() - t
    assert out.returncode == 0 and len(infos) == 1000, out.stderr
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import ono99_tui.cli"], check=True, timeout=60)
    python = time.perf_counter() - t
    print("listing 1,000 saves (SaveStore.infos: what the Load screen's worker and `saves list` read):")
    print(f"  cold (no index) {cold * 1000:.0f} ms, warm {statistics.median(warm) * 1000:.0f} ms; "
          f"tomllib parse of every file: {parse * 1000:.0f} ms (warm/parse {statistics.median(warm) / parse:.2f}x)"
          "  target <= 1 s")
    print(f"  `ono99 saves list` as a process: {cli * 1000:.0f} ms (python + import alone: {python * 1000:.0f} ms)")


# -- the screens, through Pilot ------------------------------------------------------------------

def make_v1_saves(folder: Path, count: int) -> None:
    """``count`` finished version-1 saves (no [summary], no digest): what ono99 1.0 wrote."""
    import tomli_w

    folder.mkdir(parents=True, exist_ok=True)
    rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
    for i in range(count):
        g = Game([s.name for s in SEATS], rules, i, record_events=False)
        rng = random.Random(i)
        while not g.over:
            g.play(rng.choice(g.legal_plays()))
        doc = Record.from_game(g, SEATS, {"rules": "short", "finished": True}).to_dict()
        doc["version"] = 1
        doc.pop("summary", None)
        (folder / f"old {i:04d}.toml").write_text("# an ono99 1.0 save\n" + tomli_w.dumps(doc))


async def _until(pilot, done, limit: float = 120.0) -> float:
    """Seconds until ``done()`` holds, pausing the app between looks (its own work decides)."""
    t = time.perf_counter()
    while not done():
        if time.perf_counter() - t > limit:
            raise SystemExit("gave up waiting: the screen did not get there")
        await pilot.pause()
    return time.perf_counter() - t


def screens(data: Path, tmp: Path) -> None:
    import asyncio

    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import Footer, Header, OptionList
    from textual.widgets.option_list import Option

    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.load import LoadScreen, describe
    from ono99_tui.tui.screens.menu import MenuScreen

    folder = data / "saves"
    os.environ["ONO99_DATA_DIR"], os.environ["ONO99_CONFIG_DIR"] = str(data), str(data / "cfg")
    lines = [describe(i) for i in SaveStore(folder).infos()]

    class Bare(App):
        def compose(self):
            yield Header()
            yield OptionList(id="saves")
            yield Footer()

    async def bare_list() -> tuple[float, float]:
        app = Bare()
        t = time.perf_counter()
        async with app.run_test(size=(80, 24)) as pilot:
            first = time.perf_counter() - t
            t = time.perf_counter()
            app.query_one(OptionList).add_options(Option(text) for text in lines)
            await pilot.pause()
            filled = time.perf_counter() - t
            app.push_screen(Screen())
            await pilot.pause()
            t = time.perf_counter()
            app.pop_screen()
            await pilot.pause()
            popped = time.perf_counter() - t
        return first, filled, popped

    async def load_screen() -> float:
        app = Ono99App(bot_delay=600)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            t = time.perf_counter()
            app.push_screen(LoadScreen())
            await pilot.pause()
            screen = app.screen
            await _until(pilot, lambda: len(screen.query_one("#saves", OptionList).options) >= 1000
                         and "so far" not in str(screen.query_one("#load-note").render()))
            return time.perf_counter() - t

    reads: list[float] = []

    class Timed(Ono99App):
        def menu_available(self, found=None):
            t = time.perf_counter()
            try:
                return super().menu_available(found)
            finally:
                reads.append(time.perf_counter() - t)

    async def menu() -> tuple[float, float, float]:
        """(first frame, until the menu's worker has read everything, a second visit)"""
        app = Timed(bot_delay=600)
        t = time.perf_counter()
        async with app.run_test(size=(80, 24)) as pilot:
            first = time.perf_counter() - t
            await app.workers.wait_for_complete()  # the menu's worker, reading what the index lacks
            await pilot.pause()  # and the menu refreshed from what it found
            settled = time.perf_counter() - t
            app.menu_choice("settings")
            await pilot.pause()
            t = time.perf_counter()
            app.pop_screen()
            await pilot.pause()
            await app.workers.wait_for_complete()
            again = time.perf_counter() - t
        return first, settled, again

    async def back_from_a_game() -> float:
        app = Ono99App(bot_delay=600)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            app.menu_choice("quick")
            await _until(pilot, lambda: type(app.screen).__name__ == "GameScreen" and app.screen.is_mounted)
            await pilot.pause()
            t = time.perf_counter()
            app.pop_screen()  # what Escape, then "Menu", does
            await _until(pilot, lambda: isinstance(app.screen, MenuScreen))
            await app.workers.wait_for_complete()
            await pilot.pause()
            return time.perf_counter() - t

    def listing_only(where: Path) -> float:
        t = time.perf_counter()
        with os.scandir(where) as it:
            sum(1 for _ in it)
        return time.perf_counter() - t

    print("the screens, through Pilot at 80x24 (one process; medians of 3):")
    bare = [asyncio.run(bare_list()) for _ in range(3)]
    bare_first, bare_fill, bare_pop = (statistics.median(x[i] for x in bare) for i in range(3))
    index = folder / ".index.json"
    cold_load = []
    for _ in range(3):
        index.unlink(missing_ok=True)
        cold_load.append(asyncio.run(load_screen()))
    warm_load = [asyncio.run(load_screen()) for _ in range(3)]
    print(f"  Load screen, 1,000 saves, until the list has every row: cold index {statistics.median(cold_load) * 1000:.0f} ms, "
          f"warm {statistics.median(warm_load) * 1000:.0f} ms; baseline: a bare app's OptionList given the same "
          f"1,000 lines {bare_fill * 1000:.0f} ms (warm/baseline {statistics.median(warm_load) / bare_fill:.2f}x)")
    empty = tmp / "no-saves"
    os.environ["ONO99_DATA_DIR"] = str(empty)
    none = [asyncio.run(menu()) for _ in range(3)]
    os.environ["ONO99_DATA_DIR"] = str(data)
    print(f"  menu, no saves (the baseline below): first frame {statistics.median(c[0] for c in none) * 1000:.0f} ms, "
          f"next visit {statistics.median(c[2] for c in none) * 1000:.0f} ms (a bare Textual app's first frame "
          f"{bare_first * 1000:.0f} ms)")
    cold = []
    reads.clear()
    for _ in range(3):
        index.unlink(missing_ok=True)
        cold.append(asyncio.run(menu()))
    first_reads = sorted(reads)
    print(f"  menu, 1,000 saves, cold index: first frame {statistics.median(c[0] for c in cold) * 1000:.0f} ms, "
          f"every save read by its worker {statistics.median(c[1] for c in cold) * 1000:.0f} ms, next visit "
          f"{statistics.median(c[2] for c in cold) * 1000:.0f} ms; the menu's own reading on the UI thread: "
          f"max {first_reads[-1] * 1000:.1f} ms, median {statistics.median(first_reads) * 1000:.1f} ms")
    v1 = tmp / "v1"
    make_v1_saves(v1 / "saves", 1000)
    os.environ["ONO99_DATA_DIR"] = str(v1)
    old = []
    reads.clear()
    for _ in range(3):
        (v1 / "saves" / ".index.json").unlink(missing_ok=True)
        old.append(asyncio.run(menu()))
    old_reads = sorted(reads)
    print(f"  menu, 1,000 version-1 saves, cold index: first frame {statistics.median(c[0] for c in old) * 1000:.0f} ms, "
          f"every save read (and indexed) by its worker {statistics.median(c[1] for c in old) * 1000:.0f} ms, "
          f"next visit {statistics.median(c[2] for c in old) * 1000:.0f} ms; the menu's own reading on the UI thread: "
          f"max {old_reads[-1] * 1000:.1f} ms, median {statistics.median(old_reads) * 1000:.1f} ms; "
          f"baseline: listing the folder {listing_only(v1 / 'saves') * 1000:.1f} ms")
    os.environ["ONO99_DATA_DIR"] = str(data)
    back = [asyncio.run(back_from_a_game()) for _ in range(3)]
    print(f"  back from a game to the menu, 1,000 saves: {statistics.median(back) * 1000:.0f} ms "
          f"(the menu refreshed, its worker done); baseline: popping a screen in a bare app {bare_pop * 1000:.0f} ms")


def resume(tmp: Path) -> Path:
    folder = tmp / "resume" / "saves"
    store = SaveStore(folder)
    g = long_game(5000)
    session = SaveSession(store, "long", SEATS, "points")
    session.open()
    session.save(g)
    session.close()
    text = store.path("long").read_text()
    opens, parses = [], []
    for _ in range(5):
        t = time.perf_counter()
        record, game = store.open_game("long", events_from_round=-1)
        opens.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        tomllib.loads(text)
        parses.append((time.perf_counter() - t) * 1000)
    assert len(game.plays) == 5000
    print(f"resume a 5,000-play save ({len(text) // 1024} KiB): open_game (parse, every play checked, "
          f"events of the last rounds only: {len(game.events)}):")
    print(f"  {ms(opens)}; tomllib parse alone {statistics.median(parses):.1f} ms")
    crash = crashed_save(store, g, 1000)
    opens, reports = [], []
    for _ in range(5):
        t = time.perf_counter()
        record, game = store.open_game("crash", events_from_round=-1)
        opens.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        assert store.journal_report("crash", game) is None  # whole: nothing set aside
        reports.append((time.perf_counter() - t) * 1000)
    assert len(game.plays) == 5000 and record.play_count == 5000
    print(f"resume a 5,000-play save whose journal holds {crash} unfolded plays (a crash): open_game {ms(opens)}; "
          f"the session's check of the journal under the lock {ms(reports)}")
    return folder.parent


def crashed_save(store: SaveStore, g: Game, unfolded: int) -> int:
    """Save "crash": ``g``'s record without its last ``unfolded`` plays, and those in its journal,
    as a kill leaves a save whose journal was never folded. Its files are kept beside it (".pristine")
    so each timed open starts from the same state (leaving the table folds the journal)."""
    from ono99_tui.store.journal import JournalWriter, journal_path, new_id
    from ono99_tui.store.session import _round_of

    keep = len(g.plays) - unfolded
    head = Game([s.name for s in SEATS], g.rules, g.seed, record_events=False)
    for _, card in g.plays[:keep]:
        head.play(card)
    record = Record.from_game(head, SEATS, {"rules": "points", "finished": False})
    record.meta["journal"] = journal_id = new_id()
    path = store.write("crash", record)
    writer = JournalWriter(journal_path(path), journal_id)
    writer.append([(n, _round_of(g, n), g.names[seat], card)
                   for n, (seat, card) in enumerate(g.plays[keep:], start=keep + 1)])
    writer.close()
    for p in (path, journal_path(path)):
        p.with_name(p.name + ".pristine").write_bytes(p.read_bytes())
    return unfolded


def restore_crash(folder: Path) -> None:
    for name in ("crash.toml", "crash.toml.journal"):
        (folder / name).write_bytes((folder / (name + ".pristine")).read_bytes())


CHILD = r"""
import json, sys, time
kind = sys.argv[1]
save = sys.argv[2] if len(sys.argv) > 2 else "long"
if kind == "bare":
    from textual.app import App
    from textual.widgets import Footer, Header

    class Base(App):
        def compose(self):
            yield Header()
            yield Footer()
else:
    from ono99_tui.tui.app import Ono99App as Base

class Timed(Base):
    def menu_available(self, found=None):
        t = time.perf_counter()
        try:
            return super().menu_available(found)
        finally:
            self.reading = time.perf_counter() - t

    def on_mount(self):
        if hasattr(super(), "on_mount"):
            super().on_mount()
        if kind == "resume":
            self.asked = time.time()
            self.resume(save)
            self.set_interval(0.005, self.check)
        else:
            self.call_after_refresh(self.done)

    def check(self):
        if type(self.screen).__name__ == "GameScreen" and self.screen.is_mounted:
            self.call_after_refresh(self.done)

    def done(self):
        sys.stdout.write(json.dumps({"ready": time.time(), "asked": getattr(self, "asked", None),
                                     "reading": getattr(self, "reading", None),
                                     "screen": type(self.screen).__name__}) + "\n")
        sys.stdout.flush()
        self.exit()

Timed(**({} if kind == "bare" else {"bot_delay": 600})).run(headless=True)
"""


def one(kind: str, data: Path, save: str = "long") -> tuple[float, float]:
    """Seconds from process start to the first frame, and (resume) from resume() to the table's
    or (menu) reading the saves for the menu."""
    env = {**os.environ, "ONO99_DATA_DIR": str(data), "ONO99_CONFIG_DIR": str(data / "cfg")}
    # Time what a user's second start costs: modules come from compiled bytecode, as they do once
    # Python has written it. With PYTHONDONTWRITEBYTECODE set (as on some CI and dev shells) every
    # edited ono99 module was compiled afresh in each process while Textual's came from pip's .pyc,
    # which charged ono99 some 30 ms of compiling. The bytecode goes to a folder of the run's own.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(data.parent / "pycache")
    if save == "crash":
        restore_crash(data / "saves")
    start = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, kind, save], capture_output=True, text=True, timeout=120,
                         env=env)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise SystemExit(f"{kind} did not start: {out.stderr[-800:]}")
    doc = json.loads(lines[-1])
    if kind == "resume" and doc["screen"] != "GameScreen":
        raise SystemExit(f"resume did not reach the table: {doc}")
    if kind == "menu":
        return doc["ready"] - start, doc["reading"]
    return doc["ready"] - start, doc["ready"] - (doc["asked"] or doc["ready"])


def startup(data: Path, resume_data: Path, runs: int, tmp: Path) -> None:
    """``data`` holds saves/ with the 1,000 finished saves (and the index `listing` built)."""
    empty = tmp / "empty"
    empty.mkdir(exist_ok=True)
    one("bare", data), one("menu", data), one("resume", resume_data)  # warm the file cache
    times = {"bare": [], "menu": [], "none": [], "resume": []}
    in_app, reading, crash = [], [], []
    for _ in range(runs):
        times["bare"].append(one("bare", data)[0])
        whole, read = one("menu", data)
        times["menu"].append(whole)
        reading.append(read)
        times["none"].append(one("menu", empty)[0])
        whole, table = one("resume", resume_data)
        times["resume"].append(whole)
        in_app.append(table)
        crash.append(one("resume", resume_data, "crash")[1])
    bare = statistics.median(times["bare"])
    menu = statistics.median(times["menu"])
    none = statistics.median(times["none"])
    res = statistics.median(times["resume"])
    print(f"fresh process to first frame, median of {runs} (headless):")
    print(f"  bare Textual app {bare * 1000:.0f} ms; ono99 main menu with 1,000 saves {menu * 1000:.0f} ms "
          f"({menu / bare:.2f}x, target <= 1.5x); with no saves {none * 1000:.0f} ms ({none / bare:.2f}x)")
    print(f"  of which the menu reading the 1,000 saves (menu_available): {statistics.median(reading) * 1000:.1f} ms")
    print(f"  resume the 5,000-play save: from resume() to the table's first frame "
          f"{statistics.median(in_app) * 1000:.0f} ms (target <= 500 ms); "
          f"the whole process to that frame {res * 1000:.0f} ms ({res / bare:.2f}x the bare app)")
    print(f"  resume the 5,000-play save with 1,000 plays in its journal: from resume() to the table's first frame "
          f"{statistics.median(crash) * 1000:.0f} ms (target <= 500 ms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--startup", action="store_true", help="also time fresh processes to the menu and the table")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-screens", action="store_true", help="skip the Pilot measures of the screens")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        autosave(tmp)
        data = tmp / "data"
        listing(data)
        resume_data = resume(tmp)
        if not args.no_screens:
            screens(data, tmp)
        if args.startup:
            startup(data, resume_data, args.runs, tmp)


if __name__ == "__main__":
    main()
