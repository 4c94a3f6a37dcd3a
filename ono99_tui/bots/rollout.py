"""Fast play-outs of one round for the hard bot's search.

The search plays thousands of rounds per decision. Doing that through ``Game``
builds a full ``PlayerView`` (every played card, copied) for every simulated
play; this module keeps only what one round needs and calls medium's scoring
core directly (or easy's, random's, or a mix of them, for a player the reading
fits as one of those), so a play-out is several times quicker. It follows the
engine exactly, reshuffle order included: a test plays the same positions both
ways and requires the same loser, and under points rules the same points for
every seat (R9.1), every time.
"""

from __future__ import annotations

import random
from collections import Counter

from ..engine import cards as C
from ..engine.game import MISSING_CARD_POINTS
from ..engine.legal import legal_plays
from .heuristics import HELPERS, MEDIUM, _standing_of, score_cards
from .trained import Trained

MIX = {"medium": 0.6, "easy": 0.25, "random": 0.15}  # belief.MIX: a person, as the reading models one

_ADDERS = C.ADDERS
_EFFECT = C.EFFECT
_TURN_PASSERS = (C.HOLD, C.REVERSE)
# for each room left (0-11; 11 stands for "more than 10"), the cards that would bust: adders
# at least that big, and the 99 (which never plays by default)
_BUSTERS = [tuple(c for c in C.ALL_CARDS if (c in _ADDERS and _EFFECT[c] >= room) or c == C.NINETY_NINE)
            for room in range(12)]


class RoundSim:
    """One round from a determinized position; ``play`` until ``loser`` is set."""

    __slots__ = ("rules", "round_no", "seed", "order", "pos", "hands", "draw", "discard", "seen",
                 "total", "direction", "current", "owed", "nn_used", "pending_double", "reshuffles",
                 "loser", "legal", "deck", "deck_size", "tokens", "points", "policies", "me", "own", "length")

    def __init__(self, view, hands: dict[int, list[str]], draw_top_first: list[str], seed: int,
                 policies: dict[int, str] | None = None, own=MEDIUM):
        self.policies = policies or {}
        self.me, self.own = view.seat, own  # the deciding seat plays its own later turns by ``own``
        self.rules = view.rules
        self.round_no = view.round
        self.seed = seed
        self.order = list(view.in_round)
        self.pos = {s: i for i, s in enumerate(self.order)}
        self.hands = {s: list(hands.get(s, ())) for s in self.order}
        self.hands[view.seat] = list(view.hand)
        self.draw = list(reversed(draw_top_first))
        self.discard = list(view.discard)
        self.seen = Counter(self.discard)  # the discard, counted: what every player has seen played
        self.deck = Counter(view.rules.deck)
        self.deck_size = len(view.rules.deck)
        self.tokens, self.points = view.tokens, view.points
        self.total, self.direction = view.total, view.direction
        self.current, self.owed = view.current, view.plays_owed
        self.nn_used, self.pending_double = view.ninety_nine_used, view.pending_double
        self.reshuffles = 0
        self.loser: int | None = None
        self._settle()

    def _settle(self) -> None:
        p = self.current
        self.legal = legal_plays(self.rules, self.hands[p], self.total, self.owed == 2, self.nn_used)
        if not self.legal:
            self.loser = p  # R5.2

    def _next(self, seat: int) -> int:
        order = self.order
        return order[(self.pos[seat] + self.direction) % len(order)]

    def _draw(self, seat: int) -> None:
        if not self.draw and len(self.discard) > 1:
            # the engine's R4.3 reshuffle, seeded the same way so both give the same pile
            self.reshuffles += 1
            pile = self.discard[:-1]
            if len(pile) > 1:  # (one card is its own shuffle: a 4-card deck reshuffles every play)
                random.Random(f"{self.seed}/round{self.round_no}/reshuffle{self.reshuffles}").shuffle(pile)
            self.discard = self.discard[-1:]
            self.seen = Counter(self.discard)
            pile.reverse()
            self.draw = pile
        if self.draw:
            self.hands[seat].append(self.draw.pop())

    def play(self, card: str) -> None:
        p = self.current
        rules = self.rules
        self.hands[p].remove(card)
        self.discard.append(card)
        self.seen[card] += 1
        self.total += _EFFECT[card]
        if card == C.NINETY_NINE:
            self.nn_used = True
        self._draw(p)
        if card in _ADDERS and self.total >= rules.target:
            self.loser = p
            return
        two_players = len(self.order) == 2
        if card == C.REVERSE and not two_players:
            self.direction = -self.direction
        if self.owed == 2:
            if rules.double_play_deflect and card in _TURN_PASSERS:
                self._turn_to(self._next(p), 2)
                return
            if card == C.DOUBLE:
                self.pending_double = True
            self.owed = 1
            self._settle()
            return
        self._turn_to(self._next(p), 2 if (card == C.DOUBLE or self.pending_double) else 1)

    def _turn_to(self, seat: int, owed: int) -> None:
        self.current, self.owed = seat, owed
        self.nn_used = self.pending_double = False
        self._settle()

    # -- the medium policy, for whoever is to move ------------------------------------
    def bust_share(self, room: int) -> float:
        """Medium's card counting for the player to move: the share of the cards they cannot
        see (the deck less their hand and the discard) that would bust with ``room`` left."""
        hand = self.hands[self.current]
        count = self.deck_size - len(hand) - len(self.discard)
        if count <= 0:
            return 0.0
        deck, seen = self.deck, self.seen
        bad = 0
        for c in _BUSTERS[max(0, min(room, 11))]:
            bad += deck[c] - hand.count(c) - seen[c]
        return bad / count

    def standing_after(self, card: str) -> float:
        step = -self.direction if card == C.REVERSE else self.direction
        order = self.order
        nxt = order[(self.pos[self.current] + step) % len(order)]
        return _standing_of(self.rules, self.tokens, self.points, nxt)

    def medium_choice(self, rng: random.Random) -> str:
        legal = self.legal
        if len(legal) == 1:
            return legal[0]
        own = self.own if self.current == self.me else MEDIUM
        hand = self.hands[self.current]
        scores = score_cards(self.rules, legal, hand, self.total, self.owed == 2,
                             len(self.order) > 2, self.bust_share, self.standing_after, own)
        best = max(scores.values())
        card = rng.choice([c for c in legal if scores[c] == best])
        if own is not MEDIUM and isinstance(own, Trained):  # its own turn by a trained policy (trained.py)
            card = own.pick(self.rules, legal, card, hand, self.total, self.owed == 2, len(self.order) == 2,
                            self.bust_share)
        return card


    def choose(self, rng: random.Random) -> str:
        """The play of the seat to move by its model in ``policies`` (belief.MODELS; medium when
        none is given): medium, easy, random, or the human-like mix of them."""
        model = self.policies.get(self.current, "medium")
        if model == "mixed":
            x = rng.random()
            model = "medium" if x < MIX["medium"] else "easy" if x < MIX["medium"] + MIX["easy"] else "random"
        if model == "medium":
            return self.medium_choice(rng)
        legal = self.legal
        if len(legal) == 1:
            return legal[0]
        total, target = self.total, self.rules.target
        safe = [c for c in legal if not (c in _ADDERS and total + _EFFECT[c] >= target)]  # R5.4
        if model == "random":
            return rng.choice(safe or legal)
        adders = [c for c in safe if c in _ADDERS]  # easy (heuristics.choose_easy)
        if adders:
            return max(adders, key=_EFFECT.__getitem__)
        helpers = [c for c in safe if c in HELPERS]
        if helpers:
            return rng.choice(helpers)
        return min(legal, key=_EFFECT.__getitem__)


