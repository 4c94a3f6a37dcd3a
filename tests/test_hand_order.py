"""The order a seat sees its hand in (engine/hand_order.py), derived from its own events.

The reference is the rule the hand pane kept its slots by before the order was derived
(``OldPane`` below: tui/widgets/hand.py as of 6eede2d, view by view, told which slot each play
came from): random games under random house rules (hand sizes 1-10, small decks that reshuffle
and run dry under R4.4, Double Plays, undos) must show the same slots and new mark live, and the
order derived afresh from the events, as a table opened on the game finds them, must be that too.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ono99_tui.engine import Game, IllegalPlay
from ono99_tui.engine import cards as C
from ono99_tui.engine.hand_order import HandOrder, arrange, hand_order
from ono99_tui.engine.record import Record, undo_to
from ono99_tui.engine.rules import DEFAULT, Rules
from ono99_tui.table import redact
from tests.stacked import game_with
from tests.strategies import tables


class OldPane:
    """One seat's slots as the hand pane kept them before they were derived (6eede2d): on each
    show, the slot the screen said a play came from is freed and the hand laid in by value."""

    def __init__(self) -> None:
        self.round = None
        self.slots: list = []
        self.fresh: set = set()
        self.pending: list[int] = []
        self.history: list = []

    def played(self, index: int) -> None:
        self.history.append((self.round, list(self.slots), set(self.fresh)))
        self.pending.append(index)

    def undo(self) -> None:
        self.pending = []
        if self.history:
            self.round, self.slots, self.fresh = self.history.pop()

    def show(self, round_no: int, hand) -> None:
        if self.round != round_no:
            self.history, self.pending = [], []
            self.round, self.slots, self.fresh = round_no, list(C.sort_hand(hand)), set()
            return
        slots = list(self.slots)
        freed, self.pending = self.pending, []
        for i in freed:
            if i < len(slots):
                slots[i] = None
        if Counter(c for c in slots if c is not None) - Counter(hand):
            slots, freed = list(self.slots), []
        arranged, fresh = arrange(slots, hand)
        if freed or arranged != self.slots:
            self.slots, self.fresh = arranged, fresh


def _last_of_its_kind(slots, index) -> bool:
    return slots[index] not in slots[index + 1:]


def _check(game: Game, seat: int, live: HandOrder, old: OldPane, canonical: bool, derive: bool = True) -> None:
    """The seat's hand shown (as the pane shows it after each change): the live order is the old
    pane's; and (``derive``) the order derived afresh from all the seat's events is the live one."""
    view = game.view(seat)
    old.show(view.round, view.hand)
    before = (list(live.slots), set(live.fresh))
    live.fit(view.round, view.hand)
    assert (live.slots, live.fresh) == before, "the events folded did not account for the hand"
    assert (live.slots, live.fresh) == (old.slots, old.fresh), "the live slots left the pane's rule"
    if not derive:
        return
    seen = redact.events_for(game.events, seat)
    derived = hand_order(seen, seat, view.round, view.hand, picks=live.picks)
    assert (derived.slots, derived.fresh) == (live.slots, live.fresh), "derived with the slots pressed"
    if canonical:  # every play this round was of the last card of its kind: nothing to remember
        bare = hand_order(seen, seat, view.round, view.hand)
        assert (bare.slots, bare.fresh) == (live.slots, live.fresh), "derived from the events alone"


def _play_out(rules: Rules, names, seed: int, dealer, rng: random.Random, plays: int, undos: bool) -> Game:
    """Every seat a person choosing a random legal card from a random slot holding it; each seat's
    live order and the old pane followed after every change, and checked against each other and
    against the order derived from the events."""
    game = Game(names, rules, seed, first_dealer=dealer)
    seats = range(len(names))
    live = {s: HandOrder(s).feed(redact.events_for(game.events, s)) for s in seats}
    old = {s: OldPane() for s in seats}
    canonical = {s: True for s in seats}
    rounds = {s: game.round_no for s in seats}
    for s in seats:
        _check(game, s, live[s], old[s], True)
    for _ in range(plays):
        if game.over:
            break
        seat = game.current
        # (undo is for the one person at a table of bots: seat 0)
        if undos and seat == 0 and rng.random() < 0.15:
            undone = _undo(game, seat, live, old)
            if undone is not None:
                game = undone
                continue
        card = rng.choice(game.legal_plays())
        slots = live[seat].slots
        index = rng.choice([i for i, c in enumerate(slots) if c == card])
        n = len(game.plays) + 1
        live[seat].played(index, n)
        old[seat].played(index)
        if not _last_of_its_kind(slots, index):
            canonical[seat] = False
        events = game.play(card)
        derive = rng.random() < 0.2
        for s in seats:
            live[s].feed(redact.events_for(events, s))
            if game.round_no != rounds[s]:
                rounds[s], canonical[s] = game.round_no, True
            _check(game, s, live[s], old[s], canonical[s], derive)
    for s in seats:
        _check(game, s, live[s], old[s], canonical[s])
    return game


def _undo(game: Game, seat: int, live, old) -> Game | None:
    """Take back ``seat``'s last play of this round, as the table does (undo_to), if it may: the
    game rewound, each seat's order folded afresh from its events (the old pane puts back the
    slots it kept before that play); None when no undo can be made."""
    start = len(game.plays) - len(game.round_plays[-1])
    mine = [i for i in range(start, len(game.plays)) if game.plays[i][0] == seat]
    if not mine:
        return None
    try:
        game = undo_to(game, mine[-1])
    except IllegalPlay:  # too few cards to shuffle back (U3)
        return None
    old[seat].undo()
    for s in live:
        live[s] = live[s].rebuilt(redact.events_for(game.events, s))
        if s != seat:  # (undo is for one person against bots: no other seat's pane to put back)
            old[s].round, old[s].slots, old[s].fresh = live[s].round, list(live[s].slots), set(live[s].fresh)
            old[s].history, old[s].pending = [], []
        _check(game, s, live[s], old[s], False)
    return game


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.randoms(use_true_random=False), st.booleans())
def test_the_derived_order_is_what_the_pane_showed_after_random_plays(table, rng, undos):
    rules, names, seed, dealer = table
    _play_out(rules, names, seed, dealer, rng, plays=120, undos=undos)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.randoms(use_true_random=False), st.integers(2, 3), st.integers(0, 3),
       st.fixed_dictionaries({"deck_number_each": st.integers(0, 2), "deck_ten": st.integers(0, 6),
                              "deck_minus_ten": st.integers(0, 1), "deck_hold": st.integers(0, 3),
                              "deck_reverse": st.integers(0, 3), "deck_double_play": st.integers(0, 4),
                              "deck_ninety_nine": st.integers(0, 1)}))
def test_a_deck_barely_bigger_than_the_hands_reshuffles_and_runs_dry_and_the_order_follows(
        seed, rng, players, spare, deck):
    """Hands of the sizes the rules allow take nearly the whole deck: the pile is reshuffled
    often and a draw often cannot happen (R4.4), leaving gaps that later draws fill."""
    size = sum(deck.values()) + 7 * deck["deck_number_each"]
    hand_size = min(10, (size - spare) // players)
    assume(hand_size >= 1)
    rules = Rules(hand_size=hand_size, target=30, **deck)
    _play_out(rules, [f"P{i}" for i in range(players)], seed, 0, rng, plays=80, undos=False)


def test_a_game_opened_from_its_record_derives_the_slots_it_was_left_with():
    """As ono99 resume opens a save: the record replayed, events kept from the round before on."""
    rng = random.Random(5)
    for seed in range(30):
        game = _play_out(DEFAULT, ["You", "Bo", "Cy"], seed, None, rng, plays=rng.randint(1, 80), undos=False)
        record = Record.from_game(game)
        opened = record.replay(events_from_round=max(1, len(record.rounds) - 1))
        for seat in range(3):
            view = game.view(seat)
            live = hand_order(redact.events_for(game.events, seat), seat, view.round, view.hand)
            again = hand_order(redact.events_for(opened.events, seat), seat, view.round, view.hand)
            assert (again.slots, again.fresh) == (live.slots, live.fresh)


def test_the_reported_hand_comes_back_as_it_was_left():
    """Seat 0 holds 5 10 Hold Reverse sorted; plays slot 2 (10, draws a 10), 3 (Hold, draws a
    Reverse), 1 (5, draws a Double Play), 4 (Reverse, draws a Hold): Double Play, 10, Reverse,
    Hold, the Hold new; the engine's own order (10 Reverse Double Hold) is not it."""
    hands = [["hold", "10", "reverse", "5"], ["2", "3", "4", "6"]]
    draw = ["10", "2", "reverse", "3", "double", "4", "hold"]
    game = game_with(hands, draw)
    order = HandOrder(0).feed(redact.events_for(game.events, 0))
    assert order.slots == ["5", "10", "hold", "reverse"]
    for index in (1, 2, 0, 3):
        card = order.slots[index]
        order.played(index, len(game.plays) + 1)
        order.feed(redact.events_for(game.play(card), 0))
        if not game.over and game.current == 1:
            order.feed(redact.events_for(game.play(game.legal_plays()[0]), 0))
    assert order.slots == ["double", "10", "reverse", "hold"] and order.fresh == {3}
    assert game.hands[0] != order.slots  # the engine's order is left as it was
    bare = hand_order(redact.events_for(game.events, 0), 0)  # nothing remembered: the same
    assert (bare.slots, bare.fresh) == (order.slots, order.fresh)


