"""Keys typed together act in order, each on what the keys before it left (issue 19 point 3).

A paste, SSH or a fast typist brings several keys in one read. ``together`` queues them all
with the app before it handles the first, as such a read does (Pilot's ``press`` waits for the
app to go idle after every key, so it cannot show this; both are tested). Waits are on the
app's own signals (tests/waits.py), never on time.
"""

import contextlib

import pytest
from textual import events
from textual.widgets._footer import FooterKey

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import DEFAULT, load_rules_text
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.modals import OutScreen, RoundEndScreen
from ono99_tui.tui.setup import TableSetup
from ono99_tui.tui.widgets.card import CardWidget
from ono99_tui.tui.widgets.footer import StableFooter
from ono99_tui.tui.widgets.hand import HandPane
from tests.stacked import game_with, set_total
from tests.waits import settle

CHARS = {"enter": "\r", "ctrl+s": "\x13", "left": None, "right": None, "backspace": "\x7f", "end": None, "home": None,
         "escape": "\x1b", "up": None, "down": None, "tab": "\t"}


def together(pilot, *keys: str) -> None:
    """Every key in the app's queue before it handles the first (one read of the terminal)."""
    app = pilot.app
    for key in keys:
        event = events.Key(key, CHARS.get(key, key))
        event.set_sender(app)
        app._driver.send_message(event)


async def press(pilot, mode: str, *keys: str) -> None:
    if mode == "together":
        together(pilot, *keys)
    else:
        await pilot.press(*keys)
    await settle(pilot)


def table(game, kinds=("human", "bot:easy"), rules=DEFAULT):
    """A table screen on ``game`` (seat 0, a human, to move); bots wait: nothing moves but the keys."""
    setup = TableSetup([SeatSpec(n, k) for n, k in zip(game.names, kinds)], rules, "standard", seed=0)
    return GameScreen(setup, game=game)


async def open_table(pilot, screen: GameScreen) -> None:
    pilot.app.push_screen(screen)
    await settle(pilot)
    assert screen._human_may_play()


async def footer_keys(pilot, screen, want=bool) -> list[str]:
    """The footer's key labels once ``want`` holds for them (the footer composes its keys after a
    refresh: on a busy machine some pauses later), or as they are after 50 pauses."""
    for _ in range(50):
        keys = [str(k.description) for k in screen.query(FooterKey)]
        if want(keys):
            break
        await pilot.pause()
    return keys


def plays_of(game, seat=0):
    return [card for s, card in game.plays if s == seat]


@pytest.mark.parametrize("mode", ["together", "press"])
@pytest.mark.parametrize("keys, played", [
    (("right", "enter"), "3"),
    (("right", "right", "enter"), "4"),
    (("right", "right", "right", "enter"), "5"),
    (("left", "enter"), "5"),  # from the first card round to the last
    (("right", "right", "left", "enter"), "3"),
])
async def test_arrows_and_enter_play_the_card_the_arrows_point_at(mode, keys, played):
    game = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], names=["You", "Bo"])
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game)
        await open_table(pilot, screen)
        assert [c.card for c in screen.query_one(HandPane).cards] == ["2", "3", "4", "5"]
        assert app.focused.index == 1
        await press(pilot, mode, *keys)
        assert plays_of(game) == [played]


@pytest.mark.parametrize("mode", ["together", "press"])
async def test_a_bust_asked_about_is_not_played_by_arrows_and_enter_meant_for_another_card(mode):
    """At 92 holding 9, 9, Reverse, 99 (the outline starts on the safe Reverse): Left and Enter
    ask before the 9 busts ("Press 2 again"); Right and Enter typed together, meant for card 3,
    play the Reverse, never the 9 (101)."""
    game = game_with([["reverse", "9", "9", "99"], ["2", "3", "4", "5"]], names=["You", "Bo"])
    set_total(game, 92)
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game)
        await open_table(pilot, screen)
        assert [c.card for c in screen.query_one(HandPane).cards] == ["9", "9", "reverse", "99"]
        assert app.focused.card == "reverse"
        await press(pilot, "press", "left", "enter")  # one at a time: the 9 is asked about
        hint = str(screen.query_one("#hint").render())
        assert "Press 2 " in hint and plays_of(game) == []
        assert len(hint) <= screen.query_one("#hint").content_size.width  # whole on its one line
        await press(pilot, mode, "right", "enter")
        assert plays_of(game) == ["reverse"] and game.total == 92


