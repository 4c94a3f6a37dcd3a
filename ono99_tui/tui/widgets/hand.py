"""The hand: a fixed row of card slots that keep their places.

A card stays in its slot while it is held, so its number key means the same
card all turn (Double Play included); a drawn card takes the slot that was
freed and is marked new. The slots are mounted once and updated in place.

The hand also keeps which slot is outlined (``cursor``), as its own state changed at once by
every key: Textual moves the focus later, so keys typed together (a paste, SSH, a fast typist)
read from the focus would act on the card outlined before the keys that came first.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal

from ...engine import cards as C
from ...engine.hand_order import HandOrder
from ...engine.view import PlayerView
from .card import CardWidget


def busts(view: PlayerView, card: str) -> bool:
    return card in C.ADDERS and view.total + C.EFFECT[card] >= view.rules.target


def hand_shape(size: int) -> str:
    """How ``size`` slots are laid out (a CSS class, ono99.tcss): up to four in a row as always,
    five in a row of narrower cards, six to ten in two rows (one-line cards at 80x24), so every
    card of a hand of any size the rules allow is on screen at 80x24, none cut or hidden."""
    return "" if size <= 4 else "hand-five" if size == 5 else "hand-rows"


class HandPane(Horizontal):
    """The hand on screen. Each seat keeps its own slots all round (hot seat: every human's own),
    so hiding the hand between turns does not re-sort it. The slots are a HandOrder per seat
    (engine/hand_order.py), folded from the seat's own events by the table screen: the one rule
    for a hand played here and a hand of a game opened under way. The screen says which slot a
    play came from (``played``): that slot is freed and the drawn card goes into it, marked new,
    even when it is the same value as the card played."""

    def __init__(self, size: int, orders: dict[int, HandOrder] | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.size_ = size
        if hand_shape(size):
            self.add_class(hand_shape(size))
        if size > 5:  # two rows: slots 1-5 over 6-10 (1-4 over 5-8 for eight, ...)
            self.styles.grid_size_columns = (size + 1) // 2
        # seat -> its slots this round (the screen's, fed with the seat's events as they come)
        self.orders: dict[int, HandOrder] = {} if orders is None else orders
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
    def pending(self) -> dict[int, list[int]]:
        """seat -> the slots announced by ``played`` whose plays have not come back yet."""
        return {seat: order.pending for seat, order in self.orders.items()}

    @property
    def slots(self) -> list[str | None]:
        order = self.orders.get(self.seat) if self.seat is not None else None
        return list(order.slots) if order else []

    @property
    def fresh(self) -> set[int]:
        order = self.orders.get(self.seat) if self.seat is not None else None
        return set(order.fresh) if order else set()

    def hide(self) -> None:
        """No hand on screen (hot seat: until its owner has the keyboard). The slots are kept."""
        self.seat = None
        self.cursor = None  # the next hand on screen starts from its best card
        for widget in self.cards:
            widget.show(None)

    def played(self, seat: int, index: int, n: int) -> None:
        """``seat`` makes play number ``n`` with the card in slot ``index`` (0-based): that slot
        is freed when the play comes back, and the drawn card goes into it."""
        self._order(seat).played(index, n)

    def not_played(self, seat: int, n: int) -> None:
        """The play announced by ``played`` was refused: forget it."""
        if seat in self.orders:
            self.orders[seat].not_played(n)

    def _order(self, seat: int) -> HandOrder:
        order = self.orders.get(seat)
        if order is None:
            order = self.orders[seat] = HandOrder(seat)
        return order

    def _layout(self, view: PlayerView) -> HandOrder:
        """The seat's slots, fitted to the hand its view holds (they agree unless the events that
        reached the screen do not account for it: then by value, engine/hand_order.py)."""
        return self._order(view.seat).fit(view.round, view.hand)

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
