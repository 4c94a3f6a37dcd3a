"""The table session: plays in, per-seat updates out. Whole games in milliseconds, no UI."""

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.engine import Game
from ono99_tui.engine.describe import describe
from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import DEFAULT, rules_from_dict
from ono99_tui.engine.view import PlayerView
from ono99_tui.lab import simulate as sim
from ono99_tui.table import (SPECTATOR, BotTurn, HumanTurn, IllegalMove, NotYourTurn, SeatError, StalePlay,
                             TableError, TableOver, TableSession)

from .strategies import tables

SHORT = rules_from_dict({"scoring": {"tokens": 1, "extra_life": False}})


def humans_vs_bots(n_humans=1, levels=("medium", "medium", "medium")):
    return [SeatSpec(f"H{i}") for i in range(n_humans)] + [SeatSpec(f"B{i}", f"bot:{lv}") for i, lv in enumerate(levels)]


def first_legal(table: TableSession) -> str:
    return table.game.legal_plays()[0]


# -- refusals change nothing -------------------------------------------------------------
def test_out_of_turn_stale_and_illegal_plays_are_refused_and_change_nothing():
    table = TableSession(humans_vs_bots(2, ("medium", "medium")), DEFAULT, seed=4)
    g = table.game
    while table.bot_to_move:
        table.play_bot()
    seat, other = g.current, 1 - g.current if g.current < 2 else 0
    before = (list(g.plays), [list(h) for h in g.hands], g.total)
    with pytest.raises(NotYourTurn, match="turn"):
        table.submit(other, g.hands[other][0])
    with pytest.raises(StalePlay, match="move"):
        table.submit(seat, first_legal(table), seq=table.seq - 1)
    with pytest.raises(IllegalMove):
        table.submit(seat, "nonsense")
    with pytest.raises(TableError, match="no seat"):
        table.submit(9, "5")
    assert (list(g.plays), [list(h) for h in g.hands], g.total) == before
    table.submit(seat, first_legal(table), seq=table.seq)
    assert len(g.plays) == len(before[0]) + 1


@pytest.mark.parametrize("seat, card", [
    (True, "legal"), (False, "legal"),  # bools are ints to Python, never seats (False would be seat 0)
    (0, ["7"]), (0, {"card": "7"}), (0, 7), (0, None), (0, b"7"),  # not strings (the list, dict: unhashable)
])
def test_a_bool_seat_or_a_card_that_is_not_a_string_is_refused_and_changes_nothing(seat, card):
    table = TableSession(humans_vs_bots(), SHORT, seed=2)
    table.play_bots()
    assert table.current == 0
    before = (table.seq, list(table.game.hands[0]), table.game.total)
    with pytest.raises(TableError):
        table.submit(seat, first_legal(table) if card == "legal" else card)
    assert (table.seq, list(table.game.hands[0]), table.game.total) == before


def test_a_retried_play_is_refused_as_stale_not_played_twice():
    table = TableSession([SeatSpec("A"), SeatSpec("B")], DEFAULT, seed=8)
    seq = table.seq
    table.submit(table.current, first_legal(table), seq=seq)
    with pytest.raises(StalePlay):
        table.submit(table.current, first_legal(table), seq=seq)
    assert table.seq == seq + 1


def test_seats_are_checked_in_one_place():
    with pytest.raises(SeatError, match="unknown bot level 'genius'"):
        TableSession([SeatSpec("A"), SeatSpec("B", "bot:genius")])
    with pytest.raises(SeatError, match="oracle"):
        TableSession([SeatSpec("A"), SeatSpec("B", "bot:oracle")])  # yardsticks are for the lab only
    with pytest.raises(SeatError, match="2 to 8"):
        TableSession([SeatSpec("A")])
    with pytest.raises(SeatError, match="differ"):
        TableSession([SeatSpec("A"), SeatSpec("A", "bot:easy")])
    with pytest.raises(sim.SimulationError, match="unknown bot level"):
        sim.parse_bots("hard,genius")


