"""Game records: exact replay, identity, stacked decks, clear errors."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, RecordError, SeatSpec
from ono99_tui.engine.rules import DEFAULT

from .stacked import stacked_deck
from .strategies import tables


def random_game(rules, names, seed, named, choice_seed, stop_after=None):
    g = Game(names, rules, seed, first_dealer=named)
    rng = random.Random(choice_seed)
    while not g.over and (stop_after is None or len(g.plays) < stop_after):
        g.play(rng.choice(g.legal_plays()))
    return g


@settings(max_examples=60, deadline=None)
@given(tables(), st.integers(0, 2**32), st.one_of(st.none(), st.integers(0, 300)))
def test_record_replay_record_is_the_identity(table, choice_seed, stop_after):
    rules, names, seed, named = table
    g = random_game(rules, names, seed, named, choice_seed, stop_after)
    seats = [SeatSpec(n, "human" if i == 0 else "bot:medium") for i, n in enumerate(names)]
    record = Record.from_game(g, seats, meta={"note": "test"})
    text = record.to_toml()
    again = Record.loads(text)
    assert again == record
    replayed = again.replay()
    assert replayed.events == g.events
    assert Record.from_game(replayed, seats, meta={"note": "test"}).to_toml() == text


def test_stacked_deck_round_is_dealt_exactly_and_others_from_the_seed():
    deck = stacked_deck(DEFAULT, [["9", "9", "9", "2"], ["hold", "reverse", "double", "-10"]], ["10"])
    record = Record([SeatSpec("Ana"), SeatSpec("Bo")], DEFAULT, seed=42, first_dealer="Bo",
                    dealer_chosen_by="named", decks={1: tuple(deck)})
    g = record.replay()
    assert g.hands == [["9", "9", "9", "2"], ["hold", "reverse", "double", "-10"]]
    assert g.draw[-1] == "10"
    plain = Game(["Ana", "Bo"], DEFAULT, 42, first_dealer="Bo")
    assert g.events[0] == plain.events[0]
    assert Record.loads(record.to_toml()).decks == {1: tuple(deck)}


def test_stacked_deck_must_be_the_rules_deck():
    text = Record([SeatSpec("A"), SeatSpec("B")], DEFAULT, 1, "A", "named",
                  decks={1: ("2",) * 54}).to_toml()
    with pytest.raises(RecordError, match="round 1 deck must hold the rules' 54 cards exactly: missing .*extra 51x 2"):
        Record.loads(text).replay()


def _two_player_record(plays, deck=None):
    deck = deck or stacked_deck(DEFAULT, [["9", "double", "2", "3"], ["double", "4", "5", "6"]], ["7", "8"])
    return Record([SeatSpec("Ana"), SeatSpec("Bo")], DEFAULT, 7, "Bo", "named", {1: tuple(deck)}, [plays])


def test_illegal_play_names_play_number_seat_card_and_reason():
    record = _two_player_record([("Ana", "double"), ("Bo", "double")])
    with pytest.raises(RecordError) as info:
        record.replay()
    assert str(info.value) == (
        "play 2 (round 1, Bo plays Double Play): Bo cannot play Double Play: "
        "a Double Play cannot be the first of your two plays (R6.3)")


def test_wrong_player_and_unheld_card():
    with pytest.raises(RecordError, match="play 1 \\(round 1, Bo plays 4\\): it is Ana's turn, not Bo's"):
        _two_player_record([("Bo", "4")]).replay()
    with pytest.raises(RecordError, match="play 1 .*no 10 in this hand"):
        _two_player_record([("Ana", "10")]).replay()


def test_a_record_that_stops_mid_game_is_valid():
    g = _two_player_record([("Ana", "9"), ("Bo", "double")]).replay()
    assert not g.over and g.current == 0 and g.owed == 2 and g.total == 9


def test_rounds_must_end_where_the_game_ends_them():
    rec = _two_player_record([("Ana", "9")])
    rec.rounds.append([("Bo", "4")])
    with pytest.raises(RecordError, match="round 1 ends in the record after play 1, but the round is not over"):
        rec.replay()


def test_first_dealer_must_match_the_seed_unless_named():
    g = Game(["A", "B", "C"], DEFAULT, seed=3)
    rec = Record.from_game(g)
    other = next(n for n in g.names if n != rec.first_dealer)
    rec.first_dealer = other
    with pytest.raises(RecordError, match="high-card with seed 3 chooses"):
        rec.replay()


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "the file is empty, not an ono99 record"),
        ("# only a comment\n", "the file is empty, not an ono99 record"),
        ("version = 1\n", "has no format field"),
        ("format = 'ono99-record'\nversion = 9\n", "newer ono99 \\(record version 9\\)"),
        ("format = 'ono99-record'\nversion = 1\nseed = 'x'\n", "seed must be a whole number"),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n", "\\[\\[seats\\]\\] is missing"),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n[[seats]]\nname='A'\nplayer='robot'\n",
         "seat 1 \\(A\\): player must be \"human\" or \"bot:LEVEL\""),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n[[seats]]\nname='A'\n[[seats]]\nname='B'\n",
         "\\[rules\\] is missing"),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n[[seats]]\nname='A'\n[[seats]]\nname='B'\n"
         "[rules]\ntarget = 5\n", "rules.target: 5 is out of range"),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n[[seats]]\nname='A'\n[[seats]]\nname='B'\n"
         "[rules]\n[[rounds]]\nplays = ['A 7']\n", "play 1 \\(round 1\\) must be \"NAME: CARD\""),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n[[seats]]\nname='A'\n[[seats]]\nname='B'\n"
         "[rules]\n[[rounds]]\nplays = ['Zed: 7']\n", "'Zed' is not a seat"),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\n[[seats]]\nname='A'\n[[seats]]\nname='B'\n"
         "[rules]\n[[rounds]]\nplays = ['A: 11']\n", "unknown card '11'"),
        ("format = 'ono99-record'\nversion = 1\nseed = 1\nbogus = 2\n", "unknown key 'bogus'"),
        ("not [toml", "not valid TOML"),
    ],
)
def test_malformed_records_fail_with_a_clear_message(text, message):
    with pytest.raises(RecordError, match=message):
        Record.loads(text, "game.toml").replay()


RECORD = "format = 'ono99-record'\nversion = 3\nseed = 1\n[[seats]]\nname='A'\n[[seats]]\nname='B'\n[rules]\n"


@pytest.mark.parametrize("text, message", [
    ("version = 3\nseed = 1\n", 'has no format field; an ono99 record has format = "ono99-record"'),
    ("format = 'ono99-record'\nseed = 1\n", "has no version field; an ono99 record has version = 1 to 3"),
    ("format = 'ono99-record'\nversion = 3\n", "has no seed field; an ono99 record has seed = a whole number"),
    ("format = 'x'\n", 'format must be "ono99-record", not "x"; is this an ono99 record?'),
    ("format = 'ono99-record'\nversion = true\n", "version must be a whole number from 1, not true"),
    ("format = 'ono99-record'\nversion = 3\nseed = '5'\n", 'seed must be a whole number, not "5"'),
    (RECORD.replace("name='B'", "name='B'\nplayer=false"), 'player must be "human" or "bot:LEVEL", not false'),
    (RECORD + "[[rounds]]\nplays = [true]\n", 'play 1 (round 1) must be "NAME: CARD", not true'),
    (RECORD + "[[rounds]]\nundo = [true]\n", "round 1 undo must be an array of play counts in order (0 to 1000), "
                                               "not [true]"),
    (RECORD.replace("seed = 1", "seed = 1\ndealer_chosen_by = false"),
     "dealer_chosen_by must be one of high-card, random, named, not false"),
])
def test_a_missing_or_mistyped_field_is_named_as_the_file_spells_it(text, message):
    """A stranger's find: `saves import` of a file without a format field said 'format must be
    "ono99-record", not None': Python's words, for a field the file does not have."""
    with pytest.raises(RecordError) as caught:
        Record.loads(text, "game.toml").replay()
    said = str(caught.value)
    assert said.startswith("game.toml: ") and message in said, said
    assert not any(word in said for word in ("None", "True", "False", "'5'", "'x'")), said


def test_saves_import_of_a_file_without_a_format_field_says_so_in_one_line(tmp_path):
    from tests.cli import ono99

    path = tmp_path / "notes.toml"
    path.write_text("title = 'my notes'\n")
    proc = ono99("saves", "import", str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f'ono99: {path}: has no format field; an ono99 record has format = "ono99-record"\n'


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_damage_to_a_record_is_a_record_error_never_a_traceback(data):
    g = random_game(DEFAULT, ["A", "B", "C"], 5, None, 1, stop_after=60)
    text = Record.from_game(g).to_toml()
    cut = data.draw(st.integers(0, len(text)))
    junk = data.draw(st.text(max_size=8))
    damaged = text[:cut] + junk + text[cut + data.draw(st.integers(0, 20)):]
    try:
        Record.loads(damaged).replay()
    except RecordError as exc:
        assert str(exc)
