"""Start-up time and peak memory: ono99 to its main menu vs a bare Textual app.

Each run is a fresh Python process (headless), timed from just before the
process starts to the moment its first screen has been composed and refreshed;
the child reports its own peak RSS at that moment. Medians of N runs, and the
ratio ono99 / bare from the same run. Target: <= 1.5x on both.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

CHILD = r"""
import os, resource, sys, time, json
kind = sys.argv[1]
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
    def on_mount(self):
        if hasattr(super(), "on_mount"):
            super().on_mount()
        self.call_after_refresh(self.done)

    def done(self):
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        sys.stdout.write(json.dumps({"ready": time.time(), "rss_kib": rss, "screen": type(self.screen).__name__}) + "\n")
        sys.stdout.flush()
        self.exit()

Timed().run(headless=True)
"""


def one(kind: str) -> tuple[float, float, str]:
    start = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, kind], capture_output=True, text=True, timeout=60)
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not line:
        raise SystemExit(f"{kind} did not start: {out.stderr[-500:]}")
    doc = json.loads(line[-1])
    return doc["ready"] - start, doc["rss_kib"] / 1024, doc["screen"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    one("bare"), one("ono99")  # warm the file cache for both
    runs = {"bare": [], "ono99": []}
    for _ in range(args.runs):  # interleaved, so a busy machine slows both alike
        for kind in runs:
            runs[kind].append(one(kind))
    results = {kind: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs), rs[0][2])
               for kind, rs in runs.items()}
    print(f"{'app':<8} {'ready (ms)':>11} {'peak RSS (MiB)':>15}  first screen")
    for kind, (t, m, screen) in results.items():
        print(f"{kind:<8} {1000 * t:>11.0f} {m:>15.1f}  {screen}")
    (tb, mb, _), (to, mo, _) = results["bare"], results["ono99"]
    print(f"ratio ono99/bare: time {to / tb:.2f}x, memory {mo / mb:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
