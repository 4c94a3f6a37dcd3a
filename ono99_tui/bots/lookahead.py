"""A second step of the hard bot's search: its next turn in the play-outs chosen from what it
will know then, not by medium's rule.

The search (``search.py``) values each card it could play by play-outs in which its own later
turns are medium's. Here the play-outs of all deals are first played, after each candidate, to
the bot's next turn with a choice; there the deals are grouped by what the bot would have seen
by then (the cards played since, its own hand: the same for every deal of a group, while the
others' hands and the pile differ), each card it could play then is played out on every deal of
the group, and the group plays the card whose mean beats medium's choice by more than
``inner_k`` standard errors. A deal's value is what the card chosen for its group scores on it.

Grouping by what it would see keeps this honest: a choice made in a play-out never depends on a
hidden card the bot would not know by then (no "strategy fusion", except where a group holds
few deals, which ``inner_k`` guards against). Beyond that turn everyone plays medium.
"""

from __future__ import annotations

import random
from collections import defaultdict

from .heuristics import MEDIUM, score_cards
from .rollout import RoundSim
from .paired import best_by_gain


def _clone(sim: RoundSim) -> RoundSim:
    """A copy of a round in progress to play on separately (what a play changes is copied)."""
    new = RoundSim.__new__(RoundSim)
    for name in RoundSim.__slots__:
        if hasattr(sim, name):
            setattr(new, name, getattr(sim, name))
    new.hands = {s: list(h) for s, h in sim.hands.items()}
    new.draw, new.discard, new.legal = list(sim.draw), list(sim.discard), list(sim.legal)
    new.seen = sim.seen.copy()
    return new


def _fork(rng: random.Random) -> random.Random:
    new = random.Random()
    new.setstate(rng.getstate())
    return new


def _finish(sim: RoundSim, rng: random.Random, max_plays: int) -> RoundSim:
    choose = sim.choose if sim.policies else sim.medium_choice
    plays = 0
    while sim.loser is None and plays < max_plays:
        sim.play(choose(rng))
        plays += 1
    return sim


def _medium_card(sim: RoundSim, legal: list[str]) -> str:
    scores = score_cards(sim.rules, legal, sim.hands[sim.current], sim.total, sim.owed == 2,
                         len(sim.order) > 2, sim.bust_share, sim.standing_after, sim.own or MEDIUM)
    return max(legal, key=lambda c: scores[c])


def values(view, deals: list, candidates: list[str], value, own=MEDIUM, inner_k: float = 0.0,
           max_plays: int = 400) -> dict[str, list[float]]:
    """For each candidate card, its value on each deal (``value(view, finished_sim)``), with the
    bot's next turn with a choice decided per group of deals it could not tell apart then.
    ``deals``: (hands, draw pile top first, policies, seed) tuples."""
    me = view.seat
    out: dict[str, list[float]] = {c: [0.0] * len(deals) for c in candidates}
    for card in candidates:
        groups: dict[tuple, list] = defaultdict(list)
        for i, (hands, draw, policies, seed) in enumerate(deals):
            sim = RoundSim(view, hands, draw, seed, policies, own)
            rng = random.Random(seed)
            sim.play(card)
            seen: list[str] = []
            choose = sim.choose if policies else sim.medium_choice
            while sim.loser is None and len(seen) < max_plays:
                if sim.current == me and len(set(sim.legal)) > 1:
                    break
                c = choose(rng)
                seen.append(c)
                sim.play(c)
            if sim.loser is not None or len(seen) >= max_plays:
                out[card][i] = value(view, sim)
                continue
            key = (tuple(seen), tuple(sorted(sim.hands[me])),
                   tuple(len(sim.hands[s]) for s in sim.order))
            groups[key].append((i, sim, rng))
        for members in groups.values():
            legal = sorted(set(members[0][1].legal))
            default = _medium_card(members[0][1], legal)
            got = {a: [value(view, _finish(_play(_clone(sim), a), _fork(rng), max_plays))
                       for _, sim, rng in members] for a in legal}
            best = best_by_gain(default, {a: [x - y for x, y in zip(got[a], got[default])]
                                          for a in legal if a != default}, inner_k)
            for j, (i, _, _) in enumerate(members):
                out[card][i] = got[best][j]
    return out


def _play(sim: RoundSim, card: str) -> RoundSim:
    sim.play(card)
    return sim
