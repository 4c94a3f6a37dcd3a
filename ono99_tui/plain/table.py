"""One table in lines of text: a view of a TableSession, as the table screen is.

The session decides whose move it is (next_step), runs the bots, saves after every play
and counts statistics; this loop only says what happened (from its subscription: what its
seat may know), lists the hand of the person to move, and turns their line into a play.
Hot seat (two or more people at one keyboard): the log is a spectator's, and a hand is only
printed once its owner answers the "Pass to NAME" line.
"""

from __future__ import annotations

import time

from ..engine import cards as C
from ..engine.describe import plays_made, possessive, rounds_apart, view_before
from ..engine.legal import busts
from ..table import BotTurn, SeatUpdate, TableError, TableOver, TableSession
from ..text import sentence
from . import words as W
from .console import Console, EndOfInput

PROMPT = "Which card?"
FIRST_HINT = "Type a card's number and Enter to play it; ? lists every command."


class Leave(Exception):
    """The player left the table (q, or m in a dialog): back to the menu, the game saved."""


class PlainTable:
    def __init__(self, console: Console, table: TableSession, setup, *, save_name: str | None = None,
                 opened: bool = False, settings=None, bot_delay: float = 0.0):
        self.con = console
        self.table = table
        self.setup = setup
        self.save_name = save_name
        self.opened = opened
        self.confirm_bust = getattr(settings, "confirm_bust", True)
        if settings is not None:
            table.undo_allowed = settings.undo
        self.bot_delay = bot_delay
        self.humans = table.humans
        self.hot_seat = len(self.humans) > 1
        self.viewer = self.humans[0] if len(self.humans) == 1 else None
        self.seated: int | None = self.viewer  # hot seat: who has the keyboard now
        self.pace: str | None = None  # once every person is out: "watch", "fast" or "skip"
        self._pending: list[SeatUpdate] = []
        self._hinted = False
        self._sub = table.subscribe(self._pending.append, self.viewer)

    @property
    def names(self):
        return self.table.names

    # -- the whole table -------------------------------------------------------------------
    def run(self) -> str:
        """Play until the game ends ("again" or "menu") or the player leaves ("menu").
        EndOfInput passes through, after the game is saved."""
        try:
            self._open_save()
            self._introduce()
            return self._loop()
        except Leave:
            self._left("You left the table.")
            return "menu"
        except EndOfInput:
            self._left("End of input.")
            raise
        except KeyboardInterrupt:  # (Ctrl+C: said as end of input says it, before "ono99: interrupted")
            self._left("Interrupted.")
            raise
        finally:
            self.table.unsubscribe(self._sub)
            self.table.close()

    def _open_save(self) -> None:
        self.table.record_stats = True
        notice = self.table.autosave(self.setup.rules_label, self.save_name, opened=self.opened)
        if self.table.save is not None:
            self.save_name = self.table.save.name
        if notice:
            self.con.say(notice)

    def _left(self, why: str) -> None:
        save = self.table.save
        if save is None or save.read_only:
            plays = self.table.unsaved_plays
            lost = f": the {plays_made(plays)} saved nowhere" if plays else ""
            self.con.say(f"{why} This game is not saved here{lost}.")
            return
        self.table.flush()
        if save.failed:  # (saving failed and was tried after each play: these plays are not kept)
            self.con.say(f"{why} This game could not be saved: {save.failed}.")
            return
        if self.table.over:
            self.con.say(f"{why} The finished game is saved as {save.name}.")
        else:
            self.con.say(f"{why} The game is saved as {save.name}; "
                         f"continue it with c at the main menu, or: ono99 resume --plain \"{save.name}\"")

    def _may_leave(self) -> bool:
        """q in a game opened read-only (write-protected, or open in another ono99) with plays
        made here: they are saved nowhere, so the player is asked first, as the full screen asks."""
        plays = self.table.unsaved_plays if not self.table.over else 0
        if not plays:
            return True
        answer = self.con.ask(f"This game was opened read-only, so {plays_made(plays)} saved nowhere. Type yes to "
                              "leave anyway; anything else stays (w saves a copy).")
        return answer.strip().lower() in ("y", "yes")

    def _introduce(self) -> None:
        seats = []
        for spec in self.setup.seats:
            seats.append(f"{spec.name}, {spec.bot_level} bot" if spec.is_bot else f"{spec.name}, human")
        self.con.say(f"Table: {'; '.join(seats)}. Rules: {self.setup.rules_label}.")
        if self.opened:
            view = self.table.view_for(self.viewer)
            self.con.say(f"Resuming {self.save_name}.")
            self.con.say(W.total_line(view))
            for line in W.scores_lines(view):
                self.con.say(line)
            if view.round_plays:
                for line in W.last_plays_lines(view):
                    self.con.say(line)
        else:
            self._say_events(self._so_far())

    def _so_far(self) -> list[dict]:
        """The game's events to say on opening it."""
        return self.table.events_for(self.viewer)

    def _loop(self) -> str:
        while True:
            self._flush()
            step = self.table.next_step()
            if isinstance(step, TableOver):
                return self._game_over()
            if self.pace is None and self.humans and all(self.table.view_for(None).out[h] for h in self.humans):
                self._out_of_game()
                continue
            if isinstance(step, BotTurn):
                delay = {"fast": min(self.bot_delay, 0.1), "skip": 0.0}.get(self.pace, self.bot_delay)
                if delay > 0:
                    time.sleep(delay)
                try:
                    self.table.submit(step.seat, step.decide(), step.seq)
                except TableError:
                    pass  # the table moved on meanwhile: ask it again
                continue
            seat = step.seat
            if self.hot_seat and seat != self.seated:
                self.seated = None
                self._pass_to(seat)
            self._turn(seat)

    # -- what happened ---------------------------------------------------------------------
    def _flush(self) -> None:
        pending, self._pending[:] = list(self._pending), []
        for i, update in enumerate(pending):
            for notice in update.notices:
                self.con.say(notice)
            if update.undone:
                continue  # said by the undo itself
            self._say_events(update.events, [e for later in pending[i + 1:] for e in later.events])

    def _say_events(self, events: list[dict], later: list[dict] = ()) -> None:
        """``later``: events of changes not said yet, for the scores as each round left them."""
        players = len(self.table.view_for(None).in_round)
        # a lost round's notice comes between its last lines and the next deal, once per round
        parts = rounds_apart(events)
        for i, part in enumerate(parts):
            shown = part if self.pace != "skip" else [
                e for e in part if e["type"] in ("round_lost", "eliminated", "tie", "game_over")]
            for line in W.event_lines(shown, self.names, self.viewer, players):
                self.con.say(line)
            if i + 1 < len(parts):
                since = [e for p in parts[i + 1:] for e in p] + list(later)
                self._round_over(next(e for e in part if e["type"] == "round_lost"), since)

    def _round_over(self, lost: dict, since: list[dict]) -> None:
        """The round-lost notice: its lines are said, with the scores as the round left them
        (``since``: what changed after it); a line from the player goes on."""
        if self.pace == "skip":
            return
        for line in self._scores_then(since):
            self.con.say(line)
        answer = self.con.ask(f"Round {lost['round']} is over. Press Enter for round {lost['round'] + 1}, "
                              "or type q to leave.", fresh=True)
        if answer.lower() in ("q", "m") and self._may_leave():
            raise Leave

    def _scores_then(self, since: list[dict]) -> list[str]:
        """The scores line as it stood before ``since`` (what changed after the round told)."""
        return W.scores_lines(view_before(self.table.view_for(None), since), cards=False)

    # -- dialogs --------------------------------------------------------------------------------
    def _pass_to(self, seat: int) -> None:
        name = self.names[seat]
        while True:
            who = f"{name}, press" if name != "You" else "Press"  # the default name: not "You, press"
            answer = self.con.ask(f"Pass to {name}. {who} Enter when you are ready, or type q to leave.", fresh=True)
            if answer.lower() == "q":
                if self._may_leave():
                    raise Leave
                continue
            if answer == "":
                self.seated = seat
                return
            whose = "your" if name == "You" else possessive(name)  # not "see Your hand"
            self.con.say(f"Press Enter alone to see {whose} hand, or type q to leave.")

    def _out_of_game(self) -> None:
        if len(self.humans) > 1:
            self.con.say("Every player at this keyboard is out of the game.")
        self.con.say("The computer players play on.")
        choices = {"w": "watch", "": "watch", "f": "fast", "s": "skip"}
        while True:
            answer = self.con.ask("Press Enter to watch, or type f to watch fast, s to skip to the end, "
                                  "or m for the main menu.").lower()
            if answer in ("m", "q"):
                if self._may_leave():
                    raise Leave
                continue
            if answer in choices:
                self.pace = choices[answer]
                return
            self.con.say("Press Enter alone to watch, or type f, s or m.")

    def _game_over(self) -> str:
        for line in W.standings_lines(public := self.table.view_for(None), self.table.standings(), public.round):
            self.con.say(line)
        self._flush()  # statistics notices
        if plays := self.table.unsaved_plays:
            self.con.say(f"This game was opened read-only, so its end and the {plays_made(plays, verb=False)} are "
                         "saved nowhere, nor counted in the statistics: type w to save a copy.")
        elif (save := self.table.save) is not None and save.failed:  # (a full disk through the whole game)
            self.con.say(f"This game could not be saved: {save.failed}. Its end is saved nowhere.")
        while True:
            answer = self.con.ask("Type a to play again with the same seats, or press Enter for the main menu.",
                                  fresh=True).lower()
            if answer == "w" and self.table.save is not None:
                self._save_as()
                continue
            if answer == "a":
                return "again"
            if answer in ("", "m", "q"):
                return "menu"
            self.con.say("Type a to play again, or press Enter for the main menu.")

    # -- a person's turn -------------------------------------------------------------------------
    def _turn(self, seat: int) -> None:
        """Read lines until a card is played, the play before is undone, or the player leaves."""
        self._start_turn(seat)
        fresh = True  # (keys typed while the others played are dropped; within the turn, kept)
        while not self._answer(seat, self.con.ask(PROMPT, fresh=fresh)):
            fresh = False

    def _start_turn(self, seat: int) -> None:
        self._say_hand(seat)
        if not self._hinted:
            self._hinted = True
            self.con.say(FIRST_HINT)
        self._armed = None

    _armed: int | None = None  # a busting card chosen once: the same number again plays it

    def _turn_view(self, seat: int):
        """The position the turn was asked at: the numbers typed are that hand's."""
        return self.table.view_for(seat)

    def _answer(self, seat: int, answer: str) -> bool:
        """One line at this seat's turn: True once a card is played (or the play before undone)."""
        view = self._turn_view(seat)
        cards = W.hand_order(view)
        key = answer.lower()
        index = self._card_index(key, cards)
        armed, self._armed = self._armed, None
        if index is not None:
            if not 1 <= index <= len(cards):
                shown = str(index) if len(str(index)) <= 6 else "that big"  # (a pasted 5,000 9s was said back)
                self.con.say(f"There is no card {shown}: type a number from 1 to {len(cards)}, or ? for help.")
                return False
            c = cards[index - 1]
            why = view.why_not(c)
            if why:
                self.con.say(f"{W.card(c)} can't be played: {why}.")
                return False
            safe = any(not busts(view.rules, x, view.total) for x in view.legal_plays())
            if busts(view.rules, c, view.total) and safe and self.confirm_bust and armed != index:
                self._armed = index
                self.con.say(f"{W.card(c)} takes the total to {view.total + C.EFFECT[c]} and loses the round. "
                             f"Type {index} again to play it anyway, or choose another card.")
                return False
            self._submit(seat, c)
            return True
        if key == "q":
            if self._may_leave():
                raise Leave
            return False
        if key == "u":
            return self._undo(seat)
        if key == "w":
            self._save_as()
            return False
        lines = self._command(key, view)
        if lines is None:
            shown = answer if len(answer) <= 20 else answer[:20] + "..."
            what = "Nothing typed" if not answer else f"{shown!r} is not a command"
            self.con.say(f"{what}: type a card's number from 1 to {len(cards)}, or {self._keys()}.")
            return False
        for line in lines:
            self.con.say(line)
        return False

    def _submit(self, seat: int, card: str) -> None:
        self.table.submit(seat, card, self.table.seq)

    def _say_hand(self, seat: int) -> None:
        view = self._turn_view(seat)
        for line in W.hand_lines(view, self.names[seat] if self.hot_seat else None):
            self.con.say(line)

    @staticmethod
    def _card_index(key: str, cards: list[str]) -> int | None:
        if key.isdecimal():
            return int(key)
        if key in ("h", "t", "r", "d", "m", "u", "q", "s", "l", "w"):
            return None  # the commands win over the cards' short names
        by_word = {w.lower(): c for c, w in W.CARD_WORD.items()}
        try:
            c = by_word.get(key) or by_word.get(key.replace("-", " ")) or C.parse_card(key)
        except ValueError:
            return None
        return cards.index(c) + 1 if c in cards else None

    def _command(self, key: str, view) -> list[str] | None:
        if key == "h":
            return W.hand_lines(view, self.names[view.seat] if self.hot_seat else None)
        if key == "t":
            return [W.total_line(view)]
        if key == "s":
            return W.scores_lines(view)
        if key == "l":
            return W.last_plays_lines(view)
        if key == "r":
            return W.reference_lines(view)
        if key in ("?", "help"):
            return W.help_lines(view.rules, self.setup.rules_label)
        return None

    def _save_as(self) -> None:
        """Save under a name of the player's choice, as the table screen's Ctrl+S does."""
        from ..store.saves import SaveError

        save = self.table.save
        if save is None:
            self.con.say("This game is not being saved, so it cannot be saved as a name.")
            return
        name = self.con.ask("Save a copy as what name? Letters, digits, spaces, - and _. "
                            "Enter alone (or q) saves no copy.")
        if not name or name.lower() == "q":
            self.con.say(f"No copy saved; the game is saved as {save.name}.")
            return
        try:
            used = self.table.save_as(name)
        except (SaveError, TableError) as exc:
            self.con.say(f"Not saved as that name: {exc}.")
            return
        going_on = self.table.save.name
        self.save_name = going_on
        where = "; this game goes on saving there" if going_on == used else f"; this game goes on saving as {going_on}"
        self.con.say(f"A copy is saved as {used}{where}.")

    def _keys(self) -> str:
        """The commands this table has, for a line that was none: u only where an undo can be
        (one player at this keyboard, against bots), w only where a copy can be saved."""
        keys = ["h", "t", "s", "l", "r"]
        if self.table.undo_allowed and len(getattr(self.table, "humans", ())) == 1:
            keys.append("u")
        if self.table.can_save_as:
            keys.append("w")
        return ", ".join(keys + ["?"]) + " or q"

    def _undo(self, seat: int) -> bool:
        why = self.table.undo_refused(seat)
        if why is None:
            try:
                self.table.undo(seat)
            except TableError as exc:  # refused after all: nothing changed
                why = str(exc)
        if why is not None:
            self.con.say(sentence(why))
            return False
        self._pending.clear()
        total = self.table.view_for(seat).total  # (the play that made it is gone from the lines above)
        self.con.say(f"Your last play is taken back: the total is {total} again. This save is marked: undo used.")
        return True
