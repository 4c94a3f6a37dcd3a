"""The table and scoreboard panes. They draw a PlayerView in place; they decide nothing.

Names come from players and files: they are drawn as Text, never parsed as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Digits, Static

from ...engine import cards as C
from ...engine.view import PlayerView
from ..glyphs import Glyphs


def last_play(view: PlayerView, g: Glyphs) -> Text:
    """'Bo played 7: 49 -> 56', from public information (this round's plays)."""
    if not view.round_plays:
        return Text("No card played yet this round.")
    seat, card = view.round_plays[-1]
    after = view.total
    before = after - C.EFFECT[card]
    change = f"{before} {g.arrow} {after}" if C.EFFECT[card] else f"{after} stays"
    text = Text("Last: ")
    text.append(view.names[seat], style="bold")
    text.append(f" {C.LABEL[card]}, {change}")
    return text


def put(widget: Static, content) -> None:
    """``widget.update(content)`` without a layout, and nothing at all if it already shows that
    (an update repaints the widget even when nothing changed)."""
    if getattr(widget, "_ono99_shown", None) != content:
        widget._ono99_shown = content
        widget.update(content, layout=False)


class TablePane(Vertical):
    def __init__(self, glyphs: Glyphs, **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs

    def compose(self) -> ComposeResult:
        yield Digits("0", id="total")
        yield Static(id="direction", markup=False)
        yield Static(id="double", markup=False)
        yield Static(id="last", markup=False)

    def show(self, view: PlayerView, fresh: bool = False) -> None:
        """Draw ``view``; ``fresh`` marks the last play as just made (highlighted)."""
        g = self.glyphs
        self.query_one("#total", Digits).update(str(view.total))
        title = f"Table {g.dash} round {view.round}"
        if title != self.border_title:  # setting a title repaints the pane
            self.border_title = title
        self.border_subtitle = f"draw {view.draw_pile_size} {g.dash} played {len(view.played_this_round)}"
        way = g.left if view.direction == 1 else g.right
        # fixed-size lines: update without a layout pass (that reflowed the whole screen per play)
        put(self.query_one("#direction", Static),
            Text.assemble((f"Total {view.total}", "bold"), f"/{view.rules.target}, play goes {way}"))
        put(self.query_one("#double", Static), turn_line(view))
        last = last_play(view, g)
        if fresh:  # the play just made stands out (an inline style: no restyle of the pane)
            last.stylize("reverse")
        put(self.query_one("#last", Static), last)


def turn_line(view: PlayerView) -> Text:
    if view.over or view.current is None:
        return Text("")
    name = view.names[view.current]
    you = view.current == view.seat
    if view.plays_owed == 2:
        return Text("You must play twice" if you else f"{name} must play twice", style="bold")
    if view.second_of_two:
        return Text("Your second of two plays" if you else f"{name}: second of two plays", style="bold")
    return Text("")


class ScorePane(Static):
    """One row per seat, never wrapped: turn, name, score, cards, who, dealer."""

    def __init__(self, glyphs: Glyphs, kinds: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs, self.kinds = glyphs, kinds

    _view: PlayerView | None = None

    def on_resize(self) -> None:
        if self._view is not None:
            self.show(self._view)  # names get the room there is

    def show(self, view: PlayerView) -> None:
        self._view = view
        g = self.glyphs
        width = max(9, min(24, self.content_size.width - 31)) if self.content_size.width else 9
        rules = view.rules
        tokens = rules.scoring_mode == "tokens"
        self.border_title = "Tokens" if tokens else f"Points (limit {rules.scoring_limit})"
        self.border_subtitle = f"{g.dealer} deals"
        text = Text(no_wrap=True, overflow="ellipsis")
        for s, name in enumerate(view.names):
            turn = g.turn if view.current == s else " "
            if view.out[s]:
                score = f"{g.out} out" + (f" {view.points[s]}" if not tokens else "")
            elif tokens:
                n = view.tokens[s]
                score = f"{n} {g.token * min(n, 4)}" if n else ("last life" if rules.scoring_extra_life else "0")
            else:
                score = f"{view.points[s]}"
            n = view.hand_sizes[s]
            cards = f"{n} card{'s' if n != 1 else ''}" if s in view.in_round else ""
            who = "you" if s == view.seat else self.kinds[s]
            dealer = g.dealer if view.dealer == s else " "
            if s:
                text.append("\n")
            text.append(f"{turn} ")
            text.append(f"{name[:width]:<{width}}", style="bold" if view.current == s else "")
            text.append(f" {score:<9} {cards:<7} {who[:6]:<6} {dealer}")
        self.update(text, layout=False)  # one row per seat: the pane's size never changes
