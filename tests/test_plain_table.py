"""The plain table on stacked decks: what each card is said to do, bust confirmation, undo, dialogs.

Run in this process through the front end's own Console (bytes in, bytes out), so a position
can be set up card by card; tests/test_plain.py runs the real command through a pipe."""

from __future__ import annotations

import io

import pytest

from ono99_tui.engine import cards as C
from ono99_tui.engine.record import SeatSpec
from ono99_tui.plain import words as W
from ono99_tui.plain.console import Console, EndOfInput, clean_input
from ono99_tui.plain.table import PlainTable
from ono99_tui.store.settings import Settings
from ono99_tui.table import TableSession, redact
from ono99_tui.tui.setup import TableSetup
from tests.stacked import game_with, set_total


def table_for(hands, total=0, bots=("easy",), rules=None, draw=()):
    kw = {"rules": rules} if rules is not None else {}
    game = game_with(hands, draw=draw, **kw)
    set_total(game, total)
    seats = [SeatSpec("Ana")] + [SeatSpec(n, f"bot:{lv}") for n, lv in zip(("Bo", "Cy", "Di"), bots)]
    setup = TableSetup(seats, game.rules, "standard", seed=0)
    return TableSession(seats, game.rules, 0, game=game), setup


def run(table, setup, lines: str, settings=None) -> tuple[list[str], str | None]:
    out = io.BytesIO()
    con = Console(io.BytesIO(lines.encode()), out)
    result = None
    try:
        result = PlainTable(con, table, setup, settings=settings or Settings()).run()
    except EndOfInput:
        pass
    return out.getvalue().decode().splitlines(), result


def hand_after(lines, header="Your turn"):
    at = next(i for i, line in enumerate(lines) if line.startswith(header))
    return [line for line in lines[at + 1:at + 6] if line[:1].isdigit()]


def test_each_card_says_what_it_would_do_and_why_not():
    table, setup = table_for([["9", "hold", "99", "10"], ["2", "3", "4", "5"]], total=29)
    lines, _ = run(table, setup, "")
    assert hand_after(lines) == ["1: Nine, total 38.", "2: Ten, total 39.", "3: Hold, total stays.",
                                 "4: Ninety-nine, can't be played (R7.1)."]


def test_a_card_may_be_named_instead_of_numbered():
    table, setup = table_for([["9", "hold", "99", "10"], ["2", "3", "4", "5"]], total=29)
    lines, _ = run(table, setup, "ninety-nine\nnine\n")
    assert "Ninety-nine can't be played: a 99 card cannot be played; it stays in your hand (R7.1)." in lines
    assert "Ana: Nine, total 38; drew Two." in lines  # her own draw is named (one person at the table)


def test_a_busting_card_asks_again_while_a_safe_card_exists():
    table, setup = table_for([["2", "3", "10", "hold"], ["2", "3", "4", "5"]], total=90)
    lines, _ = run(table, setup, "3\n1\n")
    assert "3: Ten, busts at 100." in hand_after(lines)
    warn = "Ten takes the total to 100 and loses the round. Type 3 again to play it anyway, or choose another card."
    assert warn in lines
    assert "Ana: Two, total 92; drew Two." in lines  # another card played: the Ten was never played
    table, setup = table_for([["2", "3", "10", "hold"], ["2", "3", "4", "5"]], total=90)
    lines, _ = run(table, setup, "3\n3\n")
    # R5.1: the loser still draws (under points rules that card counts against them)
    assert lines.count(warn) == 1 and "Ana: Ten, total 100; drew Two." in lines
    assert "Ana goes bust at 100 and loses round 1." in lines
    # the setting off: it plays at once
    table, setup = table_for([["2", "3", "10", "hold"], ["2", "3", "4", "5"]], total=90)
    lines, _ = run(table, setup, "3\n", settings=Settings(confirm_bust=False))
    assert warn not in lines and "Ana: Ten, total 100; drew Two." in lines


