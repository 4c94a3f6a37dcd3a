"""Issue 15 item 1: names, rule labels and keys that look like Textual markup ("[/]",
"[@click=app.quit]") are shown as text on every screen, and never crash or act."""

import html
import re

import pytest
from textual.widgets import Input

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import load_rules_text
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.settings import Settings
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.modals import GameOverScreen
from ono99_tui.tui.screens.new_game import SeatRow
from ono99_tui.tui.setup import TableSetup
from ono99_tui.tui.widgets.card import CardWidget
from tests.waits import settle

CLOSE = "[/]"
CLICK = "[@click=app.quit]"
UNCLOSED = "[31m"  # an unclosed "[": rich's and Textual's escape() leave it, and it swallows later markup
SHORT = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")


def screen_text(app) -> str:
    """What the terminal shows, as text (from the app's own screenshot)."""
    svg = app.export_screenshot()
    lines = re.findall(r"<text[^>]*>(.*?)</text>", svg)
    return html.unescape("".join(re.sub(r"<[^>]+>", "", line) for line in lines)).replace("\xa0", " ")


async def test_the_table_shows_markup_names_as_text_and_plays_to_the_end():
    seats = [SeatSpec(CLOSE), SeatSpec(CLICK, "bot:easy"), SeatSpec(UNCLOSED, "bot:easy")]
    app = Ono99App(bot_delay=0, seed=11)
    async with app.run_test(size=(100, 30)) as pilot:
        app.start_game(TableSetup(seats, SHORT, CLOSE, seed=11))
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        shown = screen_text(app)
        assert CLOSE in shown and CLICK in shown and UNCLOSED in shown
        await pilot.press("question_mark")  # Help shows the rules label "[/]"
        await pilot.pause()
        assert CLOSE in screen_text(app)
        await pilot.press("escape")
        for _ in range(3000):
            screen = app.screen
            if isinstance(screen, GameOverScreen):
                break
            if not isinstance(screen, GameScreen):  # round end, pass, out: the first button goes on
                await pilot.press("enter")
            elif screen._human_may_play():
                playable = [c.index for c in screen.query(CardWidget) if c.reason is None]
                await pilot.press(str(playable[0]))
            else:
                await settle(pilot)
        assert isinstance(app.screen, GameOverScreen)
        assert app.is_running  # "[@click=app.quit]" was shown, not obeyed


async def test_new_game_shows_a_markup_name_in_its_error_as_text():
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        rows = list(app.screen.query(SeatRow))
        for row in rows[:2]:
            row.query_one(Input).value = CLOSE
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        error = str(app.screen.query_one("#form-error").render())
        assert f"{CLOSE} appears more than once" in error


async def test_settings_shows_a_markup_name_error_as_text(private_dirs):
    from ono99_tui.tui.screens.settings import SettingsScreen

    app = Ono99App(bot_delay=600, settings=Settings(player_name=CLICK))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = SettingsScreen(app.settings)
        app.push_screen(screen)
        await pilot.pause()
        screen.query_one("#player_name", Input).value = CLICK + "\x1b[31m"
        screen.action_save()
        await pilot.pause()
        error = str(screen.query_one("#form-error").render())
        assert "Not saved:" in error and CLICK in error and "\x1b" not in error


async def test_statistics_show_markup_names_as_text(private_dirs):
    data = private_dirs / "data"
    data.mkdir()
    (data / "stats.toml").write_text('[players."[/]"]\ngames = 2\nwins = 1\n[players."[@click=app.quit]"]\ngames = 1\n')
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("stats")
        await pilot.pause()
        shown = screen_text(app)
        assert CLOSE in shown and "[@click=app.quit]" in shown


async def test_the_rules_screen_shows_a_markup_preset_as_text(private_dirs):
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "[b]mine.toml").write_text("# [/] my rules \x1b[31m\ntarget = 50\n")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(100, 30)) as pilot:
        app.menu_choice("rules")
        await pilot.pause()
        shown = screen_text(app)
        assert "[b]mine" in shown


async def test_the_load_screen_shows_markup_from_a_save_as_text(private_dirs):
    from ono99_tui.engine import Game
    from ono99_tui.engine.record import Record

    g = Game([CLOSE, "Bo"], seed=2, record_events=False)
    g.play(g.legal_plays()[0])
    SaveStore().write("marked", Record.from_game(g, [SeatSpec(CLOSE), SeatSpec("Bo", "bot:easy")],
                                                 {"rules": CLOSE}))
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(100, 30)) as pilot:
        app.menu_choice("load")
        await pilot.pause()
        assert CLOSE in screen_text(app)
        assert app.is_running


@pytest.mark.parametrize("name", [CLOSE, CLICK, "[b]x[/b]"])
def test_markup_names_are_valid_names(name):
    from ono99_tui.engine.game import normalise_name

    assert normalise_name(name) == name  # a name is text: markup-looking names are allowed, and shown as such


