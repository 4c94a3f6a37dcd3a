"""Bots decide from a player view only, deterministically, and always legally."""

import copy
import dataclasses
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ono99_tui.bots import DESCRIPTIONS, LEVELS, make_bot
from ono99_tui.engine import Game
from ono99_tui.engine.rules import DEFAULT
from tests.strategies import tables


def before_it_ends(make, step, plays: int, ended=lambda g, start: g.over):
    """The game after ``plays`` steps, or after the last step before ``ended`` held (replayed from
    the start: games are deterministic), so a test always has a live position to assert on."""
    g = make()
    start = g.round_no
    # odd house rules can end a round or the game at the deal (no legal card): nothing to test there
    assume(not ended(g, start))
    for done in range(plays):
        step(g)
        if ended(g, start):
            g = make()
            for _ in range(done):
                step(g)
            return g
    return g


def position(seed: int, plays: int, players: int = 4) -> Game:
    """A live (not over) position after up to ``plays`` random plays."""
    rng = {}

    def make():
        rng["r"] = random.Random(seed)
        return Game([f"P{i}" for i in range(players)], DEFAULT, seed)

    return before_it_ends(make, lambda g: g.play(rng["r"].choice(g.legal_plays())), plays)


def shuffle_hidden(g: Game, seat: int, rng: random.Random) -> Game:
    """The same game but the others' hands and the draw pile dealt differently."""
    h = copy.deepcopy(g)
    others = [s for s in h.order if s != seat]
    hidden = [c for s in others for c in h.hands[s]] + h.draw
    rng.shuffle(hidden)
    i = 0
    for s in others:
        size = len(h.hands[s])
        h.hands[s] = hidden[i:i + size]
        i += size
    h.draw = hidden[i:]
    return h


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 60), shuffle_seed=st.integers(0, 10_000))
def test_decision_unchanged_when_hidden_cards_are_shuffled(level, seed, plays, shuffle_seed):
    g = position(seed, plays)
    if level == "hard":  # move on to where the hard bot searches rather than copying medium
        from ono99_tui.bots.search import worth_searching

        rng = random.Random(seed)
        while not worth_searching(g.view(g.current)):
            before = copy.deepcopy(g)
            g.play(rng.choice(g.legal_plays()))
            if g.over:  # the game ended before a searched position: test the last live one
                g = before
                break
    assert not g.over
    seat = g.current
    h = shuffle_hidden(g, seat, random.Random(shuffle_seed))
    assert g.view(seat) == h.view(seat)  # nothing hidden is in the view
    a = make_bot(level, seed=5).choose(g.view(seat)) if level != "hard" else _hard(g, seat)
    b = make_bot(level, seed=5).choose(h.view(seat)) if level != "hard" else _hard(h, seat)
    assert a == b
    assert a in g.legal_plays()


def _hard(g, seat):
    from ono99_tui.bots.search import choose_hard

    return choose_hard(g.view(seat), random.Random(5), iterations=8)


@pytest.mark.parametrize("level", ["random", "easy", "medium"])
def test_bots_finish_games_with_legal_plays_deterministically(level):
    def run():
        g = Game(["A", "B", "C"], DEFAULT, 3)
        bots = [make_bot(level, i) for i in range(3)]
        while not g.over:
            card = bots[g.current].choose(g.view(g.current))
            assert card in g.legal_plays()
            g.play(card)
        return g.plays

    assert run() == run()


def test_random_bot_avoids_an_immediate_loss_when_it_can():
    from tests.stacked import game_with, set_total

    g = game_with([["9", "10", "2", "99"], ["2", "3", "4", "5"]])
    set_total(g, 90)
    for seed in range(20):
        assert make_bot("random", seed).choose(g.view(0)) == "2"


