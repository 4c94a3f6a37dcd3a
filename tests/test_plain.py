"""`ono99 --plain` as a user runs it: a subprocess, lines piped in, the raw bytes it writes checked.

Every run's output is checked byte by byte: nothing below 0x20 but the newline, no escape, no
C1 control (the front end is for screen readers, braille displays and pipes)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

from ono99_tui.store.saves import SaveStore

GAME = "1\n1\n\n"  # play card 1, confirm it if it busts, go on after a lost round


def plain(*args: str, lines: str = "", timeout: float = 120, cwd=None) -> tuple[int, list[str]]:
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", *args], input=lines.encode(),
                          capture_output=True, timeout=timeout, env=dict(os.environ), cwd=cwd)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    assert_plain_bytes(proc.stdout)
    return proc.returncode, proc.stdout.decode().splitlines()


def assert_plain_bytes(raw: bytes) -> None:
    bad = sorted({b for b in raw if b < 0x20 and b != 0x0A})
    assert not bad, f"control bytes {bad} in the output"
    assert b"\x1b" not in raw
    text = raw.decode("utf-8")  # (it is UTF-8 throughout)
    assert not re.search("[\x7f-\x9f]", text), "a C1 control in the output"


def saved_name(lines: list[str]) -> str:
    found = [m.group(1) for line in lines if (m := re.search(r"The game is saved as (.+?);", line))]
    assert found, "no line says where the game is saved"
    return found[-1]


def turns(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line == "Which card?"]


def test_a_whole_quick_game_against_bots_through_a_pipe_ends_and_says_who_won():
    rc, lines = plain("--plain", lines="g\n" + GAME * 1500)
    assert rc == 0
    over = [line for line in lines if line.startswith("Game over after")]
    assert len(over) == 1 and re.fullmatch(r"Game over after \d+ rounds\. (You|Bo|Cy|Di) wins?\.", over[0])
    standings = lines[lines.index(over[0]) + 1]
    assert standings.startswith("Standings: first ")
    # every play of yours was said, and every line is a sentence: it ends as one
    assert any(line.startswith("You: ") for line in lines)
    assert all(line.endswith((".", "?", ")")) or line.startswith("ono99 resume") for line in lines), \
        [line for line in lines if not line.endswith((".", "?", ")"))][:5]
    # statistics were counted, as the table screen counts them
    stats = subprocess.run([sys.executable, "-m", "ono99_tui", "stats"], capture_output=True, text=True)
    assert re.search(r"^You\s+1\s+[01]\s", stats.stdout, re.M), stats.stdout


def test_the_hand_is_numbered_with_what_each_card_would_do():
    rc, lines = plain("--plain", lines="g\n")
    assert rc == 0
    first = turns(lines)[0]
    head = next(i for i in range(first, -1, -1) if lines[i].startswith("Your turn"))
    hand = lines[head + 1:first]
    hand = [h for h in hand if h[:1].isdigit()]
    assert [h.split(":")[0] for h in hand] == ["1", "2", "3", "4"]
    for line in hand:
        assert re.fullmatch(r"\d: [A-Z][A-Za-z -]+, (total -?\d+|total stays|busts at \d+|can't be played .+)\.",
                            line), line


def test_end_of_input_leaves_saves_and_resume_by_name_continues():
    rc, lines = plain("--plain", lines="g\n1\n1\n")
    assert rc == 0
    assert lines[-1].startswith("End of input. The game is saved as ")
    name = saved_name(lines)
    plays = SaveStore().load(name).play_count
    assert plays >= 1
    # the flag after the subcommand, and before it: both open that save where it stopped
    rc, again = plain("resume", name, "--plain", lines="1\n1\n")
    assert rc == 0 and f"Resuming {name}." in again
    assert any(line.startswith("Round 1, total ") for line in again)
    assert SaveStore().load(name).play_count > plays
    rc, third = plain("--plain", "resume", name, lines="q\n")
    assert rc == 0 and f"Resuming {name}." in third
    assert any(line.startswith("You left the table. The game is saved as ") for line in third)


def test_save_as_writes_a_copy_to_return_to_and_the_game_goes_on_under_its_own_name():
    rc, lines = plain("--plain", lines="g\nw\nbad/name\nw\nmy game\n1\n1\n")
    assert rc == 0
    assert any(line.startswith('Not saved as that name: save name "bad/name": use letters') for line in lines)
    copied = next(line for line in lines if line.startswith("A copy is saved as my game; "))
    going_on = saved_name(lines)
    assert copied == f"A copy is saved as my game; this game goes on saving as {going_on}."
    assert sorted(SaveStore().names()) == sorted(["my game", going_on])
    # the copy holds the game as it stood when saved: the start of what the autosave holds
    copy, game = (SaveStore().load(n).replay(record_events=False).plays for n in ("my game", going_on))
    assert len(game) >= len(copy) and game[:len(copy)] == copy
    rc, again = plain("resume", "my game", "--plain", lines="q\nq\n")
    assert rc == 0 and "Resuming my game." in again


def test_save_as_takes_a_name_in_any_script_and_resume_opens_it():
    """A stranger's find: Save as refused 'Partie à Zoé' ("use letters, ...")."""
    rc, lines = plain("--plain", lines="g\nw\nPartie à Zoé\n1\n1\n")
    assert rc == 0 and any(line.startswith("A copy is saved as Partie à Zoé; ") for line in lines), lines
    listed = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "list"], capture_output=True, text=True)
    assert listed.returncode == 0 and any(line.startswith("Partie à Zoé  ") for line in listed.stdout.splitlines())
    rc, again = plain("resume", "Partie à Zoé", "--plain", lines="q\nq\n")
    assert rc == 0 and "Resuming Partie à Zoé." in again


