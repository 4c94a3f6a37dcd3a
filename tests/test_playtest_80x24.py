"""Issue 12, second play-test at 80x24 (Pilot). Waits on the app's own signals only: its workers
finishing and its message queue going idle, never on a clock."""

from textual.widgets import Input, Select

from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.new_game import NewGameScreen

SIZE = (80, 24)


async def test_new_game_dealer_list_agrees_with_you():
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        labels = [str(prompt) for prompt, _ in app.screen.query_one("#dealer", Select)._options]
        assert "You deal first" in labels and "Bo deals first" in labels
        assert not any("You deals" in label for label in labels)


async def test_new_game_focuses_the_first_name_and_typing_changes_it():
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, NewGameScreen)
        first = form.query(".seat-name").first(Input)
        assert app.focused is first
        await pilot.press("ctrl+u", *"Ann")  # clears the field, then types
        assert first.value == "Ann"
        await pilot.press("enter")  # Enter still starts
        assert app.screen.game.names[0] == "Ann"


async def test_new_game_rules_field_names_the_rules_file_in_effect(tmp_path):
    path = tmp_path / "friday.toml"
    path.write_text("[scoring]\ntokens = 2\n")
    app = Ono99App(bot_delay=600, rules_spec=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        preset = app.screen.query_one("#preset", Select)
        assert preset.value == str(path)
        assert "friday.toml" in str(preset.query_one("SelectCurrent").render()) or \
            "friday.toml" in str(dict((v, p) for p, v in preset._options)[preset.value])
        await pilot.press("enter")
        assert app.screen.game.rules.scoring_tokens == 2


async def test_new_game_only_the_focused_seat_row_is_marked():
    """The reversed row number follows the focus (it stayed on row 1 after Tab left it)."""
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "tab", "tab")  # the first name, its kind, the second name
        marked = [bool(label.styles.text_style.reverse) for label in app.screen.query(".seat-no")]
        assert marked == [False, True, False, False]


async def _bust_position(app, pilot):
    from tests.test_table_screen import setup, until_my_turn

    app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
    screen = app.screen_stack[-1]
    await until_my_turn(pilot, screen)
    g = screen.game
    g.total = 94
    g.hands[0][:] = ["8", "10", "-10", "hold"]
    g._settle()
    screen.refresh_all()
    await pilot.pause()
    return screen, {c.card: c for c in screen.query("CardWidget")}


async def test_bust_confirmation_can_be_turned_off_in_settings():
    """Settings has "Confirm bust"; with it off, one press plays a busting card."""

    from tests.test_table_screen import settle

    from ono99_tui.store.settings import load_settings

    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=SIZE) as pilot:
        app.menu_choice("settings")
        await pilot.pause()
        choice = app.screen.query_one("#confirm_bust", Select)
        assert choice.value is True
        choice.value = False
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.settings.confirm_bust is False and load_settings()[0].confirm_bust is False
        screen, cards = await _bust_position(app, pilot)
        await pilot.press(str(cards["8"].index))
        await settle(pilot)
        assert (0, "8") in screen.game.plays


async def test_help_and_readme_list_the_log_scroll_keys():
    from pathlib import Path

    from textual.widgets import Static

    from ono99_tui.tui.screens.game import GameScreen

    assert {"pageup", "pagedown"} <= {b.key for b in GameScreen.BINDINGS}
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "question_mark")
        await pilot.pause()
        text = str(app.screen.query_one(".dialog-body", Static).render())
    assert "PgUp/PgDn" in text and "log" in text.split("PgUp/PgDn")[1].splitlines()[0]
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    assert "`PageUp`/`PageDown`" in readme