def test_of_two_alike_cards_the_one_pressed_is_freed_and_without_it_the_last():
    hands = [["7", "10", "7", "hold"], ["2", "3", "4", "5"]]
    game = game_with(hands, ["9", "2"])
    seen = redact.events_for(game.events, 0)
    order = HandOrder(0).feed(seen)
    assert order.slots == ["7", "7", "10", "hold"]
    order.played(0, 1)  # the first 7
    events = redact.events_for(game.play("7"), 0)
    order.feed(events)
    assert order.slots == ["9", "7", "10", "hold"] and order.fresh == {0}
    assert hand_order(seen + events, 0, picks=order.picks).slots == ["9", "7", "10", "hold"]
    # which of the two was pressed is in no event: the last is taken, as arrange() keeps the first
    assert hand_order(seen + events, 0).slots == ["7", "9", "10", "hold"]


def test_a_draw_that_does_not_happen_leaves_the_slot_empty_and_the_next_card_fills_it():
    order = HandOrder(0).feed([{"type": "deal", "round": 1, "seats": [0, 1], "hand": ["3", "hold", "2"]}])
    assert order.slots == ["2", "3", "hold"]
    order.feed([{"type": "play", "n": 1, "round": 1, "seat": 0, "card": "3", "total": 3},
                {"type": "draw", "seat": 0, "card": None}])
    assert order.slots == ["2", None, "hold"] and order.fresh == set()
    order.played(2, 3)
    order.feed([{"type": "play", "n": 2, "round": 1, "seat": 1, "card": "4", "total": 7},
                {"type": "draw", "seat": 1, "hidden": True},
                {"type": "play", "n": 3, "round": 1, "seat": 0, "card": "hold", "total": 7},
                {"type": "draw", "seat": 0, "card": "9"}])
    assert order.slots == ["2", "9"] and order.fresh == {1}  # the earlier gap first, as the pane did


def test_without_the_rounds_deal_the_hand_is_sorted_and_then_followed():
    """A table given only its latest events (a long round at a server that sends the last 400):
    nothing places the cards, so they come sorted, as before, and follow from there."""
    order = hand_order([{"type": "play", "n": 9, "round": 3, "seat": 0, "card": "5", "total": 5},
                        {"type": "draw", "seat": 0, "card": "7"}], 0, 3, ("hold", "7", "2"))
    assert order.slots == ["2", "7", "hold"] and order.round == 3
    order.played(0, 11)
    order.feed([{"type": "play", "n": 11, "round": 3, "seat": 0, "card": "2", "total": 7},
                {"type": "draw", "seat": 0, "card": "8"}])
    assert order.fit(3, ("hold", "7", "8")).slots == ["8", "7", "hold"] and order.fresh == {0}
