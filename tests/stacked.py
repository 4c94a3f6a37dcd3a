"""Build games on stacked decks: say who holds what and what lies on the pile."""

from __future__ import annotations

from collections import Counter

from ono99_tui.engine import Game, Rules
from ono99_tui.engine.rules import DEFAULT


def stacked_deck(rules: Rules, hands: list[list[str]], draw: list[str] = ()) -> list[str]:
    """A full deck order that deals ``hands[i]`` to the i-th player from the dealer's left
    and puts ``draw`` (top first) on top of the draw pile; the rest follows in canonical order."""
    k = len(hands)
    size = rules.hand_size
    assert all(len(h) == size for h in hands), "every hand needs hand_size cards"
    dealt = [hands[m][j] for j in range(size) for m in range(k)]
    rest = Counter(rules.deck)
    rest.subtract(dealt)
    rest.subtract(draw)
    assert not -rest, f"more cards than the deck has: {dict(-rest)}"
    tail = []
    for card in rules.deck:
        if rest[card] > 0:
            rest[card] -= 1
            tail.append(card)
    return dealt + list(draw) + tail


def game_with(hands, draw=(), rules: Rules = DEFAULT, names=None, more_rounds=None, seed=0) -> Game:
    """Seat 0 plays first (the last seat deals); seat i holds ``hands[i]``."""
    names = names or ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"][: len(hands)]
    decks = {1: stacked_deck(rules, hands, list(draw))}
    for rnd, deck in (more_rounds or {}).items():
        decks[rnd] = deck
    return Game(names, rules, seed=seed, first_dealer=len(names) - 1, decks=decks)


def set_total(g: Game, total: int) -> None:
    """Put the running total where a test needs it (the engine never does this itself)."""
    g.total = total
    g._settle()  # recompute the legal plays for the new position
