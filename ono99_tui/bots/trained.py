"""A cheap policy for the hard bot's own later turns inside its play-outs, trained offline on
the search's own high-budget decisions (expert iteration; issue 23).

The search (``search.py``) values each card it could play by play-outs in which its own later
turns are medium's. This policy plays those turns instead: medium's card, unless a linear model
of what the search found a card worth over medium's (its mean paired gain, in points of round
survival) says another card gains more than ``margin``. The model sees only what the seat to
move sees: its hand, the total, whether it owes two plays, and medium's card counting (the
share of the cards it cannot see that would bust the next player). It is trained by
``benchmarks/train_policy.py`` from positions where ``hard`` searched, in games between
``hard`` and medium, each labelled by a search of several times the default budget; the weights
are a Python constant (``ei_weights.py``, written by that script), so nothing is read from disk.

It is used only heads-up (the table it was trained on) and only where the search itself would
search (within ``SEARCH_ROOM`` of the target or under a Double Play); elsewhere medium plays.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import cards as C
from .heuristics import Weights

SEARCH_ROOM = 40  # (search.SEARCH_ROOM: not imported, search imports this module)

# card kinds the model tells apart
KINDS = ("low", "high", C.TEN, C.MINUS_TEN, C.HOLD, C.REVERSE, C.DOUBLE, C.NINETY_NINE)
_KIND = {c: ("low" if c in C.NUMBERS and C.EFFECT[c] <= 5 else "high" if c in C.NUMBERS else c)
         for c in C.ALL_CARDS}
_KIND_INDEX = {c: KINDS.index(_KIND[c]) for c in C.ALL_CARDS}
ROOMS = (5, 10, 15, 20, 30)  # room left before the play: <= 5, <= 10, ..., > 30
_GROUP = {c: (0 if c in C.ADDERS else 1 if c in (C.HOLD, C.REVERSE) else 2 if c == C.DOUBLE
              else 3 if c == C.MINUS_TEN else 4) for c in C.ALL_CARDS}
_HELPERS = frozenset((C.HOLD, C.REVERSE, C.DOUBLE, C.MINUS_TEN, C.NINETY_NINE))

N_KIND_ROOM = len(KINDS) * (len(ROOMS) + 1) * 2  # kind x room bucket x first of two
OFF_EFF = N_KIND_ROOM  # effect of an adder / 10, by room bucket
OFF_SQUEEZE = OFF_EFF + len(ROOMS) + 1  # bust share left to the next player, by card group x first of two
OFF_REST = OFF_SQUEEZE + 5 * 2
IS_MEDIUM = OFF_REST + 3  # the card medium plays: the model is a correction to medium, not a replacement
N_FEATURES = OFF_REST + 4  # last helper spent; no safe second play; helpers kept; medium's card


def _room_bucket(room: int) -> int:
    for i, r in enumerate(ROOMS):
        if room <= r:
            return i
    return len(ROOMS)


def features(rules, card: str, hand, total: int, first_of_two: bool, bust_share,
             medium_card: bool = False) -> list[tuple[int, float]]:
    """Sparse features (index, value) of playing ``card`` from what the seat to move sees.
    ``bust_share(room)``: the share of the cards it cannot see that would bust with that room;
    ``medium_card``: ``card`` is the one medium plays."""
    room = rules.target - total
    b = _room_bucket(room)
    fot = 1 if first_of_two else 0
    out = [((_KIND_INDEX[card] * (len(ROOMS) + 1) + b) * 2 + fot, 1.0)]
    eff = C.EFFECT[card]
    if card in C.ADDERS:
        out.append((OFF_EFF + b, eff / 10))
    after = total + eff
    out.append((OFF_SQUEEZE + _GROUP[card] * 2 + fot, bust_share(rules.target - after)))
    helpers = sum(1 for c in hand if c in _HELPERS) - (card in _HELPERS)
    if card in _HELPERS and helpers == 0:
        out.append((OFF_REST, 1.0))
    if first_of_two:
        rest = list(hand)
        rest.remove(card)
        if not any(c != C.NINETY_NINE and not (c in C.ADDERS and after + C.EFFECT[c] >= rules.target)
                   for c in rest):
            out.append((OFF_REST + 1, 1.0))
    out.append((OFF_REST + 2, helpers / 4))
    if medium_card:
        out.append((IS_MEDIUM, 1.0))
    return out


@dataclass(frozen=True)
class Trained(Weights):
    """Medium's weights (for the root's default and its turns far from the target) plus a
    trained correction for its own later turns in the play-outs. ``coef``: one weight per
    feature; a card replaces medium's when its predicted gain over it exceeds ``margin``."""

    coef: tuple[float, ...] = ()
    margin: float = 0.0

    def _score(self, rules, card: str, hand, total: int, first_of_two: bool, bust_share,
               medium_card: bool = False) -> float:
        coef = self.coef
        return sum(coef[i] * v for i, v in features(rules, card, hand, total, first_of_two, bust_share, medium_card))

    def pick(self, rules, legal, default: str, hand, total: int, first_of_two: bool, heads_up: bool,
             bust_share) -> str:
        """The card to play: ``default`` (medium's) unless the model says another safe card gains
        more than ``margin`` over it. Deterministic: ties keep the first card in ``legal``."""
        if not heads_up or not self.coef or (rules.target - total > SEARCH_ROOM and not first_of_two):
            return default
        best, gain = default, self.margin
        base = self._score(rules, default, hand, total, first_of_two, bust_share, True)  # (once, not per card)
        for card in legal:
            if card == default or (card in C.ADDERS and total + C.EFFECT[card] >= rules.target):
                continue
            g = self._score(rules, card, hand, total, first_of_two, bust_share) - base
            if g > gain:
                best, gain = card, g
        return best


def trained_policy() -> Trained:
    """The shipped model (``ei_weights.py``, written by ``benchmarks/train_policy.py``)."""
    from . import ei_weights

    assert len(ei_weights.COEF) == N_FEATURES, "ei_weights.py was trained on other features"
    return Trained(coef=tuple(ei_weights.COEF), margin=ei_weights.MARGIN)
