"""What the other players probably hold, read from the whole round's public history.

Every play a player made this round says something about the cards they held
then: a sensible player who plays a Hold at 80 had no safe number card, one
who plays a 3 at 60 had nothing higher that was safe. Working back from a
guessed hand now, the hand before each of their plays is the hand after it,
less the card they drew next (any of them), plus the card they played; each
play is then judged by a model of how that player plays.

The models (``MODELS``): the medium policy, the easy policy, the random bot,
and a human-like mix of the three. Which one a player is, is not assumed: each
guessed hand is judged under a model drawn from the prior ``PRIOR``, so a hand
is kept in proportion to sum over models of prior x likelihood, which is the
Bayesian posterior with the player's kind unknown (a player whose plays only
a random player would make is read as one, and their hand as barely known).

Sampling is exact rejection sampling with an unbiased likelihood estimate (the
pseudo-marginal trick): a guessed hand is kept with the probability of the
plays along one randomly chosen history (which card was drawn after each
play), checked from the latest play back so that a hand the plays rule out is
dropped at the first play that rules it out. Everything is a function of the
view (the round's public plays are in it): nothing is kept between decisions
except a memo of pure results, so save/resume, undo, a worker thread or a
network stand-in bot decide exactly as the bot that saw the whole round.

The position each play was made in (total, direction, Double Play turns, what
had been played since the last reshuffle, whether a card could be drawn) is
replayed from the public record (``public_history``).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from itertools import accumulate
from dataclasses import dataclass

from ..engine import cards as C
from ..engine.legal import busts, legal_plays
from ..engine.view import PlayerView
from .heuristics import HELPERS, _bust_share, _standing_of, score_cards
from .rollout import MIX

NOISE = 0.05  # likelihood of a play no model would make
TRIES = 24  # guessed hands per player before settling for the one that fitted the most plays
DEPTH = None  # plays read per player, latest first (None: the whole round)

#: How likely each kind of player is before their plays are read; "mixed": a person, mostly
#: sensible (medium), sometimes greedy (easy), sometimes careless (random).
PRIOR = {"medium": 0.45, "mixed": 0.30, "easy": 0.15, "random": 0.10}

MODELS = tuple(PRIOR)


@dataclass(frozen=True)
class Seen:
    """One play as everyone saw it: who, what, and the position it was made in."""

    seat: int
    card: str
    total: int
    first_of_two: bool
    direction: int
    ninety_nine_used: bool
    discard: tuple[str, ...] = ()  # the played cards in sight before this play (since the last reshuffle)
    drew: bool = True  # a card was drawn after it (R4.4: not when nothing was left)


def public_history(view: PlayerView) -> list[Seen]:
    """This round's plays with the position before each, replayed from the public record: the
    engine's turn logic (R3.2, R6, R7.2) and its draw pile's size and reshuffles (R4.3, R4.4)."""
    return replay(view)[0]


def replay(view: PlayerView) -> tuple[list[Seen], list[str], int]:
    """``public_history``, and the discard and draw-pile size it arrives at (the view's own)."""
    rules = view.rules
    two = len(view.in_round) == 2
    total, direction, owed, pending, nn_used = 0, 1, 1, False, False  # R3.2
    pile = len(rules.deck) - rules.hand_size * len(view.in_round)  # R3.1
    discard: list[str] = []
    seen = []
    for seat, card in view.round_plays:
        in_sight = tuple(discard)
        discard.append(card)
        if pile == 0 and len(discard) > 1:  # R4.3: all but the card just played go back
            pile, discard = len(discard) - 1, discard[-1:]
        drew = pile > 0
        pile -= drew
        seen.append(Seen(seat, card, total, owed == 2, direction, nn_used, in_sight, drew))
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
    return seen, discard, pile


class Reader:
    """Reads the others' hands from their plays this round (see the module's docstring).

    ``memo``: a dict kept by the caller between decisions of one round (a pure cache: a play's
    fit depends on the round's plays up to it only, so it holds while the history only grows).
    """

    def __init__(self, view: PlayerView, depth: int | None | str = "DEPTH", memo: dict | None = None):
        self.view = view
        self.depth = DEPTH if depth == "DEPTH" else depth  # the module's, read now (benchmarks set it)
        self.history = public_history(view)
        self.plays: dict[int, list[int]] = {}
        for i, s in enumerate(self.history):
            if s.seat != view.seat:
                self.plays.setdefault(s.seat, []).append(i)
        self._multi = len(view.in_round) > 2
        self._deck = Counter(view.rules.deck)
        self._fit = _round_memo(memo, view)
        self._back: dict = {}
        self._unseen: dict[int, Counter] = {}

    # -- how likely one play is under a model ----------------------------------------------
    def fit(self, i: int, before: tuple[str, ...], model: str) -> float:
        """Probability that a player of kind ``model`` holding ``before`` makes play ``i``."""
        key = (i, before, model)
        found = self._fit.get(key)
        if found is None:
            if model == "mixed":
                found = sum(w * self.fit(i, before, m) for m, w in MIX.items())
            else:
                found = self._policy_fit(self.history[i], before, model)
            self._fit[key] = found
        return found

    def _policy_fit(self, s: Seen, before: tuple[str, ...], model: str) -> float:
        rules = self.view.rules
        legal = legal_plays(rules, before, s.total, s.first_of_two, s.ninety_nine_used)
        if s.card not in legal:
            return 0.0
        if len(legal) == 1:
            return 1.0
        safe = [c for c in legal if not busts(rules, c, s.total)]
        if model == "random":
            pool = safe or legal
            return pool.count(s.card) / len(pool) if s.card in pool else 0.0
        if model == "easy":
            adders = [c for c in safe if c in C.ADDERS]
            if adders:
                return float(C.EFFECT[s.card] == max(C.EFFECT[c] for c in adders) and s.card in adders)
            helpers = [c for c in safe if c in HELPERS]
            if helpers:
                return helpers.count(s.card) / len(helpers)
            return float(C.EFFECT[s.card] == min(C.EFFECT[c] for c in legal))
        # medium, with its card counting as it was then: the cards that player could not see
        base = self._unseen.get(id(s))
        if base is None:
            base = self._unseen[id(s)] = self._deck - Counter(s.discard)
        unseen = base - Counter(before)
        view = self.view
        order = view.in_round

        def standing_after(card: str) -> float:
            step = -s.direction if card == C.REVERSE else s.direction
            nxt = order[(order.index(s.seat) + step) % len(order)]
            return _standing_of(rules, view.tokens, view.points, nxt)

        scores = score_cards(rules, legal, before, s.total, s.first_of_two, self._multi,
                             lambda room: _bust_share(unseen, room), standing_after)
        return float(scores[s.card] == max(scores.values()))

    # -- a guessed hand, judged ---------------------------------------------------------------
    def _steps(self, seat: int) -> list[int]:
        plays = self.plays.get(seat, [])
        return plays if self.depth is None else plays[-self.depth:] if self.depth > 0 else []

    def posterior_weight(self, seat: int, hand: list[str]) -> float:
        """Sum over the kinds of player of prior x ``likelihood``: the weight of ``hand`` (at most 1)."""
        return sum(p * self.likelihood(seat, hand, m) for m, p in PRIOR.items())

    def likelihood(self, seat: int, hand: list[str], model: str = "medium") -> float:
        """Exact probability of ``seat``'s plays this round given it holds ``hand`` now and plays like
        ``model`` (each play allowing ``NOISE``), averaged over which card it drew after each."""
        steps = self._steps(seat)
        cache = self._back.setdefault((seat, model), {})

        def back(k: int, hand: tuple[str, ...]) -> float:
            if k < 0:
                return 1.0
            found = cache.get((k, hand))
            if found is not None:
                return found
            i = steps[k]
            s = self.history[i]
            options = [(c, hand.count(c)) for c in dict.fromkeys(hand)] if s.drew and hand else [(None, 1)]
            like = 0.0
            for drawn, ways in options:
                kept = list(hand)
                if drawn is not None:
                    kept.remove(drawn)
                before = tuple(sorted(kept + [s.card]))
                like += ways * (NOISE + (1 - NOISE) * self.fit(i, before, model)) * back(k - 1, before)
            like /= sum(w for _, w in options)
            cache[(k, hand)] = like
            return like

        return back(len(steps) - 1, tuple(sorted(hand)))

    def accept(self, seat: int, hand: list[str], rng: random.Random) -> tuple[bool, int, str]:
        """Keep ``hand`` with probability equal to an unbiased estimate of its likelihood under a
        model drawn from ``PRIOR``; returns (kept, how many plays it fitted before it was dropped,
        the model). The models of the hands kept are draws from the posterior over kinds of player
        jointly with the hands: the play-outs use them."""
        model = _draw_model(rng)
        steps = self._steps(seat)
        if not steps:
            return True, 0, model
        now = list(hand)
        fitted = 0
        for i in reversed(steps):
            s = self.history[i]
            if s.drew and now:
                now.pop(rng.randrange(len(now)))
            now.append(s.card)
            before = tuple(sorted(now))
            if rng.random() >= NOISE + (1 - NOISE) * self.fit(i, before, model):
                return False, fitted, model
            fitted += 1
        return True, fitted, model


def _draw_model(rng: random.Random) -> str:
    x = rng.random()
    for model, p in PRIOR.items():
        x -= p
        if x < 0:
            return model
    return MODELS[-1]


def _round_memo(memo: dict | None, view: PlayerView) -> dict:
    """The fits memo for this round: kept while the round's plays only grow, else started again."""
    if memo is None:
        return {}
    key = (view.names, view.rules, view.round, view.dealer, view.in_round, view.tokens, view.points)
    plays = view.round_plays
    old = memo.get("plays")
    if memo.get("key") != key or old is None or plays[:len(old)] != old:
        memo.clear()
        memo["key"], memo["fits"] = key, {}
    memo["plays"] = plays
    return memo["fits"]


def deal_hidden(view: PlayerView, rng: random.Random, reader: Reader | None,
                weight=None, models: dict | None = None) -> tuple[dict[int, list[str]], list[str]]:
    """One deal of the hidden cards: the others' hands, then the draw pile (top first).

    Each hand is drawn from what is left and kept by ``Reader.accept``; after ``TRIES`` the
    hand that fitted the most plays is kept. ``weight(card)``: a prior making some cards likelier
    to be in hands than in the pile. ``models``: filled with the kind of player each hand was
    kept under (medium when none was kept).
    """
    pool = list(view.unseen().elements())
    rng.shuffle(pool)
    hands: dict[int, list[str]] = {}
    for seat in view.in_round:
        if seat == view.seat:
            continue
        size = view.hand_sizes[seat]
        best, best_fit = None, -1
        cum = None if weight is None else list(accumulate(weight(c) for c in pool))
        for _ in range(TRIES if reader is not None else 1):
            picks = _pick(pool, size, rng, cum)
            if reader is None:
                best = picks
                break
            kept, fitted, model = reader.accept(seat, [pool[i] for i in picks], rng)
            if kept:
                best = picks
                if models is not None:
                    models[seat] = model
                break
            if fitted > best_fit:
                best, best_fit = picks, fitted
        hands[seat] = [pool[i] for i in best]
        for i in sorted(best, reverse=True):
            pool.pop(i)
    rng.shuffle(pool)
    return hands, pool


def _pick(pool: list[str], size: int, rng: random.Random, cum: list[float] | None) -> list[int]:
    """``size`` distinct places in ``pool``: uniformly, or (``cum``: the cumulative weights) each
    in turn with probability proportional to its weight among those not yet taken (successive
    sampling; a draw of a place already taken is drawn again, which is the same thing)."""
    size = min(size, len(pool))
    if cum is None:
        return rng.sample(range(len(pool)), size)
    total = cum[-1]
    picks: list[int] = []
    while len(picks) < size:
        i = bisect_right(cum, rng.random() * total)
        if i < len(pool) and i not in picks:
            picks.append(i)
    return picks
