"""Which cards may be played (R4.5, R5.3, R6.3, R7), as pure functions.

They take only what a player can see, so the game, player views, bots and
the UI all ask the same question the same way.
"""

from __future__ import annotations

from . import cards as C
from .rules import Rules

_ADDERS = C.ADDERS
_EFFECT = C.EFFECT
_SORT = C.SORT_KEY


def _candidates(rules: Rules, hand, total: int, first_of_two: bool, ninety_nine_used: bool) -> set[str]:
    cands = set(hand)
    if C.NINETY_NINE in cands and not (
        rules.ninety_nine_card_playable_on_tens and total % 10 == 0 and not ninety_nine_used
    ):
        cands.discard(C.NINETY_NINE)
    if first_of_two and rules.double_play_no_double_on_first:
        cands.discard(C.DOUBLE)
    return cands


def legal_plays(rules: Rules, hand, total: int, first_of_two: bool, ninety_nine_used: bool) -> list[str]:
    """Distinct cards that may be played now, sorted for display."""
    cands = _candidates(rules, hand, total, first_of_two, ninety_nine_used)
    if not cands:
        return []
    room = rules.target - total
    for c in cands:
        if c not in _ADDERS or _EFFECT[c] < room:
            break
    else:
        # R5.3: every legal card busts.
        if rules.forced_bust_plays_lowest:
            return [min(cands, key=_EFFECT.__getitem__)]
    return sorted(cands, key=_SORT.__getitem__)


def busts(rules: Rules, card: str, total: int) -> bool:
    return card in _ADDERS and total + _EFFECT[card] >= rules.target


def why_not(rules: Rules, hand, total: int, first_of_two: bool, ninety_nine_used: bool, card: str) -> str | None:
    """None when ``card`` may be played now, else the reason in a player's words."""
    if card not in hand:
        return f"there is no {C.LABEL.get(card, card)} in this hand"
    if card == C.NINETY_NINE:
        if not rules.ninety_nine_card_playable_on_tens:
            return "a 99 card cannot be played; it stays in your hand (R7.1)"
        if total % 10 != 0:
            return f"a 99 may only be played when the total ends in 0; it is {total} (R7.2)"
        if ninety_nine_used:
            return "only one 99 may be played in a turn (R7.2)"
    if card == C.DOUBLE and first_of_two and rules.double_play_no_double_on_first:
        return "a Double Play cannot be the first of your two plays (R6.3)"
    legal = legal_plays(rules, hand, total, first_of_two, ninety_nine_used)
    if card not in legal:
        low = legal[0]
        return f"every card you can play busts, so you must play your lowest, {C.LABEL[low]} (R5.3)"
    return None
