"""How well the hard bot's deals of the hidden cards guess the others' real hands.

Collects positions where the hard bot searches, from games between medium bots
(or, with ``--table mixed``, tables of medium, easy and random bots: players the
reading does not assume), deals the hidden cards for each several times the way the hard bot does, and
prints the share of the others' hand cards that match their real hands: dealt
uniformly (the baseline, measured in the same run), with helpers weighted into
hands, and read from the players' plays (belief.py), with the ratio to the baseline.

    python benchmarks/belief.py [--players 4] [--positions 400] [--deals 20] [--table medium|mixed]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from ono99_tui.bots import belief, search
from ono99_tui.bots.heuristics import HELPERS
from ono99_tui.bots.levels import Bot
from ono99_tui.engine import Game
from ono99_tui.engine.rules import DEFAULT


MIXED = ("medium", "easy", "random")


def positions(players: int, count: int, table: str = "medium") -> list:
    found, game_no = [], 0
    while len(found) < count:
        g = Game([f"P{i}" for i in range(players)], DEFAULT, 500 + game_no, record_events=False)
        game_no += 1
        levels = ["medium"] * players if table == "medium" else [MIXED[(game_no + i) % 3] for i in range(players)]
        bots = [Bot(levels[i], game_no * 10 + i) for i in range(players)]
        rng = random.Random(game_no)
        while not g.over:
            view = g.view(g.current)
            if search.worth_searching(view) and len(view.legal_plays()) > 1 and rng.random() < 0.3:
                found.append((view, {s: list(g.hands[s]) for s in view.in_round if s != view.seat}, levels))
            g.play(bots[g.current].choose(view))
    return found[:count]


def match_rate(found, deals: int, read: bool, weight, kinds: Counter | None = None) -> tuple[float, float]:
    """Share of the others' hand cards dealt right, and seconds per deal. ``kinds``: counts, per
    player's true level, of the kind of player each kept hand was read as (True: the same)."""
    rng = random.Random(3)
    hit = total = 0
    start = time.perf_counter()
    for view, true, levels in found:
        reader = belief.Reader(view) if read else None
        for _ in range(deals):
            models: dict = {}
            hands, _ = belief.deal_hidden(view, rng, reader, weight, models)
            for seat, hand in hands.items():
                hit += sum((Counter(hand) & Counter(true[seat])).values())
                total += len(hand)
                if kinds is not None and seat in models:
                    kinds[(levels[seat], models[seat])] += 1
    return hit / total, (time.perf_counter() - start) / (len(found) * deals)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--table", choices=("medium", "mixed"), default="medium")
    args = ap.parse_args()
    found = positions(args.players, args.positions, args.table)
    helpers = lambda c: search.HELPER_WEIGHT if c in HELPERS else 1.0  # noqa: E731
    print(f"{len(found)} positions where hard searches, {args.players} players ({args.table} table), "
          f"{args.deals} deals each")
    print(f"{'deal':<34} {'cards right':>11} {'x uniform':>10} {'ms per deal':>12}")
    base = None
    kinds: Counter = Counter()
    for name, read, weight in [("uniform (baseline)", False, None),
                               (f"helpers weighted {search.HELPER_WEIGHT:g}x", False, helpers),
                               ("read from plays", True, None),
                               ("read from plays + helpers weighted", True, helpers)]:
        rate, secs = match_rate(found, args.deals, read, weight, kinds if read and weight else None)
        base = base or rate
        print(f"{name:<34} {100 * rate:>10.1f}% {rate / base:>9.2f}x {1000 * secs:>12.3f}")

    print("kind of player each kept hand was read as (rows: the player's real level):")
    for level in sorted({lv for lv, _ in kinds}):
        row = {m: kinds[(level, m)] for m in belief.MODELS}
        n = sum(row.values()) or 1
        print(f"  {level:<8} " + "  ".join(f"{m} {100 * c / n:5.1f}%" for m, c in row.items()) + f"  ({n} hands)")


if __name__ == "__main__":
    main()
