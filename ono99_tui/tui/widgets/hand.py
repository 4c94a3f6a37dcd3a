"""The hand: a fixed row of card slots that keep their places.

A card stays in its slot while it is held, so its number key means the same
card all turn (Double Play included); a drawn card takes the slot that was
freed and is marked new. The slots are mounted once and updated in place.
"""

from __future__ import annotations

from collections import Counter

from textual.app import ComposeResult
from textual.containers import Horizontal

from ...engine import cards as C
from ...engine.view import PlayerView
from .card import CardWidget


def arrange(slots: list[str | None], hand) -> tuple[list[str | None], set[int]]:
    """``hand`` laid into ``slots``: kept cards stay put, new ones fill the gaps. Returns the new
    slots and the indices that got a new card."""
    left = Counter(hand)
    kept: list[str | None] = []
    for card in slots:
        if card is not None and left[card] > 0:
            left[card] -= 1
            kept.append(card)
        else:
            kept.append(None)
    incoming = []
    for card in hand:
        if left[card] > 0:
            left[card] -= 1
            incoming.append(card)
    fresh = set()
    for i, card in enumerate(kept):
        if card is None and incoming:
            kept[i] = incoming.pop(0)
            fresh.add(i)
    while incoming:
        fresh.add(len(kept))
        kept.append(incoming.pop(0))
    while kept and kept[-1] is None:
        kept.pop()
    return kept, fresh


def busts(view: PlayerView, card: str) -> bool:
    return card in C.ADDERS and view.total + C.EFFECT[card] >= view.rules.target


class HandPane(Horizontal):
    def __init__(self, size: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.size_ = size
        self.slots: list[str | None] = []
        self.owner: tuple[int, int] | None = None  # (seat, round) the slots were laid out for
        self.fresh: set[int] = set()  # slots holding the card drawn last (marked until the hand changes)

    def compose(self) -> ComposeResult:
        for i in range(1, self.size_ + 1):
            yield CardWidget(i)

    @property
    def cards(self) -> list[CardWidget]:
        return list(self.query(CardWidget))

    def hide(self) -> None:
        """No hand on screen (hot-seat: until its owner has the keyboard)."""
        self.owner = None
        self.slots, self.fresh = [], set()
        for widget in self.cards:
            widget.show(None)

    def show(self, view: PlayerView) -> None:
        owner = (view.seat, view.round)
        if owner != self.owner:  # a new deal or another player: sorted, nothing marked new
            self.slots, self.fresh = list(C.sort_hand(view.hand)), set()
            self.owner = owner
        else:
            slots, fresh = arrange(self.slots, view.hand)
            if slots != self.slots:
                self.slots, self.fresh = slots, fresh
        fresh = self.fresh
        widgets = self.cards
        mine = view.my_turn
        playable99 = view.rules.ninety_nine_card_playable_on_tens
        for i, widget in enumerate(widgets):
            card = self.slots[i] if i < len(self.slots) else None
            if card is None:
                widget.show(None)
                continue
            reason = view.why_not(card) if mine else None
            widget.show(card, reason, busts=mine and reason is None and busts(view, card), new=i in fresh,
                        ninety_nine_playable=playable99)

    def has_safe_card(self) -> bool:
        return any(w.card is not None and w.reason is None and not w.busts for w in self.cards)

    def best_focus(self) -> CardWidget | None:
        """A safe playable card if there is one, else a playable one."""
        shown = [w for w in self.cards if w.card is not None]
        for want in (lambda w: w.reason is None and not w.busts, lambda w: w.reason is None):
            for widget in shown:
                if want(widget):
                    return widget
        return shown[0] if shown else None
