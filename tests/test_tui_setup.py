"""New game, themes, settings and the command palette, driven as a player drives them (Pilot)."""

from contextlib import asynccontextmanager

import pytest
from textual.widgets import Input, Select

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.settings import Settings, load_settings
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.new_game import NewGameScreen, SeatRow
from ono99_tui.tui.screens.settings import SettingsScreen
from ono99_tui.tui.setup import TableSetup
from ono99_tui.tui.widgets.card import CardWidget
from tests.stacked import stacked_deck
from tests.waits import palette_ready
from textual.command import CommandList


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_new_game_defaults_start_with_one_key():
    """You against three medium bots, standard rules: n, then Enter."""
    app = Ono99App(bot_delay=600, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, NewGameScreen)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.game.names == ("You", "Bo", "Cy", "Di")
        assert screen.kinds == ["human", "medium", "medium", "medium"]
        assert screen.table.game.rules == DEFAULT and screen.setup.rules_label == "standard"


async def test_seats_from_two_to_eight_with_levels_names_dealer_and_seed():
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        form = app.screen
        for _ in range(6):
            await pilot.press("ctrl+a")
        assert len(form.query(SeatRow)) == 8
        await pilot.press("ctrl+a")
        assert len(form.query(SeatRow)) == 8 and "at most 8 seats" in str(form.query_one("#form-error").render())
        for _ in range(6):
            await pilot.press("ctrl+d")
        await pilot.press("ctrl+d")
        assert len(form.query(SeatRow)) == 2 and "at least 2 seats" in str(form.query_one("#form-error").render())
        rows = list(form.query(SeatRow))
        rows[0].query_one(Input).value = "Ana"
        rows[1].query_one(Select).value = "bot:hard"
        await pilot.pause()
        form.query_one("#dealer", Select).value = "seat:1"
        form.query_one("#seed", Input).value = "42"
        await pilot.press("ctrl+s")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.game.names == ("Ana", "Bo") and screen.kinds == ["human", "hard"]
        assert screen.table.game.first_dealer == 1 and screen.table.game.dealer_method == "named"
        assert screen.setup.seed == 42
        first_hand = list(screen.table.game.hands[0])
    again = Ono99App(bot_delay=600)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        form = again.screen
        await pilot.press("ctrl+d", "ctrl+d")
        list(form.query(SeatRow))[0].query_one(Input).value = "Ana"
        list(form.query(SeatRow))[1].query_one(Select).value = "bot:hard"
        form.query_one("#dealer", Select).value = "seat:1"
        form.query_one("#seed", Input).value = "42"
        await pilot.press("ctrl+s")
        assert list(again.screen.table.game.hands[0]) == first_hand  # the same seed deals the same cards


async def test_two_seats_added_in_one_tick_both_come():
    """The second add asks the first new row for its name before that row is composed."""
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        form.action_add_seat()
        form.action_add_seat()
        await pilot.pause()
        rows = list(form.query(SeatRow))
        assert len(rows) == 6
        names = [r.spec.name for r in rows]
        assert len(set(names)) == 6 and all(names)


@pytest.mark.parametrize("change, message", [
    (lambda f: list(f.query(SeatRow))[1].query_one(Input).__setattr__("value", "You"), "must differ"),
    (lambda f: list(f.query(SeatRow))[2].query_one(Input).__setattr__("value", ""), "Seat 3 needs a name"),
    (lambda f: f.query_one("#rules-file", Input).__setattr__("value", "/nonexistent/house.toml"), "cannot read the rules file"),
    # a pasted run of 5,000 digits was told Python's "Exceeds the limit (4300 digits) for integer string conversion"
    (lambda f: f.query_one("#seed", Input).__setattr__("value", "9" * 5000), "Seed must be from 0 to 2^63-1."),
    (lambda f: f.query_one("#seed", Input).__setattr__("value", "x" * 5000), "Seed must be a whole number, not 'xxx"),
])
async def test_bad_setup_is_explained_and_the_form_stays(change, message):
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        change(app.screen)
        await pilot.pause()
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, NewGameScreen)
        assert message in str(app.screen.query_one("#form-error").render())


