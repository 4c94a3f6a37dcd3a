"""Play-testers' finds at 80x24 and on small terminals (40x12): what the player must see is on
screen, and every button and menu entry can be reached and seen. Pilot, waiting on the app's own
signals (its idle message queue), never on a clock."""

import html
import re
from collections import defaultdict

from textual.widgets import Input

from ono99_tui.tui.app import Ono99App
from tests.waits import fitted


def screen_lines(app) -> list[str]:
    """What the terminal shows, line by line (from the app's own screenshot: each run of text
    where it stands, a cell being 12.2 pixels wide)."""
    svg = app.export_screenshot()
    rows: dict[int, list[str]] = defaultdict(lambda: [" "] * app.size.width)
    pattern = r'<text[^>]*x="([\d.]+)"[^>]*clip-path="url\(#terminal-(?:[\w-]*-)?line-(\d+)\)">([^<]*)</text>'
    for x, n, text in re.findall(pattern, svg):
        start = round(float(x) / 12.2)
        for i, ch in enumerate(html.unescape(text).replace("\xa0", " ")):
            if start + i < app.size.width:
                rows[int(n)][start + i] = ch
    return ["".join(rows[n]).rstrip() for n in range(app.size.height)]


def shown(app) -> str:
    return "\n".join(screen_lines(app))


async def test_settings_not_saved_says_why_in_sight_at_80x24():
    """Bot delay 99, Ctrl+S: nothing seemed to happen, the reason was below the visible part of the form."""
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("settings")
        await pilot.pause()
        form = app.screen
        field = form.query_one("#bot_delay", Input)
        field.focus()
        field.value = ""
        await pilot.press("9", "9", "ctrl+s")
        await pilot.pause()
        assert app.screen is form  # not saved: still here
        assert "Not saved: bot_delay: must be a number of seconds from 0 to 5" in shown(app)
        box = form.query_one("#settings")
        assert box.scrollable_content_region.contains_region(form.query_one("#form-error").region)
        assert box.scrollable_content_region.contains_region(form.query_one("#save").region)


def _in_sight(app, dialog, button) -> bool:
    """The whole button inside the dialog's box and on the screen, its label shown."""
    box = dialog.query_one(".dialog")
    return (box.content_region.contains_region(button.region) and app.screen.region.contains_region(button.region)
            and str(button.label) in shown(app))


async def test_leave_settings_at_40x12_shows_every_answer_and_the_arrows_reach_them():
    """At 40x12 "Leave settings?" showed Stay and Save; "Discard changes" was past the box's edge."""
    from textual.widgets import Select

    from ono99_tui.tui.screens.menu import MenuScreen
    from ono99_tui.tui.screens.notice import _Notice

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(40, 12)) as pilot:
        app.menu_choice("settings")
        await pilot.pause()
        app.screen.query_one("#theme", Select).value = "ono99-light"
        await pilot.pause()
        assert app.theme == "ono99-light"
        await pilot.press("escape")
        await fitted(pilot)
        dialog = app.screen
        assert isinstance(dialog, _Notice) and dialog.title_text == "Leave settings?"
        buttons = list(dialog.query("Button"))
        assert [str(b.label) for b in buttons] == ["Stay", "Save", "Discard changes"]
        assert all(_in_sight(app, dialog, b) for b in buttons), shown(app)
        await pilot.press("right", "right")
        await pilot.pause()
        assert app.focused is buttons[2]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen) and app.theme != "ono99-light"


def _dialogs():
    from ono99_tui.tui.screens.modals import GameOverScreen, OutScreen, PassScreen
    from ono99_tui.tui.screens.notice import _Notice

    return {
        "leave settings": lambda: _Notice("Leave settings?", "Your changes are not saved yet.",
                                          (("stay", "Stay"), ("save", "Save"), ("discard", "Discard changes"))),
        "unsaved rules": lambda: _Notice("Unsaved changes to mine", "Your changes to mine are not saved. "
                                         "Save (or Save as) keeps them.",
                                         (("stay", "Keep editing"), ("save", "Save"), ("discard", "Discard changes"))),
        "delete save": lambda: _Notice("Delete friday?", "The save is removed from disk. This cannot be undone.",
                                       (("keep", "Keep it"), ("delete", "Delete"))),
        "leave table": lambda: _Notice("Leave the table?", "The game is saved; you can go on with it from Continue.",
                                       (("stay", "Stay"), ("leave", "Leave the table"))),
        "out of the game": lambda: OutScreen("You are"),
        "game over": lambda: GameOverScreen(["Ana", "Bo"], [0, 1], ["winner", "out"]),
        "pass": lambda: PassScreen("Ana"),
    }