@pytest.mark.parametrize("mode", ["together", "press"])
async def test_a_bust_asked_about_is_played_by_its_number_or_enter_on_it(mode):
    game = game_with([["reverse", "9", "9", "99"], ["2", "3", "4", "5"]], names=["You", "Bo"])
    set_total(game, 92)
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game)
        await open_table(pilot, screen)
        await press(pilot, mode, "2", "right", "left", "enter")  # moved away and back: asked again
        assert plays_of(game) == []
        assert "Press 2 or Enter again" in str(screen.query_one("#hint").render())
        await press(pilot, mode, "enter")
        assert plays_of(game) == ["9"]


@pytest.mark.parametrize("mode", ["together", "press"])
async def test_a_number_then_arrows_and_enter_play_twice_after_a_double_play(mode):
    """You must play twice: "1", Right, Enter typed together play card 1, then card 2 (the card
    drawn went into slot 1, where the outline stays). (The table opens on the game under way with
    the 6 you drew in the slot of the 2 you played, as you saw it: engine/hand_order.py.)"""
    game = game_with([["2", "3", "4", "5"], ["double", "6", "7", "8"]], draw=["6", "7", "8"],
                     names=["You", "Bo"])
    game.play("2")
    game.play("double")
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game)
        await open_table(pilot, screen)
        assert [c.card for c in screen.query_one(HandPane).cards] == ["6", "3", "4", "5"]
        await press(pilot, mode, "1", "right", "enter")
        assert plays_of(game) == ["2", "6", "3"]


async def test_the_footer_names_the_outlined_card_without_a_rebuild():
    game = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], names=["You", "Bo"])
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game)
        await open_table(pilot, screen)
        footer = screen.query_one(StableFooter)
        await footer_keys(pilot, screen)
        keys = {id(k) for k in footer.query(FooterKey)}

        def label():
            return next(str(k.description) for k in footer.query(FooterKey) if k.action == "play_outlined")

        assert label() == "Play 1"
        together(pilot, "right", "right")
        await settle(pilot)
        assert label() == "Play 3"
        assert any("Play 3" in str(k.render()) for k in footer.query(FooterKey))  # what is drawn
        await press(pilot, "press", "left")
        assert label() == "Play 2"
        assert {id(k) for k in footer.query(FooterKey)} == keys  # relabelled in place, never rebuilt


async def test_a_table_opened_while_the_window_is_in_the_background_shows_its_keys_once_it_is_back():
    """A play-tester's find: a browser tab reloaded mid-game (its terminal not focused yet), or a
    game that started while its window was in the background (Textual hears the terminal's focus
    reports: AppBlur), showed a table with an empty footer for the rest of the game: Footer skips
    its rebuild while the app is blurred, and StableFooter had noted the keys as shown."""
    game = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], names=["You", "Bo"])
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(events.AppBlur())
        await settle(pilot)
        assert not app.app_focus
        screen = table(game)
        await open_table(pilot, screen)
        app.post_message(events.AppFocus())
        await settle(pilot)
        assert app.app_focus
        assert "Play 1" in await footer_keys(pilot, screen, lambda keys: "Play 1" in keys)
        await press(pilot, "press", "right")  # and the keys follow the play from then on
        assert "Play 2" in await footer_keys(pilot, screen, lambda keys: "Play 2" in keys)


async def test_out_of_the_game_the_footer_offers_no_play_and_no_undo():
    rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
    game = game_with([["10", "10", "10", "10"], ["2", "3", "4", "5"], ["6", "7", "8", "9"]],
                     names=["You", "Bo", "Cy"], rules=rules)
    set_total(game, 95)
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game, ("human", "bot:easy", "bot:easy"), rules)
        await open_table(pilot, screen)
        offered = await footer_keys(pilot, screen)
        assert "Play 1" in offered
        await press(pilot, "press", "1")  # every card busts: played at once
        assert isinstance(app.screen, RoundEndScreen)
        await press(pilot, "press", "enter")
        assert isinstance(app.screen, OutScreen)
        app.bot_delay = 600
        await pilot.click("#btn-watch")
        await settle(pilot)
        assert app.screen is screen and game.out[0]
        offered = await footer_keys(pilot, screen, lambda keys: "Help" in keys and not any(
            k.startswith("Play") or k == "Undo" for k in keys))
        assert "Help" in offered
        assert not any(o.startswith("Play") or o == "Undo" for o in offered), offered
        before = len(game.plays)
        together(pilot, "right", "enter", "1")
        await settle(pilot)
        assert all(s != 0 for s, _ in game.plays[before:])


