"""Words a player reads: verb agreement, the dealer draw, command-line help and notes,
and which characters a terminal gets (issue 12, defects 8, 9 and 10)."""

import pytest

from ono99_tui.engine.describe import describe
from ono99_tui.store.stats import stats_lines
from ono99_tui.tui.glyphs import choose_ascii, unicode_ok
from tests.cli import ono99


def test_r2_2_you_deal_first_and_every_high_card_draw_is_listed():
    names = ["You", "Bo", "Cy"]
    tie_then_win = {"type": "dealer", "seat": 0, "method": "high-card",
                    "draws": [[[0, "9"], [1, "9"], [2, "4"]], [[0, "10"], [1, "3"]]]}
    line = describe(tie_then_win, names)
    # "Cy drew 4", never "Cy 4", which reads as a score or a total (issue 19)
    assert line == "You deal first (high card: You drew 9, Bo drew 9, Cy drew 4; tie, again: You drew 10, Bo drew 3)"
    assert "(s)" not in line
    once = {"type": "dealer", "seat": 1, "method": "high-card", "draws": [[[0, "2"], [1, "10"], [2, "4"]]]}
    assert describe(once, names) == "Bo deals first (high card: You drew 2, Bo drew 10, Cy drew 4)"
    assert describe({"type": "dealer", "seat": 0, "method": "random"}, names).startswith("You deal first")
    from ono99_tui.plain.words import dealer_sentence  # the line-by-line front end says it the same way

    assert dealer_sentence(once, names) == "Bo deals first, by high card: You drew Two, Bo drew Ten, Cy drew Four."


def test_r2_3_round_starts_say_you_deal():
    assert describe({"type": "deal", "round": 1, "dealer": 0}, ["You", "Bo"]) == "Round 1: You deal"
    assert describe({"type": "deal", "round": 2, "dealer": 1}, ["You", "Bo"]) == "Round 2: Bo deals"


def test_r6_2_a_reverse_line_claims_a_direction_flip_only_when_more_than_two_play():
    play = {"type": "play", "n": 1, "round": 1, "seat": 1, "card": "reverse", "total": 89}
    names = ["Ann", "Bob", "Cy"]
    assert describe(play, names, in_round=3) == "Bob plays Reverse \u2014 89 stays, direction flips"
    assert describe(play, names, in_round=2, ascii=True) == "Bob plays Reverse - 89 stays (a Hold with two players)"
    assert describe(play, names) == "Bob plays Reverse \u2014 89 stays"  # not known: neither claimed


def test_counts_of_one_in_the_plain_lines_the_rules_and_replay_are_singular(tmp_path):
    """"Game over after 1 rounds": a count that can be one is said as one, wherever plain mode
    or the command line says it (R3.1 hand_size 1; R8.2 one token and no extra life)."""
    import dataclasses

    from ono99_tui.engine import Game
    from ono99_tui.engine.game import GameSetupError
    from ono99_tui.engine.record import Record, SeatSpec
    from ono99_tui.engine.rules import RulesError, load_rules_text
    from ono99_tui.engine.view import PlayerView
    from ono99_tui.plain.words import standings_lines, total_line

    rules = load_rules_text("hand_size = 1\n[scoring]\ntokens = 1\nextra_life = false\n")
    assert "Bust at 99; 1 card in hand; 54-card deck." in rules.summary()
    g = Game(["Ann", "Bob"], rules, 3)
    view = PlayerView.of(g, 0)
    assert total_line(dataclasses.replace(view, draw_pile_size=1)).endswith(" The draw pile has 1 card.")
    while not g.over:
        g.play(g.legal_plays()[0])
    assert g.round_no == 1
    end = standings_lines(PlayerView.of(g, 0), g.standings(), g.round_no)
    assert end[0] == f"Game over after 1 round. {g.names[g.winner]} wins."
    path = tmp_path / "one.toml"
    path.write_text(Record.from_game(g, [SeatSpec(n) for n in g.names]).to_toml())
    out = ono99("replay", str(path))
    assert out.returncode == 0 and f"Game over after 1 round: {g.names[g.winner]} wins." in out.stdout.splitlines()
    # a deck too small to deal one card each (R1.1): "1 card", in `rules check` and at a table
    deck = "[deck]\nnumber_each = 0\nminus_ten = 0\nhold = 0\nreverse = 0\ndouble_play = 0\nninety_nine = 0\n"
    with pytest.raises(RulesError, match="too small to deal 1 card to 2 players"):
        load_rules_text("hand_size = 1\n[dealer]\nfirst = 'random'\n" + deck + "ten = 1\n")
    two = load_rules_text("hand_size = 1\n[dealer]\nfirst = 'random'\n" + deck + "ten = 2\n")
    with pytest.raises(GameSetupError, match=r"^3 players x 1 card needs 3 cards, but the deck has 2"):
        Game(["Ann", "Bob", "Cy"], two, 1)