def test_a_rules_file_named_from_one_folder_is_found_by_the_next_new_game_from_another(tmp_path):
    """A stranger's find: `ono99 --rules myrules.toml` kept "myrules.toml" as the last New game's
    rules, so New game started from another folder could not find the file."""
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "myrules.toml").write_text("hand_size = 5\n")
    rc, lines = plain("--plain", "--rules", "myrules.toml", lines="n\n\nq\nq\n", cwd=here)
    assert rc == 0 and any(line.startswith("Table: ") and line.endswith(" Rules: myrules.toml.") for line in lines)
    rc, again = plain("--plain", lines="n\n\nq\nq\n", cwd=elsewhere)
    assert rc == 0 and not any(line.startswith("Cannot start") for line in again), again
    assert any(line.startswith("Table: ") and line.endswith(f" Rules: {here / 'myrules.toml'}.") for line in again)


def test_settings_in_plain_text_are_saved_and_used():
    rc, lines = plain("--plain", lines="o\nAnn\nnosuch\npoints\noff\nmaybe\noff\ng\nh\nu\nq\nq\n")
    assert rc == 0
    assert any(line.startswith("Settings saved in ") for line in lines)
    assert "Type on or off, Enter, or q." in lines
    assert any("nosuch" in line for line in lines)  # the unknown rules named in one line
    assert any(line.startswith("Table: Ann, human; Bo, medium bot") and "Rules: points." in line for line in lines)
    assert "Undo is off in your settings." in lines
    # and the next run starts with them
    _, again = plain("--plain", lines="o\n\n\n\n\nq\n")
    assert any(line.startswith("Settings: your name Ann; rules for a new game points; undo against bots off; "
                               "a busting card asks again off.") for line in again)
    assert "Nothing changed." in again


def test_load_lists_the_saves_and_opens_one_by_number_or_name():
    _, lines = plain("--plain", lines="g\n")
    name = saved_name(lines)
    rc, menu = plain("--plain", lines=f"l\n7\n1\nq\nl\n{name}\nq\nq\n")
    assert rc == 0
    assert any(re.fullmatch(rf"1: {re.escape(name)}, round 1, played .+\. You, Bo \(medium\), Cy \(medium\), "
                            r"Di \(medium\)\. .+\.", line) for line in menu), menu[:8]
    assert "No save '7': type a number from 1 to 1, a name, or Enter or q to go back." in menu
    assert menu.count(f"Resuming {name}.") == 2


MENU = "Main menu: n new game; g quick game against three bots; s statistics; o settings; ? rules and help; q quit."
START = "Press Enter to start, e to change the table, or b to go back."


def test_q_goes_back_from_new_game_and_from_its_changes_keeping_the_table():
    rc, lines = plain("--plain", lines="n\nq\nn\ne\n3\nAnn\nq\nq\nq\n")
    assert rc == 0 and lines[-1] == "Goodbye."
    # at the confirmation, q is b: back to the main menu, not "Type Enter alone to start ..."
    assert lines[lines.index(START) + 1] == MENU
    assert not any(line.startswith("Type Enter alone") for line in lines)
    # q in the middle of the changes: the table as it was, the third seat and Ann forgotten
    shown = [line for line in lines if line.startswith("New game: ")]
    assert len(shown) == 3 and shown[1] == shown[2] and "seat 4, Di" in shown[2] and "Ann" not in shown[2]
    at = lines.index("Seat 1 name? Enter keeps You.")
    assert lines[at + 2:at + 4] == ["The table is not changed.", shown[2]]


def test_q_leaves_settings_unchanged_and_goes_back_from_load():
    rc, lines = plain("--plain", lines="o\nAnn\nq\no\n\nq\nq\n")  # q at the second question, then the first
    assert rc == 0 and lines.count("Settings not changed.") == 2
    said = [line for line in lines if line.startswith("Settings: your name ")]
    assert len(said) == 2 and all(line.startswith("Settings: your name You;") for line in said)
    _, lines = plain("--plain", lines="g\n")
    name = saved_name(lines)
    rc, menu = plain("--plain", lines="l\nq\nq\n")
    assert rc == 0 and not any(line.startswith("No save") for line in menu)
    assert menu[menu.index("Type a save's number or name, or press Enter to go back.") + 1].startswith("Main menu:")
    assert f"Resuming {name}." not in menu


def test_q_at_save_as_saves_no_copy():
    rc, lines = plain("--plain", lines="g\nw\nq\nq\n")
    going_on = saved_name(lines)
    assert rc == 0 and f"No copy saved; the game is saved as {going_on}." in lines
    assert list(SaveStore().names()) == [going_on]


