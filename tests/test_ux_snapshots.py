"""SVG snapshots at 80x24 of the dialogs and forms issue 12 changed, with NO_COLOR and --ascii
variants where the looks changed (focus must show without colour).

Refresh after a deliberate change: python -m pytest tests/test_ux_snapshots.py --snapshot-update
"""

from ono99_tui.tui.app import Ono99App

SIZE = (80, 24)


def app(**kw):
    return Ono99App(bot_delay=600, seed=7, **kw)  # bots wait: the picture cannot change under us


def _game_over(pilot):
    from ono99_tui.tui.screens.modals import GameOverScreen

    pilot.app.push_screen(GameOverScreen(["Ana", "Bo"], [0, 1], ["winner", "out"]))


def test_game_over_focus_no_color_ascii(snap_compare, monkeypatch):
    """The focused button is outlined and reversed; Down moved the focus to Main menu."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def go(pilot):
        _game_over(pilot)
        await pilot.pause()
        await pilot.press("down")
    assert snap_compare(app(ascii=True), terminal_size=SIZE, run_before=go)


def test_game_over_focus_no_color(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app(), terminal_size=SIZE, run_before=_game_over)


def test_card_reference(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, press=["g", "question_mark", "r"])


def test_card_reference_ascii(snap_compare):
    assert snap_compare(app(ascii=True), terminal_size=SIZE, press=["g", "question_mark", "r", "pagedown"])


def test_help_keys(snap_compare):
    assert snap_compare(app(), terminal_size=SIZE, press=["g", "question_mark", "pagedown"])


def test_new_game_focus_on_a_seat_no_color_ascii(snap_compare, monkeypatch):
    """A one-line input has focus: its row's number is reversed, so it shows without colour."""
    monkeypatch.setenv("NO_COLOR", "1")
    async def go(pilot):
        await pilot.press("n", "tab", "tab")  # from the first name (focused on opening) to the second
        await pilot.pause()
        from tests.test_tui_snapshots import _steady_cursor

        _steady_cursor(pilot)
        await pilot.pause()
    assert snap_compare(app(ascii=True), terminal_size=SIZE, run_before=go)


def test_settings_ascii_no_color(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")

    async def go(pilot):
        pilot.app.menu_choice("settings")
        await pilot.pause()
        await pilot.press("tab")
    assert snap_compare(app(ascii=True), terminal_size=SIZE, run_before=go)


def test_house_rules_long_key(snap_compare):
    """The longest key, under its section, with a gap before its value; its label shows focus."""
    async def go(pilot):
        pilot.app.menu_choice("rules")
        await pilot.pause()
        pilot.app.screen.query_one("#key-ninety-nine-card--playable-on-tens").focus()
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


def test_statistics_bots_faced_one_a_line(snap_compare, private_dirs):
    data = private_dirs / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "stats.toml").write_text(
        "[players.Ann]\ngames = 3\nwins = 1\nrounds_lost = 7\n"
        "[players.Ann.faced.easy]\ngames = 2\nwins = 1\n[players.Ann.faced.hard]\ngames = 1\nwins = 0\n"
        "[players.Ann.faced.medium]\ngames = 1\nwins = 0\n"
        "[players.Ben]\ngames = 1\nwins = 0\nrounds_lost = 4\n[players.Ben.faced.medium]\ngames = 1\nwins = 0\n")
    assert snap_compare(app(), terminal_size=SIZE, run_before=lambda pilot: pilot.app.menu_choice("stats"))


def test_menu_ascii_no_color(snap_compare, monkeypatch):
    """The highlighted entry is reversed; entries that cannot be chosen now are dim italic and say why."""
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app(ascii=True), terminal_size=SIZE)


def test_house_rules_buttons_ascii_no_color(snap_compare, monkeypatch):
    """Save as has focus (reversed), Save is disabled for a shipped preset (dim italic)."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def go(pilot):
        pilot.app.menu_choice("rules")
        await pilot.pause()
        pilot.app.screen.query_one("#save-as").focus()
    assert snap_compare(app(ascii=True), terminal_size=SIZE, run_before=go)


def test_save_as_ascii_no_color(snap_compare, monkeypatch):
    """The name field has focus: it alone is outlined (ASCII), the Save button below is not."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def go(pilot):
        from textual.widgets import Input

        from ono99_tui.tui.screens.save_as import NameScreen

        pilot.app.push_screen(NameScreen("Save as", "friday"))
        await pilot.pause()
        for field in pilot.app.screen.query(Input):  # a blinking cursor: held steady, the same every run
            field.cursor_blink = False
        await pilot.pause()
    assert snap_compare(app(ascii=True), terminal_size=SIZE, run_before=go)


def test_card_reference_no_color(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app(), terminal_size=SIZE, press=["g", "r"])


def test_card_reference_120x40(snap_compare):
    """A big terminal shows the whole reference without scrolling."""
    assert snap_compare(app(), terminal_size=(120, 40), press=["g", "r"])


# -- second play-test at 80x24 (issue 12): the table as a player sees it ----------------------

def _table_on(game, kinds):
    """A table screen on ``game`` (seat 0 to move, a human), bots waiting: the picture holds still."""
    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.setup import TableSetup

    setup = TableSetup([SeatSpec(n, k) for n, k in zip(game.names, kinds)], DEFAULT, "standard", seed=0)

    async def go(pilot):
        pilot.app.push_screen(GameScreen(setup, game=game))
        await pilot.pause()
        await pilot.pause()
    return go


