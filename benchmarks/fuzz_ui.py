"""UI fuzz (issue 15): random keys, clicks and resizes on the running app, through Pilot.

Each session is its own process (fresh data and config folders holding a few saves: an
unfinished game, a finished one, a damaged one, one with markup in its names), seeded, with
a bounded number of events (tests/ui_fuzz.py); when the app quits, a new one starts and the
events go on. A session that raises is a crash; one that does not finish within its time
limit is a hang. Prints cases (events) / app starts / crashes / hangs, the screens reached,
and every crash with the events before it.

    python benchmarks/fuzz_ui.py                         # 10 sessions x 500 events
    python benchmarks/fuzz_ui.py --sessions 20 --events 1000 --seed 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, json, sys
sys.path.insert(0, sys.argv[3])
from tests.ui_fuzz import fuzz, make_saves
make_saves()
out = asyncio.run(fuzz(int(sys.argv[1]), int(sys.argv[2])))
print(json.dumps({"events": out.events, "apps": out.apps, "crashes": out.crashes, "screens": sorted(out.screens)}))
"""


def session(seed: int, events: int, limit: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ONO99_DATA_DIR": f"{tmp}/data", "ONO99_CONFIG_DIR": f"{tmp}/config"}
        env.pop("ONO99_BOT_DELAY", None)
        try:
            proc = subprocess.run([sys.executable, "-c", CHILD, str(events), str(seed), str(ROOT)], env=env,
                                  capture_output=True, text=True, timeout=limit, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"seed": seed, "hang": True, "events": 0, "apps": 0, "crashes": [], "screens": []}
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            return {"seed": seed, "hang": False, "events": 0, "apps": 0, "screens": [],
                    "crashes": [f"seed {seed}: process failed ({proc.returncode}): {proc.stderr[-600:]}"]}
        return {"seed": seed, "hang": False, **json.loads(lines[-1])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--events", type=int, default=500, help="events per session")
    ap.add_argument("--seed", type=int, default=1, help="the first session's seed (then +1 each)")
    ap.add_argument("--limit", type=float, default=None,
                    help="seconds a session may take before it counts as a hang (default 0.5 s an event + 30 s)")
    args = ap.parse_args()
    limit = args.limit or 30 + 0.5 * args.events
    start = time.perf_counter()
    results = [session(args.seed + i, args.events, limit) for i in range(args.sessions)]
    took = time.perf_counter() - start
    events = sum(r["events"] for r in results)
    crashes = [c for r in results for c in r["crashes"]]
    hangs = [r["seed"] for r in results if r["hang"]]
    screens = sorted({s for r in results for s in r["screens"]})
    print(f"UI fuzz: {args.sessions} sessions (seeds {args.seed}-{args.seed + args.sessions - 1}), "
          f"{args.events} events each, {took:.0f} s ({1000 * took / max(1, events):.0f} ms an event)")
    print(f"  cases (events) {events} / app starts {sum(r['apps'] for r in results)} / crashes {len(crashes)} / "
          f"hangs {len(hangs)}{' (seeds ' + ', '.join(map(str, hangs)) + ')' if hangs else ''}")
    print(f"  screens reached: {', '.join(screens)}")
    for crash in crashes:
        print("  CRASH", crash)
    return 1 if crashes or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
