"""What a lost token does to a player's chance of winning the game (R8).

A round takes one life from its loser (a token, and the extra life once the tokens are gone,
R8.2); the game goes to the last player left (R8.3). Who loses a round is not all the same to
the others: with lives (2; 3, 1, 1), one of them losing brings a player with 2 lives to a 39%
chance of winning if it is the one with 3, and to 28% if it is one with 1. ``win_chance``
is that chance in a model where every round's loser is equally likely to be any player still
in, so a play-out's end is valued by the game it leaves, not only by whether this seat lost.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=65_536)
def _chance(me: int, others: tuple[int, ...], edge: float) -> float:
    if me <= 0:
        return 0.0
    if not others:
        return 1.0
    n = len(others) + 1
    mine = min(1.0, edge / n)  # this player's chance of losing the round
    value = mine * _chance(me - 1, others, edge)
    for i, lives in enumerate(others):
        if i and others[i - 1] == lives:
            continue  # the same as the last one: counted below by multiplicity
        rest = others[:i] + ((lives - 1,) if lives > 1 else ()) + others[i + 1:]
        value += others.count(lives) * (1 - mine) / len(others) * _chance(me, tuple(sorted(rest)), edge)
    return value


def win_chance(me: int, others, edge: float = 1.0) -> float:
    """The chance that a player with ``me`` lives outlasts players with ``others`` lives each,
    every round's loser drawn uniformly from those still in; ``edge``: this player loses a
    round ``edge`` times as often as that (the others share the rest equally), which is how
    benchmarks/rounds.py turns a measured round edge into a game."""
    return _chance(me, tuple(sorted(o for o in others if o > 0)), edge)


def lives(view, seat: int) -> int:
    """Losses ``seat`` can still take before it is out (R8.2), from the round's start."""
    return view.tokens[seat] + (1 if view.rules.scoring_extra_life else 0)
