"""The table and scoreboard panes. They only draw a PlayerView; they decide nothing."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Digits, Static

from ...engine.view import PlayerView
from ..glyphs import Glyphs


class TablePane(Vertical):
    def compose(self) -> ComposeResult:
        yield Digits("0", id="total")
        yield Static(id="direction")
        yield Static(id="double")
        yield Static(id="piles")

    def show(self, view: PlayerView, g: Glyphs) -> None:
        self.query_one("#total", Digits).update(str(view.total))
        self.border_title = f"Table {g.dash} round {view.round}"
        way = g.left if view.direction == 1 else g.right
        self.query_one("#direction", Static).update(
            f"[b]Total {view.total}[/b] of {view.rules.target}, play goes {way}")
        owed = ""
        if view.current is not None and view.plays_owed == 2:
            owed = f"[b]{view.names[view.current]} must play twice[/b]"
        self.query_one("#double", Static).update(owed)
        self.query_one("#piles", Static).update(
            f"Draw {view.draw_pile_size}  Played {len(view.played_this_round)}"
        )


class ScorePane(Static):
    def show(self, view: PlayerView, g: Glyphs, kinds: list[str]) -> None:
        rules = view.rules
        tokens = rules.scoring_mode == "tokens"
        self.border_title = "Tokens" if tokens else f"Points (limit {rules.scoring_limit})"
        lines = []
        for s, name in enumerate(view.names):
            turn = g.turn if view.current == s else " "
            dealer = f" {g.dealer}" if view.dealer == s else ""
            if view.out[s]:
                score = f"{g.out} out"
            elif tokens:
                life = g.life if rules.scoring_extra_life else ""
                score = g.token * view.tokens[s] + life if view.tokens[s] else f"{life} last life"
            else:
                score = f"{view.points[s]}"
            n = view.hand_sizes[s]
            cards = f"{n} card{'s' if n != 1 else ''}" if s in view.in_round else ""
            who = "you" if s == view.seat else kinds[s]
            lines.append(f"{turn} {name[:10]:<10} {score:<6} {cards:<7} {who}{dealer}")
        self.update("\n".join(lines))
