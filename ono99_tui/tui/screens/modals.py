"""Round end, game over, pass-the-keyboard and help."""

from __future__ import annotations

import textwrap

from rich.markup import escape
from textual.binding import Binding
from textual.widgets import Button

from ...bots import DESCRIPTIONS
from ...engine import cards as C
from ...engine.describe import agree
from ...engine.rules import Rules
from ...text import display_width, fit, for_markup, short_names
from .notice import _Notice
from .reference import CardReferenceScreen


MENU_ON_ESCAPE = [Binding("escape", "close", "Main menu")]  # the footer's word where Escape leaves the table
# ...and where there is no menu behind the table (`ono99 join`, `watch`, a browser tab, SSH): leaving ends it
LEAVE_ON_ESCAPE = [Binding("escape", "close", "Leave the table")]


SHORT_LABEL = {C.MINUS_TEN: "-10", C.HOLD: "Hold", C.REVERSE: "Rev", C.DOUBLE: "Dbl", C.NINETY_NINE: "99"}


# (short names, how the points of a card that is not a number are shown)
MODES = ((False, " ({})"), (True, " ({})"), (True, "={}"), (True, ""))


def _hand_text(cards, short: bool, points: str) -> str:
    def word(card, value):
        label = SHORT_LABEL.get(card, C.LABEL[card]) if short else C.LABEL[card]
        return label + points.format(value) if card not in C.ADDERS else label
    return ", ".join(word(c, v) for c, v in cards) or "no cards"


def _hand_cells(rows, width: int) -> list[list[str]]:
    """Every hand for the points table in one manner, as lines of at most ``width``: the full names
    with the points of the cards that are not numbers if that fits every row, else shorter names,
    else without the points (wrapped if even that is too long)."""
    for short, points in MODES:
        texts = [_hand_text(r["cards"], short, points) for r in rows]
        if all(len(t) <= width for t in texts):
            return [[t] for t in texts]
    return [textwrap.wrap(t, width) or [""] for t in texts]


def points_table(names, breakdown, width: int = 64) -> list[str]:
    """R9.1's count for every seat in the round, one row a seat, in aligned columns:
    the cards left in hand, their points, the extras (missing cards, losing), the round and the total."""
    name_w = min(12, max(display_width(names[row["seat"]]) for row in breakdown))  # columns, not characters
    name_w = max(name_w, len("Player"))
    cells = ("Cards", "Extra", "Round", "Total")
    hand_w = width - name_w - 2 - 7 * len(cells)
    out = [f"{'Player':<{name_w}}  {'In hand':<{hand_w}}" + "".join(f"{c:>7}" for c in cells)]
    notes = []
    cut = dict(zip((row["seat"] for row in breakdown), short_names([names[row["seat"]] for row in breakdown], name_w)))
    for row, hand in zip(breakdown, _hand_cells(breakdown, hand_w)):
        name = names[row["seat"]]
        cards_pts = sum(v for _, v in row["cards"])
        extra = row.get("missing_points", 15 * row["missing"]) + row["loser_penalty"]
        shown = fit(cut[row["seat"]], name_w)  # cut names told apart, padded by display width
        nums = (str(cards_pts), f"+{extra}" if extra else "-", f"+{row['gained']}", str(row["score"]))
        out.append(f"{shown}  {hand[0]:<{hand_w}}" + "".join(f"{n:>7}" for n in nums))
        out.extend(f"{'':<{name_w}}  {more}" for more in hand[1:])
        why = []
        if row["missing"]:
            why.append(f"{row['missing']} missing card{'s' if row['missing'] != 1 else ''} x15")
        if row["loser_penalty"]:
            why.append(f"{row['loser_penalty']} for losing the round")
        if why:
            notes.append(f"{name}: " + " + ".join(why))
    if notes:
        out.append("Extra: " + "; ".join(notes) + ".")
    return out


