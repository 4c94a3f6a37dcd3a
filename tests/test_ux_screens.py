"""Dialogs, help, the card reference and forms, driven as a player drives them (issue 12)."""

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.widgets import Button, Label, Static

from ono99_tui.engine import Game
from ono99_tui.engine import cards as C
from ono99_tui.engine.rules import KEYS, DEFAULT
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.menu import MenuScreen
from ono99_tui.tui.screens.new_game import NewGameScreen
from ono99_tui.tui.screens.modals import GameOverScreen, HelpScreen, PassScreen, RoundEndScreen, _Notice, help_text
from ono99_tui.tui.screens.reference import CardReferenceScreen, reference_rows, reference_text
from ono99_tui.tui.screens.save_as import NameScreen


def app():
    return Ono99App(bot_delay=600, seed=7)


def _game_over():
    return GameOverScreen(["Ana", "Bo"], [0, 1], ["winner", "out"])


async def test_escape_on_game_over_goes_to_the_menu_never_a_new_game():
    results = []
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        a.push_screen(_game_over(), results.append)
        await pilot.pause()
        assert isinstance(a.focused, Button)  # a button has focus from the start, so Enter is visible
        await pilot.press("escape")
        await pilot.pause()
    assert results == ["menu"]


async def test_game_over_arrows_move_between_the_buttons_and_enter_presses_the_focused_one():
    results = []
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        a.push_screen(_game_over(), results.append)
        await pilot.pause()
        assert a.focused.id == "btn-again"
        await pilot.press("down")
        assert a.focused.id == "btn-menu"
        await pilot.press("up")
        assert a.focused.id == "btn-again"
        await pilot.press("right")
        assert a.focused.id == "btn-menu"
        await pilot.press("enter")
        await pilot.pause()
    assert results == ["menu"]


async def test_game_over_escape_from_a_real_game_lands_on_the_menu():
    from tests.test_tui_snapshots import _play_until, _two_player

    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        a.bot_delay = 0
        a.start_game(_two_player("[scoring]\ntokens = 1\nextra_life = false\n"))
        await _play_until(pilot, (GameOverScreen,))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(a.screen, MenuScreen) and len(a.screen_stack) == 1


async def test_escape_means_back_or_close_on_every_dialog():
    """Each dialog answers Escape with its safe choice: close, keep, cancel, leave."""
    dialogs = [
        (RoundEndScreen(["Ana", "Bo"], [{"type": "round_lost", "seat": 1, "total": 101, "reason": "bust",
                                         "round": 1}]), "ok"),
        (HelpScreen(DEFAULT, "standard"), "ok"),
        (_Notice("Delete friday?", "gone for good", (("keep", "Keep it"), ("delete", "Delete"))), "keep"),
        (NameScreen("Save as", "friday"), None),
    ]
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        for screen, expected in dialogs:
            results = []
            a.push_screen(screen, results.append)
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert results == [expected], type(screen).__name__
            assert isinstance(a.screen, MenuScreen)


