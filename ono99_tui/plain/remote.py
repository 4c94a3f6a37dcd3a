"""`ono99 join HOST --plain` and `ono99 host --plain`: a network table in lines of text.

The same RemoteTable the table screen is given (net/remote.py) and the same turn handling
as a local plain table (table.py); what differs is time: the others play while you wait,
so the network runs on an asyncio loop in a thread of its own, standard input is read by
another, and this thread takes what comes from both off one queue, in order. A line typed
ahead is the answer to the next question (so a script can pipe a whole game); while others
play, the questions h, t, s, l, r, ? and q are answered at once when they are next in line.
Leaving (q, or the end of input) keeps the seat on the server, as closing the table screen
does: a bot plays it after the turn timer, and the same `ono99 join` comes back to it.
"""

from __future__ import annotations

import asyncio
import threading
import time

from ..errors import UserError
from ..net.lobby import cannot_connect, host_again, host_leaving, no_table_now
from ..net.remote import RECONNECTED
from ..table import SeatUpdate
from . import words as W
from .console import KEYS_ONLY, Console, EndOfInput, KeysOnly, terminal_stdin
from .lobby import Lobby
from .network import Inbox, InboxConsole, Lost, Network, Plan, join_plan, lobby_reader, read_stdin, sit
from .table import PROMPT, Leave, PlainTable

ASK_AT_ONCE = ("h", "t", "s", "l", "r", "?", "q", "x")  # answered even while someone else plays
STILL_RECONNECTING_EVERY = 60.0  # seconds: at most one "Still reconnecting" line this often
__all__ = ["Plan", "join_plan", "run_join"]


