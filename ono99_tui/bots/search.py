"""The hard bot: determinized rollouts with paired comparisons.

Each iteration deals the hidden cards at random consistently with what the bot
has seen (the others' hand sizes and every card played, helper cards weighted
into hands because players keep them: ``belief.deal_hidden``), and plays the
round out once after each candidate card, on that same deal and with the same
random future (common random numbers), everyone playing medium afterwards
(``rollout.py``). Each play-out is scored the way the rules in force score the
round (``round_value``: under tokens, R8, at three or more players by the chance
of winning the game the round leaves; under points, R9, heads-up by the chance of
winning the race to the limit the round leaves, at three or more by the points). The
candidates are compared on those paired outcomes against the medium policy's
choice, and the bot plays the card with the largest mean gain when it clears
``k`` standard errors (default 0: any gain; with 384 play-outs the noise is
small enough).

Reading the others' hands from every play of the round (``belief.Reader``,
with each player's kind fitted and used in the play-outs) is built and off
(``INFERENCE``, below, says why); with it on, each deal it reads is played with
``PILES_PER_DEAL`` draw piles, since the reading is the costly part.

Far from the target the round is decided many plays later and the rollouts are
mostly noise, so it searches only when the total is within ``SEARCH_ROOM`` of
the target or it must play twice.

Measured (docs/bots.md, ``benchmarks/regret.py``: each decision valued with the
others' real hands, 1,200 positions): over medium, v3 (96 deals read from the
plays, each played once, k = 1) gained 0.23 points of round survival per
decision at two and at four players; v4 (this search valuing survival only)
0.40 and 0.52; the v3 search told the real hands 0.73 and 1.47. In play
(``benchmarks/rounds.py``: paired first rounds against medium in the same seat)
it loses 2.4 points fewer rounds heads-up and 1.5 at four. This version, v5,
values the game a round leaves: no measurable change to its decisions valued
that way. Earlier: dealing the hidden cards uniformly made its departures from
medium a net loss (other players keep their helper cards); weighting helpers 3x
into hands made them a small net gain; odds fitted per card type, smaller still.
"""

from __future__ import annotations

import random
import time

from ..engine.view import PlayerView
from .heuristics import HELPERS, MEDIUM, Weights, choose_medium, medium_scores
from .belief import Reader, deal_hidden
from . import race
from .stakes import lives, win_chance
from .paired import best_by_gain
from .rollout import play_out_sim, round_points

DEFAULT_ITERATIONS = 384  # play-outs per candidate per decision (regret.py: 256 measured weaker, 768 no better)
PILES_PER_DEAL = 4  # each deal of hands read from the plays is played with this many draw piles
DEFAULT_K = 0.0  # standard errors a card's gain must clear to leave medium's card (regret.py: 0 best)
SEARCH_ROOM = 40
FULL_HAND = 4  # candidates whose play-outs ``iterations`` pays for in full (a standard hand, R3.1)
LONG_ROUND = 40  # plays a play-out may take on average before the deals stop (see choose_hard)
MAX_ROLLOUT_PLAYS = 400
EARLY_DEALS = 8  # deals after which play-outs far longer than LONG_ROUND stop the search (choose_hard)


HELPER_WEIGHT = 3.0  # how much likelier a hidden helper card is to sit in a hand than in the pile (measured)


# Read the others' hands from the round's plays (belief.py)? Off: measured on 1,200 positions at
# two and at four players (benchmarks/regret.py, each decision valued with the real hands), the
# reading's deals made no better decisions than deals with helpers weighted into hands, and the
# time it takes buys four times the play-outs, which do: 384 unread deals gained 0.17 (se 0.07)
# and 0.29 (se 0.13) points of round survival per decision over v3 at two and four players,
# reading with 384 play-outs -0.02 (0.05) and 0.21 (0.17). Its card accuracy is 2 points above
# the weighted deal's (docs/bots.md), while it plays each other player as a kind drawn from a
# prior that is medium only 45% of the time: at medium tables, a wrong model of their play.
INFERENCE = False


def _determinize(view: PlayerView, rng: random.Random, reader: Reader | None = None):
    """The others' hands and the draw pile (top first), dealt at random but consistently with
    what this seat has seen: helpers weighted into hands, hands agreeing with the round's plays."""
    return _determinize_with_models(view, rng, reader)[:2]


def _determinize_with_models(view: PlayerView, rng: random.Random, reader: Reader | None):
    """``_determinize``, and the kind of player each hand was read under (for the play-outs)."""
    weight = None if HELPER_WEIGHT == 1.0 else (lambda c: HELPER_WEIGHT if c in HELPERS else 1.0)
    models: dict[int, str] = {}
    hands, draw = deal_hidden(view, rng, reader, weight, models if MODEL_PLAYOUTS else None)
    return hands, draw, models


MODEL_PLAYOUTS = True  # the others play the play-outs by the kind of player they were read as


