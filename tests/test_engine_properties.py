"""Invariants of the engine over random house rules and random legal play (hypothesis)."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.engine import Game
from ono99_tui.engine import cards as C
from ono99_tui.engine.cards import ALL_CARDS
from ono99_tui.store.presets import load_preset, preset_names

from .strategies import tables

MAX_PLAYS = 20_000


def check(g: Game, play_totals: list[int]):
    r = g.rules
    # R1: every card is in a hand, the draw pile or the played pile; nowhere twice.
    everywhere = Counter()
    for hand in g.hands:
        everywhere.update(hand)
    everywhere.update(g.draw)
    everywhere.update(g.discard)
    assert everywhere == Counter(r.deck)
    # R3/R4.2: only players in the round hold cards, never more than a hand.
    for s in range(g.n):
        assert len(g.hands[s]) <= r.hand_size
        if s not in g.order:
            assert g.hands[s] == []
    # the total is the sum of the round's effects
    assert g.total == sum(C.EFFECT[c] for c in g.played)
    assert all(t < r.target for t in play_totals[:-1])
    if not g.over:
        assert g.current in g.order and not g.out[g.current]
        legal = g.legal_plays()
        assert legal, "a player to move always has a legal play (R5.2 ends the round otherwise)"
        for card in ALL_CARDS:
            assert (g.why_not(card) is None) == (card in legal)
        assert g.owed in (1, 2)


def play_out(g: Game, choose: random.Random):
    round_totals: list[int] = []
    plays = 0
    while not g.over:
        rnd = g.round_no
        card = choose.choice(g.legal_plays())
        events = g.play(card)
        plays += 1
        assert plays < MAX_PLAYS, "every game ends"
        round_totals.append(events[0]["total"])
        check(g, round_totals)
        if g.round_no != rnd:
            round_totals = []
    # a loss can also come at a deal (R5.2), before anyone plays
    return Counter(e["seat"] for e in g.events if e["type"] == "round_lost")


def check_scores(g: Game, losses: Counter):
    r = g.rules
    if r.scoring_mode == "tokens":
        for s in range(g.n):
            lost = losses[s]
            assert g.tokens[s] == max(0, r.scoring_tokens - lost)
            limit = r.scoring_tokens + (1 if r.scoring_extra_life else 0)
            assert g.out[s] == (lost >= limit)
        assert sum(not o for o in g.out) == 1
    else:
        gained = Counter()
        for e in g.events:
            if e["type"] == "points":
                for row in e["breakdown"]:
                    assert row["gained"] == sum(v for _, v in row["cards"]) + row["missing_points"] + row["loser_penalty"]
                    gained[row["seat"]] += row["gained"]
        assert [gained[s] for s in range(g.n)] == g.points
        assert sum(losses.values()) == g.round_no
        if r.scoring_end == "first-to-limit":
            assert max(g.points) >= r.scoring_limit
    assert g.winner is not None and not g.out[g.winner]
    assert g.events[-1]["type"] == "game_over"
    assert g.standings()[0] == g.winner


@settings(max_examples=120, deadline=None)
@given(tables(), st.integers(0, 2**32))
def test_random_games_keep_every_invariant_and_end(table, choice_seed):
    rules, names, seed, named = table
    g = Game(names, rules, seed, first_dealer=named)
    check(g, [])
    losses = play_out(g, random.Random(choice_seed))
    check_scores(g, losses)


@settings(max_examples=40, deadline=None)
@given(tables(), st.integers(0, 2**32))
def test_same_seed_same_game(table, choice_seed):
    rules, names, seed, named = table
    a = Game(names, rules, seed, first_dealer=named)
    b = Game(names, rules, seed, first_dealer=named)
    play_out(a, random.Random(choice_seed))
    play_out(b, random.Random(choice_seed))
    assert a.events == b.events


@settings(max_examples=40, deadline=None)
@given(tables(st.sampled_from([load_preset(n) for n in preset_names()])), st.integers(0, 2**32))
def test_preset_games_keep_every_invariant_and_end(table, choice_seed):
    rules, names, seed, named = table
    g = Game(names, rules, seed, first_dealer=named)
    check_scores(g, play_out(g, random.Random(choice_seed)))


@settings(max_examples=60, deadline=None)
@given(tables(), st.integers(0, 2**32))
def test_scores_before_takes_back_every_later_change_to_the_scores(table, choice_seed):
    # front ends tell each round's end with the scores it left, even when one change at the
    # table holds later rounds too (R5.2 at a deal): the scores then, from the scores now
    from ono99_tui.engine.describe import rounds_apart, scores_before

    rules, names, seed, named = table
    g = Game(names, rules, seed, first_dealer=named)
    choose = random.Random(choice_seed)
    then = [(len(g.events), list(g.tokens), list(g.points), list(g.out))]
    while not g.over and len(then) < MAX_PLAYS:
        g.play(choose.choice(g.legal_plays()))
        then.append((len(g.events), list(g.tokens), list(g.points), list(g.out)))
    for count, tokens, points, out in then:
        assert scores_before(g.tokens, g.points, g.out, g.events[count:]) == (tokens, points, out)
    parts = rounds_apart(g.events)
    assert [e for p in parts for e in p] == g.events
    assert all(sum(e["type"] == "round_lost" for e in p) <= 1 for p in parts)
    assert all(p[0]["type"] == "deal" for p in parts[1:])
