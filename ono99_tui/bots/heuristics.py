"""Plain bot policies: random, easy and medium. Each chooses from a view's legal plays."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from ..engine import cards as C
from ..engine.legal import busts
from ..engine.view import PlayerView

HELPERS = (C.HOLD, C.REVERSE, C.DOUBLE, C.MINUS_TEN, C.NINETY_NINE)


@dataclass(frozen=True)
class Weights:
    """The numbers in medium's preferences that a tuning changed (``benchmarks/tune.py``)."""

    deflect_room: int = 20  # under a Double Play, pass both plays on with Hold/Reverse within this room


MEDIUM = Weights()
# Tuned by benchmarks/tune.py against medium (whole games, duplicate deals; of 17 of medium's
# numbers tried, only this one paid): 51.9% of 16,000 games heads-up, 26.8% of 8,000 at four.
TUNED = Weights(deflect_room=6)


def safe_plays(view: PlayerView, legal: list[str]) -> list[str]:
    return [c for c in legal if not busts(view.rules, c, view.total)]


def choose_random(view: PlayerView, rng: random.Random) -> str:
    """Any legal play, avoiding an immediate loss when it can."""
    legal = view.legal_plays()
    return rng.choice(safe_plays(view, legal) or legal)


def choose_easy(view: PlayerView, rng: random.Random) -> str:
    """The highest card that keeps the total under the target; helpers only when forced."""
    legal = view.legal_plays()
    safe = safe_plays(view, legal)
    adders = [c for c in safe if c in C.ADDERS]
    if adders:
        return max(adders, key=C.EFFECT.__getitem__)
    helpers = [c for c in safe if c in HELPERS]
    if helpers:
        return rng.choice(helpers)
    return min(legal, key=C.EFFECT.__getitem__)


def bust_chance(view: PlayerView, total: int) -> float:
    """Share of the cards this seat cannot see that would bust at ``total``."""
    return _bust_share(view.unseen(), view.rules.target - total)


def _bust_share(unseen, room: int) -> float:
    count = sum(unseen.values())
    if not count:
        return 0.0
    bad = sum(n for c, n in unseen.items() if (c in C.ADDERS and C.EFFECT[c] >= room) or c == C.NINETY_NINE)
    return bad / count


def medium_scores(view: PlayerView, legal: list[str], weights: Weights = MEDIUM) -> dict[str, float]:
    """Preference for each legal card (higher is better); see ``score_cards``."""
    return score_cards(
        view.rules, legal, view.hand, view.total, view.plays_owed == 2, len(view.in_round) > 2,
        lambda room: _bust_share(view.unseen(), room), lambda card: _standing(view, _next_after(view, card)),
        weights,
    )


def score_cards(rules, legal, hand, total: int, first_of_two: bool, multi: bool,
                bust_share: Callable[[int], float], standing_after: Callable[[str], float],
                weights: Weights = MEDIUM) -> dict[str, float]:
    """Preference for each legal card (higher is better), from what the player to move sees.

    ``bust_share(room)`` is the share of the cards the player cannot see that would bust with
    that much room left; ``standing_after(card)`` is how well off
    the player who moves after ``card`` is. (Plain values and callbacks, not a view, so the hard
    bot's fast rollouts can call it too.)

    Easy's sound core (high cards first, helpers kept for danger) plus: get rid of
    a playable 99 at once; under a Double Play deflect when it is tight and never
    make a first play that leaves no safe second one; when a helper must be used,
    prefer Minus Ten (measured: it buys room for this seat's next turn too), then
    the Double Play that squeezes the next player, then Hold/Reverse.
    With three or more in the round the squeeze matters more than the room
    (measured: Minus Ten hands the room to the next player): Double Play first,
    then the Hold or Reverse that passes the squeeze to the player best off,
    Minus Ten last.
    """
    room = rules.target - total
    scores: dict[str, float] = {}
    for card in legal:
        if busts(rules, card, total):
            scores[card] = -1000.0 - C.EFFECT[card]
            continue
        after = total + C.EFFECT[card]
        if card == C.NINETY_NINE:
            score = 100.0
        elif card in C.ADDERS:
            score = 50.0 + C.EFFECT[card]
            if first_of_two:
                rest = list(hand)
                rest.remove(card)
                if not any(not busts(rules, c, after) and c != C.NINETY_NINE for c in rest):
                    score -= 60  # I would have to play again from there with nothing safe
                elif rules.target - after <= 12:
                    score -= 15
            elif rules.target - after <= 12:
                score += 5 * bust_share(rules.target - after)  # card counting: how tight for them?
        elif card == C.DOUBLE:
            score = 45.0 if multi else 30.0 + 5 * bust_share(room)
        elif card in (C.HOLD, C.REVERSE):
            score = 25.0 + (40 if first_of_two and rules.double_play_deflect and room <= weights.deflect_room else 0)
            if multi:
                score += 0.1 * standing_after(card)
            elif card == C.REVERSE:
                score -= 0.5
        else:  # Minus Ten: heads-up it buys room for my next turn too; at a bigger table it helps the next player
            score = 20.0 if multi else 40.0
        scores[card] = score
    return scores


def _next_after(view: PlayerView, card: str) -> int:
    order = list(view.in_round)
    i = order.index(view.seat)
    step = -view.direction if card == C.REVERSE else view.direction
    return order[(i + step) % len(order)]


def _standing(view: PlayerView, seat: int) -> float:
    return _standing_of(view.rules, view.tokens, view.points, seat)


def _standing_of(rules, tokens, points, seat: int) -> float:
    """How well off a seat is: tokens left, or (points) how far under the limit."""
    if rules.scoring_mode == "tokens":
        return float(tokens[seat])
    return (rules.scoring_limit - points[seat]) / 100


def choose_medium(view: PlayerView, rng: random.Random, weights: Weights = MEDIUM) -> str:
    legal = view.legal_plays()
    if len(legal) == 1:
        return legal[0]
    scores = medium_scores(view, legal, weights)
    best = max(scores.values())
    return rng.choice([c for c in legal if scores[c] == best])