# -- one game loop, one bot seeding --------------------------------------------------------
def test_bots_play_the_same_game_whichever_front_end_drives_them():
    """The simulator's game and a table driven play by play (as the screen does, through
    bot_job on a snapshot) are the same game for the same seed: one bot seeding."""
    levels = ["hard", "medium", "easy"]
    result = sim.play_game(levels, SHORT, seed=3, index=0, keep_record=True)
    seed = sim.deal_seed(3, 0)
    table = TableSession([SeatSpec(n, f"bot:{lv}") for n, lv in zip(sim.seat_names(levels), levels)], SHORT, seed)
    while not table.over:
        seat, seq, decide = table.bot_job()
        table.submit(seat, decide(), seq=seq)
    assert len(table.game.plays) == result.plays and table.game.winner == result.winner
    from ono99_tui.engine.record import Record

    assert Record.loads(result.record_toml).replay().plays == table.game.plays


def test_next_step_says_whose_move_and_how_until_the_game_is_over():
    """The one stepping API every front end uses: a bot's job, a person's turn, or the end."""
    table = TableSession(humans_vs_bots(1, ("easy", "medium")), SHORT, seed=4)
    seen = set()
    while not isinstance(step := table.next_step(), TableOver):
        assert step.seq == table.seq and step.seat == table.current
        if isinstance(step, BotTurn):
            assert table.is_bot(step.seat)
            table.submit(step.seat, step.decide(), step.seq)
        else:
            assert isinstance(step, HumanTurn) and not table.is_bot(step.seat)
            table.submit(step.seat, first_legal(table), step.seq)
        seen.add(type(step))
    assert seen == {BotTurn, HumanTurn} and step.winner == table.game.winner is not None
    assert table.next_step() == step  # asked again: still over, nothing changes


def test_a_whole_bot_game_runs_through_the_table():
    table = TableSession([SeatSpec(f"B{i}", "bot:medium") for i in range(4)], SHORT, seed=1)
    table.play_bots()
    assert table.over and table.game.winner is not None and sum(table.game.out) == 3


def test_play_bots_stops_when_a_human_is_to_move():
    table = TableSession(humans_vs_bots(), SHORT, seed=2)
    table.play_bots()
    assert table.current == 0 and not table.over


# -- undo -----------------------------------------------------------------------------------
def test_undo_takes_back_the_humans_last_play_and_bots_replay_the_rest():
    table = TableSession(humans_vs_bots(), SHORT, seed=6)
    assert not table.may_undo(0)  # nothing played yet
    table.play_bots()
    hand_before = sorted(table.game.hands[0])
    n = table.seq
    table.submit(0, first_legal(table))
    table.play_bots()
    if table.over:
        pytest.skip("the game ended")
    updates = []
    table.subscribe(updates.append, seat=0)
    table.undo(0)
    assert table.seq == n and sorted(table.game.hands[0]) == hand_before and table.undo_used
    assert updates and updates[-1].undone


def test_no_undo_with_two_humans_or_when_switched_off():
    two = TableSession(humans_vs_bots(2, ("easy",)), SHORT, seed=1)
    two.play_bots()
    seat = two.current
    two.submit(seat, first_legal(two))
    assert not two.may_undo(seat)
    off = TableSession(humans_vs_bots(), SHORT, seed=1, undo=False)
    off.play_bots()
    off.submit(0, first_legal(off))
    assert not off.may_undo(0)


def test_a_bot_decision_made_before_an_undo_is_refused_as_stale():
    table = TableSession(humans_vs_bots(), SHORT, seed=6)
    table.play_bots()
    table.submit(0, first_legal(table))
    seat, seq, decide = table.bot_job()
    card = decide()
    table.play_bots()
    if table.over or table.current != 0:
        pytest.skip("not back to the human")
    table.undo(0)
    with pytest.raises(TableError):
        table.submit(seat, card, seq=seq)


# -- statistics -------------------------------------------------------------------------------
def test_statistics_count_a_game_once_and_never_when_a_finished_game_is_opened(monkeypatch):
    counted = []
    monkeypatch.setattr("ono99_tui.store.stats.record_game", lambda game, seats: counted.append(game))
    seats = humans_vs_bots(0, ("medium",) * 3)
    table = TableSession(seats, SHORT, seed=5)
    table.record_stats = True
    table.play_bots()
    assert len(counted) == 1
    reopened = TableSession(seats, SHORT, seed=5, game=table.game)  # as opening the finished save does
    reopened.record_stats = True
    reopened._changed([])
    assert len(counted) == 1


