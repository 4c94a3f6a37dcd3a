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
        assert app.screen.table.game.names[0] == "Ann"


async def test_new_game_rules_field_names_the_rules_file_in_effect(tmp_path):
    path = tmp_path / "friday.toml"
    path.write_text("[scoring]\ntokens = 2\n")
    app = Ono99App(bot_delay=600, rules_spec=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        preset = app.screen.query_one("#preset", Select)
        assert preset.value == str(path)
        # what the closed Select shows: its current label
        assert "file: friday.toml" in [str(w.render()) for w in preset.query_one("SelectCurrent").query("Static")]
        await pilot.press("enter")
        assert app.screen.table.game.rules.scoring_tokens == 2


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
    g = screen.table.game
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
        assert (0, "8") in screen.table.game.plays


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


async def test_dialogs_offer_only_their_own_keys_in_the_footer():
    """Pass, out-of-game, game-over and help show a footer of their own: no "Play 1", no "Undo"."""
    from textual.widgets._footer import FooterKey

    from ono99_tui.tui.screens.modals import GameOverScreen, HelpScreen, OutScreen, PassScreen
    from ono99_tui.engine.rules import DEFAULT

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await pilot.pause()
        for dialog in (PassScreen("Ben"), OutScreen("You are"), GameOverScreen(["Ana", "Bo"], [0, 1], ["winner", "out"]),
                       HelpScreen(DEFAULT, "standard")):
            app.push_screen(dialog)
            await pilot.pause()
            keys = [str(k.description) for k in app.screen.query(FooterKey)]
            assert keys and not any(k.startswith(("Play", "Undo", "Save as")) for k in keys), (dialog, keys)
            bottom = app.screen.query_one("Footer")
            assert bottom.region.y == SIZE[1] - 1 and bottom.region.width == SIZE[0]
            app.pop_screen()
            await pilot.pause()


def test_round_lost_text_follows_the_extra_life_rule():
    from ono99_tui.tui.screens.modals import round_end_text

    names = ["You", "Bo"]
    lost = {"type": "round_lost", "round": 3, "seat": 0, "reason": "bust", "total": 101}
    token = {"type": "tokens", "seat": 0, "change": -1, "tokens": 0}
    _, no_extra = round_end_text(names, [lost, token, {"type": "eliminated", "round": 3, "seat": 0}])
    assert "one more loss" not in no_extra
    assert "You give up the last token." in no_extra and "You are out of the game." in no_extra
    _, extra = round_end_text(names, [lost, token])
    assert "one more loss and you are out" in extra


async def test_out_of_the_game_buttons_fit_inside_the_box_at_80x24():
    from ono99_tui.tui.screens.modals import OutScreen

    for ascii in (False, True):
        app = Ono99App(bot_delay=600, seed=7, ascii=ascii)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("g")
            await pilot.pause()
            app.push_screen(OutScreen("You are"))
            await pilot.pause()
            box = app.screen.query_one(".dialog").content_region
            buttons = list(app.screen.query("Button"))
            assert len(buttons) == 4
            for button in buttons:
                assert box.x <= button.region.x and button.region.right <= box.right, (button, box)


def test_points_breakdown_is_a_table_that_fits_80_columns():
    from ono99_tui.tui.screens.modals import round_end_text

    names = ["You", "Benedict Longname", "Cy"]
    rows = [{"seat": 0, "cards": [["4", 4], ["5", 5], ["7", 7], ["10", 10]], "missing": 0, "missing_points": 0,
             "loser_penalty": 0, "gained": 26, "score": 26},
            {"seat": 1, "cards": [["double", 15], ["-10", 15], ["reverse", 15], ["99", 20]], "missing": 0,
             "missing_points": 0, "loser_penalty": 25, "gained": 90, "score": 140},
            {"seat": 2, "cards": [["3", 3]], "missing": 3, "missing_points": 45, "loser_penalty": 0,
             "gained": 48, "score": 60}]
    events = [{"type": "round_lost", "round": 2, "seat": 1, "reason": "bust", "total": 104},
              {"type": "points", "round": 2, "breakdown": rows}]
    _, body = round_end_text(names, events)
    lines = body.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("Player"))
    table = lines[head:head + 4]
    assert all(len(line) <= 64 for line in table)  # inside the dialog at 80 columns (its scrollbar too)
    assert len({len(line.rstrip()) for line in table}) == 1, table  # the Total column is right-aligned
    assert table[1].startswith("You ") and "4, 5, 7, 10" in table[1] and table[1].split()[-4:] == ["26", "-", "+26", "26"]
    assert table[2].split()[-4:] == ["65", "+25", "+90", "140"]
    assert "missing" in body and "for losing" in body


