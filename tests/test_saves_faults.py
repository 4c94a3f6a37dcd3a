"""The save store under faults and at scale (issues 14 and 15): locks, stale locks, odd files in
saves/, write errors, retrying after a failure, leftover temp files, device names, the journal,
the listing's summary and index, resume replaying once, older record versions."""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ono99_tui.store.files import load_record
from ono99_tui import cli
from ono99_tui.engine import Game
from ono99_tui.engine.record import Record
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store import saves as saves_mod
from ono99_tui.store.journal import journal_path
from ono99_tui.store.lock import Lock
from ono99_tui.store.saves import SaveError, SaveStore, check_name
from ono99_tui.store.session import SaveSession, rebuild
from tests.cli import ono99
from tests.test_saves import SEATS, played, save
from tests.waits import load_screen


@pytest.fixture
def store(private_dirs):
    return SaveStore()


def run_cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# -- locks (issue 15 items 3 and 4) -------------------------------------------------------------

LOCKER = r"""
import sys
from pathlib import Path
from ono99_tui.store.lock import Lock
print("ready", flush=True)
sys.stdin.readline()  # the start line: every opener is up and waiting, then all go at once
lock = Lock(Path(sys.argv[1]))
print("got" if lock.acquire() else "refused", flush=True)
sys.stdin.readline()  # hold the lock until every opener has answered
"""


def test_only_one_of_many_simultaneous_openers_gets_the_lock(store):
    """Issue 15.3: check-delete-create let 23 of 300 openers in together; flock lets exactly one.
    The openers start together on a pipe handshake (each says it is ready, then all are told to go)."""
    save(store)
    procs = [subprocess.Popen([sys.executable, "-c", LOCKER, str(store.path("friday"))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(8)]
    try:
        assert [p.stdout.readline().strip() for p in procs] == ["ready"] * 8
        for p in procs:
            p.stdin.write("go\n")
            p.stdin.flush()
        results = [p.stdout.readline().strip() for p in procs]
        for p in procs:
            p.stdin.write("done\n")
            p.stdin.flush()
        for p in procs:
            assert p.wait(timeout=30) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert sorted(results) == ["got"] + ["refused"] * 7


@pytest.mark.parametrize("content", ["", "12345@some-other-host\n", "garbage\x00", None])
def test_a_lock_file_nobody_holds_is_taken_over(store, content):
    """Issue 15.4: an empty lock (full disk), another host's, a reused live PID: none is held, so none
    keeps the save read-only or stops `saves delete`."""
    save(store)
    lock_path = store.path("friday").with_name("friday.toml.lock")
    lock_path.write_text(content if content is not None else f"{os.getppid()}@{socket.gethostname()}\n")
    session = SaveSession(store, "friday", SEATS, "standard")
    assert session.open() is None and not session.read_only
    session.close()
    lock_path.write_text(content or "")
    store.delete("friday")
    assert store.names() == []


def test_a_held_lock_names_its_owner_and_refuses_delete_and_rename(store):
    save(store)
    lock = Lock(store.path("friday"))
    assert lock.acquire()
    try:
        holder = subprocess.run([sys.executable, "-c", (
            "from pathlib import Path; from ono99_tui.store.lock import Lock;"
            f"l = Lock(Path({str(store.path('friday'))!r})); print(l.held_by_other(), l.acquire())")],
            capture_output=True, text=True, timeout=30)
        assert holder.stdout.split() == ["True", "False"]
        code = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "delete", "friday"],
                              capture_output=True, text=True, timeout=60)
        assert code.returncode == 2 and f"{os.getpid()}@" in code.stderr and "close it there first" in code.stderr
    finally:
        lock.release()
    assert not lock.path.exists()


# -- odd files in saves/ (issue 15 item 10) ---------------------------------------------------------

def test_a_dangling_symlink_is_listed_as_damaged_not_a_crash(store, capsys):
    save(store, "good")
    os.symlink(store.folder / "nowhere.toml", store.folder / "ghost.toml")
    infos = {i.name: i for i in store.listing()}
    assert infos["good"].damaged is None
    assert "a link, not a save" in infos["ghost"].damaged  # never followed (issue 20)
    code, out, err = run_cli(capsys, "saves", "list")
    assert code == 0 and "ghost  [damaged]" in out
    store.delete("ghost")
    assert not os.path.lexists(store.folder / "ghost.toml")


def test_a_save_deleted_while_the_folder_is_being_listed_is_skipped(store, monkeypatch):
    save(store, "stays")
    save(store, "goes")
    real_scandir = os.scandir

    class Vanishing:
        def __init__(self, folder):
            self.entries = list(real_scandir(folder))
            (Path(folder) / "goes.toml").unlink()  # another ono99 deletes it after the scan

        def __enter__(self):
            return iter(self.entries)

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(saves_mod.os, "scandir", Vanishing)
    assert [i.name for i in store.listing()] == ["stays"]


def test_a_fifo_in_saves_is_listed_as_not_a_file_and_never_opened(store):
    save(store, "good")
    os.mkfifo(store.folder / "pipe.toml")
    infos = {i.name: i for i in store.listing()}  # would hang if it were opened
    assert infos["pipe"].damaged == "not a regular file"
    with pytest.raises(SaveError, match="not a regular file"):
        store.load("pipe")


def test_an_unreadable_saves_folder_is_reported_as_such(private_dirs, capsys):
    """Issue 15.13: not "No saved games"."""
    data = private_dirs / "data"
    data.mkdir()
    (data / "saves").write_text("a file where the folder should be")
    code, out, err = run_cli(capsys, "saves", "list")
    assert code == 2 and "cannot read the saves folder" in err and "No saved games" not in out
    code, out, err = run_cli(capsys, "resume")
    assert code == 2 and "cannot read the saves folder" in err