def test_continue_from_the_menu_opens_the_latest_unfinished_game():
    _, lines = plain("--plain", lines="g\n1\n")
    name = saved_name(lines)
    rc, menu = plain("--plain", lines="c\n")
    assert rc == 0
    assert any(f"c continue {name}" in line for line in menu)
    assert f"Resuming {name}." in menu


def test_a_game_over_at_its_deal_is_counted_in_the_statistics(tmp_path):
    """R5.2 with a deck of 99s: a game over before anyone played was missing from `ono99 stats`."""
    from tests.test_table_session import ended_at_the_deal

    rules = tmp_path / "nines.toml"
    rules.write_text('hand_size = 1\n[deck]\nninety_nine = 6\n[scoring]\nmode = "points"\nlimit = 30\n')
    table = f"n\ne\n2\n\n\n\nrandom\n{rules}\n\n{ended_at_the_deal()}\n\n"  # You and Bo, random
    rc, lines = plain("--plain", lines=table + "\n" * 5 + "q\n")
    assert rc == 0 and any(line.startswith("Game over after") for line in lines) and "Which card?" not in lines
    stats = subprocess.run([sys.executable, "-m", "ono99_tui", "stats"], capture_output=True, text=True)
    assert re.search(r"^You\s+1\s+0\s", stats.stdout, re.M), stats.stdout


def test_bad_input_gets_one_line_and_changes_nothing():
    rc, lines = plain("--plain", lines="g\nxyz\n\n9\nu\n" + "9" * 5000 + "\nq\n")
    assert rc == 0
    at = turns(lines)
    # after each of the five bad lines: exactly one line, then the same prompt again
    for a, b in zip(at, at[1:6]):
        assert b - a == 2, lines[a:b + 1]
    said = [lines[a + 1] for a in at[:5]]
    assert said[4] == "There is no card that big: type a number from 1 to 4, or ? for help."
    assert said[0] == "'xyz' is not a command: type a card's number from 1 to 4, or h, t, s, l, r, u, w, ? or q."
    assert said[1].startswith("Nothing typed: ")
    assert said[2] == "There is no card 9: type a number from 1 to 4, or ? for help."
    assert said[3] == ("Nothing to undo: you have not played in this round yet (undo never reaches back "
                       "into a finished round).")
    name = saved_name(lines)
    record = SaveStore().load(name)
    you = record.names.index("You")
    assert all(seat != you for seat, _ in record.replay(record_events=False).plays)


def test_menu_bad_choice_and_commands_at_the_table():
    rc, lines = plain("--plain", lines="x\ng\nh\nt\ns\nl\nr\n?\nq\nq\n")
    assert rc == 0
    assert lines[3] == "Not a menu choice: type n, g, s, o, ? or q."
    text = "\n".join(lines)
    # (a bot's Double Play just before: "It is your turn and must play twice.", a deal in ~30)
    assert re.search(r"^Round 1, total -?\d+, bust at 99, play goes (left|right)\. It is your turn( and must play "
                     r"twice)?\.", text, re.M), text
    assert re.search(r"^Tokens: You 3 tokens, 4 cards; Bo 3 tokens, 4 cards", text, re.M)
    # `l`: the round's plays so far; a quick game's deal is new each time, so when you play first
    # there are none, and nothing before your first turn may then say a bot played
    bots_played = re.search(r"^(Bo|Cy|Di): ", text[:text.index("It is your turn")], re.M)
    if bots_played:
        assert re.search(r"^Round 1, plays? .*Total \d+\.$", text, re.M)
    else:
        assert "No plays yet in round 1." in lines
    assert re.search(r"^Ten: adds 10\. 10 in the deck, \d+ seen, \d+ unseen\.$", text, re.M)
    assert "q: leave the table; the game is saved after every play." in lines
    assert lines[-1] == "Goodbye."


def test_new_game_questions_make_a_seeded_hot_seat_table_that_hides_hands_until_asked():
    setup = "n\ne\n2\nAnn\nhuman\nBea\nhuman\n\n1\n7\n\n"  # 2 seats, both human, rules kept, Ann deals, seed 7
    rc, lines = plain("--plain", lines=setup + "\n1\n1\n2\n2\n3\n3\n4\n4\n" * 300)
    assert rc == 0
    assert "New game: seat 1, Ann, human; seat 2, Bea, human. Rules standard; Ann deals first; seed 7." in lines
    assert any(line.startswith("Game over after ") for line in lines)
    # a hand is printed only after its owner's "Pass to" line has been answered with Enter
    holder = None
    for line in lines:
        if m := re.match(r"Pass to (\w+)\. ", line):
            holder = m.group(1)
            continue
        if m := re.match(r"(\w+)'s turn", line):
            assert m.group(1) == holder, f"{m.group(1)}'s hand shown while {holder} was called"
    # the shared screen never names a card drawn (the log is a spectator's)
    assert not any("draw" in line and "nothing to draw" not in line and "draw pile" not in line for line in lines)
    # New game remembers the table (never the seed); the same seed deals the same game
    _, again = plain("--plain", lines="n\ne\n" + "\n" * 7 + "7\n\n" + "\n1\n1\n2\n2\n3\n3\n4\n4\n" * 300)
    assert [line for line in again if line.startswith("Game over")] == \
        [line for line in lines if line.startswith("Game over")]