async def _to_round_end(app, pilot, game_screen):
    from tests.test_table_screen import settle

    from ono99_tui.tui.screens.modals import PassScreen, RoundEndScreen
    from ono99_tui.tui.widgets.hand import HandPane

    for _ in range(300):
        await settle(pilot)
        if isinstance(app.screen, RoundEndScreen):
            return app.screen
        if isinstance(app.screen, PassScreen):
            await pilot.press("enter")
        elif game_screen._human_may_play():
            await pilot.press(str(game_screen.query_one(HandPane).best_focus().index))
    raise AssertionError("no round end")


async def test_round_lost_notice_is_drawn_over_the_lost_round_with_no_hand():
    """Hot seat: the notice covers the round that was lost (its total), never the next deal's hands."""
    from tests.test_table_screen import settle, setup

    from ono99_tui.tui.screens.modals import PassScreen
    from ono99_tui.tui.widgets.hand import HandPane

    app = Ono99App(bot_delay=0, seed=5)
    async with app.run_test(size=SIZE) as pilot:
        app.start_game(setup([("Ann", "human"), ("Ben", "human")]))
        await settle(pilot)
        game_screen = app.screen_stack[1]
        notice = await _to_round_end(app, pilot, game_screen)
        lost = next(e for e in reversed(game_screen.table.game.events) if e["type"] == "round_lost")
        assert game_screen.table.game.round_no == lost["round"] + 1  # the next round is dealt already
        assert all(c.card is None and not c.display for c in game_screen.query_one(HandPane).cards)
        table = str(game_screen.query_one("#direction").render())
        assert f"Total {lost['total']}/" in table
        assert f"round {lost['round']}" in str(game_screen.query_one("#table").border_title)
        assert f"Round {lost['round']} over" in str(game_screen.query_one("#hand-box").border_title)
        await pilot.press("enter")
        await settle(pilot)
        cards = game_screen.query_one(HandPane).cards
        if isinstance(app.screen, PassScreen):  # someone else first: still nothing shown
            assert all(c.card is None for c in cards)
        else:
            assert any(c.card for c in cards) and game_screen.viewer == game_screen.table.game.current


# -- cards keep their slots (item 2) ----------------------------------------------------------

def _stacked_table(app, hands, draw, kinds=("human", "human"), names=("Ann", "Ben")):
    from tests.stacked import game_with

    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.setup import TableSetup

    game = game_with(hands, draw, names=list(names))
    setup = TableSetup([SeatSpec(n, k) for n, k in zip(names, kinds)], DEFAULT, "test", seed=0)
    screen = GameScreen(setup, game=game)
    app.push_screen(screen)
    return screen


def _slots(screen):
    from ono99_tui.tui.widgets.card import CardWidget

    return [(c.card, c.has_class("new")) for c in screen.query(CardWidget) if c.card is not None]


def _kept(screen, seat):
    from ono99_tui.tui.widgets.hand import HandPane

    layout = screen.query_one(HandPane).orders[seat]
    return [(card, i in layout.fresh) for i, card in enumerate(layout.slots)]


async def _seat_next(pilot):
    from tests.test_table_screen import settle

    from ono99_tui.tui.screens.modals import PassScreen

    await settle(pilot)
    assert isinstance(pilot.app.screen, PassScreen)
    await pilot.press("enter")
    await settle(pilot)


