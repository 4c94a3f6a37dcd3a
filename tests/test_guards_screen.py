"""The table screen's bust guard, pinned key by key (issue 25; R5.1, R5.4).

A card that takes the total to 99 or more (the target) loses the round: with a safe card in
hand, the first press warns and only a second press of the same card plays it. Planted bugs
that once survived: the warning asked even with no safe card, exactly 99 not warned about, and
the warned-about ("armed") card never forgotten, so a later press of that key played at once.
Each press here is its own pilot.press and the play (or the warning) is read right after it.
"""

import pytest

from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.widgets.card import CardWidget
from tests.test_table_screen import setup
from tests.waits import settle, until_my_turn


async def at_total(pilot, screen, total: int, hand: list[str]) -> dict[str, CardWidget]:
    """The human's turn with this total and this hand, drawn; {card: its widget} (first of each)."""
    g = screen.table.game
    g.total = total
    g.hands[0][:] = hand
    g._settle()
    screen.refresh_all()
    await pilot.pause()
    cards: dict[str, CardWidget] = {}
    for w in screen.query(CardWidget):
        if w.card is not None:
            cards.setdefault(w.card, w)
    assert sorted(w.card for w in screen.query(CardWidget) if w.card) == sorted(hand)
    return cards


def hint(screen) -> str:
    return str(screen.query_one("#hint").render())


async def started(pilot, app):
    app.start_game(setup([("You", "human"), ("Bo", "bot:easy")]))
    screen = app.screen_stack[-1]
    await until_my_turn(pilot, screen)
    bells = []
    app.bell = lambda: bells.append(True)
    return screen, bells


async def test_with_no_safe_card_a_busting_card_plays_at_the_first_press_without_a_warning():
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bells = await started(pilot, app)
        g = screen.table.game
        cards = await at_total(pilot, screen, 95, ["10", "10", "10", "10"])
        assert all(w.busts for w in screen.query(CardWidget) if w.card)
        before = len(g.plays)
        await pilot.press(str(cards["10"].index))  # once
        assert "again" not in hint(screen) and not bells, "a warning with nothing safe to play instead"
        await settle(pilot)
        assert g.plays[before] == (0, "10")


async def test_exactly_the_target_is_a_bust_one_below_is_not():
    """R5.1: the play that brings the total to 99 *or more* loses. 89 + 10 = 99 warns; 88 + 10 =
    98 is a safe play and goes at the first press."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bells = await started(pilot, app)
        g = screen.table.game
        cards = await at_total(pilot, screen, 89, ["10", "5", "-10", "hold"])
        assert cards["10"].busts and not cards["5"].busts
        before = len(g.plays)
        await pilot.press(str(cards["10"].index))
        assert len(g.plays) == before and "takes the total to 99" in hint(screen) and bells
        # the key to press again is the card's own number, said as a number
        assert (f"10 takes the total to 99, a bust. Press {cards['10'].index} or Enter again to play it "
                "anyway.") in hint(screen)

        bells.clear()
        cards = await at_total(pilot, screen, 88, ["10", "5", "-10", "hold"])
        assert not cards["10"].busts
        await pilot.press(str(cards["10"].index))
        assert not bells and "again" not in hint(screen)
        await settle(pilot)
        assert g.plays[before] == (0, "10")


async def test_a_warning_is_forgotten_once_the_hand_is_drawn_again():
    """Warned about the 8 (first press), you play a safe card instead. At your next turn the
    card under that key busts again: its first press warns again, it does not play."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bells = await started(pilot, app)
        g = screen.table.game
        cards = await at_total(pilot, screen, 94, ["8", "-10", "8", "8"])
        armed = cards["8"].index
        await pilot.press(str(armed))
        assert "again" in hint(screen) and len(bells) == 1
        before = len(g.plays)
        await pilot.press(str(cards["-10"].index))
        await settle(pilot)
        assert g.plays[before] == (0, "-10")

        await until_my_turn(pilot, screen)
        bells.clear()
        await at_total(pilot, screen, 94, ["8", "8", "8", "hold"])
        under_key = next(w for w in screen.query(CardWidget) if w.index == armed)
        assert under_key.card == "8" and under_key.busts  # the same key, a busting card again
        mine = len(g.plays)
        await pilot.press(str(armed))
        assert len(g.plays) == mine, "the old warning was still armed: the bust played at the first press"
        assert "again" in hint(screen) and len(bells) == 1


