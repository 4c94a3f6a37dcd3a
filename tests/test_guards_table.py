"""The table session's turn, bot and undo guards, where mutants of table/session.py survived the
suite (benchmarks/mutation.py, issue 25): who a bot decides from, whose undo is refused and why,
the first of two plays owed taken back, the save told that undo was used."""

import random

import pytest

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.engine.view import PlayerView
from ono99_tui.table import BotTurn, HumanTurn, NotYourTurn, TableError, TableSession
from tests.test_table_session import SHORT, _undoable, first_legal, humans_vs_bots


def test_a_bot_decides_from_its_own_view_and_only_a_test_oracle_from_the_whole_game():
    """Privacy (the table contract): a player's bot never gets the game (every hand, the pile); only the
    test-only oracle levels, which exist to measure bots against, do."""
    table = TableSession([SeatSpec("You"), SeatSpec("Bo", "bot:easy"), SeatSpec("Or", "bot:oracle")], SHORT,
                         seed=4, allow_oracle=True)
    given = {}

    def recording(seat):
        def mover(what, who):
            given[seat] = (what, who)
            return table.game.legal_plays()[0]
        return mover

    table._movers = {1: recording(1), 2: recording(2)}
    seen = set()
    for _ in range(60):
        if table.over or seen == {1, 2}:
            break
        step = table.next_step()
        if isinstance(step, HumanTurn):
            assert step.seat == 0 and step.seq == table.seq
            table.submit(0, first_legal(table))
            continue
        assert isinstance(step, BotTurn) and step.seat == table.game.current and step.seq == table.seq
        card = step.decide()
        what, who = given.pop(step.seat)
        assert who == step.seat and card == table.game.legal_plays()[0]
        if step.seat == 1:  # a snapshot of its own view: no hands, no pile
            assert isinstance(what.view(1), PlayerView) and what is not table.game
            assert not hasattr(what, "hands") and not hasattr(what, "draw")
            assert list(what.view(1).hand) == list(table.game.hands[1])
        else:
            assert what is table.game  # the oracle: the whole game, on the table's own thread
        seen.add(step.seat)
        table.submit(step.seat, card, step.seq)
    assert seen == {1, 2}, "both bots decided"


def test_bot_job_with_no_bot_to_move_says_so():
    table = TableSession(humans_vs_bots(), SHORT, seed=6)
    table.play_bots()
    assert table.current == 0
    with pytest.raises(TableError, match="^no bot is to move$"):
        table.bot_job()


def test_undo_is_refused_with_two_humans_or_switched_off_even_on_your_turn_after_a_play():
    """Not only not offered (may_undo): undo() itself refuses, nothing changed."""
    for seed in range(40):
        two = TableSession(humans_vs_bots(2, ("easy",)), SHORT, seed=seed)
        two.play_bots()
        seat = two.current
        two.submit(seat, first_legal(two))
        while not two.over and two.current != seat:
            two.play_bots()
            if not two.over and two.current not in (seat, None) and not two.bot_to_move:
                two.submit(two.current, first_legal(two))  # the other human
        if two.current == seat and any(s == seat for s, _ in two.game.round_plays[-1]) and not two.over:
            break
    else:
        raise AssertionError("no seed brought a human back to move in the same round")
    plays = list(two.game.plays)
    assert not two.may_undo(seat)
    with pytest.raises(TableError, match="^undo is only for a game against bots"):
        two.undo(seat)
    assert two.game.plays == plays and not two.undo_used

    for seed in range(40):
        off = TableSession(humans_vs_bots(), SHORT, seed=seed, undo=False)
        off.play_bots()
        off.submit(0, first_legal(off))
        off.play_bots()
        if off.current == 0 and any(s == 0 for s, _ in off.game.round_plays[-1]):
            break
    else:
        raise AssertionError("no seed brought the human back to move in the same round")
    plays = list(off.game.plays)
    assert not off.may_undo(0)
    with pytest.raises(TableError, match="^undo is off in your settings$"):
        off.undo(0)
    assert off.game.plays == plays and not off.undo_used


def test_undo_out_of_turn_is_refused_with_its_reason():
    for seed in range(40):
        table = _undoable(seed)
        if table is None:
            continue
        table.submit(0, first_legal(table))  # now a bot is to move, the human has played this round
        if table.over or table.current == 0:
            continue
        plays = list(table.game.plays)
        # still offered (the footer's key does not come and go with each turn), refused until then
        assert table.may_undo(0) and table.undo_refused(0) == "you can undo when it is your turn"
        with pytest.raises(NotYourTurn, match="^you can undo when it is your turn$"):
            table.undo(0)
        assert table.game.plays == plays
        return
    raise AssertionError("no seed gave an undo out of turn")


def test_undo_takes_back_the_first_of_two_plays_owed():
    """R6: after a Double Play the next player owes two plays. Having made the first, it is still
    their turn: undo takes back that one (the very last play), not an earlier one."""
    for seed in range(300):
        table = TableSession([SeatSpec("You"), SeatSpec("Bo", "bot:easy")], DEFAULT, seed=seed)
        rng = random.Random(seed)
        for _ in range(200):
            table.play_bots()
            if table.over:
                break
            g = table.game
            if g.owed == 2 and g.round_plays[-1]:
                before, hand = list(g.plays), sorted(g.hands[0])
                card = rng.choice(g.legal_plays())
                table.submit(0, card)
                if table.over or table.current != 0:
                    break  # (that card ended the round)
                assert table.game.plays[-1] == (0, card) and table.may_undo(0)
                table.undo(0)
                assert table.game.plays == before and sorted(table.game.hands[0]) == hand
                assert table.current == 0 and table.game.owed == 2
                return
            table.submit(0, rng.choice(g.legal_plays()))
    raise AssertionError("no seed gave the human two plays to make")


