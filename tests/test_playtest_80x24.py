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
