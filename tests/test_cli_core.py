"""`ono99 rules ...` and `ono99 replay ...`, run as a user runs them."""

import json
import random
import tomllib

import pytest

from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT, load_rules_text
from tests.cli import ono99




def test_rules_list_names_every_preset():
    out = ono99("rules", "list")
    assert out.returncode == 0
    names = [line.split()[0] for line in out.stdout.splitlines()]
    assert names[0] == "standard" and {"points", "first-to-500", "ninety-nine-option"} <= set(names)


@pytest.mark.parametrize("preset", ["standard", "points", "first-to-500", "ninety-nine-option"])
def test_rules_show_prints_every_key_commented_and_loads_back(preset):
    out = ono99("rules", "show", preset)
    assert out.returncode == 0
    assert out.stdout.count("# R") >= 21
    from ono99_tui.store.presets import load_preset

    assert load_rules_text(out.stdout) == load_preset(preset)


def test_rules_show_a_file_and_default(tmp_path):
    f = tmp_path / "house.toml"
    f.write_text("target = 150\n")
    out = ono99("rules", "show", str(f))
    assert out.returncode == 0 and "target = 150" in out.stdout and "(default 99)" in out.stdout
    assert tomllib.loads(ono99("rules", "show").stdout)["target"] == 99


def test_rules_check_exit_codes_and_messages(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("[scoring]\nmode = 'points'\n")
    bad = tmp_path / "bad.toml"
    bad.write_text("[scoring]\nmod = 'points'\ntokens = 0\nwinner = 'last'\n")
    ok = ono99("rules", "check", str(good))
    assert ok.returncode == 0 and ok.stdout.strip() == f"{good}: ok"
    both = ono99("rules", "check", str(good), str(bad))
    assert both.returncode == 2
    assert both.stderr.splitlines() == [
        f'{bad}: scoring.mod: unknown key (did you mean "scoring.mode"?)',
        f"{bad}: scoring.tokens: 0 is out of range; allowed: a whole number from 1 to 20",
        f"{bad}: scoring.winner: unknown key; allowed in [scoring]: mode, tokens, extra_life, limit, end, "
        "bust_penalty",
    ]
    missing = ono99("rules", "check", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "cannot read the rules file: no such file" in missing.stderr


def test_a_rules_file_with_a_table_twice_names_the_file_line_and_table(tmp_path):
    twice = tmp_path / "twice.toml"
    twice.write_text("[scoring]\nmode = 'points'\n\n[scoring]\nlimit = 300\n")
    said = (f"{twice}, line 4: the rules file is not valid TOML: [scoring] appears twice (first on line 1); "
            "merge its keys into one [scoring] table")
    check = ono99("rules", "check", str(twice))
    assert check.returncode == 2 and check.stderr.splitlines() == [said]
    play = ono99("--rules", str(twice), "--plain", input="")
    assert play.returncode == 2 and play.stderr.splitlines() == [f"ono99: --rules: {said}"]


def test_rules_show_unknown_preset_is_a_clear_error():
    out = ono99("rules", "show", "nonesuch")
    assert out.returncode == 2 and "no preset or file named 'nonesuch'" in out.stderr


def _played_record(tmp_path, stop_after=None, seed=9):
    g = Game(["Ana", "Bo", "Cy"], DEFAULT, seed)
    rng = random.Random(seed)
    while not g.over and (stop_after is None or len(g.plays) < stop_after):
        g.play(rng.choice(g.legal_plays()))
    path = tmp_path / "game.toml"
    path.write_text(Record.from_game(g, [SeatSpec("Ana"), SeatSpec("Bo", "bot:easy"), SeatSpec("Cy", "bot:hard")]).to_toml())
    return g, path


def test_replay_prints_play_by_play_and_the_result(tmp_path):
    g, path = _played_record(tmp_path)
    out = ono99("replay", str(path))
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0] == "O'NO 99: 3 players: Ana (human), Bo (bot:easy), Cy (bot:hard)"
    assert sum(" plays " in line for line in lines) == len(g.plays)
    assert lines[-2] == f"Game over after {g.round_no} rounds: {g.names[g.winner]} wins."
    first_play = next(e for e in g.events if e["type"] == "play")
    assert any(line.strip().startswith(f"{g.names[first_play['seat']]} plays") for line in lines)


@pytest.mark.parametrize("players", [2, 3])
def test_replay_says_a_reverse_flips_the_direction_only_with_more_than_two_players(tmp_path, players):
    """R6.2: with 2 players in the round a Reverse acts as a Hold and the direction stays; the
    replay said "0 stays, direction flips" for it (a play-tester: "Bo must play twice" after it)."""
    from tests.stacked import game_with

    hands = [["reverse", "2", "3", "4"], ["5", "6", "7", "8"], ["2", "3", "4", "5"]][:players]
    g = game_with(hands)
    g.play("reverse")
    assert g.direction == (1 if players == 2 else -1)  # the engine, as R6.2 says
    path = tmp_path / "game.toml"
    path.write_text(Record.from_game(g, [SeatSpec(n) for n in g.names]).to_toml())
    out = ono99("replay", str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    said = "Ana plays Reverse \u2014 0 stays" + (" (a Hold with two players)" if players == 2 else ", direction flips")
    assert "  " + said in lines
    nxt = "Bo" if players == 2 else "Cy"
    assert f"Round 1, total 0, play goes {'left' if players == 2 else 'right'}: {nxt} to play." in lines


def test_replay_mid_game_says_whose_turn(tmp_path):
    g, path = _played_record(tmp_path, stop_after=5)
    out = ono99("replay", str(path), "--ascii")
    assert out.returncode == 0
    assert f"{g.names[g.current]} to play" in out.stdout
    assert out.stdout.isascii()


def test_replay_json_has_the_event_stream_with_deck_orders(tmp_path):
    g, path = _played_record(tmp_path)
    out = ono99("replay", str(path), "--json")
    doc = json.loads(out.stdout)
    assert doc["format"] == "ono99-events" and doc["version"] == 1
    assert doc["events"] == json.loads(json.dumps(g.events))
    deals = [e for e in doc["events"] if e["type"] == "deal"]
    assert deals and all(len(d["deck"]) == 54 for d in deals)
    assert doc["state"]["over"] and doc["state"]["winner"] == g.winner


def test_replay_with_an_illegal_play_exits_2_naming_the_play(tmp_path):
    g, path = _played_record(tmp_path, stop_after=3)
    text = path.read_text()
    seat = g.names[g.current]
    text = text.replace("plays = [", f'plays = ["{g.names[g.plays[0][0]]}: 99", ', 1)
    path.write_text(text)
    out = ono99("replay", str(path))
    assert out.returncode == 2
    assert out.stderr.startswith("ono99: play 1 (round 1, ") and "cannot play 99" in out.stderr and seat


@pytest.mark.parametrize("content", [b"", b"\x00\xff garbage", b"format = 'ono99-record'\nversion = 1\n"])
def test_replay_malformed_or_missing_exits_2(tmp_path, content):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    out = ono99("replay", str(path))
    assert out.returncode == 2 and out.stderr.startswith("ono99: ")
    assert ono99("replay", str(tmp_path / "none.toml")).returncode == 2