def test_easy_plays_the_highest_safe_card_and_keeps_helpers():
    from tests.stacked import game_with, set_total

    g = game_with([["9", "hold", "5", "double"], ["2", "3", "4", "5"]])
    set_total(g, 80)
    assert make_bot("easy").choose(g.view(0)) == "9"
    set_total(g, 91)
    assert make_bot("easy").choose(g.view(0)) == "5"
    set_total(g, 95)
    assert make_bot("easy").choose(g.view(0)) in ("hold", "double")


def test_medium_deflects_a_double_when_it_is_tight():
    from tests.stacked import game_with, set_total

    g = game_with([["double", "2", "3", "4"], ["hold", "9", "8", "7"], ["2", "3", "4", "5"]])
    g.play("double")
    set_total(g, 85)
    assert make_bot("medium").choose(g.view(1)) == "hold"


def test_tuned_weights_deflect_a_double_only_when_it_is_really_tight():
    """heuristics.TUNED (benchmarks/tune.py): under a Double Play, medium passes both plays on
    with a Hold within 20 of the target; the tuned weights first play a number there, and
    deflect only within 6."""
    from tests.stacked import game_with, set_total

    from ono99_tui.bots.heuristics import TUNED, choose_medium

    g = game_with([["double", "2", "3", "4"], ["hold", "9", "8", "7"], ["2", "3", "4", "5"]])
    g.play("double")
    set_total(g, 85)
    assert choose_medium(g.view(1), random.Random(0)) == "hold"
    assert choose_medium(g.view(1), random.Random(0), TUNED) == "9"
    set_total(g, 94)
    assert choose_medium(g.view(1), random.Random(0), TUNED) == "hold"


