"""Tune the weights the hard bot plays its own turns by (``heuristics.Weights``), against medium.

The hard bot plays medium's preferences where it does not search (far from the target) and
for its own later turns in its play-outs. This script plays whole games of one seat playing
by a set of weights against medium in every other seat, duplicate style (every deal once per
seat, the same random stream for the same seat in both versions compared), so that a change
to a weight shows in a few seconds of games rather than in the hours a ``hard`` table costs.

    python benchmarks/tune.py                      # TUNED and MEDIUM against medium, and each change alone
    python benchmarks/tune.py --climb 40           # hill-climb from TUNED on fresh deals each step

A step of the climb changes some weights at random and keeps the change when it wins
more games than the current weights on the same fresh deals, by more than ``--margin``.
``heuristics.TUNED`` was found this way, with 17 of medium's numbers tried (the squeeze, the
helpers' order, the first of two plays, Minus Ten heads-up...): only the room within which a
Double Play is deflected changed anything measurable, so only it is a weight.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from multiprocessing import Pool

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from ono99_tui.bots.heuristics import MEDIUM, TUNED, Weights, choose_medium  # noqa: E402
from ono99_tui.engine import Game  # noqa: E402
from ono99_tui.engine.rules import DEFAULT  # noqa: E402

STEP = {"deflect_room": 4}  # how far a climbing step moves each weight


def _games(args) -> int:
    """Wins of the seat playing ``weights`` over deals [start, start + deals), every seat."""
    weights, players, start, deals = args
    won = 0
    for d in range(start, start + deals):
        for seat in range(players):
            g = Game([f"P{i}" for i in range(players)], DEFAULT, 7_000_000 + d, record_events=False)
            rng = random.Random(d * 10 + seat)
            while not g.over:
                view = g.view(g.current)
                g.play(choose_medium(view, rng, weights if g.current == seat else MEDIUM))
            won += g.winner == seat
    return won


def win_rate(weights: Weights, players: int, deals: int, pool, start: int = 0, jobs: int = 2) -> float:
    per = max(1, deals // (4 * jobs))
    parts = [(weights, players, start + i * per, per) for i in range(4 * jobs)]
    return sum(pool.map(_games, parts)) / (per * len(parts) * players)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=8000, help="deals per figure (each played once per seat)")
    ap.add_argument("--climb", type=int, default=0, help="steps of hill-climbing (0: only report)")
    ap.add_argument("--margin", type=float, default=0.004)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    pool = Pool(args.jobs)
    t0 = time.perf_counter()
    games = args.deals * args.players
    print(f"one seat by the weights, medium in the other {args.players - 1}; {games} games a figure "
          f"(fair {100 / args.players:.1f}%); load average {os.getloadavg()[0]:.2f}")
    if not args.climb:
        rows = [("MEDIUM", MEDIUM), ("TUNED", TUNED)]
        rows += [(f"only {f.name}", dataclasses.replace(MEDIUM, **{f.name: getattr(TUNED, f.name)}))
                 for f in dataclasses.fields(Weights) if getattr(TUNED, f.name) != getattr(MEDIUM, f.name)]
        for name, w in rows:
            print(f"  {name:<28} {100 * win_rate(w, args.players, args.deals, pool, jobs=args.jobs):.2f}%",
                  flush=True)
    rnd = random.Random(args.seed)
    current = TUNED
    for step in range(args.climb):
        change = {}
        for name in rnd.sample(list(STEP), rnd.randint(1, len(STEP))):
            value = getattr(current, name) + rnd.gauss(0, STEP[name])
            change[name] = round(value) if isinstance(getattr(current, name), int) else round(value, 1)
        candidate = dataclasses.replace(current, **change)
        start = (step + 1) * 100_000  # fresh deals every step: no weight is fitted to one set
        got = win_rate(candidate, args.players, args.deals, pool, start, args.jobs)
        now = win_rate(current, args.players, args.deals, pool, start, args.jobs)
        kept = got > now + args.margin
        print(f"  step {step}: {change} {100 * got:.2f}% against {100 * now:.2f}%"
              f"{'  kept' if kept else ''}", flush=True)
        if kept:
            current = candidate
    if args.climb:
        print(f"  weights now: {current}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