async def test_escape_leaves_every_full_screen_for_the_menu():
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        for key in ("new", "rules", "settings", "stats", "load", "help"):
            if key == "load":
                continue  # no saves: the menu entry is disabled
            a.menu_choice(key)
            await pilot.pause()
            assert not isinstance(a.screen, MenuScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(a.screen, MenuScreen), key


async def test_help_lists_every_table_key():
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        await pilot.press("g", "question_mark")
        await pilot.pause()
        text = str(a.screen.query_one(".dialog-body", Static).render())
    for key in ("1-9, 0", "Left/Right", "Enter", "u ", "Ctrl+S", "? ", "r ", "Escape", "Ctrl+P"):
        assert f"  {key}" in text, key


async def test_help_says_the_99_card_as_the_rules_in_force_have_it():
    """Under ninety-nine-option (R7.2) the help had said "99 cards cannot be played"."""
    a = Ono99App(bot_delay=600, seed=7, rules_spec="ninety-nine-option")
    async with a.run_test(size=(80, 24)) as pilot:
        await pilot.press("g", "question_mark")
        await pilot.pause()
        text = " ".join(str(a.screen.query_one(".dialog-body", Static).render()).split())
    assert "cannot be played" not in text
    assert "A 99 card may be played when the total ends in 0" in text
    assert ("With no card you may play (only 99s, unless the total ends in 0, or only a Double Play to start two "
            "plays) you lose at once (R5.2).") in " ".join(text.split())


def test_help_follows_the_double_play_and_forced_bust_house_rules():
    text = " ".join(help_text(DEFAULT.replace(double_play_deflect=False, double_play_no_double_on_first=False,
                                              forced_bust_plays_lowest=False), "house").split())
    assert "Double Play: the next player plays twice. 99 cards cannot be played" in text
    assert "If every card you can play would do that, you choose which to play." in text
    standard = " ".join(help_text(DEFAULT, "standard").split())
    assert ("they may not start with a Double Play, and a Hold or Reverse as their first play passes the whole "
            "obligation on." in standard and "you must play your lowest" in standard)


async def test_card_reference_from_the_help_screen_and_the_palette():
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        await pilot.press("g", "question_mark")
        await pilot.pause()
        assert a.screen.query_one("#btn-reference", Button)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(a.screen, CardReferenceScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(a.screen, GameScreen)
        titles = [c.title for c in a.get_system_commands(a.screen)]
        assert "Card reference" in titles
        a.action_card_reference()
        await pilot.pause()
        assert isinstance(a.screen, CardReferenceScreen)
        assert "Minus Ten" in str(a.screen.query_one(".dialog-body", Static).render())


def _played_game(seed: int, plays: int, players: int = 4) -> Game:
    game = Game([f"P{i}" for i in range(players)], DEFAULT, seed)
    for _ in range(plays):
        if game.over:
            break
        legal = game.view(game.current).legal_plays()
        if not legal:
            break
        game.play(legal[seed % len(legal)])
    return game


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 80), seat=st.integers(0, 3))
def test_card_reference_counts_only_what_the_seat_may_know(seed, plays, seat):
    """Seen = the seat's hand and the cards played since the last shuffle; the rest is unseen,
    whatever the others hold or the draw pile's order (public information only)."""
    game = _played_game(seed, plays)
    view = game.view(seat)
    rows = {card: (count, seen, hidden) for card, count, seen, hidden in reference_rows(view)}
    known = Counter(view.hand) + Counter(view.discard)
    for card, (count, seen, hidden) in rows.items():
        assert count == DEFAULT.count(card) and seen == known[card] and seen + hidden == count
    # the same public picture with the others' cards moved between their hands and the pile
    hidden_cards = [c for hand_seat, hand in enumerate(game.hands) if hand_seat != seat for c in hand] + list(game.draw)
    shuffled = list(reversed(hidden_cards))
    at = 0
    for hand_seat, hand in enumerate(game.hands):
        if hand_seat != seat:
            hand[:] = shuffled[at:at + len(hand)]
            at += len(hand)
    game.draw[:] = shuffled[at:]
    assert reference_text(game.view(seat)) == reference_text(view)


def test_card_reference_follows_the_rules_in_force():
    from ono99_tui.engine.rules import load_rules_text

    rules = load_rules_text("[ninety_nine_card]\nplayable_on_tens = true\n[deck]\nhold = 0\n"
                            "[scoring]\nmode = 'points'\n")
    view = Game(["A", "B"], rules, 3).view(0)
    text = reference_text(view)
    assert "a Hold on totals ending 0 (R7.2)" in text and "\nHold " not in text
    assert "20 pts" in text  # what a 99 costs in hand under points scoring
    assert "a Hold with two players" in text


async def test_rules_labels_leave_a_gap_before_their_values():
    """The house rules keys are shown under their section, short enough not to run into the value."""
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        a.menu_choice("rules")
        await pilot.pause()
        labels = list(a.screen.query(".rule-key").results(Label))
        assert len(labels) == len(KEYS)
        for label, spec in zip(labels, KEYS):
            text = spec.path.rpartition(".")[2]
            assert str(label.render()) == text
            assert label.region.width >= cell_len(text) + 1, text
        sections = [str(s.render()) for s in a.screen.query(".rule-section").results(Static)]
        assert "[ninety_nine_card]" in sections and "[deck]" in sections