class NoMenuApp(Ono99App):
    """An app with no menu behind its table, as `ono99 join` (tui/join.py): leaving ends it."""

    has_menu = False


@pytest.mark.parametrize("players", [3, 2])
async def test_out_of_the_game_or_game_over_at_a_table_with_no_menu_offers_leave_not_main_menu(players):
    """A play-tester's find: at a network table (`ono99 join`, a browser tab, SSH) "Out of the
    game" offered a "Main menu" button and both it and "Game over" said "esc Main menu": there is
    no menu there, Escape leaves the table and ends the session."""
    from textual.widgets import Button
    from textual.widgets._footer import FooterKey

    from ono99_tui.tui.screens.modals import GameOverScreen

    rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
    hands = [["10", "10", "10", "10"], ["2", "3", "4", "5"], ["6", "7", "8", "9"]][:players]
    game = game_with(hands, names=["You", "Bo", "Cy"][:players], rules=rules)
    set_total(game, 95)
    app = NoMenuApp(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game, ("human", "bot:easy", "bot:easy")[:players], rules)
        await open_table(pilot, screen)
        await press(pilot, "press", "1")  # every card busts: played at once
        assert isinstance(app.screen, RoundEndScreen)
        await press(pilot, "press", "enter")
        dialog = app.screen
        assert isinstance(dialog, OutScreen if players == 3 else GameOverScreen), dialog
        labels = [str(b.label) for b in dialog.query(Button)]
        assert "Main menu" not in labels and "Leave the table" in labels, labels
        keys = await footer_keys(pilot, dialog, lambda keys: bool(keys))
        assert keys == ["Leave the table"], keys


async def test_out_of_the_game_at_a_table_whose_bots_play_elsewhere_offers_no_pace_it_cannot_keep():
    """At a network table the server plays the bots at its own pace: "Watch fast" was "Watch", and
    "Skip to the end" only hid the round notices while the game went on as slowly as before."""
    from textual.widgets import Button

    rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
    game = game_with([["10", "10", "10", "10"], ["2", "3", "4", "5"], ["6", "7", "8", "9"]],
                     names=["You", "Bo", "Cy"], rules=rules)
    set_total(game, 95)
    app = NoMenuApp(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game, ("human", "bot:easy", "bot:easy"), rules)
        screen.table.runs_bots = False  # (as a network table's: tables/contract.py)
        await open_table(pilot, screen)
        await press(pilot, "press", "1")
        await press(pilot, "press", "enter")
        assert isinstance(app.screen, OutScreen)
        assert [str(b.label) for b in app.screen.query(Button)] == ["Watch", "Leave the table"]


async def test_a_99_that_cannot_be_played_is_marked_like_every_other():
    game = game_with([["5", "99", "6", "7"], ["2", "3", "4", "8"]], names=["You", "Bo"])
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game)
        await open_table(pilot, screen)
        card = next(c for c in screen.query(CardWidget) if c.card == "99")
        assert card.reason and "(x)" in str(card.render())


async def test_the_game_over_table_shows_no_cards_for_a_player_out():
    from ono99_tui.tui.screens.modals import GameOverScreen

    rules = load_rules_text("[scoring]\ntokens = 1\nextra_life = false\n")
    game = game_with([["10", "10", "10", "10"], ["2", "3", "4", "5"]], names=["You", "Bo"], rules=rules)
    set_total(game, 95)
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game, rules=rules)
        await open_table(pilot, screen)
        await press(pilot, "press", "1")  # busts: Bo wins the game
        for _ in range(5):
            if isinstance(app.screen, GameOverScreen):
                break
            await press(pilot, "press", "enter")
        assert isinstance(app.screen, GameOverScreen) and game.over
        rows = str(screen.query_one("#scores").render()).splitlines()
        you = next(r for r in rows if "You" in r)
        assert "out" in you and "card" not in you


@pytest.mark.parametrize("keys, want", [
    (("backspace", "x"), "Bex"),
    (("left", "z"), "Bezn"),
    (("home", "backspace", "Z"), "ZBen"),
    (("backspace", "backspace", "backspace", "A", "n", "n"), "Ann"),
])
async def test_editing_keys_typed_together_in_a_text_box_act_in_order(keys, want):
    """A play-tester's find: in the New game name box, Backspace then x in one read left "Ben"
    (the letter went in first, the Backspace then took it). Every key acts in order now."""
    from ono99_tui.tui.widgets.ordered_input import OrderedInput

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.menu_choice("new")
        await settle(pilot)
        box = app.screen.focused
        assert isinstance(box, OrderedInput)
        box.value = "Ben"
        box.action_end()
        together(pilot, *keys)
        await settle(pilot)
        assert box.value == want


