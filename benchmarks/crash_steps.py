"""SIGKILL every multi-file operation at each of its steps, before and after the step, and count
what was lost (issue 20: "the kill-between-every-step harness"). The operations: rename, delete,
import, restore, the stats update and the journal fold (tests/steps.py says what a step is and what must
hold afterwards: every acknowledged play still there, nothing damaged, no leftover journal taken
by a new save). The in-suite part, with raised faults instead of kills, is tests/test_crash_steps.py.

    python benchmarks/crash_steps.py [--rounds N]

Prints, per operation: steps, kills, and what was lost (must be nothing). Exit 1 if anything was.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.steps import OPERATIONS, Faults, check, run, setup  # noqa: E402


def steps_of(op: str) -> int:
    folder = Path(tempfile.mkdtemp(prefix="ono99-steps-"))
    try:
        setup(op, folder)
        with Faults(at=None) as faults:
            run(op, folder)
        return faults.steps
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def kill_at(op: str, k: int, when: str) -> list[str]:
    folder = Path(tempfile.mkdtemp(prefix="ono99-kill-"))
    try:
        state = setup(op, folder)
        pid = os.fork()
        if pid == 0:  # the child: the operation, killed at step k
            try:
                with Faults(at=k, kill=when):
                    run(op, folder)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        lost = check(state, folder)
        if not os.WIFSIGNALED(status):
            lost = lost or []  # ran through (k past its last step): still checked
        return lost
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="times to walk every step (default 1)")
    args = parser.parse_args()
    os.environ.setdefault("ONO99_DATA_DIR", tempfile.mkdtemp(prefix="ono99-data-"))
    start = time.perf_counter()
    total_kills = total_lost = 0
    print(f"{'operation':<10} {'steps':>5} {'kills':>6}  lost")
    for op in OPERATIONS:
        n = steps_of(op)
        kills, lost = 0, []
        for _ in range(args.rounds):
            for k in range(n):
                for when in ("before", "after"):
                    kills += 1
                    lost += [f"step {k} {when}: {what}" for what in kill_at(op, k, when)]
        total_kills += kills
        total_lost += len(lost)
        print(f"{op:<10} {n:>5} {kills:>6}  {len(lost) or 'nothing'}")
        for line in lost[:10]:
            print(f"    {line}")
    print(f"{len(OPERATIONS)} operations, {total_kills} kills in {time.perf_counter() - start:.1f} s: "
          f"{total_lost or 'nothing'} lost")
    return 1 if total_lost else 0


if __name__ == "__main__":
    sys.exit(main())
