"""Every card of a hand of any size the rules allow (hand_size 1-10, R3.1) is whole on screen at
80x24 and at 120 columns, keeps its number key, and the arrows reach every one (issue 19 point 4)."""

import pytest

from ono99_tui.engine.rules import load_rules_text
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.widgets.card import CardWidget
from ono99_tui.tui.widgets.hand import HandPane
from tests.stacked import game_with
from tests.test_keys_in_order import open_table, plays_of, table, together
from tests.waits import settle

KINDS = ["99", "reverse", "double", "hold", "-10", "10", "9", "8", "7", "6"]


def big_hand(size: int):
    rules = load_rules_text(f"hand_size = {size}\n")
    return game_with([KINDS[:size], (["2", "3", "4", "5"] * 3)[:size]], names=["You", "Bo"], rules=rules), rules


@pytest.mark.parametrize("width, height", [(80, 24), (120, 24), (120, 40)])
@pytest.mark.parametrize("size", [5, 6, 8, 10])
async def test_every_card_is_whole_on_screen(size, width, height):
    game, rules = big_hand(size)
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(width, height)) as pilot:
        screen = table(game, rules=rules)
        await open_table(pilot, screen)
        box = screen.query_one("#hand-box").content_region
        cards = [c for c in screen.query(CardWidget) if c.card]
        assert len(cards) == size
        regions = [c.region for c in cards]
        for card, region in zip(cards, regions):
            assert box.contains_region(region), (card.index, region, box)
            lines = str(card.render()).splitlines()
            assert lines and all(len(line) <= region.width - 2 for line in lines), (card.index, lines)
        for i, a in enumerate(regions):  # none drawn over another
            assert not any(a.overlaps(b) for b in regions[i + 1:])
        assert "(x)" in str(next(c for c in cards if c.card == "99").render())


async def test_the_arrows_reach_the_tenth_card_and_zero_plays_it():
    game, rules = big_hand(10)
    app = Ono99App(bot_delay=600, seed=7)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = table(game, rules=rules)
        await open_table(pilot, screen)
        hand = screen.query_one(HandPane)
        tenth = hand.cards[9]
        together(pilot, *["right"] * 9)
        await settle(pilot)
        assert hand.outlined is tenth and app.focused is tenth
        assert screen.query_one("#hand-box").content_region.contains_region(tenth.region)
        together(pilot, "left", "0")  # "0" plays the tenth card wherever the outline is
        await settle(pilot)
        assert plays_of(game) == []  # the tenth is the 99: it cannot be played
        assert "99" in str(screen.query_one("#hint").render())
        assert [c.card for c in hand.cards][8:] == ["double", "99"]
        together(pilot, "left", "enter")
        await settle(pilot)
        assert plays_of(game) == ["double"]
