"""The table as a lost round ended, told from what a seat saw: its dealer and hand sizes.

When a round is lost the table deals the next one at once, so the live view already holds the
next round's dealer and hand sizes; the "Round N over" notice must show the round that ended.
``seats_at_round_end`` tells them from the last view shown and the change's events, as the
seat was told them; here checked against the engine's own state at the moment the round ends,
under decks so small that draws run dry (R4.4) and hands shrink."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ono99_tui.engine import Game
from ono99_tui.engine.describe import rounds_apart, seats_at_round_end
from ono99_tui.engine.rules import DEFAULT, Rules
from ono99_tui.table import redact
from tests.strategies import _valid


def _play(rules, players: int, seed: int, rng: random.Random, viewer, checks: list, at_deals: list | None = None) -> None:
    game = Game([f"P{i}" for i in range(players)], rules, seed)
    truth: dict[int, tuple] = {}
    finish = game._finish_round

    def finishing(loser, reason):  # the engine's own state as the round ends, before the next deal
        truth[game.round_no] = (game.dealer, tuple(game.order), tuple(len(h) for h in game.hands))
        finish(loser, reason)

    game._finish_round = finishing
    before = redact.view_for(game, viewer)
    for _ in range(400):
        if game.over:
            break
        start = len(game.events)
        game.play(rng.choice(game.legal_plays()))
        told = redact.events_for(game.events[start:], viewer)
        shown = before
        for part in rounds_apart(told):
            lost = next((e for e in part if e["type"] == "round_lost"), None)
            if lost is None:
                continue
            plays = len(game.round_plays[lost["round"] - 1])
            got = seats_at_round_end(shown, part, players, plays)
            checks.append((got, truth[lost["round"]]))
            if at_deals is not None and any(e["type"] == "deal" for e in part):
                at_deals.append(got)
            shown = None  # (a later part holds its own deal)
        before = redact.view_for(game, viewer)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 2**16), st.integers(2, 5), st.sampled_from([None, 0, 1]),
       st.fixed_dictionaries({"deck_number_each": st.integers(0, 2), "deck_ten": st.integers(0, 4),
                              "deck_minus_ten": st.integers(0, 2), "deck_hold": st.integers(0, 3),
                              "deck_reverse": st.integers(0, 3), "deck_double_play": st.integers(0, 3),
                              "deck_ninety_nine": st.integers(0, 2)}))
def test_the_round_that_ended_is_told_as_it_ended_even_when_draws_run_dry(seed, rng_seed, players, viewer,
                                                                         deck):
    size = sum(deck.values()) + 7 * deck["deck_number_each"]
    hand_size = min(10, size // players)
    assume(hand_size >= 1)
    rules = Rules(hand_size=hand_size, target=30, **deck)
    assume(_valid(rules) and rules.max_players() >= players)
    checks: list = []
    _play(rules, players, seed, random.Random(rng_seed), viewer, checks)
    for got, want in checks:
        assert got == want


def test_standard_games_tell_every_round_end_and_it_is_not_the_next_deal():
    checks: list = []
    rng = random.Random(3)
    for seed in range(40):
        _play(DEFAULT, 2 + seed % 4, seed, rng, seed % 2 or None, checks)
    assert len(checks) > 200
    assert all(got == want for got, want in checks)
    assert any(got[0] != None for got, _ in checks)  # noqa: E711 (told, not given up on)


def test_a_change_not_seen_gives_up_rather_than_miscount():
    """A view older than the round's last change (a change that was never drawn): None, and the
    notice keeps the table as it stands."""
    game = Game(["A", "B"], DEFAULT, 7)
    rng = random.Random(1)
    old = redact.view_for(game, 0)
    while True:
        start = len(game.events)
        game.play(rng.choice(game.legal_plays()))
        told = redact.events_for(game.events[start:], 0)
        parts = rounds_apart(told)
        lost = next((e for e in parts[0] if e["type"] == "round_lost"), None)
        if lost is not None:
            plays = len(game.round_plays[lost["round"] - 1])
            assert plays > 1
            assert seats_at_round_end(old, parts[0], 2, plays) is None
            return


def test_rounds_lost_at_their_deal_are_told_from_their_own_deal():
    """R5.2: a hand of only 99s loses at the deal, so one change can end several rounds; each
    later one is told from its own deal in the change (not from the view before it), and a part
    without a round lost, or with no view of its round, tells nothing."""
    rules = Rules(hand_size=1, target=30, deck_number_each=1, deck_ten=0, deck_minus_ten=0, deck_hold=0,
                  deck_reverse=0, deck_double_play=0, deck_ninety_nine=6)
    checks: list = []
    at_deals: list = []
    rng = random.Random(4)
    for seed in range(60):
        _play(rules, 2 + seed % 3, seed, rng, seed % 2 or None, checks, at_deals)
    assert len(at_deals) > 20  # the deal's branch, many times
    assert all(got == want for got, want in checks)
    game = Game(["A", "B"], DEFAULT, 7)
    view = redact.view_for(game, 0)
    assert seats_at_round_end(view, [{"type": "play", "n": 0, "round": 1, "seat": 0, "card": "2"}], 2, 1) is None
    lost = [{"type": "round_lost", "round": 1, "seat": 0, "reason": "bust", "total": 99}]
    assert seats_at_round_end(None, lost, 2, 0) is None
    assert seats_at_round_end(view, [dict(lost[0], round=2)], 2, 0) is None  # a view of another round
    assert seats_at_round_end(view, lost, 2, 0) == (view.dealer, view.in_round, view.hand_sizes)
    deal = {"type": "deal", "round": 1, "dealer": 1, "seats": [0, 1]}  # a server that left hand_size out
    assert seats_at_round_end(view, [deal, lost[0]], 2, 0) is None
    assert seats_at_round_end(view, [dict(deal, hand_size=3), lost[0]], 2, 0) == (1, (0, 1), (3, 3))