def test_when_every_card_busts_the_lowest_is_the_only_one_and_asks_nothing():
    table, setup = table_for([["5", "6", "7", "8"], ["2", "3", "4", "5"]], total=95)
    lines, _ = run(table, setup, "2\n1\n")
    assert hand_after(lines) == ["1: Five, busts at 100.",
                                 "2: Six, can't be played: you must play Five (R5.3).",
                                 "3: Seven, can't be played: you must play Five (R5.3).",
                                 "4: Eight, can't be played: you must play Five (R5.3)."]
    refused = "Six can't be played: every card you can play busts, so you must play your lowest, 5 (R5.3)."
    assert refused in lines
    assert "Ana: Five, total 100; drew Two." in lines and not any("Type 1 again" in line for line in lines)


def test_a_round_lost_is_a_notice_before_the_next_deal():
    table, setup = table_for([["10", "2", "3", "4"], ["2", "3", "4", "5"]], total=95)
    lines, _ = run(table, setup, "4\n4\n")  # the Ten, confirmed
    lost = lines.index("Ana goes bust at 105 and loses round 1.")
    assert lines[lost + 1] == "Ana gives up a token, 2 left."
    assert lines[lost + 2] == "Tokens: Ana 2 tokens; Bo 3 tokens."
    assert lines[lost + 3] == "Round 1 is over. Press Enter for round 2, or type q to leave."
    assert "Round 2: Ana deals." not in lines  # the input ended at the notice: the next deal is not said


def test_undo_against_bots_takes_the_play_back():
    table, setup = table_for([["2", "3", "4", "5"], ["2", "3", "4", "5"]])
    lines, _ = run(table, setup, "4\nu\n")
    assert "Ana: Five, total 5; drew Two." in lines
    at = lines.index("Your last play is taken back: the total is 0 again. This save is marked: undo used.")
    assert table.undo_used and table.seq == 0  # back before the Five
    assert lines[at + 1:at + 7] == ["Your turn, total 0.", "1: Two, total 2.", "2: Three, total 3.",
                                    "3: Four, total 4.", "4: Five, total 5.", "Which card?"]


def test_undo_later_in_the_round_says_the_total_it_goes_back_to():
    table, setup = table_for([["2", "3", "4", "5"], ["2", "3", "4", "5"]])
    lines, _ = run(table, setup, "1\n1\nu\n")  # Two, the bot plays, Three (now first), the bot plays; undo
    back = [line for line in lines if line.startswith("Your last play is taken back")]
    total = table.view_for(0).total
    assert table.undo_used and total > 2  # back after the Two and the bot's reply
    assert back == [f"Your last play is taken back: the total is {total} again. This save is marked: undo used."]


def test_out_of_the_game_asks_and_enter_watches_to_the_end():
    # Ana holds her last token: the bust puts her out, and the two bots play on to the end
    table, setup = table_for([["10", "2", "3", "4"], ["2", "3", "4", "5"], ["2", "3", "4", "6"]], total=95,
                             bots=("easy", "easy"))
    table.game.tokens[0] = 1
    table.game.rules = table.game.rules.replace(scoring_extra_life=False)
    lines, result = run(table, setup, "4\n4\n\n" + "\n" * 400)
    assert "Ana is out of the game." in lines
    assert "Press Enter to watch, or type f to watch fast, s to skip to the end, or m for the main menu." in lines
    assert any(line.startswith("Game over after ") for line in lines)
    assert result == "menu"


def hot_seat_lines(first: str) -> list[str]:
    """Two humans, ``first`` and Bo, at one keyboard: the lines for "x", Enter, "1", then the end of input."""
    game = game_with([["2", "3", "4", "5"], ["6", "7", "8", "9"]], names=[first, "Bo"])
    seats = [SeatSpec(first), SeatSpec("Bo")]
    table = TableSession(seats, game.rules, 0, game=game)
    return run(table, TableSetup(seats, game.rules, "standard"), "x\n\n1\n")[0]