class RemotePlain(PlainTable):
    """A seat at a network table: the turn flow of a local plain table, the plays sent away."""

    def __init__(self, con: InboxConsole, remote, setup, net: Network, settings=None, back_hint: str | None = None):
        super().__init__(con, remote, setup, settings=settings)
        self.back_hint = back_hint  # (serve-ssh: how its players come back to a seat)
        remote.unsubscribe(self._sub)  # the network thread's subscription feeds the inbox instead
        self.inbox = con.inbox
        self.net = net
        self.seat = remote.my_seat
        self._asked = None  # the position whose hand was said and prompt asked
        self._sent = None  # the position a play was sent for (its answer has not come yet)
        # (seq, view) of the turn asked: its hand is the one said, its numbers the ones typed, its
        # seq the one sent (the table may move on meanwhile: a move timer, a reconnection)
        self._pinned: tuple[int, object] | None = None
        self._told_reconnecting: float | None = None  # while the connection is down: when a line last said so
        self._back = False  # the connection has just come back: say whose turn it is (and ask again)

    def run(self) -> str:
        try:
            self._introduce()
            return self._loop()
        except Leave:
            # (hosting: q keeps the game, as the game says of q, "saved after every play": the same
            # ono99 host carries it on; nothing a player types in lines ends it for everyone)
            self._gone("You left the table.")
            return "menu"
        except EndOfInput:
            self._gone("End of input.")
            raise

    def _so_far(self) -> list[dict]:
        # (only those the table opened with: the network thread may have added plays since, and
        # queued them here as updates, to be said in their turn)
        return self.table.events_for(self.viewer)[:self.table.opening[1]]

    def _command(self, key: str, view) -> list[str] | None:
        """The table's commands, as a network seat has them: its own help, and the host's x."""
        hosting = self.net.server is not None
        if key in ("?", "help"):
            commands = W.GUEST_COMMANDS if not hosting else W.HOST_COMMANDS \
                if host_leaving(self.net.server.config, True)[1] else W.HOST_COMMANDS_NOT_KEPT
            return W.help_lines(view.rules, self.setup.rules_label, commands)
        if key == "x" and hosting:
            answer = self.con.ask("Close the table for everyone? The game ends here for all its players. "
                                  "Type yes to close it; anything else stays.")
            if answer.strip().lower() in ("y", "yes"):
                self.net.for_good = True
                raise Leave
            return ["The table stays."]
        return super()._command(key, view)

    def _gone(self, why: str) -> None:
        if self.table.over:
            self.con.say(f"{why} The game is over.")
        elif self.net.server is None and self.table.view.out[self.seat]:
            self.con.say(f"{why} You were out of this game; the others play on without you.")
        elif self.net.server is not None:
            if host_leaving(self.net.server.config, not self.net.for_good)[1]:
                again = host_again(self.net.server.config.port, self.names[self.seat], self.net.password_flag)
                self.con.say(f"{why} The game is kept: {again}; its players come back to their seats.")
            else:
                self.con.say(f"{why} The table closes: you were its host.")
        elif self.table.status is not None:  # (dialling back: no server to keep anything may be running)
            self.con.say(f"{why} The server cannot be reached now; if its game comes back, the same ono99 join "
                         "brings you back to your seat.")
        elif self.back_hint:
            self.con.say(f"{why} Your seat is kept: a bot plays it after the server's turn timer; "
                         f"{self.back_hint}.")
        else:
            self.con.say(f"{why} Your seat is kept: a bot plays it after the server's turn timer, "
                         "and the same ono99 join brings you back to it.")

    def _take_updates(self) -> None:
        while self.inbox.other:
            kind, *rest = self.inbox.other.popleft()
            if kind == "update":
                update = rest[0]
                self._pending.append(update)
                if RECONNECTED in update.notices:
                    self._back = True  # (after it is said: where the table stands now)
                if update.notices and not update.events and self._sent is not None:
                    # a play sent and answered with words, not a play: refused (or not sent, the
                    # connection being down), so the turn is asked again; other news (someone came
                    # back, a move timer ran out) is said, and asks nothing again
                    self._sent = self._asked = None
                self._still_reconnecting()
            elif kind == "lost":
                if not self.table.over:
                    raise Lost(*rest[:2])

    def _still_reconnecting(self) -> None:
        """While the connection is down, a line at most every STILL_RECONNECTING_EVERY seconds (the
        first one, "Connection lost ... Reconnecting...", is the table's own): a long silence would
        read as a hang. Each try at dialling back sends an update, so this runs as they go."""
        if self.table.status is None:
            self._told_reconnecting = None
            return
        now = time.monotonic()
        if self._told_reconnecting is None:
            self._told_reconnecting = now
        elif now - self._told_reconnecting >= STILL_RECONNECTING_EVERY:
            self._told_reconnecting = now
            self._pending.append(SeatUpdate(self.seat, self.table.view, [],
                                            [f"Still reconnecting (try {self.table.dial_try})..."], False))

    def _flush(self) -> None:
        if self._pending:
            self._seen = self._pending[-1].view
        super()._flush()

    def _loop(self) -> str:
        # Whose turn it is comes from the last update said, not from the RemoteTable: the
        # network thread moves that on while the updates before wait to be said.
        self._seen = self.table.opening[0]  # (what was said on opening: the updates since come in turn)
        while True:
            self._take_updates()
            self._flush()
            view = self._seen
            if view.over:
                return self._game_over()
            if self.pace is None and view.out[self.seat]:
                self._out_of_game()
                continue
            where = (view.round, len(view.round_plays))
            if self._back:  # a screen reader heard "Reconnected." and then nothing (a play-tester's find)
                self._back = False
                now = self.table.view_for(self.seat)  # (the table as it is now: plays made meanwhile
                if now.round_plays:                   # were never told one by one)
                    for line in W.last_plays_lines(now):
                        self.con.say(line)
                self.con.say(W.total_line(now))
                if view.current == self.seat and self._sent != where:
                    self._asked = None  # the hand and the question again: what was asked went unanswered
            mine = view.current == self.seat and self._sent != where
            # the connection is down (nothing can be played), until "Reconnected." is said: the table's
            # status comes back a moment before that update, which asks the turn again (_back)
            down = mine and (self.table.status is not None or self._asked == ("down", where))
            if down and self._asked != ("down", where):  # (it asked "Which card?" after each refused card)
                self._asked = ("down", where)
                self.con.say("It is your turn once the connection is back; a card typed meanwhile is not played.")
            if mine and not down and self._asked != where:
                if not self._pin(where):
                    self.inbox.pump()  # (the table moved on: its updates come first)
                    continue
                self._asked = where
                self._start_turn(self.seat)
                self.con.say(PROMPT)
            # (a play sent and not yet answered: its line comes first, then what was typed after it)
            if self.inbox.typed and not self.inbox.other and self._sent != where:
                head = self.inbox.typed[0]
                if head is None:
                    raise EndOfInput
                if mine and isinstance(head, KeysOnly):  # (an arrow and Enter: "Nothing typed")
                    self.inbox.typed.popleft()
                    self.con.say(KEYS_ONLY)
                    self.con.say(PROMPT)
                    continue
                if mine:
                    self.inbox.typed.popleft()
                    if self._answer(self.seat, head):
                        self._sent = where
                    else:
                        self.con.say(PROMPT)
                    continue
                if head.lower() in ASK_AT_ONCE:
                    self.inbox.typed.popleft()
                    self._between_turns(head.lower())
                    continue
                if self.con.interactive:
                    # a person at a terminal: a line typed while others play answers nothing later
                    # (it could be the card meant for a turn a bot has just played, or a key pressed
                    # twice); a pipe keeps it for the next question, as a script means it
                    self.inbox.typed.popleft()
                    if head:
                        self.con.say(f"It is not your turn: {head!r} was not used.")
                    continue
            self.inbox.pump()

    def _between_turns(self, key: str) -> None:
        view = self.table.view_for(self.seat)
        if key == "q":
            raise Leave
        if key == "h":
            cards = W.and_list([W.card(c) for c in W.hand_order(view)]) or "no cards"
            self.con.say(f"Your hand: {cards}. " + W.total_line(view))
            return
        for line in self._command(key, view) or []:
            self.con.say(line)

    def _turn_view(self, seat: int):
        return self._pinned[1] if self._pinned is not None else self.table.view_for(seat)

    def _submit(self, seat: int, card: str) -> None:
        seq = self._pinned[0] if self._pinned is not None else self.table.seq
        self.net.call(self.table.submit, seat, card, seq)

    def _pin(self, where) -> bool:
        """Pin the table's position for the turn about to be asked; False when the table has
        already moved past ``where`` (what was said so far), whose updates are still to be said."""
        seq = self.table.seq
        view = self.table.view_for(self.seat)
        if self.table.seq != seq or (view.round, len(view.round_plays)) != where or view.current != self.seat:
            return False
        self._pinned = (seq, view)
        return True

    def _round_over(self, lost: dict, since: list[dict]) -> None:
        """Said, never waited on: the server plays on, and a question here would let the move
        timer play this seat's turns while the player reads it."""
        for line in self._scores_then(since):
            self.con.say(line)
        self.con.say(f"Round {lost['round']} is over; round {lost['round'] + 1} begins.")

    def _out_of_game(self) -> None:
        """Out at a network table: the others (people among them) play on at the server's pace,
        and there is no menu here to go back to, only leaving."""
        self.con.say("You are out of the game; the others play on.")
        choices = {"": "watch", "w": "watch", "s": "skip"}
        while True:
            answer = self.con.ask("Press Enter to watch every play, type s to hear only how each round ends, "
                                  "or q to leave.").lower()
            if answer in ("q", "m"):
                raise Leave
            if answer in choices:
                self.pace = choices[answer]
                return
            self.con.say("Press Enter alone to watch, or type s or q.")

    def _keys(self) -> str:
        return "h, t, s, l, r, ?" + (", x" if self.net.server is not None else "") + " or q"

    def _undo(self, seat: int) -> bool:
        self.con.say("Nothing to undo: undo is only for a game against bots on this computer.")
        return False

    def _save_as(self) -> None:
        self.con.say("The server saves this game; there is nothing to save here.")

    def _game_over(self) -> str:
        view = self.table.view
        for line in W.standings_lines(view, _standings(self.table.events, view), view.round):
            self.con.say(line)
        return "menu"