def round_end_text(names, events) -> tuple[str, str]:
    lost = next(e for e in events if e["type"] == "round_lost")
    who = names[lost["seat"]]
    why = {"bust": f"went to {lost['total']}",
           "play-limit": "had to play when the round reached its play limit (R4.6)"}.get(
        lost["reason"], "had no card that could be played")
    lines = [f"{who} {why} and {agree(who, 'loses')} round {lost['round']}.", ""]
    for e in events:
        if e["type"] == "tokens":
            left = e["tokens"]
            name = names[e["seat"]]
            gives = f"{name} {agree(name, 'gives')}"
            out_now = any(o["type"] == "eliminated" and o["seat"] == e["seat"] for o in events)
            if left:
                lines.append(f"{gives} up a token: {left} left.")
            elif out_now:  # no extra life in these rules: the last token was the last chance
                lines.append(f"{gives} up the last token.")
            else:
                lines.append(f"{gives} up the last token: one more loss and "
                             f"{'you are' if name == 'You' else 'they are'} out.")
        elif e["type"] == "points":
            lines.extend(points_table(names, e["breakdown"]))
        elif e["type"] == "eliminated":
            lines.append(f"{names[e['seat']]} {agree(names[e['seat']], 'is')} out of the game.")
        elif e["type"] == "tie":
            lines.append("Tie for the win: " + ", ".join(names[s] for s in e["seats"]) + " play on.")
    # "over", not "lost": the notice goes to every seat, and only one of them lost
    return f"Round {lost['round']} over", "\n".join(lines)


class RoundEndScreen(_Notice):
    def __init__(self, names, events):
        super().__init__(*round_end_text(names, events))


class GameOverScreen(_Notice):
    BINDINGS = MENU_ON_ESCAPE

    def __init__(self, names, standings, scores: list[str], again: bool = True):
        column = max([13] + [display_width(names[s]) + 1 for s in standings])  # (a name is at most 24 wide)
        body = "\n".join(f"{i}. {names[s]}{' ' * (column - display_width(names[s]))}{scores[s]}"
                         for i, s in enumerate(standings, start=1))  # aligned by display width
        # Escape goes back to the menu: it never starts a game. ``again``: the table can deal a new
        # game here (not a network table's: its game ends with the server's table, and "Play again"
        # there only quit, a stranger found)
        choices = (("again", "Play again"), ("menu", "Main menu")) if again else (("menu", "Leave the table"),)
        super().__init__(f"{names[standings[0]]} wins!", body, choices, escape="menu")


class LeavingGameOverScreen(GameOverScreen):
    """Game over at a table with no menu behind it: Leave the table is the one way on."""

    BINDINGS = LEAVE_ON_ESCAPE

    def __init__(self, names, standings, scores: list[str], again: bool = False):
        super().__init__(names, standings, scores, again=False)


class PassScreen(_Notice):
    """Hot-seat: hides the hand until the next human is at the keyboard."""

    BINDINGS = MENU_ON_ESCAPE

    def __init__(self, name: str):
        super().__init__(f"Pass to {name}", f"Pass the keyboard to {name}.\n\nPress Enter when {name} is ready."
                         if name != "You" else "Pass the keyboard to You.\n\nPress Enter when you are ready.",
                         (("ok", f"I am {name}" if name != "You" else "I am ready"),), escape="menu")

    def action_close(self) -> None:
        """Escape leaves the table for the menu (it is saved after every play) and never shows the
        hand: the table's "ready" answer is not given, so nobody is seated."""
        if self._answered:  # a second Escape bunched with the first: the table is already left
            return
        self._answered = True
        stack = self.app.screen_stack
        table = stack[-2] if len(stack) > 1 else None
        self.app.pop_screen()  # not dismiss(): that would seat the next player
        if hasattr(table, "action_menu"):
            table.action_menu()


class OutScreen(_Notice):
    """Every human at the table is out; the bots play on. Watch, hurry, skip, or leave."""

    BINDINGS = MENU_ON_ESCAPE

    MENU = "Main menu"

    def __init__(self, who: str, pace: bool = True):
        """``pace``: the bots play here, so they can be hurried (not at a network table, whose
        server plays them at its own pace)."""
        paces = (("fast", "Watch fast"), ("skip", "Skip to the end")) if pace else ()
        super().__init__("Out of the game", f"{who} out of the game; the computer players play on.",
                         (("watch", "Watch"), *paces, ("menu", self.MENU)), escape="menu")


class LeavingOutScreen(OutScreen):
    """Out of the game at a table with no menu behind it: its last button leaves the table."""

    BINDINGS = LEAVE_ON_ESCAPE
    MENU = "Leave the table"


TABLE_KEYS = (
    ("1-9, 0", "play that card (0 is the tenth; or click it)"),
    ("Left/Right", "move between your cards"),
    ("Enter", "play the card with the outline"),
    ("u", "undo your last play on your turn (bots only; save marked)"),
    ("Ctrl+S", "save the game as a name of your choice"),
    ("PgUp/PgDn", "scroll the log back through the round, and forward"),
    ("?", "this help"),
    ("r", "card reference: what each card does, how many are unseen"),
    ("Escape", "back to the menu (the game is saved after every play)"),
    ("Ctrl+P", "command palette: new game, save as, rules, theme, help"),
)


