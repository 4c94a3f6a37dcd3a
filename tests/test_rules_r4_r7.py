"""R4 a turn, R5 losing a round, R6 the helper cards, R7 the 99 card. All on stacked decks."""

import pytest

from ono99_tui.engine import Game, IllegalPlay, Rules
from ono99_tui.engine.rules import DEFAULT

from .stacked import game_with, set_total

N4 = ["2", "3", "4", "5"]


def test_R4_1_play_then_draw_the_top_card():
    g = game_with([["7", "2", "3", "4"], ["5", "6", "8", "9"]], draw=["hold", "10"])
    events = g.play("7")
    assert [e["type"] for e in events][:2] == ["play", "draw"]
    assert events[0]["total"] == 7 and events[1]["card"] == "hold"
    assert sorted(g.hands[0]) == sorted(["2", "3", "4", "hold"])
    assert g.current == 1


def test_R4_2_hands_stay_full_while_the_pile_lasts():
    g = Game(["A", "B", "C"], seed=2)
    for _ in range(30):
        if g.over:
            break
        g.play(g.legal_plays()[0])
        assert all(len(g.hands[s]) == 4 for s in g.order)


def test_R4_3_empty_pile_reshuffles_played_cards_total_kept():
    # 2-9 once each and nothing else: 8 cards, 2 hands of 3, 2 on the pile.
    rules = Rules(deck_number_each=1, deck_ten=0, deck_minus_ten=0, deck_hold=0, deck_reverse=0,
                  deck_double_play=0, deck_ninety_nine=0, hand_size=3, target=999, dealer_first="random")
    g = game_with([["2", "3", "4"], ["5", "6", "7"]], draw=["8", "9"], rules=rules)
    for card in ["2", "5"]:
        g.play(card)
    assert g.draw == [] and g.total == 7
    events = g.play("3")  # draws from a new pile made of 2 and 5 (3 stays face up)
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["play", "reshuffle", "draw"]
    assert sorted(events[1]["order"]) == ["2", "5"]
    assert g.discard == ["3"] and g.total == 10
    assert events[2]["card"] == events[1]["order"][0]  # drawn from the top of the new pile


def test_R4_4_nothing_to_draw_holds_one_card_fewer():
    rules = Rules(deck_number_each=1, deck_ten=0, deck_minus_ten=0, deck_hold=0, deck_reverse=0,
                  deck_double_play=0, deck_ninety_nine=0, dealer_first="random")  # exactly 8 cards
    g = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], rules=rules)
    events = g.play("2")
    assert events[1] == {"type": "draw", "seat": 0, "card": None}
    assert len(g.hands[0]) == 3


def test_R4_5_a_99_is_never_offered_and_busting_is_legal_when_not_forced():
    g = game_with([["99", "9", "hold", "2"], N4])
    assert "99" not in g.legal_plays()
    with pytest.raises(IllegalPlay, match="cannot be played"):
        g.play("99")
    set_total(g, 95)
    assert set(g.legal_plays()) == {"9", "hold", "2"}  # 9 busts, but the player may choose it


def test_R4_5_an_illegal_play_changes_nothing():
    g = game_with([["99", "9", "hold", "2"], N4])
    before = (list(g.hands[0]), g.total, g.current, len(g.events))
    for bad in ("99", "10", "nonsense"):
        with pytest.raises(IllegalPlay):
            g.play(bad)
    assert (list(g.hands[0]), g.total, g.current, len(g.events)) == before


def test_R5_1_reaching_99_loses_the_round_after_drawing():
    g = game_with([["9", "2", "3", "4"], ["5", "6", "7", "8"]], draw=["10"])
    set_total(g, 90)
    events = g.play("9")
    kinds = [e["type"] for e in events]
    assert kinds[:4] == ["play", "draw", "round_lost", "tokens"]
    assert events[1]["card"] == "10"
    assert events[2] == {"type": "round_lost", "round": 1, "seat": 0, "reason": "bust", "total": 99}
    assert g.round_no == 2 and g.tokens == [2, 3]