async def test_every_button_dialog_keeps_its_buttons_in_sight_at_40x12():
    """Buttons wider than the box go one a line; a text too long for the screen gives way to them."""
    for what, make in _dialogs().items():
        app = Ono99App(bot_delay=600)
        async with app.run_test(size=(40, 12)) as pilot:
            app.push_screen(dialog := make())
            await fitted(pilot, dialog)
            buttons = list(dialog.query("Button"))
            for i, button in enumerate(buttons):
                assert app.focused is button, what
                assert _in_sight(app, dialog, button), (what, str(button.label), shown(app))
                await pilot.press("tab")
                await pilot.pause()


async def test_the_help_at_40x12_keeps_its_buttons_below_a_text_that_scrolls():
    """At 40x12 the help's text filled the screen and its buttons were below it."""
    from textual.containers import VerticalScroll

    from ono99_tui.tui.screens.modals import HelpScreen

    app = Ono99App(bot_delay=600, seed=3)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.press("g", "question_mark")
        await fitted(pilot)
        help_ = app.screen
        assert isinstance(help_, HelpScreen)
        buttons = list(help_.query("Button"))
        assert [str(b.label) for b in buttons] == ["Close", "Card reference (r)"]
        assert all(_in_sight(app, help_, b) for b in buttons), shown(app)
        body = help_.query_one(".dialog-scroll", VerticalScroll)
        assert body.max_scroll_y > 0  # the text scrolls in what room is left
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0 and all(_in_sight(app, help_, b) for b in buttons)
        await pilot.resize_terminal(80, 24)  # room again: the buttons side by side, the text as before
        await fitted(pilot, help_)
        assert buttons[0].region.y == buttons[1].region.y and buttons[0].region.height == 3
        assert body.region.height == 16


async def test_the_menu_at_40x12_on_the_linux_console_fits_and_reaches_every_entry():
    """At 40x12 on TERM=linux (ASCII) the menu's box was cut off on the right ("keep the total
    under 9", "Quick game: you against three medium b") and Help and Quit were below the screen."""
    from textual.widgets import OptionList

    from ono99_tui.tui.screens.menu import MENU
    from ono99_tui.tui.screens.modals import HelpScreen

    app = Ono99App(bot_delay=600, ascii=True)
    async with app.run_test(size=(40, 12)) as pilot:
        await fitted(pilot)
        menu = app.screen.query_one("#menu", OptionList)
        assert app.screen.query_one("#menu-box").region.right <= 40 and menu.region.bottom <= 11  # above the footer
        text = shown(app)
        assert "keep the total under 99" in text
        assert "Quick game: you against three medium" in text and "| bots" in text  # wrapped, not cut
        assert "more below" in text  # no scrollbar in ASCII: the list's edge says so
        for i, (key, label) in enumerate(MENU):
            menu.focus()
            menu.highlighted = i
            await pilot.pause()
            assert any(line.startswith("| " + label[:20]) for line in screen_lines(app)), (key, shown(app))
        assert "more above" in shown(app) and "more below" not in shown(app)
        menu.highlighted = [k for k, _ in MENU].index("help")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_the_menu_is_fitted_only_once_laid_out_to_its_limit():
    """Two fitting passes in one frame: the second saw the limit the first had just set and said
    "fitted" while the list was still laid out 12 rows tall on a 12-row screen (CI, under load)."""
    from textual.widgets import OptionList

    app = Ono99App(bot_delay=600, ascii=True)
    async with app.run_test(size=(40, 12)) as pilot:
        await fitted(pilot)
        screen, menu = app.screen, app.screen.query_one("#menu", OptionList)
        menu.styles.max_height = None
        await pilot.pause()
        assert menu.outer_size.height > 8  # laid out at its full height again
        screen.fitted = False
        screen._fit()  # sets the limit and asks to measure again once laid out
        screen._fit()  # another pass in the same frame: the limit is set, the layout is not
        assert not screen.fitted
        await fitted(pilot)
        assert menu.region.bottom <= 11 and menu.outer_size.height <= menu.styles.max_height.value


