"""The one declared table contract: what every front end may ask of a table and tell it.

TableSession (session.py: the game runs here) and net.remote.RemoteTable (a seat at a table a
server runs) both implement it; the table screen reads nothing else of a table. Where the two
differ, the table says so through a capability (``runs_bots``, ``saves_here``, ``can_save_as``,
``may_undo``), never through the front end asking which kind of table it has.

Views and events come out per seat: ``view_for(seat)`` and ``events_for(seat)`` never carry
another seat's hand, the pile order or someone else's drawn card (redact.py).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, runtime_checkable

from ..engine.view import PlayerView


@runtime_checkable
class Table(Protocol):
    # -- who sits here, and how things stand -----------------------------------------------
    humans: list[int]  # the seats played by people at this front end (hot seat: more than one)
    names: tuple[str, ...] | list[str]
    over: bool
    current: int | None  # whose move it is (None: the game is over)
    seq: int  # plays made so far: a play is submitted for this position
    away: frozenset[int] | set[int]  # seats whose player has lost the connection (local: none)
    watching: tuple[str, ...] | list[str]  # who watches from elsewhere, as the players may see it
    status: str | None  # the connection's state when it is what the player must know ("Reconnecting...")
    rules: Any  # engine.rules.Rules in force at this table
    event_count: int  # events so far (events_for(seat, since) reads from any of them)

    # -- capabilities: what this table does itself ---------------------------------------------
    runs_bots: bool  # True: its bots are run by this front end (next_step gives their jobs)
    saves_here: bool  # True: this front end keeps the save (autosave, Save as); else the server
    plays_again: bool  # True: "Play again" at the game's end can deal this table afresh here
    can_save_as: bool  # a copy under a name of the player's choice can be written now
    undo_allowed: bool
    undo_used: bool  # an undo was made in this game (its save is marked)
    record_stats: bool
    save: Any  # the save it keeps (store.session.SaveSession), or None
    unsaved_plays: int  # plays kept nowhere (its save opened read-only): leaving loses them
    # saves_here: where the front end runs a save that must not hold up a frame (None: at once)
    save_later: Callable[[Callable[[], str | None]], None] | None

    # -- per-seat views ------------------------------------------------------------------------
    def view_for(self, seat: int | None) -> PlayerView: ...

    def events_for(self, seat: int | None, since: int = 0) -> list[dict]: ...

    def round_plays(self, round_no: int) -> tuple[tuple[int, str], ...]:
        """(seat, card) of each play of a round, in order: public (a finished round is shown so)."""

    def standings(self) -> list[int]:
        """The seats best first (the game over: its final standings)."""

    # -- the turn -------------------------------------------------------------------------------
    def next_step(self) -> Any:
        """BotTurn, HumanTurn or TableOver (session.py)."""

    def submit(self, seat: int, card: str, seq: int | None = None) -> list[dict]:
        """Make a play; what it changed reaches subscribers (now, or when the server answers)."""

    def may_undo(self, seat: int) -> bool:
        """Whether undo is offered to ``seat``: possible now, or on its turn (whose turn it is
        does not change it, so keys do not come and go with every turn)."""

    def undo_refused(self, seat: int) -> str | None:
        """Why ``seat`` cannot undo now (one line, a player's words, lower case); None when it can."""

    def undo(self, seat: int) -> None: ...

    # -- saving --------------------------------------------------------------------------------
    def autosave(self, rules_label: str, name: str | None = None, opened: bool = False,
                 store=None) -> str | None:
        """Save after every play from now on (saves_here); a notice when it cannot, else None."""

    def save_as(self, name: str) -> str: ...

    # -- changes --------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[Any], None], seat: int | None = None) -> Any: ...

    def tell(self, notices: list[str]) -> None:
        """Notices to the subscribers by the route changes take (SeatUpdate.notices, nothing else
        changed): the one way a front end hears of its saves."""

    def unsubscribe(self, sub) -> None: ...

    def close(self) -> None: ...


__all__ = ["Table"]