@contextlib.asynccontextmanager
async def _a_plain_table():
    """(pilot, game): You to move, holding 2 3 4 5, against a bot that waits."""
    game = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], names=["You", "Bo"])
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_table(pilot, table(game))
        yield pilot, game


async def _until(pilot, done) -> None:
    """Settled until ``done()`` (a screen opened by keys may take a few passes to be on top)."""
    for _ in range(50):
        await settle(pilot)
        if done():
            return


async def _emptied(pilot, screen, selector: str):
    """``screen`` opened with its field ``selector`` focused and emptied: the field."""
    pilot.app.push_screen(screen)
    await settle(pilot)
    field = screen.query_one(selector)
    field.focus()
    field.value = ""
    await settle(pilot)
    return field


async def _typed_into(pilot, screen_type, *keys):
    """``keys`` together; then the screen they opened, once it has its focus (and the keys)."""
    together(pilot, *keys)
    for _ in range(50):
        await settle(pilot)
        if isinstance(pilot.app.screen, screen_type) and pilot.app.focused is not None and not getattr(pilot.app, "_held_keys", None):
            return pilot.app.screen
    raise AssertionError(f"never on {screen_type.__name__} with its focus: {pilot.app.screen!r}")


@pytest.mark.parametrize("keys, typed", [(("ctrl+s", "x", "1"), "x1"), (("ctrl+s", "b", "u", "g"), "bug")])
async def test_keys_typed_with_ctrl_s_go_to_save_as_and_play_nothing(keys, typed):
    """A play-tester's find: Ctrl+S then "save1" in one read opened Save as and played card 1 on
    the table under it (and Ctrl+S then "bug" ran undo there). They are Save as's now."""
    from textual.widgets import Input

    from ono99_tui.tui.screens.save_as import SaveAsScreen

    async with _a_plain_table() as (pilot, game):
        dialog = await _typed_into(pilot, SaveAsScreen, *keys)
        assert plays_of(game) == [] and game.total == 0
        assert dialog.query_one(Input).value.endswith(typed)


async def test_keys_typed_after_the_enter_that_names_a_copy_act_on_the_table(private_dirs):
    """Ctrl+S, "ab", Enter and "1" in one read (a paste, SSH): the copy was saved as "ab1" and no
    card was played (the 1 was sent on to the name field with the Enter, behind it). Typed
    slowly, the copy is "ab" and card 1 is played on the table Save as returns to."""
    from ono99_tui.store.saves import SaveStore

    async with _a_plain_table() as (pilot, game):
        together(pilot, "ctrl+s", "a", "b", "enter", "1")
        await _until(pilot, lambda: plays_of(game))
        assert "ab" in SaveStore().names() and "ab1" not in SaveStore().names()
        assert plays_of(game) == ["2"], plays_of(game)


@pytest.mark.parametrize("keys", [("enter", "enter"), ("enter", "1"), ("enter", "right", "enter")])
async def test_keys_read_with_the_one_that_answers_a_notice_that_came_by_itself_play_nothing(keys):
    """A notice that comes up by itself (Round over, a hand-over) answered by Enter, with more keys
    in the same read (a double press, over SSH): they were typed at the notice, not at the table
    it uncovers, whose hand nobody has seen yet. They play nothing; the table takes keys again."""
    from ono99_tui.tui.screens.notice import _Notice

    async with _a_plain_table() as (pilot, game):
        table = pilot.app.screen
        pilot.app.push_screen(_Notice("Round 1 over", "Bo loses a token."))
        await settle(pilot)
        together(pilot, *keys)
        await settle(pilot)
        assert pilot.app.screen is table and plays_of(game) == [], plays_of(game)
        await pilot.press("1")  # typed once the table is back: it plays
        await settle(pilot)
        assert plays_of(game) == ["2"]


async def test_a_number_typed_with_the_help_key_plays_nothing():
    from ono99_tui.tui.screens.modals import HelpScreen

    async with _a_plain_table() as (pilot, game):
        await _typed_into(pilot, HelpScreen, "question_mark", "1")
        assert plays_of(game) == [] and game.total == 0


async def test_a_name_typed_with_n_on_the_menu_is_typed_into_new_game():
    """A play-tester's find: "n" then "Aq" in one read opened New game, then quit the app."""
    from textual.widgets import Input

    from ono99_tui.tui.screens.new_game import NewGameScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _typed_into(pilot, NewGameScreen, "n", "A", "q")
        assert app.is_running and isinstance(app.focused, Input) and app.focused.value.endswith("Aq")


