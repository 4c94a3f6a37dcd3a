"""R1 deck, R2 players/seats/dealer, R3 the deal."""

from collections import Counter

import pytest

from ono99_tui.engine import Game, GameSetupError, Rules
from ono99_tui.engine import cards as C
from ono99_tui.engine.rules import DEFAULT

from .stacked import game_with


def test_R1_default_deck_has_54_cards_with_the_sheet_counts():
    deck = Counter(DEFAULT.deck)
    assert len(DEFAULT.deck) == 54
    assert all(deck[n] == 3 for n in C.NUMBERS)
    assert (deck["10"], deck["-10"], deck["hold"], deck["reverse"], deck["double"], deck["99"]) == (10, 4, 4, 6, 2, 4)


def test_R1_hand_values_and_effects():
    assert [C.HAND_VALUE[c] for c in ("2", "9", "10", "-10", "hold", "reverse", "double", "99")] == [
        2, 9, 10, 15, 15, 15, 15, 20]
    assert [C.EFFECT[c] for c in ("2", "9", "10", "-10", "hold", "reverse", "double")] == [2, 9, 10, -10, 0, 0, 0]


def test_R1_1_custom_deck_counts_are_house_rules():
    rules = Rules(deck_ten=0, deck_ninety_nine=8)
    assert len(rules.deck) == 54 - 10 + 4
    assert Counter(rules.deck)["99"] == 8


def test_R1_1_deck_too_small_for_the_table_is_rejected():
    rules = Rules(deck_number_each=1, deck_ten=0, deck_minus_ten=0, deck_hold=0, deck_reverse=0,
                  deck_double_play=0, deck_ninety_nine=1, dealer_first="random")  # 9 cards
    Game(["A", "B"], rules)
    with pytest.raises(GameSetupError, match="3 players x 4 cards needs 12 cards, but the deck has 9"):
        Game(["A", "B", "C"], rules)


@pytest.mark.parametrize("count", [0, 1, 9])
def test_R2_1_two_to_eight_players(count):
    with pytest.raises(GameSetupError, match="2 to 8 players"):
        Game([f"P{i}" for i in range(count)])


def test_R2_1_names_must_differ():
    with pytest.raises(GameSetupError, match="Ana appears more than once"):
        Game(["Ana", "Bo", "Ana"])


def test_R2_1_play_starts_left_and_goes_left():
    g = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"], ["10", "10", "10", "10"]])
    seen = []
    for _ in range(4):
        seen.append(g.current)
        g.play(g.legal_plays()[0])
    assert seen == [0, 1, 2, 0]


def test_R2_2_high_card_the_highest_draw_deals():
    for seed in range(30):
        g = Game(["A", "B", "C", "D"], seed=seed)
        ev = g.events[0]
        assert ev["type"] == "dealer" and ev["method"] == "high-card"
        last = ev["draws"][-1]
        best = max(C.EFFECT[c] for _, c in last)
        assert [s for s, c in last if C.EFFECT[c] == best] == [g.first_dealer]
        assert all(c in C.HIGH_CARD_DRAW for draw in ev["draws"] for _, c in draw)


def test_R2_2_high_card_ties_draw_again_among_the_tied():
    tied = None
    for seed in range(200):
        g = Game(["A", "B", "C", "D", "E", "F"], seed=seed)
        if len(g.events[0]["draws"]) > 1:
            tied = g.events[0]["draws"]
            break
    assert tied, "some seed gives a tie"
    first = tied[0]
    best = max(C.EFFECT[c] for _, c in first)
    assert sorted(s for s, _ in tied[1]) == sorted(s for s, c in first if C.EFFECT[c] == best)


def test_R2_2_agree_needs_a_named_dealer_and_random_is_seeded():
    with pytest.raises(GameSetupError, match="must name the first dealer"):
        Game(["A", "B"], Rules(dealer_first="agree"))
    assert Game(["A", "B", "C"], Rules(dealer_first="agree"), first_dealer="C").first_dealer == 2
    rnd = Rules(dealer_first="random")
    assert {Game(list("ABCD"), rnd, seed=s).first_dealer for s in range(40)} == {0, 1, 2, 3}
    assert Game(list("ABCD"), rnd, seed=7).first_dealer == Game(list("ABCD"), rnd, seed=7).first_dealer


def _lose_round(g):
    """Play the lowest adder until the round ends (the total only climbs)."""
    rnd = g.round_no
    while g.round_no == rnd and not g.over:
        legal = g.legal_plays()
        adders = [c for c in legal if c in C.ADDERS]
        g.play(max(adders, key=C.EFFECT.get) if adders else legal[0])


def test_R2_3_deal_passes_left_each_round():
    g = Game(["A", "B", "C"], seed=3, first_dealer=0)
    dealers = [g.dealer]
    for _ in range(3):
        _lose_round(g)
        dealers.append(g.dealer)
    assert dealers == [0, 1, 2, 0]


def test_R2_3_loser_deals_option():
    g = Game(["A", "B", "C"], Rules(dealer_next="loser"), seed=3, first_dealer=0)
    for _ in range(3):
        _lose_round(g)
        assert g.dealer == g.last_loser


def test_R2_3_eliminated_players_are_skipped_when_dealing():
    g = Game(["A", "B", "C"], Rules(scoring_tokens=1, scoring_extra_life=False), seed=1, first_dealer=0)
    _lose_round(g)
    gone = g.last_loser
    assert g.out[gone]
    assert gone not in g.order and g.dealer != gone
    assert len(g.hands[gone]) == 0


def test_R3_1_deal_one_at_a_time_from_dealers_left():
    deck = list(DEFAULT.deck)
    g = Game(["A", "B", "C"], seed=0, first_dealer=1, decks={1: deck})
    # the dealer is B: C gets the first card, then A, then B
    assert g.hands[2] == deck[0:12:3]
    assert g.hands[0] == deck[1:12:3]
    assert g.hands[1] == deck[2:12:3]
    assert g.draw[::-1] == deck[12:]


def test_R3_2_total_starts_at_zero_left_of_dealer_moves_first():
    g = Game(["A", "B", "C", "D"], seed=11, first_dealer=2)
    assert (g.total, g.direction, g.current) == (0, 1, 3)


def test_R3_3_every_round_is_a_fresh_shuffle_of_all_cards():
    g = Game(["A", "B", "C"], seed=5, first_dealer=0)
    for _ in range(3):
        _lose_round(g)
    deals = [e for e in g.events if e["type"] == "deal"]
    assert len(deals) == 4
    assert all(Counter(d["deck"]) == Counter(DEFAULT.deck) for d in deals)
    assert len({tuple(d["deck"]) for d in deals}) == 4
