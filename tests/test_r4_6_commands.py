"""R4.6 outside the engine: on the looping rule set of issue 15 no command and no screen hangs.

`ono99 simulate`, `ono99 rules compare` and `ono99 replay` run as a user runs them (a
subprocess, with a timeout: a hang is a failure) and end saying rounds reached the
play limit; the table screen, bots only, plays a looping round through to its end.
"""

import random
import re

import pytest

from ono99_tui.store.files import load_rules_file
from ono99_tui.engine import Game
from ono99_tui.engine.game import MAX_ROUND_PLAYS
from ono99_tui.engine.record import Record, SeatSpec
from tests.cli import ono99

# 3 players, 3 cards each, a 9-card deck, a Double Play allowed as the first play
LOOP_RULES = """\
hand_size = 3
[deck]
number_each = 0
ten = 2
minus_ten = 1
reverse = 2
double_play = 1
ninety_nine = 3
hold = 0
[double_play]
no_double_on_first = false
[dealer]
first = "random"
"""
LIMIT_LINE = "play limit reached (R4.6)"


@pytest.fixture
def loop_rules(tmp_path):
    path = tmp_path / "loop.toml"
    path.write_text(LOOP_RULES)
    return path


def test_rules_check_accepts_the_looping_rule_set(loop_rules):
    assert ono99("rules", "check", str(loop_rules)).returncode == 0


def test_simulate_ends_and_reports_rounds_ended_by_the_play_limit(loop_rules):
    out = ono99("simulate", "--bots", "random,random,random", "--games", "30", "--rules", str(loop_rules),
                "--jobs", "1", timeout=60)
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if LIMIT_LINE in ln)
    assert int(line.split()[-2]) > 0  # "play limit reached (R4.6)   27   9.4%"


def test_rules_compare_ends_and_reports_the_play_limit(loop_rules):
    out = ono99("rules", "compare", str(loop_rules), "standard", "--games", "12", "--bots",
                "random,random,random", timeout=60)
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if LIMIT_LINE in ln)
    assert float(line.split()[-2].rstrip("%")) > 0 and line.split()[-1] == "0.0%"  # standard never does


def _game_with_a_play_limit_round(rules) -> Game:
    for seed in range(500):
        g = Game(["Ann", "Bo", "Cy"], rules, seed, record_events=False)
        rng = random.Random(seed)
        while not g.over:
            g.play(rng.choice(g.legal_plays()))
        if any(r["reason"] == "play-limit" for r in g.round_log):
            return g
    pytest.fail("random play no longer meets the loop on this rule set")


def test_replay_of_a_game_with_a_looping_round_ends_saying_so(loop_rules, tmp_path):
    g = _game_with_a_play_limit_round(load_rules_file(loop_rules))
    record = tmp_path / "looped.toml"
    record.write_text(Record.from_game(g, [SeatSpec(n) for n in g.names], {"rules": "loop"}).to_toml())
    out = ono99("replay", str(record), timeout=60)
    assert out.returncode == 0, out.stderr
    assert "had to play when the round hit its play limit (R4.6)" in out.stdout
    # the replay's closing lines: where the game ended, then the scores
    closing = [line for line in out.stdout.splitlines() if line.startswith("Game over after ")]
    assert len(closing) == 1 and re.fullmatch(r"Game over after \d+ rounds: \S.* wins\.", closing[0]), out.stdout


async def test_the_table_screen_plays_a_looping_round_to_its_end(loop_rules):
    """Bots only (the table is watched), bots without a delay: the looping first round of seed 8
    reaches the play limit and the round-end screen comes up; nothing hangs."""
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.screens.modals import RoundEndScreen
    from ono99_tui.tui.setup import TableSetup
    from textual.worker import WorkerCancelled

    rules = load_rules_file(loop_rules)
    seats = [SeatSpec("Ann", "bot:random"), SeatSpec("Bo", "bot:random"), SeatSpec("Cy", "bot:easy")]
    app = Ono99App(bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(TableSetup(seats, rules, "loop", seed=8))
        await pilot.pause()
        table = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        for _ in range(MAX_ROUND_PLAYS * 3):  # each turn: a bot worker, then its play on the UI thread
            if isinstance(app.screen, RoundEndScreen):
                break
            try:
                await app.workers.wait_for_complete()
            except WorkerCancelled:
                pass  # a bot's worker replaced by the next one (exclusive): that is the next turn
            await pilot.pause()
        assert isinstance(app.screen, RoundEndScreen)
        first = table.table.game.round_log[0]
        assert first["reason"] == "play-limit" and first["plays"] == MAX_ROUND_PLAYS


def test_a_seats_log_describes_redacted_draws_from_an_empty_pile_and_reshuffles():
    """Found by the table test above: a seat's copy of a draw from an empty pile had no "card"
    key, and of a reshuffle no "order"; the log's describe() raised KeyError (the table screen
    crashed when the draw pile ran out, which small decks do all the time)."""
    from ono99_tui.engine.describe import describe
    from ono99_tui.table import redact

    event = {"type": "draw", "seat": 1, "card": None}
    for seat in (None, 0):
        seen = redact.events_for([event], seat)[0]
        assert "nothing to draw" in describe(seen, ("Ann", "Bo", "Cy"), viewer=seat)
    assert describe({"type": "draw", "seat": 1, "hidden": False}, ("Ann", "Bo", "Cy")) is not None
    shuffle = {"type": "reshuffle", "round": 1, "order": ["10", "99", "reverse"]}
    for seat in (None, 0):
        seen = redact.events_for([shuffle], seat)[0]
        assert "order" not in seen and "(3 cards)" in describe(seen, ("Ann", "Bo", "Cy"), viewer=seat)
