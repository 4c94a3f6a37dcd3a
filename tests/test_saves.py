"""Saves: atomic, locked, sanitised, damaged saves listed never crashing; CLI; Pilot."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ono99_tui.store.files import load_record
from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.saves import SaveError, SaveStore, check_name
from ono99_tui.store.session import SaveSession, rebuild

SEATS = [SeatSpec("You"), SeatSpec("Bo", "bot:easy"), SeatSpec("Cy", "bot:medium")]


def played(plays=30, seed=3):
    g = Game([s.name for s in SEATS], DEFAULT, seed)
    rng = random.Random(seed)
    while not g.over and len(g.plays) < plays:
        g.play(rng.choice(g.legal_plays()))
    return g


def save(store, name="friday", plays=30, seed=3):
    g = played(plays, seed)
    store.write(name, Record.from_game(g, SEATS, {"rules": "standard"}))
    return g


@pytest.fixture
def store(private_dirs):
    return SaveStore()


@pytest.mark.parametrize("bad", ["", "   ", "../up", "a/b", "a\\b", ".hidden", "x" * 41, "tab\there", "dots..", "ümlaut/"])
def test_save_names_are_sanitised(bad):
    with pytest.raises(SaveError):
        check_name(bad)


def test_good_names_pass():
    assert check_name(" Friday night ") == "Friday night"
    assert check_name("game-2_b.toml") == "game-2_b"


def test_write_load_round_trip_and_backup(store):
    g = save(store, plays=10)
    assert store.load("friday").replay().plays == g.plays
    save(store, plays=20)
    bak = store.path("friday").with_name("friday.toml.bak")
    assert load_record(bak).play_count == 10 and store.load("friday").play_count == 20


def damaged_variants(good: str):
    lines = good.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip().startswith('"You:') or ln.strip().startswith('"Bo:'))
    tampered = lines.copy()
    who = tampered[i].strip().split(":")[0].strip('"')
    tampered[i] = f'    "{who}: 99",'
    return {
        "corrupt": good[:50] + "\x00\x01garbage[[[" + good[80:],
        "truncated": good[: len(good) // 2],
        "empty": "",
        "wrong type": 'target = 150\n[scoring]\nmode = "points"\n',
        "future version": good.replace("version = 3", "version = 99"),
        "tampered": "\n".join(tampered) + "\n",
    }


def test_every_kind_of_damage_is_listed_with_a_reason_and_can_be_deleted(store):
    save(store, "good")
    good = store.path("good").read_text()
    for kind, text in damaged_variants(good).items():
        store.path(kind).write_text(text)
    infos = {i.name: i for i in store.listing()}
    assert infos["good"].damaged is None and infos["good"].round >= 1
    for kind in damaged_variants(good):
        assert infos[kind].damaged, kind
        with pytest.raises(SaveError, match="damaged save"):
            store.load(kind)
    assert "newer ono99" in infos["future version"].damaged
    assert "cannot play" in infos["tampered"].damaged or "99" in infos["tampered"].damaged
    store.delete("tampered")
    assert "tampered" not in store.names()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_corrupted_bytes_never_crash_the_list(store, data):
    if not store.path("base").exists():
        save(store, "base", plays=40)
    raw = bytearray(store.path("base").read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    store.path("victim").write_bytes(bytes(raw[:cut]))
    info = store.info("victim")  # never raises
    assert info.damaged or info.players
    try:
        store.load("victim")
    except SaveError:
        pass


def test_a_lock_held_by_a_live_process_keeps_others_out_and_a_stale_one_is_taken_over(store):
    save(store)
    path = store.path("friday")
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from ono99_tui.store.saves import Lock; from pathlib import Path;"
        f"l = Lock(Path({str(path)!r})); print(l.acquire(), flush=True); time.sleep(30)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "True"
        session = SaveSession(store, "friday", SEATS, "standard")
        message = session.open()
        assert session.read_only and "open in another ono99" in message
        before = path.read_bytes()
        session.save(played(35))
        assert path.read_bytes() == before  # read-only: never written over
        with pytest.raises(SaveError, match="open in another ono99"):
            store.delete("friday")
    finally:
        holder.kill()
        holder.wait()
    session = SaveSession(store, "friday", SEATS, "standard")
    assert session.open() is None and not session.read_only  # the dead holder's lock is stale
    session.close()


def test_an_unwritable_data_folder_turns_saving_off_with_a_message(private_dirs, monkeypatch):
    blocker = private_dirs / "blocker"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setenv("ONO99_DATA_DIR", str(blocker / "data"))
    session = SaveSession(SaveStore(), "x", SEATS, "standard")
    warning = session.open() or session.save(played(5))
    assert warning and "Not saving" in warning and "Play continues" in warning and str(blocker) in warning
    assert session.save(played(6)) is None  # said once, and play goes on


def test_undo_rebuild_is_the_same_game_up_to_that_play():
    g = played(25)
    back = rebuild(g, 12)
    assert back.plays == g.plays[:12]
    assert back.hands == rebuild(g, 12).hands


CHILD = r"""
import random, sys
from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.saves import SaveStore
seats = [SeatSpec("A"), SeatSpec("B", "bot:easy"), SeatSpec("C", "bot:easy"), SeatSpec("D", "bot:easy")]
store = SaveStore()
seed = int(sys.argv[1])
rng = random.Random(seed)
g = Game([s.name for s in seats], DEFAULT, seed)
while not g.over:
    g.play(rng.choice(g.legal_plays()))
    store.write("victim", Record.from_game(g, seats))
    sys.stdout.write(f"{len(g.plays)}\n"); sys.stdout.flush()
"""


def test_sigkill_while_saving_never_loses_more_than_the_last_play(store):
    """Killed at random moments 200 times: the save always loads and has every acknowledged play."""
    rng = random.Random(1)
    env = dict(os.environ)
    for attempt in range(200):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, "7"], stdout=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + rng.uniform(0.0, 0.05)
        first = proc.stdout.readline()  # the child is running and has saved once
        acked = int(first) if first.strip() else 0
        while time.monotonic() < deadline:
            time.sleep(0.001)
        os.kill(proc.pid, signal.SIGKILL)
        rest = proc.stdout.read()
        proc.wait()
        lines = [ln for ln in rest.splitlines() if ln.strip().isdigit()]
        if lines:
            acked = int(lines[-1])
        record = store.load("victim")  # loads, every play legal
        assert record.play_count >= acked, (attempt, record.play_count, acked)
        store.path("victim").unlink()
        store.path("victim").with_name("victim.toml.bak").unlink(missing_ok=True)
