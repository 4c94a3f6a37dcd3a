"""The save's lock (store/lock.py) pinned where mutants survived the suite (benchmarks/mutation.py,
issue 25): taking it twice, giving it back, what "held by another" means for a leftover file, a
FIFO or a folder in the way, who holds it (the note's text as text), the retries after a release
race (bounded without waiting, not while waiting), and the pid-file fallback where flock is missing.
Races are staged deterministically by wrapping flock, never left to a clock."""

import os
import socket
import subprocess
import sys
import threading
import types

from pathlib import Path

import pytest

from ono99_tui.store import lock as lock_module
from ono99_tui.store.lock import Lock

REAL = lock_module.fcntl


@pytest.fixture
def save(private_dirs):
    path = private_dirs / "saves" / "g.toml"
    path.parent.mkdir(parents=True)
    return path


def flock_with(monkeypatch, before):
    """Replace the lock module's flock: ``before(fd, op)`` runs first (it may stage a race or raise)."""
    calls = []

    def flock(fd, op):
        calls.append(op)
        before(fd, op)
        return REAL.flock(fd, op)

    monkeypatch.setattr(lock_module, "fcntl", types.SimpleNamespace(flock=flock, LOCK_EX=REAL.LOCK_EX,
                                                                    LOCK_NB=REAL.LOCK_NB))
    return calls


def test_taken_twice_given_back_and_taken_again_it_is_a_real_lock_each_time(save):
    ours, other = Lock(save), Lock(save)
    assert ours.hint() == "close it there first" and ours.exact  # flock works here: no guessing
    assert not ours.held_by_other()  # no lock file at all
    assert ours.acquire() and ours.acquire()  # the second time: already ours
    assert ours.mine and not ours.held_by_other() and other.held_by_other()
    fd = ours._fd
    ours.release()
    assert not ours.mine and not ours.path.exists()
    with pytest.raises(OSError):
        os.fstat(fd)  # its descriptor closed, not leaked
    assert not other.held_by_other()
    assert ours.acquire()  # taken again: a new file, really locked
    assert ours.path.exists() and os.lstat(ours.path).st_ino == os.fstat(ours._fd).st_ino
    assert other.held_by_other() and not other.acquire()
    ours.release()


def test_a_leftover_lock_file_nobody_holds_is_free(save):
    Lock(save).path.write_text("12345@somewhere-else\n")
    assert not Lock(save).held_by_other()
    assert Lock(save).acquire()


def test_who_holds_it_is_read_as_text(save):
    lock = Lock(save)
    assert lock.owner() == "unknown"  # no file
    lock.path.write_bytes(b"")
    assert lock.owner() == "unknown"
    lock.path.write_bytes(b"\xff12@host\x1b[31m\n")
    assert lock.owner() == "\ufffd12@host[31m"  # bad bytes replaced, control characters dropped
    lock.path.write_bytes(b"x" * 300)
    assert lock.owner() == "x" * 200  # at most 200 bytes read
    assert Lock(save).acquire()
    assert lock.owner() == f"{os.getpid()}@{socket.gethostname()}"


def test_a_fifo_in_the_lock_files_place_never_blocks_a_look(save):
    """Looking at the lock (who holds it, is it held) opens it without blocking: a FIFO there
    (a hostile or broken folder) must not hang the Load screen. Each look runs on a thread; one
    still blocked after a generous wait is a failure, and is let go by opening the FIFO's other end."""
    path = Lock(save).path
    os.mkfifo(path)
    for look, expected in ((lambda: Lock(save).owner(), "unknown"), (lambda: Lock(save).held_by_other(), False)):
        got = []
        thread = threading.Thread(target=lambda: got.append(look()), daemon=True)
        thread.start()
        thread.join(60)
        if thread.is_alive():
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # the blocked open returns
            thread.join(60)
            raise AssertionError("looking at a FIFO lock file blocked")
        assert got == [expected]


def test_a_lock_that_cannot_even_be_looked_at_counts_as_held(private_dirs):
    (private_dirs / "saves").write_text("a file where the saves folder should be")
    assert Lock(private_dirs / "saves" / "g.toml").held_by_other()