def play_out(view, hands, draw_top_first, card: str, seed: int, max_plays: int) -> int | None:
    """Play ``card`` for the seat to move, then medium for everyone until the round ends.

    Returns the round's loser, or None when ``max_plays`` plays were not enough. The same
    as doing it through ``Game.from_view(view, hands, draw, seed)`` with a ``random.Random(seed)``
    for the policy's tie-breaks.
    """
    return play_out_sim(view, hands, draw_top_first, card, seed, max_plays).loser


def play_out_sim(view, hands, draw_top_first, card: str, seed: int, max_plays: int,
                 policies: dict[int, str] | None = None, own=MEDIUM) -> RoundSim:
    """``play_out``, returning the finished round itself (hands at the end, for R9 points), with
    each seat in ``policies`` playing by its model (the others by medium) and this seat by
    medium's ``own`` weights (``search.OWN`` for the hard bot)."""
    sim = RoundSim(view, hands, draw_top_first, seed, policies, own)
    rng = random.Random(seed)
    sim.play(card)
    plays = 0
    choose = sim.choose if policies else sim.medium_choice
    while sim.loser is None and plays < max_plays:
        sim.play(choose(rng))
        plays += 1
    sim.length = plays  # (plays after ``card``: what the play-out cost, for the search's budget)
    return sim


def round_points(rules, hand: list[str], lost: bool) -> int:
    """R9.1: what a hand left at the end of a round scores (cards, 15 per missing card, the
    loser's penalty). The engine's ``Game.breakdown``, for the play-outs."""
    missing = max(0, rules.hand_size - len(hand))
    return (sum(C.HAND_VALUE[c] for c in hand) + MISSING_CARD_POINTS * missing
            + (rules.scoring_bust_penalty if lost else 0))
