"""Files raced by real processes (issue 20 items 4, 5): imports take distinct names by exclusive
create, statistics updates are serialised by a lock and every game is counted; names NFC-merged,
the stats table aligned by display width."""

import os
import subprocess
import sys
import time
import unicodedata


from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.stats import load_stats, stats_file, stats_lines
from ono99_tui.text import display_width
from tests.test_saves import SEATS, played

START_AT = "import time, sys\nt = float(sys.argv[1])\nwhile time.time() < t: time.sleep(0.001)\n"


def _run_together(scripts_args, timeout=120):
    """Start every process, each waiting for one shared moment, so they really race."""
    start = time.time() + 2.0
    procs = [subprocess.Popen([sys.executable, "-c", START_AT + code, str(start), *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for code, args in scripts_args]
    results = [p.communicate(timeout=timeout) + (p.returncode,) for p in procs]
    for out, err, code in results:
        assert code == 0 and "Traceback" not in err, err
    return results


def test_three_imports_at_once_make_three_saves(private_dirs, tmp_path):
    record = tmp_path / "friday.toml"
    record.write_text(Record.from_game(played(20), SEATS, {"name": "friday"}).to_toml())
    code = ("from ono99_tui.cli import main\n"
            "sys.exit(main(['saves', 'import', sys.argv[2]]))\n")
    for attempt in range(3):  # the race was lost 15 times in 26 before: three rounds of three
        results = _run_together([(code, [str(record)])] * 3)
        names = [out.strip() for out, _, _ in results]
        assert len(set(names)) == 3, names
    assert len(SaveStore().names()) == 9
    assert {n for n in SaveStore().names()} >= {"friday", "friday 2", "friday 3"}


def test_games_finishing_at_once_in_separate_processes_are_all_counted(private_dirs):
    # 4 processes at a time, 5 games each: 20 games, every one counted
    code = ("from ono99_tui.store.stats import record_game\n"
            "from tests.test_saves import SEATS, played\n"
            "game = played(10_000, seed=7)\n"
            "assert game.over\n"
            "for _ in range(5): record_game(game, SEATS)\n")
    _run_together([(code, [])] * 4)
    players, problem = load_stats()
    assert problem is None
    assert players["You"]["games"] == 20
    assert players["You"]["faced"]["easy"]["games"] == 20
    assert not os.path.exists(str(stats_file()) + ".lock")  # released


def test_a_name_in_two_unicode_forms_is_one_player_and_old_rows_merge(private_dirs):
    from ono99_tui.store.stats import record_game

    nfc, nfd = unicodedata.normalize("NFC", "Zoë"), unicodedata.normalize("NFD", "Zoë")
    assert nfc != nfd
    stats_file().parent.mkdir(parents=True)
    stats_file().write_text(f'[players."{nfd}"]\ngames = 2\nwins = 1\n[players."{nfc}"]\ngames = 3\nwins = 0\n',
                            encoding="utf-8")
    players, _ = load_stats()
    assert list(players) == [nfc] and players[nfc]["games"] == 5 and players[nfc]["wins"] == 1
    game = played(10_000, seed=7)
    record_game(game, [SeatSpec(nfd), *SEATS[1:]])
    players, _ = load_stats()
    assert list(players) == [nfc] and players[nfc]["games"] == 6


def test_the_stats_table_aligns_wide_names_by_display_width():
    faced = {"medium": {"games": 1000, "wins": 1000}, "random": {"games": 5, "wins": 1}}
    players = {"王小明王小明王小明王小明王小明王小明王小明王小明": {"games": 3, "wins": 1, "faced": faced},
               "Ann": {"games": 10, "wins": 5}, "Zoë": {"games": 1, "wins": 0},
               **{("Player from the northern" + str(i))[:23] + str(i): {"games": 1, "wins": 0} for i in range(3)}}
    lines = stats_lines(players)
    cut = [line[:20] for line in lines if line.startswith("Player")]
    assert len(cut) == 3 and len(set(cut)) == 3, lines  # 24-character names cut, and told apart
    widths = {display_width(line) for line in lines}
    assert max(widths) <= 80, lines
    # every row's "vs bots" column (after the counts) starts at the same display column
    ends = {display_width(line.rstrip().rsplit("  ", 1)[0]) for line in lines if not line.startswith(" ")}
    assert len(ends) == 1, lines


def test_new_names_chosen_at_once_in_separate_processes_are_distinct(private_dirs):
    code = ("from ono99_tui.store.saves import SaveStore\n"
            "store = SaveStore()\n"
            "print('\\n'.join(store.new_name() for _ in range(20)))\n")
    results = _run_together([(code, [])] * 3)
    names = [line for out, _, _ in results for line in out.split("\n") if line]
    assert len(names) == 60 and len(set(names)) == 60


def test_a_save_made_by_another_ono99_right_after_the_name_check_is_not_replaced(private_dirs, tmp_path,
                                                                                  monkeypatch):
    """The race of three imports, made certain: another process creates "friday" just after this
    one has looked and found the name free. Its save must survive, and this import take another name."""
    store = SaveStore()
    record = tmp_path / "friday.toml"
    record.write_text(Record.from_game(played(20), SEATS, {"name": "friday"}).to_toml())
    theirs = Record.from_game(played(7, seed=8), SEATS, {"name": "friday"}).to_toml()
    real = SaveStore._exists
    raced = []

    def exists_then_someone_else_writes(path):
        found = real(path)
        if not found and path.name == "friday.toml" and not raced:
            raced.append(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(theirs)  # the other ono99, between our look and our write
        return found

    monkeypatch.setattr(SaveStore, "_exists", staticmethod(exists_then_someone_else_writes))
    name = store.import_file(record)
    assert raced and name == "friday 2"
    assert store.path("friday").read_text() == theirs
    assert store.load("friday 2").play_count == 20