class RemoteWatch(RemotePlain):
    """Watching a network table (w in the lobby): its public plays, said as they come; no hand,
    no turn; t, s, l, r and ? answer as at a seat, q stops watching."""

    def _introduce(self) -> None:
        self.con.say(f"You are watching table {self.table.table_id}; you hold no cards. "
                     "Type t, s, l, r or ? for the table, or q to stop watching.")
        view = self.table.opening[0]  # (the plays since are queued as updates)
        if view.round <= 1:
            super()._introduce()  # (the game so far is short: all of it)
            return
        # a game well under way: where it stands, not every play so far
        seats = [f"{s.name}, {s.bot_level} bot" if s.is_bot else f"{s.name}, human" for s in self.setup.seats]
        self.con.say(f"Table: {'; '.join(seats)}. Rules: {self.setup.rules_label}.")
        self.con.say(W.total_line(view))
        for line in W.scores_lines(view) + (W.last_plays_lines(view) if view.round_plays else []):
            self.con.say(line)

    def _gone(self, why: str) -> None:
        stopped = f"You stopped watching table {self.table.table_id}."
        self.con.say(stopped if why == "You left the table." else f"{why} {stopped}")

    def _round_over(self, lost: dict, since: list[dict]) -> None:  # (nobody here to press Enter)
        for line in self._scores_then(since):
            self.con.say(line)

    def _loop(self) -> str:
        self._seen = self.table.opening[0]  # (what was said on opening: the updates since come in turn)
        while True:
            self._take_updates()
            self._flush()
            if self._seen.over:
                return self._game_over()
            if self.inbox.typed and not self.inbox.other:
                head = self.inbox.typed.popleft()
                if head is None:
                    self.inbox.typed.appendleft(None)
                    raise EndOfInput
                key = head.lower()
                if key == "q":
                    raise Leave
                lines = None if key in ("h", "") else self._command(key, self.table.view_for(None))
                for line in lines or ["You are watching: you hold no cards. Type t, s, l, r, ? or q."]:
                    self.con.say(line)
                continue
            self.inbox.pump()