# How it plays its own turns where it does not search, and in its play-outs: medium's weights.
# heuristics.TUNED (benchmarks/tune.py) wins 1.6-1.9 points more games than medium does against
# medium, yet as hard's own policy it changed 54 of 800 paired heads-up rounds, for +0.00 (se
# 0.92) points of round survival (benchmarks/rounds.py --bot hard-own-tuned --against hard):
# where TUNED differs from medium (under a Double Play) hard searches anyway (docs/bots.md).
# trained.trained_policy() (expert iteration: medium corrected by a model fitted to this search's
# high-budget gains, benchmarks/train_policy.py) plays heads-up its own later turns in the
# play-outs; off, see docs/bots.md "Its own later turns by a trained policy" (rounds.py --bot hard-ei).
OWN = MEDIUM


def _outcome(view: PlayerView, hands, draw, card: str, seed: int, policies=None, own=MEDIUM,
             cost: list[int] | None = None) -> float:
    """What the round is worth to this seat after playing ``card`` and its later turns by
    ``own``, scored the way the rules in force score it (``round_value``). ``cost``: the plays
    it took are added to ``cost[0]``, in quarter plays at a table of up to four (a play at a
    bigger table weighs players/4)."""
    sim = play_out_sim(view, hands, draw, card, seed, MAX_ROLLOUT_PLAYS, policies, own)
    if cost is not None:  # (in quarter plays: a play at a table of more than four costs more)
        cost[0] += (sim.length + 1) * max(4, len(sim.order))
    return round_value(view, sim)


GAME_VALUE = True  # tokens, three or more players: value a round's end by the game it leaves (stakes.py)
GAME_STAKE = 4.0  # points rules: what ending or deciding the game is worth, in bust penalties
RACE = True  # points rules heads-up: value a round by the chance of winning the game it leaves (race.py)


def round_value(view: PlayerView, sim) -> float:
    """The value of a finished play-out to the seat deciding, by the rules in force.

    Tokens (R8): heads-up, 1 when it does not lose the round, else 0 (0.5: undecided); at three
    or more (``GAME_VALUE``), the chance of winning the game the round leaves (``stakes.py``),
    which also weighs who else lost: another player's loss is worth most when that player has
    the most lives. Measured (regret.py, 1,200 positions at four valued by that chance with the
    real hands): the same decisions' worth as valuing survival alone, -0.01 (se 0.02) points.

    Points (R9) heads-up (``RACE``): the chance of winning the game from the two scores the
    round leaves (``race.py``; in a tie-break, R9.4, the lower score wins). Measured
    (regret.py, 1,200 positions of medium games under the points preset, each card valued by
    that chance with the real hands): the same decisions' worth as the points value below,
    +0.00 (se 0.01) points of the chance of winning per decision, differing in 39 of them.

    Points at three or more: the points it adds (its cards left, 15 per missing card, the
    loser's penalty; R9.1) against the mean the others add, in units of the bust penalty, plus
    what the round does to the game: ``GAME_STAKE`` lost for reaching the limit under
    elimination (R9.2) and a share of it won for each other player put out; under first-to-limit (R9.3) or a tie-break (R9.4),
    won when the game ends with this seat lowest alone, lost when it ends otherwise.
    """
    rules = view.rules
    me, loser = view.seat, sim.loser
    if rules.scoring_mode == "tokens":
        if GAME_VALUE and len(sim.order) > 2:
            left = {s: lives(view, s) - (s == loser) for s in sim.order}  # undecided: as it stands
            return win_chance(left[me], [left[s] for s in sim.order if s != me])
        if loser is None:
            return 0.5
        return 0.0 if loser == me else 1.0
    gained = {s: round_points(rules, sim.hands[s], s == loser) for s in sim.order}
    others = [s for s in sim.order if s != me]
    if RACE and len(others) == 1:
        mine, theirs = view.points[me] + gained[me], view.points[others[0]] + gained[others[0]]
        if view.tie_break:  # the two tied play on until one is lower alone (R9.4)
            return 0.5 if mine == theirs else float(mine < theirs)
        return race.win_chance(rules, mine, theirs)
    unit = max(10, rules.scoring_bust_penalty)
    value = (sum(gained[o] for o in others) / len(others) - gained[me]) / unit
    new = {s: view.points[s] + gained[s] for s in sim.order}
    limit = rules.scoring_limit
    if loser is None:
        return value
    if view.tie_break or (rules.scoring_end == "first-to-limit" and max(new.values()) >= limit):
        low = min(new.values())
        alone = [s for s in sim.order if new[s] == low] == [me]
        if view.tie_break and not alone and new[me] == low:
            return value  # a tie among the lowest plays on (R9.4)
        return value + (GAME_STAKE if alone else -GAME_STAKE)
    if rules.scoring_end == "elimination":
        if new[me] >= limit:
            value -= GAME_STAKE
        value += GAME_STAKE * sum(new[o] >= limit for o in others) / len(others)
    return value