async def test_the_menu_says_the_saves_folder_cannot_be_read(private_dirs):
    from ono99_tui.tui.app import Ono99App

    data = private_dirs / "data"
    data.mkdir()
    (data / "saves").write_text("not a folder")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        prompts = [str(o.prompt) for o in app.screen.query_one("#menu").options]
        assert "Load... (cannot read the saves folder)" in prompts
        assert "cannot read the saves folder" in str(app.screen.query_one("#menu-note").render())


# -- write errors (issue 15 item 11) -----------------------------------------------------------------

def test_delete_and_import_on_an_unwritable_folder_exit_2_with_a_message(store, monkeypatch, capsys, tmp_path):
    save(store)
    source = tmp_path / "in.toml"
    source.write_text(store.path("friday").read_text())
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: (_ for _ in ()).throw(
        PermissionError(13, "Permission denied")))
    code, out, err = run_cli(capsys, "saves", "delete", "friday")
    assert code == 2 and "cannot delete" in err and "Permission denied" in err
    monkeypatch.undo()
    monkeypatch.setattr("ono99_tui.store.atomic.tempfile.mkstemp",
                        lambda **kw: (_ for _ in ()).throw(PermissionError(13, "Permission denied")))
    code, out, err = run_cli(capsys, "saves", "import", str(source))
    assert code == 2 and "cannot save to" in err and "Permission denied" in err


async def test_load_screen_delete_and_rename_failures_are_notices_not_crashes(store, monkeypatch):
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.load import LoadScreen

    save(store, "friday")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await load_screen(pilot)
        assert isinstance(screen, LoadScreen)
        monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: (_ for _ in ()).throw(
            PermissionError(13, "Permission denied")))
        monkeypatch.setattr(saves_mod.os, "replace", lambda a, b: (_ for _ in ()).throw(
            PermissionError(13, "Permission denied")))
        monkeypatch.setattr(saves_mod.os, "link", lambda a, b, **kw: (_ for _ in ()).throw(
            PermissionError(13, "Permission denied")))  # rename links the new name in (crash-safe)
        await pilot.press("d")
        await pilot.pause()
        await pilot.click("#btn-delete")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        from textual.widgets import Input

        app.screen.query_one(Input).value = "renamed"
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        # a rename refused says why in its dialog, which stays open for another name
        assert "cannot rename" in str(app.screen.query_one("#name-error").render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LoadScreen)
        messages = [str(n.message) for n in app._notifications]
        assert any("cannot delete" in m for m in messages)
    monkeypatch.undo()
    assert store.names() == ["friday"]