def _eight_seats_one_round_in():
    """You and seven bots; every seat has played once (a Double Play among them): your turn again."""
    from tests.stacked import game_with

    hands = [["7", "10", "hold", "3"], ["5", "10", "reverse", "99"], ["double", "6", "10", "8"],
             ["hold", "5", "9", "10"], ["4", "3", "10", "7"], ["8", "2", "reverse", "3"], ["6", "9", "2", "10"],
             ["-10", "2", "4", "99"]]
    names = ["You", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    game = game_with(hands, names=names, seed=1)
    for card in ("7", "5", "double", "9", "5", "4", "8", "6", "-10"):  # Di plays twice
        game.play(card)
    return game


def test_table_eight_seats_log_since_your_turn(snap_compare):
    """8 seats at 80x24: the table box lists the last plays, the log shows your play and every one
    after it (the others' plays share lines), no blank rows."""
    game = _eight_seats_one_round_in()
    kinds = ["human"] + ["bot:easy"] * 7
    assert snap_compare(app(), terminal_size=SIZE, run_before=_table_on(game, kinds))


def test_table_focus_ascii_no_color(snap_compare, monkeypatch):
    """--ascii + NO_COLOR: the focused card's number reads "> 1 <" (every outline is "+-+")."""
    from tests.stacked import game_with

    monkeypatch.setenv("NO_COLOR", "1")
    game = game_with([["7", "10", "hold", "99"], ["2", "3", "4", "5"]], names=["You", "Bo"])
    assert snap_compare(app(ascii=True), terminal_size=SIZE, run_before=_table_on(game, ["human", "bot:easy"]))


def test_out_of_the_game(snap_compare):
    """Reached by playing (issue 25: it was pushed over a fresh table where "you" still held cards):
    Ana loses the only token of a three-seat game in round 1 and the bots play on. Four buttons
    inside the box at 80 columns; the footer offers only the dialog's own key."""
    async def go(pilot):
        from ono99_tui.engine.record import SeatSpec
        from ono99_tui.engine.rules import load_rules_text
        from ono99_tui.tui.screens.modals import OutScreen
        from ono99_tui.tui.setup import TableSetup
        from tests.test_tui_snapshots import _play_until

        await pilot.pause()
        pilot.app.bot_delay = 0
        rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
        seats = [SeatSpec("Ana"), SeatSpec("Bo", "bot:easy"), SeatSpec("Cy", "bot:easy")]
        pilot.app.start_game(TableSetup(seats, rules, "test", seed=2))
        await _play_until(pilot, (OutScreen,))
        table = pilot.app.screen_stack[-2]
        view = table.table.view_for(None)
        assert view.out[0] and not view.over and view.hand_sizes[0] == 0, "not a real out-of-game state"
    assert snap_compare(app(), terminal_size=SIZE, run_before=go)


def test_table_200x60(snap_compare):
    """A big terminal: big digits, the round's plays listed, wide cards, a log as tall as its lines."""
    game = _eight_seats_one_round_in()
    kinds = ["human"] + ["bot:easy"] * 7
    assert snap_compare(app(), terminal_size=(200, 60), run_before=_table_on(game, kinds))


# -- hands over four cards (issue 19 point 4): every card on screen at 80x24 -------------------

def _big_hand(size: int):
    """You hold ``size`` cards (hand_size), one of each kind as far as they go, the 99 last."""
    from ono99_tui.engine.rules import load_rules_text
    from tests.stacked import game_with

    rules = load_rules_text(f"hand_size = {size}\n")
    mine = ["99", "reverse", "double", "hold", "-10", "10", "9", "8", "7", "6"][:size]
    return game_with([mine, ["2", "3", "4", "5", "2", "3", "4", "5", "2", "3"][:size]], names=["You", "Bo"],
                     rules=rules)


def test_table_five_cards(snap_compare):
    """Five narrower cards in one row, the fifth whole ("flip order", "next twice", "(x) can't")."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=_table_on(_big_hand(5), ["human", "bot:easy"]))


def test_table_eight_cards(snap_compare):
    """Eight cards: two rows of four one-line cards, all on screen, the 99 marked "(x)"."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=_table_on(_big_hand(8), ["human", "bot:easy"]))


def test_table_ten_cards(snap_compare):
    """Ten cards: two rows of five; the scoreboard's "10 cards" fits its column."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=_table_on(_big_hand(10), ["human", "bot:easy"]))


def test_table_ten_cards_ascii_no_color(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app(ascii=True), terminal_size=SIZE,
                        run_before=_table_on(_big_hand(10), ["human", "bot:easy"]))


def test_table_ten_cards_120x40(snap_compare):
    """A big terminal: two rows of five wide two-line cards."""
    assert snap_compare(app(), terminal_size=(120, 40), run_before=_table_on(_big_hand(10), ["human", "bot:easy"]))


def test_table_ten_cards_eight_seats(snap_compare):
    """Eight seats and ten cards each (a big custom deck) still fit 80x24: the log keeps 3 rows."""
    from ono99_tui.engine.rules import load_rules_text
    from tests.stacked import game_with

    rules = load_rules_text("hand_size = 10\n[deck]\nnumber_each = 8\nten = 20\n")
    hands = [["99", "reverse", "double", "hold", "-10", "10", "9", "8", "7", "6"]] + [
        ["2", "3", "4", "5", "6", "7", "8", "9", "10", "10"] for _ in range(7)]
    names = ["You", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    game = game_with(hands, names=names, rules=rules)
    assert snap_compare(app(), terminal_size=SIZE, run_before=_table_on(game, ["human"] + ["bot:easy"] * 7))