def test_new_game_refuses_a_taken_name_and_unknown_rules_at_their_question_not_at_start(tmp_path):
    """Play-tester: three seats all named Ann and rules "bogus" were all taken, and only Start said
    "Cannot start: ...", one problem at a time, each a walk through every question again. Now each
    answer is checked as Start checks it (check_names: the same name, also written in another
    Unicode form; the rules loader; a deck that deals to every seat, R1.1) at its own question:
    one line saying what is allowed, and the same question again."""
    small = tmp_path / "small.toml"
    small.write_text("hand_size = 10\n[deck]\nnumber_each = 1\nten = 0\n")  # 28 cards: 2 players
    answers = ["n", "e", "3",
               "Ann", "human",
               "Ann", "Zo\u00eb", "human",  # seat 2: Ann is taken
               "Zoe\u0308", "", "",  # seat 3: Zoë in another Unicode form is taken; Enter keeps Cy
               "bogus", str(small), "",  # rules: unknown, too few cards for 3, then standard kept
               "1", "7", "b", "q"]
    rc, lines = plain("--plain", lines="\n".join(answers) + "\n")
    assert rc == 0 and lines[-1] == "Goodbye."

    def refused(question, said):
        at = lines.index(question)
        assert lines[at + 1:at + 3] == [said, question]

    refused("Seat 2 name? Enter keeps Bo.",
            "Seat 1 is already Ann: each seat needs its own name; type another for seat 2, or q.")
    refused("Seat 3 name? Enter keeps Cy.",
            "Seat 2 is already Zo\u00eb: each seat needs its own name; type another for seat 3, or q.")
    rules_q = ("Rules: a preset, standard, first-to-500, ninety-nine-option, points, or the path of a rules file? "
               "Enter keeps standard.")
    at = lines.index(rules_q)
    assert lines[at + 1].startswith("no preset or file named 'bogus' (presets: standard, ")
    assert lines[at + 2:at + 5] == [rules_q, "These rules deal to at most 2 players, not 3; type other rules, or q.",
                                    rules_q]
    assert lines.count(rules_q) == 3
    assert ("New game: seat 1, Ann, human; seat 2, Zo\u00eb, human; seat 3, Cy, medium bot. Rules standard; "
            "Ann deals first; seed 7.") in lines
    # a name kept with Enter that an earlier seat has just taken is asked for again, not kept
    rc, lines = plain("--plain", lines="n\ne\n\nBo\n\n\nAnn\n" + "\n" * 8 + "b\nq\n")
    assert rc == 0
    question = "Seat 2 name? Bo is seat 1's name now; type another."
    refused(question, "Seat 1 is already Bo: each seat needs its own name; type another for seat 2, or q.")
    assert "New game: seat 1, Bo, human; seat 2, Ann, medium bot; seat 3, Cy, medium bot; seat 4, Di, medium bot." \
        " Rules standard; first dealer as the rules say; a new deal." in lines
    assert lines[-1] == "Goodbye."
    assert not any(line.startswith(("Cannot start", "Which card?")) for line in lines)


def test_counts_of_one_are_said_in_the_singular(tmp_path, private_dirs):
    """Play-tester: "Game over after 1 rounds." A count of one is said as one: a game of one round
    (one token, no extra life, R8.2), a hand of one card (hand_size, R3.1), one round lost."""
    rules = tmp_path / "one.toml"
    rules.write_text("hand_size = 1\n[scoring]\ntokens = 1\nextra_life = false\n")
    setup = "n\ne\n2\n" + "\n" * 6 + "5\n\n"  # two seats (You and a bot), seed 5, start
    rc, lines = plain("--plain", "--rules", str(rules), lines=setup + "s\n?\n" + GAME * 100 + "s\nq\n")
    assert rc == 0
    assert "Tokens: You 1 token, 1 card; Bo 1 token, 1 card." in lines
    assert any(line.endswith("Bust at 99; 1 card in hand; 54-card deck.") for line in lines)
    over = [line for line in lines if line.startswith("Game over after")]
    assert len(over) == 1 and re.fullmatch(r"Game over after 1 round\. (You|Bo) wins?\.", over[0]), over
    rounds_lost = "1 round lost" if over[0].startswith("Game over after 1 round. Bo") else "0 rounds lost"
    said = [line for line in lines if line.startswith("You: 1 game, ")]
    assert len(said) == 1 and f" percent), {rounds_lost}" in said[0], said


def test_pass_to_then_q_leaves_without_showing_a_hand():
    setup = "n\ne\n2\nAnn\nhuman\nBea\nhuman\n\n\n\n\n"
    rc, lines = plain("--plain", lines=setup + "q\nq\n")
    assert rc == 0
    assert any(line.startswith("Pass to ") for line in lines)
    assert not any(re.match(r"\w+'s turn", line) for line in lines)
    assert any(line.startswith("You left the table.") for line in lines)