def test_R5_1_target_is_a_house_rule():
    g = game_with([["9", "2", "3", "4"], N4], rules=Rules(target=120))
    set_total(g, 100)
    g.play("9")
    assert g.round_no == 1 and g.total == 109


def test_R5_2_only_99s_in_hand_loses_at_once_without_drawing():
    g = game_with([["10", "99", "99", "99"], ["2", "3", "4", "5"]], draw=["99"])
    events = g.play("10")  # Ana draws the fourth 99 ...
    assert g.round_no == 1 and g.current == 1
    events = g.play("2")  # ... and on her turn has nothing to play
    lost = [e for e in events if e["type"] == "round_lost"][0]
    assert lost == {"type": "round_lost", "round": 1, "seat": 0, "reason": "no-legal-card", "total": 12}
    plays_by_ana = [e for e in events if e["type"] in ("play", "draw") and e["seat"] == 0]
    assert plays_by_ana == []


def test_R5_3_all_cards_bust_must_play_lowest():
    g = game_with([["9", "7", "10", "99"], N4])
    set_total(g, 93)
    assert g.legal_plays() == ["7"]
    with pytest.raises(IllegalPlay, match="must play your lowest, 7"):
        g.play("9")


def test_R5_3_option_lets_the_player_choose_how_to_bust():
    g = game_with([["9", "7", "10", "99"], N4], rules=Rules(forced_bust_plays_lowest=False))
    set_total(g, 93)
    assert set(g.legal_plays()) == {"7", "9", "10"}


def test_R5_3_a_safe_card_lifts_the_obligation():
    g = game_with([["9", "7", "10", "2"], N4])
    set_total(g, 93)
    assert set(g.legal_plays()) == {"2", "7", "9", "10"}


@pytest.mark.parametrize("card", ["hold", "reverse", "double", "-10"])
def test_R5_4_helpers_never_bust(card):
    g = game_with([[card, "2", "3", "4"], N4, N4])
    set_total(g, 98)
    g.play(card)
    assert g.round_no == 1 and g.total == (88 if card == "-10" else 98)


def test_R6_1_hold_keeps_the_total_and_passes():
    g = game_with([["hold", "2", "3", "4"], N4, N4])
    set_total(g, 50)
    g.play("hold")
    assert (g.total, g.current, g.direction) == (50, 1, 1)


def test_R6_2_reverse_flips_direction():
    g = game_with([["reverse", "2", "3", "4"], N4, N4])
    g.play("reverse")
    assert (g.direction, g.current) == (-1, 2)
    g.play("2")
    assert g.current == 1


def test_R6_2_reverse_with_two_players_acts_as_hold():
    g = game_with([["reverse", "2", "3", "4"], N4])
    g.play("reverse")
    assert g.current == 1 and g.direction == 1


def test_R6_3_double_play_next_player_plays_twice():
    g = game_with([["double", "2", "3", "4"], ["7", "8", "9", "6"], N4])
    g.play("double")
    assert (g.current, g.owed) == (1, 2)
    g.play("7")
    assert (g.current, g.owed, g.total) == (1, 1, 7)
    g.play("8")
    assert (g.current, g.owed, g.total) == (2, 1, 15)


def test_R6_3_no_double_play_as_the_first_of_two():
    g = game_with([["double", "2", "3", "4"], ["double", "8", "9", "6"], N4])
    g.play("double")
    assert "double" not in g.legal_plays()
    with pytest.raises(IllegalPlay, match="R6.3"):
        g.play("double")


def test_R6_3_second_play_may_be_a_double_which_obliges_the_next():
    g = game_with([["double", "2", "3", "4"], ["double", "8", "9", "6"], N4])
    g.play("double")
    g.play("8")
    assert "double" in g.legal_plays()
    g.play("double")
    assert (g.current, g.owed) == (2, 2)


def test_R6_3_house_rule_allows_double_first():
    rules = Rules(double_play_no_double_on_first=False)
    g = game_with([["double", "2", "3", "4"], ["double", "8", "9", "6"], N4], rules=rules)
    g.play("double")
    g.play("double")  # counts as the first play; Bo plays again, then Cy owes two
    assert (g.current, g.owed) == (1, 1)
    g.play("8")
    assert (g.current, g.owed) == (2, 2)


