"""The app on a stacked table, for the tests that type into it on a real PTY:
``python -m tests.keys_table CASE`` (tests/test_keys_pty.py). Seat 0, "You", is to move; the bot
waits (it would move after 600 s), so the screen changes only by the keys typed."""

from __future__ import annotations

import sys

from ono99_tui.engine.record import SeatSpec
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.setup import TableSetup
from tests.stacked import game_with, set_total


def plain():
    return game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], names=["You", "Bo"])


def bust():
    """At 92 holding 9, 9, Reverse, 99: both 9s bust."""
    game = game_with([["reverse", "9", "9", "99"], ["2", "3", "4", "5"]], names=["You", "Bo"])
    set_total(game, 92)
    return game


def double():
    """Bo has played a Double Play: You must play twice, holding 6 (drawn into the slot of the 2
    You played), 3, 4, 5."""
    game = game_with([["2", "3", "4", "5"], ["double", "6", "7", "8"]], draw=["6", "7", "8"], names=["You", "Bo"])
    game.play("2")
    game.play("double")
    return game


CASES = {"plain": plain, "bust": bust, "double": double}


class TableApp(Ono99App):
    def __init__(self, game, **kwargs) -> None:
        super().__init__(bot_delay=600, seed=7, **kwargs)
        self._game = game

    def on_mount(self) -> None:
        super().on_mount()
        seats = [SeatSpec(name, "human" if s == 0 else "bot:easy") for s, name in enumerate(self._game.names)]
        self.push_screen(GameScreen(TableSetup(seats, self._game.rules, "standard", seed=0), game=self._game))


if __name__ == "__main__":
    TableApp(CASES[sys.argv[1]]()).run()