def _deals(view: PlayerView, rng: random.Random, reader: Reader | None, piles: int | None = None):
    """``deal()`` for the search: hands read from the plays (the costly part: rejection sampling),
    each kept for ``piles`` deals with the rest of the hidden cards shuffled afresh as the draw
    pile. Measured (benchmarks/regret.py, 1,200 positions at four): 96 readings x 4 piles gained
    0.43 and 0.21 points of round survival per decision over v3 in two random streams."""
    piles = piles or PILES_PER_DEAL
    held: list = [None, piles]

    def deal():
        if held[1] == piles:
            held[0], held[1] = _determinize_with_models(view, rng, reader), 0
        hands, draw, models = held[0]
        held[1] += 1
        if held[1] > 1:
            draw = draw[:]
            rng.shuffle(draw)
        return hands, draw, models
    return deal


LOOKAHEAD = False  # its next turn in the play-outs chosen from what it will know then (lookahead.py)
LOOK_DEALS = 128
LOOK_K = 0.0


def _choose_looking_ahead(view, rng, deal, legal, default, own, k, iterations):
    from . import lookahead
    deals = []
    for _ in range(min(LOOK_DEALS, iterations)):
        hands, draw, *models = deal()
        deals.append((hands, draw, models[0] if models else None, rng.getrandbits(32)))
    cards = [default] + [c for c in dict.fromkeys(legal) if c != default]
    got = lookahead.values(view, deals, cards, round_value, own, LOOK_K, MAX_ROLLOUT_PLAYS)
    return best_by_gain(default, {c: [x - y for x, y in zip(got[c], got[default])] for c in cards[1:]}, k)


def worth_searching(view: PlayerView) -> bool:
    return view.rules.target - view.total <= SEARCH_ROOM or view.plays_owed == 2


def choose_hard(view: PlayerView, rng: random.Random, iterations: int = DEFAULT_ITERATIONS,
                deadline: float | None = None, k: float = DEFAULT_K, deal=None, memo: dict | None = None,
                own: Weights | None = None) -> str:
    """``deal()``: one deal of the hidden cards (hands, draw pile top first); by default read
    from the view (``_determinize``). The hands oracle, a yardstick, passes the real hands.
    ``memo``: the reading's cache, kept by the bot between decisions (``belief.Reader``); a pure
    cache, so the decision is the same with it or without it. ``own``: how it plays its own turns
    where it does not search and in the play-outs (``OWN``; the hands oracle keeps medium's)."""
    own = OWN if own is None else own
    legal = view.legal_plays()
    if len(legal) == 1:
        return legal[0]
    prior = medium_scores(view, legal, own)
    default = max(legal, key=lambda c: prior[c])
    if not worth_searching(view):
        return choose_medium(view, rng, own)
    diffs: dict[str, list[float]] = {c: [] for c in legal if c != default}
    if deal is None:
        deal = _deals(view, rng, Reader(view, memo=memo)) if INFERENCE else (
            lambda: _determinize_with_models(view, rng, None))
    # The budget is play-outs, not deals: a hand of four distinct cards (R3.1's four) plays
    # ``iterations`` deals; a bigger house-rule hand (up to 10 cards) as many play-outs, so fewer
    # deals (measured: with 10-card hands p99 was 447 ms a decision, against 300 allowed).
    # And a play-out's cost is its plays: house rules can make rounds near the target last hundreds
    # of plays (a target of 999, a deck of 40 Minus Tens, eight players: p99 2.4 s a decision),
    # so the deals stop once the plays reach what LONG_ROUND plays a play-out would cost (a play
    # at a bigger table weighing more: ``_outcome``). A
    # standard round played out from within 40 of the target takes 6-7 plays on average, at
    # most 19 a decision on the positions measured (docs/bots.md): the cap never binds there.
    if LOOKAHEAD:
        return _choose_looking_ahead(view, rng, deal, legal, default, own, k, iterations)
    budget = iterations * FULL_HAND * LONG_ROUND * 4
    iterations = min(iterations, iterations * FULL_HAND // (len(diffs) + 1))
    stop = None if deadline is None else time.perf_counter() + deadline
    spent = [0]
    for dealt in range(1, iterations + 1):
        hands, draw, *models = deal()
        policies = models[0] if models else None
        seed = rng.getrandbits(32)
        base = _outcome(view, hands, draw, default, seed, policies, own, spent)
        for card in diffs:
            diffs[card].append(_outcome(view, hands, draw, card, seed, policies, own, spent) - base)
        if stop is not None and time.perf_counter() > stop:
            break
        if spent[0] >= budget:
            break
        if dealt == EARLY_DEALS and spent[0] > dealt * (len(diffs) + 1) * LONG_ROUND * 4:
            # Play-outs averaging more than LONG_ROUND plays: house rules whose rounds barely end
            # (a 4-card deck, a target of 999), where they mostly stop at MAX_ROLLOUT_PLAYS
            # undecided, and the budget cost 2.3 s a decision (p99) for noise. A standard round
            # averages 6-7 plays, at most 19 a decision: this never stops a standard search.
            break
    return best_by_gain(default, diffs, k)
