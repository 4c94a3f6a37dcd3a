"""Fuzz every file ono99 reads (issue 15, "Figures in the closing note").

For each input kind (rules, record, save, config, theme, stats, last setup, journal, and a save's
lock file, around which the save is opened, saved, renamed and deleted) it writes hostile files,
named attacks first (deep nesting, key floods, huge strings and numbers, a byte-order mark,
bad UTF-8, NUL bytes, a FIFO, a folder, /dev/zero, /dev/urandom, /dev/null, a dangling
symlink, a link to a precious file elsewhere that must never be written through), then random mutations and wrong-typed values of a valid file, and reads each one
the way the game does (tests/fuzz.py) in a worker process with a time limit and a memory
cap. Per kind it prints: cases tried / accepted / clean error / traceback / hang / data lost
(a file the reader changed), and the median and slowest time per case, the median against
reading the valid sample (ratio).

    python benchmarks/fuzz_inputs.py                 # 300 cases per kind
    python benchmarks/fuzz_inputs.py --cases 2000 --big --seed 2
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.fuzz, run from anywhere

from tests.fuzz import ALL_KINDS, KEEPS_FILE, READERS, attacks, file_name, fresh, sample  # noqa: E402

HANG_SECONDS = 20.0
MEMORY_CAP = 2 * 1024**3  # a reader that eats memory fails in the worker, not the machine


def _worker(conn, root: str) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    os.environ["ONO99_CONFIG_DIR"] = os.path.join(root, "config")
    os.environ["ONO99_DATA_DIR"] = os.path.join(root, "data")
    while True:
        job = conn.recv()
        if job is None:
            return
        kind, path = job
        start = time.perf_counter()
        try:
            outcome = READERS[kind](Path(path))
        except BaseException as exc:  # noqa: BLE001 - every escape is what we are counting
            outcome = f"traceback {type(exc).__name__}: {str(exc)[:120]}"
        conn.send((outcome, time.perf_counter() - start))


class Worker:
    def __init__(self, root: Path):
        self.root = root
        self._start()

    def _start(self) -> None:
        self.conn, child = mp.Pipe()
        self.proc = mp.get_context("fork").Process(target=_worker, args=(child, str(self.root)), daemon=True)
        self.proc.start()

    def run(self, kind: str, path: Path) -> tuple[str, float]:
        self.conn.send((kind, str(path)))
        if self.conn.poll(HANG_SECONDS):
            try:
                return self.conn.recv()
            except EOFError:  # the worker died (killed by the memory cap, say)
                self._start()
                return "traceback worker died", 0.0
        self.proc.kill()
        self.proc.join()
        self._start()
        return "hang", HANG_SECONDS

    def close(self) -> None:
        self.conn.send(None)
        self.proc.join(5)


def snapshot(path: Path):
    """The file's bytes; for a link to a regular file, the bytes of what it points at (which
    no reader or writer may change: nothing is written through a link)."""
    try:
        if path.is_symlink():
            target = path.resolve()
            return ("link", target.read_bytes()) if target.is_file() else None
        if not path.is_file():
            return None
        return path.read_bytes()
    except OSError:
        return None


def fuzz_kind(kind: str, cases: int, rng: random.Random, big: bool, worker: Worker, root: Path):
    tally: Counter = Counter()
    times: list[float] = []
    examples: dict[str, str] = {}
    folder = root / "case"
    for label, writer in attacks(kind, rng, cases, big):
        fresh(folder)
        path = folder / file_name(kind)
        writer(path)
        before = snapshot(path)
        outcome, seconds = worker.run(kind, path)
        times.append(seconds)
        if seconds >= max(times):
            examples["slowest"] = f"{label} ({1000 * seconds:.0f} ms)"
        after = snapshot(path)
        tally["tried"] += 1
        if outcome in ("ok", "clean"):
            tally["accepted" if outcome == "ok" else "clean error"] += 1
        elif outcome == "hang":
            tally["hang"] += 1
            examples.setdefault(f"hang: {label}", "")
        else:
            tally["traceback"] += 1
            examples.setdefault(f"traceback: {label}", outcome)
        linked = isinstance(before, tuple)
        if linked:  # what a link points at must be left alone, whatever the outcome
            after = snapshot(path) if path.is_symlink() else after
            lost = after != before
        elif kind == "lock":
            lost = False  # a lock file is ono99's to write (and remove)
        else:
            lost = before is not None and after != before and (kind in KEEPS_FILE or outcome != "ok")
        if lost:
            tally["data lost"] += 1
            examples.setdefault(f"data lost: {label}", outcome)
    return tally, times, examples


def baseline(kind: str, worker: Worker, root: Path) -> float:
    folder = root / "case"
    runs = []
    for _ in range(5):
        fresh(folder)
        path = folder / file_name(kind)
        path.write_text(sample(kind), encoding="utf-8")
        runs.append(worker.run(kind, path)[1])
    return statistics.median(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300, help="cases per input kind (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--big", action="store_true", help="also the largest attacks (100,000 levels, 200,000 keys)")
    parser.add_argument("--kinds", default=",".join(ALL_KINDS), help="comma-separated input kinds")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    header = f"{'input':<7} {'tried':>6} {'accepted':>8} {'clean error':>11} {'traceback':>9} {'hang':>5} " \
             f"{'data lost':>9}  {'median ms':>9} {'max ms':>8} {'valid ms':>8} {'ratio':>6}"
    print(f"Fuzzing ono99's file readers: seed {args.seed}, {args.cases} cases per kind, "
          f"hang = no answer in {HANG_SECONDS:.0f} s\n")
    print(header)
    worst: dict[str, str] = {}
    slowest: dict[str, str] = {}
    totals: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="ono99-fuzz-") as tmp:
        root = Path(tmp)
        worker = Worker(root)
        for kind in args.kinds.split(","):
            base = baseline(kind, worker, root)
            tally, times, examples = fuzz_kind(kind, args.cases, rng, args.big, worker, root)
            totals.update(tally)
            slowest[kind] = examples.pop("slowest")
            worst.update({f"{kind}: {k}": v for k, v in examples.items()})
            med = statistics.median(times)
            print(f"{kind:<7} {tally['tried']:>6} {tally['accepted']:>8} {tally['clean error']:>11} "
                  f"{tally['traceback']:>9} {tally['hang']:>5} {tally['data lost']:>9}  {1000 * med:>9.2f} "
                  f"{1000 * max(times):>8.1f} {1000 * base:>8.2f} {med / base if base else 0:>6.2f}")
        worker.close()
    print(f"{'all':<7} {totals['tried']:>6} {totals['accepted']:>8} {totals['clean error']:>11} "
          f"{totals['traceback']:>9} {totals['hang']:>5} {totals['data lost']:>9}")
    print("\nSlowest case: " + "; ".join(f"{kind}: {what}" for kind, what in slowest.items()))
    if worst:
        print("\nFirst failure of each kind:")
        for what, detail in worst.items():
            print(f"  {what}  {detail}")
    return 1 if totals["traceback"] or totals["hang"] or totals["data lost"] else 0


if __name__ == "__main__":
    sys.exit(main())
