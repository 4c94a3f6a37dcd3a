"""New game: seats (name, human or bot level), rules, first dealer (R2.2), seed.

Opens with the table last started from here (seats, levels, rules, dealer; kept
in the config folder), or at first with you against three medium bots and
standard rules (or the rules in your settings); a --rules on the command line
wins over the remembered rules. The first name field has focus (typing changes the name);
Enter starts from any field. Everything typed is
checked by the engine's own checks before the game begins, and a problem is
shown under the form in words, never as a crash.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from ..widgets.choice import Choice
from ..widgets.ordered_input import OrderedInput
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static

from ...bots import LEVELS
from ...engine import Game
from ...engine.game import MAX_NAME, MAX_SEATS, MIN_SEATS, GameSetupError
from ...table.seats import SeatError, check_seats, free_bot_name, free_bot_names
from ...store.last_setup import LastSetup, load_last_setup, save_last_setup
from ...store.rule_presets import all_presets
from ...store.rule_presets import resolve as resolve_rules
from ...engine.describe import agree
from ...engine.record import SeatSpec
from ...engine.rules import RulesError
from ...text import shorten, visible
from ..messages import StartGame
from ..setup import TableSetup

KINDS = [("Human", "human")] + [(f"{lv.capitalize()} bot", f"bot:{lv}") for lv in LEVELS]
DEALER = [("As the rules say", "rules"), ("High card (R2.2)", "high-card"), ("At random", "random")]


class SeatRow(Horizontal):
    """One seat: its number, a name field and who plays it. The row keeps the seat's name and
    kind itself and reads them from its fields once those exist: a row asked before it is
    composed (two seats added in one tick) answers with what it was made with."""

    def __init__(self, index: int, name: str, kind: str):
        super().__init__(classes="seat-row")
        self.index, self.seat_name, self.kind = index, name, kind

    def compose(self) -> ComposeResult:
        yield Label(f"{self.index + 1}", classes="seat-no")
        yield OrderedInput(self.seat_name, max_length=MAX_NAME, compact=True, classes="seat-name",
                    placeholder="name")
        yield Choice(KINDS, value=self.kind, allow_blank=False, compact=True, classes="seat-kind")

    @property
    def spec(self) -> SeatSpec:
        names, kinds = self.query(Input), self.query(Select)
        if names and kinds:
            self.seat_name, self.kind = names.first().value, str(kinds.first().value)
        return SeatSpec(self.seat_name.strip(), self.kind)


class NewGameScreen(Screen):
    is_new_game = True  # the palette's New game does not open a second one over it
    BINDINGS = [
        # priority: a name field has focus, and an Input would take Ctrl+A/Ctrl+D (Home, Delete) itself
        Binding("ctrl+s", "start", "Start", priority=True),
        Binding("ctrl+a", "add_seat", "Add seat", priority=True),
        Binding("ctrl+d", "remove_seat", "Remove seat", priority=True),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    NARROW = 60  # columns: fewer, and a seat's name and who plays it share what there is

    def on_resize(self) -> None:
        # (at 40x12 the name took 26 columns and who plays the seat was cut to one letter)
        self.set_class(self.size.width < self.NARROW, "narrow")

    def __init__(self, player_name: str = "You", rules_spec: str = "standard", seed: int | None = None,
                 rules_given: bool = False):
        super().__init__()
        self.player_name = player_name
        self.rules_spec = rules_spec
        self.seed = seed
        self.last, self.last_problem = load_last_setup()
        self.seats = [(player_name, "human")] + [(n, "bot:medium") for n in free_bot_names([player_name], 3)]
        self.dealer = "rules"
        if self.last:
            self.seats, self.dealer = list(self.last.seats), self.last.dealer
            if not rules_given:
                self.rules_spec = self.last.rules

    def compose(self) -> ComposeResult:
        yield Header(icon=self.app.glyphs.icon)
        presets = [p.name for p in all_presets()]
        rules_file = "" if self.rules_spec in presets else self.rules_spec
        preset = rules_file or self.rules_spec
        # a rules file in effect (--rules FILE, or remembered) is named in the Rules field too
        file_option = [(Text(f"file: {visible(Path(rules_file).name)}"), rules_file)] if rules_file else []
        with VerticalScroll(id="new-game", classes="form", can_focus=False) as box:  # focus goes to the fields
            box.border_title = "New game"
            yield Static("Seats (2-8): a name and who plays it.", classes="form-note")
            with Vertical(id="seats"):
                for i, (name, kind) in enumerate(self.seats):
                    yield SeatRow(i, name, kind)
            with Horizontal(classes="form-row"):
                yield Button("Add seat", id="add", compact=True)
                yield Button("Remove seat", id="remove", compact=True)
            with Horizontal(classes="form-row"):
                yield Label("Rules", classes="form-label")
                yield Choice([(Text(visible(p)), p) for p in presets] + file_option, value=preset, allow_blank=False, compact=True, id="preset")
            with Horizontal(classes="form-row"):
                yield Label("or file", classes="form-label")
                yield OrderedInput(rules_file, placeholder="path to a rules .toml (overrides the preset)",
                            compact=True, id="rules-file")
            with Horizontal(classes="form-row"):
                yield Label("Dealer", classes="form-label")
                yield Choice(DEALER + self._named_dealers(), value=self.dealer, allow_blank=False, compact=True,
                             id="dealer")
            with Horizontal(classes="form-row"):
                yield Label("Seed", classes="form-label")
                yield OrderedInput("" if self.seed is None else str(self.seed), placeholder="empty: a new deal each time",
                            compact=True, id="seed", type="integer")
            yield Static("", id="form-error")
            yield Button("Start (Enter)", id="start", variant="primary", compact=True)
        yield Footer(show_command_palette=not self.app.ascii)

    def on_mount(self) -> None:
        self.query(".seat-name").first(Input).focus()  # typing goes to a name at once
        if self.last_problem:
            self.notify(self.last_problem, severity="warning", timeout=10)

    def _rows(self) -> list[SeatRow]:
        return list(self.query(SeatRow))

    def _named_dealers(self, names: list[str] | None = None) -> list[tuple[str, str]]:
        names = names or [name for name, _ in self.seats]
        return [(Text(f"{visible(n)} {agree(n, 'deals')} first"), f"seat:{i}") for i, n in enumerate(names)]

    def _refresh_dealers(self) -> None:
        select = self.query_one("#dealer", Select)
        current = select.value
        names = [r.spec.name or f"Seat {r.index + 1}" for r in self._rows()]
        options = DEALER + self._named_dealers(names)
        select.set_options(options)
        select.value = current if current in {v for _, v in options} else "rules"

    # -- seats -------------------------------------------------------------------------
    def action_add_seat(self) -> None:
        rows = self._rows()
        if len(rows) >= MAX_SEATS:
            self._error(f"A table has at most {MAX_SEATS} seats.")
            return
        taken = {r.spec.name for r in rows}
        name = free_bot_name(taken)
        self.query_one("#seats").mount(SeatRow(len(rows), name, "bot:medium"))
        self.call_after_refresh(self._refresh_dealers)
        self._error("")

    def action_remove_seat(self) -> None:
        rows = self._rows()
        if len(rows) <= MIN_SEATS:
            self._error(f"A game needs at least {MIN_SEATS} seats.")
            return
        rows[-1].remove()
        self.call_after_refresh(self._refresh_dealers)
        self._error("")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.has_class("seat-name"):
            self._refresh_dealers()

    def on_select_changed(self, event: Select.Changed) -> None:
        """A preset picked in the Rules field is the rules: a rules file named before no longer overrides it."""
        if event.select.id == "preset":
            file = self.query_one("#rules-file", Input)
            if event.value != file.value.strip():
                file.value = ""

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"add": self.action_add_seat, "remove": self.action_remove_seat, "start": self.action_start}[event.button.id]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    # -- start -------------------------------------------------------------------------
    def _error(self, text: str | Content) -> None:
        self.query_one("#form-error", Static).update(text)
        if text:  # a long message pushed Start out of sight at 80x24: the error and Start in view
            self.call_after_refresh(self.query_one("#start").scroll_visible, animate=False)

    def build_setup(self) -> TableSetup:
        """The table as filled in; raises ValueError with a message for the player."""
        seats = [r.spec for r in self._rows()]
        for i, seat in enumerate(seats, start=1):
            if not seat.name:
                raise ValueError(f"Seat {i} needs a name.")
        try:
            check_seats(seats)  # the one seat check: names, and who plays each
        except SeatError as exc:
            raise ValueError(str(exc)[:1].upper() + str(exc)[1:] + ".") from None
        spec = self.query_one("#rules-file", Input).value.strip() or str(self.query_one("#preset", Select).value)
        try:
            rules, label = resolve_rules(spec)
        except RulesError as exc:
            raise ValueError(str(exc.problems[0]) + (f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else "")) from None
        if (too_many := rules.too_many_seats(len(seats))) is not None:
            raise ValueError(too_many)
        dealer = str(self.query_one("#dealer", Select).value)
        first = None
        if dealer.startswith("seat:"):
            first = seats[int(dealer[5:])].name
            rules = dataclasses.replace(rules, dealer_first="agree")
        elif dealer != "rules":
            rules = dataclasses.replace(rules, dealer_first=dealer)
        elif rules.dealer_first == "agree":
            first = seats[0].name  # the rules want a named dealer and none was named: the first seat
        seed_text = self.query_one("#seed", Input).value.strip()
        setup = TableSetup(seats, rules, label, first_dealer=first)
        if seed_text:
            try:
                # (int() refuses past 4,300 digits, and said so in Python's words: too big, as it is)
                setup.seed = 2**63 if len(seed_text) > 40 and seed_text.isdecimal() else int(seed_text)
            except ValueError:
                raise ValueError(f"Seed must be a whole number, not {shorten(repr(seed_text), 40)}.") from None
            if not 0 <= setup.seed < 2**63:
                raise ValueError("Seed must be from 0 to 2^63-1.")
        try:  # the engine's own checks (deck size, dealer draw) before leaving this screen
            Game([s.name for s in seats], rules, setup.seed, first_dealer=first, record_events=False)
        except (GameSetupError, ValueError) as exc:
            raise ValueError(str(exc)) from None
        return setup

    def action_start(self) -> None:
        try:
            setup = self.build_setup()
        except ValueError as exc:
            # the message may quote names and files: substituted as text, never as markup
            self._error(Content.from_markup("[b]Cannot start:[/b] $why", why=visible(exc)))
            self.app.bell()
            return
        self._remember(setup)
        self.app.post_message(StartGame(setup, replace_screen=True))

    def _remember(self, setup: TableSetup) -> None:
        """Keep this table for the next New game (never the seed: each game gets a new deal)."""
        rules = self.query_one("#rules-file", Input).value.strip() or str(self.query_one("#preset", Select).value)
        last = LastSetup(tuple((s.name, s.player) for s in setup.seats), rules,
                         str(self.query_one("#dealer", Select).value))
        try:
            save_last_setup(last)
        except OSError as exc:  # the game starts all the same
            self.app.notify(f"New game could not keep this setup: {exc.strerror or exc}", severity="warning")
