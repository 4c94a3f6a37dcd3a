"""The one declared table contract (table/contract.py): the local table session and a network seat
both implement it, and the table screen reads a table only through it."""

import ast
import inspect
from pathlib import Path

from ono99_tui.engine.record import SeatSpec
from ono99_tui.net.protocol import view_to_dict
from ono99_tui.net.remote import RemoteTable
from ono99_tui.table import TableSession
from ono99_tui.table.contract import Table


def _members() -> set[str]:
    return {n for n in vars(Table) if not n.startswith("_")} | set(Table.__annotations__)


def _tables():
    session = TableSession([SeatSpec("Ann"), SeatSpec("Bob", "bot:easy")], seed=1)
    state = {"view": view_to_dict(session.view_for(0)), "seq": 0, "events": [], "full": True}
    return session, RemoteTable(client=None, table_id=1, seat=0, first_state=state)


def test_the_session_and_a_network_seat_both_implement_the_contract():
    session, remote = _tables()
    for table in (session, remote):
        assert isinstance(table, Table)
        missing = [m for m in _members() if not hasattr(table, m)]
        assert not missing, (type(table).__name__, missing)
    # their methods take what the contract says they take
    for name in ("view_for", "events_for", "submit", "autosave", "subscribe", "next_step"):
        want = list(inspect.signature(getattr(Table, name)).parameters)
        for table in (session, remote):
            got = list(inspect.signature(getattr(type(table), name)).parameters)
            assert got[:len(want)] == want, (type(table).__name__, name, got, want)
    # capabilities, not kinds: the network seat's server runs the bots and keeps the save
    assert (session.runs_bots, session.saves_here) == (True, True)
    assert (remote.runs_bots, remote.saves_here, remote.can_save_as) == (False, False, False)
    assert session.away == frozenset() and remote.away == set()


def test_the_table_screen_asks_a_table_only_what_the_contract_declares():
    import ono99_tui.tui.screens.game as game

    tree = ast.parse(Path(game.__file__).read_text())
    asked = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
             and isinstance(node.value, ast.Attribute) and node.value.attr == "table"
             and isinstance(node.value.value, ast.Name) and node.value.value.id == "self"}
    extra = asked - _members()
    assert not extra, f"the table screen reads {sorted(extra)} of its table, outside table/contract.py"
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert "remote" not in attrs and "game" not in attrs  # no fake game beside the contract, no remote branch


def test_a_network_seat_answers_round_plays_and_standings_as_the_session_does():
    """What the screen reads at a round's end and the game's end (round_plays, standings) comes
    from the events a seat was told at a network table: the same answers as the game itself."""
    for seed in range(6):
        session = TableSession([SeatSpec("Ann", "bot:easy"), SeatSpec("Bob", "bot:random"),
                                SeatSpec("Cy", "bot:medium")], seed=seed)
        session.play_bots()
        assert session.over
        state = {"view": view_to_dict(session.view_for(1)), "seq": session.seq,
                 "events": session.events_for(1), "full": True}
        remote = RemoteTable(client=None, table_id=1, seat=1, first_state=state)
        assert remote.standings() == session.standings() == session.game.standings()
        assert remote.event_count == session.event_count and remote.rules == session.rules
        rounds = session.game.round_no
        assert rounds >= 2
        for r in range(1, rounds + 1):
            assert remote.round_plays(r) == session.round_plays(r) == tuple(session.game.round_plays[r - 1])
            assert remote.round_plays(r)  # every round had plays
        assert remote.round_plays(rounds + 1) == session.round_plays(rounds + 1) == ()


async def test_a_failure_while_reading_the_tables_messages_ends_the_seat_with_why_never_a_frozen_screen():
    """A play-tester's host screen froze for good while the server played on: the seat's reader
    task (which nobody awaits) died silently. Any failure there now reaches on_lost, with why."""
    import asyncio

    session, remote = _tables()

    class Broken:
        async def recv_or_ping(self):
            return {"type": "state", "table": 1}  # no "view": reading it fails

        def close(self):
            pass

    remote.client = Broken()
    lost = []
    remote.on_lost = lambda why, kind: lost.append((why, kind))
    remote.start()
    await asyncio.wait_for(remote._reader, 10)
    # ("failed": the failure is this client's, so the seat the server keeps is not forgotten)
    assert lost and lost[0][1] == "failed" and "KeyError" in lost[0][0], lost