async def test_settings_speaks_yes_and_no_beside_yes_no_choices():
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        a.menu_choice("settings")
        await pilot.pause()
        helps = [str(s.render()) for s in a.screen.query(".form-help").results(Static)]
    assert helps and not any("true" in h or "false" in h for h in helps)
    assert any(h.startswith("Yes: ASCII") for h in helps)


# -- New game remembers the last setup (player-misses 8) ----------------------------------

async def _start_three_seat_points_game(a, pilot):
    from textual.widgets import Input, Select

    from ono99_tui.tui.screens.new_game import SeatRow

    await pilot.press("n")
    form = a.screen
    await pilot.press("ctrl+d")
    rows = list(form.query(SeatRow))
    rows[0].query_one(Input).value = "Ann"
    rows[1].query_one(Select).value = "bot:hard"
    rows[2].query_one(Select).value = "human"
    rows[2].query_one(Input).value = "Ben"
    form.query_one("#preset", Select).value = "points"
    await pilot.pause()
    form.query_one("#dealer", Select).value = "seat:2"
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert not isinstance(a.screen, NewGameScreen)  # the game started


def _form_state(form):
    from textual.widgets import Select

    from ono99_tui.tui.screens.new_game import SeatRow

    return ([(r.spec.name, r.spec.player) for r in form.query(SeatRow)],
            form.query_one("#preset", Select).value, form.query_one("#dealer", Select).value)


async def test_new_game_remembers_seats_levels_rules_and_dealer_across_runs(private_dirs):
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        await _start_three_seat_points_game(a, pilot)
    assert (private_dirs / "config" / "last-setup.toml").exists()
    assert not list((private_dirs / "data").glob("**/last-setup*"))  # a preference, not a save
    b = app()  # the next run
    async with b.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert _form_state(b.screen) == ([("Ann", "human"), ("Bo", "bot:hard"), ("Ben", "human")], "points", "seat:2")
    c = Ono99App(bot_delay=600, rules_spec="first-to-500")  # --rules wins over the remembered rules
    async with c.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        seats, preset, _ = _form_state(c.screen)
        assert preset == "first-to-500" and seats[0] == ("Ann", "human")


async def test_a_damaged_last_setup_is_reported_and_the_defaults_used(private_dirs):
    (private_dirs / "config").mkdir(parents=True)
    (private_dirs / "config" / "last-setup.toml").write_text("rules = 'standard'\n[[seats]]\nname = 'A'\n"
                                                             "player = 'bot:genius'\n")
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        said = " ".join(str(n.message) for n in a._notifications)
        assert "last-setup.toml" in said and "seat 1: needs a name and a player, one of human" in said
        seats, preset, dealer = _form_state(a.screen)
        assert seats == [("You", "human"), ("Bo", "bot:medium"), ("Cy", "bot:medium"), ("Di", "bot:medium")]


async def test_escape_on_pass_the_keyboard_leaves_for_the_menu_and_seats_nobody():
    from tests.test_tui_snapshots import _play_until, _two_player

    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        a.start_game(_two_player(humans=2))
        await _play_until(pilot, (PassScreen,))
        table = a.screen_stack[-2]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(a.screen, MenuScreen) and len(a.screen_stack) == 1
        assert table.viewer is None  # nobody's hand was put on screen on the way out


def _screen_text(a) -> str:
    import html
    import re

    svg = a.export_screenshot()
    return "".join(html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg))


