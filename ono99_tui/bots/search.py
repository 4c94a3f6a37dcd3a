"""The hard bot: determinized rollouts.

For each legal play it deals the hidden cards at random consistently with what
it has seen (the others' hand sizes, the cards played), plays the round out
with the medium policy for everyone, and counts how often it avoids losing the
round. Ties fall back on the medium policy's preference.
"""

from __future__ import annotations

import random
import time

from ..engine import Game
from ..engine.view import PlayerView
from .heuristics import choose_medium, medium_scores

DEFAULT_ROLLOUTS = 240  # per decision, shared among the legal plays
MAX_ROLLOUT_PLAYS = 400


def _determinize(view: PlayerView, rng: random.Random) -> tuple[dict[int, list[str]], list[str]]:
    hidden = list(view.unseen().elements())
    rng.shuffle(hidden)
    hands: dict[int, list[str]] = {}
    i = 0
    for seat in view.in_round:
        if seat == view.seat:
            continue
        size = view.hand_sizes[seat]
        hands[seat] = hidden[i:i + size]
        i += size
    return hands, hidden[i:]


def _rollout(view: PlayerView, card: str, rng: random.Random) -> float:
    hands, draw = _determinize(view, rng)
    g = Game.from_view(view, hands, draw, seed=rng.getrandbits(32))
    g.play(card)
    start = g.round_no
    plays = 0
    while not g.over and g.round_no == start and plays < MAX_ROLLOUT_PLAYS:
        mover = g.current
        g.play(choose_medium(PlayerView.of(g, mover), rng))
        plays += 1
    if g.round_no == start and not g.over:
        return 0.5
    return 0.0 if g.last_loser == view.seat else 1.0


def choose_hard(view: PlayerView, rng: random.Random, rollouts: int = DEFAULT_ROLLOUTS,
                deadline: float | None = None) -> str:
    legal = view.legal_plays()
    if len(legal) == 1:
        return legal[0]
    prior = medium_scores(view, legal)
    default = max(legal, key=lambda c: prior[c])
    per = max(8, rollouts // len(legal))
    wins = {c: 0.0 for c in legal}
    runs = 0
    stop = None if deadline is None else time.perf_counter() + deadline
    for _ in range(per):
        for card in legal:
            wins[card] += _rollout(view, card, rng)
        runs += 1
        if stop is not None and time.perf_counter() > stop:
            break
    best = max(legal, key=lambda c: (wins[c], prior[c]))
    p_best, p_default = wins[best] / runs, wins[default] / runs
    # Leave the medium choice only when the rollouts say so clearly (about two standard errors).
    spread = (max(p_best * (1 - p_best), 0.05) * 2 / runs) ** 0.5
    return best if p_best - p_default > 2 * spread else default