async def test_with_no_safe_card_the_focus_goes_to_a_card_that_can_be_played():
    """Every playable card busts and a 99 cannot be played (R7.1): the focus leaves the 99 for a
    card that can be played, never stays on one that cannot."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, _ = await started(pilot, app)
        cards = await at_total(pilot, screen, 95, ["99", "10", "10", "10"])
        slots = [w.card for w in screen.query(CardWidget)]
        assert slots[0] == "99", slots  # first in the hand: where a careless pick would land
        cards["99"].focus()
        await pilot.pause()
        assert app.focused is cards["99"]
        screen.refresh_all()  # (what a bot's play or a draw does)
        await pilot.pause()
        assert app.focused is not cards["99"] and app.focused.card == "10" and app.focused.reason is None


async def test_pressing_a_card_that_cannot_be_played_says_why_and_plays_nothing():
    """The focus is elsewhere (on a card that can be played): the key of the 99 rings the bell and
    puts its reason (R7.1) in the hint; nothing is played."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, bells = await started(pilot, app)
        g = screen.table.game
        cards = await at_total(pilot, screen, 10, ["5", "99", "6", "7"])
        assert app.focused is not cards["99"] and "cannot" not in hint(screen)
        before = len(g.plays)
        await pilot.press(str(cards["99"].index))
        assert hint(screen) == f"99: {cards['99'].reason}" and "cannot be played" in hint(screen)
        assert bells and len(g.plays) == before


@pytest.mark.parametrize("key", ["enter", "escape"])
async def test_a_notice_answered_by_two_keys_at_once_answers_once_and_the_app_goes_on(key):
    """A play-tester's two Enters on "Round lost" (bunched over SSH, or a double press) stopped
    the app: the second dismissed a notice that was already leaving ("Can't pop screen")."""
    from textual import events

    from ono99_tui.tui.screens.notice import _Notice

    app = Ono99App(bot_delay=0, seed=3)
    answers = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        below = app.screen
        notice = _Notice("Round 1 over", "Ann loses a token.", (("ok", "Continue"), ("menu", "Menu")))
        app.push_screen(notice, answers.append)
        while not notice.query("Button"):
            await pilot.pause()
        await pilot.pause()
        char = "\r" if key == "enter" else "\x1b"
        for _ in range(3):  # in one read: every key queued before the first is handled
            app.post_message(events.Key(key, char))
        for _ in range(5):
            await pilot.pause()
        assert answers == ["ok"] and app.screen is below and app.is_running


async def test_the_tenth_card_is_warned_about_under_its_key_0():
    """hand_size 10 (R3.1 allows up to 10): the tenth card's key is 0, and its bust warning says
    "Press 0", the key that plays it, not "10"."""
    app = Ono99App(bot_delay=0, seed=3)
    async with app.run_test(size=(100, 30)) as pilot:
        app.start_game(setup([("You", "human"), ("Bo", "bot:easy")], rules="hand_size = 10"))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        bells = []
        app.bell = lambda: bells.append(True)
        hand = ["hold"] + ["10"] * 9  # every card busts at 90 but the Hold: a safe card exists
        await at_total(pilot, screen, 90, hand)
        tenth = next(w for w in screen.query(CardWidget) if w.index == 10)
        assert tenth.card is not None and tenth.busts, (tenth.card, [w.card for w in screen.query(CardWidget)])
        before = len(screen.table.game.plays)
        await pilot.press("0")
        assert len(screen.table.game.plays) == before and bells
        assert "10 takes the total to 100, a bust. Press 0 or Enter again to play it anyway." in hint(screen)
