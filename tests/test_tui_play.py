"""The Textual game played through key presses, as a person plays it (Pilot)."""

import pytest

from ono99_tui.engine.describe import possessive
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.modals import GameOverScreen, OutScreen, PassScreen, RoundEndScreen
from ono99_tui.tui.screens.new_game import SeatRow
from ono99_tui.tui.widgets.card import CardWidget
from textual.widgets import Button, Select

from tests.waits import palette_ready, settle, until_resumed, until_my_turn

SHORT = "[scoring]\ntokens = 1\nextra_life = false\n"


@pytest.fixture
def short_rules(tmp_path):
    path = tmp_path / "short.toml"
    path.write_text(SHORT)
    return str(path)


async def play_to_the_end(pilot, app, max_steps=3000):
    """Press keys like a player: 1-4 on our turn, Enter on notices. Returns the finished game."""
    game = None
    for _ in range(max_steps):
        screen = app.screen
        if isinstance(screen, GameScreen):
            game = screen.table.game
        if isinstance(screen, GameOverScreen):
            return game
        if isinstance(screen, (RoundEndScreen, PassScreen, OutScreen)):
            await pilot.press("enter")
        elif isinstance(screen, GameScreen) and screen._human_may_play():
            cards = list(screen.query(CardWidget))
            playable = [c.index for c in cards if c.reason is None]
            assert playable, "a human to move always has a playable card"
            await pilot.press(str(playable[0]))
        else:
            await settle(pilot)
    raise AssertionError("the game did not end")


async def test_human_against_bots_plays_a_whole_game_by_keys(short_rules):
    app = Ono99App(rules_spec=short_rules, bot_delay=0, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, GameScreen)
        game = await play_to_the_end(pilot, app)
        assert game.over and game.winner is not None
        assert sum(game.out) == 3
        human_plays = [c for s, c in game.plays if s == 0]
        assert human_plays, "the human played"


def _shown(table) -> tuple[list[str], str]:
    """The cards the table screen shows in its hand (sorted) and the hand box's title."""
    cards = sorted(c.card for c in table.query(CardWidget) if c.card is not None and c.display)
    return cards, str(table.query_one("#hand-box").border_title)