def test_R6_4_hold_first_passes_the_whole_obligation():
    g = game_with([["double", "2", "3", "4"], ["hold", "8", "9", "6"], N4])
    g.play("double")
    g.play("hold")
    assert (g.current, g.owed) == (2, 2)


def test_R6_4_reverse_first_sends_the_obligation_back():
    g = game_with([["double", "2", "3", "4"], ["reverse", "8", "9", "6"], N4])
    g.play("double")
    g.play("reverse")
    assert (g.current, g.owed, g.direction) == (0, 2, -1)


def test_R6_4_reverse_first_with_two_players_goes_to_the_other():
    g = game_with([["double", "2", "3", "4"], ["reverse", "8", "9", "6"]])
    g.play("double")
    g.play("reverse")
    assert (g.current, g.owed) == (0, 2)


def test_R6_4_without_deflect_hold_counts_as_the_first_play():
    g = game_with([["double", "2", "3", "4"], ["hold", "8", "9", "6"], N4], rules=Rules(double_play_deflect=False))
    g.play("double")
    g.play("hold")
    assert (g.current, g.owed) == (1, 1)
    g.play("8")
    assert g.current == 2


def test_R6_5_bust_on_the_first_of_two_ends_the_round():
    g = game_with([["double", "2", "3", "4"], ["9", "8", "7", "6"], N4])
    g.play("double")
    set_total(g, 93)
    assert g.legal_plays() == ["6"]
    g.play("6")
    assert g.round_no == 2 and g.tokens[1] == 2


def test_R6_5_a_number_first_means_play_again():
    g = game_with([["double", "2", "3", "4"], ["9", "8", "7", "6"], N4])
    g.play("double")
    g.play("9")
    assert (g.current, g.owed, g.total) == (1, 1, 9)


def test_R6_6_minus_ten_can_go_below_zero():
    g = game_with([["-10", "2", "3", "4"], ["-10", "8", "9", "6"], N4])
    g.play("-10")
    g.play("-10")
    assert g.total == -20
    g.play("5")
    assert g.total == -15


def test_R7_1_a_99_stays_in_hand():
    g = game_with([["99", "2", "3", "4"], N4])
    assert g.legal_plays() == ["2", "3", "4"]


def test_R7_2_option_99_on_tens_like_a_hold_once_per_turn():
    rules = Rules(ninety_nine_card_playable_on_tens=True)
    g = game_with([["99", "2", "3", "4"], ["99", "5", "6", "7"], ["double", "99", "99", "2"]], rules=rules)
    assert "99" in g.legal_plays()  # total 0 ends in 0
    g.play("99")
    assert (g.total, g.current) == (0, 1)
    g.play("5")
    assert "99" not in g.legal_plays()  # 5 does not end in 0
    assert "ends in 0" in g.why_not("99")


def test_R7_2_99_does_not_deflect_a_double_and_only_one_per_turn():
    rules = Rules(ninety_nine_card_playable_on_tens=True)
    g = game_with([["double", "2", "3", "4"], ["99", "99", "10", "6"], N4], rules=rules)
    g.play("double")
    g.play("99")  # counts as the first play (R6.5), not a deflection
    assert (g.current, g.owed) == (1, 1)
    assert "99" not in g.legal_plays()
    assert "only one 99" in g.why_not("99")
    g.play("10")
    assert g.current == 2


def test_why_not_explains_each_rule():
    g = game_with([["99", "double", "9", "2"], N4])
    assert "R7.1" in g.why_not("99")
    assert "no 10" in g.why_not("10")
    assert g.why_not("9") is None
    g = Game(["A", "B"], DEFAULT, seed=1)
    held = g.hands[g.current]
    missing = next(c for c in ("2", "3", "4", "5", "6", "7", "8", "9") if c not in held)
    assert g.why_not(missing) == f"there is no {missing} in this hand"
    assert g.why_not(next(c for c in held if c in ("2", "3", "4", "5", "6", "7", "8", "9"))) is None
