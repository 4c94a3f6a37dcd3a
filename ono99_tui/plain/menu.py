"""The plain front end's menus: main menu, New game (one question a line), load, statistics.

Each question says what it wants and what Enter keeps; a wrong answer gets one line saying
what is allowed and the question again. Everything typed goes through the same checks as
the New game screen (table/seats.py, the rules loader, the engine's own setup checks).
"""

from __future__ import annotations

import dataclasses
import os

from ..engine.record import SeatSpec
from ..errors import UserError
from ..store.settings import bot_delay_from_env as _env_delay
from ..table.seats import free_bot_name, free_bot_names
from . import words as W
from .console import Console, EndOfInput, terminal_stdin
from .table import PlainTable

DEALERS = {"rules": "as the rules say", "high-card": "by high card (R2.2)", "random": "at random"}


def bot_delay_from_env() -> float:
    """Bots play at once in plain mode, unless ONO99_BOT_DELAY asks for a pause (0 to 5 s)."""
    try:
        delay = _env_delay(os.environ)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return 0.0 if delay is None else delay


class Back(Exception):
    """q typed at a question inside New game's changes or Settings: leave them, nothing changed
    (q leaves or goes back at every plain question)."""


class PlainApp:
    def __init__(self, console: Console, settings=None, rules_spec: str | None = None, seed: int | None = None,
                 bot_delay: float = 0.0):
        from ..store.rule_presets import resolve
        from ..store.settings import Settings

        self.con = console
        self.settings = settings or Settings()
        self.seed = seed
        self.bot_delay = bot_delay
        self.rules_given = rules_spec is not None
        self.rules_spec = rules_spec or self.settings.rules
        from ..engine.rules import RulesError

        try:
            self.rules, self.rules_label = resolve(self.rules_spec)
        except RulesError as exc:
            if rules_spec:
                raise UserError(f"--rules: {exc}") from None
            self.con.say(f"Settings: rules: {exc}; using standard.")
            self.rules_spec = "standard"
            self.rules, self.rules_label = resolve(None)

    # -- tables ----------------------------------------------------------------------------
    def play(self, setup, game=None, save_name=None, undo_used=False, game_id=None) -> None:
        from ..table import TableSession

        while True:
            table = TableSession(setup.seats, setup.rules, setup.seed, first_dealer=setup.first_dealer,
                                 decks=setup.decks, game=game, undo_used=undo_used, game_id=game_id)
            choice = PlainTable(self.con, table, setup, save_name=save_name, opened=game is not None,
                                settings=self.settings, bot_delay=self.bot_delay).run()
            if choice != "again":
                return
            from ..tui.setup import TableSetup

            setup = TableSetup(setup.seats, setup.rules, setup.rules_label, first_dealer=setup.first_dealer)
            game, save_name, undo_used, game_id = None, None, False, None  # a new game

    def quick_setup(self):
        from ..tui.setup import TableSetup

        return TableSetup.default(name=self.settings.player_name, rules=self.rules, rules_label=self.rules_label,
                                  seed=self.seed)

    def resume(self, name: str) -> bool:
        from ..net.manifest import kept_refusal
        from ..store.saves import SaveError, SaveStore
        from ..tui.setup import TableSetup

        refused = kept_refusal(name)
        if refused:  # a live network table's game: never opened with every hand here
            self.con.say(refused)
            return False
        try:
            record, game = SaveStore().open_game(name, events_from_round=-1)
        except SaveError as exc:
            self.con.say(f"Cannot open that save: {exc}.")
            return False
        setup = TableSetup(record.seats, record.rules, str(record.meta.get("rules", "custom")), seed=record.seed,
                           first_dealer=record.first_dealer, decks=record.decks or None)
        self.play(setup, game=game, save_name=name, undo_used=record.meta.get("undo_used") is True,
                  game_id=record.game_id)
        return True

    # -- the main menu -------------------------------------------------------------------------
    def menu(self) -> None:
        first = True
        while True:
            latest, any_save, problem = self._saves_state()
            if first:  # (games are saved: not said where the saves folder cannot be read)
                self.con.say("O'NO 99, in plain text. Each answer is one line; end of input leaves"
                             + (", and games are saved." if not problem else "."))
                first = False
            from ..tui.setup import quick_words

            entries = ["n new game", f"g quick game against {quick_words(self.rules)}"]
            if latest:
                entries.append(f"c continue {latest}")
            if any_save:
                entries.append("l load a saved game")
            entries += ["s statistics", "o settings", "? rules and help", "q quit"]
            if problem:
                self.con.say(f"The saves cannot be read: {problem}.")
            self.con.say("Main menu: " + "; ".join(entries) + ".")
            key = self.con.ask("Your choice?").lower()
            if key == "q":
                self.con.say("Goodbye.")
                return
            if key == "n":
                setup = self.new_game()
                if setup is not None:
                    self.play(setup)
            elif key == "g":
                self.play(self.quick_setup())
            elif key == "c" and latest:
                self.resume(latest)
            elif key == "l" and any_save:
                self.load()
            elif key == "s":
                self.stats()
            elif key == "o":
                self.edit_settings()
            elif key in ("?", "h", "r"):
                self.help()
            else:
                allowed = "n, g, " + ("c, " if latest else "") + ("l, " if any_save else "") + "s, o, ? or q"
                self.con.say(f"Not a menu choice: type {allowed}.")

    def _saves_state(self) -> tuple[str | None, bool, str | None]:
        from ..net.manifest import kept_saves
        from ..store.saves import SaveError, SaveStore

        try:
            infos = list(SaveStore().infos())
        except SaveError as exc:
            return None, False, str(exc)
        kept = kept_saves()  # a network table's game goes on there: c continues the latest one played here
        latest = next((i.name for i in infos if not i.damaged and not i.finished and i.name not in kept), None)
        return latest, bool(infos), None

    def edit_settings(self) -> None:
        """The settings that matter without a screen, one question a line; saved to config.toml."""
        from ..store.rule_presets import resolve
        from ..store.settings import save_settings

        s = self.settings
        onoff = {True: "on", False: "off"}
        self.con.say(f"Settings: your name {s.player_name}; rules for a new game {s.rules}; undo against bots "
                     f"{onoff[s.undo]}; a busting card asks again {onoff[s.confirm_bust]}. (Bots wait "
                     "between plays only if ONO99_BOT_DELAY says so; themes and ASCII are for the full screen.) "
                     "Type q at any question to leave them as they are.")
        try:
            new = self._ask_settings(s)
        except Back:
            self.con.say("Settings not changed.")
            return
        if new == s:
            self.con.say("Nothing changed.")
            return
        try:
            path = save_settings(new)
        except OSError as exc:
            from ..store.atomic import why_not_written
            from ..store.paths import settings_file

            self.con.say(f"Settings not saved: {why_not_written(settings_file(), exc)}.")
            return
        self.settings = new
        if new.rules != s.rules:
            self.rules_spec, self.rules_given = new.rules, True
            self.rules, self.rules_label = resolve(new.rules)
        self.con.say(f"Settings saved in {path}.")

    def _ask_settings(self, s):
        """Settings as answered, or Back."""
        from ..engine.game import GameSetupError, normalise_name

        while True:
            answer = self._ask(f"Your name at the table? Enter keeps {s.player_name}.")
            try:
                name = normalise_name(answer) if answer else s.player_name
                break
            except GameSetupError as exc:
                self.con.say(f"{W.cap(str(exc))}.")
        offer = self._offer_presets()
        while True:
            answer = self._ask(f"Rules for a new game: {offer} Enter keeps {s.rules}.")
            problem = rules_problem(answer) if answer else None
            if problem is None:
                rules = answer or s.rules
                break
            self.con.say(problem)
        undo = self._ask_on_off("Undo against bots, on or off?", s.undo)
        confirm = self._ask_on_off("Ask again before a card that loses the round, on or off?", s.confirm_bust)
        return dataclasses.replace(s, player_name=name, rules=rules, undo=undo, confirm_bust=confirm)

    def _offer_presets(self) -> str:
        """The presets a Rules question offers: those that can be read (a blind player heard a
        broken one, a folder and a FIFO read out as presets, each refused once chosen); how many
        of the player's own cannot, said first."""
        from ..engine.rules import RulesError
        from ..store.rule_presets import all_presets, load
        from ..text import counted

        names, broken = [], 0
        for preset in all_presets():
            if preset.mine:
                try:
                    load(preset)
                except (RulesError, OSError, ValueError):
                    broken += 1
                    continue
            names.append(preset.name)
        if broken:
            self.con.say(f"{counted(broken, 'preset')} of yours cannot be read; ono99 rules list says why.")
        return f"a preset, {', '.join(names)}, or the path of a rules file?"

    def _ask(self, question: str) -> str:
        """The answer to one question of New game's changes or Settings; Back on q."""
        answer = self.con.ask(question)
        if answer.lower() == "q":
            raise Back
        return answer

    def _ask_on_off(self, question: str, now: bool) -> bool:
        while True:
            answer = self._ask(f"{question} Enter keeps {'on' if now else 'off'}.").lower()
            if not answer:
                return now
            if answer in ("on", "off", "yes", "no"):
                return answer in ("on", "yes")
            self.con.say("Type on or off, Enter, or q.")

    def help(self) -> None:
        for line in W.help_lines(self.rules, self.rules_label):
            self.con.say(line)
        self.con.say("House rules are presets or TOML files: ono99 rules list, ono99 rules show PRESET, "
                     "and ono99 rules check FILE print and check them.")

    def stats(self) -> None:
        from ..store.stats import load_stats
        from ..text import counted, shorten

        players, problem = load_stats()
        if problem:
            self.con.say(f"Statistics cannot be read: {problem}.")
            return
        if not players:
            self.con.say("No finished games yet.")
            return
        for name, row in sorted(players.items()):
            games, wins = row.get("games", 0), row.get("wins", 0)
            pct = f" ({100 * wins / games:.0f} percent)" if games else ""
            text = (f"{shorten(name, 24)}: {games} game{'' if games == 1 else 's'}, {wins} "
                    f"win{'' if wins == 1 else 's'}{pct}, {counted(row.get('rounds_lost', 0), 'round')} lost")
            pg = row.get("points_games", 0)
            if pg:
                text += f", {row.get('points_total', 0) / pg:.0f} points on average"
            faced = [f"{shorten(lv, 20)} bots {f.get('wins', 0)} of {f.get('games', 0)}"
                     for lv, f in sorted(row.get("faced", {}).items()) if isinstance(f, dict)]
            if faced:
                text += "; wins against " + ", ".join(faced)
            self.con.say(text + ".")

    def load(self) -> None:
        from ..store.saves import SaveError, SaveStore

        try:
            infos = list(SaveStore().infos())
        except SaveError as exc:
            self.con.say(f"The saves cannot be read: {exc}.")
            return
        if not infos:
            self.con.say("No saved games.")
            return
        for i, info in enumerate(infos, start=1):
            if info.damaged:
                self.con.say(f"{i}: {info.name}, damaged: {info.damaged}.")
            else:
                undo = ", undo used" if info.undo_used else ""
                self.con.say(f"{i}: {info.name}, {info.state}{undo}, played {info.when}. {info.players}. "
                             f"{info.scores}.")
        while True:
            answer = self.con.ask("Type a save's number or name, or press Enter to go back.")
            if not answer or answer.lower() == "q":  # (a save named q opens by its number)
                return
            info = infos[int(answer) - 1] if answer.isdecimal() and 1 <= int(answer) <= len(infos) else \
                next((i for i in infos if i.name == answer), None)
            if info is None:
                self.con.say(f"No save {answer!r}: type a number from 1 to {len(infos)}, a name, or Enter or q "
                             "to go back.")
                continue
            if info.damaged:
                self.con.say(f"{info.name} is damaged and cannot be played: {info.damaged}.")
                continue
            self.resume(info.name)
            return

    # -- New game ---------------------------------------------------------------------------------
    def new_game(self):
        """Ask for the table, one question a line; None when the player goes back."""
        from ..store.last_setup import load_last_setup

        last, problem = load_last_setup()
        if problem:
            self.con.say(problem)
        me = self.settings.player_name
        seats = [(me, "human")] + [(n, "bot:medium") for n in free_bot_names([me], 3)]
        rules, dealer, seed = self.rules_spec, "rules", self.seed
        if last:
            seats, dealer = list(last.seats), last.dealer
            if not self.rules_given:
                rules = last.rules
        while True:
            self.con.say("New game: " + self._describe(seats, rules, dealer, seed))
            answer = self.con.ask("Press Enter to start, e to change the table, or b to go back.").lower()
            if answer in ("b", "q"):
                return None
            if answer == "e":
                self.con.say("Type q at any question to keep the table as it is.")
                try:
                    seats, rules, dealer, seed = self._edit(list(seats), rules, dealer, seed)
                except Back:
                    self.con.say("The table is not changed.")
                continue
            if answer:
                self.con.say("Type Enter alone to start, e to change, or b (or q) to go back.")
                continue
            try:
                setup = self._build(seats, rules, dealer, seed)
            except ValueError as exc:
                self.con.say(f"Cannot start. {exc}")  # (its reason is a sentence of its own)
                continue
            self._remember(seats, rules, dealer)
            return setup

    @staticmethod
    def _describe(seats, rules, dealer, seed) -> str:
        who = "; ".join(f"seat {i}, {name}, " + ("human" if kind == "human" else f"{kind[4:]} bot")
                        for i, (name, kind) in enumerate(seats, start=1))
        if dealer.startswith("seat:"):
            first = f"{seats[int(dealer[5:])][0]} deals first"
        else:
            first = f"first dealer {DEALERS[dealer]}"
        deal = "a new deal" if seed is None else f"seed {seed}"
        return f"{who}. Rules {rules}; {first}; {deal}."

    def _edit(self, seats, rules, dealer, seed):
        from ..bots import LEVELS
        from ..engine.game import MAX_SEATS, MIN_SEATS, GameSetupError, name_taken, normalise_name

        count = self._ask_number(f"How many seats, {MIN_SEATS} to {MAX_SEATS}? Enter keeps {len(seats)}.",
                                 MIN_SEATS, MAX_SEATS, len(seats))
        taken = {n for n, _ in seats}
        while len(seats) < count:
            name = free_bot_name(taken)
            taken.add(name)
            seats.append((name, "bot:medium"))
        seats = seats[:count]
        kinds = ["human"] + list(LEVELS)
        for i in range(count):
            name, kind = seats[i]
            earlier = [n for n, _ in seats[:i]]
            while True:
                # (a name an earlier seat has just taken cannot be kept: Start would refuse it)
                kept = name_taken(name, earlier) is None
                answer = self._ask(f"Seat {i + 1} name? " + (f"Enter keeps {name}." if kept else
                                   f"{name} is seat {name_taken(name, earlier) + 1}'s name now; type another."))
                if not answer and kept:
                    break
                try:
                    typed = normalise_name(answer) if answer else name
                except GameSetupError as exc:
                    self.con.say(f"{W.cap(str(exc))}.")
                    continue
                other = name_taken(typed, earlier)
                if other is None:
                    name = typed
                    break
                self.con.say(f"Seat {other + 1} is already {seats[other][0]}: each seat needs its own name; "
                             f"type another for seat {i + 1}, or q.")
            shown = "human" if kind == "human" else kind[4:]
            while True:
                answer = self._ask(f"Who plays {name}: human, or a bot level: {', '.join(LEVELS)}? "
                                      f"Enter keeps {shown}.").lower()
                if not answer:
                    break
                if answer in kinds:
                    kind = "human" if answer == "human" else f"bot:{answer}"
                    break
                self.con.say(f"Type human or one of {', '.join(LEVELS)}.")
            seats[i] = (name, kind)
        offer = self._offer_presets()
        while True:
            answer = self._ask(f"Rules: {offer} Enter keeps {rules}.")
            problem = rules_problem(answer or rules, seats=len(seats), fix="type other rules, or q")
            if problem is None:
                rules = answer or rules
                break
            self.con.say(problem)
        named = ", ".join(f"{i} for {n}" for i, (n, _) in enumerate(seats, start=1))
        while True:
            answer = self._ask(f"First dealer: rules, high-card, random, or a seat number ({named})? "
                                  "Enter keeps it as it is.").lower()
            if not answer:
                break
            if answer in DEALERS:
                dealer = answer
                break
            if answer.isdecimal() and 1 <= int(answer) <= len(seats):
                dealer = f"seat:{int(answer) - 1}"
                break
            self.con.say(f"Type rules, high-card, random, or a number from 1 to {len(seats)}.")
        if dealer.startswith("seat:") and int(dealer[5:]) >= len(seats):
            dealer = "rules"
        while True:
            answer = self._ask("Seed: a whole number for a deal you can play again, or Enter for a new deal.")
            if not answer:
                seed = None
                break
            if answer.isdecimal() and int(answer) < 2**63:
                seed = int(answer)
                break
            self.con.say("A seed is a whole number from 0 to 2 to the power 63, minus 1.")
        return seats, rules, dealer, seed

    def _ask_number(self, question: str, low: int, high: int, default: int) -> int:
        while True:
            answer = self._ask(question)
            if not answer:
                return default
            if answer.isdecimal() and low <= int(answer) <= high:
                return int(answer)
            self.con.say(f"Type a number from {low} to {high}, Enter, or q.")

    @staticmethod
    def _build(seats, rules_spec, dealer, seed):
        """The table as answered, through the New game screen's checks; ValueError saying why not."""
        from ..engine import Game
        from ..engine.game import GameSetupError
        from ..store.rule_presets import resolve
        from ..table.seats import SeatError, check_seats
        from ..tui.setup import TableSetup

        specs = [SeatSpec(name, kind) for name, kind in seats]
        try:
            check_seats(specs)
        except SeatError as exc:
            raise ValueError(W.cap(str(exc)) + ".") from None
        problem = rules_problem(rules_spec, seats=len(specs))
        if problem:
            raise ValueError(problem)
        rules, label = resolve(rules_spec)
        first = None
        if dealer.startswith("seat:"):
            first = specs[int(dealer[5:])].name
            rules = dataclasses.replace(rules, dealer_first="agree")
        elif dealer != "rules":
            rules = dataclasses.replace(rules, dealer_first=dealer)
        elif rules.dealer_first == "agree":
            first = specs[0].name
        setup = TableSetup(specs, rules, label, first_dealer=first)
        if seed is not None:
            setup.seed = seed
        try:
            Game([s.name for s in specs], rules, setup.seed, first_dealer=first, record_events=False)
        except (GameSetupError, ValueError) as exc:
            raise ValueError(str(exc)) from None
        return setup

    def _remember(self, seats, rules, dealer) -> None:
        from ..store.last_setup import LastSetup, save_last_setup

        try:
            save_last_setup(LastSetup(tuple(seats), rules, dealer))
        except OSError as exc:
            self.con.say(f"New game could not keep this setup: {exc.strerror or exc}.")


def rules_problem(spec: str, seats: int | None = None, fix: str | None = None) -> str | None:
    """None when ``spec`` names rules that load (and deal to ``seats`` players, when given);
    else one line saying why not: the rules questions of Settings and New game, and Start."""
    from ..engine.rules import RulesError
    from ..store.rule_presets import resolve

    try:
        rules, _ = resolve(spec)
    except RulesError as exc:
        more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
        return f"{exc.problems[0]}{more}."
    return None if seats is None else rules.too_many_seats(seats, fix)


def run(args) -> int:
    """`ono99 --plain` (and `ono99 resume --plain`): the menu, or straight to a saved game."""
    from ..store.settings import load_settings

    console = Console(stdin=terminal_stdin())
    settings, notices = load_settings()
    app = PlainApp(console, settings, rules_spec=getattr(args, "rules", None), bot_delay=bot_delay_from_env())
    if getattr(args, "theme", None) is not None:  # (it was taken, even a name that is no theme, in silence)
        notices.append("--theme is not used with --plain: lines of text have no colours.")
    for notice in notices:
        console.say(notice)
    try:
        name = getattr(args, "resume_name", None)
        if name:
            app.resume(name)
        app.menu()
    except EndOfInput:
        pass
    return 0