async def test_letters_typed_after_tab_go_to_the_field_tab_moved_to():
    """A play-tester's find: "Ann", Tab, "Bob" in one read named seat 1 "AnnBob" (the Tab moved
    the focus only after the letters after it were typed)."""
    from textual.widgets import Input

    from ono99_tui.tui.screens.new_game import NewGameScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.menu_choice("new")
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen) and isinstance(app.focused, Input)
        first = app.focused
        first.value = ""
        together(pilot, "A", "n", "n", "tab", "B", "o", "b")
        await settle(pilot)
        assert first.value == "Ann" and app.focused is not first


async def test_menu_keys_typed_together_act_in_the_order_typed():
    """Down, Enter and a letter in one read: Enter chooses the entry Down reached (Quick game)
    before the letter acts on the screen that opened; the letter never overtakes the Enter."""
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        together(pilot, "down", "enter", "question_mark")
        await _until(pilot, lambda: len(app.screen_stack) > 2 and not getattr(app, "_held_keys", None))
        from ono99_tui.tui.screens.modals import HelpScreen

        assert [type(s) for s in app.screen_stack[1:]] == [GameScreen, HelpScreen], app.screen_stack


async def _palette_showing_save_as(pilot):
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*"save as")
    for _ in range(50):  # (the palette gathers its commands in a worker)
        await settle(pilot)
        if "Save as" in str(pilot.app.screen.query_one("CommandList").get_option_at_index(0).prompt) \
                if pilot.app.screen.query_one("CommandList").option_count else False:
            return
    raise AssertionError("the palette never offered Save as")


@pytest.mark.parametrize("keys, typed", [(("enter", "x", "2"), "x2"), (("enter", "enter"), None)])
async def test_keys_typed_with_the_palettes_enter_go_to_the_command_it_runs(keys, typed):
    """A play-tester's find: Ctrl+P, "save", then Enter, "x2", Enter in one read: "x2" was lost,
    and the second Enter closed the palette a second time, which closed the table under it (the
    game left, Save as opened over the menu). The keys now wait for the command and go to it."""
    from textual.widgets import Input

    from ono99_tui.tui.screens.save_as import SaveAsScreen

    async with _a_plain_table() as (pilot, game):
        await _palette_showing_save_as(pilot)
        together(pilot, *keys)
        for _ in range(50):
            await settle(pilot)
            if not getattr(pilot.app, "_held_keys", None) and not getattr(pilot.app, "_holding", False) \
                    and not any(type(s).__name__ == "CommandPalette" for s in pilot.app.screen_stack):
                break
        stack = [type(s) for s in pilot.app.screen_stack]
        assert GameScreen in stack and plays_of(game) == [], stack
        if typed:
            assert isinstance(pilot.app.screen, SaveAsScreen)
            assert pilot.app.screen.query_one(Input).value.endswith(typed)


async def _load_screen_with(pilot, *names):
    """The Load screen listing saves ``names`` (newest first), its list read and focused."""
    from ono99_tui.store.saves import SaveStore
    from ono99_tui.tui.screens.load import LoadScreen
    from tests.test_saves import save

    for name in reversed(names):
        save(SaveStore(), name, plays=3)
    pilot.app.push_screen(screen := LoadScreen())
    for _ in range(50):
        await settle(pilot)
        if len(screen.infos) == len(names) and pilot.app.focused is not None:
            return screen
    raise AssertionError("the saves were never listed")


@pytest.mark.parametrize("keys, renamed", [(("r", "z"), "z"), (("r", "z", "x", "enter"), "zx"),
                                           (("down", "r", "z", "enter"), "z")])
async def test_a_new_name_typed_with_r_at_load_renames_the_save_r_was_pressed_on(private_dirs, keys, renamed):
    """A play-tester's find: at Load, "r" then "zzz" and Enter in one read renamed nothing: the
    letters were lost (they reached the list under the dialog), and Enter pressed Rename with the
    old name. Typed slowly, the letters replace the name shown and Enter renames."""
    from ono99_tui.store.saves import SaveStore
    from ono99_tui.tui.screens.save_as import NameScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _load_screen_with(pilot, "first", "second")
        target = "second" if "down" in keys else "first"
        together(pilot, *keys)
        await _until(pilot, lambda: not getattr(app, "_held_keys", None) and (app.screen is screen or app.focused is not None))
        if "enter" in keys:
            assert app.screen is screen
            assert sorted(SaveStore().names()) == sorted({"first", "second"} - {target} | {renamed})
        else:
            assert isinstance(app.screen, NameScreen) and app.focused.value == renamed


