"""The hand: a fixed row of card slots that keep their places.

A card stays in its slot while it is held, so its number key means the same
card all turn (Double Play included); a drawn card takes the slot that was
freed and is marked new. The slots are mounted once and updated in place.

The hand also keeps which slot is outlined (``cursor``), as its own state changed at once by
every key: Textual moves the focus later, so keys typed together (a paste, SSH, a fast typist)
read from the focus would act on the card outlined before the keys that came first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

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


@dataclass
class Layout:
    """One seat's slots for one round: what each slot holds and which got the card drawn last."""

    round: int
    slots: list[str | None]
    fresh: set[int] = field(default_factory=set)

    def copy(self) -> "Layout":
        return Layout(self.round, list(self.slots), set(self.fresh))


def hand_shape(size: int) -> str:
    """How ``size`` slots are laid out (a CSS class, ono99.tcss): up to four in a row as always,
    five in a row of narrower cards, six to ten in two rows (one-line cards at 80x24), so every
    card of a hand of any size the rules allow is on screen at 80x24, none cut or hidden."""
    return "" if size <= 4 else "hand-five" if size == 5 else "hand-rows"


class HandPane(Horizontal):
    """The hand on screen. Each seat keeps its own slots all round (hot seat: every human's own),
    so hiding the hand between turns does not re-sort it. The screen says which slot a play came
    from (``played``): that slot is freed and the drawn card goes into it, marked new, even when it
    is the same value as the card played; ``undo`` puts back the slots as they were before it."""

    def __init__(self, size: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.size_ = size
        if hand_shape(size):
            self.add_class(hand_shape(size))
        if size > 5:  # two rows: slots 1-5 over 6-10 (1-4 over 5-8 for eight, ...)
            self.styles.grid_size_columns = (size + 1) // 2
        self.layouts: dict[int, Layout] = {}  # seat -> its slots this round
        self.history: dict[int, list[Layout]] = {}  # seat -> its slots before each of its plays
        self.pending: dict[int, list[int]] = {}  # seat -> slots played from, not yet drawn into
        self.seat: int | None = None  # whose hand is on screen
        self.cursor: int | None = None  # the outlined slot (1-based): what Enter plays

    def compose(self) -> ComposeResult:
        for i in range(1, self.size_ + 1):
            yield CardWidget(i)

    _cards: list[CardWidget] | None = None

    @property
    def cards(self) -> list[CardWidget]:
        """The slots in order (mounted once: looked up once, not on every key and play)."""
        if not self._cards:
            self._cards = list(self.query(CardWidget))
        return list(self._cards)

    @property
    def slots(self) -> list[str | None]:
        layout = self.layouts.get(self.seat) if self.seat is not None else None
        return list(layout.slots) if layout else []

    @property
    def fresh(self) -> set[int]:
        layout = self.layouts.get(self.seat) if self.seat is not None else None
        return set(layout.fresh) if layout else set()

    def hide(self) -> None:
        """No hand on screen (hot seat: until its owner has the keyboard). The slots are kept."""
        self.seat = None
        self.cursor = None  # the next hand on screen starts from its best card
        for widget in self.cards:
            widget.show(None)

    def played(self, seat: int, index: int) -> None:
        """``seat`` plays the card in slot ``index`` (0-based): free that slot at the next draw."""
        layout = self.layouts.get(seat)
        if layout is None:
            return
        self.history.setdefault(seat, []).append(layout.copy())
        self.pending.setdefault(seat, []).append(index)

    def not_played(self, seat: int) -> None:
        """The play announced by ``played`` was refused: forget it."""
        if self.pending.get(seat):
            self.pending[seat].pop()
            self.history[seat].pop()

    def undo(self, seat: int) -> Callable[[], None]:
        """``seat``'s last play is being taken back: its slots as they were before it. Returns what
        puts them back as they are now, should the table refuse the undo after all."""
        kept = (self.layouts.get(seat), self.pending.get(seat), list(self.history.get(seat, [])))
        self.pending.pop(seat, None)
        if self.history.get(seat):
            self.layouts[seat] = self.history[seat].pop()

        def put_back() -> None:
            layout, pending, history = kept
            for store, value in ((self.layouts, layout), (self.pending, pending), (self.history, history)):
                if value is None:
                    store.pop(seat, None)
                else:
                    store[seat] = value
        return put_back

    def _layout(self, view: PlayerView) -> Layout:
        layout = self.layouts.get(view.seat)
        if layout is None or layout.round != view.round:  # a new deal: sorted, nothing marked new
            self.history.pop(view.seat, None)
            self.pending.pop(view.seat, None)
            layout = self.layouts[view.seat] = Layout(view.round, list(C.sort_hand(view.hand)))
            return layout
        slots = list(layout.slots)
        freed = self.pending.pop(view.seat, [])
        for i in freed:
            if i < len(slots):
                slots[i] = None
        if Counter(c for c in slots if c is not None) - Counter(view.hand):
            slots = list(layout.slots)  # the hint does not fit what is held: place by value only
            freed = []
        arranged, fresh = arrange(slots, view.hand)
        if freed or arranged != layout.slots:  # a play, or a change seen by value: the new mark moves
            layout.slots, layout.fresh = arranged, fresh
        return layout

    def show(self, view: PlayerView) -> None:
        layout = self._layout(view)
        self.seat = view.seat
        fresh = layout.fresh
        widgets = self.cards
        mine = view.my_turn
        playable99 = view.rules.ninety_nine_card_playable_on_tens
        for i, widget in enumerate(widgets):
            card = layout.slots[i] if i < len(layout.slots) else None
            if card is None:
                widget.show(None)
                continue
            reason = view.why_not(card) if mine else None
            widget.show(card, reason, busts=mine and reason is None and busts(view, card), new=i in fresh,
                        ninety_nine_playable=playable99)

    @property
    def outlined(self) -> CardWidget | None:
        """The card the cursor is on, if a card is shown there."""
        if self.cursor is None:
            return None
        widget = self.cards[self.cursor - 1] if 1 <= self.cursor <= len(self.cards) else None
        return widget if widget is not None and widget.card is not None else None

    def point(self, widget: CardWidget) -> None:
        """Outline ``widget``: the cursor now, and the focus (so its outline) at once too."""
        self.cursor = widget.index
        if self.screen.focused is not widget:
            self.screen.set_focus(widget)  # not widget.focus(): that lands after the keys queued

    def step(self, step: int) -> CardWidget | None:
        """Move the cursor ``step`` shown cards on (wrapping round) from where it is now."""
        shown = [w for w in self.cards if w.card is not None]
        if not shown:
            return None
        here = self.outlined
        i = shown.index(here) if here in shown else -step  # from none: the first card
        target = shown[(i + step) % len(shown)]
        self.point(target)
        return target

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