def test_simulate_help_says_95_percent_once():
    out = ono99("simulate", "--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "95% confidence" in text and "%%" not in text


def test_rules_compare_says_why_it_played_more_games_than_asked():
    out = ono99("rules", "compare", "standard", "standard", "--games", "5", "--bots", "random,random,random",
                "--jobs", "1")
    assert out.returncode == 0, out.stderr
    assert "6 games, not 5: rounded up to a multiple of 3 (the seats)" in " ".join(out.stdout.split())


def test_stats_list_bots_faced_one_a_line_within_80_columns():
    players = {"Ann": {"games": 3, "wins": 1, "rounds_lost": 7,
                       "faced": {"easy": {"games": 2, "wins": 1}, "hard": {"games": 1, "wins": 0},
                                 "medium": {"games": 1, "wins": 0}}}}
    lines = stats_lines(players)
    assert all(len(line) <= 76 for line in lines)  # the Statistics box is 76 columns inside at 80
    assert lines[1].endswith("easy 1/2") and lines[2].strip() == "hard 0/1" and lines[3].strip() == "medium 0/1"


# -- which characters: defect 9 --------------------------------------------------------

@pytest.mark.parametrize("env", [
    {"TERM": "linux", "LANG": "en_US.UTF-8"},
    {"TERM": "vt100"}, {"TERM": "vt220"}, {"TERM": "dumb"},
    {"TERM": "xterm-256color", "LANG": "C"},
    {"TERM": "xterm-256color", "LC_ALL": "en_US.ISO-8859-1", "LANG": "en_US.UTF-8"},
])
def test_terminals_that_cannot_draw_unicode_get_ascii(env):
    assert not unicode_ok(env)
    assert choose_ascii(None, env, setting=False) is True
    assert choose_ascii("unicode", env, setting=False) is False  # --unicode forces it
    assert choose_ascii(None, {**env, "ONO99_GLYPHS": "unicode"}, setting=False) is False


@pytest.mark.parametrize("env", [
    {"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}, {"TERM": "screen", "LC_CTYPE": "C.utf8"},
    {"TERM": "tmux-256color"}, {},
])
def test_capable_terminals_keep_unicode_unless_asked(env):
    assert unicode_ok(env)
    assert choose_ascii(None, env, setting=False) is False
    assert choose_ascii(None, env, setting=True) is True  # the ASCII setting
    assert choose_ascii("ascii", env, setting=False) is True
    assert choose_ascii(None, {**env, "ONO99_GLYPHS": "ascii"}, setting=False) is True
    with pytest.raises(ValueError, match="ONO99_GLYPHS must be ascii, unicode or auto"):
        choose_ascii(None, {**env, "ONO99_GLYPHS": "fancy"}, setting=False)


def test_ono99_on_the_linux_console_starts_in_ascii(monkeypatch):
    """`ono99` itself (run_app) picks ASCII from TERM, and --unicode wins over it."""
    from ono99_tui import cli
    from ono99_tui.tui.app import Ono99App

    started = []
    monkeypatch.setattr(Ono99App, "run", lambda self: started.append(self.ascii))
    monkeypatch.setattr("ono99_tui.tui.app.need_terminal", lambda: None)  # (pytest's stdio is no terminal)
    monkeypatch.setenv("TERM", "linux")
    monkeypatch.delenv("ONO99_GLYPHS", raising=False)
    assert cli.main([]) == 0
    assert cli.main(["--unicode"]) == 0
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    assert cli.main([]) == 0
    assert started == [True, False, False]


def test_unknown_theme_and_unknown_rules_on_the_command_line_both_exit_2():
    for args, needle in ((["--theme", "nosuch"], "no theme named 'nosuch'"),
                         (["--rules", "nosuch"], "no preset or file named 'nosuch'")):
        out = ono99(*args)
        assert out.returncode == 2 and needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_theme_file_with_a_bad_colour_is_named_with_its_problem_not_called_missing(private_dirs):
    """A play-tester's themes/c.toml holds name = "badc" and a colour that is none: `--theme badc`
    said "no theme named 'badc'", though the file is there. Now, as --rules does for a broken
    rules file: the file and what is wrong in it, on one line, exit 2; asked for by its file
    name (--theme c) the same."""
    folder = private_dirs / "config" / "themes"
    folder.mkdir(parents=True)
    (folder / "c.toml").write_text('name = "badc"\n[colors]\nprimary = "notacolour"\n')
    for name in ("badc", "c"):
        out = ono99("--theme", name)
        assert out.returncode == 2 and out.stdout == "", (name, out)
        assert out.stderr == (f"ono99: --theme: {folder / 'c.toml'}: colors.primary: 'notacolour' is not a colour "
                              '(use "#rrggbb", a colour name or "ansi_*")\n'), (name, out.stderr)
    (folder / "dup.toml").write_text('name = "ono99-dark"\n[colors]\nprimary = "#112233"\n')
    out = ono99("--theme", "nosuch")  # (not there at all: still said so, no other file's problem)
    assert out.returncode == 2 and out.stderr.startswith("ono99: --theme: no theme named 'nosuch' (themes: ")
    assert ".toml" not in out.stderr and len(out.stderr.splitlines()) == 1


def test_ascii_and_unicode_cannot_both_be_asked_for():
    out = ono99("--ascii", "--unicode")
    assert out.returncode == 2 and "not allowed with" in out.stderr


def test_readme_links_the_rules_that_ship_with_the_project():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "](docs/rules.md)" in readme and "RULES.md" not in readme
    rules = (root / "docs" / "rules.md").read_text(encoding="utf-8")
    for n in range(1, 10):
        assert f"\n## R{n} " in rules
    for rule in ("R2.2", "R4.3", "R4.6", "R5.3", "R6.4", "R7.2", "R8.2", "R9.4"):
        assert f"\n{rule} " in rules, rule


def test_a_round_lost_at_the_play_limit_says_so():
    from ono99_tui.tui.screens.modals import round_end_text

    title, body = round_end_text(["You", "Bo"], [{"type": "round_lost", "seat": 0, "total": 40,
                                                 "reason": "play-limit", "round": 3}])
    assert "You was" not in body and "play limit (R4.6)" in body and "no card" not in body


def test_replay_on_the_linux_console_prints_ascii(tmp_path, monkeypatch):
    from tests.test_cli_core import _played_record

    _, path = _played_record(tmp_path)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_CTYPE", raising=False)
    monkeypatch.delenv("ONO99_GLYPHS", raising=False)
    assert "→" in ono99("replay", str(path)).stdout
    monkeypatch.setenv("TERM", "linux")
    out = ono99("replay", str(path))
    assert out.returncode == 0 and out.stdout.isascii() and "->" in out.stdout
    monkeypatch.setenv("ONO99_GLYPHS", "unicode")
    assert "→" in ono99("replay", str(path)).stdout


def test_the_readme_lists_every_command_the_cli_has():
    # a play-tester found `ono99 saves restore NAME` in `saves --help` but not in the README's list
    import argparse
    from pathlib import Path

    from ono99_tui.cli import build_parser

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")

    def commands(parser, prefix):
        for action in parser._actions:  # (argparse keeps its subcommands here)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from commands(sub, f"{prefix} {name}")
                return
        yield prefix

    listed = [c for c in commands(build_parser(), "ono99") if c != "ono99"]
    assert len(listed) > 15 and "ono99 saves restore" in listed
    missing = [c for c in listed if f"\n{c} " not in readme and f"\n{c}\n" not in readme]
    assert not missing, missing