def test_names_and_file_names_are_shown_never_obeyed(tmp_path):
    evil = tmp_path / "evil\x1b]0;owned\x07\x1b[31m.toml"
    evil.write_text("target = 120\n")
    rc, lines = plain("--plain", "--rules", str(evil), lines="g\nq\nq\n")
    assert rc == 0
    assert any("evil\\x1b]0;owned\\x07\\x1b[31m" in line for line in lines)


def test_input_with_escape_sequences_and_carriage_returns_is_read_as_its_text():
    # a bracketed paste and a CRLF line end around the menu's "q"
    rc, lines = plain("--plain", lines="\x1b[200~q\x1b[201~\r\n")
    assert rc == 0 and lines[-1] == "Goodbye."


@pytest.mark.parametrize("front", [["--plain"], []])
@pytest.mark.parametrize("delay", ["soon", "9", "99999", "-5", "nan", "inf", "1e400"])
def test_a_bot_delay_from_the_environment_outside_0_to_5_seconds_is_refused(monkeypatch, front, delay):
    """The settings file allows 0 to 5 s; ONO99_BOT_DELAY cut 99999 to 5 s and took "nan" and
    "-5" in silence (a play-tester waited on a "frozen" table). Now: one message, exit 2."""
    monkeypatch.setenv("ONO99_BOT_DELAY", delay)
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", *front], input=b"", capture_output=True,
                          timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().endswith(
        f"ONO99_BOT_DELAY must be a number of seconds from 0 to 5, not '{delay}'")
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize("where", ["before", "after"])
def test_plain_given_with_resume_of_a_missing_save_is_one_message(where):
    args = ["--plain", "resume", "nope"] if where == "before" else ["resume", "nope", "--plain"]
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", *args], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("ono99: no save named 'nope'")


def test_the_example_round_in_the_docs_is_what_ono99_prints():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "accessibility.md").read_text(encoding="utf-8")
    block = doc.split("## An example round", 1)[1].split("```\n", 2)[1].splitlines()
    typed = [line[2:] for line in block if line.startswith("> ")]
    shown = [line for line in block if not line.startswith("> ")]
    setup = "n\ne\n" + "\n" * 11 + "11\n\n"  # New game as it starts (you and three medium bots), seed 11
    rc, lines = plain("--plain", lines=setup + "".join(t + "\n" for t in typed))
    start = lines.index(shown[0])
    assert lines[start:start + len(shown)] == shown


def test_the_docs_name_every_command_of_the_table():
    from pathlib import Path

    from ono99_tui.plain.words import COMMANDS

    doc = (Path(__file__).resolve().parent.parent / "docs" / "accessibility.md").read_text(encoding="utf-8")
    for key, _ in COMMANDS[1:]:
        assert f"| `{key}` |" in doc, key


def test_a_game_played_to_its_end_without_saving_says_so_at_its_end(tmp_path):
    # a play-tester's full disk: "Not saving" once, then a whole game to "Game over" and back to
    # the menu without another word that its end was saved nowhere
    data = tmp_path / "data"
    data.mkdir()
    (data / "saves").write_text("not a folder\n")
    one_round = tmp_path / "short.toml"
    one_round.write_text("[scoring]\ntokens = 1\nextra_life = false\n")
    rc, lines = plain("--plain", "--rules", str(one_round), lines="g\n" + GAME * 60 + "\nq\n", timeout=60)
    assert rc == 0 and any(line.startswith("Game over") for line in lines), lines
    end = [line for line in lines if line.startswith("This game could not be saved")]
    assert end and end[0].endswith("Its end is saved nowhere."), lines


