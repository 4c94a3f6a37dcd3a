"""The trained play-out policy for the hard bot's own later turns (bots/trained.py, expert
iteration): it loads, plays legal cards deterministically from what its seat sees, changes
nothing with zero weights, and keeps hard honest."""

import random
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.bots import make_bot, search, trained
from ono99_tui.bots.heuristics import MEDIUM, _bust_share
from ono99_tui.bots.rollout import play_out_sim
from ono99_tui.engine import Game
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.presets import load_preset
from tests.test_bots import _check_whole_round


def _random_policy(seed: int) -> trained.Trained:
    rng = random.Random(seed)
    return trained.Trained(coef=tuple(rng.gauss(0, 0.05) for _ in range(trained.N_FEATURES)), margin=0.0)


def _heads_up_views(seed: int, count: int = 40):
    g = Game(["A", "B"], DEFAULT, seed, record_events=False)
    bots = [make_bot("medium", s) for s in range(2)]
    views = []
    while not g.over and len(views) < count:
        view = g.view(g.current)
        if len(view.legal_plays()) > 1 and search.worth_searching(view):
            views.append(view)
        g.play(bots[g.current].choose(view))
    return views


def test_the_shipped_weights_load_with_one_weight_per_feature():
    policy = trained.trained_policy()
    assert len(policy.coef) == trained.N_FEATURES
    assert all(isinstance(x, float) for x in policy.coef)
    assert policy.deflect_room == MEDIUM.deflect_room  # medium's weights where it does not use the model


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), coef_seed=st.integers(0, 10_000))
def test_the_policy_plays_a_legal_safe_card_deterministically(seed, coef_seed):
    policies = [_random_policy(coef_seed), trained.trained_policy()]
    for view in _heads_up_views(seed):
        legal = view.legal_plays()
        default = legal[0]
        unseen = view.unseen()
        for policy in policies:
            picks = {policy.pick(view.rules, legal, default, view.hand, view.total, view.plays_owed == 2, True,
                                 lambda room: _bust_share(unseen, room)) for _ in range(2)}
            assert len(picks) == 1
            card = picks.pop()
            assert card in legal
            if card != default:  # it never leaves medium's card for one that busts
                assert not (card in trained.C.ADDERS and view.total + trained.C.EFFECT[card] >= view.rules.target)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), deal_seed=st.integers(0, 2**32 - 1))
def test_zero_weights_play_the_play_outs_exactly_as_medium(seed, deal_seed):
    zero = trained.Trained(coef=(0.0,) * trained.N_FEATURES)
    rng = random.Random(deal_seed)
    for view in _heads_up_views(seed, 5):
        hands, draw = search._determinize(view, rng)
        s = rng.getrandbits(32)
        for card in view.legal_plays():
            a = play_out_sim(view, hands, draw, card, s, 400, None, MEDIUM)
            b = play_out_sim(view, hands, draw, card, s, 400, None, zero)
            assert (a.loser, a.length, a.discard) == (b.loser, b.length, b.discard)


def test_a_trained_policy_changes_some_play_outs_heads_up_only():
    policy = _random_policy(3)
    changed = 0
    rng = random.Random(1)
    for view in _heads_up_views(11, 20):
        hands, draw = search._determinize(view, rng)
        s = rng.getrandbits(32)
        for card in view.legal_plays():
            a = play_out_sim(view, hands, draw, card, s, 400, None, MEDIUM)
            b = play_out_sim(view, hands, draw, card, s, 400, None, policy)
            changed += a.discard != b.discard
    assert changed


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), shuffle_seed=st.integers(0, 10_000), players=st.sampled_from([2, 4]))
def test_hard_with_the_trained_policy_decides_from_public_information_only(seed, shuffle_seed, players):
    for own in (trained.trained_policy(), _random_policy(seed)):
        with mock.patch.object(search, "OWN", own):
            _check_whole_round(load_preset("standard"), seed, shuffle_seed, players, keeps_memo=False)