def test_hot_seat_prints_a_hand_only_after_pass_to_is_answered():
    lines = hot_seat_lines("Ana")
    first = lines.index("Pass to Ana. Ana, press Enter when you are ready, or type q to leave.")
    assert lines[first + 1] == "Press Enter alone to see Ana's hand, or type q to leave."
    assert lines[first + 3] == "Ana's turn, total 0."
    assert "1: Six, total 6." not in lines  # Bo's hand never shown: Bo was called and did not answer
    assert lines[-2].startswith("Pass to Bo.") and lines[-1].startswith("End of input.")


def test_hot_seat_calls_the_default_name_you_as_a_person():
    lines = hot_seat_lines("You")
    first = lines.index("Pass to You. Press Enter when you are ready, or type q to leave.")
    assert lines[first + 1] == "Press Enter alone to see your hand, or type q to leave."
    assert not any("You, press" in line or "You's" in line for line in lines)


@pytest.mark.parametrize("raw, text", [(b"\x1b[200~3\x1b[201~\r\n", "3"), (b" h \n", "h"),
                                       (b"\xff\xfe1\n", "\ufffd\ufffd1"), (b"\x07\x00q\x7f\n", "q")])
def test_input_lines_lose_their_escape_sequences_and_controls(raw, text):
    assert clean_input(raw) == text


def test_an_over_long_line_is_cut_and_the_rest_dropped():
    con = Console(io.BytesIO(b"x" * 5000 + b"\nq\n"), io.BytesIO())
    assert con.ask("?") == "x" * 1024
    assert con.ask("?") == "q"


def test_output_never_carries_a_control_byte():
    out = io.BytesIO()
    Console(io.BytesIO(), out).say("Ann\x1b[31m\x07 \u202e\x9b plays\tTen\r")
    raw = out.getvalue()
    assert raw.endswith(b"\n") and not any(b < 0x20 for b in raw[:-1])
    assert b"\\x1b[31m" in raw


def test_words_for_every_card_kind():
    assert [W.card(c) for c in C.ALL_CARDS] == ["Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
                                                "Ten", "Minus Ten", "Hold", "Reverse", "Double Play",
                                                "Ninety-nine"]
    names = ("You", "Bo", "Cy")
    assert W.play_sentence({"seat": 1, "card": "10", "total": 20}, names) == "Bo: Ten, total 20."
    assert W.play_sentence({"seat": 0, "card": "reverse", "total": 20}, names) == \
        "You: Reverse, total stays 20, direction flips."
    assert W.event_lines([{"type": "round_lost", "seat": 0, "reason": "bust", "total": 101, "round": 2}],
                         names, 0) == ["You go bust at 101 and lose round 2."]
    # a drawn card is named to the one who drew it, never to anyone else or to a hot seat (viewer None)
    play = {"type": "play", "seat": 1, "card": "10", "total": 20}
    own = {"type": "draw", "seat": 1, "card": "7"}
    assert W.event_lines([play, own], names, 1) == ["Bo: Ten, total 20; drew Seven."]
    for viewer in (0, 2, None):
        shown = redact.events_for([play, own], viewer)
        assert W.event_lines(shown, names, viewer) == ["Bo: Ten, total 20."]
        assert W.event_lines([play, own], names, viewer) == ["Bo: Ten, total 20."]  # even unredacted


def test_bots_wait_only_when_the_environment_asks(monkeypatch):
    from ono99_tui.plain import menu, table as plain_table

    slept = []
    monkeypatch.setattr(plain_table.time, "sleep", slept.append)
    t, setup = table_for([["2", "3", "4", "5"], ["2", "3", "4", "5"]])
    out = io.BytesIO()
    try:
        PlainTable(Console(io.BytesIO(b"1\n"), out), t, setup, bot_delay=0.25).run()
    except EndOfInput:
        pass
    assert slept == [0.25]  # Bo's one play after Ana's
    monkeypatch.delenv("ONO99_BOT_DELAY", raising=False)
    assert menu.bot_delay_from_env() == 0.0
    monkeypatch.setenv("ONO99_BOT_DELAY", "5")
    assert menu.bot_delay_from_env() == 5.0
    monkeypatch.setenv("ONO99_BOT_DELAY", "0.3")
    assert menu.bot_delay_from_env() == 0.3


