"""The ono99 Textual app."""

from __future__ import annotations

import os

from textual.app import App

from ..engine.presets import resolve_rules
from ..engine.record import SeatSpec
from ..engine.rules import RulesError
from .glyphs import ASCII, UNICODE
from .screens.game import GameScreen
from .screens.menu import MenuScreen
from .screens.modals import HelpScreen
from .setup import TableSetup


class Ono99App(App):
    CSS_PATH = "ono99.tcss"
    TITLE = "O'NO 99"

    def __init__(self, *, ascii: bool = False, rules_spec: str | None = None, bot_delay: float = 0.6,
                 seed: int | None = None):
        super().__init__()
        self.ascii = ascii
        self.glyphs = ASCII if ascii else UNICODE
        self.bot_delay = bot_delay
        self.seed = seed
        self.rules, self.rules_label = resolve_rules(rules_spec)

    def on_mount(self) -> None:
        if self.ascii:
            self.add_class("ascii")
        self.push_screen(MenuScreen())

    def _setup(self, level: str = "medium") -> TableSetup:
        return TableSetup.default(level=level, rules=self.rules, rules_label=self.rules_label, seed=self.seed)

    def menu_choice(self, key: str) -> None:
        if key == "quit":
            self.exit()
        elif key == "help":
            self.push_screen(HelpScreen(self.rules, self.rules_label))
        elif key.startswith("new"):
            level = key.partition("-")[2] or "medium"
            self.push_screen(GameScreen(self._setup(level)))
        elif key == "hotseat":
            setup = self._setup()
            setup.seats = [SeatSpec("Ana"), SeatSpec("Bo")]
            setup.first_dealer = "Bo" if self.rules.dealer_first == "agree" else None
            self.push_screen(GameScreen(setup))

    def after_game(self, setup: TableSetup, choice: str) -> None:
        self.pop_screen()
        if choice == "again":
            fresh = TableSetup(setup.seats, setup.rules, setup.rules_label, first_dealer=setup.first_dealer)
            self.push_screen(GameScreen(fresh))


def run_app(args) -> int:
    from ..cli import UserError

    try:
        app = Ono99App(ascii=bool(getattr(args, "ascii", False)), rules_spec=getattr(args, "rules", None),
                       bot_delay=float(os.environ.get("ONO99_BOT_DELAY", "0.6")))
    except RulesError as exc:
        raise UserError(str(exc)) from None
    app.run()
    return 0