def test_easy_beats_random_on_fixed_deals():
    wins = 0
    for i in range(100):
        g = Game(["easy", "random"] if i % 2 else ["random", "easy"], DEFAULT, i // 2)
        bots = {name: make_bot(name, i) for name in g.names}
        while not g.over:
            g.play(bots[g.names[g.current]].choose(g.view(g.current)))
        wins += g.names[g.winner] == "easy"
    assert wins >= 80


def test_every_level_has_a_description_and_unknown_levels_fail():
    assert set(DESCRIPTIONS) == set(LEVELS)
    with pytest.raises(ValueError, match="unknown bot level 'genius'"):
        make_bot("genius")


def test_hard_rollout_counts_a_busting_play_as_a_lost_round():
    """A play that busts ends the round at once: the rollout must score it a loss (R5.1),
    not carry on into the next round's outcome."""
    from tests.stacked import game_with, set_total

    from ono99_tui.bots.search import _determinize, _outcome, choose_hard

    g = game_with([["5", "hold", "99", "99"], ["2", "3", "4", "6"]])
    set_total(g, 94)
    view = g.view(0)
    rng = random.Random(1)
    for _ in range(20):
        hands, draw = _determinize(view, rng)
        assert _outcome(view, hands, draw, "5", rng.getrandbits(32)) == 0.0
    assert choose_hard(view, random.Random(2), iterations=16) == "hold"


def test_hard_plays_out_as_many_rounds_with_a_ten_card_hand_as_with_four(monkeypatch):
    """House rules deal up to 10 cards (R3.1): each distinct card is played out on every deal, so
    a 10-card hand took 2.5 times a standard decision (p99 447 ms, against 300 allowed). The
    budget is play-outs: four distinct cards play every deal, more cards fewer deals."""
    from tests.stacked import game_with, set_total

    from ono99_tui.bots import search

    played = []
    real = search._outcome
    monkeypatch.setattr(search, "_outcome", lambda *a, **k: played.append(a[3]) or real(*a, **k))
    from ono99_tui.engine.rules import DEFAULT

    big = ["2", "3", "4", "5", "6", "7", "8", "9", "hold", "reverse"]
    for hand, deals in ((["2", "3", "4", "hold"], 48), (big, 48 * 4 // 10)):
        other = (["2", "3", "4", "6", "7", "8", "9", "2", "3", "4"])[: len(hand)]
        g = game_with([hand, other], rules=DEFAULT.replace(hand_size=len(hand)))
        set_total(g, 80)
        played.clear()
        search.choose_hard(g.view(0), random.Random(3), iterations=48)
        assert len(played) == deals * len(hand)  # every card on every deal, against the same default
        assert len(played) <= 48 * 4


def test_hard_stops_dealing_once_its_play_outs_have_cost_what_long_rounds_would(monkeypatch):
    """House rules can make a round near the target last hundreds of plays (a target of 999, 40
    Minus Tens, eight players: p99 2.4 s a decision): the deals stop once the plays played out
    reach ``LONG_ROUND`` a play-out on average. Standard rounds never come near it."""
    from tests.stacked import game_with, set_total

    from ono99_tui.bots import search

    played = []
    real = search._outcome
    monkeypatch.setattr(search, "_outcome", lambda *a, **k: played.append(a[3]) or real(*a, **k))
    g = game_with([["2", "3", "4", "hold"], ["2", "3", "4", "6"]])
    set_total(g, 80)
    search.choose_hard(g.view(0), random.Random(3), iterations=48)
    assert len(played) == 48 * 4  # a standard round: every deal
    played.clear()
    monkeypatch.setattr(search, "LONG_ROUND", 1)  # as if every play-out were long
    search.choose_hard(g.view(0), random.Random(3), iterations=48)
    assert 4 <= len(played) < 48 * 4 and len(played) % 4 == 0, len(played)  # whole deals, fewer of them


def test_hard_stops_early_when_its_play_outs_barely_end(monkeypatch):
    """A play-tester's legal house rules (hand size 2, target 999, a deck of one Ten and three
    Holds, R4.6): rounds last hundreds of plays, the play-outs mostly stop at MAX_ROLLOUT_PLAYS
    undecided, and the budget's cap let hard spend 2.3 s a decision (p99) on noise, so
    `simulate --bots hard,hard` seemed to hang. After EARLY_DEALS deals averaging more than
    LONG_ROUND plays a play-out, it stops (standard rounds average 6-7: never stopped there)."""
    from tests.stacked import game_with, set_total

    from ono99_tui.bots import search

    played = []
    real = search._outcome
    monkeypatch.setattr(search, "_outcome", lambda *a, **k: played.append(a[3]) or real(*a, **k))
    from ono99_tui.engine.rules import load_rules_text

    rules = load_rules_text("hand_size = 2\ntarget = 999\n[dealer]\nfirst = \"random\"\n[deck]\nnumber_each = 0\n"
                            "ten = 1\nminus_ten = 0\nhold = 3\nreverse = 0\ndouble_play = 0\nninety_nine = 0\n")
    g = game_with([["10", "hold"], ["hold", "hold"]], rules=rules)
    set_total(g, 980)
    assert len(g.view(0).legal_plays()) == 2 and search.worth_searching(g.view(0))
    search.choose_hard(g.view(0), random.Random(3))
    assert len(played) == search.EARLY_DEALS * 2, len(played)  # both cards on each of the first deals only


def _reference_rollout(view, hands, draw, card, seed, max_plays=400, policies=None, own=None):
    """The hard bot's play-out done the slow, obvious way: through the engine itself, each seat
    in ``policies`` played by the bot level it names (a "mixed" seat picks one each play), and
    the deciding seat by medium with ``own`` weights."""
    from ono99_tui.bots.heuristics import MEDIUM, choose_easy, choose_medium, choose_random
    from ono99_tui.bots.rollout import MIX
    from ono99_tui.engine.view import PlayerView

    by_level = {"medium": choose_medium, "easy": choose_easy, "random": choose_random}
    g = Game.from_view(view, hands, draw, seed=seed)
    rng = random.Random(seed)
    start = g.round_no
    g.play(card)
    plays = 0
    while not g.over and g.round_no == start and plays < max_plays:
        v = PlayerView.of(g, g.current)
        level = (policies or {}).get(g.current, "medium")
        if level == "mixed":
            x = rng.random()
            level = "medium" if x < MIX["medium"] else "easy" if x < MIX["medium"] + MIX["easy"] else "random"
        legal = v.legal_plays()
        if len(legal) == 1:
            g.play(legal[0])
        elif level == "medium":
            g.play(choose_medium(v, rng, own if own and g.current == view.seat else MEDIUM))
        else:
            g.play(by_level[level](v, rng))
        plays += 1
    # the round's own loser: with odd decks the next round can be lost at once inside the same play
    summary = next((r for r in g.round_log if r["round"] == start), None)
    if summary is None:
        return None, None
    points = {row["seat"]: row["gained"] for row in summary.get("breakdown", ())}
    return summary["loser"], points


@settings(max_examples=60, deadline=None)
@given(table=tables(), plays=st.integers(0, 60), seed=st.integers(0, 2**32 - 1))
def test_fast_rollout_matches_the_engine_play_for_play(table, plays, seed):
    """The hard bot's fast play-outs (bots/rollout.py) reach the same loser as the engine from
    the same determinized position, under any house rules: reshuffles (R4.3), running out of
    cards (R4.4), forced lowest (R5.3), deflected Double Plays (R6.4) and the 99 option (R7.2);
    under points rules every seat's points for the round are the engine's too (R9.1); and with the
    others played by the kinds of player the reading fits (medium, easy, random, a mix), and the
    deciding seat by medium's weights or the tuned ones."""
    from ono99_tui.bots.belief import MODELS
    from ono99_tui.bots.heuristics import MEDIUM, TUNED
    from ono99_tui.bots.rollout import play_out_sim, round_points
    from ono99_tui.bots.search import _determinize

    rules, names, game_seed, dealer = table
    bots = {}

    def make():
        bots["m"] = [make_bot("medium", s) for s in range(len(names))]
        return Game(names, rules, game_seed, first_dealer=dealer, record_events=False)

    g = before_it_ends(make, lambda g: g.play(bots["m"][g.current].choose(g.view(g.current))), plays)
    assert not g.over
    view = g.view(g.current)
    rng = random.Random(seed)
    for deal in range(4):
        hands, draw = _determinize(view, rng)
        s = rng.getrandbits(32)
        policies = {seat: rng.choice(MODELS) for seat in hands} if deal % 2 else None
        own = TUNED if deal >= 2 else MEDIUM
        for card in view.legal_plays():
            sim = play_out_sim(view, hands, draw, card, s, 400, policies, own)
            loser, points = _reference_rollout(view, hands, draw, card, s, policies=policies, own=own)
            assert sim.loser == loser
            if points and loser is not None:
                assert {seat: round_points(rules, sim.hands[seat], seat == loser) for seat in sim.order} == points


@settings(max_examples=80, deadline=None)
@given(table=tables(), seed=st.integers(0, 2**16), plays=st.integers(1, 60))
def test_public_history_replays_each_position_of_the_round(table, seed, plays):
    """The hard bot reads the others' plays in the position each was made in (R3.2 start,
    R6 Double Play turns and deflections, R7.2 one 99 per turn), from public information only."""
    from ono99_tui.bots.belief import replay

    rules, names, game_seed, dealer = table
    state, before = {}, []

    def make():
        state["rng"] = random.Random(seed)
        before.clear()
        return Game(names, rules, game_seed, first_dealer=dealer, record_events=False)

    def step(g):
        before.append((g.current, g.total, g.owed == 2, g.direction, g.ninety_nine_used))
        g.play(state["rng"].choice(g.legal_plays()))

    # up to ``plays`` plays, and never past the end of the first round (its history is the round's)
    g = before_it_ends(make, step, plays, lambda g, start: g.over or g.round_no != 1)
    assert not g.over and g.round_no == 1
    view = g.view(g.current)
    got, discard, pile = replay(view)
    assert [(s.seat, s.total, s.first_of_two, s.direction, s.ninety_nine_used) for s in got] == before
    # the draw pile's size and reshuffles (R4.3, R4.4) replayed from counts alone
    assert (discard, pile) == (list(view.discard), view.draw_pile_size)


def test_a_hold_played_with_room_to_spare_says_the_hand_had_no_safe_number():
    """Bo plays a Hold at 50 (R6.1): a sensible player only does that with no safe number
    card, so hands that kept a safe number with the Hold are unlikely, all-helper hands likely."""
    from tests.stacked import game_with, set_total

    from ono99_tui.bots.belief import NOISE, Reader

    g = game_with([["2", "3", "4", "5"], ["hold", "hold", "reverse", "-10"], ["6", "7", "8", "9"]])
    set_total(g, 50)
    g.play("5")
    g.play("hold")
    reader = Reader(g.view(2))
    assert reader.likelihood(1, ["hold", "hold", "reverse", "-10"]) == pytest.approx(1.0)
    # with a 9 it fits only if the 9 is the card drawn after the Hold: one way in four
    assert reader.likelihood(1, ["hold", "hold", "reverse", "9"]) == pytest.approx(NOISE + (1 - NOISE) / 4)
    assert reader.likelihood(1, ["5", "6", "7", "hold"]) == pytest.approx(NOISE)
    assert reader.likelihood(0, ["2", "3", "4", "hold"]) > NOISE  # Ana played her highest, the 5
    assert reader.likelihood(0, ["9", "9", "10", "2"]) == pytest.approx(NOISE)  # she would have played a 10


def _searched_positions(count: int = 150) -> list:
    """Positions where the hard bot searches, from four-player medium games, with the others'
    real hands."""
    from ono99_tui.bots import search

    found = []
    game_no = 0
    while len(found) < count:
        g = Game(["A", "B", "C", "D"], DEFAULT, 900 + game_no, record_events=False)
        game_no += 1
        bots = [make_bot("medium", game_no * 10 + i) for i in range(4)]
        while not g.over:
            view = g.view(g.current)
            if search.worth_searching(view) and len(view.legal_plays()) > 1 and len(g.plays) % 3 == 0:
                found.append((view, {s: list(g.hands[s]) for s in view.in_round if s != view.seat}))
            g.play(bots[g.current].choose(view))
    return found


def _hand_cards_guessed(found, read: bool = False) -> float:
    """The share of the others' hand cards that deals of the hidden cards get right."""
    from collections import Counter

    from ono99_tui.bots import belief

    rng = random.Random(3)
    hit = total = 0
    for view, true in found:
        reader = belief.Reader(view) if read else None
        for _ in range(8):
            hands, draw = belief.deal_hidden(view, rng, reader)
            assert Counter(c for h in hands.values() for c in h) + Counter(draw) == view.unseen()
            hit += sum(len(list((Counter(h) & Counter(true[s])).elements())) for s, h in hands.items())
            total += sum(len(h) for h in hands.values())
    return hit / total


def test_reading_the_plays_guesses_the_hidden_hands_better_than_dealing_blind():
    """The hard bot's deals, read from the others' plays, hold more of their real cards than
    uniform deals do, on positions from real four-player games (benchmarks/belief.py measures it)."""
    found = _searched_positions()
    assert _hand_cards_guessed(found, read=True) > _hand_cards_guessed(found) + 0.01


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), shuffle_seed=st.integers(0, 10_000), players=st.sampled_from([2, 4]),
       rules=st.sampled_from(["standard", "points"]))
def test_hard_that_watched_the_whole_round_decides_from_public_information_only(seed, shuffle_seed, players, rules):
    """The hard bot keeps state between decisions (a memo of its reading of the round's plays).
    Fed every view of its seat for a whole round, it still decides only from what is public: the
    others' hands and the draw pile shuffled among themselves change nothing, and a bot made
    afresh at that point (a resumed save, an undo, a network stand-in) with the same random state
    makes the same decision, so the state it kept is a pure cache."""
    from unittest import mock

    from ono99_tui.bots import search
    from ono99_tui.store.presets import load_preset

    # the reading is off by default (bots/search.py says why) and then the bot keeps nothing;
    # with it on (a switch the benchmarks use) it keeps the memo this test is about
    for reading in (True, False):
        with mock.patch.object(search, "INFERENCE", reading):
            _check_whole_round(load_preset(rules), seed, shuffle_seed, players, keeps_memo=reading)
    with mock.patch.object(search, "LOOKAHEAD", True):  # its next turn chosen per group of deals (off)
        _check_whole_round(load_preset(rules), seed, shuffle_seed, players, keeps_memo=False)


def _check_whole_round(rules, seed, shuffle_seed, players, keeps_memo):
    from ono99_tui.bots.levels import Bot
    from ono99_tui.bots.search import worth_searching

    g = Game([f"P{i}" for i in range(players)], rules, seed, record_events=False)
    hard = Bot("hard", 5, iterations=6)
    others = [make_bot("medium", i) for i in range(players)]
    found, searched = None, {}  # round -> searched decisions of seat 0 so far
    while not g.over:
        view = g.view(g.current)
        if g.current == 0:
            if worth_searching(view) and len(view.legal_plays()) > 1:
                if searched.get(g.round_no):  # its second search this round: the memo holds the first
                    found = g
                    break
                searched[g.round_no] = 1
            card = hard.choose(view)
        else:
            card = others[g.current].choose(view)
        g.play(card)
    assume(found is not None)
    assert bool(hard.memo) == keeps_memo  # with the reading on, it did keep something from the round
    shuffled = shuffle_hidden(g, 0, random.Random(shuffle_seed))
    assert shuffled.view(0) == g.view(0)
    twin = copy.deepcopy(hard)
    fresh = Bot("hard", 5, iterations=6)
    fresh.rng.setstate(hard.rng.getstate())
    a = hard.choose(g.view(0))
    assert twin.choose(shuffled.view(0)) == a
    assert fresh.choose(g.view(0)) == a
    assert a in g.legal_plays()


def test_points_play_outs_count_cards_left_and_the_penalty_against_the_others():
    """R9.1 in the hard bot's objective at three or more players: under points rules a round is
    worth the points the others add on average (their cards left, 15 per missing card, the
    loser's 25) less this seat's, in units of the penalty; reaching the limit under elimination
    (R9.2) costs the game stake."""
    from types import SimpleNamespace

    from tests.stacked import game_with

    from ono99_tui.bots.search import GAME_STAKE, round_value
    from ono99_tui.store.presets import load_preset

    g = game_with([["2", "3", "4", "5"], ["hold", "9", "8", "7"], ["2", "2", "3", "3"]],
                  rules=load_preset("points"))
    view = g.view(0)
    sim = SimpleNamespace(order=[0, 1, 2], loser=1,
                          hands={0: ["2", "3", "4", "5"], 1: ["hold", "9", "8"], 2: ["2", "2", "3", "3"]})
    # seat 1: 15 + 9 + 8 + 15 (one card missing) + 25 = 72; seat 2: 10; me: 14
    assert round_value(view, sim) == pytest.approx(((72 + 10) / 2 - 14) / 25)
    sim.loser = 0
    assert round_value(view, sim) == pytest.approx(((47 + 10) / 2 - 39) / 25)
    near = dataclasses.replace(view, points=(480, 0, 0))
    assert round_value(near, sim) == pytest.approx(((47 + 10) / 2 - 39) / 25 - GAME_STAKE)  # 480 + 39 reaches 500


def test_points_play_outs_heads_up_value_the_race_the_round_leaves():
    """R9.2 heads-up in the hard bot's objective: a round is worth the chance of winning the game
    from the scores it leaves (race.py), so the same points weigh more the nearer the limit, and
    reaching the limit first is the game lost; in a tie-break (R9.4) the lower score wins. Under
    tokens (R8) heads-up only whether this seat lost counts."""
    from types import SimpleNamespace

    from tests.stacked import game_with

    from ono99_tui.bots import race
    from ono99_tui.bots.search import round_value
    from ono99_tui.store.presets import load_preset

    rules = load_preset("points")
    g = game_with([["2", "3", "4", "5"], ["hold", "9", "8", "7"]], rules=rules)
    view = g.view(0)
    sim = SimpleNamespace(order=[0, 1], loser=1, hands={0: ["2", "3", "4", "5"], 1: ["hold", "9", "8"]})
    # me: 14; the other: 15 + 9 + 8 + 15 (one card missing) + 25 = 72
    assert round_value(view, sim) == pytest.approx(race.win_chance(rules, 14, 72))
    assert 0.5 < round_value(view, sim) < 1
    sim.loser = 0  # me: 39, the other 47
    assert round_value(view, sim) == pytest.approx(race.win_chance(rules, 39, 47))
    assert round_value(dataclasses.replace(view, points=(480, 0)), sim) == 0.0  # 480 + 39 reaches 500
    assert round_value(dataclasses.replace(view, points=(0, 460)), sim) == 1.0  # 460 + 47 does
    tied = dataclasses.replace(view, points=(200, 200), tie_break=True)
    assert round_value(tied, sim) == 1.0
    sim.loser = 1
    assert round_value(tied, sim) == 1.0  # 214 against 272
    sim.hands = {0: ["9", "9", "9", "9"], 1: ["2", "2", "3"]}  # 36 against 7 + 15 + 25 = 47
    assert round_value(tied, sim) == 1.0
    sim.hands = {0: ["hold", "hold", "hold", "99"], 1: ["2", "2", "3"]}  # 65 against 47
    assert round_value(tied, sim) == 0.0
    tokens = dataclasses.replace(view, rules=DEFAULT)  # R8 heads-up: only whether this seat lost
    assert round_value(tokens, sim) == 1.0
    sim.loser = 0
    assert round_value(tokens, sim) == 0.0


@settings(max_examples=80, deadline=None)
@given(mine=st.integers(0, 520), theirs=st.integers(0, 520), more=st.integers(1, 60))
def test_points_race_chances_add_up_and_more_points_never_help(mine, theirs, more):
    """race.win_chance (R9.2, R9.3 heads-up): the two players' chances add up to one, and adding
    points to a score never raises its chance."""
    from ono99_tui.bots import race
    from ono99_tui.store.presets import load_preset

    rules = load_preset("points")
    chance = race.win_chance(rules, mine, theirs)
    assert 0.0 <= chance <= 1.0
    assert chance + race.win_chance(rules, theirs, mine) == pytest.approx(1.0, abs=1e-9)
    assert race.win_chance(rules, mine + more, theirs) <= chance + 1e-9
    if mine >= 500 > theirs:
        assert chance == 0.0


def test_points_race_chances_match_what_medium_games_do():
    """The race's chances are calibrated: over 400 heads-up points games between medium bots (not
    the ones it was built from), at each round's start the seat predicted to be well behind wins
    about as often as predicted, and so does the one predicted well ahead."""
    from ono99_tui.bots import race
    from ono99_tui.bots.heuristics import choose_medium
    from ono99_tui.store.presets import load_preset

    rules = load_preset("points")
    bins = {"behind": [0, 0.0, 0], "ahead": [0, 0.0, 0]}
    for gi in range(400):
        g = Game(["A", "B"], rules, 123_000 + gi, record_events=False)
        rng = random.Random(gi)
        starts, rnd = [], None
        while not g.over:
            if g.round_no != rnd:
                rnd = g.round_no
                starts.append(race.win_chance(rules, g.points[0], g.points[1]))
            g.play(choose_medium(g.view(g.current), rng))
        won = g.standings()[0] == 0
        for p in starts[1:]:
            key = "behind" if p < 0.3 else "ahead" if p > 0.7 else None
            if key:
                row = bins[key]
                row[0] += 1
                row[1] += p
                row[2] += won
    for n, predicted, wins in bins.values():
        assert n > 300
        assert abs(wins / n - predicted / n) < 0.05


@settings(max_examples=60, deadline=None)
@given(lives=st.lists(st.integers(0, 5), min_size=2, max_size=8).filter(any))
def test_win_chances_of_everyone_still_in_add_up_to_one(lives):
    """stakes.win_chance (R8.3: the last player left wins): over the players still in, the chances
    add up to 1, a player who is out has none, and one more life or a smaller share of rounds
    lost never lowers a chance."""
    from ono99_tui.bots.stakes import win_chance

    chances = [win_chance(mine, lives[:i] + lives[i + 1:]) for i, mine in enumerate(lives)]
    assert sum(chances) == pytest.approx(1.0)
    assert all(c == 0.0 for c, mine in zip(chances, lives) if mine == 0)
    for i, (mine, chance) in enumerate(zip(lives, chances)):
        assert win_chance(mine + 1, lives[:i] + lives[i + 1:]) >= chance
        assert win_chance(mine, lives[:i] + lives[i + 1:], edge=0.9) >= chance  # losing rounds less often


def test_tokens_play_outs_at_three_or_more_value_the_game_the_round_leaves():
    """R8.2, R8.3 in the hard bot's objective: with lives (2; 3, 1, 1) at four, the round is best
    lost by the player with 3 lives, worse by one with 1, worst by this seat; heads-up only
    whether this seat lost counts."""
    from types import SimpleNamespace

    from ono99_tui.bots.search import round_value

    g = Game(["A", "B", "C", "D"], DEFAULT, 5, record_events=False)
    view = dataclasses.replace(g.view(g.current), tokens=(1, 2, 0, 0))  # extra life: lives 2, 3, 1, 1
    view = dataclasses.replace(view, seat=0)
    sim = SimpleNamespace(order=[0, 1, 2, 3], loser=1, hands={})
    leader = round_value(view, sim)
    sim.loser = 2
    short = round_value(view, sim)
    sim.loser = 0
    mine = round_value(view, sim)
    sim.loser = None
    undecided = round_value(view, sim)
    assert leader > short > mine and leader > undecided > mine
    assert leader == pytest.approx(0.3877, abs=1e-4) and short == pytest.approx(0.2847, abs=1e-4)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 30), players=st.sampled_from([2, 3, 4]))