def test_saving_is_retried_after_a_failure_and_says_when_it_works_again(store, monkeypatch):
    """Issue 15.11: one failed save no longer turns saving off for the rest of the game."""
    game = played(10)
    session = SaveSession(store, "retry", SEATS, "standard")
    assert session.open() is None
    assert session.save(game) is None
    real = saves_mod.write_atomic
    monkeypatch.setattr(saves_mod, "write_atomic", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    monkeypatch.setattr("ono99_tui.store.journal.os.write", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    game = played(14)  # a new game object: the session rewrites the record
    warning = session.save(game)
    assert warning and "No space left" in warning and "tried again" in warning
    assert session.failed
    assert session.save(played(15)) is None  # said once
    monkeypatch.setattr(saves_mod, "write_atomic", real)
    monkeypatch.undo()
    later = played(18)
    assert "Saving again" in session.save(later)
    assert session.failed is None
    session.close()
    assert store.load("retry").play_count == 18


def test_temp_files_left_by_a_kill_are_removed(store):
    save(store, "friday")
    old = store.folder / ".friday.toml.abc123.tmp"
    other = store.folder / ".other.toml.zz.tmp"
    fresh = store.folder / ".other.toml.new.tmp"
    for p in (old, other, fresh):
        p.write_text("half a save")
    past = time.time() - 3600
    os.utime(other, (past, past))
    store.listing()
    assert not other.exists() and fresh.exists()  # a young one may be another ono99's write in progress
    assert old.exists()
    session = SaveSession(store, "friday", SEATS, "standard")
    session.open()  # its own temps: nobody else writes a locked save
    assert not old.exists()
    session.close()


@pytest.mark.parametrize("name", ["CON", "nul", "Aux", "LPT1", "com9", "prn ", "COM¹", "lpt³"])
def test_windows_device_names_are_refused(name):
    with pytest.raises(SaveError, match="device name"):
        check_name(name)


def test_names_that_merely_start_like_devices_are_fine():
    assert check_name("console") == "console" and check_name("LPT10") == "LPT10"


# -- the journal (issue 14: autosave cost independent of the game's length) --------------------------

def test_autosave_appends_to_the_journal_and_folds_at_round_ends_and_on_close(store):
    game = Game([s.name for s in SEATS], DEFAULT, 4)
    rng = random.Random(4)
    session = SaveSession(store, "long", SEATS, "standard")
    session.open()
    session.save(game)
    path = store.path("long")
    writes = 0
    last = path.stat().st_mtime_ns
    round_no = game.round_no
    while not game.over and len(game.plays) < 80:
        game.play(rng.choice(game.legal_plays()))
        session.save(game)
        session.wait()  # the round-end fold is written by the session's writer thread
        mtime = path.stat().st_mtime_ns
        if mtime != last:
            writes += 1
            assert game.round_no != round_no or game.over  # the record is rewritten at round ends only
            last = mtime
        round_no = game.round_no
        assert store.load("long").play_count == len(game.plays)  # nothing acknowledged is missing
    assert journal_path(path).exists() and load_record(path).play_count < len(game.plays)
    session.close()
    assert not journal_path(path).exists()
    assert load_record(path).play_count == len(game.plays)  # folded: the file alone is the whole game


def test_the_round_end_fold_is_written_off_the_callers_thread_and_close_waits_for_it(store, monkeypatch):
    """Issue 14: autosave ran the round-end fold (the whole record, two fsyncs) on the UI thread.
    Now save() appends the play to the journal (durable when it returns) and a writer thread
    rewrites the record; close() waits for it, so leaving writes everything."""
    import threading

    real = saves_mod.write_atomic
    writers, release, stalled = [], threading.Event(), threading.Event()

    def slow_write(path, text, *a, **k):
        writers.append(threading.current_thread().name)
        if len(writers) > 1:
            stalled.set()
            release.wait(10)  # a disk that takes its time
        return real(path, text, *a, **k)

    monkeypatch.setattr(saves_mod, "write_atomic", slow_write)
    game = Game([s.name for s in SEATS], DEFAULT, 4)
    rng = random.Random(4)
    session = SaveSession(store, "threads", SEATS, "standard")
    session.open()
    session.save(game)  # the first write, synchronous: it starts the journal
    start_round = game.round_no
    while game.round_no == start_round:
        game.play(rng.choice(game.legal_plays()))
        t = time.perf_counter()
        session.save(game)
        assert time.perf_counter() - t < 5  # never waits for the stalled writer
    for _ in range(3):  # the game goes on while the record is being written
        game.play(rng.choice(game.legal_plays()))
        session.save(game)
        assert store.load("threads").play_count == len(game.plays)  # every play durable meanwhile
    assert stalled.wait(10), "the round-end fold never reached the disk"  # (a watchdog, not a timing)
    assert writers[0] == threading.current_thread().name and writers[1] != writers[0]
    release.set()
    session.close()
    assert not journal_path(store.path("threads")).exists()
    assert load_record(store.path("threads")).play_count == len(game.plays)


def test_a_failed_round_end_fold_is_retried_and_reported(store, monkeypatch):
    game = Game([s.name for s in SEATS], DEFAULT, 4)
    rng = random.Random(4)
    session = SaveSession(store, "bg-fail", SEATS, "standard")
    session.open()
    session.save(game)
    real = saves_mod.write_atomic
    monkeypatch.setattr(saves_mod, "write_atomic", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    start_round = game.round_no
    while game.round_no == start_round:
        game.play(rng.choice(game.legal_plays()))
        assert session.save(game) is None
    session.wait()
    game.play(rng.choice(game.legal_plays()))
    warning = session.save(game)  # the writer failed: the record is rewritten now, and fails again
    assert warning and "No space left" in warning
    assert store.load("bg-fail").play_count == len(game.plays) - 1  # the journal kept all but this one
    monkeypatch.setattr(saves_mod, "write_atomic", real)
    game.play(rng.choice(game.legal_plays()))
    assert "Saving again" in session.save(game)
    session.close()
    assert load_record(store.path("bg-fail")).play_count == len(game.plays)


def test_a_journal_from_before_the_last_write_is_ignored(store):
    """Undo rewrites the record with fewer plays; a journal left from before must not bring them
    back. The stale journal is whole and its plays are the legal continuation of the record
    (the undone ones): only its id, which the record no longer names, refuses them."""
    game = played(20)
    session = SaveSession(store, "undo", SEATS, "standard")
    session.open()
    session.save(game)  # the record: 20 plays
    rng = random.Random(5)
    round_no = game.round_no
    while len(game.plays) < 30:
        game.play(rng.choice(game.legal_plays()))
        if game.round_no != round_no:
            break
        session.save(game)  # plays 21.., in the journal (a round end would fold them in)
    game = rebuild(game, len(game.plays) - (game.round_no != round_no))
    session.wait()
    stale = journal_path(store.path("undo")).read_bytes()
    stale_id = stale.split(b" ")[2].decode()
    extra = len(game.plays) - 20
    assert extra >= 3 and stale.count(b"\n") == 1 + extra and load_record(store.path("undo")).play_count == 20
    back = rebuild(game, 20)
    session.undo_used = True
    session.save(back)
    session.wait()
    record = load_record(store.path("undo"))
    assert record.play_count == 20 and record.meta["journal"] != stale_id
    journal_path(store.path("undo")).write_bytes(stale)
    _, opened = store.open_game("undo")
    assert opened.plays == back.plays
    # the control: named by the record, the same journal's plays are read and legal
    record.meta["journal"] = stale_id
    store.write("undo", record)
    _, opened = store.open_game("undo")
    assert opened.plays == game.plays
    session.close()


def test_a_line_cut_short_in_the_journal_loses_only_that_play(store):
    g = Game([s.name for s in SEATS], DEFAULT, 3)
    rng = random.Random(3)
    session = SaveSession(store, "cut", SEATS, "standard")
    session.open()
    session.save(g)
    for _ in range(4):
        g.play(rng.choice(g.legal_plays()))
        session.save(g)
    assert g.round_no == 1, "the plays must stay in round 1 for this test"
    jp = journal_path(store.path("cut"))
    assert jp.read_text().count("\n") == 5  # the header and one line per play
    jp.write_bytes(jp.read_bytes() + b'[5, 1, "B')  # the play in flight when the power went
    assert store.load("cut").play_count == 4


JOURNAL_CHILD = r"""
import random, sys
from ono99_tui.engine import Game
from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.session import SaveSession
seats = [SeatSpec("A"), SeatSpec("B", "bot:easy"), SeatSpec("C", "bot:easy"), SeatSpec("D", "bot:easy")]
seed = int(sys.argv[1])
rng = random.Random(seed)
g = Game([s.name for s in seats], DEFAULT, seed)
session = SaveSession(SaveStore(), "victim", seats, "standard")
session.open()
session.save(g)
while not g.over:
    g.play(rng.choice(g.legal_plays()))
    session.save(g)
    sys.stdout.write(f"{len(g.plays)}\n"); sys.stdout.flush()
"""


def test_sigkill_during_journaled_autosave_never_loses_more_than_the_play_in_flight(store):
    """The kill test through the table's own path: journal appends and folds, killed at random."""
    rng = random.Random(2)
    for attempt in range(60):
        proc = subprocess.Popen([sys.executable, "-c", JOURNAL_CHILD, str(attempt % 7)],
                                stdout=subprocess.PIPE, text=True)
        first = proc.stdout.readline()
        acked = int(first) if first.strip() else 0
        deadline = time.monotonic() + rng.uniform(0.0, 0.08)
        while time.monotonic() < deadline:
            time.sleep(0.001)
        os.kill(proc.pid, signal.SIGKILL)
        lines = [ln for ln in proc.stdout.read().splitlines() if ln.strip().isdigit()]
        proc.wait()
        if lines:
            acked = int(lines[-1])
        record = store.load("victim")
        assert record.play_count >= acked, (attempt, record.play_count, acked)
        store.delete("victim")


# -- listing from the summary; saves check; older versions ----------------------------------------------

def test_listing_reads_the_summary_not_the_plays(store, monkeypatch):
    save(store, "a", plays=40)
    save(store, "b", plays=12, seed=5)
    monkeypatch.setattr(Record, "replay", lambda *a, **k: pytest.fail("listing replayed a save"))
    infos = {i.name: i for i in store.listing()}
    assert infos["a"].round >= 1 and "You" in infos["a"].players and "token" in infos["a"].scores


def test_the_index_is_used_while_current_and_refreshed_when_a_save_changes(store, monkeypatch):
    save(store, "a", plays=10)
    first = store.listing()
    assert (store.folder / ".index.json").exists()
    calls = []
    real = saves_mod._fill
    monkeypatch.setattr(saves_mod, "_fill", lambda *a: calls.append(a[0].name) or real(*a))
    assert [i.round for i in store.listing()] == [first[0].round]
    assert calls == []
    g = save(store, "a", plays=60)
    time.sleep(0.01)
    info = store.listing()[0]
    assert calls == ["a"] and info.round == g.round_no
    assert info.checked  # ono99 wrote it from a game (saves/.checked said so): no "(*)" in saves list
    assert [i.checked for i in store.listing()] == [True] and calls == ["a"]  # kept in the index


def test_a_hand_edited_save_is_replayed_to_list_it(store):
    """The digest no longer matches: the summary is not trusted, the plays are."""
    save(store, "edited", plays=30)
    path = store.path("edited")
    text = path.read_text().replace("round = ", "round = 9")
    path.write_text(text)
    info = store.listing()[0]
    assert info.damaged is None and info.round < 9


def test_a_save_found_damaged_when_opened_is_listed_as_damaged(store, monkeypatch):
    save(store, "sly", plays=20)
    from ono99_tui.engine.record import RecordError

    monkeypatch.setattr(Record, "replay", lambda *a, **k: (_ for _ in ()).throw(RecordError("play 3: bad")))
    assert store.listing()[0].damaged is None  # the summary looked fine
    with pytest.raises(SaveError, match="play 3: bad"):
        store.load("sly")
    assert store.listing()[0].damaged == "play 3: bad"


def test_saves_check_replays_every_save_and_names_the_damaged_ones(store, capsys):
    save(store, "good")
    save(store, "bad", plays=20)
    path = store.path("bad")
    lines = path.read_text().splitlines()
    i = max(k for k, ln in enumerate(lines) if ln.strip().startswith('"'))
    lines[i] = '    "You: 99",'
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(capsys, "saves", "check")
    assert code == 2
    assert "good: ok" in out and "bad: damaged: play" in out and "1 ok, 1 damaged" in out


def test_a_version_1_save_opens_lists_and_is_upgraded_when_next_written(store):
    g = played(25)
    record = Record.from_game(g, SEATS, {"rules": "standard", "finished": False})
    doc = record.to_dict()
    doc["version"] = 1
    doc.pop("summary")
    import tomli_w

    store.folder.mkdir(parents=True)
    store.path("old").write_text("# an ono99 1.0 save\n" + tomli_w.dumps(doc))
    info = store.listing()[0]
    assert info.damaged is None and info.round == g.round_no
    loaded, game = store.open_game("old")
    assert game.plays == g.plays
    session = SaveSession(store, "old", SEATS, "standard")
    session.open()
    session.save(game)
    session.close()
    text = store.path("old").read_text()
    assert "version = 3" in text and "[summary]" in text


def test_resume_replays_the_save_once_and_keeps_only_the_last_rounds_events(store, monkeypatch):
    g = played(200, seed=6)
    store.write("long", Record.from_game(g, SEATS, {"rules": "standard"}))
    calls = []
    real = Record.replay

    def counting(self, *a, **k):
        calls.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(Record, "replay", counting)
    record, game = store.open_game("long", events_from_round=-1)
    assert len(calls) == 1 and game.plays == g.plays
    rounds = {e["round"] for e in game.events if e["type"] == "play"}
    assert rounds == {game.round_no - 1, game.round_no} or rounds == {game.round_no}


def test_winner_is_named_as_winner_not_as_a_bare_zero(store, capsys, tmp_path):
    """Issue 12 words: `saves list`/`replay` showed the winner as "Bo 0"."""
    rules = DEFAULT
    g = Game([s.name for s in SEATS], rules, 2)
    rng = random.Random(2)
    while not g.over:
        g.play(rng.choice(g.legal_plays()))
    store.write("done", Record.from_game(g, SEATS, {"rules": "standard", "finished": True}))
    winner = g.names[g.winner]
    code, out, err = run_cli(capsys, "saves", "list")
    assert f"finished, {winner} won" in out and f"{winner} won (" in out
    assert f"{winner} {g.tokens[g.winner]}," not in out and not out.rstrip().endswith(f"{winner} 0")
    code, out, err = run_cli(capsys, "replay", str(store.path("done")))
    assert code == 0 and f"{winner} won (" in out


def _version_1_save(store, name, plays, seed=3, finished=False):
    import tomli_w

    g = played(plays, seed)
    doc = Record.from_game(g, SEATS, {"rules": "standard", "finished": finished}).to_dict()
    doc["version"] = 1
    doc.pop("summary")
    store.folder.mkdir(parents=True, exist_ok=True)
    store.path(name).write_text("# an ono99 1.0 save\n" + tomli_w.dumps(doc))
    return g


async def test_the_menu_reads_the_saves_once_and_never_replays_on_the_ui_thread(store, monkeypatch):
    """Issue 14: menu_available ran twice per visit, and peeking an unmarked save replayed it."""
    from ono99_tui.tui.app import Ono99App

    _version_1_save(store, "old", 20)
    monkeypatch.setattr(Record, "replay", lambda *a, **k: pytest.fail("the menu replayed a save"))
    calls = []

    class Counting(Ono99App):
        def menu_available(self, found=None):
            calls.append(1)
            return super().menu_available(found)

    app = Counting(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert len(calls) == 1 and app.continue_name == "old"
        app.menu_choice("settings")
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert len(calls) == 2
    # what the menu learned is indexed only as a partial entry: Load still reads the whole line
    entry = json.loads((store.folder / ".index.json").read_text())["saves"]["old"]
    assert entry["partial"] is True and entry["info"]["finished"] is False


async def test_the_menu_indexes_version_1_saves_and_reads_many_in_a_worker(store, monkeypatch):
    """Issue 14: the menu re-read every version-1 save on every visit (nothing it learned was
    indexed), all of them on the UI thread. Now at most MENU_READS on the UI thread, the rest in a
    worker that indexes them; the second visit costs a directory listing (no save is parsed)."""
    import threading

    from ono99_tui.tui import app as app_mod
    from ono99_tui.tui.app import Ono99App

    for i in range(30):
        _version_1_save(store, f"old {i:02d}", 30, seed=i, finished=True)
        os.utime(store.path(f"old {i:02d}"), (1_000_000 + i, 1_000_000 + i))
    _version_1_save(store, "oldest unfinished", 8, seed=99)
    os.utime(store.path("oldest unfinished"), (900_000, 900_000))
    parsed = {"ui": 0, "worker": 0}
    real = Record.loads.__func__
    main = threading.main_thread()

    def counting(cls, *a, **k):
        parsed["ui" if threading.current_thread() is main else "worker"] += 1
        return real(cls, *a, **k)

    monkeypatch.setattr(Record, "loads", classmethod(counting))
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert parsed["ui"] <= app_mod.MENU_READS
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.continue_name == "oldest unfinished"  # found by the worker; the menu refreshed
        assert parsed["ui"] + parsed["worker"] >= 31
        options = {o.id: o for o in app.screen.query_one("#menu").options}
        assert not options["continue"].disabled
        parsed.update(ui=0, worker=0)
        app.menu_choice("settings")
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert parsed == {"ui": 0, "worker": 0} and app.continue_name == "oldest unfinished"


def test_save_as_from_a_read_only_save_copies_it_and_leaves_the_other_ono99s_save(store):
    save(store, "theirs", plays=10)
    holder = Lock(store.path("theirs"))
    # another process holds it: simulate with a child
    child = subprocess.Popen([sys.executable, "-c", (
        "import time; from pathlib import Path; from ono99_tui.store.lock import Lock;"
        f"l = Lock(Path({str(store.path('theirs'))!r})); print(l.acquire(), flush=True); time.sleep(20)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "True"
        session = SaveSession(store, "theirs", SEATS, "standard")
        assert "read-only" in session.open()
        assert session.save_as(played(12), "mine") == "mine"
        assert sorted(store.names()) == ["mine", "theirs"]  # theirs is not ours to remove
        session.close()
    finally:
        child.kill()
        child.wait()
    assert not holder.mine


def test_without_flock_the_lock_falls_back_to_a_pid_file(store, monkeypatch):
    """Some network file systems refuse flock: saving must not stop, and an empty lock is nobody's."""
    import errno

    from ono99_tui.store import lock as lock_mod

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(lock_mod.fcntl, "flock", no_flock)
    save(store)
    lock_path = store.path("friday").with_name("friday.toml.lock")
    lock_path.write_text("")
    session = SaveSession(store, "friday", SEATS, "standard")
    assert session.open() is None and not session.read_only
    assert lock_path.read_text().startswith(f"{os.getpid()}@")
    session.close()
    assert not lock_path.exists()
    lock_path.write_text(f"1@{socket.gethostname()}-elsewhere\n")
    other = SaveSession(store, "friday", SEATS, "standard")
    message = other.open()
    assert "1@" in message and other.read_only  # another host's: cannot be checked, so kept...
    assert f"delete {lock_path}" in message  # ...and the player is told exactly what to do
    with pytest.raises(SaveError, match="if no ono99 has it open, delete"):
        store.delete("friday")


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=int(os.environ.get("ONO99_FUZZ", 40)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_damaged_journal_or_index_never_crashes_and_never_adds_a_wrong_play(store, data):
    """Fuzz of the two new files the store reads: the journal and saves/.index.json."""
    if not store.path("fuzz").exists():
        g = Game([s.name for s in SEATS], DEFAULT, 5)
        rng = random.Random(5)
        session = SaveSession(store, "fuzz", SEATS, "standard")
        session.open()
        session.save(g)
        for _ in range(6):
            g.play(rng.choice(g.legal_plays()))
            session.save(g)
        session._drop_journal()  # as if killed: the journal stays
        session.lock.release()
        store.path("fuzz").with_name("fuzz.toml.journal.good").write_bytes(journal_path(store.path("fuzz")).read_bytes())
    good = store.path("fuzz").with_name("fuzz.toml.journal.good").read_bytes()
    raw = bytearray(good)
    for _ in range(data.draw(st.integers(0, 6))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    raw = bytes(raw[: data.draw(st.integers(0, len(raw)))]) + data.draw(st.binary(max_size=40))
    journal_path(store.path("fuzz")).write_bytes(raw)
    (store.folder / ".index.json").write_bytes(data.draw(st.binary(max_size=200)))
    try:
        record = store.load("fuzz")
    except SaveError:
        pass  # a journal whose plays break the rules: reported, never a traceback
    else:
        assert record.play_count <= 6
    infos = store.listing()
    assert [i.name for i in infos] == ["fuzz"] and infos[0].damaged is None


def test_a_journal_play_that_breaks_the_rules_ends_the_journal_and_keeps_the_plays_before_it(store):
    g = Game([s.name for s in SEATS], DEFAULT, 5)
    rng = random.Random(5)
    session = SaveSession(store, "bent", SEATS, "standard")
    session.open()
    session.save(g)
    for _ in range(5):
        g.play(rng.choice(g.legal_plays()))
        session.save(g)
    assert g.round_no == 1
    jp = journal_path(store.path("bent"))
    lines = jp.read_text().splitlines()
    n, rnd, name, card = json.loads(lines[3].partition(" ")[2])
    plays = [json.loads(line.partition(" ")[2]) for line in lines[1:]]
    plays[2] = [n, rnd, name, "99" if card != "99" else "hold"]  # not in that hand, or not legal
    jp.write_text(rechained(lines[0], plays))  # check values made to fit: the engine still refuses it
    record, game = store.open_game("bent")
    assert game.plays == g.plays[:2] and record.play_count == 2
    assert store.listing()[0].damaged is None


def rechained(header: str, plays: list) -> str:
    """A journal whose check values fit ``plays`` (what only someone with the code in hand does)."""
    from ono99_tui.store.journal import play_line

    previous, out = header.split(" ")[3], [header + "\n"]
    for play in plays:
        line, previous = play_line(tuple(play), previous)
        out.append(line.decode())
    return "".join(out)


async def test_continue_on_a_save_found_damaged_says_why_and_stops_offering_it(store, monkeypatch):
    from ono99_tui.engine.record import RecordError
    from ono99_tui.tui.app import Ono99App

    save(store, "sly", plays=20)
    monkeypatch.setattr(Record, "replay", lambda *a, **k: (_ for _ in ()).throw(RecordError("play 3: bad")))
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert type(app.screen).__name__ == "MenuScreen"
        assert any("play 3: bad" in str(n.message) for n in app._notifications)
        prompts = [str(o.prompt) for o in app.screen.query_one("#menu").options]
        assert "Continue (no unfinished game)" in prompts


# -- opening a save writes nothing -----------------------------------------------------------------

def _finished_and_unfinished(store):
    done = played(10_000, seed=5)
    assert done.over
    store.write("done", Record.from_game(done, SEATS, {"rules": "standard", "finished": True}))
    save(store, "open game", plays=12, seed=6)
    stamps = {n: (store.path(n).stat().st_mtime_ns, store.path(n).read_text()) for n in ("done", "open game")}
    return stamps


def test_opening_a_save_and_closing_it_writes_nothing(store):
    """Issue 14: attaching a table to a save it was just read from folded it again ("nothing written
    yet"): merely opening a finished game bumped its mtime and saved_at and moved it up the list."""
    from ono99_tui.table.session import TableSession

    stamps = _finished_and_unfinished(store)
    order = store.names()
    time.sleep(0.02)  # so a rewrite would show in mtime_ns
    for name in ("done", "open game"):
        record, game = store.open_game(name, events_from_round=-1)
        table = TableSession(record.seats, record.rules, record.seed, game=game)
        assert table.attach_save(SaveSession(store, name, record.seats, "standard"), opened=True) is None
        table.close()
        assert (store.path(name).stat().st_mtime_ns, store.path(name).read_text()) == stamps[name], name
    assert store.names() == order
    # the first new play still saves (and the lock was released on close)
    record, game = store.open_game("open game")
    table = TableSession(record.seats, record.rules, record.seed, game=game)
    table.attach_save(SaveSession(store, "open game", record.seats, "standard"), opened=True)
    table.submit(game.current, game.legal_plays()[0])
    table.close()
    assert store.load("open game").play_count == 13


async def test_load_then_back_to_the_menu_leaves_the_save_untouched(store):
    """The same through the app: open each save from Load, go back to the menu; nothing rewritten."""
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen

    stamps = _finished_and_unfinished(store)
    time.sleep(0.02)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("done", "open game"):
            assert app.resume(name)
            await pilot.pause()
            assert any(isinstance(s, GameScreen) for s in app.screen_stack)
            while len(app.screen_stack) > 1:  # a finished game's result screen, then the table
                app.pop_screen()
                await pilot.pause()
        assert app.continue_name == "open game"
    for name in ("done", "open game"):
        assert (store.path(name).stat().st_mtime_ns, store.path(name).read_text()) == stamps[name], name


def journal_plays(session, game, seed: int, plays: int = 3):
    """``plays`` plays of one round, each saved (a journal append each): the random source."""
    rng = random.Random(seed)
    start = game.round_no
    for _ in range(plays):
        game.play(rng.choice(game.legal_plays()))
        assert session.save(game) is None
    assert game.round_no == start
    return rng


def test_a_short_write_to_the_journal_is_finished_or_refused(store, monkeypatch):
    """journal.py ignored what os.write returned: a short write lost the end of the line."""
    import ono99_tui.store.journal as journal_mod

    real = os.write
    monkeypatch.setattr(journal_mod.os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    game = played(5)
    session = SaveSession(store, "short", SEATS, "standard")
    session.open()
    session.save(game)
    rng = journal_plays(session, game, 1)
    assert store.load("short").play_count == len(game.plays)  # every line whole
    monkeypatch.setattr(journal_mod.os, "write", lambda fd, data: 0)  # a disk that takes nothing
    game.play(rng.choice(game.legal_plays()))
    monkeypatch.setattr(saves_mod, "write_atomic", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    warning = session.save(game)
    assert warning and "Not saving" in warning


# -- delete holds the lock; links that cannot be followed ----------------------------------------------

def test_delete_holds_the_saves_lock_while_it_deletes(store, monkeypatch):
    """`saves delete` checked the lock, then deleted without holding it: another ono99 could open
    the save in between and go on saving into a file that was gone."""
    save(store)
    seen = []
    real = SaveStore.delete_owned

    def watching(self, name):
        seen.append(Lock(self.path(name)).held_by_other())  # what another ono99 would find now
        return real(self, name)

    monkeypatch.setattr(SaveStore, "delete_owned", watching)
    store.delete("friday")
    assert seen == [True] and not store.path("friday").exists()
    assert not Lock(store.path("friday")).path.exists()


@pytest.mark.parametrize("kind", ["loop", "pair", "dangling"])
def test_a_save_that_is_a_symlink_loop_or_dangling_can_be_deleted(store, capsys, kind):
    """A save that is a link looping on itself gave "Too many levels of symbolic links" on delete."""
    store.folder.mkdir(parents=True)
    link = store.path("knot")
    if kind == "loop":
        os.symlink(link.name, link)
    elif kind == "pair":
        os.symlink("other.toml", link)
        os.symlink(link.name, store.folder / "other.toml")
    else:
        os.symlink("/nonexistent/elsewhere.toml", link)
    outside = store.folder.parent / "target-outside.toml"
    code, out, err = run_cli(capsys, "saves", "list")
    assert code == 0 and "knot" in out
    code, out, err = run_cli(capsys, "saves", "delete", "knot")
    assert code == 0, err
    assert not os.path.lexists(link) and not outside.exists()
    code, out, err = run_cli(capsys, "saves", "list")
    assert "knot" not in out


@pytest.mark.parametrize("device", ["CON", "LPT1"])
def test_import_of_a_record_named_like_a_device_says_what_it_was_saved_as_and_why(store, capsys, tmp_path, device):
    g = played(8)
    source = tmp_path / "in.toml"
    source.write_text(Record.from_game(g, SEATS, {"name": device, "rules": "standard"}).to_toml())
    code, out, err = run_cli(capsys, "saves", "import", str(source))
    assert code == 0, err
    assert "as 'imported'" in out and f"'{device}' cannot be a save name" in out and "device name on Windows" in out
    code, out, err = run_cli(capsys, "saves", "import", str(source))
    assert "as 'imported 2'" in out and "a save named 'imported' already exists" in out
    assert store.load("imported 2").play_count == 8


def test_import_of_a_record_whose_name_is_not_a_string_takes_the_files_name(store, capsys, tmp_path):
    """meta.name = true was saved as 'True' (Python's spelling of the file's true)."""
    source = tmp_path / "tuesday.toml"
    source.write_text(Record.from_game(played(8), SEATS, {"name": True, "rules": "standard"}).to_toml())
    code, out, err = run_cli(capsys, "saves", "import", str(source))
    assert code == 0 and "as 'tuesday'" in out and "True" not in out, (out, err)
    assert store.names() == ["tuesday"]


async def test_quitting_the_app_mid_game_writes_every_play_and_folds_the_journal(store):
    """The writer thread never holds plays back at exit: leaving the app from the table
    (the app exits, the table screen unmounts, the session closes) leaves the whole game in
    the record and no journal."""
    from textual.worker import WorkerCancelled

    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.setup import TableSetup

    seats = [SeatSpec("Ann", "bot:random"), SeatSpec("Bo", "bot:random"), SeatSpec("Cy", "bot:random")]
    app = Ono99App(bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(TableSetup(seats, DEFAULT, "standard", seed=5))
        await pilot.pause()
        table = next(s for s in app.screen_stack if isinstance(s, GameScreen))
        for _ in range(400):
            if table.table.game.round_no >= 3 or table.table.game.over:
                break
            if type(app.screen).__name__ == "RoundEndScreen":
                app.screen.dismiss(None)
            try:
                await app.workers.wait_for_complete()
            except WorkerCancelled:
                pass
            await pilot.pause()
        name, game = table.table.save.name, table.table.game
        assert game.round_no >= 2  # round ends happened: folds went to the writer thread
        app.exit()
    record = load_record(store.path(name))
    assert record.play_count == len(game.plays)
    assert not journal_path(store.path(name)).exists()


async def test_save_notices_reach_the_table_screen_by_the_tables_updates_only(store, monkeypatch):
    """Issue 20 (structure): a save that cannot be made is told on the table screen by one route,
    the table's updates (SeatUpdate.notices) -- opening the save and the save worker's -- once
    each, and such a notices-only update redraws nothing and moves no turn."""
    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.store import session as session_mod
    from ono99_tui.table.session import SeatUpdate
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.setup import TableSetup

    monkeypatch.setattr(session_mod.SaveSession, "save", lambda self, game: "Not saving: the disk is full.")
    seen: list[SeatUpdate] = []
    real = GameScreen._table_changed

    def spy(self, update):
        seen.append(update)
        return real(self, update)

    monkeypatch.setattr(GameScreen, "_table_changed", spy)
    app = Ono99App(bot_delay=600)  # the bot never moves: only your play changes the table
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(TableSetup([SeatSpec("Ann"), SeatSpec("Bo", "bot:easy")], DEFAULT, "standard", seed=2))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.current == 0  # (seed 2: Ann opens)
        draws = []
        monkeypatch.setattr(screen, "_draw", lambda *a, **k: draws.append(1))
        card = next(i for i, c in enumerate(screen.query("CardWidget"), 1) if c.reason is None)
        await pilot.press(str(card))
        await app.workers.wait_for_complete()
        await pilot.pause()
        told = [u for u in seen if not u.changed]
        assert [u.notices for u in told] == [["Not saving: the disk is full."]] * len(told) and len(told) >= 1
        messages = [str(n.message) for n in app._notifications]
        assert messages.count("Not saving: the disk is full.") == len(told)  # each shown once, by that route
        assert all(not u.events for u in told)
        plays = [u for u in seen if u.changed and u.events]
        assert len(plays) == 1 and len(draws) == 1  # the play was drawn once; the notices drew nothing


def test_a_file_just_over_a_limit_says_by_how_much(tmp_path):
    """A stranger's find: a 9,000,000-byte save was "too large (8 MB; at most 8 MB)"."""
    from ono99_tui.store.readfile import ReadError, read_text

    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 9_000_000)
    with pytest.raises(ReadError) as exc:
        read_text(big, "save", limit=8 * 1024 * 1024)
    assert "the save is too large (8.6 MB; at most 8 MB)" in str(exc.value)


def test_a_saves_journal_and_lock_are_the_owners_alone_as_the_save_is(tmp_path):
    """A stranger's find: saves and .bak were 0600, their journal and lock 0644."""
    from tests.steps import SEATS

    store = SaveStore(tmp_path / "saves")
    game = Game([s.name for s in SEATS], DEFAULT, 4)
    session = SaveSession(store, "friday", SEATS, "standard")
    session.open()
    rng = random.Random(4)
    for _ in range(6):
        game.play(rng.choice(game.legal_plays()))
        session.save(game)
    session.wait()
    try:
        made = sorted(p for p in (tmp_path / "saves").iterdir() if p.name.startswith("friday"))
        kinds = {p.name.removeprefix("friday.toml") or ".toml" for p in made}
        assert {".toml", ".journal", ".lock"} <= kinds, kinds
        for path in made:
            assert os.stat(path).st_mode & 0o077 == 0, f"{path.name}: {oct(os.stat(path).st_mode & 0o777)}"
    finally:
        session.close()


def test_import_of_a_file_that_is_not_utf8_calls_it_the_file_to_import(store, tmp_path):
    """A play-tester's find: importing a non-UTF-8 file said "the save is not a UTF-8 text
    file", though nothing was a save yet."""
    bad = tmp_path / "latin.toml"
    bad.write_bytes(b"[meta]\nname = \"caf\xe9\"\n")
    out = ono99("saves", "import", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    assert "the file to import is not a UTF-8 text file (bad byte at offset 18)" in out.stderr
    assert "the save is" not in out.stderr and store.names() == []


def test_continue_after_save_as_opens_the_game_going_on_not_the_copy(store):
    """A play-tester's find: Ctrl+S made a copy ("this game goes on saving as 'game ...'"), Esc
    left, and Continue opened the copy, the newest file, though the game going on was the other."""
    save(store, "friday", plays=10)
    session = SaveSession(store, "friday", SEATS, "standard")
    assert session.open() is None
    os.utime(store.path("friday"), (1_000_000, 1_000_000))  # (played a while ago; journals too)
    for path in store.folder.glob("friday*.journal"):
        os.utime(path, (1_000_000, 1_000_000))
    assert session.save_as(played(10), "copy") == "copy"
    session.close()
    assert store.latest_unfinished().name == "friday"
