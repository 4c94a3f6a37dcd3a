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
    # ``game``: the screen's one reach past the contract left (its ``game`` property: RemoteGame
    # stands in for it at a network seat) -- issue 19's structure item is not finished there
    extra = asked - _members() - {"game"}
    assert not extra, f"the table screen reads {sorted(extra)} of its table, outside table/contract.py"
    assert "remote" not in {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
