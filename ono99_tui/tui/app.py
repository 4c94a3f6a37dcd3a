"""The ono99 Textual app: settings and themes in, screens out."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Iterable

from textual.app import App, SystemCommand
from textual.screen import Screen

from ..engine.rules import RulesError
from ..store.rule_presets import resolve as resolve_rules
from ..store.settings import Settings, bot_delay_from_env, load_settings
from ..text import visible
from . import textual_fixes  # noqa: F401 - guards for Textual bugs the UI fuzz found
from .commands import ThemeCommands
from .glyphs import ASCII, UNICODE
from .key_order import KeysInOrder
from .messages import ResumeFailed, ResumeGame, SavesRead, SettingsSaved, StartGame
from .screens.menu import MenuScreen
from .setup import TableSetup
from .themes import DEFAULT_THEME, ThemeError, ThemeFile, load_themes, skipped_notices

# The other screens (and the engine and bots behind the table) are imported when first
# used: the main menu comes up without them (benchmarks/startup.py).


class Ono99App(KeysInOrder, App):
    BINDINGS = KeysInOrder.KEY_BINDINGS  # (Tab as it is read: the keys after it go where it moved)
    CSS_PATH = Path(__file__).with_name("ono99.tcss")  # absolute: subclasses may live anywhere
    TITLE = "O'NO 99"

    def __init__(self, *, ascii: bool | None = None, rules_spec: str | None = None, theme: str | None = None,
                 bot_delay: float | None = None, seed: int | None = None, settings: Settings | None = None,
                 notices: Iterable[str] = (), resume_name: str | None = None):
        super().__init__()
        self._no_colour_at_all()
        self._measure_a_dumb_terminal()
        self.settings = settings or Settings()
        # command line and environment win over the settings file
        self.ascii = self.settings.ascii if ascii is None else ascii
        self.glyphs = ASCII if self.ascii else UNICODE
        self.bot_delay = self.settings.bot_delay if bot_delay is None else bot_delay
        self.seed = seed
        self.rules_spec = rules_spec or self.settings.rules
        self.rules_given = rules_spec is not None  # --rules: wins over New game's remembered rules
        self.wanted_theme = theme or self.settings.theme
        self.notices = list(notices)
        self.resume_name = resume_name
        self.continue_name: str | None = None  # the game "Continue" opens, found by the menu
        # save name -> seat -> play number -> the hand slot it was played from: which of two alike
        # cards was pressed is in no event, so a table left and opened again here keeps its slots
        # (engine/hand_order.py)
        self.hand_picks: dict[str, dict[int, dict[int, int]]] = {}
        self.saves_problem: str | None = None
        try:
            self.rules, self.rules_label = resolve_rules(self.rules_spec)
        except RulesError as exc:
            if rules_spec:  # asked for on the command line: the caller reports it
                raise
            self.notices.append(f"Settings: rules: {exc}; using standard")
            self.rules_spec = "standard"
            self.rules, self.rules_label = resolve_rules(None)
        # themes go in before the first screen is styled: setting one later restyles everything
        themes, problems = load_themes()
        self.ono99_themes: dict[str, ThemeFile] = themes
        for tf in themes.values():
            self.register_theme(tf.theme)
        self.notices.extend(skipped_notices(problems))
        if self.wanted_theme in themes:
            try:
                self._first_theme(self.wanted_theme)
            except Exception as exc:  # noqa: BLE001 - a theme the checks missed never stops the app
                self.notices.append(f"Theme {self.wanted_theme!r} cannot be used ({exc}); using {DEFAULT_THEME}")
                self._first_theme(DEFAULT_THEME)
        elif theme:  # asked for on the command line: an error there, as an unknown --rules is
            broken = [p for p in problems if theme in getattr(p, "names", ())]
            if broken:  # its file is there, named by its file name or the name in it: say what is wrong
                raise ThemeError(f"--theme: {'; '.join(broken)}")
            folder = "".join(f"; {p}" for p in problems if not getattr(p, "names", ()))  # (unreadable)
            raise ThemeError(f"--theme: no theme named {theme!r} (themes: {', '.join(themes)}){folder}")
        else:
            self.notices.append(f"Theme {self.wanted_theme!r} not found (themes: {', '.join(themes)}); "
                                f"using {DEFAULT_THEME}")
            self._first_theme(DEFAULT_THEME)

    def _measure_a_dumb_terminal(self) -> None:
        """Rich never measures a terminal whose TERM is dumb or unknown (80x25, always), and Textual
        takes the app's first size from Rich; its driver then sends the size it measures. Two sizes
        at every start (80x25, then the real 80x24 or 120x40): the screen laid out at each in
        turn for ever (tui/textual_fixes.py now stops that). Rich is given the size the driver
        reads (tui/textual_fixes.terminal_size), so the first size is the real one."""
        if self.console.is_dumb_terminal:
            from .textual_fixes import terminal_size

            self.console.size = terminal_size() or shutil.get_terminal_size()

    def _no_colour_at_all(self) -> None:
        """NO_COLOR means no colour (no-color.org): Textual turns it into greys instead (its
        Monochrome filter: 256-colour grey codes, dark backgrounds forced on a light terminal).
        Without colour the terminal's own foreground and background are used throughout; focus,
        cards and the current seat show by reverse, bold and text (ono99.tcss). Textual keeps
        its filters in the private ``_filters``: tests/test_no_color.py fails if that moves."""
        from textual.filter import Monochrome, NoColor

        if self.no_color:
            self._filters[:] = [NoColor() if isinstance(f, Monochrome) else f for f in self._filters]

    async def action_quit(self) -> None:
        """Ctrl+Q from a game whose plays are kept nowhere (opened read-only, or saving failed)
        asks first, as Escape there does; anything else quits at once."""
        from .screens.game import GameScreen
        from .screens.notice import _Notice

        game = next((s for s in reversed(self.screen_stack) if isinstance(s, GameScreen)), None)
        question = game._unsaved_question() if game is not None else None
        if question is None or isinstance(self.screen, _Notice) and self.screen.title_text == question[0]:
            self.exit()  # (nothing to lose, or asked already: a second Ctrl+Q quits)
            return
        game.ask_then((*question[:2], "Quit anyway"), self.exit)

    def _first_theme(self, name: str) -> None:
        """Set the theme before the app runs. ``self.theme = name`` would also queue Textual's
        restyle of the whole app (every stylesheet parsed again, ~10% of a bare app's start)
        right after the first styling, which can use this theme from the start: the rest of what
        the watcher and that restyle do is done here instead (tests/test_textual_private.py
        fails if what it uses moves)."""
        self.set_reactive(Ono99App.theme, name)
        theme = self.current_theme
        classes = dict.fromkeys((c for c in self.classes if c.startswith("-theme-")), False)
        classes.update({f"-theme-{theme.name}": True, "-dark-mode": theme.dark, "-light-mode": not theme.dark})
        self.update_classes(classes, update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())  # made in App.__init__, before the theme

    def action_help_quit(self) -> None:
        """Ctrl+C: how to quit, said as text. (Textual's own notice is written in markup, which
        every notice here shows as it is: a play-tester saw "Press [b]ctrl+q[/b]".)"""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key} to quit the app.", title="Do you want to quit?")
                return

    def notify(self, message: str, *, title: str = "", severity="information", timeout=None,
               markup: bool = True) -> None:
        """Every notice is plain text: they carry names, file names and messages from files,
        which must be shown, never interpreted as markup or sent raw to the terminal."""
        super().notify(visible(message, keep_newlines=True), title=visible(title), severity=severity,
                       timeout=timeout, markup=False)

    def get_key_display(self, binding) -> str:
        """Keys as the footer names them; in ASCII a key shown by a symbol (Enter's) by its name."""
        text = super().get_key_display(binding)
        return text if not self.ascii or text.isascii() else binding.key

    # -- start ---------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._exit_on_sigterm()
        if self.ascii:
            self.add_class("ascii")
        if self.no_color:
            self.add_class("no-color")  # (ono99.tcss: what colour showed, reverse shows)
        for text in self.notices:
            self.notify(text, severity="warning", timeout=12)
        if self.resume_name:
            self.call_after_refresh(self.resume, self.resume_name)

    def _exit_on_sigterm(self) -> None:
        """`kill PID` (SIGTERM) leaves as quitting does: the terminal given back (alternate screen
        left, cursor shown, mouse off), the game saved, a hosted table's guests told. Left to the
        default action the process died mid-screen and left the terminal broken."""
        import asyncio
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            return  # (signal handlers belong to the main thread: a test's app on another has none)
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, lambda: self.exit(return_code=143))
        except (NotImplementedError, RuntimeError, ValueError):  # (no signals here: not on Windows)
            pass

    def apply_settings(self, settings: Settings) -> None:
        """Saved from the Settings screen: use them now (ASCII waits for the next start)."""
        self.settings = settings
        self.bot_delay = settings.bot_delay
        try:
            self.rules, self.rules_label = resolve_rules(settings.rules)
            if settings.rules != self.rules_spec:
                self.rules_given = True  # just chosen in Settings: New game uses them this run
            self.rules_spec = settings.rules
        except RulesError as exc:
            self.notify(str(exc), severity="warning")

    def preset_saved(self, name: str, rules) -> None:
        """The player's preset ``name`` was saved with ``rules``: the quick games of this run that use
        it (Settings' rules, or --rules NAME) play them from now on, not the rules read at start."""
        if self.rules_spec == name:
            self.rules = rules

    def uses_preset(self, name: str) -> bool:
        """Whether Settings name the player's preset ``name`` as their rules (this run's, or
        config.toml's, which the next start reads)."""
        return self.settings.rules == name or load_settings()[0].rules == name

    def follow_preset(self, old: str, new: str | None) -> Path | None:
        """The player's preset ``old`` renamed to ``new``, or deleted (None): Settings that name
        it name the new name, or go back to standard, saved at once; quick games this run use it
        by its new name (a play-tester's were labelled with a name that no longer existed, and the
        next start warned and fell back to standard). The settings file written, or None when it
        named other rules; OSError when it could not be written (this run follows all the same)."""
        import dataclasses

        from ..store.settings import follow_preset

        spec = new or "standard"
        if self.settings.rules == old:
            self.settings = dataclasses.replace(self.settings, rules=spec)
        if self.rules_spec == old:  # (from Settings, or --rules NAME: the same preset, by its name now)
            self.rules_spec = spec
            try:
                self.rules, self.rules_label = resolve_rules(spec)
            except RulesError:  # (its file changed on disk meanwhile: the rules read before, renamed)
                self.rules_label = spec
        from ..store.last_setup import follow_preset as follow_in_new_game

        try:  # (New game's remembered rules: a preference, never a reason for the rename to fail)
            follow_in_new_game(old, spec)
        except (OSError, ValueError):
            pass
        return follow_preset(old, spec)

    def get_default_screen(self) -> Screen:
        return MenuScreen()  # the menu is the bottom screen: one screen to build at start

    # -- navigation ------------------------------------------------------------------------
    def quick_setup(self) -> TableSetup:
        return TableSetup.default(name=self.settings.player_name, rules=self.rules,
                                  rules_label=self.rules_label, seed=self.seed)

    def new_game_screen(self):
        from .screens.new_game import NewGameScreen

        return NewGameScreen(self.settings.player_name, self.rules_spec, self.seed, rules_given=self.rules_given)

    def start_game(self, setup: TableSetup, replace_screen: bool = False) -> None:
        from .screens.game import GameScreen

        if replace_screen:
            self.switch_screen(GameScreen(setup))
        else:
            self.push_screen(GameScreen(setup))

    def menu_available(self, found: tuple | None = None) -> dict[str, str]:
        """Menu entries that can be chosen now (value ""), and for the others why not ("_why_KEY").

        Reads each save's listing line (an index, a directory scan: store/saves.py), newest first,
        up to the first unfinished one. On the UI thread it reads at most MENU_READS saves the index
        does not know yet (a version-1 save, a folder copied in); when more are needed, a worker reads
        and indexes them and the menu is refreshed when it is done (the next visit is a listing)."""
        ready = dict.fromkeys(("new", "quick", "rules", "settings", "stats", "help", "quit"), "")
        if found is None:  # (given: what the worker below read, SavesRead)
            found = _peek_saves(MENU_READS)
            if found[3]:
                self.run_worker(self._read_menu_saves, thread=True, exclusive=True, group="menu-saves")
        any_save, self.continue_name, self.saves_problem, reading = found
        self._menu_found = found  # (the menu drawn from what was just read, not read again)
        if any_save:
            ready["load"] = ""
        else:
            ready["_why_load"] = "cannot read the saves folder" if self.saves_problem else "no saved games"
        if self.continue_name:
            ready["continue"] = ""
        else:
            ready["_why_continue"] = ("reading the saves" if reading else "cannot read the saves folder"
                                      if self.saves_problem else "no unfinished game")
        return ready

    def _read_menu_saves(self) -> None:
        """The menu's look at the saves, every one read (and indexed): on a worker thread."""
        found = _peek_saves(None)
        self.call_from_thread(self._menu_saves_read, found)

    def _menu_saves_read(self, found) -> None:
        self.screen.post_message(SavesRead(found))  # the menu, if it is on top, redraws from it

    # -- what screens ask for (tui/messages.py) ------------------------------------------------
    def on_start_game(self, message: StartGame) -> None:
        self.start_game(message.setup, replace_screen=message.replace_screen)

    def on_resume_game(self, message: ResumeGame) -> None:
        self.resume(message.name, replace_screen=message.replace_screen)

    def on_settings_saved(self, message: SettingsSaved) -> None:
        self.apply_settings(message.settings)

    def resume(self, name: str, replace_screen: bool = False) -> bool:
        """Open a saved game where it stopped: replayed once, events kept for the last rounds only
        (the table's log starts there instead of formatting every past play). If it cannot be
        opened the screen on top is told (ResumeFailed): the menu and Load then list it as it is."""
        from ..net.manifest import kept_refusal
        from ..store.saves import SaveError, SaveStore
        from .screens.game import GameScreen

        refused = kept_refusal(name)
        if refused:  # a live network table's game: never opened with every hand here
            self.notify(refused, severity="error", timeout=12, markup=False)
            self.screen.post_message(ResumeFailed(name))
            return False
        try:
            record, game = SaveStore().open_game(name, events_from_round=-1)
        except SaveError as exc:
            self.notify(str(exc), severity="error", timeout=10, markup=False)
            self.screen.post_message(ResumeFailed(name))
            return False
        setup = TableSetup(record.seats, record.rules, str(record.meta.get("rules", "custom")), seed=record.seed,
                           first_dealer=record.first_dealer, decks=record.decks or None)
        screen = GameScreen(setup, game=game, save_name=name, undo_used=record.meta.get("undo_used") is True,
                            game_id=record.game_id)
        if replace_screen:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        return True

    def menu_choice(self, key: str) -> None:
        if key == "quit":
            self.exit()
        elif key == "help":
            self.action_rules_help()
        elif key == "new":
            self.push_screen(self.new_game_screen())
        elif key == "quick":
            self.start_game(self.quick_setup())
        elif key == "theme":
            self.search_themes()
        elif key == "continue":
            why = "no unfinished game"
            if not self.continue_name:
                # the menu may have been drawn before another ono99 on this folder saved a game:
                # c looked at nothing new, and did nothing, however often pressed
                why = self.menu_available().get("_why_continue", why)
                if hasattr(self.screen, "refresh_options"):
                    self.screen.refresh_options(self._menu_found)
            if self.continue_name:
                self.resume(self.continue_name)
            else:
                self.notify(f"Cannot continue: {why}." if why != "no unfinished game"
                            else "No unfinished game to continue.", timeout=4)
        elif key == "load":
            from .screens.load import LoadScreen

            self.push_screen(LoadScreen())
        elif key == "stats":
            from .screens.stats import StatsScreen

            self.push_screen(StatsScreen())
        elif key == "rules":
            from .screens.rules_view import RulesViewScreen

            self.push_screen(RulesViewScreen(self.rules_spec))
        elif key == "settings":
            from .screens.settings import SettingsScreen

            self.push_screen(SettingsScreen(self.settings))

    def on_game_screen_finished(self, message) -> None:
        """The table screen's game is over and the player chose: again, or back to the menu."""
        self.pop_screen()
        setup = message.setup
        if message.choice == "again":
            self.start_game(TableSetup(setup.seats, setup.rules, setup.rules_label, first_dealer=setup.first_dealer))

    # -- commands (palette) ------------------------------------------------------------------
    def action_rules_help(self) -> None:
        from .screens.modals import HelpScreen

        screen = self.screen
        if hasattr(screen, "help_screen"):  # a screen with rules of its own (the table's) says which
            self.push_screen(screen.help_screen())
        else:
            self.push_screen(HelpScreen(self.rules, self.rules_label))

    def table_view(self, below=None):
        """The PlayerView of the table on screen (or under ``below``), for the card reference; else None.

        The seat is the one whose hand the table shows (hot-seat: the player at the keyboard).
        """
        from textual.screen import SystemModalScreen

        stack = [s for s in self.screen_stack if not isinstance(s, SystemModalScreen)]  # the palette
        if below in stack:
            stack = stack[:stack.index(below)]
        table = stack[-1] if stack else None  # only right on top: never from under a "Pass to" screen
        return table.card_view() if _is_table(table) else None

    def action_card_reference(self) -> None:
        from .screens.reference import CardReferenceScreen

        view = self.table_view()
        if view is not None:
            self.push_screen(CardReferenceScreen(view))

    def action_new_game(self) -> None:
        if not getattr(self.screen, "is_new_game", False):  # not a second New game over the first
            self.push_screen(self.new_game_screen())

    def action_command_palette(self) -> None:
        if not self.ascii:
            super().action_command_palette()
            return
        from textual.command import CommandPalette

        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(CommandPalette(id="--command-palette", placeholder="Search for commands..."))
            self.call_after_refresh(self._ascii_palette)

    def _ascii_palette(self) -> None:
        from textual.command import SearchIcon

        for icon in self.screen.query(SearchIcon):
            icon.icon = ">"  # the palette's magnifier is not ASCII
            icon.refresh()

    def search_themes(self) -> None:
        from textual.command import CommandPalette

        self.push_screen(CommandPalette(providers=[ThemeCommands], placeholder="Search for themes..."))
        if self.ascii:
            self.call_after_refresh(self._ascii_palette)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield SystemCommand("New game", "Set up a new table: seats, bots, rules, dealer, seed", self.action_new_game)
        from .setup import quick_words

        yield SystemCommand("Quick game", f"You against {quick_words(self.rules, 'medium')}, now",
                            lambda: self.start_game(self.quick_setup()))
        yield SystemCommand("Rules", "The rules and the house rules in force", self.action_rules_help)
        yield SystemCommand("Help", "How to play and the keys", self.action_rules_help)
        if _is_table(screen):
            yield SystemCommand("Card reference", "What each card does, how many the deck holds, how many "
                                "you have seen", self.action_card_reference)
        if hasattr(screen, "palette_commands"):  # palette entries of the screen itself
            yield from screen.palette_commands()
        for command in super().get_system_commands(screen):
            if self.ascii and command.title in NOT_ASCII_COMMANDS:
                continue  # (Textual's: Maximize hatches the screen with "╱", Keys draws its panel with "▏")
            if command.title == "Theme":
                yield SystemCommand("Theme", "Change the colour theme (ono99 themes and your own)", self.search_themes)
            else:
                yield command


NOT_ASCII_COMMANDS = ("Maximize", "Keys")  # Textual's own palette commands that draw what ASCII has not


MENU_READS = 4  # saves the index does not know that the menu reads on the UI thread (~10 ms each at most)


def _peek_saves(read_at_most: int | None) -> tuple[bool, str | None, str | None, bool]:
    """(any save, the latest unfinished one, why the folder cannot be read, more to read):
    the saves newest first up to the first unfinished one, never replaying one. A save a network
    server keeps is passed over: its game goes on there (Continue would only be refused)."""
    from ..net.manifest import kept_saves
    from ..store.saves import SaveError, SaveStore

    any_save, unread = False, False
    kept = kept_saves()
    try:
        for info in SaveStore().infos(replay=False, read_at_most=read_at_most):
            any_save = True
            if not info.known:
                unread = True  # it may be the latest unfinished one: a worker reads it
            elif not unread and not info.damaged and not info.finished and info.name not in kept:
                return True, info.name, None, False
    except SaveError as exc:
        return any_save, None, str(exc), False
    return any_save, None, None, unread


def _is_table(screen) -> bool:
    """A screen showing a table: it can give the view the card reference shows. (Asked of the
    screen, not its class: the table screen loads when first used.)"""
    return callable(getattr(screen, "card_view", None))


def need_terminal() -> None:
    """The game screen draws on a terminal and reads its keys: with input or output piped (a
    script, `ono99 | less`, cron) it would write escape codes nobody sees and read keys as
    nothing. One line instead, naming the way that works there. (A web tab's child runs with
    Textual's web driver, which brings its own terminal.)"""
    from ..errors import UserError

    if os.environ.get("TEXTUAL_DRIVER"):
        return
    streams = [("input", sys.stdin), ("output", sys.stdout)]
    piped = [what for what, stream in streams if stream is None or not _isatty(stream)]
    if piped:
        raise UserError(f"the game screen needs a terminal, and standard {' and '.join(piped)} "
                        f"{'is' if len(piped) == 1 else 'are'} not one: add --plain for the game in lines "
                        "of text (for pipes and screen readers)")


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # (closed, or replaced by something else)
        return False


def run_app(args) -> int:
    from ..errors import UserError

    settings, notices = load_settings()
    try:
        bot_delay = bot_delay_from_env(os.environ)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    from .glyphs import choose_ascii

    flag = "ascii" if getattr(args, "ascii", False) else "unicode" if getattr(args, "unicode", False) else None
    try:
        ascii = choose_ascii(flag, os.environ, settings.ascii)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        app = Ono99App(ascii=ascii,
                       rules_spec=getattr(args, "rules", None), theme=getattr(args, "theme", None),
                       bot_delay=bot_delay, settings=settings, notices=notices,
                       resume_name=getattr(args, "resume_name", None))
    except RulesError as exc:
        raise UserError(f"--rules: {exc}") from None
    except ThemeError as exc:
        raise UserError(str(exc)) from None
    need_terminal()  # (after what was given is checked: a wrong --theme says so, piped or not)
    app.run()
    # Textual has printed the traceback of an error nothing caught: a crash is not a quit, so the
    # exit status says so (SIGTERM quits as q does: 0)
    return 1 if app.return_code == 1 else 0