def test_a_cloned_play_out_plays_on_exactly_as_the_round_it_was_copied_from(seed, plays, players):
    """bots/lookahead.py plays each card of the bot's next turn on a copy of the round so far:
    the copy must play on exactly as the original would (same loser, same hands, same pile),
    and playing the copy must leave the original untouched."""
    from ono99_tui.bots import belief, lookahead
    from ono99_tui.bots.rollout import RoundSim

    g = Game([f"P{i}" for i in range(players)], DEFAULT, seed, record_events=False)
    view = g.view(g.current)
    rng = random.Random(seed)
    hands, draw = belief.deal_hidden(view, rng, None)
    sim = RoundSim(view, hands, draw, seed)
    r = random.Random(seed)
    for _ in range(plays):
        if sim.loser is not None:
            break
        sim.play(sim.medium_choice(r))
    before = (sim.loser, {s: list(h) for s, h in sim.hands.items()}, list(sim.draw), sim.total)
    copy_ = lookahead._finish(lookahead._clone(sim), lookahead._fork(r), 400)
    assert (sim.loser, sim.hands, sim.draw, sim.total) == before  # the original untouched
    original = lookahead._finish(sim, r, 400)
    assert (copy_.loser, copy_.hands, copy_.draw, copy_.total) == (
        original.loser, original.hands, original.draw, original.total)