def test_for_markup_keeps_any_text_as_is():
    from textual.content import Content

    from ono99_tui.text import for_markup

    for text in (UNCLOSED, CLOSE, CLICK, "a\\[b]", "x\\", "[[", "\\[/]"):
        assert Content.from_markup(f"[b]x[/b] {for_markup(text)} [b]y[/b]").plain == f"x {text} y"


async def test_help_and_load_show_an_unclosed_bracket_label_from_a_save(private_dirs):
    from ono99_tui.engine import Game
    from ono99_tui.engine.record import Record

    g = Game(["Ana", "Bo"], seed=2, record_events=False)
    g.play(g.legal_plays()[0])
    label = "\x1b]0;pwned\x07" + UNCLOSED + "red"
    SaveStore().write("esc", Record.from_game(g, [SeatSpec("Ana"), SeatSpec("Bo", "bot:easy")], {"rules": label}))
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(100, 30)) as pilot:
        app.menu_choice("load")
        await pilot.pause()
        assert "\\x1b]0;pwned\\x07[31mred" in screen_text(app)
        app.resume("esc")
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        shown = screen_text(app)
        assert "\\x1b]0;pwned\\x07[31mred" in shown and "\x1b" not in shown
        assert app.is_running


async def test_the_rules_screen_shows_an_unclosed_bracket_description(private_dirs):
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(f"# {UNCLOSED} my rules\ntarget = 50\n")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(100, 30)) as pilot:
        app.menu_choice("rules")
        await pilot.pause()
        from textual.widgets import OptionList

        options = app.screen.query_one("#presets", OptionList)
        options.highlighted = options.option_count - 1
        await pilot.pause()
        assert f"{UNCLOSED} my rules" in screen_text(app)


def test_a_file_name_that_is_not_utf8_is_shown_as_escapes_of_its_width():
    """A play-tester's rules/ held a file named with the bytes ff fe (not UTF-8): Python reads
    such a name as lone surrogates, which went to the screen as they were. The House rules list
    measured each as one column while the terminal got six ("\\udcff"): the border of the
    presets box moved, and the Delete dialog's box broke apart. Now they are escapes, like any
    character a terminal cannot show as itself."""
    from ono99_tui.text import display_width, for_markup, shorten, visible

    name = "a\udcff\udcfeb"
    assert visible(name) == "a\\xff\\xfeb" and for_markup(name) == "a\\xff\\xfeb"
    assert shorten(name) == "a\\xff\\xfeb" and display_width(visible(name)) == len(visible(name))


async def test_the_rules_screen_lists_a_non_utf8_file_name_in_its_box(private_dirs):
    import os

    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True)
    with open(os.path.join(os.fsencode(folder), b"\xff\xfe.toml"), "w") as f:
        f.write("target = 50\n")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("rules")
        await pilot.pause()
        from textual.widgets import OptionList

        options = app.screen.query_one("#presets", OptionList)
        prompt = str(options.get_option_at_index(options.option_count - 1).prompt)
        assert prompt == "\\xff\\xfe  (yours)"


def test_rules_list_keeps_its_column_with_names_shown_as_escapes(private_dirs):
    """``ono99 rules list`` padded each name by its own length, not by what it shows: a preset
    named with an escape (or bytes that are not UTF-8) pushed its description out of the column."""
    import os

    from tests.cli import ono99

    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "ctl\x1b\x1b\x1b\x1b.toml").write_text("# mine\ntarget = 50\n")
    with open(os.path.join(os.fsencode(folder), b"\xff\xfe\xfd\xfc.toml"), "w") as f:
        f.write("# other\ntarget = 60\n")
    out = ono99("rules", "list")
    assert out.returncode == 0 and "\x1b" not in out.stdout
    lines = out.stdout.splitlines()
    column = lines[0].index("The sheet")
    for needle in ("mine", "other"):
        line = next(line for line in lines if needle in line)
        assert line.index(needle) == column, lines


async def test_a_notice_shows_a_name_with_control_or_non_utf8_characters_as_escapes(private_dirs):
    """The House rules Delete question for rules/<ff fe>.toml: its title and body carried the
    name as it was, and the dialog's box broke apart (its right edge pushed out of line); an
    ESC in a name reached it raw too. A notice's plain text is shown as text, escapes made visible."""
    from ono99_tui.tui.screens.notice import _Notice

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(_Notice("Delete \udcff\x1b[31m?", "/x/\udcff\x1b[31m.toml is removed from disk.",
                                      (("keep", "Keep it"), ("delete", "Delete"))))
        await pilot.pause()
        shown = screen_text(app)
        assert "Delete \\xff\\x1b[31m?" in shown and "/x/\\xff\\x1b[31m.toml is removed" in shown
        assert "\x1b" not in shown and "\udcff" not in shown