def test_an_undo_is_told_to_the_save():
    """The record says the game used undo (meta.undo_used: statistics and listings show it)."""
    class Save:
        undo_used = read_only = False

        def open(self, game=None):
            return None

        def save(self, game):
            return None

        def close(self):
            pass

    for seed in range(40):
        table = _undoable(seed)
        if table is None:
            continue
        save = Save()
        table.attach_save(save)
        assert not save.undo_used
        table.undo(0)
        assert save.undo_used is True and table.undo_used is True
        return
    raise AssertionError("no undoable table")


def test_each_refused_play_says_exactly_why():
    """A refusal's message is what a player (or a client's author) reads: each names the problem."""
    table = TableSession(humans_vs_bots(), SHORT, seed=6)
    table.play_bots()
    assert table.current == 0
    n, seq = table.game.n, table.seq
    with pytest.raises(TableError, match=f"^no seat {n} at this table$"):
        table.submit(n, first_legal(table))  # one past the last seat
    with pytest.raises(TableError, match="^no seat 'x' at this table$"):
        table.submit("x", first_legal(table))
    with pytest.raises(TableError, match=r"^a card is a string such as '7' or 'hold', not 5$"):
        table.submit(0, 5)
    with pytest.raises(TableError, match=f"^that play was for move {seq + 3}, but the table is at move {seq + 1}$"):
        table.submit(0, first_legal(table), seq + 2)
    not_held = next(c for c in ("2", "3", "4", "5", "6", "7", "8", "9", "hold", "reverse")
                    if c not in table.game.hands[0])
    with pytest.raises(TableError) as illegal:
        table.submit(0, not_held)
    assert str(illegal.value) == f"H0 cannot play {not_held}: {table.game.why_not(not_held)}"
    assert table.seq == seq
    while not table.over:
        table.submit(table.current, first_legal(table))
        table.play_bots()
    with pytest.raises(TableError, match="^the game is over$"):
        table.submit(0, "5")


def test_a_deal_tells_every_seat_and_a_spectator_the_hand_size_and_whether_the_deck_was_stacked():
    """Public in a deal (redact.event_for): who was dealt to, how many cards each, and that the
    deck was a stacked one (the log says "from a stacked deck"); a hand only to its own seat."""
    from ono99_tui.engine import Game
    from ono99_tui.table import SPECTATOR
    from ono99_tui.table.redact import events_for

    plain = Game(["Ann", "Bo", "Cy"], DEFAULT, 5)
    deck = list(reversed(plain.draw)) + [c for h in reversed(plain.hands) for c in reversed(h)]
    for decks, stacked in (({}, False), ({1: tuple(sorted(deck))}, True)):
        table = TableSession([SeatSpec("Ann"), SeatSpec("Bo"), SeatSpec("Cy")], DEFAULT, seed=5, decks=decks)
        for seat in (0, 1, 2, SPECTATOR):
            (deal,) = [e for e in events_for(table.game.events, seat) if e["type"] == "deal"]
            assert deal["hand_size"] == DEFAULT.hand_size == len(table.game.hands[0])
            assert deal.get("stacked", False) is stacked
            assert deal.get("hand") == (None if seat is SPECTATOR else list(table.game.hands[seat]))


def test_a_draw_is_public_as_a_fact_and_private_as_a_card():
    from ono99_tui.table import SPECTATOR
    from ono99_tui.table.redact import event_for

    table = TableSession(humans_vs_bots(), SHORT, seed=6)
    table.play_bots()
    draws = [e for e in table.game.events if e["type"] == "draw" and e["card"] is not None]
    assert draws
    for e in draws:
        assert event_for(e, e["seat"]) == e
        for other in {0, 1, 2, 3, SPECTATOR} - {e["seat"]}:
            assert event_for(e, other) == {"type": "draw", "seat": e["seat"], "hidden": True}


def test_undo_before_your_first_play_of_the_round_says_why():
    table = TableSession(humans_vs_bots(), SHORT, seed=6)
    table.play_bots()
    assert table.current == 0 and not any(s == 0 for s, _ in table.game.round_plays[-1])
    with pytest.raises(TableError, match=r"^nothing to undo: you have not played in this round yet \(undo "
                                         r"never reaches back into a finished round\)$"):
        table.undo(0)


def test_a_spectators_view_is_the_same_whichever_seat_it_is_built_from():
    """redact.view_for builds a spectator's view from seat 0's with no seat and no hand: that is
    only right if nothing else in a view depends on the seat (docs/testing.md, table-redact)."""
    import dataclasses

    from ono99_tui.engine import Game
    from ono99_tui.table import SPECTATOR
    from ono99_tui.table.redact import view_for

    for seed in range(20):
        g = Game(["Ann", "Bo", "Cy", "Di"], SHORT, seed)
        rng = random.Random(seed)
        while not g.over:
            views = {dataclasses.replace(PlayerView.of(g, k), seat=-1, hand=()) for k in range(g.n)}
            assert views == {view_for(g, SPECTATOR)}
            # a table telling every seat of one change reuses one view's public fields for the others
            for k in range(g.n):
                like = PlayerView.of(g, k)
                for seat in (*range(g.n), SPECTATOR):
                    assert view_for(g, seat, like) == view_for(g, seat)
            g.play(rng.choice(g.legal_plays()))
