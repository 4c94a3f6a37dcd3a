"""Names that look alike are one name or told apart (issue 20): NFC forms, names cut on the
scoreboard, wide names measured by display width."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.engine.game import GameSetupError, check_names
from ono99_tui.text import display_width, fit, short_names

LONG = [("Player from the northern" + str(i))[:23] + str(i) for i in range(8)]  # 24 characters each


def test_display_width_counts_wide_and_combining_characters():
    assert display_width("Ann") == 3
    assert display_width("王小明") == 6
    assert display_width(unicodedata.normalize("NFD", "Zoë")) == 3
    assert display_width(fit("王小明王小明", 7)) == 7


def test_names_cut_to_fit_are_still_told_apart():
    shown = short_names(LONG, 9)
    assert len(set(shown)) == 8 and all(display_width(s) <= 9 for s in shown)
    assert short_names(["Ann", "Bo"], 9) == ["Ann", "Bo"]
    wide = short_names(["王小明王小明王小明王小明", "王小明王小明王小明王小明王", "Ann"], 9)
    assert len(set(wide)) == 3 and all(display_width(s) <= 9 for s in wide)


def test_one_name_in_two_unicode_forms_cannot_sit_twice():
    with pytest.raises(GameSetupError, match="look the same"):
        check_names([unicodedata.normalize("NFC", "Zoë"), unicodedata.normalize("NFD", "Zoë")])


async def test_eight_long_names_differing_at_the_end_differ_on_the_scoreboard():
    from ono99_tui.tui.app import Ono99App
    from tests.test_table_screen import setup, until_my_turn

    app = Ono99App(bot_delay=0, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(setup([(LONG[0], "human")] + [(n, "bot:easy") for n in LONG[1:]], "hand_size = 3\n"))
        screen = app.screen_stack[-1]
        await until_my_turn(pilot, screen)
        rows = str(screen.query_one("#scores").render()).splitlines()
        assert len(rows) == 8
        assert len(set(rows)) == 8, rows  # the bots' rows differ by name alone
        assert all(display_width(row) <= 80 for row in rows)


def test_the_points_table_aligns_wide_names_and_tells_cut_names_apart():
    from ono99_tui.tui.screens.modals import points_table

    names = ["王小明王小明王小明", "Ann", LONG[0], LONG[1]]
    rows = [{"seat": i, "cards": [("7", 7)], "missing": 0, "loser_penalty": 0, "gained": 7, "score": 10}
            for i in range(4)]
    lines = points_table(names, rows)
    assert len({display_width(line) for line in lines}) == 1, lines  # every column lines up
    assert len({line[:12] for line in lines[1:]}) == 4, lines


def test_the_game_over_standings_line_up_whatever_the_names_length():
    """A play-tester with a 24-letter name saw "Game over" as "4. Wolfeschlegelsteinhausen out"
    beside "1. Cy           winner": the column was padded to 13 and a longer name pushed it."""
    from ono99_tui.tui.screens.modals import GameOverScreen

    names = ["Cy", "王小明王小明王小明", LONG[0], "Bo"]
    body = GameOverScreen(names, [0, 1, 2, 3], ["winner", "out", "out", "out"]).body
    lines = body.splitlines()
    at = {display_width(line[:line.index(word)]) for line, word in zip(lines, ["winner", "out", "out", "out"])}
    assert len(at) == 1, lines  # the second column starts at one place
    assert all(line.split(". ", 1)[1].startswith(names[i]) for i, line in enumerate(lines))  # never cut


def test_a_network_table_refuses_a_name_that_looks_like_one_already_seated():
    """At a network table "Zoë" in two Unicode forms sat down twice, and the table could then
    not start (the game refuses them): the second is refused where it sits, as the same name is."""
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.net.tables import HostedTable, LobbyError, Seat

    table = HostedTable(1, "t", DEFAULT, "standard", [Seat() for _ in range(3)])
    table.sit(unicodedata.normalize("NFC", "Zoë"), None)
    with pytest.raises(LobbyError, match="looks the same") as refused:
        table.sit(unicodedata.normalize("NFD", "Zoë"), None)
    assert refused.value.code == "name_taken"
    table.sit("Bo", None)
    table.fill_bots("easy", None)
    assert table.start(1).names[:2] == (unicodedata.normalize("NFC", "Zoë"), "Bo")


def test_a_network_table_refuses_a_name_that_differs_only_in_case_or_width():
    # a play-tester sat "ann" and then a full-width "Ａnn" beside "Ann": to everyone reading the
    # scoreboard and the log, one person three times
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.net.tables import HostedTable, LobbyError, Seat

    table = HostedTable(1, "t", DEFAULT, "standard", [Seat() for _ in range(4)])
    table.sit("Ann", None)
    for other in ("ann", "ANN", "\uff21nn"):
        with pytest.raises(LobbyError, match=f"someone called {other!r} already sits at this table \\(a name"):
            table.sit(other, None)
    table.sit("Anna", None)  # a different name is a different player
    table.sit("\u00c1nn", None)  # and so is a different letter


def test_a_network_table_refuses_a_name_written_with_look_alike_letters():
    # a play-tester sat "Аnn" with a Cyrillic "А" (and "Αnn" with a Greek Alpha) beside Ann:
    # drawn the same on every screen
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.net.tables import HostedTable, LobbyError, Seat

    table = HostedTable(1, "t", DEFAULT, "standard", [Seat() for _ in range(3)])
    table.sit("Ann", None)
    table.sit("Bob", None)
    for other in ("Аnn", "Αnn", "аnn", "Вob", "Bоb", "Βοв"):
        with pytest.raises(LobbyError, match="already sits at this table"):
            table.sit(other, None)
    table.sit("Иван", None)  # a name in Cyrillic letters is a name: Иван is not Ivan


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab Zoë") + ["\U0001f642", "\u7532", "\u4e59"]), max_size=30),
                max_size=8), st.integers(4, 40))
def test_a_wrapped_line_never_passes_its_width_and_loses_no_word(words, width):
    """The table's log wraps by display width (a play-tester saw "乙丙" vanish past the pane's edge
    and "Medium 2" lose a letter): no line wider than the log, every word kept in order."""
    from ono99_tui.text import display_width, wrap

    text = " ".join(words)
    lines = wrap(text, width, "  ")
    assert all(display_width(line) <= width for line in lines), lines
    # the words come back in order, only cut where one is wider than a line
    assert "".join("".join(line.split(" ")) for line in lines) == "".join(text.split(" "))


def test_starting_with_empty_seats_names_them_as_the_lobby_numbers_them():
    # Ann, Bob and Cat in seats 1-3 of the lobby, seat 4 empty: "Seat 3 is empty" (counted from 0)
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.net.tables import HostedTable, LobbyError, Seat

    table = HostedTable(1, "t", DEFAULT, "standard", [Seat() for _ in range(4)])
    for name in ("Ann", "Bob", "Cat"):
        table.sit(name, None)
    with pytest.raises(LobbyError, match=r"^seat 4 is empty: someone must sit there"):
        table.start(1)
    table = HostedTable(2, "t", DEFAULT, "standard", [Seat() for _ in range(4)])
    table.sit("Ann", None)
    with pytest.raises(LobbyError, match=r"^seats 2, 3, 4 are empty"):
        table.start(1)


@pytest.mark.parametrize("name", ["\u0301\u0301\u0301", "\u115f", "\u3164\u3164", "\u0301Ann", "\u2800"])
def test_a_name_that_shows_nothing_is_refused_everywhere_a_name_is_given(name):
    """A play-tester sat at a network table as accents alone (and as a Hangul filler): a seat
    with a blank name on every screen and in every log line."""
    from ono99_tui.net.client import ServerError

    from .netplay import connect, run, serving

    with pytest.raises(GameSetupError, match="shows nothing on screen"):
        check_names([name, "Bo"])

    async def main():
        async with serving() as server:
            with pytest.raises(ServerError, match="that show") as refused:
                await connect(server, name)
            assert refused.value.code == "bad_name"
    run(main())
    assert check_names(["Zoë", "A\u0301na", "李", "🎲"]) == ["Zoë", "A\u0301na", "李", "🎲"]  # (accents on letters are fine)


def test_a_name_new_game_and_settings_take_is_taken_by_join_watch_the_server_and_the_web():
    """A play-tester's find: Settings and New game took 24-character names, `ono99 join --name`,
    `watch --name` and web names at most 23 ("--name must be 1 to 23 printable characters"). One
    limit (MAX_NAME) everywhere, and the messages say it."""
    from ono99_tui.engine.game import MAX_NAME, normalise_name
    from ono99_tui.net.client import ServerError
    from ono99_tui.net.web import check_name as web_name
    from ono99_tui.store.settings import _check

    from .cli import ono99
    from .netplay import connect, run, serving

    longest, too_long = LONG[0], LONG[0] + "x"
    assert len(longest) == MAX_NAME == 24
    assert normalise_name(longest) == _check("player_name", longest) == web_name(longest) == longest
    assert web_name(too_long) is None
    for command in (["join"], ["join", "--plain"], ["watch"]):
        taken = ono99(*command, "127.0.0.1:1", "--name", longest)
        assert taken.returncode == 2 and "cannot connect to 127.0.0.1:1" in taken.stderr, taken.stderr
        refused = ono99(*command, "127.0.0.1:1", "--name", too_long)
        assert refused.returncode == 2 and refused.stderr == (
            f"ono99: --name must be 1 to 24 printable characters that show (not only accents), not {too_long!r}\n")

    async def main():
        async with serving() as server:
            client = await connect(server, longest)
            assert client.welcome["name"] == longest
            await client.aclose()
            with pytest.raises(ServerError, match="1 to 24 printable characters") as refused:
                await connect(server, too_long)
            assert refused.value.code == "bad_name"
    run(main())


def test_names_differing_only_in_the_middle_are_told_apart_when_cut():
    """A play-tester sat "Player number 1 of table" and "Player number 2 of table": the
    scoreboard at 80x24 showed both as "P~f table" (a start and an end that could not reach
    the one character that differs)."""
    for names in (["Player number 1 of table", "Player number 2 of table"],
                  ["Christopher X Montgomery", "Christopher Y Montgomery", "Ann"],
                  ["Ann the great one plays", "Ann the small one plays", "Ann the great one wins"]):
        for width in (8, 9, 10, 12, 16):
            shown = short_names(names, width)
            assert len(set(shown)) == len(names), (width, shown)
            assert all(display_width(s) <= width for s in shown), (width, shown)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.sampled_from("ab王 1"), min_size=1, max_size=24), min_size=2, max_size=8, unique=True),
       st.integers(min_value=8, max_value=24))
def test_distinct_names_stay_distinct_in_any_width(names, width):
    shown = short_names(names, width)
    assert len(set(shown)) == len(names), shown
    assert all(display_width(s) <= width for s in shown), shown


async def test_the_watchers_under_the_scoreboard_are_set_off_with_the_dash_the_table_pane_uses():
    """The scoreboard's subtitle read "(D) deals - watching: Wes" beside the table pane's
    "draw 35 — played 3": an ASCII hyphen in Unicode mode (and an em dash with --ascii would be
    as wrong). It takes the glyph set's dash, as the table pane's does."""
    from textual.app import App

    from ono99_tui.engine import Game
    from ono99_tui.tui.glyphs import ASCII, UNICODE
    from ono99_tui.tui.widgets.panes import ScorePane

    game = Game(["Ann", "Bo"], seed=1)
    for glyphs, dash in ((UNICODE, "—"), (ASCII, "-")):
        class One(App):
            def compose(self):
                yield ScorePane(glyphs, ["human", "bot:easy"], id="scores")

        app = One()
        async with app.run_test(size=(80, 24)) as pilot:
            pane = app.query_one(ScorePane)
            pane.watching = ("Wes",)
            pane.show(game.view(0))
            await pilot.pause()
            assert str(pane.border_subtitle).endswith(f"deals {dash} watching: Wes"), pane.border_subtitle