def test_a_release_race_with_nobody_after_is_retried_and_the_lock_taken_on_the_live_file(save, monkeypatch):
    """The holder releases (removes the file) between our open and our flock, and nobody takes it:
    our flock lands on the removed file. We must try again and hold the file at the path."""
    holder = Lock(save)
    assert holder.acquire()
    raced = []

    def before(fd, op):
        if not raced:
            raced.append(True)
            holder.release()

    flock_with(monkeypatch, before)
    ours = Lock(save)
    assert ours.acquire()
    assert raced and ours.path.exists() and os.lstat(ours.path).st_ino == os.fstat(ours._fd).st_ino
    monkeypatch.setattr(lock_module, "fcntl", REAL)
    assert Lock(save).held_by_other()
    ours.release()


def churn(save):
    """Before each of our flocks: another ono99 takes the lock file and releases it (removing it)."""
    def before(fd, op):
        other = Lock(save)
        other.path.touch()  # (as its open would)
        other.mine, other._fd = True, os.open(other.path, os.O_RDONLY)
        other.release()
    return before


def test_without_waiting_the_release_races_are_retried_a_few_times_then_it_gives_up(save, monkeypatch):
    calls = flock_with(monkeypatch, churn(save))
    ours = Lock(save)
    assert not ours.acquire() and not ours.mine
    assert len(calls) == 5 and all(op & REAL.LOCK_NB for op in calls)


def test_waiting_it_blocks_on_the_holder_and_rides_out_release_races(save, monkeypatch):
    holder = Lock(save)
    assert holder.acquire()
    racing = churn(save)
    state = {"races": 0}

    def before(fd, op):
        if holder.mine:
            assert not op & REAL.LOCK_NB  # waiting: a blocking flock (the holder lets go just now)
            holder.release()
        if state["races"] < 7:  # then seven release races in a row, more than a try without waiting gets
            state["races"] += 1
            racing(fd, op)

    calls = flock_with(monkeypatch, before)
    ours = Lock(save)
    assert ours.acquire(wait=True)
    assert len(calls) == 8 and not any(op & REAL.LOCK_NB for op in calls)
    ours.release()


def test_where_flock_is_missing_the_lock_falls_back_to_the_pid_file_and_says_it_guesses(save, monkeypatch):
    def no_flock(fd, op):
        raise OSError(38, "Function not implemented")

    flock_with(monkeypatch, no_flock)
    looker = Lock(save)
    looker.path.write_text("")
    assert not looker.held_by_other() and not looker.exact  # a garbled note is nobody's
    assert str(looker.path) in looker.hint()
    looker.path.unlink()
    ours = Lock(save)
    assert ours.acquire() and not ours.exact and str(ours.path) in ours.hint()
    assert ours.path.read_text() == f"{os.getpid()}@{socket.gethostname()}\n"