# -- privacy (R3, R4: hands and the draw pile are secret) ----------------------------------------
VIEW_FIELDS = {"seat", "names", "rules", "round", "dealer", "hand", "hand_sizes", "in_round", "played_this_round",
               "discard", "draw_pile_size", "total", "direction", "current", "plays_owed", "ninety_nine_used",
               "pending_double", "tie_break", "tokens", "points", "out", "over", "winner", "round_plays"}


def test_a_view_has_no_field_that_could_hold_another_seats_cards():
    """A new PlayerView field must be looked at here before it ships: it goes to every seat."""
    assert {f.name for f in dataclasses.fields(PlayerView)} == VIEW_FIELDS


def check_update(update, game: Game, dealt: dict):
    seat = update.seat
    assert update.view.hand == (tuple(game.hands[seat]) if seat is not None else ())
    for event in update.events:
        text = json.dumps(event)
        assert "deck" not in event and "order" not in event and "hands" not in event, text
        if event["type"] == "deal":
            assert event.get("hand") == (dealt[event["round"]][seat] if seat in event["seats"] else None)
        if event["type"] == "draw" and event["seat"] != seat:
            assert "card" not in event, text
        if event["type"] == "draw" and event["seat"] == seat:
            assert "card" in event


@settings(max_examples=40, deadline=None)
@given(tables(), st.integers(0, 2**16), st.integers(0, 2))
def test_every_seat_is_told_only_its_own_hand_and_public_information(table_args, play_seed, n_bots):
    rules, names, seed, named = table_args
    n_bots = min(n_bots, len(names) - 1)
    seats = [SeatSpec(n, "bot:random" if i < n_bots else "human") for i, n in enumerate(names)]
    table = TableSession(seats, rules, seed, first_dealer=named)
    game = table.game
    dealt = {}
    updates = []
    for seat in [*range(len(names)), SPECTATOR]:
        table.subscribe(updates.append, seat)
    rng = random.Random(play_seed)
    for _ in range(400):
        if table.over:
            break
        for e in game.events:
            if e["type"] == "deal":
                dealt[e["round"]] = e["hands"]
        if table.bot_to_move:
            table.play_bot()
        else:
            table.submit(table.current, rng.choice(game.legal_plays()), seq=table.seq)
        for e in game.events:
            if e["type"] == "deal":
                dealt[e["round"]] = e["hands"]
        for update in updates:
            check_update(update, game, dealt)
        updates.clear()
    # the whole history, asked for afterwards, is redacted the same way, and every redacted
    # event still reads as a log line (a reshuffle's count once crashed the table's log)
    for seat in [*range(len(names)), SPECTATOR]:
        for event in table.events_for(seat):
            assert "deck" not in event and "order" not in event and "hands" not in event
            if event["type"] == "draw" and event["seat"] != seat:
                assert "card" not in event
            describe(event, names, viewer=None if seat == SPECTATOR else seat)
            describe(event, names, ascii=True, viewer=None if seat == SPECTATOR else seat)


def test_a_reshuffle_reads_as_a_log_line_for_every_seat():
    """R4.3: the pile runs out in a long round; each seat's log line gives the count, never the order."""
    tight = rules_from_dict({"scoring": {"tokens": 1, "extra_life": False}})
    for seed in range(200):
        table = TableSession([SeatSpec(f"B{i}", "bot:random") for i in range(8)], tight, seed)
        table.play_bots()
        shuffles = [e for e in table.events_for(0) if e["type"] == "reshuffle"]
        if shuffles:
            break
    else:
        pytest.fail("no reshuffle in 200 eight-seat games")
    full = next(e for e in table.game.events if e["type"] == "reshuffle")
    line = describe(shuffles[0], table.game.names, viewer=0)
    assert line == f"The played cards are shuffled into a new draw pile ({len(full['order'])} cards)"


def test_a_spectator_sees_no_hand_at_all():
    table = TableSession(humans_vs_bots(), SHORT, seed=3)
    table.play_bots()
    view = table.view_for(SPECTATOR)
    assert view.hand == () and not view.my_turn
    assert all("card" not in e for e in table.events_for(SPECTATOR) if e["type"] == "draw")
