"""The order a seat sees its own hand in: derived from what the seat was told, never stored.

The engine keeps each hand in the order its cards came, and bots break ties by it, so that
order never changes (seeded games, records and benchmarks replay as they always did). A player
sees the hand as slots that keep their places (tui/widgets/hand.py): a card stays in its slot
while it is held, so a number key means the same card all turn. The slots follow from the
seat's own events (table/redact.py: a seat is told its own dealt hand and drawn cards):

- a deal: the hand dealt, sorted (C.sort_hand); nothing marked new;
- a play of the seat's: its slot is freed: the slot the player played it from when the front
  end said so (``played``, by play number; a Double Play's two plays each say theirs), else the
  last slot holding that card, as the pane always did for a play it was not told the slot of
  (arrange() keeps the first cards of a kind in place). Cards of one kind are alike, so which of
  two the player pressed is in no event: a table opened where nothing remembers it (another
  process) takes the last;
- the seat's draw: the card goes into the first free slot (the one just freed, unless a draw
  that did not happen, R4.4, left a gap before it), or after the last; it is marked new until
  the seat's next play. Nothing drawn (R4.4): the slot stays empty, nothing is marked new.

The table screen folds the events into a HandOrder as they come; a table opened on a game
under way (continue, resume, a crash, a reconnect, a hot-seat hand-over) folds the events it
is given the same way, so both show the same order by construction. Pure: no disk, no UI.
"""

from __future__ import annotations

from collections import Counter

from . import cards as C


def arrange(slots: list[str | None], hand) -> tuple[list[str | None], set[int]]:
    """``hand`` laid into ``slots`` by value alone: kept cards stay put (the first slots holding
    a card keep it), new ones fill the gaps. Returns the new slots and the indices that got a new
    card."""
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
    _trim(kept)
    return kept, fresh


def _trim(slots: list[str | None]) -> None:
    while slots and slots[-1] is None:
        slots.pop()


class HandOrder:
    """One seat's slots, folded from its own events (``feed``) in the order they happened.

    ``round``: the round the slots are for (None: no deal of this seat's seen yet). ``slots``: the
    card in each slot (None: an empty one). ``fresh``: the slot of the card drawn last, until the
    seat plays again. ``picks``: play number ("n" of a play event) -> the slot the front end said
    it was played from, kept so the same events fold the same way again (after an undo)."""

    def __init__(self, seat: int, picks: dict[int, int] | None = None) -> None:
        self.seat = seat
        self.round: int | None = None
        self.slots: list[str | None] = []
        self.fresh: set[int] = set()
        self.picks: dict[int, int] = dict(picks or {})
        self._seen = 0  # the number of the last play (anyone's) folded
        self._plays: list[int] = []  # this round's plays of the seat's, by number

    # -- what the front end says --------------------------------------------------------------
    def played(self, index: int, n: int) -> None:
        """The seat makes play number ``n`` (the table's seq + 1) with the card in slot ``index``
        (0-based): that play's event frees that slot."""
        self.picks[n] = index

    def not_played(self, n: int) -> None:
        """Play ``n`` announced by ``played`` was refused: forget it."""
        if n > self._seen:
            self.picks.pop(n, None)

    @property
    def pending(self) -> list[int]:
        """The slots announced by ``played`` whose plays have not come yet."""
        return [i for n, i in self.picks.items() if n > self._seen]

    # -- what the seat was told ------------------------------------------------------------------
    def feed(self, events) -> "HandOrder":
        for event in events:
            kind = event.get("type")
            if kind == "deal":
                self._deal(event)
                continue
            if kind == "play":
                self._seen = max(self._seen, event.get("n") or 0)
            if event.get("seat") != self.seat or self.round is None:
                continue
            if kind == "play" and event.get("round", self.round) == self.round:
                self._play(event)
            elif kind == "draw" and not event.get("hidden"):
                self._draw(event.get("card"))
        return self

    def _deal(self, event: dict) -> None:
        self.round = event.get("round")
        hand = event.get("hand") if self.seat in event.get("seats", ()) else ()
        self.slots = list(C.sort_hand(hand or ()))
        self.fresh = set()
        self._plays = []
        self.picks = {n: i for n, i in self.picks.items() if n > self._seen}  # the rounds before are done

    def _play(self, event: dict) -> None:
        card, n = event["card"], event.get("n")
        self.fresh = set()
        told = self.picks.get(n)
        if told is not None and 0 <= told < len(self.slots) and self.slots[told] == card:
            index = told
        else:
            index = next((i for i in range(len(self.slots) - 1, -1, -1) if self.slots[i] == card), None)
            self.picks.pop(n, None)
        if n is not None:
            self._plays.append(n)
        if index is None:  # not a card these slots hold (events missing): fit() mends it by value
            return
        self.slots[index] = None
        _trim(self.slots)

    def _draw(self, card: str | None) -> None:
        if card is None:  # nothing to draw (R4.4): the freed slot stays empty
            return
        index = next((i for i, c in enumerate(self.slots) if c is None), len(self.slots))
        if index == len(self.slots):
            self.slots.append(card)
        else:
            self.slots[index] = card
        self.fresh = {index}

    # -- the hand as it stands ---------------------------------------------------------------------
    def fit(self, round_no: int, hand) -> "HandOrder":
        """Make the slots hold ``hand``, the seat's hand in round ``round_no`` now (its view's).
        Where the events folded account for it, nothing changes. Where they do not (the round's
        deal was not among them: a game opened with only its latest events; a hand set by hand),
        a new round's hand is sorted, and a changed hand is laid in by value (arrange)."""
        if self.round != round_no:
            self.round, self.slots, self.fresh = round_no, list(C.sort_hand(hand)), set()
            self._plays = []
        elif Counter(c for c in self.slots if c is not None) != Counter(hand):
            slots, fresh = arrange(self.slots, hand)
            if slots != self.slots:
                self.slots, self.fresh = slots, fresh
        return self

    def rebuilt(self, events) -> "HandOrder":
        """This seat's order folded afresh from ``events`` (the game was rewound by an undo, or a
        reconnect gave a new list), with the slots the player said they played from. If the
        events hold no deal for this seat, they cannot place anything: this order is kept."""
        fresh = HandOrder(self.seat, self.picks).feed(events)
        if fresh.round is None:
            return self
        fresh.picks = {n: i for n, i in fresh.picks.items() if n in fresh._plays or n > fresh._seen}
        return fresh


def hand_order(events, seat: int, round_no: int | None = None, hand=None,
               picks: dict[int, int] | None = None) -> HandOrder:
    """The slots ``seat`` sees, from its own events (as table/redact.py gives them to it), fitted
    to its hand in round ``round_no`` when they are given (a view's ``round`` and ``hand``).
    ``picks``: which slot each of its plays came from, where the front end knows it."""
    order = HandOrder(seat, picks).feed(events)
    if round_no is not None and hand is not None:
        order.fit(round_no, hand)
    return order
