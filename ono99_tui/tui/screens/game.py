"""The table screen: hand, table, scoreboard and log. Every play goes through the engine."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Log, Static

from ...bots import make_bot
from ...engine import Game, IllegalPlay
from ...engine import cards as C
from ...engine.describe import describe
from ..setup import TableSetup
from ..widgets.card import CardWidget
from ..widgets.panes import ScorePane, TablePane
from .modals import GameOverScreen, HelpScreen, PassScreen, RoundEndScreen
from .table_saves import SavesTable

MIN_W, MIN_H = 80, 24


class GameScreen(SavesTable, Screen):
    BINDINGS = [
        *(Binding(str(i), f"play({i})", f"Play {i}", show=i == 1) for i in range(1, 5)),
        Binding("left", "focus_card(-1)", "Prev", show=False),
        Binding("right", "focus_card(1)", "Next", show=False),
        Binding("u", "undo", "Undo"),
        Binding("ctrl+s", "save_as", "Save as"),
        Binding("question_mark", "help", "Help"),
        Binding("escape", "menu", "Menu"),
    ]

    def __init__(self, setup: TableSetup, game: Game | None = None, save_name: str | None = None,
                 undo_used: bool = False):
        super().__init__()
        self.setup = setup
        self.game = game or Game([s.name for s in setup.seats], setup.rules, setup.seed,
                                 first_dealer=setup.first_dealer, decks=setup.decks)
        self.save_name = save_name
        self.undo_used = undo_used
        self.session = None  # the save behind this table, opened on mount
        self.stats_recorded = False
        self.kinds = [s.bot_level or "human" for s in setup.seats]
        self.bots = {i: make_bot(s.bot_level, setup.seed + i) for i, s in enumerate(setup.seats) if s.is_bot}
        humans = [i for i, s in enumerate(setup.seats) if not s.is_bot]
        self.humans = humans
        self.viewer = humans[0] if humans else 0
        self.busy = False  # a bot is thinking or a notice is up
        self.logged = 0

    # -- layout -----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        with Vertical(id="main"):
            with Horizontal(id="top"):
                yield TablePane(id="table")
                yield ScorePane(id="scores")
            yield Log(id="log", auto_scroll=True)
            with Vertical(id="hand-box"):
                yield Horizontal(id="hand")
                yield Static(id="hint")
        yield Static(f"Terminal too small: ono99 needs {MIN_W}x{MIN_H}.\nMake the window larger.", id="too-small")
        yield Footer(show_command_palette=not self.app.ascii)

    def on_mount(self) -> None:
        self._open_save()
        self.query_one("#top").styles.height = max(8, self.game.n + 2)  # every seat on the scoreboard
        self.query_one("#log", Log).border_title = "Log"
        self.query_one("#scores").border_title = "Scores"
        self.query_one("#hand-box").border_title = "Your hand"
        self._fit()
        self.refresh_all()
        self.advance()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        w, h = self.app.size
        self.set_class(w < MIN_W or h < MIN_H, "too-small")

    @property
    def glyphs(self):
        return self.app.glyphs

    # -- drawing ----------------------------------------------------------------------
    def refresh_all(self) -> None:
        g = self.game
        view = g.view(self.viewer)
        self.query_one(TablePane).show(view, self.glyphs)
        self.query_one(ScorePane).show(view, self.glyphs, self.kinds)
        log = self.query_one("#log", Log)
        for event in g.events[self.logged:]:
            line = describe(event, g.names, ascii=self.app.ascii, viewer=self.viewer)
            if line:
                log.write_line(line)
        self.logged = len(g.events)
        self._draw_hand(view)

    def _draw_hand(self, view) -> None:
        hand = self.query_one("#hand", Horizontal)
        hand.remove_children()
        box = self.query_one("#hand-box")
        box.border_title = f"{view.names[self.viewer]}'s hand" if len(self.humans) > 1 else "Your hand"
        mine = view.my_turn and not self.busy
        cards = []
        for i, card in enumerate(C.sort_hand(view.hand), start=1):
            reason = view.why_not(card) if view.my_turn else None
            cards.append(CardWidget(i, card, reason, ninety_nine_playable=view.rules.ninety_nine_card_playable_on_tens))
        hand.mount(*cards)
        hint = self.query_one("#hint", Static)
        if view.over:
            hint.update("Game over.")
        elif not view.my_turn:
            hint.update(f"Waiting for {view.names[view.current]}...")
        else:
            legal = view.legal_plays()
            if all(C.ADDERS.__contains__(c) and view.total + C.EFFECT[c] >= view.rules.target for c in legal):
                hint.update(f"[b]Every card you can play busts[/b]: you must play {C.LABEL[legal[0]]}.")
            elif view.plays_owed == 2:
                hint.update("[b]You must play twice.[/b] Press 1-4 or click a card.")
            else:
                hint.update("Your turn: press 1-4, or arrows and Enter, or click a card.")
        if mine and cards:
            self.call_after_refresh(cards[0].focus)

    def on_descendant_focus(self, event) -> None:
        widget = event.widget
        if isinstance(widget, CardWidget) and widget.reason:
            self.query_one("#hint", Static).update(f"{C.LABEL[widget.card]}: {widget.reason}")

    # -- flow -------------------------------------------------------------------------
    def advance(self) -> None:
        g = self.game
        if g.over:
            self.busy = True
            scores = [("winner" if s == g.winner else "out") if g.rules.scoring_mode == "tokens"
                      else f"{g.points[s]} points" for s in range(g.n)]
            self.app.push_screen(GameOverScreen(g.names, g.standings(), scores), self._after_game)
            return
        seat = g.current
        if seat in self.bots:
            self.busy = True
            if self.app.bot_delay > 0:
                self.set_timer(self.app.bot_delay, self._bot_move)
            else:  # Textual timers cannot take 0
                self.call_later(self._bot_move)
        elif seat != self.viewer:
            self.busy = True
            self.viewer = seat
            self.refresh_all()
            self.app.push_screen(PassScreen(g.names[seat]), lambda _: self._ready())
        else:
            self.busy = False
            self.refresh_all()

    def _ready(self) -> None:
        self.busy = False
        self.refresh_all()

    @work(thread=True, exclusive=True, group="bot")
    def _bot_move(self) -> None:
        g = self.game
        seat = g.current
        card = self.bots[seat].choose(g.view(seat))
        self.app.call_from_thread(self._apply, card)

    def _apply(self, card: str) -> None:
        try:
            events = self.game.play(card)
        except IllegalPlay as exc:
            self.notify(str(exc), severity="error")
            return
        self._autosave()
        self.refresh_all()
        if any(e["type"] == "round_lost" for e in events):
            self.busy = True
            self.app.push_screen(RoundEndScreen(self.game.names, events), lambda _: self.advance())
        else:
            self.advance()

    def _after_game(self, choice: str | None) -> None:
        self.app.after_game(self.setup, choice or "menu")

    # -- actions ----------------------------------------------------------------------
    def _human_may_play(self) -> bool:
        return not self.busy and not self.game.over and self.game.current == self.viewer

    def action_play(self, index: int) -> None:
        if not self._human_may_play():
            return
        cards = list(self.query(CardWidget))
        if 1 <= index <= len(cards):
            self._choose(cards[index - 1])

    def on_card_widget_chosen(self, message: CardWidget.Chosen) -> None:
        if self._human_may_play():
            self._choose(message.card)

    def _choose(self, widget: CardWidget) -> None:
        if widget.reason:
            self.query_one("#hint", Static).update(f"{C.LABEL[widget.card]}: {widget.reason}")
            self.app.bell()
            return
        self.busy = True
        self._apply(widget.card)

    def action_focus_card(self, step: int) -> None:
        cards = list(self.query(CardWidget))
        if not cards:
            return
        focused = self.focused if isinstance(self.focused, CardWidget) else None
        i = cards.index(focused) if focused in cards else -step
        cards[(i + step) % len(cards)].focus()

    def commands(self):
        """Palette entries that belong to the table screen."""
        from textual.app import SystemCommand

        yield SystemCommand("Save as", "Save this game under a name of your choice", self.action_save_as)
        if self.may_undo():
            yield SystemCommand("Undo", "Take back your last play (the bots decide again)", self.action_undo)
        yield SystemCommand("Main menu", "Leave this table (it is saved after every play)", self.action_menu)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.game.rules, self.setup.rules_label))

    def action_menu(self) -> None:
        self.app.pop_screen()
