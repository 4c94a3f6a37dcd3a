"""Engine speed: random legal play of full 4-player default games.

Prints games/s and plays/s for the engine's public API (Game.legal_plays +
Game.play, events on) and for a bare minimal loop of the same rules written
here, in the same run, and the ratio. Target: engine >= 0.35 x bare.

    python benchmarks/engine.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import time

from ono99_tui.engine import Game
from ono99_tui.engine.rules import DEFAULT

NAMES = ["A", "B", "C", "D"]
EFFECT = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "-10": -10,
          "hold": 0, "reverse": 0, "double": 0, "99": 0}
ADDERS = {"2", "3", "4", "5", "6", "7", "8", "9", "10"}


def engine_game(seed: int, rng: random.Random) -> int:
    g = Game(NAMES, DEFAULT, seed)
    plays = 0
    while not g.over:
        g.play(rng.choice(g.legal_plays()))
        plays += 1
    return plays


def bare_game(seed: int, rng: random.Random) -> int:
    """The default rules (R1-R8, tokens) as a minimal loop: no events, checks or views."""
    deck0 = list(DEFAULT.deck)
    n = 4
    tokens = [3] * n
    out = [False] * n
    dealer = seed % n
    plays = 0
    alive = n
    while alive > 1:
        order = [s for s in range(n) if not out[s]]
        k = len(order)
        deck = deck0[:]
        rng.shuffle(deck)
        hands = {s: [] for s in order}
        start = (order.index(dealer) + 1) % k if dealer in order else 0
        for _ in range(4):
            for j in range(k):
                hands[order[(start + j) % k]].append(deck.pop())
        draw, discard = deck, []
        total, direction, pos, owed, loser = 0, 1, start, 1, None
        while loser is None:
            p = order[pos]
            hand = hands[p]
            cands = set(hand)
            cands.discard("99")
            if owed == 2:
                cands.discard("double")
            if not cands:
                loser = p
                break
            room = 99 - total
            if all(c in ADDERS and EFFECT[c] >= room for c in cands):
                cands = {min(cands, key=EFFECT.get)}
            card = rng.choice(sorted(cands))
            plays += 1
            hand.remove(card)
            discard.append(card)
            total += EFFECT[card]
            if not draw and len(discard) > 1:
                draw = discard[:-1]
                rng.shuffle(draw)
                discard = discard[-1:]
            if draw:
                hand.append(draw.pop())
            if total >= 99 and card in ADDERS:
                loser = p
                break
            if owed == 2:
                if card in ("hold", "reverse"):
                    if card == "reverse" and k > 2:
                        direction = -direction
                    pos = (pos + direction) % k
                    continue
                owed = 1
                continue
            if card == "reverse" and k > 2:
                direction = -direction
            owed = 2 if card == "double" else 1
            pos = (pos + direction) % k
        if tokens[loser]:
            tokens[loser] -= 1
        else:
            out[loser] = True
            alive -= 1
        dealer = order[(order.index(dealer) + 1) % k] if dealer in order else order[0]
    return plays


def measure(fn, seconds: float) -> tuple[float, float, int]:
    rng = random.Random(1)
    games = plays = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        plays += fn(games, rng)
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, plays / elapsed, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    args = parser.parse_args()
    measure(engine_game, 0.3)  # warm up
    bare = measure(bare_game, args.seconds)
    eng = measure(engine_game, args.seconds)
    print(f"{'loop':<8}{'games/s':>10}{'plays/s':>12}{'games':>8}")
    print(f"{'bare':<8}{bare[0]:>10.1f}{bare[1]:>12.0f}{bare[2]:>8}")
    print(f"{'engine':<8}{eng[0]:>10.1f}{eng[1]:>12.0f}{eng[2]:>8}")
    ratio = eng[1] / bare[1]
    print(f"engine / bare plays/s: {ratio:.2f} (target >= 0.35) {'OK' if ratio >= 0.35 else 'BELOW TARGET'}")


if __name__ == "__main__":
    main()