@pytest.mark.parametrize("start", ["ctrl+s", "enter"])
async def test_a_name_typed_with_ctrl_s_at_new_game_is_the_name_the_game_starts_with(start):
    """A play-tester typed a new name and Ctrl+S (Start) in one read (a paste, SSH): the game
    started with "You", the name the field held before the letters reached it (a priority
    binding acted as it was read, ahead of the letters queued for the field). Typed slowly, the
    seat is named as typed; Enter (the field's submit) always was."""
    from ono99_tui.tui.screens.new_game import NewGameScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _typed_into(pilot, NewGameScreen, "n")
        together(pilot, "backspace", "backspace", "backspace", "Z", "e", "d", start)
        await _until(pilot, lambda: isinstance(app.screen, GameScreen) and not getattr(app, "_held_keys", None))
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table.game.names[0] == "Zed"


async def test_a_value_ctrl_s_and_a_menu_key_in_one_read_save_the_settings_then_act_on_the_menu(private_dirs):
    """Settings: a bot delay, Ctrl+S (Save) and g (quick game, on the menu Save returns to) in
    one read: the settings were saved and the g was lost (typed into the closed form's field
    after the letters, as Ctrl+S was). Typed slowly, the game starts with the delay saved."""
    from textual.widgets import Input

    from ono99_tui.store.settings import load_settings
    from ono99_tui.tui.screens.settings import SettingsScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("settings")
        await settle(pilot)
        form = app.screen
        assert isinstance(form, SettingsScreen)
        field = form.query_one("#bot_delay", Input)
        field.focus()
        field.value = ""
        await settle(pilot)
        together(pilot, "2", "ctrl+s", "g")
        await _until(pilot, lambda: isinstance(app.screen, GameScreen) and not getattr(app, "_held_keys", None) and not app._holding)
        assert load_settings()[0].bot_delay == 2
        assert isinstance(app.screen, GameScreen), app.screen


async def test_a_value_then_ctrl_s_and_a_name_in_one_read_save_the_preset_as_typed(private_dirs):
    """A play-tester at House rules typed a target, Ctrl+S (Save as), a name and Enter in one
    read: the name's letters went to the target's field under the dialog (the dialog was opened
    by a message behind them), and nothing was saved under that name. Typed slowly, the preset
    "abc" is saved with the target typed."""
    from ono99_tui.store import rule_presets as rp
    from ono99_tui.tui.screens.rules_view import RulesViewScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        target = await _emptied(pilot, screen := RulesViewScreen("standard"), "#key-target")
        together(pilot, "5", "0", "ctrl+s", "a", "b", "c", "enter")
        await _until(pilot, lambda: app.screen is screen and not getattr(app, "_held_keys", None) and not app._holding)
        assert app.screen is screen
        assert [p.name for p in rp.user_presets()] == ["abc"]
        assert rp.load(rp.user_presets()[0]).target == 50


@pytest.mark.parametrize("typed, opened", [("help", "HelpScreen"), ("card", "CardReferenceScreen")])
async def test_a_search_and_enter_typed_together_in_the_palette_run_what_was_searched_for(typed, opened):
    """A play-tester opened the palette (Ctrl+P) at the table and typed "help" and Enter in one
    read: the card reference opened (the first command before the search had narrowed the list:
    Enter acted as it was read, ahead of the letters). Typed slowly, Enter runs Help."""
    from tests.waits import palette_ready

    async with _a_plain_table() as (pilot, game):
        await pilot.press("ctrl+p")
        await palette_ready(pilot)
        together(pilot, *typed, "enter")
        await _until(pilot, lambda: type(pilot.app.screen).__name__ == opened and not pilot.app._holding)
        assert type(pilot.app.screen).__name__ == opened, pilot.app.screen_stack
        assert plays_of(game) == []


async def test_tab_and_a_name_typed_with_n_on_the_menu_stay_in_the_field_tab_moved_to():
    """A stranger's find over tmux: "n", "Zed", Tab, Tab, "X" in one read named seat 2 "X", then
    the focus jumped back to seat 1 (New game's own focus, asked for as it was mounted, landed
    after the keys), and the next letter typed replaced "Zed"."""
    from textual.widgets import Input

    from ono99_tui.tui.screens.new_game import NewGameScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _typed_into(pilot, NewGameScreen, "n", "Z", "e", "d", "tab", "tab", "X")
        names = list(screen.query(".seat-name").results(Input))
        await pilot.press("Q")
        await settle(pilot)
        assert names[0].value.endswith("Zed") and names[1].value == "XQ", [n.value for n in names]