async def test_hot_seat_hands_keep_their_slots_between_turns():
    """Ann holds 7 7 10 Reverse, plays slot 1 and draws a 10: next turn she sees 10(new) 7 10 Reverse,
    not a re-sorted 7 10 10 Reverse."""
    app = Ono99App(bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = _stacked_table(app, [["7", "7", "10", "reverse"], ["2", "3", "4", "5"]], ["10", "6"])
        await _seat_next(pilot)  # Pass to Ann
        assert _slots(screen) == [("7", False), ("7", False), ("10", False), ("reverse", False)]
        await pilot.press("1")
        await _seat_next(pilot)  # Pass to Ben
        await pilot.press("1")
        await _seat_next(pilot)  # Pass to Ann again
        assert screen.viewer == 0
        assert _slots(screen) == [("10", True), ("7", False), ("10", False), ("reverse", False)]


async def test_a_drawn_duplicate_goes_into_the_freed_slot_marked_new():
    """Pressing 3 on 10 M10 DP DP and drawing a Minus Ten gives 10 M10 M10(new) DP."""
    from ono99_tui.tui.widgets.card import CardWidget

    app = Ono99App(bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = _stacked_table(app, [["10", "-10", "double", "double"], ["2", "3", "4", "5"]], ["-10", "6"])
        await _seat_next(pilot)
        await pilot.press("3")
        # her turn is over: her hand left the screen in the same step (it is laid out again, with
        # the card drawn into the slot she played from, when she next has the keyboard)
        assert all(c.card is None and not c.display for c in screen.query(CardWidget))
        await _seat_next(pilot)  # Ben, under the Double Play: two plays
        await pilot.press("1")
        await pilot.press("1")
        await _seat_next(pilot)  # Ann sees it on her next turn too
        assert _slots(screen) == [("10", False), ("-10", False), ("-10", True), ("double", False)]


async def test_drawing_the_value_just_played_is_marked_new():
    app = Ono99App(bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = _stacked_table(app, [["7", "7", "10", "reverse"], ["2", "3", "4", "5"]], ["7", "6"])
        await _seat_next(pilot)
        await pilot.press("2")
        await _seat_next(pilot)
        await pilot.press("1")
        await _seat_next(pilot)
        assert _slots(screen) == [("7", False), ("7", True), ("10", False), ("reverse", False)]


async def test_undo_puts_back_the_slots_and_the_new_mark():
    from tests.test_table_screen import settle, until_my_turn

    app = Ono99App(bot_delay=0, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = _stacked_table(app, [["10", "-10", "double", "double"], ["2", "3", "4", "5"]], ["-10", "6", "8"],
                                kinds=("human", "bot:easy"), names=("You", "Bo"))
        await until_my_turn(pilot, screen)
        before = _slots(screen)
        assert before == [("10", False), ("-10", False), ("double", False), ("double", False)]
        await pilot.press("3")
        await until_my_turn(pilot, screen)
        assert _slots(screen) == [("10", False), ("-10", False), ("-10", True), ("double", False)]
        await pilot.press("u")
        await settle(pilot)
        await until_my_turn(pilot, screen)
        assert _slots(screen) == before


async def test_ascii_marks_the_focused_card_in_text():
    """--ascii + NO_COLOR: every outline is "+-+", so the focused card's number reads "> 1 <"."""
    import os

    from tests.test_table_screen import until_my_turn, setup

    from ono99_tui.tui.widgets.card import CardWidget

    os.environ["NO_COLOR"] = "1"
    try:
        app = Ono99App(bot_delay=0, seed=3, ascii=True)
        async with app.run_test(size=SIZE) as pilot:
            app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
            screen = app.screen_stack[-1]
            await until_my_turn(pilot, screen)
            cards = [c for c in screen.query(CardWidget) if c.card]
            titles = [str(c.border_title) for c in cards]
            focused = app.focused
            assert titles[cards.index(focused)] == f"> {focused.index} <"
            assert sum(">" in t for t in titles) == 1
            await pilot.press("right")
            titles = [str(c.border_title) for c in cards]
            assert titles[cards.index(app.focused)].startswith(">") and sum(">" in t for t in titles) == 1
    finally:
        del os.environ["NO_COLOR"]


async def test_back_from_terminal_too_small_the_focus_and_footer_return_at_once():
    from textual.widgets._footer import FooterKey

    from tests.test_table_screen import until_my_turn, setup

    from ono99_tui.tui.widgets.card import CardWidget

    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=SIZE) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        assert isinstance(app.focused, CardWidget)
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.focused, CardWidget) and app.focused.display  # no key pressed
        keys = [str(k.description) for k in screen.query(FooterKey)]
        assert f"Play {app.focused.index}" in keys and "Help" in keys  # Enter plays the outlined card


# -- the log at 80x24 (item 3) -----------------------------------------------------------------

def _visible_log(screen):
    from textual.widgets import Log

    log = screen.query_one("#log", Log)
    top = int(log.scroll_y)
    return log, list(log.lines[top: top + log.content_size.height])


async def _log_game(seats, seed=3, size=SIZE):
    from tests.test_table_screen import setup

    app = Ono99App(bot_delay=0, seed=seed)
    names = ["Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    return app, setup([("You", "human")] + [(n, "bot:easy") for n in names[:seats - 1]])


async def test_the_log_shows_everything_since_your_last_turn_at_80x24():
    """4 and 8 seats: on each of your turns the log shows your last play and all after it, with no
    blank row (8 seats: the others' plays share lines)."""
    from tests.test_table_screen import until_my_turn

    from ono99_tui.tui.widgets.hand import HandPane

    for seats in (4, 8):
        app, table = await _log_game(seats)
        async with app.run_test(size=SIZE) as pilot:
            app.start_game(table)
            screen = app.screen_stack[-1]
            checked = 0
            for _ in range(8):
                await until_my_turn(pilot, screen)
                if app.screen is not screen:
                    break
                log, visible = _visible_log(screen)
                if checked or screen.table.game.plays:
                    if log.line_count >= log.content_size.height:
                        assert all(line.strip() for line in visible), (seats, visible)
                    mine = [i for i, (s, _) in enumerate(screen.table.game.round_plays[-1]) if s == 0]
                    if mine:  # this round has a play of yours: it is on screen
                        assert any(line.startswith("You play") for line in visible), (seats, visible)
                        checked += 1
                await pilot.press(str(screen.query_one(HandPane).best_focus().index))
            assert checked >= 2, seats


async def test_the_table_box_has_no_blank_rows_and_lists_the_last_plays():
    from tests.test_table_screen import until_my_turn

    from ono99_tui.tui.widgets.hand import HandPane

    app, table = await _log_game(8)
    async with app.run_test(size=SIZE) as pilot:
        app.start_game(table)
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await until_my_turn(pilot, screen)
        rows = screen.query_one("#table").content_size.height
        assert rows == 8  # as tall as the scoreboard's 8 seats
        last = str(screen.query_one("#last").render()).splitlines()
        plays = len(screen.table.game.round_plays[-1])
        assert len(last) == min(plays, rows - 1) and last[0].startswith("Last: ")


async def test_the_log_follows_its_end_after_a_resize_unless_paged_back():
    from tests.test_table_screen import settle, until_my_turn

    from ono99_tui.tui.widgets.hand import HandPane

    app, table = await _log_game(4)
    async with app.run_test(size=(100, 30)) as pilot:
        app.start_game(table)
        screen = app.screen_stack[-1]
        for _ in range(4):
            await until_my_turn(pilot, screen)
            await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await until_my_turn(pilot, screen)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        log, visible = _visible_log(screen)
        assert log.line_count > log.content_size.height
        assert visible[-1] == log.lines[-1]  # the newest line shows
        await pilot.press("pageup")
        await pilot.pause()
        back = int(log.scroll_y)
        assert back < log.max_scroll_y and "PgDn" in str(log.border_title)
        await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await settle(pilot)
        assert int(log.scroll_y) == back  # reading back: new plays do not pull it down
        while app.screen is not screen:  # a round-end notice: close it
            await pilot.press("enter")
            await settle(pilot)
        for _ in range(20):
            await pilot.press("pagedown")
        await pilot.pause()
        log, visible = _visible_log(screen)
        assert visible[-1] == log.lines[-1] and str(log.border_title) == "Log"


async def test_big_terminals_use_the_room():
    """200x60: wide cards across the hand, a total in big digits, a log no taller than its lines
    (up to a cap) and the table listing the round's plays; 80x24 keeps the one-line total."""
    from tests.test_table_screen import until_my_turn

    from ono99_tui.tui.widgets.card import CardWidget
    from ono99_tui.tui.widgets.hand import HandPane

    app, table = await _log_game(4)
    async with app.run_test(size=(200, 60)) as pilot:
        app.start_game(table)
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await until_my_turn(pilot, screen)
        await pilot.pause()
        cards = [c for c in screen.query(CardWidget) if c.card]
        assert all(c.region.width >= 36 and c.region.height >= 10 for c in cards)
        hand = screen.query_one("#hand-box").content_region
        assert cards[-1].region.right - cards[0].region.x >= hand.width * 3 // 4  # across the hand
        total = screen.query_one("#total")
        assert total.display and total.region.height >= 10
        log = screen.query_one("#log")
        assert log.content_size.height <= max(6, log.line_count)  # no empty rows under the lines
        plays = str(screen.query_one("#last").render()).splitlines()
        assert len(plays) == min(len(screen.table.game.round_plays[-1]), screen.query_one("#last").size.height)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not screen.query_one("#total").display
        assert all(c.region.width == 16 and c.region.height == 4 for c in cards)


async def test_ascii_has_no_scrollbar_so_a_long_dialog_says_there_is_more_until_its_end_is_in_sight():
    """A stranger's find: at 80x24 on TERM=linux (ASCII, where scrollbars are off: their glyphs
    are not ASCII) the help showed its first half with nothing to say there was more."""
    from textual.containers import VerticalScroll

    from ono99_tui.tui.screens.modals import HelpScreen
    from tests.waits import settle

    app = Ono99App(bot_delay=600, seed=3, ascii=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "question_mark")
        await settle(pilot)
        help_ = app.screen
        assert isinstance(help_, HelpScreen)
        box = help_.query_one(".dialog")
        assert str(box.border_subtitle) == "more below: Down, PgDn"
        body = help_.query_one(".dialog-scroll", VerticalScroll)
        for _ in range(10):
            if body.scroll_y >= body.max_scroll_y:
                break
            await pilot.press("pagedown")
            await settle(pilot)
        assert body.max_scroll_y > 0 and str(box.border_subtitle) == ""
        await pilot.press("pageup")
        await settle(pilot)
        assert str(box.border_subtitle) == "more below: Down, PgDn"
        await pilot.press("escape")
        await settle(pilot)
        from ono99_tui.tui.screens.notice import _Notice

        app.push_screen(_Notice("Short", "One line."))  # a text that fits: nothing more to say
        await settle(pilot)
        assert str(app.screen.query_one(".dialog").border_subtitle) == ""


def _cells(line: str) -> list[str]:
    """A screen row cell by cell: a wide character, then "" for the second cell it takes."""
    from ono99_tui.text import display_width

    out = []
    for ch in line:
        out.append(ch)
        out.extend([""] * (display_width(ch) - 1))
    return out


async def test_statistics_of_very_wide_names_stay_in_their_columns_with_every_count_shown(private_dirs):
    """A 40-character name, a name in double-width CJK characters and one of emoji, with big counts
    and "medium 1000/1000": at 80x24 every row stays in its columns, each count right under its
    header and whole, each bot level whole in its column; the names may be cut (told apart). The
    rows were 80 columns wide in a 76-column box: "medium 1000/1000" wrapped, and its counts stood
    on a line of their own under the names."""
    from tests.test_tui_play import screen_text

    from ono99_tui.text import display_width

    long40, cjk, emoji = "Bartholomew Fitzgerald-Montgomery Junior", "王小明李大華張偉陳靜林美玲黃志強吳淑芬劉", "🙂🎉🐉🃏🔥" * 4
    assert len(long40) == 40 and display_width(cjk) == display_width(emoji) == 40
    players = {long40: ((1234, 567, 8901), ["easy 1/3", "medium 1000/1000"]),
               cjk: ((99999, 12345, 77777), ["hard 12345/99999"]),
               emoji: ((5, 5, 0), ["random 5/5"]), "Ann": ((3, 1, 7), [])}
    data = private_dirs / "data"
    data.mkdir(parents=True, exist_ok=True)
    text = ""
    for name, ((games, wins, lost), faced) in players.items():
        text += f'[players."{name}"]\ngames = {games}\nwins = {wins}\nrounds_lost = {lost}\n'
        for entry in faced:
            level, score = entry.split()
            won, played = score.split("/")
            text += f'[players."{name}".faced.{level}]\ngames = {played}\nwins = {won}\n'
    (data / "stats.toml").write_text(text)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=SIZE) as pilot:
        app.menu_choice("stats")
        await pilot.pause()
        rows = [_cells(line) for line in screen_text(app).splitlines()]
    box = [row for row in rows if len(row) == 80 and row[0] in "│|" and row[79] in "│|"]
    inside = ["".join(row[2:78]) for row in box]  # (the border and a cell of padding each side)
    head = next(i for i, line in enumerate(inside) if line.startswith("player "))
    header = _cells(inside[head])
    title = "".join(header)
    ends = {t: title.index(t) + len(t) for t in ("games", "wins", "rounds lost")}
    bots = title.index("vs bots")
    for name, ((games, wins, lost), faced) in players.items():
        at = next(i for i, line in enumerate(inside) if line.startswith(name[:3]))
        row = _cells(inside[at])
        for column, count in zip(("games", "wins", "rounds lost"), (games, wins, lost)):
            end = ends[column]  # each count whole, right under its header's end
            assert "".join(row[end - len(str(count)):end]) == str(count) and row[end] == " ", (name, column, inside[at])
        shown = ["".join(_cells(inside[at + k])[bots:]).rstrip() for k in range(max(1, len(faced)))]
        assert shown == (faced or ["-"]), (name, inside[at:at + 3])
        assert all(not "".join(_cells(inside[at + k])[:bots]).strip() for k in range(1, len(faced)))


def test_statistics_laid_out_for_a_narrower_box_fit_it_and_keep_every_count():
    """Narrower than a row with its bot levels beside it: each level goes on a line of its own
    under the row, and every line still fits; `ono99 stats` (no width) is laid out as before."""
    from ono99_tui.store.stats import stats_lines
    from ono99_tui.text import display_width

    players = {"王小明李大華張偉陳靜林美玲黃志強吳淑芬劉": {"games": 99999, "wins": 12345, "rounds_lost": 77777,
                                                            "faced": {"hard": {"games": 99999, "wins": 12345}}},
               "Ann": {"games": 3, "wins": 1, "rounds_lost": 7, "faced": {"medium": {"games": 1000, "wins": 1000}}}}
    for width in (76, 60):
        lines = stats_lines(players, width)
        assert all(display_width(line) <= width for line in lines), (width, lines)
        text = "\n".join(lines)
        assert all(str(n) in text for n in (99999, 12345, 77777, 3, 1, 7)) and "medium 1000/1000" in text
    assert stats_lines(players, 60) == ["player             games  wins  win % rounds lost avg points",
                                        "Ann                    3     1    33%           7          -",
                                        "  vs medium 1000/1000",
                                        "王小明李大華張偉~  99999 12345    12%       77777          -",
                                        "  vs hard 12345/99999"]
    assert stats_lines(players, 200) == stats_lines(players)  # (room for all: as ono99 stats prints it)


TINY_DECK = "hand_size = 4\ntarget = 30\n[deck]\nnumber_each = 1\nten = 0\nminus_ten = 0\nhold = 0\nreverse = 0\ndouble_play = 0\nninety_nine = 0\n"  # 8 cards, all dealt


async def _round_end_panel(rules: str, seed: int):
    """The Tokens panel's view at the first "Round N over", the engine's own state as that round
    ended (its dealer, seats and hand sizes), and the table's by then (the next deal)."""
    from tests.test_table_screen import settle, setup

    from ono99_tui.tui.widgets.panes import ScorePane

    app = Ono99App(bot_delay=0, seed=5)
    async with app.run_test(size=SIZE) as pilot:
        app.start_game(setup([("Ann", "human"), ("Bo", "bot:easy")], rules, seed=seed))
        await settle(pilot)
        game_screen = app.screen_stack[1]
        game = game_screen.table.game
        ended: list = []
        finish = game._finish_round

        def finishing(loser, reason):
            ended.append((game.dealer, tuple(game.order), tuple(len(h) for h in game.hands)))
            finish(loser, reason)

        game._finish_round = finishing
        await _to_round_end(app, pilot, game_screen)
        shown = game_screen.query_one(ScorePane)._view
        pane = game_screen.query_one(ScorePane)
        rows = [(row.rstrip().endswith(pane.glyphs.dealer), row) for row in str(pane.render()).splitlines()]
        return ((shown.dealer, shown.in_round, shown.hand_sizes), ended[0],
                (game.dealer, tuple(game.order), tuple(len(h) for h in game.hands)), rows)


async def test_round_over_shows_that_rounds_dealer_not_the_next_deals():
    """A play-tester: while "Round 1 over" was up, the Tokens panel already marked the next
    round's dealer (the table deals the next round at once)."""
    shown, ended, live, rows = await _round_end_panel("", 21)
    assert ended[0] != live[0]  # the next deal has another dealer: the case that went wrong
    assert shown == ended
    assert [marked for marked, _ in rows] == [s == ended[0] for s in range(2)], rows


async def test_round_over_shows_the_hand_sizes_it_ended_with_when_draws_ran_dry():
    """R4.4: with a deck barely bigger than the hands, a draw can find nothing and a hand
    shrinks; the notice showed the next deal's full hands instead of the round's end."""
    shown, ended, live, rows = await _round_end_panel(TINY_DECK, 1)
    assert ended[2] != live[2]  # hands had shrunk by the round's end: the case that went wrong
    assert shown == ended
    assert [f"{n} card" in row for n, (_, row) in zip(ended[2], rows)] == [True, True], rows
