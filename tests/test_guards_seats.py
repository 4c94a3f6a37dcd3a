"""Who sits at a table (table/seats.py), pinned where planted bugs survived (issue 25): the
levels a player types after --bots, the seats a New game form or a record brings, and the names
the bots take beside a player's."""

from __future__ import annotations

import pytest

from ono99_tui.bots.levels import Bot
from ono99_tui.engine import Game
from ono99_tui.engine.record import SeatSpec
from ono99_tui.table.seats import (SeatError, bot_names, bot_seed, check_seats, free_bot_name, free_bot_names,
                                   make_mover, parse_levels)

LEVELS = "levels are random, easy, medium, hard"


def said(call, *args, **kwargs) -> str:
    with pytest.raises(SeatError) as exc:
        call(*args, **kwargs)
    return str(exc.value)


# -- --bots LEVEL,LEVEL,... -------------------------------------------------------------
def test_levels_are_read_whatever_their_case_and_spaces():
    assert parse_levels("Hard, medium ,EASY") == ["hard", "medium", "easy"]
    assert parse_levels(",".join(["easy"] * 8)) == ["easy"] * 8


@pytest.mark.parametrize("text, words", [
    ("", "--bots: no levels given; " + LEVELS + ", one per seat (e.g. hard,medium)"),
    ("   ", "--bots: no levels given; " + LEVELS + ", one per seat (e.g. hard,medium)"),
    ("hard,,medium", "--bots: a level is missing between commas in 'hard,,medium'; " + LEVELS
     + ", one per seat (e.g. hard,medium)"),
    ("hard,\x1b[2J,", "--bots: a level is missing between commas in 'hard,\\x1b[2J,'; " + LEVELS
     + ", one per seat (e.g. hard,medium)"),
    ("genius,hard,wizard", "--bots: unknown bot level 'genius', 'wizard'; " + LEVELS),
    ("easy", "--bots: a game needs 2 to 8 seats, got 1 ('easy')"),
    (",".join(["easy"] * 9), "--bots: a game needs 2 to 8 seats, got 9 ('" + ",".join(["easy"] * 9) + "')"),
])
def test_bad_levels_are_refused_in_these_words(text, words):
    assert said(parse_levels, text) == words


def test_the_option_named_is_the_one_given():
    assert said(parse_levels, "easy", what="--seats").startswith("--seats: a game needs 2 to 8 seats")
    assert said(parse_levels, ",", what="--seats").startswith("--seats: a level is missing")


def test_the_oracles_sit_only_where_they_are_allowed():
    assert said(parse_levels, "oracle,oracle-hands") == "--bots: unknown bot level 'oracle', 'oracle-hands'; " + LEVELS
    assert parse_levels("oracle,oracle-hands", allow_oracle=True) == ["oracle", "oracle-hands"]


# -- the seats of a table ---------------------------------------------------------------
def test_seats_are_refused_naming_the_seat_and_why():
    assert said(check_seats, [SeatSpec("Ann"), SeatSpec("Bo", "bot:genius")]) == \
        "seat 2 (Bo): unknown bot level 'genius'; " + LEVELS
    assert said(check_seats, [SeatSpec("Ann", "robot"), SeatSpec("Bo")]).startswith(
        "seat 1 (Ann): player must be \"human\" or \"bot:LEVEL\"")
    assert said(check_seats, [SeatSpec("Ann"), SeatSpec("Ann")]) == \
        "player names must differ: Ann appears more than once"
    assert said(check_seats, [SeatSpec("Ann")]) == "a game needs 2 to 8 players, not 1"


def test_good_seats_are_kept_as_given_and_the_oracles_only_where_allowed():
    seats = (SeatSpec("Ann"), SeatSpec("Or", "bot:oracle"))
    assert "seat 2 (Or): unknown bot level 'oracle'" in said(check_seats, list(seats))
    assert check_seats(seats, allow_oracle=True) == list(seats)


# -- the bots' names ---------------------------------------------------------------------
def test_bots_are_named_after_their_levels_numbered_from_the_second():
    assert bot_names(["medium", "hard", "medium", "medium", "easy"]) == \
        ["Medium", "Hard", "Medium 2", "Medium 3", "Easy"]


@pytest.mark.parametrize("taken, name", [
    ([], "Bo"), (["Ann"], "Bo"), (["Bo"], "Cy"), (["bO", "CY"], "Di"),
    (["Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy"], "Bot 1"),
    (["Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "bot 1"], "Bot 2"),
])
def test_a_bot_takes_the_first_name_nobody_has_case_aside(taken, name):
    assert free_bot_name(taken) == name


def test_bots_added_beside_a_player_take_names_unlike_hers_and_each_others():
    assert free_bot_names(["Ann"], 3) == ["Bo", "Cy", "Di"]
    assert free_bot_names(["cy"], 3) == ["Bo", "Di", "Ed"]
    assert free_bot_names(["Ann"], 0) == []
    names = free_bot_names(["Ivy"], 8)
    assert len(names) == 8 and "Ivy" not in names and len(set(names)) == 8


# -- seeding and moving -------------------------------------------------------------------
def test_each_seat_of_a_game_has_its_own_seed_and_one_seed_means_one_game():
    seeds = {bot_seed(g, s) for g in (1, 12, 123) for s in range(8)}
    assert len(seeds) == 24 and bot_seed(12, 3) == bot_seed(12, 3)


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "random"])
def test_a_bot_moves_as_its_level_decides_from_its_own_view(level):
    game = Game(["A", "B", "C"], seed=4)
    mover = make_mover(level, "s/1")
    card = mover(game, game.current)
    assert card == Bot(level, "s/1").choose(game.view(game.current))
    assert card in game.view(game.current).legal_plays()


def plays(oracle, seed: int) -> list:
    """The first 200 plays of a three-seat game whose seat 0 is ``oracle``, the others medium."""
    game = Game(["A", "B", "C"], seed=seed, record_events=False)
    medium = make_mover("medium", "m")
    while not game.over and len(game.plays) < 200:
        game.play((oracle if game.current == 0 else medium)(game, game.current))
    return list(game.plays)


@pytest.mark.parametrize("level", ["oracle", "oracle-hands"])
def test_the_oracles_move_as_the_yardstick_each_is_seeded_as_asked(level):
    """The lab's yardsticks: the level named, seeded with the seed given (a simulation's seats
    each their own, so a seed means one run)."""
    from ono99_tui.bots.oracle import HandsOracle, Oracle

    kind = {"oracle": Oracle, "oracle-hands": HandsOracle}[level]
    ours = plays(make_mover(level, "x"), 6)
    assert ours == plays(kind("x").choose, 6)
    assert ours != plays(kind("y").choose, 6)  # (the seed tells: not one oracle whatever it is given)