async def test_ascii_keeps_every_dialog_and_form_ascii():
    """--ascii: not one character outside ASCII on the menu, forms and dialogs (borders included)."""
    from ono99_tui.tui.screens.save_as import NameScreen

    steps = [
        ("menu", lambda a: None),
        ("new game", lambda a: a.menu_choice("new")),
        ("settings", lambda a: a.menu_choice("settings")),
        ("house rules", lambda a: a.menu_choice("rules")),
        ("statistics", lambda a: a.menu_choice("stats")),
        ("help", lambda a: a.menu_choice("help")),
        ("save as", lambda a: a.push_screen(NameScreen("Save as", "friday"))),
        ("game over", lambda a: a.push_screen(_game_over())),
    ]
    for what, open_it in steps:
        a = Ono99App(bot_delay=600, seed=7, ascii=True)
        async with a.run_test(size=(80, 24)) as pilot:
            open_it(a)
            await pilot.pause()
            odd = sorted({ch for ch in _screen_text(a) if ord(ch) > 127 and ch != "\xa0"})
            assert not odd, (what, odd)


async def test_up_and_down_read_a_long_help_while_left_and_right_pick_the_button():
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        await pilot.press("g", "question_mark")
        await pilot.pause()
        body = a.screen.query_one(".dialog-scroll")
        assert body.max_scroll_y > 0 and body.scroll_y == 0
        await pilot.press("down", "down")
        await pilot.pause()
        assert body.scroll_y > 0 and a.focused.id == "btn-ok"
        await pilot.press("right")
        assert a.focused.id == "btn-reference"


async def test_dialogs_fit_a_terminal_narrower_than_they_are_wide(private_dirs):
    """A play-tester resized to 60x20 with Help up: the dialog (72-78 columns) was cut off at the
    right, its text ending mid-word. Dialogs are as wide as they are given, at most."""
    from ono99_tui.tui.screens.save_as import SaveAsScreen

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("?")
        await pilot.pause()
        dialog = app.screen.query_one(".dialog")
        assert type(app.screen).__name__ == "HelpScreen"
        assert dialog.region.x >= 0 and dialog.region.right <= 60
        await pilot.press("escape", "n")
        await pilot.pause()
        app.push_screen(SaveAsScreen("x"))
        await pilot.pause()
        assert app.screen.query_one(".dialog").region.right <= 60


async def test_a_name_dialog_shows_brackets_typed_or_named_as_text_never_markup():
    # a play-tester typed "[bold]x[/" into Save as: the problem line quoted it as markup and the
    # app died (MarkupError); "[red]" typed vanished; a preset file "[red]Red.toml" was titled "Rename Red"
    a = app()
    async with a.run_test(size=(80, 24)) as pilot:
        dialog = NameScreen("Rename [red]Red", "old")
        a.push_screen(dialog)
        await pilot.pause()
        dialog.query_one("#save-name").value = ""
        for ch in "[bold]x[/":
            await pilot.press(ch)
        await pilot.pause()
        error = dialog.query_one("#name-error", Static)
        assert "[bold]x[/" in str(error.visual), error.visual  # shown as typed, the app still running
        from textual.content import Content

        title = dialog.query_one(".dialog").border_title  # (kept as markup, escaped: drawn as written)
        assert Content.from_markup(title).plain == "Rename [red]Red", title
        assert a.is_running and a.screen is dialog


async def test_in_ascii_the_palette_offers_no_textual_command_that_draws_what_ascii_has_not():
    # TERM=linux: Ctrl+P, Maximize hatched the screen with "╱"; Keys drew its panel with "▏"
    for ascii in (True, False):
        a = Ono99App(bot_delay=600, seed=7, ascii=ascii)
        async with a.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            titles = {c.title for c in a.get_system_commands(a.screen)}
            assert ("Maximize" in titles and "Keys" in titles) is not ascii, (ascii, titles)
            assert "Quit" in titles  # the rest stay


async def test_every_yes_no_choice_in_settings_is_as_wide_as_the_others(private_dirs):
    """A play-tester's find: Settings' "Turn alert" Yes/No stretched across the form, its arrow at
    the right edge, where the three Yes/No choices above it were 12 columns wide."""
    from ono99_tui.tui.screens.settings import SettingsScreen

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = SettingsScreen(app.settings)
        app.push_screen(screen)
        await pilot.pause()
        widths = {id_: screen.query_one(f"#{id_}").size.width for id_ in ("ascii", "undo", "confirm_bust", "turn_alert")}
        assert len(set(widths.values())) == 1, widths