def test_the_pid_file_fallback_tells_live_dead_and_foreign_holders_apart(save, monkeypatch):
    """Without flock (Windows, some network file systems): the note "pid@host" is all there is.
    The live holder is a child process that reports any signal it gets: looking sends none."""
    monkeypatch.setattr(lock_module, "fcntl", None)
    path = Lock(save).path
    host = socket.gethostname()
    fresh = Lock(save)
    assert not fresh.held_by_other()  # no file: nobody's
    assert fresh.acquire() and fresh.mine is True and not fresh.exact
    assert path.read_text() == f"{os.getpid()}@{host}\n"
    fresh.release()
    assert not path.exists()
    live = subprocess.Popen([sys.executable, "-c", (
        "import signal, sys\n"
        "for s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):\n"
        "    signal.signal(s, lambda n, f: print('signal', n, flush=True))\n"
        "print('ready', flush=True); sys.stdin.read()")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert live.stdout.readline().strip() == "ready"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    cases = [(f"{live.pid}@{host}", True),  # a live process on this host
             (f"{dead.pid}@{host}", False),  # its holder is gone: stale
             (f"{dead.pid}@another-host", True),  # another host: cannot tell, so held
             ("garbled", False),  # no host: nobody's
             (f"{os.getpid()}@{host}", False)]  # this very process
    try:
        for note, held in cases:
            path.write_text(note + "\n")
            lock = Lock(save)
            assert lock.held_by_other() is held, note
            assert not lock.exact
            assert lock.acquire() is (not held), note
            if not held:
                assert path.read_text() == f"{os.getpid()}@{host}\n"
                lock.release()
    finally:
        live.stdin.close()
        assert live.stdout.read() == ""  # no signal was sent to the holder
        live.wait()


def test_the_pid_file_fallback_counts_a_holder_it_may_not_signal_as_alive(save, monkeypatch):
    monkeypatch.setattr(lock_module, "fcntl", None)
    path = Lock(save).path
    path.write_text(f"4242@{socket.gethostname()}\n")

    def kill(pid, sig):
        raise PermissionError(1, "Operation not permitted")  # another user's live process

    monkeypatch.setattr(lock_module.os, "kill", kill)
    assert Lock(save).held_by_other()


def test_the_pid_file_fallback_makes_the_folder_and_loses_a_creation_race(private_dirs, monkeypatch):
    monkeypatch.setattr(lock_module, "fcntl", None)
    nested = private_dirs / "a" / "b" / "g.toml"
    lock = Lock(nested)
    assert lock.acquire() and lock.path.exists()  # the folders made on the way
    lock.release()
    real_open = lock_module.open_nofollow

    def open_after_another(path, flags, *rest):
        Path(path).write_text("99999@elsewhere\n")  # another ono99 created it first
        return real_open(path, flags, *rest)

    monkeypatch.setattr(lock_module, "open_nofollow", open_after_another)
    assert not lock.acquire() and not lock.mine


def test_a_table_that_opened_without_the_lock_never_writes_over_what_another_saved_meanwhile(private_dirs):
    # a play-tester's lock was a folder for a moment: table A said "Not saving" and played on;
    # table B then opened the save with the lock and played the game to its end; A's next play
    # took the lock and wrote its older game over B's finished one (and its .bak)
    import os
    import random

    from ono99_tui.store.saves import SaveStore
    from ono99_tui.store.session import SaveSession
    from tests.test_saves import SEATS, save

    store = SaveStore()
    save(store, "friday", plays=10)
    lock = store.path("friday").with_name("friday.toml.lock")
    os.mkdir(lock)
    a_record, a_game = store.open_game("friday")
    a = SaveSession(store, "friday", SEATS, "standard")
    assert (a.open(a_game) or "").startswith("Not saving"), "opened without its lock"
    a.opened(a_game)
    os.rmdir(lock)
    b_record, b_game = store.open_game("friday")
    b = SaveSession(store, "friday", SEATS, "standard")
    assert b.open(b_game) is None
    b.opened(b_game)
    rng = random.Random(1)
    for _ in range(15):
        b_game.play(rng.choice(b_game.legal_plays()))
        assert b.save(b_game) is None
    b.close()
    a_game.play(a_game.legal_plays()[0])
    said = a.save(a_game)
    assert said and "was saved by another ono99" in said and a.read_only, said
    assert a.unsaved(a_game) == 1
    assert store.load("friday").play_count == 25  # B's plays, every one
    a.close()
    c = SaveSession(store, "friday", SEATS, "standard")  # the lock was let go: the next table takes it
    assert c.open(store.open_game("friday")[1]) is None
    c.close()


def test_the_pid_file_fallback_reads_a_pid_no_process_can_have_without_a_traceback(save, monkeypatch):
    """A damaged note, "²@host" (a digit to str.isdigit, not to int) or a pid past any the system
    can give, raised ValueError or OverflowError from the check, and the save could not be opened."""
    monkeypatch.setattr(lock_module, "fcntl", None)
    path = Lock(save).path
    host = socket.gethostname()
    for note, held in ((f"\u00b2@{host}", True), (f"{10 ** 30}@{host}", False)):
        path.write_text(note + "\n")
        assert Lock(save).held_by_other() is held, note