def test_a_saves_folder_that_is_a_file_neither_hangs_a_game_nor_claims_it_was_saved(tmp_path):
    """A stranger's find: with a file where the saves folder should be, a quick game spun for ever
    (the name search took "File exists" from making the folder as "this name is taken"); and a
    game whose saving had failed ended with "The game is saved as ...". Now the game plays, says
    once why it is not saved, and says so again as it is left."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "saves").write_text("not a folder\n")
    rc, lines = plain("--plain", lines="g\n" + GAME * 3 + "q\nq\n", timeout=60)
    assert rc == 0
    assert any(line.startswith("Not saving: cannot use the saves folder") and
               line.endswith("saves: it is a file, not a folder. Play continues; saving is tried again after "
                             "each play.") for line in lines), lines
    left = [line for line in lines if line.startswith("You left the table.")]
    assert left and left[0].endswith("This game could not be saved: cannot save to "
                                     f"{data / 'saves'}: it is a file, not a folder."), left
    assert not any("The game is saved as" in line or "games are saved" in line for line in lines)
    assert lines[0] == "O'NO 99, in plain text. Each answer is one line; end of input leaves."
    assert (data / "saves").read_text() == "not a folder\n"  # nothing written over it


class _Pty:
    """`ono99 --plain` on a pseudo-terminal, as a person runs it: canonical input, echo off (so
    the output is only what ono99 says)."""

    def __init__(self, *args: str):
        import pty
        import termios

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: ono99, its terminal the PTY
            attrs = termios.tcgetattr(0)
            attrs[3] &= ~termios.ECHO
            termios.tcsetattr(0, termios.TCSANOW, attrs)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # (Ctrl+C as a shell leaves it, whatever the test had)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            os.execv(sys.executable, [sys.executable, "-m", "ono99_tui", *args])
        self.out = b""

    def wait_for(self, pattern: str, after: int = 0) -> re.Match:
        """Read until ``pattern`` appears in what was said after offset ``after``; fails when
        ono99 ends first, or says nothing more for a minute (a hang guard, not a timing check)."""
        while not (m := re.search(pattern, self.text[after:], re.M)):
            chunk = self._read()
            assert chunk, f"never said {pattern!r}; said:\n{self.text[-2000:]}"
            self.out += chunk
        return m

    def _read(self) -> bytes:
        import select

        if not select.select([self.fd], [], [], 60)[0]:
            return b""
        try:
            return os.read(self.fd, 65536)
        except OSError:  # (the child ended: the PTY is closed)
            return b""

    @property
    def text(self) -> str:
        return self.out.decode(errors="replace").replace("\r\n", "\n")

    def write(self, data: str) -> None:
        os.write(self.fd, data.encode())

    def close(self) -> int:
        """Read to the end and reap ono99; one still running after a minute of silence (a
        failed test left it waiting for input) is killed."""
        while chunk := self._read():
            self.out += chunk
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            os.kill(self.pid, signal.SIGKILL)
            _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def test_keys_bunched_at_a_hand_over_never_reach_the_next_players_hand_on_a_terminal():
    """A stranger's find: in plain hot seat, Bob typed `1 Enter Enter 1 Enter` in one go (as a
    fast typist, a paste or SSH sends them): his card, then Enter answered "Pass to Ann" and the
    last 1 played Ann's card 1 after showing her hand. On a terminal what was typed before a
    hand-over is now dropped, and the player told; a pipe (a script) keeps it, as above."""
    term = _Pty("--plain")
    try:
        term.wait_for(r"^Your choice\?")
        term.write("n\ne\n2\nAnn\nhuman\nBea\nhuman\n\n2\n7\n\n")  # (Bea deals, Ann plays first; the setup's questions: typed ahead)
        term.wait_for(r"^Pass to Ann\.")
        term.write("\n")
        term.wait_for(r"^Which card\?")
        start = len(term.text)
        term.write("1\n\n1\n")  # Ann's card, then keys meant for nothing she has seen, in one write
        term.wait_for(r"^Pass to Bea\.", start)
        term.wait_for(r"^\(What was typed before this question was dropped\.\)\nPass to Bea\.", start)
        term.write("q\n")  # only now does anyone answer Bea's hand-over: q leaves
        term.wait_for(r"^You left the table\.", start)
        term.wait_for(r"^Your choice\?", start)
        term.write("q\n")  # (the main menu: quit)
    finally:
        rc = term.close()
    said = term.text[start:]
    assert rc == 0 and not re.search(r"^Bea's turn", said, re.M), said
    assert len(re.findall(r"^Ann: ", said, re.M)) == 1, said  # one card played, Ann's own


def test_ctrl_c_mid_game_says_the_game_is_saved_and_how_to_go_on_with_it():
    """A blind player pressed Ctrl+C at "Which card?": ono99 said only "ono99: interrupted", as if
    the game were lost (end of input and q say where it is saved, and how to go on with it). Now
    Ctrl+C says so too, then exits 130 as before."""
    term = _Pty("--plain")
    try:
        term.wait_for(r"^Your choice\?")
        term.write("g\n")
        term.wait_for(r"^Which card\?")
        start = len(term.text)
        term.write("\x03")
        term.wait_for(r"ono99: interrupted", start)
    finally:
        rc = term.close()
    said = term.text[start:]
    assert rc == 130, said
    name = re.search(r"^Interrupted\. The game is saved as (.+?); continue it with c at the main menu, or: "
                     r"ono99 resume --plain \"\1\"$", said, re.M)
    assert name, said
    assert name.group(1) in SaveStore().names()


def test_q_in_a_write_protected_game_with_plays_made_asks_before_they_are_lost():
    """As the full screen asks: a save opened read-only (chmod a-w) keeps the plays made in it
    nowhere, so q asks first; anything but yes stays, and w can save a copy."""
    rc, lines = plain("--plain", lines="g\n1\n1\n")
    name = saved_name(lines)
    path = SaveStore().path(name)
    os.chmod(path, 0o444)
    before = path.read_bytes()
    rc, lines = plain("resume", name, "--plain", lines="1\n1\nq\nno\nq\nyes\n")
    assert rc == 0
    asked = [i for i, line in enumerate(lines) if line.startswith("This game was opened read-only")]
    assert len(asked) == 2 and "write-protected" in " ".join(lines[:asked[0]]), lines
    assert lines[asked[0]].startswith("This game was opened read-only, so ") and "Type yes to leave anyway" in lines[asked[0]]
    left = [line for line in lines if line.startswith("You left the table.")]
    assert len(left) == 1 and lines.index(left[0]) > asked[1]
    assert re.fullmatch(r"You left the table\. This game is not saved here: the \d+ plays? made here (are|is) saved "
                        r"nowhere\.", left[0]), left
    assert path.read_bytes() == before
    rc, listed = plain("saves", "list")  # (the listing says which saves open read-only)
    at = listed.index(next(line for line in listed if line.startswith(name + "  ")))
    assert rc == 0 and any(line.startswith("    [write-protected] opens read-only; chmod u+w ") for line in listed[at:at + 5])


@pytest.mark.parametrize("rules, said", [
    ("standard", "a Ninety-nine cannot be played."),
    ("ninety-nine-option", "a Ninety-nine keeps the total too, played when the total ends in 0, one a turn."),
])
def test_help_says_the_ninety_nine_as_the_rules_in_force_have_it(rules, said):
    rc, lines = plain("--plain", "--rules", rules, lines="?\nq\n")
    first = next(line for line in lines if line.startswith("Keep the running total under 99."))
    assert rc == 0 and f"Double Play makes the next player play twice; {said} Whoever takes" in first


def test_a_write_protected_game_played_to_its_end_says_its_end_is_saved_nowhere():
    """A stranger's find: a game opened read-only and played to its end went back to the menu
    without a word, the whole game lost. Its end says so (and that w there saves a copy)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        rules = os.path.join(folder, "short.toml")
        with open(rules, "w") as fh:
            fh.write("[scoring]\ntokens = 1\nextra_life = false\n")
        rc, lines = plain("--plain", "--rules", rules, lines="g\n1\n1\n")
        name = saved_name(lines)
        path = SaveStore().path(name)
        os.chmod(path, 0o444)
        before = path.read_bytes()
        rc, lines = plain("resume", name, "--plain", lines=GAME * 300)
    said = [line for line in lines if "saved nowhere, nor counted" in line]
    assert rc == 0 and len(said) == 1 and said[0].endswith("type w to save a copy."), lines[-30:]
    assert lines.index(said[0]) > max(i for i, line in enumerate(lines) if line.startswith("Standings"))
    assert path.read_bytes() == before


