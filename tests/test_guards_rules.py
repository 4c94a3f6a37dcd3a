"""engine/legal.py pinned where mutants survived the rules tests (benchmarks/mutation.py, issue 25):
the 99 on every total ending in 0 (R7.2), the forced bust with a 99 already played (R5.3, R7.2),
the order cards are offered in, the bust test at the target (R5.1, R5.4), and each reason's words."""

from ono99_tui.engine import cards as C
from ono99_tui.engine.legal import busts, legal_plays, why_not
from ono99_tui.engine.rules import DEFAULT, rules_from_dict

TENS = rules_from_dict({"ninety_nine_card": {"playable_on_tens": True}})


def test_a_99_may_be_played_on_any_total_ending_in_0_once_a_turn():
    for total in (-10, 0, 10, 20, 90):
        assert "99" in legal_plays(TENS, ["99", "5"], total, False, False), total
    for total in (5, 21, 95):
        assert "99" not in legal_plays(TENS, ["99", "5"], total, False, False), total
    assert "99" not in legal_plays(TENS, ["99", "5"], 20, False, True)
    assert "99" not in legal_plays(DEFAULT, ["99", "5"], 20, False, False)


def test_with_a_99_already_played_this_turn_the_forced_bust_is_the_lowest_card():
    """At 90, 99 played already (a Double Play turn): 10 and 9 both bust, so only the 9 may go."""
    hand = ["99", "10", "9"]
    assert legal_plays(TENS, hand, 90, False, True) == ["9"]
    assert why_not(TENS, hand, 90, False, True, "10") == "every card you can play busts, so you must play your lowest, 9 (R5.3)"
    assert why_not(TENS, hand, 90, False, False, "10") is None  # the 99 is a way out: no forced bust


def test_cards_are_offered_in_the_decks_order():
    hand = ["hold", "10", "2", "-10", "reverse"]
    offered = legal_plays(DEFAULT, hand, 0, False, False)
    assert offered == sorted(hand, key=C.SORT_KEY.__getitem__) and offered != sorted(hand)


def test_only_an_adding_card_that_reaches_the_target_busts():
    assert busts(DEFAULT, "10", 89) and busts(DEFAULT, "9", 90) and busts(DEFAULT, "10", 95)
    assert not busts(DEFAULT, "10", 88) and not busts(DEFAULT, "2", 96)
    for card in ("-10", "hold", "reverse", "double", "99"):
        assert not busts(DEFAULT, card, 98), card


def test_each_reason_in_a_players_words():
    assert why_not(DEFAULT, ["5"], 0, False, False, "hold") == f"there is no {C.LABEL['hold']} in this hand"
    assert C.LABEL["hold"] != "hold"
    assert why_not(DEFAULT, ["5"], 0, False, False, "zz") == "there is no zz in this hand"
    assert why_not(DEFAULT, ["99", "5"], 0, False, False, "99") == \
        "a 99 card cannot be played; it stays in your hand (R7.1)"
    assert why_not(TENS, ["99", "5"], 20, False, True, "99") == "only one 99 may be played in a turn (R7.2)"
    assert why_not(TENS, ["99", "5"], 25, False, False, "99") == \
        "a 99 may only be played when the total ends in 0; it is 25 (R7.2)"
    assert why_not(DEFAULT, ["double", "5"], 0, True, False, "double") == \
        "a Double Play cannot be the first of your two plays (R6.3)"