async def _answered_by_keys_read_with_escape(pilot, screen, field_id, value):
    """On ``screen`` (pushed), ``value`` typed into its field ``field_id``, then Escape (which asks
    about the unsaved change), Right (to Save) and Enter in one read."""
    app = pilot.app
    app.push_screen(screen)
    await settle(pilot)
    field = screen.query_one(f"#{field_id}")
    field.focus()
    field.value = ""
    await settle(pilot)
    together(pilot, *value, "escape", "right", "enter")
    await _until(pilot, lambda: app.screen is not screen and not getattr(app, "_held_keys", None) and not app._holding)


async def test_escape_and_the_answer_typed_together_at_settings_save_the_change(private_dirs):
    """A stranger's find over tmux: at Settings, a bot delay, then Escape, Right and Enter in one
    read (Escape asks "Leave settings?", Right to Save, Enter): the question stayed up, Right and
    Enter lost (the question took them for keys typed before it came up). Typed slowly, the
    delay is saved and the menu is back."""
    from ono99_tui.store.settings import load_settings
    from ono99_tui.tui.screens.menu import MenuScreen
    from ono99_tui.tui.screens.settings import SettingsScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _answered_by_keys_read_with_escape(pilot, SettingsScreen(app.settings), "bot_delay", "2")
        assert isinstance(app.screen, MenuScreen), app.screen_stack
        assert load_settings()[0].bot_delay == 2


async def test_escape_and_the_answer_typed_together_at_house_rules_save_the_change(private_dirs):
    """The same at House rules: a target, Escape ("Unsaved changes to mine"), Right (Save), Enter."""
    from ono99_tui.store import rule_presets as rp
    from ono99_tui.tui.screens.menu import MenuScreen
    from ono99_tui.tui.screens.rules_view import RulesViewScreen

    path = rp.save_preset("mine", rp.resolve("standard")[0])
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _answered_by_keys_read_with_escape(pilot, RulesViewScreen("mine"), "key-target", "66")
        assert isinstance(app.screen, MenuScreen), app.screen_stack
        assert "target = 66" in path.read_text()


@pytest.mark.parametrize("keys, left", [(("d", "right", "enter"), ["second"]), (("d", "enter"), ["first", "second"]),
                                        (("down", "d", "right", "enter", "d", "right", "enter"), [])])
async def test_d_and_the_answer_typed_together_at_load_delete_the_save(private_dirs, keys, left):
    """At Load, "d", Right (to Delete) and Enter in one read left the question up and deleted
    nothing: Right and Enter were taken for keys typed before it came up. Typed slowly, the save
    is deleted; "d" and Enter alone keep it (Keep it comes first)."""
    from ono99_tui.store.saves import SaveStore
    from ono99_tui.tui.screens.load import LoadScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _load_screen_with(pilot, "first", "second")
        together(pilot, *keys)
        await _until(pilot, lambda: app.screen is screen and not getattr(app, "_held_keys", None) and len(screen.infos) == len(left))
        assert app.screen is screen, app.screen_stack
        assert sorted(SaveStore().names()) == left


async def test_two_deletes_typed_together_at_load_wait_for_the_list_read_back(private_dirs, monkeypatch):
    """Two deletes in one read at Load (Down, d, Right, Enter, d, Right, Enter): the second "d"
    met the list while its worker read it back after the first, and acted on what was read so
    far: the newest save, highlighted while the one that took the deleted one's place was not
    read yet, was deleted instead (or, on an empty list, nothing). Keys now wait until the list
    holds the save to highlight. The read-back is held here after its first save, as a slow disk
    or a big folder holds it."""
    import threading

    from ono99_tui.store.saves import SaveStore
    from ono99_tui.tui.screens import load as load_module

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _load_screen_with(pilot, "s1", "s2", "s3", "s4")
        release, reads = threading.Event(), []
        infos = screen.store.infos

        def slow_infos(*a, **k):
            reads.append(1)
            for n, info in enumerate(infos(*a, **k)):
                if n == 1:
                    release.wait(30)
                yield info

        screen.store.infos = slow_infos

        class Clock:  # every save read is its own batch: s1 shows before the read-back is held
            now = 0.0

            @classmethod
            def monotonic(cls):
                cls.now += 1.0
                return cls.now

        monkeypatch.setattr(load_module, "time", Clock)
        together(pilot, "down", "d", "right", "enter", "d", "right", "enter")
        # the first delete done and its read-back shown as far as s1; the keys after it either
        # acted (before this fix) or wait for the list (after it). (Not settle: it waits for the
        # held read-back's worker.)
        for _ in range(500):
            await pilot.pause()
            if reads and [i.name for i in screen.infos] == ["s1"] and not app._holding \
                    and (not app._held_keys or screen.keys_wait):
                break
        else:
            raise AssertionError(f"the read-back never showed s1: {[i.name for i in screen.infos]}")
        release.set()
        await _until(pilot, lambda: app.screen is screen and not app._held_keys and not app._holding
                     and len(screen.infos) == len(SaveStore().names()) and screen.query_one("#saves").highlighted is not None)
        assert sorted(SaveStore().names()) == ["s1", "s4"]  # s2, then s3 that took its place
        assert screen.infos[screen.query_one("#saves").highlighted].name == "s4"