def test_a_line_that_is_no_command_lists_only_the_commands_this_table_has():
    """A stranger's find: hot seat listed u, which then said "undo is only for a game against
    bots". Two players at one keyboard: no u (w stays: the game is saved here)."""
    rc, lines = plain("--plain", lines="n\ne\n2\nAnn\nhuman\nBea\nhuman\n\n2\n7\n\n\nxyz\nq\n")
    said = [line for line in lines if line.startswith("'xyz' is not a command")]
    assert rc == 0 and said == ["'xyz' is not a command: type a card's number from 1 to 4, or h, t, s, l, r, w, ? or q."], said


def test_hot_seat_with_the_default_name_you_never_says_yous():
    """A stranger's find: seat 1 keeps the default name "You" when seat 2 is made human, and hot
    seat then said "You's hand" and "You's turn"."""
    from ono99_tui.engine.describe import possessive

    assert possessive("You") == "Your" and possessive("Bea") == "Bea's"
    rc, lines = plain("--plain", lines="n\ne\n2\n\nhuman\nBea\nhuman\n\n2\n7\n\n\nxyz\nq\n")
    assert rc == 0 and any(line.startswith("Pass to You.") for line in lines), lines
    assert not [line for line in lines if "You's" in line], lines


def test_a_theme_given_with_plain_is_said_to_be_unused(private_dirs):
    # `ono99 --theme nosuch --plain` was taken in silence (without --plain a wrong name is an error)
    from tests.cli import ono99

    for name in ("nosuch", "ono99-light"):
        proc = ono99("--theme", name, "--plain", input="q\n")
        lines = proc.stdout.splitlines()
        assert proc.returncode == 0 and lines[0] == "--theme is not used with --plain: lines of text have no colours."
    assert "--theme" not in ono99("--plain", input="q\n").stdout


def _last_hand(lines: list[str]) -> list[str]:
    """The cards of the last hand listed ("1: Ten, total 98." -> "Ten"), in their numbers' order."""
    at = max(i for i, line in enumerate(lines) if line.startswith("Your turn"))
    return [line.split(": ", 1)[1].split(",")[0] for line in lines[at + 1:] if re.match(r"\d+: ", line)]


def test_a_game_left_and_resumed_numbers_the_hand_as_it_was_left():
    """The table screen's play-tester's game in plain text (seed 42, You and three medium bots; 2,
    3, 1, 4, one a turn; q): ono99 resume --plain lists the hand under the numbers it had when
    the game was left, and 1 plays the card listed as 1 before."""
    seed_42 = "n\ne\n" + "\n" * 11 + "42\n\n"  # New game, the table as it is, seed 42, Start
    rc, lines = plain("--plain", lines=seed_42 + "2\n3\n1\n4\nq\nq\n")
    assert rc == 0 and "You left the table." in " ".join(lines)
    name = saved_name(lines)
    left = _last_hand(lines)
    assert len(left) == 4
    rc, again = plain("resume", name, "--plain", lines="1\nq\n")
    assert rc == 0 and f"Resuming {name}." in again
    head = again.index(next(line for line in again if line.startswith("Your turn")))
    assert _last_hand(again[:head + 6]) == left
    played = next(line for line in again[head:] if line.startswith("You: "))
    assert played.startswith(f"You: {left[0]},"), (left, played)


