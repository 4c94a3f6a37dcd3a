"""The cards of O'NO 99 (R1).

Cards of one kind are indistinguishable, so a card is just its token: a short
string that is also how it is written in records and on the command line.
"""

from __future__ import annotations

NUMBERS = ("2", "3", "4", "5", "6", "7", "8", "9")
TEN = "10"
MINUS_TEN = "-10"
HOLD = "hold"
REVERSE = "reverse"
DOUBLE = "double"
NINETY_NINE = "99"

ALL_CARDS = NUMBERS + (TEN, MINUS_TEN, HOLD, REVERSE, DOUBLE, NINETY_NINE)

#: Change to the running total when played (R1). A 99 played under R7.2 adds 0.
EFFECT: dict[str, int] = {n: int(n) for n in NUMBERS}
EFFECT.update({TEN: 10, MINUS_TEN: -10, HOLD: 0, REVERSE: 0, DOUBLE: 0, NINETY_NINE: 0})

#: Value of a card left in hand at round end (R1, R9.1).
HAND_VALUE: dict[str, int] = {n: int(n) for n in NUMBERS}
HAND_VALUE.update({TEN: 10, MINUS_TEN: 15, HOLD: 15, REVERSE: 15, DOUBLE: 15, NINETY_NINE: 20})

#: Cards that add to the total; only these can bust (R5.4).
ADDERS = frozenset(NUMBERS + (TEN,))

#: Cards a player may draw to choose the first dealer (R2.2).
HIGH_CARD_DRAW = frozenset(NUMBERS + (TEN,))

LABEL: dict[str, str] = {n: n for n in NUMBERS}
LABEL.update(
    {
        TEN: "10",
        MINUS_TEN: "Minus Ten",
        HOLD: "Hold",
        REVERSE: "Reverse",
        DOUBLE: "Double Play",
        NINETY_NINE: "99",
    }
)

#: Other spellings accepted when a person types a card.
ALIASES: dict[str, str] = {
    "ten": TEN,
    "t": TEN,
    "minus10": MINUS_TEN,
    "minus-ten": MINUS_TEN,
    "minus_ten": MINUS_TEN,
    "m": MINUS_TEN,
    "h": HOLD,
    "r": REVERSE,
    "rev": REVERSE,
    "d": DOUBLE,
    "dbl": DOUBLE,
    "double-play": DOUBLE,
    "double_play": DOUBLE,
    "doubleplay": DOUBLE,
    "ninety-nine": NINETY_NINE,
    "ono99": NINETY_NINE,
}

#: Order used to sort a hand for display: adders by value, then the helpers.
SORT_KEY: dict[str, int] = {card: i for i, card in enumerate(ALL_CARDS)}


def parse_card(text: str) -> str:
    """Return the token for ``text``, or raise ValueError naming what is allowed."""
    t = text.strip().lower()
    if t in EFFECT:
        return t
    if t in ALIASES:
        return ALIASES[t]
    raise ValueError(f"unknown card {text.strip()!r} (cards are: {', '.join(ALL_CARDS)})")


def sort_hand(cards) -> list[str]:
    return sorted(cards, key=SORT_KEY.__getitem__)
