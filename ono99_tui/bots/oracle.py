"""The oracles: yardstick bots that see hidden cards. Test and benchmark use only.

It is never offered to players (it is not in LEVELS and `ono99 simulate`
refuses it). It plays each legal card out against the real hands and the real
draw-pile order with the medium policy for everyone, so it bounds how much
knowing the hidden cards is worth to a rollout bot. The hands oracle is the
hard bot's own search given the others' real hands but not the draw-pile order:
it bounds what the hard bot could gain by reading the others' hands perfectly.
"""

from __future__ import annotations

import random

from ..engine import Game
from ..engine.view import PlayerView
from .heuristics import choose_medium, medium_scores

ROLLOUTS_PER_CARD = 8


class Oracle:
    def __init__(self, seed: str | int = 0, rollouts: int = ROLLOUTS_PER_CARD):
        self.rng = random.Random(f"bot/oracle/{seed}")
        self.rollouts = rollouts

    def choose(self, game: Game, seat: int) -> str:
        view = game.view(seat)
        legal = view.legal_plays()
        if len(legal) == 1:
            return legal[0]
        hands = {s: list(game.hands[s]) for s in view.in_round if s != seat}
        draw = list(reversed(game.draw))
        prior = medium_scores(view, legal)
        wins = dict.fromkeys(legal, 0)
        for _ in range(self.rollouts):
            seed = self.rng.getrandbits(32)
            for card in legal:  # the same future for every candidate: a paired comparison
                g = Game.from_view(view, hands, draw, seed=seed)
                rng = random.Random(seed)
                start = g.round_no  # before the play: the play itself may end the round
                g.play(card)
                while not g.over and g.round_no == start:
                    g.play(choose_medium(PlayerView.of(g, g.current), rng))
                wins[card] += g.last_loser != seat
        return max(legal, key=lambda c: (wins[c], prior[c]))


class HandsOracle:
    """The hard bot's search, dealt the others' real hands and a shuffled draw pile."""

    #: the budget its 4,000-game yardstick rows were measured with (hard's search before v4: 96
    #: deals, leaving medium's card at one standard error): kept so those rows stay its own
    ITERATIONS, K = 96, 1.0

    def __init__(self, seed: str | int = 0, iterations: int | None = None):
        self.rng = random.Random(f"bot/oracle-hands/{seed}")
        self.iterations = iterations or self.ITERATIONS

    def choose(self, game: Game, seat: int) -> str:
        from .heuristics import MEDIUM
        from .search import choose_hard

        view = game.view(seat)
        hands = {s: list(game.hands[s]) for s in view.in_round if s != seat}
        pile = list(game.draw)

        def deal():
            draw = pile[:]
            self.rng.shuffle(draw)
            return hands, draw

        return choose_hard(view, self.rng, iterations=self.iterations, deal=deal, k=self.K, own=MEDIUM)