def test_a_notice_a_play_led_to_is_said_after_that_play(tmp_path):
    """A play-tester's find: with stats.toml not writable, the game's end said "Statistics not
    updated: ..." before the line of the play that ended it. What a change leads to (statistics,
    a save that failed) is told after the change."""
    data = tmp_path / "data"
    (data / "stats.toml.lock").mkdir(parents=True)
    one_round = tmp_path / "short.toml"
    one_round.write_text("[scoring]\ntokens = 1\nextra_life = false\n")
    rc, lines = plain("--plain", "--rules", str(one_round), lines="g\n" + GAME * 60 + "\nq\n", timeout=60)
    said = [i for i, line in enumerate(lines) if line.startswith("Statistics not updated")]
    assert rc == 0 and len(said) == 1, lines
    last_play = max(i for i, line in enumerate(lines) if " goes bust at " in line)  # (the play that ended it)
    assert said[0] > last_play, lines[last_play - 2:said[0] + 2]


def test_a_quick_game_under_rules_for_at_most_three_players_seats_two_bots(tmp_path):
    """`ono99 --plain --rules small.toml` (ten cards a hand, a 38-card deck), then g: the quick
    game seated four and ended in a traceback. It seats as many as the rules deal to, and says so."""
    rules = tmp_path / "small.toml"
    rules.write_text("hand_size = 10\n[deck]\nnumber_each = 1\n")
    rc, lines = plain("--plain", "--rules", str(rules), lines="g\nq\nq\n")
    assert rc == 0
    assert "g quick game against two bots" in lines[1]
    assert any(line.startswith("Table: You, human; Bo, medium bot; Cy, medium bot. Rules:") for line in lines), lines


def test_the_rules_questions_offer_only_presets_that_can_be_read(private_dirs):
    """A blind player's rules folder held a preset with a bad value, a folder and a FIFO named
    like presets: New game's Rules question read them out among the presets to choose, and each
    was refused once chosen; Settings' question named no preset at all. Now both offer the
    presets that can be read, and say how many of theirs cannot, and where to see why."""
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text("target = 50\n")
    (folder / "bad.toml").write_text("target = 1\n")
    (folder / "dir.toml").mkdir()
    os.mkfifo(folder / "fifo.toml")
    rc, lines = plain("--plain", lines="n\ne\n\n\n\n\n\n\n\n\n\nq\nq\no\n\n\nq\nq\n")
    assert rc == 0
    offer = "a preset, standard, first-to-500, ninety-nine-option, points, mine, or the path of a rules file?"
    note = "3 presets of yours cannot be read; ono99 rules list says why."
    new_game = lines.index(f"Rules: {offer} Enter keeps standard.")
    settings = lines.index(f"Rules for a new game: {offer} Enter keeps standard.")
    assert lines[new_game - 1] == note and lines[settings - 1] == note


def test_a_table_too_big_for_its_rules_is_told_how_many_seats_to_remove(tmp_path):
    # A play-tester's 8 seats under rules dealing to at most 2 heard "Cannot start: These rules
    # deal to at most 2 players, not 8; remove a seat." (one seat removed was not enough)
    from ono99_tui.plain.menu import rules_problem

    tiny = tmp_path / "tiny.toml"
    tiny.write_text("hand_size = 10\n[deck]\nnumber_each = 1\n")  # (38 cards, ten a hand: three at most)
    from ono99_tui.store.rule_presets import resolve

    most = resolve(str(tiny))[0].max_players()
    assert most < 8
    assert rules_problem(str(tiny), seats=8) == \
        f"These rules deal to at most {most} players, not 8; remove {8 - most} seats."
    assert rules_problem(str(tiny), seats=most + 1).endswith("; remove a seat.")
    assert rules_problem(str(tiny), seats=most) is None


def test_an_arrow_key_at_the_turn_says_arrows_do_nothing_and_asks_again():
    # a stranger's Up arrow and Enter at "Which card?" was told "Nothing typed"
    rc, lines = plain("--plain", lines="g\n\x1b[A\nq\n")
    assert rc == 0
    at = turns(lines)
    assert lines[at[0] + 1:at[0] + 3] == ["Arrow keys and other special keys do nothing here: type your answer, "
                                          "then Enter.", "Which card?"], lines


def test_a_superscript_or_circled_digit_is_not_a_number_and_no_traceback():
    # "²" is a digit to str.isdigit but not to int(): at "Which card?" and at Load's question the
    # plain game ended in a ValueError traceback
    rc, lines = plain("--plain", lines="g\n\u00b2\n\u2460\nq\nl\n\u00b2\n\nq\n")
    assert rc == 0
    at = turns(lines)
    assert lines[at[0] + 1] == "'\u00b2' is not a command: type a card's number from 1 to 4, or h, t, s, l, r, u, w, ? or q."
    assert lines[at[1] + 1].startswith("'\u2460' is not a command: ")
    assert any(line.startswith("No save '\u00b2': type a number from 1 to ") for line in lines), lines


def test_plain_output_on_a_full_disk_is_one_line_and_exit_2():
    # `ono99 --plain > /dev/full` ended in an OSError traceback (exit 1)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "ono99_tui", "--plain"], input="g\n1\nq\nq\n", text=True,
                              stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 2 and proc.stderr == "ono99: cannot write to standard output: No space left on device\n", \
        proc.stderr
