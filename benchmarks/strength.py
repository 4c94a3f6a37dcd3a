"""Bot strength tables for docs/bots.md: every level against the one below it.

Heads-up and 4-player (one of the level, three of the level below), duplicate
style (every seating of every deal), with 95% Wilson intervals, plus two
yardsticks never offered to players, against medium: the oracle (sees every
card) and the hands oracle (hard's search given the others' real hands).
Results are appended to a JSON lines file as each pairing finishes.

    python benchmarks/strength.py [--games 2000] [--jobs 2] [--out benchmarks/strength.jsonl]
"""

from __future__ import annotations

import argparse
import json
import time

from ono99_tui.engine.rules import DEFAULT
from ono99_tui.lab import simulate as sim

PAIRINGS = [
    ("easy", "random"), ("medium", "easy"), ("hard", "medium"), ("oracle", "medium"),
    ("oracle-hands", "medium"),
]


def tables(pairs, games: int, seats=(2, 4)):
    for n in seats:
        for top, below in pairs:
            yield [top] + [below] * (n - 1), games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--only", default="", help="comma-separated top levels to run (default: all)")
    ap.add_argument("--seats", default="2,4", help="table sizes to run (default: 2,4)")
    ap.add_argument("--out", default="benchmarks/strength.jsonl")
    ap.add_argument("--report", action="store_true", help="print the Markdown table from --out and stop")
    args = ap.parse_args()
    if args.report:
        report(args.out)
        return
    only = set(filter(None, args.only.split(",")))
    pairs = [p for p in PAIRINGS if not only or p[0] in only]
    for levels, games in tables(pairs, args.games, [int(n) for n in args.seats.split(",")]):
        games = sim.games_needed(games, len(levels))
        tally = sim.Tally(levels)
        start = time.perf_counter()
        for result in sim.run_games(levels, DEFAULT, args.seed, games, args.jobs):
            tally.add(result)
        summary = tally.summary()
        summary.update(bots=levels, elapsed_s=round(time.perf_counter() - start, 1), seed=args.seed)
        top = summary["levels"][0]
        print(f"{','.join(levels):<28} {top['wins']:>5}/{games} = {100 * top['win_rate']:.1f}% "
              f"[{100 * top['ci95'][0]:.1f}, {100 * top['ci95'][1]:.1f}] fair {100 * top['fair_share']:.0f}% "
              f"({summary['elapsed_s']} s)", flush=True)
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(summary) + "\n")


def report(path: str) -> None:
    """The Markdown table for docs/bots.md, from the results file."""
    print("| table | games | wins of the first level | win rate | 95% CI | fair share | time |")
    print("|---|---:|---:|---:|---|---:|---:|")
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            s = json.loads(line)
            top = s["levels"][0]
            below = s["levels"][1]["level"]
            table = f"1 {top['level']} vs {s['seats'] - 1} {below}" if s["seats"] > 2 else f"{top['level']} vs {below}"
            print(f"| {table} | {s['games']:,} | {top['wins']:,} | {100 * top['win_rate']:.1f}% | "
                  f"{100 * top['ci95'][0]:.1f}-{100 * top['ci95'][1]:.1f}% | {100 * top['fair_share']:.0f}% | "
                  f"{s['elapsed_s']:.0f} s |")


if __name__ == "__main__":
    main()
