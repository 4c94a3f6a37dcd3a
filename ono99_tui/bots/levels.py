"""The bot levels offered to players, and their one-line descriptions."""

from __future__ import annotations

import random
from typing import Callable

from ..engine.record import BOT_LEVELS
from ..engine.view import PlayerView
from .heuristics import choose_easy, choose_medium, choose_random
from .search import choose_hard

LEVELS = BOT_LEVELS  # which levels exist is the engine's (records name them): engine/record.py

DESCRIPTIONS = {
    "random": "Plays any card it may, but never goes bust when it can avoid it.",
    "easy": "Plays its highest card that stays under 99; uses helper cards only when it must.",
    "medium": "Saves its helper cards for danger, dumps high cards early, counts what has been "
    "played and squeezes the next player.",
    "hard": "Imagines the hidden cards hundreds of ways (players keep their helper cards), plays "
    "the round out in its head after each card it could play, and picks the play that scores best."
}

_POLICIES: dict[str, Callable[[PlayerView, random.Random], str]] = {
    "random": choose_random,
    "easy": choose_easy,
    "medium": choose_medium,
    "hard": choose_hard,
}


class Bot:
    """A computer player of one level; deterministic given its seed and the views it is shown."""

    def __init__(self, level: str, seed: int = 0, iterations: int | None = None):
        """``iterations``: the hard bot's search budget (deals sampled per decision); a count, not a
        clock, so a decision is the same on a fast or a busy machine."""
        if level not in _POLICIES:
            raise ValueError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})")
        self.level = level
        self.rng = random.Random(f"bot/{level}/{seed}")
        self._choose = _POLICIES[level]
        # the hard bot's only state between decisions: a cache of pure results about this round's
        # public plays (bots/belief.py), so a bot made afresh (a resumed save, an undo, a network
        # stand-in) decides exactly as one that watched the whole round
        self.memo: dict = {}
        if level == "hard":
            budget = {} if iterations is None else {"iterations": iterations}
            self._choose = lambda view, rng: choose_hard(view, rng, memo=self.memo, **budget)

    def choose(self, view: PlayerView) -> str:
        if not view.my_turn:
            raise ValueError("a bot is asked to play out of turn")
        return self._choose(view, self.rng)


def make_bot(level: str, seed: int = 0) -> Bot:
    return Bot(level, seed)
