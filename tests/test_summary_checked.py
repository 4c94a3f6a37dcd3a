"""Summaries checked (issue 20, table row 7 and the Build bullet): `saves list` stays a cheap read,
so it shows a summary as checked only once an open or `saves check` has confirmed it; `resume`
never trusts a summary over the plays. The forged summaries here carry a digest made anew (what a
sync tool merging two versions, or someone with the code in hand, leaves): the digest alone cannot
tell them from the real thing. As a user runs it: `ono99` subprocesses (tests/cli.py)."""

import re

from ono99_tui.engine.record import DIGEST_KEY, Record, digest, toml_string
from ono99_tui.store.saves import SaveStore
from tests.cli import ono99
from tests.steps import SEATS, finished_game, mid_round_save


def resealed(text: str) -> str:
    first, sep, rest = text.partition("\n")
    _, _, body = rest.partition("\n")
    return first + sep + DIGEST_KEY + toml_string(digest(first + sep + body)) + "\n" + body


def forge(path, finished: bool, winner: str | None) -> None:
    text = path.read_text()
    at = text.index("[summary]")
    summary = re.sub(r'\nwinner = "[^"]*"', "", text[at:], count=1)
    summary = re.sub(r"\nfinished = (true|false)", f"\nfinished = {'true' if finished else 'false'}"
                     + (f'\nwinner = "{winner}"' if winner else ""), summary, count=1)
    path.write_text(resealed(text[:at] + summary))


def test_a_forged_summary_is_listed_as_unchecked_until_saves_check_confirms_the_plays(private_dirs):
    store = SaveStore()
    mid_round_save(store)
    store.path("friday").with_name("friday.toml.journal").unlink()
    assert "(*)" not in ono99("saves", "list").stdout  # written by ono99 from a game: checked
    forge(store.path("friday"), finished=False, winner="Bo")
    listed = ono99("saves", "list")
    assert listed.returncode == 0
    assert "Bo won" in listed.stdout and "round 3 (*)" in listed.stdout  # the file's word, marked
    assert "not yet checked against its plays" in listed.stdout
    checked = ono99("saves", "check")
    # as the file spells it: not Python's None nor 'Bo'
    assert checked.returncode == 2 and 'its [summary] says winner = "Bo" (the plays: none)' in checked.stdout
    listed = ono99("saves", "list")
    assert "(*)" not in listed.stdout and "Bo won" not in listed.stdout  # the plays' word now


def test_resume_opens_an_unfinished_game_whose_summary_says_finished(private_dirs):
    """`resume` picked the latest unfinished save by its summary: one claiming to be finished was
    skipped ("no unfinished game to resume") though its plays are mid-game."""
    store = SaveStore()
    mid_round_save(store)
    forge(store.path("friday"), finished=True, winner="Bo")
    proc = ono99("resume", "--plain", input="q\nq\n")
    assert proc.returncode == 0, proc.stderr
    assert "Resuming friday" in proc.stdout and "The game is over" not in proc.stdout
    assert "finished" not in ono99("saves", "list").stdout  # the open put the listing right


def test_resume_skips_a_finished_game_whose_summary_says_unfinished(private_dirs):
    store = SaveStore()
    store.write("done", Record.from_game(finished_game(), SEATS, {}))
    forge(store.path("done"), finished=False, winner=None)
    (store.folder / ".index.json").unlink(missing_ok=True)
    assert "(*)" in ono99("saves", "list").stdout
    proc = ono99("resume", "--plain", input="q\nq\n")
    assert proc.returncode == 2 and "no unfinished game to resume" in proc.stderr
    assert "finished, Bo won" in ono99("saves", "list").stdout


def test_an_imported_save_is_checked_by_the_import(private_dirs, tmp_path):
    """The import replays the record play by play and writes the summary its plays give."""
    from tests.steps import record_file

    record_file(tmp_path / "in.toml")
    assert ono99("saves", "import", str(tmp_path / "in.toml")).returncode == 0
    listed = ono99("saves", "list")
    assert listed.returncode == 0 and "friday" in listed.stdout and "(*)" not in listed.stdout, listed.stdout
