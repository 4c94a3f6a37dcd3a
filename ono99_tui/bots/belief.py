"""What the other players probably hold, read from how they played (public information only).

A player's last play says a lot about the three cards they kept with it: a
sensible player who plays a Hold at 80 had no safe number card, and one who
plays a 3 at 60 had nothing higher that was safe. The hard bot deals the
hidden cards for each simulation so that each player's hand agrees with their
last play this round, judged by the medium policy, with a little room
(``NOISE``) for players who play differently.

Measured: dealing the others' hands knowing them exactly (a cheat, for
measurement only) took a rollout bot from a 25% fair share to 48% at a
four-player table; every bit of that which an honest reading can recover counts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine import cards as C
from ..engine.legal import legal_plays
from ..engine.view import PlayerView
from .heuristics import _bust_share, _standing_of, score_cards

NOISE = 0.05  # likelihood of a play the model would not make: people are not medium bots
DEPTH = 1  # how many of each player's latest plays are read
TRIES = 12  # hands drawn per player before settling for the likeliest one seen


@dataclass(frozen=True)
class Seen:
    """One play as everyone saw it: who, what, and the position it was made in."""

    seat: int
    card: str
    total: int
    first_of_two: bool
    direction: int
    ninety_nine_used: bool


def public_history(view: PlayerView) -> list[Seen]:
    """This round's plays with the position before each, replayed from the public record."""
    rules = view.rules
    two = len(view.in_round) == 2
    total, direction, owed, pending, nn_used = 0, 1, 1, False, False  # R3.2
    seen = []
    for seat, card in view.round_plays:  # the engine's turn logic (R6), without the hands
        seen.append(Seen(seat, card, total, owed == 2, direction, nn_used))
        total += C.EFFECT[card]
        if card == C.NINETY_NINE:
            nn_used = True
        if card == C.REVERSE and not two:
            direction = -direction
        if owed == 2 and not (rules.double_play_deflect and card in (C.HOLD, C.REVERSE)):
            owed, pending = 1, card == C.DOUBLE  # the same player plays again
            continue
        owed = 2 if (owed == 2 or card == C.DOUBLE or pending) else 1
        pending = nn_used = False
    return seen


class Reader:
    """Likelihood of a hand for a seat, given that seat's last ``DEPTH`` plays; memoized per decision.

    Working back from the hand now: before each play the player held the cards they hold
    after it, less the one they drew next (any of them, equally likely), plus the card played.
    Each play is scored by whether the medium policy would have made it from that hand.
    """

    def __init__(self, view: PlayerView, depth: int | None = None):
        self.view = view
        self.depth = DEPTH if depth is None else depth
        self.plays: dict[int, list[Seen]] = {}
        for s in public_history(view):
            if s.seat != view.seat:
                self.plays.setdefault(s.seat, []).append(s)
        unseen = view.unseen()
        shares = [_bust_share(unseen, room) for room in range(12)]  # 11 and up: only the 99s bust
        self._bust = lambda room: shares[min(room, 11)]
        self._multi = len(view.in_round) > 2
        self._cache: dict[tuple, float] = {}

    def likelihood(self, seat: int, hand: list[str]) -> float:
        plays = self.plays.get(seat)
        if not plays:
            return 1.0
        return self._back(seat, len(plays) - 1, tuple(sorted(hand)), self.depth)

    def _back(self, seat: int, k: int, hand: tuple[str, ...], depth: int) -> float:
        if k < 0 or depth == 0:
            return 1.0
        key = (seat, k, hand, depth)
        found = self._cache.get(key)
        if found is not None:
            return found
        s = self.plays[seat][k]
        if len(hand) < self.view.rules.hand_size:
            drawn_options = [(None, 1)]  # nothing was drawn after that play (R4.4)
        else:
            drawn_options = [(c, hand.count(c)) for c in dict.fromkeys(hand)]
        like = 0.0
        for drawn, ways in drawn_options:
            kept = list(hand)
            if drawn is not None:
                kept.remove(drawn)
            before = tuple(sorted(kept + [s.card]))
            fits = NOISE + (1 - NOISE) * self._fits(s, before)
            like += ways * fits * self._back(seat, k - 1, before, depth - 1)
        like /= sum(w for _, w in drawn_options)
        self._cache[key] = like
        return like

    def _fits(self, s: Seen, before: tuple[str, ...]) -> bool:
        """Would the medium policy have played ``s.card`` from ``before``?"""
        view = self.view
        rules = view.rules
        legal = legal_plays(rules, before, s.total, s.first_of_two, s.ninety_nine_used)
        if s.card not in legal:
            return False
        if len(legal) == 1:
            return True
        order = view.in_round

        def standing_after(card: str) -> float:
            step = -s.direction if card == C.REVERSE else s.direction
            nxt = order[(order.index(s.seat) + step) % len(order)]
            return _standing_of(rules, view.tokens, view.points, nxt)

        scores = score_cards(rules, legal, before, s.total, s.first_of_two, self._multi, self._bust, standing_after)
        return scores[s.card] == max(scores.values())


def deal_hidden(view: PlayerView, rng: random.Random, reader: Reader | None,
                weight=None) -> tuple[dict[int, list[str]], list[str]]:
    """One deal of the hidden cards: the others' hands, then the draw pile (top first).

    Each hand is drawn from what is left and kept with probability equal to its likelihood
    (rejection sampling); after ``TRIES`` the likeliest hand drawn is kept.
    ``weight(card)``: a prior making some cards likelier to be in hands than in the pile.
    """
    pool = list(view.unseen().elements())
    rng.shuffle(pool)
    hands: dict[int, list[str]] = {}
    for seat in view.in_round:
        if seat == view.seat:
            continue
        size = view.hand_sizes[seat]
        best, best_l = None, -1.0
        for _ in range(TRIES):
            picks = _pick(pool, size, rng, weight)
            hand = [pool[i] for i in picks]
            like = 1.0 if reader is None else reader.likelihood(seat, hand)
            if like > best_l:
                best, best_l = picks, like
            if rng.random() < like:
                best = picks
                break
        hands[seat] = [pool[i] for i in best]
        for i in sorted(best, reverse=True):
            pool.pop(i)
    rng.shuffle(pool)
    return hands, pool


def _pick(pool: list[str], size: int, rng: random.Random, weight) -> list[int]:
    if weight is None:
        return rng.sample(range(len(pool)), min(size, len(pool)))
    # weighted sampling without replacement (Efraimidis-Spirakis keys)
    keys = [(rng.random() ** (1.0 / weight(c)), i) for i, c in enumerate(pool)]
    keys.sort(reverse=True)
    return [i for _, i in keys[:size]]
