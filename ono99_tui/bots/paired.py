"""The hard bot's choice from paired play-outs: each card's gains over a default card on the
same deals (common random numbers), and the card whose mean gain is largest when it clears the
noise (search.py, and lookahead.py at its later turn)."""

from __future__ import annotations

import math


def best_by_gain(default: str, diffs: dict[str, list[float]], k: float) -> str:
    """The card whose mean paired gain over ``default`` is largest, when it clears ``k``
    standard errors; else ``default``."""
    best, gain = default, 0.0
    for card, d in diffs.items():
        n = len(d)
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / max(1, n - 1)
        se = math.sqrt(max(var, 0.25 / n) / n)  # floor: a few identical outcomes prove little
        if mean > k * se and mean > gain:
            best, gain = card, mean
    return best
