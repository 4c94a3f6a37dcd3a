"""The table screen as a view of the table session (Pilot). Waits on the app's own signals only:
its workers finishing and its message queue going idle, never on a clock."""

from rich.markup import escape
from textual.widgets import Log
from textual.widgets._footer import FooterKey

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import load_rules_text
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.modals import GameOverScreen, OutScreen, PassScreen, RoundEndScreen
from ono99_tui.tui.setup import TableSetup
from ono99_tui.tui.widgets.card import CardWidget
from ono99_tui.engine.hand_order import arrange
from ono99_tui.tui.widgets.hand import HandPane
from tests.waits import settle

SHORT = "[scoring]\ntokens = 1\nextra_life = false\n"


async def until_my_turn(pilot, screen: GameScreen):
    for _ in range(200):
        await settle(pilot)
        if isinstance(pilot.app.screen, (RoundEndScreen, PassScreen, OutScreen)):
            await pilot.press("enter")
        elif screen._human_may_play() or isinstance(pilot.app.screen, GameOverScreen):
            return
    raise AssertionError("never my turn")


def setup(names_kinds, rules="", seed=21):
    seats = [SeatSpec(n, k) for n, k in names_kinds]
    return TableSetup(seats, load_rules_text(rules), "test", seed=seed)


def screen_text(app) -> str:
    return "\n".join(
        str(w.render()) for w in app.screen.query("Static, Log") if w.display
    )


async def test_hot_seat_shows_no_hand_until_its_owner_takes_the_keyboard():
    """Issue 12 defect 1: with Ann and Ben at one keyboard, nothing of Ann's hand is on screen
    (cards or log) while the "Pass to Ann" notice waits, and no draw is ever named in the log."""
    app = Ono99App(bot_delay=0, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("Ann", "human"), ("Ben", "human")], SHORT))
        await settle(pilot)
        game_screen = app.screen_stack[1]
        passes = 0
        for _ in range(120):
            screen = app.screen
            if isinstance(screen, PassScreen):
                passes += 1
                cards = game_screen.query_one(HandPane).cards
                assert all(c.card is None and not c.display for c in cards)
                await pilot.press("enter")
                await settle(pilot)
                assert any(c.card for c in game_screen.query_one(HandPane).cards)  # now it shows
            elif isinstance(screen, RoundEndScreen):
                await pilot.press("enter")
            elif isinstance(screen, GameOverScreen):
                break
            else:
                card = game_screen.query_one(HandPane).best_focus()
                await pilot.press(str(card.index))
            await settle(pilot)
            log = "\n".join(game_screen.query_one(Log).lines)
            assert " draws " not in log and " draw " not in log
        assert passes >= 3


