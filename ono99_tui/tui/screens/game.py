"""The table screen: a view of a TableSession (ono99_tui/table/).

The session runs the game (turns, bots, saving, statistics, undo); this screen
shows one seat's view of it, turns keys into plays, and schedules the bots'
moves so the screen stays live while they think. Widgets are mounted once and
updated in place after every play.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from functools import partial

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Header, Log, Static

from ...engine import Game
from ...engine import cards as C
from ...engine.describe import (agree, describe, players_by_round, plays_made, possessive, rounds_apart,
                                seats_at_round_end, view_before)
from ...engine.hand_order import HandOrder
from ...table import BotTurn, SeatUpdate, TableError, TableOver, TableSession
from ...table.contract import Table
from ...table.viewer import Viewer
from ...text import display_width, sentence, visible, wrap
from ..setup import TableSetup
from ..widgets.card import CardWidget
from ..widgets.footer import StableFooter
from ..widgets.hand import HandPane, hand_shape
from ..widgets.panes import BigTotal, ScorePane, TablePane, put
from .modals import (GameOverScreen, HelpScreen, LeavingGameOverScreen, LeavingOutScreen, OutScreen, PassScreen,
                     RoundEndScreen)

MIN_W, MIN_H = 80, 24
ROOMY_W, ROOMY_H = 120, 36
HUGE_H = 56  # from this height the total's digits and the cards grow again
LOG_LINES = 500  # the log keeps this many lines (a long game must not grow the screen without end)
RESUME_EVENTS = 400  # events formatted into the log when a saved game is opened
UNDO_TOAST_S = 3  # how long "why not undo" stays up; pressed again after, it is said again


class TableLog(Log):
    """The table's log. Log.write sets the log's virtual size, and a new virtual size asks for a
    layout of the whole screen: on every play, before its frame. Once the log scrolls (its
    scrollbar is up) a longer log changes nothing outside the log, and the scroll to the end
    that follows each write brings the scrollbar up to date; so no layout then."""

    _writing = False

    def write(self, data: str, scroll_end: bool | None = None):
        self._writing = True
        try:
            return super().write(data, scroll_end)
        finally:
            self._writing = False

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        if layout and self._writing and self.show_vertical_scrollbar:
            layout = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


def _mid_line(line: str) -> str:
    """A log line joined to the one before it after a semicolon: the default name "You" starts it
    in lower case there ("...; you must play twice", "...; you give up a token"), as a word does."""
    return "you" + line[3:] if line.startswith("You ") else line


def turn_hint(view, viewer: int | None) -> str:
    if view.current is None:
        return "Game over." if view.over else ""
    if viewer is None or not view.my_turn:
        who = view.names[view.current]
        return f"Waiting for {'you' if who == 'You' else who}..."  # the default name reads as a word
    legal = view.legal_plays()
    safe = [c for c in legal if not (c in C.ADDERS and view.total + C.EFFECT[c] >= view.rules.target)]
    if not safe:
        return f"Every card you can play busts: you must play {C.LABEL[legal[0]]}."
    if view.plays_owed == 2:
        return "You must play twice: this is the first of your two plays."
    if view.second_of_two:
        return "Second of your two plays: press a card's number."
    return "Your turn: press a card's number, or arrows and Enter, or click it."


SHORTEST_TIMER = 0.001  # seconds: a bot delay under this is played at once (see advance)

class GameScreen(Screen):
    BINDINGS = [
        # the keys that choose and play a card are priority bindings: the app runs each as it
        # reads it, in order (others go to the focused widget's queue, behind keys read with them)
        Binding("enter", "play_outlined", "Play", priority=True),  # the footer names the slot
        *(Binding(str(i), f"play({i})", f"Play {i}", show=False, priority=True) for i in range(1, 10)),
        Binding("0", "play(10)", "Play 10", show=False, priority=True),
        Binding("left", "focus_card(-1)", "Prev", show=False, priority=True),
        Binding("right", "focus_card(1)", "Next", show=False, priority=True),
        Binding("u", "undo", "Undo", priority=True),  # in order with the plays typed with it
        # u when undo cannot be done (not offered in the footer): says why, not silence
        Binding("u", "undo_refused", "Undo", show=False, priority=True),
        # the keys that open another screen too: the keys typed with them then wait for that
        # screen (tui/key_order.py) instead of acting here first (Ctrl+S then "save1" played card 1)
        Binding("ctrl+s", "save_as", "Save as", priority=True),
        # Ctrl+S where Save as is not offered (a network table, ono99 watch): says why, not silence
        Binding("ctrl+s", "save_as_refused", "Save as", show=False, priority=True),
        Binding("question_mark", "help", "Help", priority=True),
        Binding("pageup", "scroll_log(-1)", "Log up", show=False),
        Binding("pagedown", "scroll_log(1)", "Log down", show=False),
        Binding("r", "app.card_reference", "Cards", show=False, priority=True),
        Binding("escape", "menu", "Menu", priority=True),
    ]

    class Finished(Message):
        """The game is over and the player chose what next ("again" or "menu")."""

        def __init__(self, setup: TableSetup, choice: str) -> None:
            super().__init__()
            self.setup, self.choice = setup, choice

    def __init__(self, setup: TableSetup, game: Game | None = None, save_name: str | None = None,
                 undo_used: bool = False, table=None, game_id: str | None = None):
        super().__init__()
        self._drawn = None  # the last live view drawn (_draw), or a finished round's
        self._early_notices: list[str] | None = []  # told while it mounts, before the log has the game so far
        self.setup = setup
        # ``table``: a seat at a table served elsewhere (net.remote.RemoteTable, `ono99 join`); either
        # way the screen reads it through the table contract (table/contract.py)
        self.table: Table = table if table is not None else TableSession(
            setup.seats, setup.rules, setup.seed, first_dealer=setup.first_dealer, decks=setup.decks, game=game,
            undo_used=undo_used, game_id=game_id)  # (game_id: the opened save's game, counted once)
        self.save_name = save_name
        self._opened = save_name is not None and game is not None  # read from that save: already saved
        self.kinds = [s.bot_level or "human" for s in setup.seats]
        self.humans = self.table.humans
        # whose eyes are on this screen: the one place that decides whose hand (and drawn cards) may
        # show. Hot seat (two or more humans): no hand until its owner has the keyboard, and the log
        # says nothing private to anyone
        self.eyes = Viewer(self.humans)
        self.hot_seat = self.eyes.shared
        self.busy = False  # a bot is thinking or a notice is up
        self._armed: int | None = None  # a busting card pressed once: the second press plays it
        self._armed_text = ""  # what the hint says while it is armed
        self._turn_hint = ""
        self._round_players: dict[int, int] = {}  # players each round was dealt to (the log's Reverse)
        self._undo_shown = False
        self._out_shown = False  # the viewer is out of the game (the footer offers no Play)
        # why undo was refused, and when it was said: "u u u" stacked three copies of one toast
        self._undo_refused: tuple[str, float] | None = None
        self._hand_title: str | None = None
        self.pace: str | None = None  # once every human is out: "watch", "fast" or "skip"
        # each human's slots (engine/hand_order.py), folded from that seat's own events: those so
        # far (a game opened under way shows its hand as it was left), then each change's, told
        # before the screen's own subscription below draws it
        picks = self._remembered_picks(save_name)
        self.hand_orders = {seat: HandOrder(seat, picks.get(seat)).feed(self.table.events_for(seat))
                            for seat in self.humans}
        self._hand_subs = [self.table.subscribe(partial(self._hand_news, seat), seat) for seat in self.humans]
        self._sub = self.table.subscribe(self._table_changed, self.eyes.log_seat)

    def _remembered_picks(self, save_name: str | None) -> dict[int, dict[int, int]]:
        """The slots this app saw the save's plays come from, if it was open here before."""
        try:
            kept = getattr(self.app, "hand_picks", None)
        except Exception:  # noqa: BLE001 - no app yet (a screen built outside one): nothing kept
            return {}
        return dict(kept.get(save_name) or {}) if kept is not None and save_name else {}

    @property
    def viewer(self) -> int | None:
        """The seat whose eyes are on the screen (None: nobody's hand may show)."""
        return self.eyes.seat

    @property
    def glyphs(self):
        return self.app.glyphs

    # -- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        with Vertical(id="main"):
            with Horizontal(id="top"):
                yield TablePane(self.app.glyphs, id="table")
                yield ScorePane(self.app.glyphs, self.kinds, id="scores")
            yield TableLog(id="log", auto_scroll=True, max_lines=LOG_LINES)
            slots = max(4, self.table.rules.hand_size)
            with Vertical(id="hand-box", classes=hand_shape(slots)):  # as tall as the hand's rows
                yield HandPane(slots, self.hand_orders, id="hand")
                yield Static(id="hint", markup=False)  # names in it are text
        yield Static(f"Terminal too small: ono99 needs {MIN_W}x{MIN_H}.\nMake the window larger.", id="too-small")
        footer = StableFooter(show_command_palette=not self.app.ascii)
        if self._escape_leaves:
            footer.relabel("menu", "Leave")
        yield footer

    @property
    def _escape_leaves(self) -> bool:
        """No menu behind this table (`ono99 join`, `watch`, a browser tab, an SSH session): Escape
        leaves the table, and the program with it; the footer, palette and help say so."""
        return getattr(self.app, "has_menu", True) is False

    def on_mount(self) -> None:
        if not self.is_attached:
            # the app is leaving as this table mounts (a server that sent what it cannot read, Ctrl+Q
            # as a game opened on a loaded machine): its panes are being taken down, and querying
            # them stopped the exit with a traceback (NoMatches '#total')
            return
        self.table.undo_allowed = self.app.settings.undo
        self.table.record_stats = True
        if self.table.saves_here:  # (a network table's server saves it)
            self._open_save()
            self.table.save_later = self._save_in_background  # the play is drawn while the disk catches up
        self.query_one("#log", Log).border_title = "Log"
        self._fit()
        so_far = self.table.events_for(self._sub.seat, max(0, self.table.event_count - RESUME_EVENTS))
        self._write_log(so_far)
        self._log_notices(self._early_notices, mounting=True)  # (opening the save's: after the game so far)
        self._early_notices = None
        self._draw()
        if self.table.saves_here and not any(e["type"] == "play" for e in so_far):
            # a new game whose first rounds ended at their deals (R5.2, a deck of 99s): each is told,
            # as rounds ended by a play are; they were only lines in the log
            self._after_play(so_far)
        else:
            self.advance()

    def on_resize(self) -> None:
        self._fit()
        if self.follow_log:  # a new size leaves the log where it was: back to its newest line
            self.call_after_refresh(self._log_to_end)

    follow_log = True  # the log shows its newest lines (until the player pages back)

    def _log_to_end(self) -> None:
        self.query_one("#log", Log).scroll_end(animate=False, immediate=True)

    def _fit(self) -> None:
        w, h = self.app.size
        was_small = self.too_small
        self.set_class(w < MIN_W or h < MIN_H, "too-small")
        if was_small != self.too_small:
            self.refresh_bindings()  # the footer's keys were off behind the notice: back at once
            if not was_small:
                return
            if self.is_mounted and self.viewer is not None:  # the focus outline, lost while hidden
                self.call_after_refresh(lambda: self._draw_hand(self.table.view_for(self.viewer)))
        roomy = w >= ROOMY_W and h >= ROOMY_H
        huge = roomy and h >= HUGE_H
        self.set_class(roomy, "roomy")  # big terminals: bigger cards, a big total, the plays listed
        self.set_class(huge, "huge")
        # the table's big digits only where there is room; at 80x24 the top row is as tall as the
        # scoreboard needs (every seat) and no taller, so the log gets the rest; on a big terminal
        # the log is as tall as its lines (up to a cap) and the table takes the rest
        total = self.query_one("#total", BigTotal)
        total.display = roomy
        if total.scale != (2 if huge else 1):
            total.scale = 2 if huge else 1
        total.update_total(self.table.view_for(self.viewer).total)
        self.query_one("#top").styles.height = "1fr" if roomy else max(5, len(self.table.names) + 2)
        self._size_log()

    def _size_log(self) -> None:
        """Big terminals: the log as tall as its lines, up to a quarter of the screen (at least 8)."""
        log = self.query_one("#log", Log)
        w, h = self.app.size
        if self.has_class("roomy"):
            rows = min(max(log.line_count, 3), max(8, h // 4))
            height = rows + 2
        else:
            height = "1fr"
        if str(log.styles.height) != str(height if isinstance(height, str) else f"{height}"):
            log.styles.height = height

    @property
    def too_small(self) -> bool:
        return self.has_class("too-small")

    # -- saving (the session saves; the screen says where and shows what goes wrong) -------------
    # Save notices reach the screen by one route, the table's updates (_table_changed), wherever the
    # save was made: opening it, after a play, or on the save worker.
    def _open_save(self) -> None:
        self.table.tell([self.table.autosave(self.setup.rules_label, self.save_name, opened=self._opened)])

    @work(thread=True, group="save")  # never exclusive: a save is not cancelled by the next one
    def _save_in_background(self, flush) -> None:
        notice = flush()
        if notice:
            try:
                self.app.call_from_thread(self.table.tell, [notice])
            except RuntimeError:  # the app has closed meanwhile: close() saved, nobody to tell
                pass

    def on_unmount(self) -> None:
        self.table.unsubscribe(self._sub)
        for sub in self._hand_subs:
            self.table.unsubscribe(sub)
        save = getattr(self.table, "save", None) if self.table.saves_here else None
        kept = getattr(self.app, "hand_picks", None)
        if save is not None and kept is not None:  # opened again in this app: the same slots
            kept[save.name] = {seat: dict(order.picks) for seat, order in self.hand_orders.items()}
        self.table.close()

    # -- drawing ----------------------------------------------------------------------
    def _log_entries(self, events) -> list[tuple[str, str | None]]:
        """The log's lines for ``events``: (line, short) where ``short`` is the brief form of another
        seat's play (for a short log, several go on one line). A play and its draw are one line,
        as are a Double Play and who must play twice, and a lost round and its tokens or points."""
        names, ascii = self.table.names, self.app.ascii
        seat = self._sub.seat
        arrow = "->" if ascii else "→"
        # how many each round was dealt to, for a Reverse's line (R6.2): from the deals seen, and
        # the round being played now (a log opened mid-round has not seen its deal)
        sizes = self._round_players
        sizes.update(players_by_round(events))
        entries: list[list] = []
        for event in events:
            round_no = event.get("round")
            if event["type"] == "play" and round_no not in sizes:
                now = self.table.view_for(self.viewer)
                sizes.setdefault(now.round, len(now.in_round))
            line = describe(event, names, ascii=ascii, viewer=seat, in_round=sizes.get(round_no))
            if not line:
                continue
            kind = event["type"]
            prev = entries[-1] if entries else None
            if prev and kind == "draw" and prev[2] == ("play", event["seat"]):
                who = names[event["seat"]]
                card = event.get("card")
                prev[0] += f", {agree(who, 'draws')} {C.LABEL[card]}" if card else f"; {line}"
                prev[1] = None
                continue
            if prev and kind == "double" and prev[2] and prev[2][0] == "play":
                prev[0] += f"; {_mid_line(line)}"
                if prev[1]:
                    prev[1] += f" ({names[event['seat']]} twice)"
                continue
            if prev and kind in ("tokens", "eliminated") and prev[2] and prev[2][0] == "round_lost":
                prev[0] += f"; {_mid_line(line)}"
                continue
            short = None
            if kind == "play" and event["seat"] != seat:
                card = event["card"]
                short = f"{names[event['seat']]} {C.LABEL[card]}" + (
                    f" {arrow} {event['total']}" if C.EFFECT[card] else "")
            entries.append([line, short, (kind, event.get("seat"))])
        return [(line, short) for line, short, _ in entries]

    @property
    def _log_compact(self) -> bool:
        """The log is too short for a round of plays (many seats at 80x24): others' plays share lines."""
        log = self.query_one("#log", Log)
        if self.has_class("roomy"):
            return False  # a big terminal's log grows to a quarter of the screen first
        rows = log.content_size.height or 3
        return rows < len(self.table.names) + 2

    def _write_log(self, events) -> None:
        log = self.query_one("#log", Log)
        # the columns a line may take, less the scrollbar's, which comes once the log is full (a
        # play-tester's "Medium 2" lost its last letter under it) and measured by display width
        width = max(20, (log.content_size.width or MIN_W - 2) - log.styles.scrollbar_size_vertical)
        compact = self._log_compact
        sep = " | " if self.app.ascii else " · "
        text = ""
        for line, short in self._log_entries(events):
            if compact and short and self._log_joinable is not None \
                    and display_width(self._log_joinable + sep + short) <= width:
                self._log_joinable += sep + short
                text += sep + short  # onto the line already there
                continue
            wrapped = [short] if compact and short and display_width(short) <= width else wrap(line, width, "  ")
            # wrapped here: a line wider than the log would bring a scrollbar over the last row
            text += ("\n" if log.line_count or text else "") + "\n".join(wrapped)
            self._log_joinable = short if compact and short else None
        if text:  # no newline after the last line: Log would show an empty row under it
            log.write(text)
            if self.has_class("roomy"):
                self._size_log()

    _log_joinable: str | None = None  # the log's last line, while more short plays may join it


    def _log_notices(self, notices, mounting: bool = False) -> None:
        """The table's news in the log too, where it stays (a toast goes after 7 s): who left or
        came back, a move timer that played a card for someone, a save opened read-only or failing."""
        if not notices:
            return
        if self._early_notices is not None and not mounting:
            self._early_notices.extend(notices)
            return
        if not self.is_mounted and not mounting or not self.query("#log"):
            return
        log = self.query_one("#log", Log)
        width = max(20, (log.content_size.width or MIN_W - 2) - log.styles.scrollbar_size_vertical)
        mark = "! " if self.app.ascii else "▸ "
        lines = [w for n in notices for w in wrap(mark + visible(n), width, "  ")]
        log.write(("\n" if log.line_count else "") + "\n".join(lines))
        self._log_joinable = None
        if self.has_class("roomy"):
            self._size_log()

    def _clear_log(self) -> None:
        self.query_one("#log", Log).clear()
        self._log_joinable = None

    def _draw(self, fresh: bool = False, view=None) -> None:
        """Every pane from the table's current state (``view``: the viewer's, if at hand), in place."""
        view = view or self.table.view_for(self.viewer)
        self._drawn = view  # (a round's end is told from the last view shown of it: _draw_finished)
        self.query_one(TablePane).show(view, fresh)
        scores = self.query_one(ScorePane)
        scores.away = frozenset(self.table.away)  # who has lost the connection (a network table's lobby)
        scores.watching = tuple(self.table.watching)  # who watches (a network table's lobby)
        scores.show(view)
        self._draw_hand(view)
        undo = self.may_undo()
        out = self.viewer is not None and view.out[self.viewer]  # out of the game: no Play, no Undo
        if (undo, out) != (self._undo_shown, self._out_shown):  # the footer rebuilds only when what
            self._undo_shown, self._out_shown = undo, out      # it offers changes
            self.refresh_bindings()

    def _draw_finished(self, lost: dict, since: list[dict] = (), part: list[dict] = ()) -> None:
        """The table as the lost round ended (its total, its last play), the scores after it, and no
        hand: the next round is dealt already, and nothing of a new hand shows before its owner
        has the keyboard (hot seat) or the notice is closed. ``since``: what changed after that
        round (later rounds ended at their deals), taken back from the scores shown; ``part``: the
        lost round's events in this change, from which its dealer and hand sizes at its end are told
        (the table holds the next deal's)."""
        view = view_before(self.table.view_for(self.viewer), since)
        plays = self.table.round_plays(lost["round"])
        finished = dataclasses.replace(view, round=lost["round"], total=lost["total"], round_plays=plays,
                                       played_this_round=tuple(c for _, c in plays), current=None, hand=())
        ended = seats_at_round_end(self._drawn, list(part), len(view.names), len(plays))
        if ended is not None:
            dealer, seats, sizes = ended
            finished = dataclasses.replace(finished, dealer=dealer, in_round=seats, hand_sizes=sizes)
        self._drawn = finished
        self.query_one(TablePane).show(finished, fresh=True, finished=True)
        self.query_one(ScorePane).show(finished)
        self.query_one(HandPane).hide()
        self._hand_title = f"Round {lost['round']} over"  # (kept: _draw_hand sets it back when it differs)
        self.query_one("#hand-box").border_title = Text(self._hand_title)
        self._turn_hint = ""
        self._show_hint()

    def refresh_all(self) -> None:
        self._draw()

    def _draw_hand(self, view) -> None:
        hand = self.query_one(HandPane)
        box = self.query_one("#hand-box")
        self._armed = None
        self._armed_text = ""
        if self.viewer is None:
            hand.hide()
            title = "Hands hidden" if self.hot_seat else "Watching"
        else:
            title = f"{possessive(view.names[self.viewer])} hand" if self.hot_seat else "Your hand"
            hand.show(view)
        if title != self._hand_title:  # setting a title repaints the box: only when it changes
            self._hand_title = title
            box.border_title = Text(title)
        self._turn_hint = turn_hint(view, self.viewer)
        outlined = hand.outlined
        if self._human_may_play() and (outlined is None or outlined.reason
                                       or (outlined.busts and hand.has_safe_card())):
            outlined = hand.best_focus() or outlined
        if outlined is not None:
            hand.point(outlined)  # the cursor, and the outline on it
        self._show_hint()

    def _show_hint(self) -> None:
        """The turn's hint; or for the outlined card why it cannot be played, or that it busts
        (pressed once)."""
        text = self._turn_hint
        if self.table.status:  # the connection is down: that is what the player needs to know first
            put(self.query_one("#hint", Static), self.table.status)
            return
        widget = self.query_one(HandPane).outlined
        if widget is not None and self._human_may_play():
            if widget.reason:
                text = f"{C.LABEL[widget.card]}: {widget.reason}"
            elif self._armed == widget.index:
                text = self._armed_text
        put(self.query_one("#hint", Static), text)
        # Enter's key in the footer names the card it plays (changed in place: no footer rebuild)
        self.query_one(StableFooter).relabel("play_outlined", f"Play {widget.index}" if widget else "Play")

    def on_descendant_focus(self, event) -> None:
        """A card focused by a click or Tab is outlined: the cursor goes there. (A focus event
        can arrive after keys have moved on: only the focus as it is now counts.)"""
        if isinstance(event.widget, CardWidget) and event.widget is self.focused and event.widget.card:
            self.query_one(HandPane).cursor = event.widget.index
        self._show_hint()

    # -- the table tells us what changed -------------------------------------------------
    def _hand_news(self, seat: int, update: SeatUpdate) -> None:
        """``seat``'s own events of a change, into its slots. A rewound game (an undo) or a new list
        of events (a reconnect that missed too much) is folded afresh."""
        if not update.changed:
            return
        order = self.hand_orders[seat]
        if update.undone:
            self.hand_orders[seat] = order.rebuilt(self.table.events_for(seat))
        else:
            order.feed(update.events)

    def _table_changed(self, update: SeatUpdate) -> None:
        """The one way the turn goes on: every change at the table (a play from this keyboard, a bot's,
        one that arrived from a server, an undo) comes here, once, and is drawn and acted on."""
        for notice in update.notices:  # (a short toast: the log keeps them, and toasts sit over the hand)
            self.notify(notice, severity="warning", timeout=7, markup=False)
        self._log_notices(update.notices)
        if not update.changed:
            return  # notices only (the table's tell): nothing to redraw, the turn has not moved
        if not self.is_mounted or not self.query("#log"):
            return  # not built yet, or being taken down (its panes go before it does)
        if self.table.current == self.viewer:
            self._undo_refused = None
        lost = next((e for e in update.events if e["type"] == "round_lost"), None)
        # whose hand may show now, decided before anything is drawn: in the step that submitted
        # the play that ended a turn, so no frame shows that hand after it
        self.eyes.after_change(self.table.current, round_ended=lost is not None)
        if update.undone:
            self._clear_log()
            self._write_log(self.table.events_for(self._sub.seat, max(0, self.table.event_count - RESUME_EVENTS)))
        else:
            self._write_log(update.events)
        if lost is None or self.pace == "skip":  # (else _after_play draws each lost round under its notice)
            self._draw(fresh=bool(update.events), view=update.view if update.seat == self.viewer else None)
        if update.events or not self.table.over:  # (a network table's lobby news: the turn may have moved)
            self._after_play(update.events)

    # -- flow -------------------------------------------------------------------------
    def advance(self) -> None:
        """Whatever the table waits for next (its next_step): a bot's move (scheduled), this
        viewer's, or another human's (hand the keyboard over)."""
        step = self.table.next_step()
        if isinstance(step, TableOver):
            self.busy = True
            v = self.table.view_for(self.viewer)
            scores = [("winner" if s == v.winner else "out") if v.rules.scoring_mode == "tokens"
                      else f"{v.points[s]} points" for s in range(len(v.names))]
            over = LeavingGameOverScreen if self._escape_leaves else GameOverScreen
            self.app.push_screen(over(v.names, self.table.standings(), scores, again=self.table.plays_again),
                                 self._after_game)
            return
        if self.pace is None and self.humans and all(self.table.view_for(None).out[h] for h in self.humans):
            self.busy = True
            if any(isinstance(s, OutScreen) for s in self.app.screen_stack):
                return  # already asked (at a network table every play that arrives meanwhile comes here)
            who = "You are" if len(self.humans) == 1 else "Every player at this keyboard is"
            out = LeavingOutScreen if self._escape_leaves else OutScreen
            self.app.push_screen(out(who, pace=self.table.runs_bots), self._paced)
            return
        if isinstance(step, BotTurn):
            self.busy = True
            delay = {"fast": min(self.app.bot_delay, 0.1), "skip": 0}.get(self.pace, self.app.bot_delay)
            if delay >= SHORTEST_TIMER:
                self.set_timer(delay, self._start_bot)
            else:  # Textual timers cannot take 0, and one of 1e-6 s never fired: the game hung for good
                self.call_later(self._start_bot)
        elif self.eyes.must_hand_over(step.seat):
            self.busy = True
            if self.viewer is not None:  # (after_change hid it already when a play ended the turn)
                self.eyes.leave()
                self._draw()
            seat = step.seat
            self._over_the_table(PassScreen(self.table.names[seat]),
                                 lambda choice: self.action_menu() if choice == "menu" else self._seated(seat))
        else:
            self.busy = False
            self._draw_hand(self.table.view_for(self.viewer))

    def _paced(self, choice: str | None) -> None:
        if choice == "menu":
            self.action_menu()
            return
        self.pace = choice or "watch"
        self.advance()

    def _seated(self, seat: int) -> None:
        """``seat``'s owner answered their "Pass to": their hand comes in one whole frame of the
        table, drawn once the dialog has gone. (Left to Textual, the cards coming into view would
        be drawn in a frame of their own before the repaint that wipes the dialog off the terminal,
        so the hand would show round the dialog.)"""
        self.eyes.seated(seat)
        self._seat_pending = True
        self._show_seated()

    _seat_pending = False  # a "Pass to" was answered: the hand is to be shown
    _covered = False  # a screen is over the table (from its suspend until its resume)

    def on_screen_suspend(self) -> None:
        self._covered = True

    def on_screen_resume(self) -> None:
        self._covered = False
        self._show_seated()

    def _show_seated(self) -> None:
        if not self._seat_pending or self._covered or not self.is_attached:
            return  # (covered: on_screen_resume comes back here)
        self._seat_pending = False
        self.busy = False
        self._draw()
        self._draw_now(whole=True)

    def _over_the_table(self, screen, callback) -> None:
        """Put a notice over the table, after a frame of the table as it is now. A modal's first
        frame shows the screen under it as that screen was last laid out, and a hand hidden in this
        step would be laid out only later (each card asks for it once it is idle): pushed at once,
        the notice would show that hand round it, under "Hands hidden"."""
        self._draw_now()
        self.app.push_screen(screen, callback)

    def _draw_now(self, whole: bool = False) -> None:
        """Lay the table out and draw it now, not at Textual's next refresh; ``whole``: every cell
        of it, in one frame. Uses Textual's own Screen._refresh_layout, Screen._dirty_widgets and
        App._batch_count, all private: test_hot_seat_frames.py fails if they move."""
        if self.app.screen is not self or not self.is_attached:
            return
        if whole:
            self.refresh()  # every cell of the screen is to be drawn again...
            self._dirty_widgets.add(self)  # ...in the next frame, whatever else it draws
            if self.app._batch_count:
                return  # Textual draws nothing now (a footer being rebuilt): the first frame after
        self._refresh_layout()

    def _start_bot(self) -> None:
        step = self.table.next_step()  # asked again: the delay gave the table time to move on
        if not isinstance(step, BotTurn):
            self.advance()
            return
        self._think(step)

    @work(thread=True, exclusive=True, group="bot")
    def _think(self, step: BotTurn) -> None:
        card = step.decide()
        self.app.call_from_thread(self._bot_played, step, card)

    def _bot_played(self, step: BotTurn, card: str) -> None:
        if not self.is_attached or not self.query("#log"):
            return  # the table was left while the bot thought (its panes are already gone)
        try:
            self._play(step.seat, card, step.seq)
        except TableError:
            self.advance()  # the table moved on (an undo) while the bot thought: ask again

    def _play(self, seat: int, card: str, seq: int | None = None) -> None:
        """Submit a play. What it changes comes back through the subscription (_table_changed), at
        once from a local table, later from a server: the one path the turn goes on by."""
        self.table.submit(seat, card, seq)

    def _after_play(self, events: list[dict]) -> None:
        # ``events``: this change's events as this screen's seat may see them (the subscription's);
        # one notice per round lost in it (several rounds can end at their deals, R5.2)
        ended = self._round_ends(events)
        if ended and self.pace != "skip":
            self.busy = True
            self._round_notices(ended)
        else:
            self.advance()

    @staticmethod
    def _round_ends(events: list[dict]) -> list[tuple[list[dict], list[dict]]]:
        """(a lost round's events, every event after them) for each round lost in ``events``."""
        parts = rounds_apart(events)
        return [(part, [e for p in parts[i + 1:] for e in p]) for i, part in enumerate(parts)
                if any(e["type"] == "round_lost" for e in part)]

    def _round_notices(self, ended: list[tuple[list[dict], list[dict]]]) -> None:
        (part, since), rest = ended[0], ended[1:]
        self._draw_finished(next(e for e in part if e["type"] == "round_lost"), since, part)  # its own scores behind it
        then = (lambda _choice: self._round_notices(rest)) if rest else self._round_closed
        self._over_the_table(RoundEndScreen(self.table.names, part), then)

    def _round_closed(self, _choice) -> None:
        self._draw()  # the new round (advance hides the hand again if someone else sits down next)
        self.advance()

    def _after_game(self, choice: str | None) -> None:
        def finished() -> None:
            self.post_message(self.Finished(self.setup, choice or "menu"))

        question = self._unsaved_question()
        if question is None:
            finished()
        else:  # (Stay: the finished table stays on screen, where Ctrl+S saves a copy and Escape leaves)
            self.ask_then(question, finished)

    # -- actions ----------------------------------------------------------------------
    def _human_may_play(self) -> bool:
        return (not self.busy and not self.too_small and not self.table.over and self.viewer is not None
                and self.table.current == self.viewer)

    def action_play(self, index: int) -> None:
        if not self._human_may_play():
            return
        cards = self.query_one(HandPane).cards
        if 1 <= index <= len(cards) and cards[index - 1].card is not None:
            self._choose(cards[index - 1])

    def action_play_outlined(self) -> None:
        """Enter: the card the cursor is on, as the keys before this one left it."""
        widget = self.query_one(HandPane).outlined
        if widget is not None:
            self.action_play(widget.index)

    def on_card_widget_chosen(self, message: CardWidget.Chosen) -> None:
        if self._human_may_play():
            self._choose(message.card)

    def _choose(self, widget: CardWidget) -> None:
        hand = self.query_one(HandPane)
        if hand.outlined is not widget:  # the card chosen is outlined: what the hint speaks of
            self._armed = None
            hand.point(widget)
        if widget.reason:
            self._show_hint()
            self.app.bell()
            return
        view = self.table.view_for(self.viewer)
        if widget.busts and hand.has_safe_card() and self.app.settings.confirm_bust \
                and self._armed != widget.index:
            self._armed = widget.index
            total = view.total + C.EFFECT[widget.card]
            # (one line at 80 columns, the longest "10 ... 109, ... Press 0 ..." too)
            self._armed_text = (f"{C.LABEL[widget.card]} takes the total to {total}, a bust. "
                                f"Press {widget.index % 10} or Enter again to play it anyway.")  # 0: the tenth
            self._show_hint()
            self.app.bell()
            return
        self.busy = True
        seq = self.table.seq
        hand.played(self.viewer, widget.index - 1, seq + 1)  # the drawn card goes into this slot
        try:
            self._play(self.viewer, widget.card, seq)
        except TableError:
            hand.not_played(self.viewer, seq + 1)
            raise

    def action_scroll_log(self, step: int) -> None:
        """Page back through the log (it keeps the last LOG_LINES lines)."""
        log = self.query_one("#log", Log)
        if step > 0:
            log.scroll_page_down(animate=False)
        else:
            log.scroll_page_up(animate=False)
        self.call_after_refresh(self._log_paged)

    def _log_paged(self) -> None:
        """Paged back: new lines no longer pull the log down (PageDown to the end follows again)."""
        log = self.query_one("#log", Log)
        self.follow_log = log.scroll_y >= log.max_scroll_y
        log.auto_scroll = self.follow_log
        log.border_title = "Log" if self.follow_log else "Log (back; PgDn for the newest)"

    def action_focus_card(self, step: int) -> None:
        """Left/Right: the next card from the one outlined now (by the keys before this one)."""
        if self.too_small:
            return
        hand = self.query_one(HandPane)
        if hand.step(step) is not None:
            self._armed = None  # a busting card asked about is confirmed on it, not after moving on
            self._show_hint()

    def card_view(self):
        """The view the card reference shows: the seat whose hand is on screen (None while a hand
        is hidden between hot-seat players)."""
        return None if self.viewer is None else self.table.view_for(self.viewer)

    def may_undo(self) -> bool:
        return self.viewer is not None and self.table.may_undo(self.viewer)

    def check_action(self, action: str, parameters) -> bool | None:
        if self.too_small and action not in ("menu", "help"):
            return False  # nothing happens that the player cannot see
        if action == "undo":
            return self.may_undo() and not self._out_shown and bool(self.humans)
        if action == "undo_refused":  # the key says why whenever the footer does not offer Undo
            return not self.check_action("undo", parameters)
        if action in ("play", "play_outlined", "focus_card") and (self._out_shown or not self.humans):
            return False  # out of the game, or a spectator (ono99 watch): no hand to play from
        if action == "save_as" and not self.table.saves_here:
            return False  # a network table: the server keeps the save (and a spectator has nothing to save)
        if action == "save_as_refused":
            return not self.table.saves_here
        return True

    def _why_no_undo(self) -> str | None:
        """Why the viewer cannot undo now (a player's words), None when it can."""
        if self.viewer is None or not self.humans or self._out_shown:
            return "there is nothing of yours to undo"
        if not self._human_may_play():
            return "you can undo when it is your turn"
        return self.table.undo_refused(self.viewer)

    def action_undo(self) -> None:
        if self._why_no_undo() is not None:
            self.action_undo_refused()
            return
        try:  # (the slots go back as they were before that play: folded afresh, _hand_news)
            self.table.undo(self.viewer)
        except TableError as exc:  # refused after all (the table moved meanwhile): nothing changed
            self.notify(sentence(str(exc)), timeout=4, markup=False)
            return
        self.notify("Your last play is taken back (this save is marked: undo used).", timeout=5)

    def action_undo_refused(self) -> None:
        why = self._why_no_undo() or "the table moved on"
        said = self._undo_refused
        now = time.monotonic()
        # once while its toast is up (until the turn comes back); a new reason, or the same once
        # the toast has gone, is said again (in hot seat, each player pressing u is told why)
        if said is None or said[0] != why or now - said[1] >= UNDO_TOAST_S:
            self._undo_refused = (why, now)
            self.notify(sentence(why), timeout=UNDO_TOAST_S, markup=False)

    def action_save_as_refused(self) -> None:
        why = ("Save as is not offered here: you are watching, and the server keeps the game"
               if not self.humans else "Save as is not offered at a network table: the server saves this game "
               "after every play, and you come back to it with the same ono99 join")
        self.notify(why, timeout=6, markup=False)

    def action_save_as(self) -> None:
        from .save_as import SaveAsScreen

        save = self.table.save
        # a name it may take: this save's own is always taken (a play-tester pressed Enter on it)
        suggested = "" if save is None else save.copy_name()
        self.app.push_screen(SaveAsScreen(suggested, self._save_as))

    def _save_as(self, name: str) -> str | None:
        """Save a copy as ``name``; why not, for the dialog to show (it stays open)."""
        from ...store.saves import SaveError

        try:
            used = self.table.save_as(name)
        except (SaveError, TableError) as exc:
            return str(exc)
        going_on = self.table.save.name if self.table.save is not None else used
        where = ("; this game goes on saving there" if going_on == used
                 else f"; this game goes on saving as {going_on!r}")
        self.notify(f"A copy is saved as {used!r}{where}.", timeout=5, markup=False)
        return None

    def palette_commands(self):
        """Palette entries that belong to the table screen."""
        from textual.app import SystemCommand

        if self.table.saves_here:  # (a network table: the server keeps the save)
            yield SystemCommand("Save as", "Save this game under a name of your choice", self.action_save_as)
        if self.may_undo():
            yield SystemCommand("Undo", "Take back your last play (the bots decide again)", self.action_undo)
        if self._escape_leaves:
            yield SystemCommand("Leave the table", "Leave this table (there is no menu to go back to)",
                                self.action_menu)
        else:
            yield SystemCommand("Main menu", "Leave this table (it is saved after every play)", self.action_menu)

    def _unsaved_question(self) -> tuple[str, str, str] | None:
        """Asked before leaving a game whose saving has failed (a full disk, a saves "folder" that
        is a file): leaving would lose the plays since, and the footer's "Menu" does not say so."""
        save = getattr(self.table, "save", None)
        if save is not None and save.read_only and (plays := self.table.unsaved_plays):
            # (opened read-only: write-protected, or open in another ono99; its notice said so once)
            lost = (f"its end and the {plays_made(plays, verb=False)} are saved nowhere, nor counted in the "
                    "statistics" if self.table.over else f"the {plays_made(plays)} saved nowhere")
            return ("Leave without saving?", f"This game was opened read-only, so {lost}. Stay and press "
                    "Ctrl+S (Save as) to keep a copy, or leave and lose them.", "Leave anyway")
        if save is None or not save.failed:  # (over too: a full disk through the whole game loses its end)
            return None
        return ("Leave without saving?", f"This game could not be saved: {save.failed}. Leaving now loses "
                "every play since it was last saved.", "Leave anyway")

    def help_screen(self) -> HelpScreen:
        return HelpScreen(self.table.rules, self.setup.rules_label, leave=self._escape_leaves)

    def action_help(self) -> None:
        self.app.push_screen(self.help_screen())

    def action_menu(self) -> None:
        # where leaving costs others their game (the host of a network table), the app asks first
        question = getattr(self.app, "leaving_question", lambda: None)() or self._unsaved_question()
        # (the app is told the table was left on purpose: a host's then closes for good)
        left = getattr(self.app, "left_on_purpose", lambda: None)
        if question is None:
            left()
            self.app.pop_screen()
            return

        def leave() -> None:
            if self.app.screen is self:
                left()
                self.app.pop_screen()

        self.ask_then(question, leave)

    def ask_then(self, question: tuple[str, str, str], go: Callable[[], object]) -> None:
        """Ask ``question`` (title, body, the leaving button's label) over the table; ``go()`` once
        the player chooses to leave. Stay comes first: Escape (and an Enter meant for something
        else) keeps the table."""
        from .notice import _Notice

        title, body, leave = question
        self.app.push_screen(_Notice(title, body, (("stay", "Stay"), ("leave", leave)), asked=True),
                             lambda choice: go() if choice == "leave" else None)
