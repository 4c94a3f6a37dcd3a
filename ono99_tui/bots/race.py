"""The chance of winning a points game heads-up from the scores a round leaves (R9).

Under points rules two players race to stay under the limit: the first to reach it is out and
the other wins (R9.2; heads-up first-to-limit, R9.3, ends the same way), both reaching it in one
round goes to the lower score. Points a round adds are a sum of cards left (R9.1), so the same
ten points are worth little at 100 to 100 and everything at 490 to 300. ``win_chance`` values a
round's end by that race: a dynamic programme over both scores, in steps of a grid, where every
later round adds the loser's and the winner's points drawn from what medium players scored in
rounds under the same rules (simulated once per rules, from a fixed seed, so a decision is the
same on every machine), each player the loser half the time.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

CELLS = 60  # grid steps below the limit: about 8 points a step at the sheet's 500
SPAN = 16  # grid steps a round may add at most
ROUNDS = 400  # medium rounds simulated for the points a round adds


def _round_gains(rules) -> tuple[list[int], list[int]]:
    """The points the loser and the winner added in ``ROUNDS`` rounds of medium heads-up."""
    from ..engine import Game  # a fixed-seed simulation of fresh games, no one's hidden cards
    from .heuristics import choose_medium

    lost, won = [], []
    game_no = 0
    while len(lost) < ROUNDS:
        g = Game(["A", "B"], rules, 77_000 + game_no, record_events=False)
        rng = random.Random(game_no)
        game_no += 1
        before, rnd = list(g.points), g.round_no
        while not g.over and len(lost) < ROUNDS:
            g.play(choose_medium(g.view(g.current), rng))
            if g.round_no != rnd or g.over:
                gained = [g.points[s] - before[s] for s in range(2)]
                loser = g.last_loser
                if loser in (0, 1):
                    lost.append(gained[loser])
                    won.append(gained[1 - loser])
                before, rnd = list(g.points), g.round_no
    return lost, won


def _spread(gains: list[int], step: float, size: int) -> list[float]:
    """The gains as a distribution over grid steps, each split between the two steps around it
    so that the mean is kept."""
    p = [0.0] * size
    for g in gains:
        x = g / step
        i = min(int(x), size - 2)
        frac = min(1.0, x - i)
        p[i] += (1 - frac) / len(gains)
        p[i + 1] += frac / len(gains)
    return p


def _end(a: float, b: float, limit: float) -> float:
    """Heads-up, once someone has reached the limit: the lower score wins (R9.2, R9.3)."""
    if a >= limit and b >= limit:
        return 0.5 if a == b else float(a < b)
    return 0.0 if a >= limit else 1.0


@lru_cache(maxsize=8)
def _table(rules) -> tuple[float, list[list[float]]]:
    """(grid step, W) with W[i][j] the chance of winning from i steps against j steps."""
    limit = rules.scoring_limit
    lost, won = _round_gains(rules)
    # at most CELLS steps below the limit, and a round adds at most SPAN steps (house rules with a
    # small limit or a big penalty get a coarser grid, not a slower one)
    step = max(limit / CELLS, max(lost + won) / SPAN, 1e-9)
    n = max(1, math.ceil(limit / step))
    span = int(max(lost + won) / step) + 2
    pl, pw = _spread(lost, step, span), _spread(won, step, span)
    beyond: dict[tuple[str, int, int], float] = {}

    def w(i: int, j: int) -> float:
        if i >= n or j >= n:
            return _end(i, j, n)
        return table[i][j]

    table = [[0.0] * n for _ in range(n)]
    # x[f][i][j] = sum over k of f[k] * W(i, j + k), the second player's points drawn from f
    x = {"l": [[0.0] * n for _ in range(n)], "w": [[0.0] * n for _ in range(n)]}
    dist = {"l": pl, "w": pw}

    def x_at(f: str, i: int, j: int) -> float:
        if i < n and j < n:
            return x[f][i][j]
        if (f, i, j) not in beyond:
            beyond[f, i, j] = sum(dist[f][k] * w(i, j + k) for k in range(span))
        return beyond[f, i, j]

    for i in range(n - 1, -1, -1):
        for j in range(n - 1, -1, -1):
            part = {f: sum(dist[f][k] * w(i, j + k) for k in range(1, span)) for f in "lw"}
            # W = 1/2 sum_k pl[k] X_w(i+k, j) + 1/2 sum_k pw[k] X_l(i+k, j); the k = 0 terms hold
            # W(i, j) itself (a round that adds less than a step to both), solved for it
            rest = 0.5 * (pl[0] * part["w"] + sum(pl[k] * x_at("w", i + k, j) for k in range(1, span)))
            rest += 0.5 * (pw[0] * part["l"] + sum(pw[k] * x_at("l", i + k, j) for k in range(1, span)))
            stay = pl[0] * pw[0]
            value = rest / (1 - stay) if stay < 1 else 0.5
            table[i][j] = value
            for f in "lw":
                x[f][i][j] = part[f] + dist[f][0] * value
    return step, table


def win_chance(rules, mine: float, theirs: float) -> float:
    """The chance that a player with ``mine`` points wins a heads-up points game against one with
    ``theirs``, every round from here played alike; at or over the limit, the game's end."""
    limit = rules.scoring_limit
    if mine >= limit or theirs >= limit:
        return _end(mine, theirs, limit)
    step, table = _table(rules)
    n = len(table)
    x, y = mine / step, theirs / step
    i, j = min(int(x), n - 1), min(int(y), n - 1)
    fx, fy = x - i, y - j

    def at(a: int, b: int) -> float:
        if a >= n or b >= n:
            # between the last grid step and the limit: the end as a step past it
            return _end(a, b, n)
        return table[a][b]
    return ((1 - fx) * (1 - fy) * at(i, j) + fx * (1 - fy) * at(i + 1, j)
            + (1 - fx) * fy * at(i, j + 1) + fx * fy * at(i + 1, j + 1))

