"""Small statistics for win rates: the Wilson score interval."""

from __future__ import annotations

import math

Z95 = 1.959964


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% confidence interval for a proportion; sound near 0 and 1, unlike the normal one."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


CI_DIGITS = 4  # decimals of an interval's ends in a report: 0.01%, far finer than a run can tell (±0.1% at 10^6 games)


def ci95(wins: float, n: int) -> list[float]:
    """The 95% interval (wilson) as a report gives it: each end to CI_DIGITS decimals, rounded
    outwards so it still holds the computed interval, float noise dropped (1.0, not the
    0.9999999999999999 `simulate --json` printed)."""
    lo, hi = wilson(wins, n)
    scale = 10 ** CI_DIGITS
    return [math.floor(round(lo * scale, 6)) / scale, math.ceil(round(hi * scale, 6)) / scale]