async def test_the_menu_keys_move_the_highlight_into_sight_at_40x12():
    """Down to Quit by keys: every entry passed over is on screen when highlighted."""
    from textual.widgets import OptionList

    from ono99_tui.tui.screens.menu import MENU

    app = Ono99App(bot_delay=600, ascii=True)
    async with app.run_test(size=(40, 12)) as pilot:
        await fitted(pilot)
        menu = app.screen.query_one("#menu", OptionList)
        menu.focus()
        await pilot.press("home")
        seen = []
        while MENU[menu.highlighted][0] != "quit" and len(seen) < len(MENU):  # (Continue, Load: not yet)
            await pilot.press("down")
            await pilot.pause()
            key, label = MENU[menu.highlighted]
            seen.append(key)
            assert any(line.startswith("| " + label[:20]) for line in screen_lines(app)), (label, shown(app))
        assert seen[-3:] == ["stats", "help", "quit"]


async def test_house_rules_at_40x12_show_each_key_and_its_value_as_tab_reaches_it():
    """A play-tester's find: at 40x12 House rules gave the keys 12 columns, and Tab focused a
    value off the screen, typed into unseen. Narrow, the presets go above the keys; every key
    Tab reaches is on the screen with its value."""
    from textual.widgets import Input, Select

    from ono99_tui.tui.screens.rules_view import RulesViewScreen

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(40, 12)) as pilot:
        app.menu_choice("rules")
        await pilot.pause()
        assert isinstance(app.screen, RulesViewScreen)
        assert app.screen.query_one("#rules-keys").region.width == 40
        for _ in range(8):
            await pilot.press("tab")
            await pilot.pause()
            field = app.focused
            assert isinstance(field, (Input, Select)), field
            row = field.parent
            key = row.query_one(".rule-key").render()
            shown_now = shown(app)
            assert str(key).strip() in shown_now and field.region.right <= 39 and field.region.bottom <= 11, shown_now
        app.screen.query_one("#rules-keys").scroll_end(animate=False)
        await pilot.pause()
        for button in app.screen.query("#rules-buttons Button"):  # (one a line: "Save (" was cut)
            assert str(button.label) in shown(app), shown(app)


async def test_new_game_at_40x12_shows_who_plays_each_seat():
    """A play-tester's find: at 40x12 New game cut who plays each seat to one letter ("H", "M")."""
    from ono99_tui.tui.screens.new_game import NewGameScreen

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(40, 12)) as pilot:
        app.menu_choice("new")
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        text = shown(app)
        assert "Human" in text and text.count("Medium bot") == 3, text


async def test_a_terminal_a_few_columns_wide_shows_the_menu_without_a_traceback(private_dirs):
    """A stranger's pane split down to a sliver (1 to 6 columns): the menu's list wrapped its
    entries to a width of 0, Rich's chop_cells raised ValueError (range() arg 3 must not be
    zero) and the app stopped with a traceback. It now lays out, and widens again as it was."""
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for width, height in ((6, 10), (3, 3), (1, 1), (2, 5), (80, 24)):
            await pilot.resize_terminal(width, height)
            await pilot.pause()
        assert "Quick game: you against three medium bots" in shown(app)
    assert app.return_code in (None, 0)
    for width in (1, 3, 6):  # (started that narrow, too)
        app = Ono99App(bot_delay=600)
        async with app.run_test(size=(width, 3)) as pilot:
            await pilot.pause()
        assert app.return_code in (None, 0)
