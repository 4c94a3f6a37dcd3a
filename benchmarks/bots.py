"""Bot decision time per level, on the same positions for every level.

Collects positions from 4-player games between medium bots (every position a
bot actually had to decide, several legal plays or one), then times each
level's decision on each position. Prints median, p90, p99 and max per level,
and the ratio of each median to the random bot's (the baseline: reading the
legal plays and picking one), measured in the same run.
Target: hard median <= 100 ms and p99 <= 300 ms on this 2-core machine (the load
average is printed beside the figures: on a shared machine it moves them).

    python benchmarks/bots.py [--positions N] [--levels random,easy,medium,hard] [--rules PRESET|FILE] [--players N]
                              [--variant hard-ei]

House rules move the cost: a bigger hand (``hand_size`` up to 10, R3.1) gives the hard bot more
distinct cards to compare, each played out.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ono99_tui.bots.levels import LEVELS, Bot
from ono99_tui.engine import Game
from ono99_tui.engine.rules import DEFAULT


def positions(count: int, seed: int = 7, rules=DEFAULT, players: int = 4) -> list:
    rng = random.Random(seed)
    bots = [Bot("medium", s) for s in range(players)]
    views = []
    game_no = 0
    while len(views) < count:
        g = Game(["A", "B", "C", "D", "E", "F", "G", "H"][:players], rules, seed * 1000 + game_no, record_events=False)
        game_no += 1
        while not g.over:
            view = g.view(g.current)
            if rng.random() < 0.25:
                views.append(view)
            g.play(bots[g.current].choose(view))
    return views[:count]


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--rules", default="standard", metavar="PRESET|FILE")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--variant", help="time hard with a variant's search constants (rounds.py's VARIANTS)")
    args = ap.parse_args()
    if args.variant:
        import os
        import sys

        from ono99_tui.bots import search

        sys.path.insert(0, os.path.dirname(__file__))
        from rounds import VARIANTS

        for k, v in VARIANTS[args.variant].items():
            setattr(search, k, v)
    from ono99_tui.store.rule_presets import resolve

    rules, label = resolve(args.rules)
    views = positions(args.positions, rules=rules, players=args.players)
    searched = sum(1 for v in views if len(v.legal_plays()) > 1)
    print(f"{len(views)} positions from {args.players}-player medium games, rules {label} ({searched} with a "
          f"choice); load average {_load()}")
    print(f"{'level':<8} {'median ms':>10} {'p90 ms':>9} {'p99 ms':>9} {'max ms':>9} {'median x random':>16}")
    base = None
    for level in args.levels.split(","):
        bot = Bot(level, 1)
        times = []
        for view in views:
            t = time.perf_counter()
            bot.choose(view)
            times.append((time.perf_counter() - t) * 1000)
        med = statistics.median(times)
        base = base or med
        print(f"{level:<8} {med:>10.3f} {quantile(times, .9):>9.2f} {quantile(times, .99):>9.2f} "
              f"{max(times):>9.2f} {med / base:>16.1f}   load {_load()}")


def _load() -> str:
    with open("/proc/loadavg", encoding="ascii") as fh:
        return " ".join(fh.read().split()[:3])


if __name__ == "__main__":
    main()