ONLY_99S = """hand_size = 4
[dealer]
first = "random"
[deck]
number_each = 0
ten = 1
minus_ten = 0
hold = 0
reverse = 0
double_play = 0
ninety_nine = 40
"""


@pytest.mark.parametrize("seed", range(4))
def test_rounds_that_end_at_the_deal_are_told_one_by_one_with_the_scores_they_left(seed):
    # R5.2: with a deck of 99s most hands can't play, and several rounds end in one change at the
    # table; the first notice used to show the scores after all of them ("2 left" beside "0 tokens")
    from ono99_tui.engine.rules import load_rules_text

    rules = load_rules_text(ONLY_99S)
    seats = [SeatSpec("Ana")] + [SeatSpec(n, "bot:easy") for n in ("Bo", "Cy", "Di")]
    setup = TableSetup(seats, rules, "only 99s", seed=seed)
    table = TableSession(seats, rules, seed, first_dealer=1)
    lines, _ = run(table, setup, "\n" * 12 + "q\n")
    notices = [i for i, line in enumerate(lines) if line.startswith("Round ") and " is over." in line]
    assert len(notices) >= 2
    tokens = {n: 3 for n in ("Ana", "Bo", "Cy", "Di")}
    said = 0
    for i, line in enumerate(lines):
        if " gives up a token, " in line:
            who, left = line.split(" gives up a token, ")
            tokens[who] = int(left.split()[0])
        elif " gives up the last token" in line:
            tokens[line.split(" gives up")[0]] = 0
        elif line.startswith("Tokens: "):  # every round over: its own losses, no later ones
            shown = dict(part.rsplit(" ", 2)[:2] for part in line[len("Tokens: "):-1].split("; ")
                         if not part.endswith(" out"))
            assert {n: int(t) for n, t in shown.items()} == {n: t for n, t in tokens.items() if n in shown}, line
            assert lines[i + 1].startswith(f"Round {said + 1} is over.")
            said += 1
    assert said == len(notices)


@pytest.mark.parametrize("keys", [b"\x1b[A", b"\x1bOB", b"\x1b", b"\x0c", b"\x1b[A\x1b[D\r"])
def test_a_line_of_special_keys_only_is_not_an_enter_and_says_so(keys):
    """A stranger pressed an arrow key and Enter at --plain's questions: the turn said "Nothing
    typed", and a question whose Enter accepts (Press Enter for round 2, Enter keeps on) took it
    as that Enter. Now the line is said to do nothing, and the same question asked again."""
    from ono99_tui.plain.console import KEYS_ONLY

    out = io.BytesIO()
    con = Console(io.BytesIO(keys + b"\n3\n"), out)
    assert con.ask("Which card?") == "3"
    assert out.getvalue().decode().splitlines() == ["Which card?", KEYS_ONLY, "Which card?"]
    assert Console(io.BytesIO(b"\n"), io.BytesIO()).ask("?") == ""  # Enter alone is still Enter
    assert Console(io.BytesIO(b" \t\r\n"), io.BytesIO()).ask("?") == ""


@pytest.mark.parametrize("raw", [b"\x1bOA\n", b"\x1bOB\n", b"\x1bOC\n", b"\x1bOP\n", b"\x1bO5D\n"])
def test_an_arrow_key_in_application_mode_is_not_read_as_a_letter(raw):
    # ESC O B (Down, as a terminal left in application cursor mode sends it) read as "B": the
    # lobby's b (fill the seats with bots), ESC O A as "A": play again
    assert clean_input(raw) == ""


def test_a_network_table_asks_again_after_a_line_of_special_keys_too():
    from ono99_tui.plain.console import KEYS_ONLY
    from ono99_tui.plain.network import Inbox, InboxConsole

    inbox, out = Inbox(), io.BytesIO()
    con = InboxConsole(Console(io.BytesIO(b"\x1b[B\n3\n"), out), inbox)
    inbox.put(("line", con.read_line()))
    inbox.put(("line", con.read_line()))
    assert con.ask("Which card?") == "3"
    assert out.getvalue().decode().splitlines() == ["Which card?", KEYS_ONLY, "Which card?"]