async def test_a_rules_file_with_a_bad_key_names_the_file_and_key(tmp_path):
    bad = tmp_path / "house.toml"
    bad.write_text("[scoring]\ntokens = 0\n")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        app.screen.query_one("#rules-file", Input).value = str(bad)
        await pilot.press("ctrl+s")
        text = str(app.screen.query_one("#form-error").render())
        assert str(bad) in text and "scoring.tokens" in text


async def test_command_palette_offers_new_game_rules_theme_help():
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"New game", "Rules", "Theme", "Help", "Quit"} <= set(titles)
        await pilot.press("ctrl+p")
        await pilot.press(*"new game")
        await palette_ready(pilot)
        results = app.screen.query_one(CommandList)
        assert results.highlighted is not None
        assert "New game" in str(results.get_option_at_index(results.highlighted).prompt)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)


def test_shipped_themes_are_installed_and_valid():
    from ono99_tui.tui.themes import shipped_themes

    names = set(shipped_themes())
    assert {"ono99-dark", "ono99-light", "ono99-high-contrast", "ono99-ansi"} <= names


@pytest.mark.parametrize("text, problem", [
    ("name = 'mine'\n[colors]\nprimary = 'not-a-colour'\n", "colors.primary: 'not-a-colour' is not a colour"),
    ("name = 'mine'\n[colors\n", "not valid TOML"),
    ("name = 'mine'\ncolour = 1\n[colors]\nprimary = '#123456'\n", "unknown key 'colour'"),
    ("name = 'ono99-dark'\n[colors]\nprimary = '#123456'\n", "is a shipped theme"),
    ("name = 'Bad Name'\n[colors]\nprimary = '#123456'\n", "name: must be"),
])
async def test_a_broken_theme_file_is_named_in_a_notice_and_the_app_falls_back(private_dirs, text, problem):
    folder = private_dirs / "config" / "themes"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(text)
    # named in the settings file (on the command line an unknown theme is an error, as --rules is)
    app = Ono99App(bot_delay=600, settings=Settings(theme="mine"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        said = "\n".join(notices(app))
        assert "mine.toml" in said and problem in said
        assert app.theme == "ono99-dark"


async def test_a_user_theme_is_loaded_and_used(private_dirs):
    folder = private_dirs / "config" / "themes"
    folder.mkdir(parents=True)
    (folder / "plum.toml").write_text("name = 'plum'\ndark = true\n[colors]\nprimary = '#8E4585'\n")
    app = Ono99App(bot_delay=600, theme="plum")
    async with app.run_test(size=(80, 24)):
        assert app.theme == "plum" and not notices(app)


async def test_a_broken_settings_file_warns_with_file_and_line_and_is_not_overwritten(private_dirs):
    path = private_dirs / "config" / "config.toml"
    path.parent.mkdir(parents=True)
    original = "theme = 'ono99-light'\nbot_delay = 'slow'\n"
    path.write_text(original)
    settings, problems = load_settings()
    assert settings.theme == "ono99-light" and settings.bot_delay == 0.6
    app = Ono99App(settings=settings, notices=problems)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        said = "\n".join(notices(app))
        assert f"{path}, line 2: bot_delay" in said
        assert app.theme == "ono99-light"
        await pilot.press("g")
        await pilot.pause()
    assert path.read_text() == original


async def test_settings_screen_changes_theme_live_and_saves(private_dirs):
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("settings")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#theme", Select).value = "ono99-high-contrast"
        await pilot.pause()
        assert app.theme == "ono99-high-contrast"
        screen.query_one("#bot_delay", Input).value = "9"
        await pilot.press("ctrl+s")
        assert "bot_delay" in str(screen.query_one("#form-error").render())
        screen.query_one("#bot_delay", Input).value = "0.2"
        screen.query_one("#player_name", Input).value = "Ana"
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved, problems = load_settings()
    assert not problems
    assert saved == Settings(theme="ono99-high-contrast", bot_delay=0.2, player_name="Ana")


def stacked_setup(hands, draw=()):
    seats = [SeatSpec("You")] + [SeatSpec(n, "bot:easy") for n in ("Bo", "Cy")][: len(hands) - 1]
    deck = stacked_deck(DEFAULT, hands, list(draw))
    return TableSetup(seats, DEFAULT, "standard", seed=1, first_dealer=seats[-1].name, decks={1: deck})


@asynccontextmanager
async def you_play(setup, card: str):
    """The table of ``setup`` at 80x24, You having played ``card`` by its number key: (app, screen)."""
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup)
        await pilot.pause()
        screen = app.screen
        chosen = next(c for c in screen.query(CardWidget) if c.card == card)
        await pilot.press(str(chosen.index))
        await pilot.pause()
        yield app, screen


async def test_a_double_play_as_a_human_makes_the_next_player_play_twice():
    """R6.3: You play Double Play by its number key; Bo must then make two plays."""
    setup = stacked_setup([["double", "2", "3", "4"], ["5", "6", "7", "8"], ["2", "3", "4", "5"]])
    async with you_play(setup, "double") as (app, screen):
        game = screen.table.game
        assert game.plays == [(0, "double")] and game.current == 1 and game.owed == 2
        assert "Bo must play twice" in str(screen.query_one("#table").query_one("#double").render())
        assert "Bo must play twice" in "\n".join(screen.query_one("#log").lines)


async def test_a_reverse_as_a_human_turns_play_around():
    """R6.2: with three players, your Reverse sends play to the right (Cy), total unchanged."""
    setup = stacked_setup([["reverse", "2", "3", "4"], ["5", "6", "7", "8"], ["2", "3", "4", "5"]])
    async with you_play(setup, "reverse") as (app, screen):
        game = screen.table.game
        assert game.plays == [(0, "reverse")] and game.direction == -1 and game.current == 2 and game.total == 0
        assert "right" in str(screen.query_one("#table").render()) or "right" in screen_text(app)
        log = screen.query_one("#log").lines
        assert any("You play Reverse \u2014 0 stays, direction flips" in line for line in log)


async def test_with_two_players_the_log_says_a_reverse_is_a_hold_never_that_the_direction_flips():
    """R6.2: between 2 players a Reverse acts as a Hold (the engine never flips the direction);
    the log said "You play Reverse \u2014 0 stays, direction flips"."""
    setup = stacked_setup([["reverse", "2", "3", "4"], ["5", "6", "7", "8"]])
    async with you_play(setup, "reverse") as (app, screen):
        game = screen.table.game
        assert game.plays == [(0, "reverse")] and game.direction == 1 and game.current == 1
        log = "\n".join(screen.query_one("#log").lines)
        assert "You play Reverse \u2014 0 stays (a Hold with two players)" in log
        assert "direction flips" not in log


def screen_text(app) -> str:
    from tests.test_tui_play import screen_text as text

    return text(app)


async def test_eight_seats_all_show_on_the_scoreboard_at_80x24():
    app = Ono99App(bot_delay=600, seed=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", *["ctrl+a"] * 4, "ctrl+s")
        await pilot.pause()
        text = screen_text(app)
        for name in ("You", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"):
            assert f" {name} " in text, name


async def test_escape_from_settings_with_changes_asks_and_without_changes_goes_back(private_dirs):
    """A stranger's find: a name and a bot delay typed, then Escape (the footer's "Back"): the
    changes went without a word. With changes Escape asks (Stay first); without, it goes back."""
    from ono99_tui.tui.screens.notice import _Notice
    from tests.waits import settle

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("settings")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        await pilot.press("escape")  # nothing changed: back at once
        await settle(pilot)
        assert not isinstance(app.screen, (SettingsScreen, _Notice))
        app.menu_choice("settings")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#player_name", Input).value = "Ana"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, _Notice)
        await pilot.press("escape")  # Stay
        await settle(pilot)
        assert app.screen is screen and screen.query_one("#player_name", Input).value == "Ana"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("right", "enter")  # Save
        await settle(pilot)
        assert not isinstance(app.screen, (SettingsScreen, _Notice))
    saved, _ = load_settings()
    assert saved.player_name == "Ana"


async def test_a_long_reason_not_to_start_keeps_start_in_view(private_dirs, tmp_path):
    """A play-tester's two-line "Cannot start" pushed the Start button below the dialog's edge
    at 80x24. The reason and Start are both on screen."""
    broken = tmp_path / "a-rules-file-with-a-long-enough-name.toml"
    broken.write_text("target = [oops\n")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        app.screen.query_one("#rules-file", Input).value = str(broken)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        start, error = app.screen.query_one("#start"), app.screen.query_one("#form-error")
        assert "Cannot start" in str(error.render()) and error.region.height >= 2
        form = start.parent
        while not form.is_scrollable:
            form = form.parent
        assert form.content_region.contains_region(start.region)
        assert form.content_region.contains_region(error.region)


# 38 cards (one of each number), ten to a hand: they deal to at most three players
THREE_AT_MOST = "hand_size = 10\n[deck]\nnumber_each = 1\n"


async def test_a_quick_game_under_rules_for_at_most_three_players_seats_two_bots(private_dirs, tmp_path):
    """A play-tester started `ono99 --rules small.toml` (ten cards a hand, a 38-card deck) and
    pressed g: the quick game seated four, and the app died with a traceback (GameSetupError:
    4 players x 10 cards needs 40 cards). It seats as many bots as the rules deal to."""
    rules = tmp_path / "small.toml"
    rules.write_text(THREE_AT_MOST)
    app = Ono99App(bot_delay=600, seed=4, rules_spec=str(rules))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.game.names == ("You", "Bo", "Cy")
        assert screen.kinds == ["human", "medium", "medium"]
        assert screen.table.game.rules.hand_size == 10


def test_the_quick_table_fits_the_rules():
    from ono99_tui.engine.rules import load_rules_text

    assert len(TableSetup.default(rules=DEFAULT).seats) == 4
    assert [s.name for s in TableSetup.default(rules=load_rules_text(THREE_AT_MOST)).seats] == ["You", "Bo", "Cy"]


async def test_the_menu_says_how_many_bots_the_quick_game_seats(private_dirs, tmp_path):
    from textual.widgets import OptionList

    rules = tmp_path / "small.toml"
    rules.write_text(THREE_AT_MOST)
    for spec, words in ((None, "three medium bots"), (str(rules), "two medium bots")):
        app = Ono99App(bot_delay=600, rules_spec=spec)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            menu = app.screen.query_one("#menu", OptionList)
            assert str(menu.get_option("quick").prompt) == f"Quick game: you against {words}"


def test_two_theme_files_of_one_name_keep_the_first_and_say_why_the_other_is_not_used(tmp_path):
    # a.toml and b.toml both saying name = "plum": b's colours were used and a's dropped, unsaid
    from ono99_tui.tui.themes import load_themes

    (tmp_path / "a.toml").write_text("name = 'plum'\n[colors]\nprimary = '#8E4585'\n")
    (tmp_path / "b.toml").write_text("name = 'plum'\n[colors]\nprimary = '#00FF00'\n")
    themes, problems = load_themes(tmp_path)
    assert themes["plum"].theme.primary.upper() == "#8E4585"
    assert problems == [f"{tmp_path / 'b.toml'}: name: 'plum' is the name of your theme in a.toml too; "
                        "give this one another name"]
    assert problems[0].names == {"b", "plum"}


async def test_a_double_play_before_you_reads_you_must_play_twice_in_lower_case_in_the_log():
    """A play-tester's log read "Bo plays Double Play — 3 stays; You must play twice": the default
    name "You" kept its capital mid-line, where a lost round's "; you give up a token" did not."""
    from tests.keys_table import TableApp, double

    app = TableApp(double())
    async with app.run_test(size=(120, 36)) as pilot:  # (a log with room for whole lines)
        await pilot.pause()
        log = "\n".join(app.screen.query_one("#log").lines)
        assert "Bo plays Double Play — 2 stays; you must play twice" in log, log