def _standings(events: list[dict], view) -> list[int]:
    """Seats best first, as the server's game_over event gives them (from the view without one)."""
    for event in reversed(events):
        if event["type"] == "game_over":
            return list(event["standings"])
    score = (lambda s: -view.tokens[s]) if view.rules.scoring_mode == "tokens" else (lambda s: view.points[s])
    return sorted(range(len(view.names)), key=lambda s: (s != view.winner, view.out[s], score(s), s))


def _lost(plan: Plan, exc: Lost, remote) -> str:
    """Why the connection ended, and, when the server stopped mid-game, how to come back
    (as the table screen's join says it)."""
    mid_game = remote is not None and remote.my_seat is not None and not remote.over
    if exc.kind in ("unreadable", "failed"):  # (the line says what went wrong, and where)
        return str(exc)
    if exc.kind == "no_table" and mid_game:
        return no_table_now(str(exc), plan.keep)
    if exc.kind == "closed":  # (a watched table that closed: the connection did not end)
        return str(exc)
    if exc.kind != "closing":
        # (a dropped connection or a server gone without a word, as a killed host, and not back
        # within the time a join dials for: the seat is the server's to keep, and the same join asks
        # for it back)
        back = " Your seat is kept if the server is: run the same ono99 join to come back to it." \
            if mid_game and plan.keep and exc.kind in ("", "silent", "gave_up") else ""
        return f"the connection to the server ended: {exc}.{back}"
    if mid_game:
        if plan.keep:
            return f"{exc}. Your seat is kept: run the same ono99 join once the server is back."
        if plan.back_hint:  # (serve-ssh: the gateway knows how its players come back)
            return f"{exc}; your seat is kept: {plan.back_hint}"
    return str(exc)


def _forget(plan: Plan, net: Network) -> None:
    """The seat's token, no longer kept: its game is over, or the seat was left or given up
    before the game started."""
    if plan.keep and net.token:
        from ..net.kept_seats import forget_token

        forget_token(plan.host, plan.port, plan.name, net.token)


def run_join(plan: Plan) -> int:
    """The lobby, then the table, on this terminal's lines; exit status 0, or UserError."""
    from ..net.client import ServerError
    from ..net.protocol import ProtocolError
    from ..store.settings import load_settings
    from ..text import visible
    from ..tui.setup import TableSetup

    settings, _ = load_settings()
    # standard input unbuffered: its reader thread may still be waiting in a read when the game
    # ends (the server stopped, input still open); a buffered reader's lock held there makes the
    # interpreter abort at exit ("could not acquire lock ... at interpreter shutdown")
    console = Console(stdin=terminal_stdin())
    inbox = Inbox()
    net = Network()
    net.password_flag = getattr(plan, "password_flag", None)
    try:
        try:
            seat, table_id, resumed = net.run(sit(net, plan))
        except ServerError as exc:
            from ..net.lobby import told

            raise UserError(told(exc, plan.name_hint)) from None
        except (OSError, TimeoutError) as exc:
            raise UserError(cannot_connect(plan, exc)) from None
        except ProtocolError as exc:  # (the server sent what this client cannot read: the line says so)
            raise UserError(str(exc)) from None
        console.say("Back in your seat." if resumed else f"Watching table {table_id}: you hold no cards."
                    if plan.watch else f"Seated at table {table_id}, seat {seat + 1}.")
        for note in net.notes:
            console.say(f"Note: {note}")
        asyncio.run_coroutine_threadsafe(lobby_reader(net, inbox, plan), net.loop)
        threading.Thread(target=read_stdin, args=(console, inbox), name="ono99-plain-stdin", daemon=True).start()
        con = InboxConsole(console, inbox)
        remote = seated = None
        try:
            remote = Lobby(con, inbox, net, plan.address_hint).wait(watching=plan.watch)
            label = visible(remote.lobby["rules"]) if remote.lobby else "the server's"
            front = RemotePlain if remote.my_seat is not None else RemoteWatch
            seated = front(con, remote, TableSetup(remote.seats, remote.view.rules, label), net,
                           settings=settings, back_hint=None if plan.keep else plan.back_hint)
            seated.run()
            net.leaving = True  # (returned: the game ended, or the player left with q; EndOfInput raises)
            if remote.over or remote.my_seat is None:  # (watching: the seat was given up)
                _forget(plan, net)
        except Leave:
            net.for_good = True  # (in the lobby: nothing started to keep)
            _forget(plan, net)
            con.say("You left the table.")
        except EndOfInput:
            pass
        except KeyboardInterrupt:
            # Ctrl+C mid-game leaves as q does (the seat, or the host's game, is kept): say so, as
            # q does, before "ono99: interrupted"
            if isinstance(seated, RemotePlain) and not remote.over:
                seated._gone("Interrupted.")
            raise
        except Lost as exc:
            if exc.kind == "gone":  # (a table its server does not keep: gone for good)
                _forget(plan, net)
            raise UserError(_lost(plan, exc, remote)) from None
    finally:
        net.stop()
    return 0