async def test_hot_seat_hides_the_hand_between_humans(short_rules):
    """Two humans at one keyboard: while "Pass to NAME" waits nothing of anyone's hand is on the
    table; once NAME answers, NAME's own cards show (the game's hand for that seat) under
    "NAME's hand"; and the play that ends NAME's turn takes them off in the same step."""
    app = Ono99App(rules_spec=short_rules, bot_delay=0, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")  # New game: two humans, no bots
        await pilot.press("ctrl+d", "ctrl+d")
        rows = list(app.screen.query(SeatRow))
        rows[1].query_one(Select).value = "human"
        await pilot.pause()
        await pilot.press("ctrl+s")
        table = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        game = table.table.game
        passes = checked = ended = 0
        called = set()
        for _ in range(400):
            if isinstance(app.screen, PassScreen):
                passes += 1
                assert _shown(table) == ([], "Hands hidden")
                seat = game.current
                name = game.names[seat]
                assert app.screen.title_text == f"Pass to {name}"
                button = str(app.screen.query_one("#btn-ok", Button).label)
                assert button == ("I am ready" if name == "You" else f"I am {name}")  # never "I am You"
                called.add(name)
                assert table._turn_hint == f"Waiting for {'you' if name == 'You' else name}..."
                await pilot.press("enter")
                await settle(pilot)
                assert table.viewer == seat
                assert _shown(table) == (sorted(game.hands[seat]), f"{possessive(name)} hand")  # ("Your": You)
                checked += 1
            elif isinstance(app.screen, GameOverScreen):
                break
            elif isinstance(app.screen, RoundEndScreen):
                assert _shown(table)[0] == []
                await pilot.press("enter")
            else:
                seat = table.viewer
                assert seat == game.current and _shown(table)[0] == sorted(game.hands[seat])
                playable = [c.index for c in table.query(CardWidget) if c.reason is None and c.card]
                await pilot.press(str(playable[0]))  # (waits for the key's handling, not a frame)
                if game.over or game.current != seat:
                    ended += 1
                    assert table.viewer is None and _shown(table)[0] == [], "the hand outlived its turn"
        assert passes >= 2 and checked == passes and ended >= 2
        assert "You" in called  # the default name was called to the keyboard, so its button was read
        assert isinstance(app.screen, GameOverScreen)


async def test_an_unplayable_card_says_why_and_nothing_happens(short_rules):
    app = Ono99App(rules_spec=short_rules, bot_delay=0, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        await until_my_turn(pilot, screen)
        # Force a hand with a 99 so one card is unplayable.
        g = screen.table.game
        hand = g.hands[0]
        if "99" not in hand:
            spare = next(i for i, c in enumerate(g.draw) if c == "99") if "99" in g.draw else None
            if spare is None:
                pytest.skip("no 99 left to put in the hand")
            g.draw[spare], hand[0] = hand[0], "99"
            g._settle()
        screen.refresh_all()
        await pilot.pause()
        card = next(c for c in screen.query(CardWidget) if c.card == "99")
        before = len(g.plays)
        await pilot.press(str(card.index))
        assert len(g.plays) == before
        assert "cannot be played" in str(screen.query_one("#hint").render())


@pytest.mark.parametrize("size, small", [((80, 24), False), ((200, 60), False), ((60, 20), True)])
async def test_table_fits_80x24_and_200x60_and_says_when_too_small(size, small):
    app = Ono99App(bot_delay=5, seed=3)
    async with app.run_test(size=size) as pilot:
        await pilot.press("g")
        await pilot.pause()
        screen = app.screen
        assert screen.has_class("too-small") == small
        assert screen.query_one("#too-small").display == small
        assert screen.query_one("#main").display != small


def screen_text(app) -> str:
    """What the terminal shows: every cell of the composed screen, as plain text."""
    import io

    from rich.console import Console

    console = Console(width=app.size.width, height=app.size.height, record=True, file=io.StringIO())
    console.print(app.screen._compositor.render_update(full=True), end="")
    return console.export_text()


@pytest.mark.parametrize("ascii_only", [True, False])
async def test_ascii_mode_puts_no_non_ascii_character_on_screen(short_rules, ascii_only):
    app = Ono99App(ascii=ascii_only, rules_spec=short_rules, bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = []
        for keys in ([], ["g"], ["question_mark"]):
            await pilot.press(*keys)
            await pilot.pause()
            seen.append(screen_text(app))
        await pilot.press("escape", "escape")  # close help, leave the table (saved)
        await pilot.press("ctrl+p")  # the command palette too
        await palette_ready(pilot)
        seen.append(screen_text(app))
        await pilot.press("escape")
        await pilot.pause()
        for choice in ("new", "rules", "settings", "load", "stats"):
            app.menu_choice(choice)
            await pilot.pause()
            seen.append(screen_text(app))
            await pilot.press("escape")
            await pilot.pause()
        assert all("O'NO 99" in text for text in seen)
        # the check can fail: the default (Unicode) screens do use box drawing
        bad = [(i, sorted({ch for ch in text if not ch.isascii()})) for i, text in enumerate(seen) if not text.isascii()]
        assert (not bad) == ascii_only, bad


@pytest.mark.parametrize("ascii_only", [True, False])
async def test_ascii_toasts_have_an_ascii_edge(ascii_only):
    """A play-tester on TERM=linux: each toast's coloured left edge was a half block (U+258C)."""
    app = Ono99App(ascii=ascii_only, bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for severity in ("information", "warning", "error"):
            app.notify(f"a toast ({severity})", severity=severity)
        for _ in range(50):  # the toasts are mounted a few refreshes after notify
            await pilot.pause()
            text = screen_text(app)
            if "a toast (error)" in text:
                break
        assert all(f"a toast ({s})" in text for s in ("information", "warning", "error")), text
        # the check can fail: with Unicode the edge is the half block
        assert text.isascii() == ascii_only, sorted({ch for ch in text if not ch.isascii()})


def test_round_end_notice_speaks_to_you_in_the_second_person():
    """R5.1/R8.2 notices: "You lose round 1", not "You loses"; other seats keep the third person."""
    from ono99_tui.tui.screens.modals import round_end_text

    names = ["You", "Bo"]
    title, mine = round_end_text(names, [
        {"type": "round_lost", "seat": 0, "total": 102, "reason": "bust", "round": 1},
        {"type": "tokens", "seat": 0, "tokens": 0}, {"type": "eliminated", "seat": 0}])
    assert mine.splitlines() == ["You went to 102 and lose round 1.", "",
                                 "You give up the last token.",  # no extra life: out at once
                                 "You are out of the game."]
    _, theirs = round_end_text(names, [
        {"type": "round_lost", "seat": 1, "total": 99, "reason": "no-legal-card", "round": 2},
        {"type": "tokens", "seat": 1, "tokens": 2}])
    assert theirs.splitlines()[0] == "Bo had no card that could be played and loses round 2."
    assert theirs.splitlines()[2] == "Bo gives up a token: 2 left."
    # every seat sees this notice: its title does not tell the winners they lost
    assert title == "Round 1 over"


ONLY_99S = ("hand_size = 4\n[dealer]\nfirst = \"random\"\n[deck]\nnumber_each = 0\nten = 1\nminus_ten = 0\n"
            "hold = 0\nreverse = 0\ndouble_play = 0\nninety_nine = 40\n")


async def test_rounds_that_end_at_their_deals_get_one_notice_each(tmp_path):
    # R5.2: in a deck of 99s most hands can't play and rounds end at the deal, several in one
    # change at the table, and before anyone plays; the first notice listed every round's losses
    # under "Round 2 over", rounds ended as the game was dealt got none, and the scores behind
    # each notice were those after the last round
    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.engine.rules import load_rules_text
    from ono99_tui.tui.setup import TableSetup
    from ono99_tui.tui.widgets.panes import ScorePane

    rules = load_rules_text(ONLY_99S)
    seats = [SeatSpec("Ana")] + [SeatSpec(n, "bot:easy") for n in ("Bo", "Cy", "Di")]
    app = Ono99App(bot_delay=0)
    notices = []

    async def told() -> None:  # every notice up now, with the tokens the score pane shows behind it
        await settle(pilot)
        while isinstance(app.screen, RoundEndScreen):
            tokens = next(s for s in app.screen_stack if isinstance(s, GameScreen)).query_one(ScorePane)._view.tokens
            notices.append((app.screen.title_text, app.screen.body, tokens))
            await pilot.press("enter")
            await settle(pilot)

    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(TableSetup(seats, rules, "only 99s", seed=0, first_dealer=1))
        await told()  # rounds 1-10 ended as the game was dealt
        table = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        assert table._human_may_play()  # round 11: Ana holds a Ten at last
        await pilot.press("1")  # Ana's Ten; the bots and the deals that follow end more rounds
        await told()
        log = table.table.game.round_log
    assert len(log) >= 12 and [title for title, _, _ in notices] == [f"Round {e['round']} over" for e in log]
    left = [3, 3, 3, 3]
    for (_, body, tokens), lost in zip(notices, log):
        assert body.count("loses round") == 1 and f"round {lost['round']}." in body
        loser = ("Ana", "Bo", "Cy", "Di")[lost["loser"]]
        told_lines = [line for line in body.split("\n")[1:] if line]
        assert told_lines and all(line.startswith(f"{loser} ") for line in told_lines), body  # its loss only
        left[lost["loser"]] = max(0, left[lost["loser"]] - 1)
        assert list(tokens) == left, (body, tokens)  # the scores that round left, behind its notice


# -- a hand left and opened again keeps its slots (engine/hand_order.py) -----------------------

def _hand(screen) -> list[tuple[str | None, bool]]:
    """The hand as shown, slot by slot: (card, marked new)."""
    return [(c.card, c.has_class("new")) for c in screen.query(CardWidget)]


async def _play_slots(pilot, screen, keys) -> None:
    for key in keys:
        await until_my_turn(pilot, screen)
        await pilot.press(key)
        await settle(pilot)
    await until_my_turn(pilot, screen)


async def _pressed_plays(pilot, screen, key: str) -> tuple[str, str]:
    """Press ``key`` at the table: (the card its slot showed, the card the table recorded)."""
    shown = screen.query(CardWidget)[int(key) - 1].card
    game = screen.table.game
    plays = len(game.plays)
    await pilot.press(key)
    await settle(pilot)
    return shown, game.plays[plays][1]


async def test_a_hand_left_with_escape_and_continued_comes_back_in_its_slots():
    """The play-tester's game: seed 42, You and three medium bots; 2, 3, 1, 4, one a turn, then Esc
    and c. The hand was Double Play, 10, Reverse, Hold (the Hold drawn last, marked new) and came back
    10, Hold, Reverse, Double Play, so 1 played the 10. Now it comes back as it was left."""
    app = Ono99App(bot_delay=0, seed=42)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "enter")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await _play_slots(pilot, screen, "2314")
        left = _hand(screen)
        assert left == [("double", False), ("10", False), ("reverse", False), ("hold", True)]
        assert screen.table.game.hands[0] != [c for c, _ in left]  # (not the engine's own order)
        again = await _left_and_continued(pilot, screen)
        assert _hand(again) == left
        shown, played = await _pressed_plays(pilot, again, "1")
        assert shown == played == "double"


async def test_a_saved_hand_opened_by_another_ono99_comes_back_in_its_slots():
    """ono99 resume (or a crash, then resume): a new app remembers nothing of the table and opens the
    save, whose plays it replays; the slots come from the seat's own events alone."""
    app = Ono99App(bot_delay=0, seed=42)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "enter")
        screen = app.screen
        await _play_slots(pilot, screen, "2314")
        left = _hand(screen)
        name = screen.table.save.name
        await pilot.press("escape")
        await settle(pilot)
    resumed = Ono99App(bot_delay=0, resume_name=name)
    async with resumed.run_test(size=(80, 24)) as pilot:
        await until_resumed(pilot)
        screen = resumed.screen
        assert isinstance(screen, GameScreen) and screen.save_name == name
        await until_my_turn(pilot, screen)
        assert _hand(screen) == left
        shown, played = await _pressed_plays(pilot, screen, "1")
        assert shown == played == "double"


async def test_of_two_alike_cards_the_slot_pressed_is_kept_when_the_table_is_left_and_continued():
    """You hold 7 7 10 Hold and press the first 7: the 9 drawn goes into slot 1. Which 7 was
    pressed is in no event; the app remembers it, so Esc and c show 9 7 10 Hold, not 7 9 10 Hold."""
    from tests.test_tui_setup import stacked_setup

    setup = stacked_setup([["7", "10", "7", "hold"], ["2", "3", "4", "5"]], ["9", "6", "8", "4"])
    app = Ono99App(bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup)
        screen = app.screen
        await _play_slots(pilot, screen, "1")
        left = _hand(screen)
        assert left[:2] == [("9", True), ("7", False)]
        again = await _left_and_continued(pilot, screen)
        assert _hand(again) == left


async def _left_and_continued(pilot, screen) -> GameScreen:
    """Esc to the menu, then c: the new table screen, at this seat's turn."""
    await pilot.press("escape")
    await settle(pilot)
    assert not isinstance(pilot.app.screen, GameScreen)
    await pilot.press("c")
    await settle(pilot)
    again = pilot.app.screen
    assert isinstance(again, GameScreen) and again is not screen
    await until_my_turn(pilot, again)
    return again


async def _seated(pilot) -> None:
    await settle(pilot)
    assert isinstance(pilot.app.screen, PassScreen)
    await pilot.press("enter")
    await settle(pilot)


async def test_hot_seat_hands_keep_their_slots_when_the_game_is_continued():
    """Two people at one keyboard, each hand hidden between turns: You play slot 1 (a 7) and draw a
    10, Ann plays slot 1 (a 2) and draws a 6. Left with Esc and continued, each is handed back
    the slots they left (10 7 10 Reverse; 6 3 5 9), not a sorted hand."""
    from ono99_tui.engine.record import SeatSpec
    from tests.test_tui_setup import stacked_setup

    setup = stacked_setup([["7", "7", "10", "reverse"], ["2", "3", "9", "5"]], ["10", "6", "3", "8"])
    setup.seats, setup.first_dealer = [SeatSpec("You"), SeatSpec("Ann")], "Ann"
    app = Ono99App(bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup)
        screen = app.screen_stack[-1]
        for seat in (0, 1):
            await _seated(pilot)
            assert screen.viewer == seat
            await pilot.press("1")
        await _seated(pilot)
        # yours on screen; Ann's hidden, as her next turn shows it (the pane's rule, seen live in
        # test_playtest_80x24's test_hot_seat_hands_keep_their_slots_between_turns)
        left = {0: _hand(screen), 1: [("6", True), ("3", False), ("5", False), ("9", False)]}
        assert left[0] == [("10", True), ("7", False), ("10", False), ("reverse", False)]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        again = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        assert again is not screen
        await _seated(pilot)
        assert again.viewer == 0 and _hand(again) == left[0]
        await pilot.press("2")  # (the 7: the total goes to 16)
        await _seated(pilot)
        assert again.viewer == 1 and _hand(again) == left[1]
