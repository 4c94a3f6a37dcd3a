"""One table: a game, its seats and bots, its save, statistics and undo. No UI.

Every front end drives a table through this object: the table screen, the
simulator and `rules compare`, and the network server. Each asks ``next_step``
what the table waits for (a bot's move with its job, a person's, or nothing:
the game is over) and answers with ``submit``; what changed goes out to
subscribers, each told only what its seat may know (redact.py).
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import Callable

from ..engine import Game, IllegalPlay
from ..engine.record import SeatSpec
from ..engine.rules import DEFAULT, Rules
from ..engine.view import PlayerView
from ..text import shorten, visible
from . import redact
from .seats import TEST_ONLY_LEVELS, bot_seed, check_seats, make_mover


class TableError(ValueError):
    """A play the table refuses; nothing has changed."""


class NotYourTurn(TableError):
    pass


_UNDO_ON_YOUR_TURN = "you can undo when it is your turn"


class StalePlay(TableError):
    """A play made for an earlier position (a retry, or a bot that thought past an undo)."""


class IllegalMove(TableError):
    pass


@dataclass(frozen=True)
class BotTurn:
    """A bot is to move: run ``decide()`` (on any thread: it works on a snapshot of its view),
    then ``submit(seat, card, seq)``; if the table moved on meanwhile the play is refused as stale."""

    seat: int
    seq: int
    decide: Callable[[], str]


@dataclass(frozen=True)
class HumanTurn:
    """A person (at this keyboard, or at a network seat) is to move, at position ``seq``."""

    seat: int
    seq: int


@dataclass(frozen=True)
class TableOver:
    """The game is over."""

    winner: int | None


Step = BotTurn | HumanTurn | TableOver


@dataclass
class SeatUpdate:
    """What one subscriber is told after a change: its view and its redacted events."""

    seat: int | None
    view: PlayerView
    events: list[dict]
    notices: list[str] = field(default_factory=list)
    undone: bool = False  # the game was rewound: redraw everything, the old log no longer holds
    changed: bool = True  # False: notices only (tell), nothing at the table changed: nothing to redraw
    # which change of the table this tells of: every subscriber's update of one change has the
    # same number, and no other change has it (the server encodes a view's public part once per
    # change, not once per seat). 0: not numbered (a remote table's updates).
    change: int = 0


@dataclass
class Subscription:
    callback: Callable[[SeatUpdate], None]
    seat: int | None  # may change: a hot-seat table hands the keyboard on

    def update(self, session: "TableSession", events: list[dict], notices: list[str], undone: bool,
               change: int) -> None:
        self.callback(SeatUpdate(self.seat, session._view_of_change(self.seat, change),
                                 redact.events_for(events, self.seat), list(notices), undone, change=change))


class TableSession:
    """A table whose game runs here (table/contract.py: the contract every front end reads)."""

    runs_bots = True  # next_step hands out the bots' jobs: the front end runs them
    saves_here = True  # autosave: the front end keeps the save
    plays_again = True  # the same seats and rules, dealt afresh (the app's Play again)
    away: frozenset[int] = frozenset()  # everyone is at this keyboard: nobody's connection drops
    watching: tuple[str, ...] = ()  # nobody watches a table at one keyboard from elsewhere
    status: str | None = None  # no connection to lose: nothing to say before the turn's hint

    def __init__(self, seats: list[SeatSpec], rules: Rules = DEFAULT, seed: int = 0, *,
                 first_dealer: int | str | None = None, decks: dict | None = None, game: Game | None = None,
                 undo: bool = True, undo_used: bool = False, record_events: bool = True,
                 allow_oracle: bool = False, game_id: str | None = None):
        self.seats = check_seats(list(seats), allow_oracle)
        # which game this is, kept in its save (meta.game) and by every copy of it: the statistics
        # count a game once, however many copies of it are finished (give the opened record's
        # Record.game_id; a new game gets one of its own)
        self.game_id = game_id or secrets.token_hex(8)
        self.game = game or Game([s.name for s in self.seats], rules, seed, first_dealer=first_dealer,
                                 decks=decks, record_events=record_events)
        # bots are seeded by the game's seed and their seat, whichever front end runs them
        self._movers = {i: make_mover(s.bot_level, bot_seed(self.game.seed, i))
                        for i, s in enumerate(self.seats) if s.is_bot}
        # the test-only oracles look at the whole game: they decide on the table's own thread
        self._sees_all = {i for i, s in enumerate(self.seats) if s.is_bot and s.bot_level in TEST_ONLY_LEVELS}
        self.humans = [i for i, s in enumerate(self.seats) if not s.is_bot]
        self.undo_allowed = undo
        self.undo_used = undo_used
        self.save = None  # a store.session.SaveSession, once attached
        # A front end that must not wait for the disk before it shows a play (the table screen:
        # the frame first, the fsync meanwhile) sets this to a scheduler that runs ``flush`` soon,
        # on any thread. Until then, or at the latest on close(), the save is due.
        self.save_later: Callable[[Callable[[], str | None]], None] | None = None
        self._save_due = False
        self._lock = threading.RLock()  # the game and its save, between a play and a save elsewhere
        self._counts = False  # record_stats
        # a finished game handed in (opening a finished save) counts nothing again; one that ends
        # at its deal here (every round lost under R5.2 before anyone played) is this table's game
        self._finished_at_start = game is not None and game.over
        self._stats_done = False
        self._subs: list[Subscription] = []
        self._change = 0  # SeatUpdate.change: counts the changes told to subscribers
        self._change_view: tuple[int, PlayerView | None] = (0, None)  # (change, its first view)
        # The draw pile's size before each play of the current round, by play index: what an undo
        # to that play would leave to shuffle (U3), known without replaying the game. Plays from
        # before a resume or an undo are found once by a replay (_pile_before).
        self._piles: dict[int, int] = {}
        self._piles_round = self.game.round_no

    # -- questions -----------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return self.game.names

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def rules(self) -> Rules:
        return self.game.rules

    @property
    def event_count(self) -> int:
        return len(self.game.events)

    def round_plays(self, round_no: int) -> tuple[tuple[int, str], ...]:
        """(seat, card) of each play of round ``round_no`` (1-based): public, on the table for all."""
        rounds = self.game.round_plays
        return tuple(rounds[round_no - 1]) if 1 <= round_no <= len(rounds) else ()

    def standings(self) -> list[int]:
        return self.game.standings()

    @property
    def seq(self) -> int:
        """The number of plays made: a play is submitted for this position."""
        return len(self.game.plays)

    @property
    def current(self) -> int | None:
        return None if self.game.over else self.game.current

    def is_bot(self, seat: int) -> bool:
        return seat in self._movers

    @property
    def bot_to_move(self) -> bool:
        return self.current is not None and self.current in self._movers

    def view_for(self, seat: int | None) -> PlayerView:
        return redact.view_for(self.game, seat)

    def _view_of_change(self, seat: int | None, change: int) -> PlayerView:
        """view_for, for the subscribers told of change ``change``: the public fields are built once
        per change (the first view of it is kept), unless the game has changed again meanwhile
        (a subscriber that played at once: then the view is built afresh)."""
        memo = self._change_view
        if memo[0] == change == self._change:
            return redact.view_for(self.game, seat, memo[1])
        view = redact.view_for(self.game, seat)
        self._change_view = (self._change, view) if change == self._change else (0, None)
        return view

    def events_for(self, seat: int | None, since: int = 0) -> list[dict]:
        """The game's events from index ``since`` on, as ``seat`` may see them."""
        return redact.events_for(self.game.events[since:], seat)

    # -- whose move, and what to do ------------------------------------------------
    def next_step(self) -> Step:
        """What the table waits for now: a bot's move (with its job), a person's, or nothing.

        The one place that decides whose move it is and how it is made; every front end (the
        table screen, the simulator, the network server) asks here and then acts."""
        if self.game.over:
            return TableOver(self.game.winner)
        seat = self.game.current
        mover = self._movers.get(seat)
        if mover is None:
            return HumanTurn(seat, self.seq)
        if seat in self._sees_all:
            game = self.game
            return BotTurn(seat, self.seq, lambda: mover(game, seat))
        snapshot = _Snapshot(self.game.view(seat))  # decide() may run on another thread
        return BotTurn(seat, self.seq, lambda: mover(snapshot, seat))

    # -- plays -----------------------------------------------------------------------
    def submit(self, seat: int, card: str, seq: int | None = None) -> list[dict]:
        """Play ``card`` for ``seat``; refuses (TableError, nothing changed) out of turn, stale or illegal."""
        g = self.game
        if g.over:
            raise TableError("the game is over")
        if seq is not None and seq != self.seq:
            raise StalePlay(f"that play was for move {seq + 1}, but the table is at move {self.seq + 1}")
        # a bool is an int to Python, not a seat; a card is a string (a list, a dict: never)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < g.n:
            raise TableError(f"no seat {shorten(repr(seat))} at this table")
        if not isinstance(card, str):
            raise IllegalMove(f"a card is a string such as '7' or 'hold', not {shorten(repr(card))}")
        if seat != g.current:
            raise NotYourTurn(f"it is {g.names[g.current]}'s turn, not {g.names[seat]}'s")
        try:
            with self._lock:
                self._round_piles()[len(g.plays)] = g.draw_pile_size
                events = g.play(card)
        except IllegalPlay as exc:
            raise IllegalMove(str(exc)) from None
        self._changed(events)
        return events

    def play_bot(self) -> list[dict]:
        """The bot to move decides and plays (synchronously)."""
        step = self.next_step()
        if not isinstance(step, BotTurn):
            raise TableError("no bot is to move")
        return self.submit(step.seat, step.decide(), step.seq)

    def play_bots(self, on_play: Callable[[list[dict]], None] | None = None) -> None:
        """Bots play (synchronously) until a human is to move or the game ends."""
        while isinstance(step := self.next_step(), BotTurn):
            events = self.submit(step.seat, step.decide(), step.seq)
            if on_play is not None:
                on_play(events)

    def bot_job(self) -> tuple[int, int, Callable[[], str]]:
        """(seat, seq, decide) for the bot to move: ``decide`` may run on another thread, as it
        works on a snapshot of the position. Submit its card with that seat and seq: if the table
        moved on meanwhile (an undo), the play is refused as stale."""
        step = self.next_step()
        if not isinstance(step, BotTurn):
            raise TableError("no bot is to move")
        return step.seat, step.seq, step.decide

    # -- undo --------------------------------------------------------------------------
    def may_undo(self, seat: int) -> bool:
        """Whether undo is offered to ``seat`` (docs/rules.md U1-U3): it may take back its last play
        now, or when its turn comes (U4). Whose turn it is does not change it, so a front end's
        keys do not come and go with every turn."""
        return self._undo_blocked(seat, mind_the_turn=False) is None

    def undo_refused(self, seat: int) -> str | None:
        """Why ``seat`` cannot undo now, one line in a player's words; None when it can."""
        return self._undo_blocked(seat, mind_the_turn=True)

    def _undo_blocked(self, seat: int, mind_the_turn: bool) -> str | None:
        """Only against bots (a lone human), before the game is over, once the seat has played in
        this round (undo never reaches back into a finished round: its loss and tokens stand), with
        at least two cards to shuffle back in unseen (U3), and (``mind_the_turn``) on its turn."""
        if not self.undo_allowed:
            return "undo is off in your settings"
        if self.humans != [seat]:
            return "undo is only for a game against bots, with no other player at the table"
        if self.game.over:
            return "the game is over"
        last = self._last_play_this_round(seat)
        if last is None:
            return ("nothing to undo: you have not played in this round yet "
                    "(undo never reaches back into a finished round)")
        left = self._pile_before(last)
        if left < 2:
            return (f"cannot undo: the draw pile would hold {left} card{'' if left == 1 else 's'}, "
                    "too few to shuffle the cards drawn since back in unseen")
        if mind_the_turn and self.game.current != seat:
            return _UNDO_ON_YOUR_TURN
        return None

    def _last_play_this_round(self, seat: int) -> int | None:
        """The index (in game.plays) of ``seat``'s last play, if it is in the current round."""
        g = self.game
        start = len(g.plays) - len(g.round_plays[-1]) if g.round_plays else len(g.plays)
        for i in range(len(g.plays) - 1, start - 1, -1):
            if g.plays[i][0] == seat:
                return i
        return None

    def _pile_before(self, play: int) -> int:
        """The draw pile's size just before play number ``play`` (of the current round)."""
        from ..engine.record import Record

        with self._lock:
            piles = self._round_piles()
            if play not in piles:  # a play from before a resume or an undo: replayed once
                before = Record.from_game(self.game).rewound(play).replay(record_events=False)
                piles[play] = before.draw_pile_size
            return piles[play]

    def _round_piles(self) -> dict[int, int]:
        """``_piles``, emptied when a new round has begun: only this round's plays can be undone."""
        if self.game.round_no != self._piles_round:
            self._piles, self._piles_round = {}, self.game.round_no
        return self._piles

    def undo(self, seat: int) -> None:
        """Take back ``seat``'s last play in this round; the cards drawn since go back into the
        draw pile, which is shuffled (recorded), and the bots decide again what came after it.
        TableError (NotYourTurn out of turn), with undo_refused's reason and nothing changed,
        when it cannot be done."""
        from ..engine.record import undo_to

        with self._lock:
            why = self.undo_refused(seat)
            if why is not None:
                raise (NotYourTurn if why == _UNDO_ON_YOUR_TURN else TableError)(why)
            last = self._last_play_this_round(seat)
            try:
                game = undo_to(self.game, last)
            except IllegalPlay as exc:  # undo_refused has checked the pile: kept as a backstop
                raise TableError(f"cannot undo: {exc}") from None
            self.game = game
            self._piles = {i: n for i, n in self._piles.items() if i < last}  # the plays after it are gone
        self.undo_used = True
        if self.save is not None:
            self.save.undo_used = True
        self._changed([], undone=True)

    # -- saving and statistics ------------------------------------------------------------
    @property
    def record_stats(self) -> bool:
        """Whether this table counts its game in the statistics when it ends (a front end with a
        player at it turns it on; a simulation, a server leave it off)."""
        return self._counts

    @record_stats.setter
    def record_stats(self, on: bool) -> None:
        self._counts = on
        if on and self.game.over:
            # a game that ended at its deal (R5.2, a deck of 99s): no play ends it, so it is counted
            # here, once (its notice, if the statistics cannot be written, goes to the subscribers)
            self.tell([self._record_stats()])

    def autosave(self, rules_label: str, name: str | None = None, opened: bool = False, store=None) -> str | None:
        """Save this table after every play from now on: into the save ``name`` (the one the game
        was read from, with ``opened``), or a new save with a name of its own. The one place a
        table's save is made and attached, whichever front end runs the table (the table screen,
        a server's new table, a server's table resumed after a restart). A notice when it
        cannot save (or set plays aside from a damaged journal), else None; ``self.save`` is the
        save session (None when no save could be made at all)."""
        from ..store.saves import SaveError, SaveStore
        from ..store.session import SaveSession

        try:
            store = store or SaveStore()
            name = name or store.new_name()
            save = SaveSession(store, name, self.seats, rules_label, self.undo_used)
            return self.attach_save(save, opened=opened)
        except (SaveError, OSError) as exc:
            return f"Not saving: {exc}"

    def attach_save(self, save, opened: bool = False) -> str | None:
        """Autosave into ``save`` (a SaveSession) from now on; a notice if it cannot.

        ``opened``: the game was just read from that save, so it is already saved as it stands
        (nothing is rewritten until something changes)."""
        self.save = save
        save.undo_used = save.undo_used or self.undo_used
        save.game_id = self.game_id
        notice = save.open(self.game)  # the game as read from that save, if any: its journal is checked
        if opened:
            save.opened(self.game)
        notices = [n for n in (notice, save.save(self.game)) if n]
        return " ".join(notices) or None

    @property
    def unsaved_plays(self) -> int:
        """Plays this table keeps nowhere: its save was opened read-only (write-protected, or open
        in another ono99), so leaving loses them."""
        return self.save.unsaved(self.game) if self.save is not None else 0

    @property
    def can_save_as(self) -> bool:
        """Whether Save as (a copy under a name of the player's choice) is offered: this table
        has a save of its own. (A network table's remote end reports False: the server saves.)"""
        return self.save is not None

    def save_as(self, name: str) -> str:
        """Write a copy of the game as it stands under ``name``, to return to later; the autosave
        goes on under its own name. Raises the store's SaveError."""
        if self.save is None:
            raise TableError("this table has no save")
        with self._lock:
            self.flush()
            return self.save.save_as(self.game, name)

    def flush(self) -> str | None:
        """Make the save that ``save_later`` put off, if one is due; its notice (saving failed, or
        works again), if any. Safe to call on another thread."""
        with self._lock:
            if not self._save_due or self.save is None:
                return None
            self._save_due = False
            return self.save.save(self.game)

    def close(self) -> None:
        if self.save is not None:
            with self._lock:
                self.flush()
                self.save.close()

    def _changed(self, events: list[dict], undone: bool = False) -> None:
        notices = []
        # a game's end is counted before the save that holds its last play: a kill between the two
        # leaves that play to make again (counted then, once: its id), where the other order left a
        # finished save, which counts nothing when opened, and the game was never counted
        counted = self._record_stats() if self.game.over else None
        if self.save is not None and self.save_later is not None:
            with self._lock:
                due, self._save_due = self._save_due, True
            if not due:
                self.save_later(self.flush)
        elif self.save is not None:
            warning = self.save.save(self.game)
            if warning:
                notices.append(warning)
        if counted:
            notices.append(counted)
        self._change += 1
        for sub in list(self._subs):
            sub.update(self, events, [], undone, self._change)
        # what the change led to (a save that failed, statistics not updated) after the change itself:
        # said before it, the game's end read "Statistics not updated" above its last play
        self.tell(notices)

    def tell(self, notices: list[str]) -> None:
        """Notices for every front end at this table (a save that failed, or works again) by the one
        route its changes take: a SeatUpdate with nothing else changed. Call it where the
        subscribers live (a front end's UI thread)."""
        notices = [n for n in notices if n]
        if not notices:
            return
        self._change += 1
        for sub in list(self._subs):
            sub.callback(SeatUpdate(sub.seat, self._view_of_change(sub.seat, self._change), [], list(notices),
                                    changed=False, change=self._change))

    def _record_stats(self) -> str | None:
        if not self.record_stats or self._stats_done or self._finished_at_start:
            return None
        if self.save is not None and self.save.read_only:
            return None  # the ono99 that has this save open counts it
        self._stats_done = True
        from ..store.stats import record_game

        try:
            record_game(self.game, self.seats, game_id=self.game_id)
        except OSError as exc:  # which file: "Is a directory" alone did not say it was stats.toml.lock
            where = f"{visible(exc.filename)}: " if exc.filename and exc.strerror else ""
            why = exc.strerror or exc
            if isinstance(exc, IsADirectoryError):  # ("Is a directory" named no way out)
                why = "a folder, not a file; move it away so that later games are counted"
            return f"Statistics not updated: {where}{why}"
        return None

    # -- subscribers ---------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[SeatUpdate], None], seat: int | None = redact.SPECTATOR) -> Subscription:
        """Call ``callback`` after every change with what ``seat`` may know (None: a spectator)."""
        sub = Subscription(callback, seat)
        self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        if sub in self._subs:
            self._subs.remove(sub)


class _Snapshot:
    """Stands in for the game when a bot decides off the table's thread: it only gives out the
    view taken when the job was made (bots never see more than their view)."""

    def __init__(self, view: PlayerView):
        self._view = view

    def view(self, seat: int) -> PlayerView:
        assert seat == self._view.seat
        return self._view