async def test_cards_are_updated_in_place_and_the_footer_is_not_rebuilt_per_play():
    """Issue 11: no card widget is re-mounted per play, and the footer's keys are not rebuilt
    (their detached copies were the leak)."""
    app = Ono99App(bot_delay=0, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy"), ("Cy", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        widgets = [id(c) for c in screen.query(CardWidget)]
        seen = {id(k) for k in app.screen.query(FooterKey)}
        first_round = len(screen.table.game.round_plays)
        plays = 0
        for _ in range(8):
            await until_my_turn(pilot, screen)
            if app.screen is not screen:
                break
            await pilot.press(str(screen.query_one(HandPane).best_focus().index))
            plays += 1
            seen |= {id(k) for k in screen.query(FooterKey)}
        assert plays >= 4
        assert [id(c) for c in screen.query(CardWidget)] == widgets
        shown = max(len(screen.query(FooterKey)), 5)
        # Undo is offered once you have played in the round (it never reaches into a finished
        # one): it goes at each new round and comes back with your first play there. Those are
        # the only rebuilds allowed, and fewer than one per play.
        new_rounds = len(screen.table.game.round_plays) - first_round
        rebuilds = 1 + 2 * new_rounds
        assert rebuilds < plays, "the test needs more plays than rounds to tell a rebuild per play"
        assert len(seen) <= (1 + rebuilds) * shown


async def test_a_card_keeps_its_number_and_a_drawn_card_takes_the_freed_slot():
    """Issue 12: the hand is not re-sorted; key N means the same card all turn."""
    app = Ono99App(bot_delay=0, seed=8)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        before = [c.card for c in screen.query(CardWidget)]
        pick = screen.query_one(HandPane).best_focus()
        await pilot.press(str(pick.index))
        await until_my_turn(pilot, screen)
        assert screen.table.game.round_no == 1, "a round ended between the two turns: the slots were dealt again"
        after = screen.query(CardWidget)
        for i, (old, widget) in enumerate(zip(before, after), start=1):
            if i != pick.index:
                assert widget.card == old
        assert after[pick.index - 1].has_class("new")


def test_arrange_keeps_places_and_fills_gaps():
    assert arrange(["7", "10", "hold", "99"], ["99", "7", "hold", "3"]) == (["7", "3", "hold", "99"], {1})
    assert arrange(["7", "7"], ["7", "5"]) == (["7", "5"], {1})
    assert arrange(["7", "5", "6"], ["7", "6"]) == (["7", None, "6"], set())  # nothing to draw (R4.4)


async def test_keys_do_nothing_behind_terminal_too_small():
    """Issue 12 defect 6: at 60x20 the table is hidden; pressing 1 must not play a card unseen."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        plays = len(screen.table.game.plays)
        await pilot.press("1", "2", "enter")
        await settle(pilot)
        assert len(screen.table.game.plays) == plays
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await settle(pilot)
        assert len(screen.table.game.plays) > plays


async def test_a_busting_card_asks_once_when_a_safe_card_exists():
    """Issue 12: at 94 holding 8, 10, Minus Ten, Hold, pressing the 8 warns first (R5.1)."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        g = screen.table.game
        g.total = 94
        g.hands[0][:] = ["8", "10", "-10", "hold"]
        g._settle()
        screen.refresh_all()
        await pilot.pause()
        cards = {c.card: c for c in screen.query(CardWidget)}
        assert cards["8"].busts and "BUST" in str(cards["8"].render())
        assert not cards["-10"].busts
        assert isinstance(app.focused, CardWidget)  # focus starts on a safe card (-10 or Hold)
        assert app.focused.card in ("-10", "hold") and not app.focused.busts and app.focused.reason is None
        before = len(g.plays)
        await pilot.press(str(cards["8"].index))
        assert len(g.plays) == before
        assert "again" in str(screen.query_one("#hint").render())
        await pilot.press(str(cards["8"].index))
        await settle(pilot)
        assert (0, "8") in g.plays


async def test_markup_in_names_is_shown_as_text_on_the_table():
    """Issue 15: names that are Textual markup neither crash the table nor act as markup."""
    names = ["[/]", "[@click=app.quit]x"]
    app = Ono99App(bot_delay=0, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([(names[0], "human"), (names[1], "bot:easy")], SHORT))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await settle(pilot)
        scores = str(screen.query_one("#scores").render())
        assert "[/]" in scores and "[@click=" in scores  # (cut to the column, "~" marking the cut)
        assert any("[@click=app.quit]x" in line for line in screen.query_one(Log).lines)
        assert escape(names[0]) != names[0]  # the names really were markup
        # on to the round-end and game-over notices, which name the players too
        for _ in range(300):
            if isinstance(app.screen, GameOverScreen):
                break
            if isinstance(app.screen, RoundEndScreen):
                assert "[/]" in str(app.screen.query_one(".dialog-body").render())
                await pilot.press("enter")
            elif screen._human_may_play():
                await pilot.press(str(screen.query_one(HandPane).best_focus().index))
            await settle(pilot)
        assert isinstance(app.screen, GameOverScreen) and app.is_running


async def test_hot_seat_pass_notice_shows_a_markup_name_as_text_and_escape_leaves():
    app = Ono99App(bot_delay=0, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("[b]Ann", "human"), ("[/]", "human")], SHORT))
        await settle(pilot)
        assert isinstance(app.screen, PassScreen)
        game = app.screen_stack[1].table.game
        first, second = game.names[game.current], game.names[1 - game.current]
        body = str(app.screen.query_one(".dialog-body").render())
        assert first in body and second not in body  # the one to take the keyboard, named as typed
        await pilot.press("escape")  # back to the menu, never showing the hand
        await settle(pilot)
        assert not isinstance(app.screen, (PassScreen, GameScreen))


async def test_the_log_follows_play_after_a_resize():
    """Issue 12 defect 2: 80x24 -> 100x30 -> 80x24, then the newest play is still in view."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy"), ("Cy", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        for _ in range(5):
            await until_my_turn(pilot, screen)
            if app.screen is not screen:
                break
            await pilot.press(str(screen.query_one(HandPane).best_focus().index))
        await settle(pilot)
        log = screen.query_one(Log)
        assert log.line_count > log.size.height
        assert log.scroll_y == log.max_scroll_y  # the newest line is on screen


async def test_once_out_you_may_skip_to_the_end_without_round_notices():
    """Issue 12: out of the game, offer to watch, watch fast, skip to the end, or leave."""
    app = Ono99App(bot_delay=5, seed=3)  # slow bots: only skipping can finish this test
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy"), ("Cy", "bot:easy")], SHORT))
        screen = app.screen_stack[-1]
        app.bot_delay = 0
        await until_my_turn(pilot, screen)
        app.bot_delay = 5
        g = screen.table.game
        g.total = 95
        g.hands[0][:] = ["10", "10", "10", "10"]
        g._settle()
        screen.refresh_all()
        await pilot.press("1")  # busts: no safe card, so it plays at once, unasked
        await settle(pilot)
        assert isinstance(app.screen, RoundEndScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, OutScreen)
        await pilot.click("#btn-skip")
        for _ in range(100):
            await settle(pilot)
            assert not isinstance(app.screen, RoundEndScreen)
            if isinstance(app.screen, GameOverScreen):
                break
        assert isinstance(app.screen, GameOverScreen) and g.over


async def test_the_reason_a_card_cannot_be_played_goes_when_focus_moves_on():
    """Issue 12 defect 10: the focused unplayable card's reason, then the turn's hint again."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        g = screen.table.game
        g.hands[0][:] = ["5", "99", "6", "7"]
        g.total = 10
        g._settle()
        screen.refresh_all()
        await pilot.pause()
        cards = list(screen.query(CardWidget))
        ninety_nine = next(c for c in cards if c.card == "99")
        ninety_nine.focus()
        await pilot.pause()
        assert "cannot be played" in str(screen.query_one("#hint").render())
        await pilot.press("right")
        await pilot.pause()
        assert "Your turn" in str(screen.query_one("#hint").render())
