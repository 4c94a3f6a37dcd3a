"""The table and scoreboard panes. They draw a PlayerView in place; they decide nothing.

Names come from players and files: they are drawn as Text, never parsed as markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ...engine import cards as C
from ...engine.view import PlayerView
from ...text import display_width, short_names
from ..glyphs import Glyphs


def last_play(view: PlayerView, g: Glyphs) -> Text:
    """'Last: Bo 7, 49 -> 56', from public information (this round's plays)."""
    return recent_plays(view, g, 1)


def recent_plays(view: PlayerView, g: Glyphs, rows: int, fresh: bool = False) -> Text:
    """This round's last ``rows`` plays, newest first ("Last: Bo 7, 49 -> 56", then the ones
    before it), one line each; ``fresh`` highlights the newest (the play just made)."""
    if not view.round_plays:
        return Text("No card played yet this round.", no_wrap=True, overflow="ellipsis")
    text = Text(no_wrap=True, overflow="ellipsis")
    after = view.total
    for i, (seat, card) in enumerate(reversed(view.round_plays[-max(1, rows):])):
        before = after - C.EFFECT[card]
        change = f"{before} {g.arrow} {after}" if C.EFFECT[card] else f"{after} stays"
        line = Text("Last: " if i == 0 else "      ")
        line.append(view.names[seat], style="bold")
        line.append(f" {C.LABEL[card]}, {change}")
        if i == 0 and fresh:  # the play just made stands out (an inline style: no restyle of the pane)
            line.stylize("reverse", 6)
        elif i:
            line.stylize("dim")
        text.append_text(line if i == 0 else Text("\n").append_text(line))
        after = before
    return text


# a 3x5 block font for the total on big terminals (Textual's Digits are 3 rows at any size)
FONT = {
    "0": ("###", "# #", "# #", "# #", "###"), "1": ("## ", " # ", " # ", " # ", "###"),
    "2": ("###", "  #", "###", "#  ", "###"), "3": ("###", "  #", "###", "  #", "###"),
    "4": ("# #", "# #", "###", "  #", "  #"), "5": ("###", "#  ", "###", "  #", "###"),
    "6": ("###", "#  ", "###", "# #", "###"), "7": ("###", "  #", "  #", "  #", "  #"),
    "8": ("###", "# #", "###", "# #", "###"), "9": ("###", "# #", "###", "  #", "###"),
    "-": ("   ", "   ", "###", "   ", "   "),
}


def big_number(number: int, scale: int = 1, ink: str = "\u2588") -> str:
    """``number`` in the block font: each dot ``2*scale`` columns by ``scale`` rows (``ink``: "#" in ASCII)."""
    rows = []
    for y in range(5):
        line = "  ".join("".join((ink if dot == "#" else " ") * 2 * scale for dot in FONT[ch][y]) for ch in str(number))
        rows.extend([line.rstrip()] * scale)
    return "\n".join(rows)


class BigTotal(Static):
    """The running total in big digits (big terminals only; 80x24 shows it in the line below)."""

    scale = 1
    _value = 0

    def update_total(self, value: int) -> None:
        self._value = value
        ink = "#" if getattr(self.app, "ascii", False) else "\u2588"
        self.update(big_number(value, self.scale, ink))


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
        with Horizontal(id="table-row"):
            yield BigTotal("", id="total")  # big terminals only: at the left, the lines beside it
            with Vertical(id="table-lines"):
                yield Static(id="direction", markup=False)
                yield Static(id="double", markup=False)
                yield Static(id="last", markup=False)

    def show(self, view: PlayerView, fresh: bool = False, finished: bool = False) -> None:
        """Draw ``view``; ``fresh`` marks the last play as just made (highlighted); ``finished``: the
        round is over (the draw pile is the next deal's, not shown)."""
        g = self.glyphs
        total = self.query_one("#total", BigTotal)
        if total.display:
            total.update_total(view.total)
        title = f"Table {g.dash} round {view.round}"
        if title != self.border_title:  # setting a title repaints the pane
            self.border_title = title
        self.border_subtitle = (f"round over {g.dash} played {len(view.played_this_round)}" if finished else
                                f"draw {view.draw_pile_size} {g.dash} played {len(view.played_this_round)}")
        way = g.left if view.direction == 1 else g.right
        # fixed-size lines: update without a layout pass (that reflowed the whole screen per play)
        put(self.query_one("#direction", Static),
            Text.assemble((f"Total {view.total}", "bold"), f"/{view.rules.target}, play goes {way}"))
        double = self.query_one("#double", Static)
        line = turn_line(view)
        put(double, line)
        if double.display != bool(line.plain):  # shown only under a Double Play: no blank row
            double.display = bool(line.plain)
            self.call_after_refresh(self._draw_plays)  # the plays below get one row more or less
        self._shown = (view, fresh)
        self._draw_plays()

    _shown: tuple[PlayerView, bool] | None = None

    def _draw_plays(self) -> None:
        """The last plays, as many as the box has rows for (no blank rows beside a tall scoreboard)."""
        if self._shown is None:
            return
        view, fresh = self._shown
        last = self.query_one("#last", Static)
        rows = last.size.height or 1
        put(last, recent_plays(view, self.glyphs, rows, fresh))

    def on_resize(self) -> None:
        self.call_after_refresh(self._draw_plays)


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
    """One row per seat, never wrapped: turn, name, score, cards, who, dealer.

    ``away``: seats whose player has lost the connection (a network table): "away" in the who
    column. A local table has nobody away, and its rows are as they always were.
    ``watching``: who watches a network table (spectators), named under the pane."""

    def __init__(self, glyphs: Glyphs, kinds: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs, self.kinds = glyphs, kinds
        self.away: frozenset[int] = frozenset()
        self.watching: tuple[str, ...] = ()

    _view: PlayerView | None = None

    def on_resize(self) -> None:
        if self._view is not None:
            self.show(self._view)  # names get the room there is

    def show(self, view: PlayerView) -> None:
        self._view = view
        g = self.glyphs
        wide = max(view.hand_sizes, default=0) >= 10  # "10 cards": the column one wider, names one less
        width = max(9 - wide, min(24, self.content_size.width - 31 - wide)) if self.content_size.width else 9 - wide
        rules = view.rules
        tokens = rules.scoring_mode == "tokens"
        self.border_title = "Tokens" if tokens else f"Points (limit {rules.scoring_limit})"
        subtitle = f"{g.dealer} deals"
        if self.watching:  # names are text, never markup
            subtitle += f" {g.dash} watching: {', '.join(self.watching)}"
        self.border_subtitle = Text(subtitle) if self.watching else subtitle
        text = Text(no_wrap=True, overflow="ellipsis")
        shown = short_names(view.names, width)  # by display width, and never two alike
        for s, name in enumerate(shown):
            turn = g.turn if view.current == s else " "
            if view.out[s]:
                score = f"{g.out} out" + (f" {view.points[s]}" if not tokens else "")
            elif tokens:
                n = view.tokens[s]
                score = f"{n} {g.token * min(n, 4)}" if n else ("last life" if rules.scoring_extra_life else "0")
            else:
                score = f"{view.points[s]}"
            n = view.hand_sizes[s]
            # out of the game: no cards (the game-over table still lists the last round's seats)
            cards = f"{n} card{'s' if n != 1 else ''}" if s in view.in_round and not view.out[s] else ""
            who = "you" if s == view.seat else "away" if s in self.away else self.kinds[s]
            dealer = g.dealer if view.dealer == s else " "
            if s:
                text.append("\n")
            text.append(f"{turn} ")
            text.append(name + " " * (width - display_width(name)), style="bold" if view.current == s else "")
            text.append(f" {score:<9} {cards:<{7 + wide}} {who[:6]:<6} {dealer}")
        self.update(text, layout=False)  # one row per seat: the pane's size never changes