async def test_escape_leaves_a_load_screen_whose_list_is_never_read(private_dirs):
    """Keys wait at Load until its list is read (above); a disk that never answers must not keep
    a player there: Escape leaves at once, and the keys typed before it, for that list, do nothing."""
    import threading

    from ono99_tui.store.saves import SaveStore
    from ono99_tui.tui.screens.load import LoadScreen
    from tests.test_saves import save

    release = threading.Event()
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("s1", "s2"):
            save(SaveStore(), name, plays=3)
        await settle(pilot)
        screen = LoadScreen()
        infos = screen.store.infos

        def stuck(*a, **k):
            release.wait(30)
            yield from infos(*a, **k)

        screen.store.infos = stuck
        app.push_screen(screen)
        for _ in range(500):
            await pilot.pause()
            if app.screen is screen and screen.is_mounted:
                break
        together(pilot, "d", "right", "enter", "escape")
        for _ in range(500):
            await pilot.pause()
            if app.screen is not screen and not app._held_keys:
                break
        release.set()
        await settle(pilot)
        assert screen not in app.screen_stack, app.screen_stack
        assert sorted(SaveStore().names()) == ["s1", "s2"]


async def test_escape_and_a_number_typed_with_the_help_key_close_help_and_play():
    """"?", Escape and 1 in one read left Help up and played nothing (Escape and 1 taken for keys
    typed before Help came up). Typed slowly, Help opens, closes, and card 1 is played."""
    from ono99_tui.tui.screens.modals import HelpScreen

    async with _a_plain_table() as (pilot, game):
        together(pilot, "question_mark", "escape", "1")
        await _until(pilot, lambda: plays_of(game) and not getattr(pilot.app, "_held_keys", None))
        assert not isinstance(pilot.app.screen, HelpScreen) and plays_of(game) == ["2"], plays_of(game)


async def test_a_name_saved_by_escape_and_the_answer_is_the_name_a_quick_game_typed_with_them_uses(private_dirs):
    """A stranger's find over tmux: at Settings, a new name, Escape, Right (Save), Enter and g (Quick
    game, on the menu) in one read: the settings were saved with the name, but the game started
    with the old one (g reached the menu before the app took the saved settings)."""
    from ono99_tui.tui.screens.settings import SettingsScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        field = await _emptied(pilot, screen := SettingsScreen(app.settings), "#player_name")
        together(pilot, "A", "n", "n", "escape", "right", "enter", "g")
        await _until(pilot, lambda: isinstance(app.screen, GameScreen) and not getattr(app, "_held_keys", None) and not app._holding)
        assert isinstance(app.screen, GameScreen), app.screen_stack
        assert app.screen.table.game.names[0] == "Ann"


@pytest.mark.parametrize("start", ["ctrl+s", "enter"])
async def test_a_key_typed_with_the_one_that_starts_a_new_game_acts_at_the_table(start):
    """Ctrl+S (or Enter) at New game and "?" in one read: the "?" was typed into the name field of
    New game as it closed (the game is started by a message the "?" overtook). Typed slowly,
    Help opens over the table."""
    from ono99_tui.tui.screens.modals import HelpScreen
    from ono99_tui.tui.screens.new_game import NewGameScreen

    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.menu_choice("new")
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen)
        together(pilot, start, "question_mark")
        await _until(pilot, lambda: isinstance(app.screen, HelpScreen) and not getattr(app, "_held_keys", None) and not app._holding)
        assert [type(s) for s in app.screen_stack[1:]] == [GameScreen, HelpScreen], app.screen_stack
        assert app.screen_stack[1].table.game.names[0] == "You"
