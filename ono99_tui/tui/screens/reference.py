"""The card reference: what each card does under the rules in force, how many the deck
holds, and how many of them the player has seen this deck.

Public information only, from the seat's own PlayerView: "seen" counts the cards
played since the last reshuffle (the discard pile, the top card included) and the
player's own hand. Everything else (the others' hands and the draw pile) is
"unseen" and is never told apart.
"""

from __future__ import annotations

from ...engine import cards as C
from ...engine.rules import Rules
from ...engine.view import PlayerView
from .notice import _Notice


def card_effect(card: str, rules: Rules, players: int) -> str:
    """What ``card`` does when played, in a few words (rule numbers as in docs/rules.md)."""
    if card in C.ADDERS:
        return f"+{C.EFFECT[card]}"
    if card == C.MINUS_TEN:
        return "-10, even below 0 (R6.6)"
    if card == C.HOLD:
        return "total stays (R6.1)"
    if card == C.REVERSE:
        return "a Hold with two players (R6.2)" if players == 2 else "direction flips (R6.2)"
    if card == C.DOUBLE:
        return "next player plays twice (R6.3)"
    if rules.ninety_nine_card_playable_on_tens:
        return "a Hold on totals ending 0 (R7.2)"
    return "never played (R7.1)"


def double_play_notes(rules: Rules) -> list[str]:
    notes = []
    if rules.double_play_no_double_on_first:
        notes.append("a Double Play may not be the first of the two plays (R6.3)")
    if rules.double_play_deflect:
        notes.append("a Hold or Reverse as the first passes both plays on (R6.4)")
    return notes


def reference_rows(view: PlayerView) -> list[tuple[str, int, int, int]]:
    """(card, in the deck, seen this deck, unseen) for each kind of card the deck holds."""
    unseen = view.unseen()
    return [(card, view.rules.count(card), view.rules.count(card) - unseen.get(card, 0), unseen.get(card, 0))
            for card in C.ALL_CARDS if view.rules.count(card)]


def reference_text(view: PlayerView) -> str:
    """The reference as plain text (the notice shows it as text, never as markup)."""
    rules = view.rules
    points = rules.scoring_mode == "points"
    players = len(view.in_round)
    lines = [f"{'card':<12}{'deck':>5}{'seen':>6}{'unseen':>7}  " + ("in hand " if points else "") + "what it does"]
    for card, count, seen, hidden in reference_rows(view):
        value = f"{C.HAND_VALUE[card]:>2} pts  " if points else ""  # R9.1: what it costs at round end
        lines.append(f"{C.LABEL[card]:<12}{count:>5}{seen:>6}{hidden:>7}  {value}{card_effect(card, rules, players)}")
    lines += [
        "",
        f"{len(rules.deck)} cards. Seen: played since the last shuffle, or in your hand. Unseen: "
        f"in the others' hands or the {view.draw_pile_size} in the draw pile.",
        f"Reaching {rules.target} or more loses the round (R5.1).",
    ]
    if rules.count(C.DOUBLE):
        lines.append("Double Play: " + "; ".join(["the total stays", *double_play_notes(rules)]) + ".")
    return "\n".join(lines)


class CardReferenceScreen(_Notice):
    """A modal over the table; Escape or Enter closes it."""

    def __init__(self, view: PlayerView):
        super().__init__("Card reference", reference_text(view), (("ok", "Close"),))
