"""R8 token scoring and R9 point scoring, with the round's end set up on stacked decks."""

from ono99_tui.engine import Game, Rules
from ono99_tui.engine import cards as C

from .stacked import game_with, set_total

NUMBERS_ONLY = dict(deck_ten=0, deck_minus_ten=0, deck_hold=0, deck_reverse=0, deck_double_play=0,
                    deck_ninety_nine=0, deck_number_each=6)


def bust_now(g):
    """The player to move busts: total 98 and a number-only deck leave no way out."""
    set_total(g, 98)
    g.play(g.legal_plays()[0])


def test_R8_1_R8_2_three_tokens_then_an_extra_life_out_on_the_fourth_loss():
    g = Game(["A", "B", "C"], Rules(**NUMBERS_ONLY), seed=1, first_dealer=2)
    losses = [0, 0, 0]
    while not g.over:
        mover = g.current
        bust_now(g)
        losses[mover] += 1
        for s in range(3):
            assert g.tokens[s] == max(0, 3 - losses[s])
            assert g.out[s] == (losses[s] >= 4)
    assert sum(g.out) == 2 and not g.out[g.winner]


def test_R8_2_without_extra_life_out_when_the_last_token_goes():
    g = Game(["A", "B"], Rules(scoring_extra_life=False, scoring_tokens=2, **NUMBERS_ONLY), seed=1, first_dealer=1)
    bust_now(g)  # A loses: 1 left
    assert g.tokens == [1, 2] and not g.out[0]
    bust_now(g)  # B moves first in round 2 (A deals) and loses
    bust_now(g)  # A moves first in round 3 and loses the last token
    assert g.out[0] and g.over and g.winner == 1


def test_R8_3_last_player_left_wins_and_game_over_is_reported():
    g = Game(["A", "B"], Rules(**NUMBERS_ONLY), seed=4, first_dealer=0)
    while not g.over:
        bust_now(g)
    assert g.events[-1]["type"] == "game_over" and g.events[-1]["winner"] == g.winner
    assert g.standings()[0] == g.winner and g.legal_plays() == []


# -- points ------------------------------------------------------------------------

THREE = [["9", "2", "3", "4"], ["5", "6", "7", "8"], ["2", "3", "4", "5"]]


def points_round(rules, points=(0, 0, 0)):
    """A busts at 95 + 9 and draws a 2: A holds 2,3,4,2 (11 + 25), B 26, C 14."""
    g = game_with(THREE, draw=["2"], rules=rules)
    g.points = list(points)
    set_total(g, 95)
    g.play("9")
    return g


def test_R9_1_card_by_card_breakdown_with_bust_penalty():
    g = points_round(Rules(scoring_mode="points"))
    rows = {row["seat"]: row for row in g.round_log[0]["breakdown"]}
    assert rows[0]["cards"] == [["2", 2], ["2", 2], ["3", 3], ["4", 4]]
    assert (rows[0]["loser_penalty"], rows[0]["gained"]) == (25, 36)
    assert (rows[1]["gained"], rows[2]["gained"]) == (26, 14)
    assert g.points == [36, 26, 14]
    assert [e for e in g.events if e["type"] == "points"][0]["breakdown"] == g.round_log[0]["breakdown"]


def test_R9_1_helpers_and_99s_score_15_and_20_and_penalty_is_a_house_rule():
    g = game_with([["9", "hold", "99", "-10"], ["reverse", "double", "10", "8"]], draw=["2"],
                  rules=Rules(scoring_mode="points", scoring_bust_penalty=40))
    set_total(g, 95)
    g.play("9")
    assert g.points == [15 + 20 + 15 + 2 + 40, 15 + 15 + 10 + 8]


def test_R9_1_missing_cards_score_15_each():
    rules = Rules(scoring_mode="points", deck_number_each=1, deck_ten=0, deck_minus_ten=0, deck_hold=0,
                  deck_reverse=0, deck_double_play=0, deck_ninety_nine=0, dealer_first="random")
    g = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], rules=rules)
    g.play("2")  # nothing to draw (R4.4): Ana holds 3 cards
    set_total(g, 95)
    g.play("6")  # Bo busts and draws Ana's 2 back from the reshuffled pile (R4.3)
    rows = {row["seat"]: row for row in g.round_log[0]["breakdown"]}
    assert (rows[0]["missing"], rows[0]["missing_points"], rows[0]["gained"]) == (1, 15, 3 + 4 + 5 + 15)
    assert (rows[1]["missing"], rows[1]["gained"]) == (0, 7 + 8 + 9 + 2 + 25)


def test_R9_2_elimination_at_the_limit_last_left_wins():
    g = points_round(Rules(scoring_mode="points", scoring_limit=30))
    assert g.out == [True, False, False] and not g.over
    assert g.order == [1, 2]


def test_R9_2_everyone_reaches_the_limit_lowest_wins():
    g = points_round(Rules(scoring_mode="points", scoring_limit=20), points=(0, 0, 13))
    assert g.over and g.winner == 1 and g.points == [36, 26, 27]


def test_R9_2_R9_4_everyone_reaches_the_limit_tied_lowest_play_on():
    g = points_round(Rules(scoring_mode="points", scoring_limit=20), points=(0, 0, 12))
    assert not g.over and g.out == [True, False, False]
    assert g.contenders == [1, 2] and g.order == [1, 2]
    assert {"type": "tie", "seats": [1, 2], "score": 26} in g.events


def test_R9_3_first_to_limit_ends_the_game_lowest_wins():
    rules = Rules(scoring_mode="points", scoring_limit=30, scoring_end="first-to-limit")
    g = points_round(rules)
    assert g.over and g.winner == 2 and g.out == [False, False, False]


def test_R9_4_tie_for_the_win_only_the_tied_play_on_scores_kept():
    rules = Rules(scoring_mode="points", scoring_limit=30, scoring_end="first-to-limit")
    g = points_round(rules, points=(0, 0, 12))
    assert not g.over and g.contenders == [1, 2] and g.points == [36, 26, 26]
    while not g.over:
        legal = g.legal_plays()
        g.play(max(legal, key=lambda c: C.EFFECT[c]))
    assert g.winner in (1, 2)
    assert g.points[0] == 36  # Ana sat the tie-break out
    assert g.points[g.winner] < g.points[3 - g.winner]
    assert all(e["seats"] == [1, 2] for e in g.events if e["type"] == "deal" and e["round"] > 1)