# a network table's keys (`ono99 join`, `watch`, a browser tab, an SSH session): no menu behind it,
# no undo and no Save as (the server keeps the game), a palette without either
NETWORK_KEYS = {"Escape": "leave this table (there is no menu to go back to)", "u": None, "Ctrl+S": None,
                "Ctrl+P": "command palette: rules, card reference, theme, help"}


def help_text(rules: Rules, label: str, leave: bool = False) -> str:
    """The rules in brief as the table plays them: each house rule that changes a sentence
    (the 99 card, Double Play, a forced bust) changes it here. ``leave``: a network table, with
    no menu behind it (Escape leaves) and only the keys that act there."""
    bots = "\n".join(f"{level}: {text}" for level, text in DESCRIPTIONS.items())
    in_force = "\n".join(f"  {escape(line)}" for line in rules.summary())
    shown = [(key, NETWORK_KEYS.get(key, text) if leave else text) for key, text in TABLE_KEYS]
    keys = "\n".join(f"  {escape(key):<11}{text}" for key, text in shown if text is not None)
    double = [part for on, part in (
        (rules.double_play_no_double_on_first, "they may not start with a Double Play"),
        (rules.double_play_deflect, "a Hold or Reverse as their first play passes the whole obligation on"),
    ) if on]
    if rules.ninety_nine_card_playable_on_tens:  # R7.2
        ninety_nine = ("A 99 card may be played when the total ends in 0: the total stays and play passes on, "
                       "as with a Hold (but it does not pass a Double Play on); one 99 a turn. "
                       "In your hand a 99 costs 20 points.")
        only_99s = "only 99s, unless the total ends in 0"
    else:
        ninety_nine = "99 cards cannot be played; they cost 20 points in your hand."
        only_99s = "only 99s"
    if rules.double_play_no_double_on_first:  # (R6.3: a lone Double Play cannot start two plays)
        only_99s += ", or only a Double Play to start two plays"
    only_99s = f"With no card you may play ({only_99s}) you lose at once (R5.2)."
    forced = "you must play your lowest" if rules.forced_bust_plays_lowest else "you choose which to play"
    return (
        f"[b]O'NO 99[/b]: keep the running total under {rules.target}.\n\n"
        "On your turn play one card; you draw automatically. 2-9 and 10 add their value. "
        "Minus Ten takes 10 off (the total may go below 0). Hold: the total stays. "
        "Reverse: the total stays and play changes direction (with two players it is a Hold). "
        f"Double Play: the next player plays twice{'; ' if double else '.'}{', and '.join(double)}"
        f"{'. ' if double else ' '}{ninety_nine}\n\n"
        f"Whoever brings the total to {rules.target} or more loses the round. If every card you can "
        f"play would do that, {forced}. {only_99s}\n\n"
        f"[b]Rules in force[/b] ({for_markup(label)}):\n{in_force}\n\n"  # label: a file or save's
        f"[b]Keys at the table[/b]:\n{keys}\n\n"
        f"[b]Computer players[/b]:\n{bots}"
    )


class HelpScreen(_Notice):
    """The rules in brief and every key; from a table, also a way to the card reference."""

    BINDINGS = [Binding("r", "reference", "Card reference")]
    asked = True  # opened by a key (?, F1) or the palette: the keys read after it are its own

    def __init__(self, rules: Rules, label: str, view=None, leave: bool = False):
        self.view = view
        buttons = (("ok", "Close"),) + ((("reference", "Card reference (r)"),) if view is not None else ())
        super().__init__("Help", help_text(rules, label, leave), buttons, markup=True)

    def on_mount(self) -> None:
        super().on_mount()
        if self.view is None:  # opened by the table's own key: find the table's view
            self.view = self.app.table_view(below=self)
            if self.view is not None:
                self.query_one(".dialog-buttons").mount(Button("Card reference (r)", id="btn-reference"))
                self.call_after_refresh(self._fit)  # (two buttons may not fit side by side)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "btn-reference":
            event.prevent_default()  # not the base class's dismiss: this screen gives way to the reference
            self.action_reference()

    def action_reference(self) -> None:
        if self.view is not None:
            self.app.switch_screen(CardReferenceScreen(self.view))
