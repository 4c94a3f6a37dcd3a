"""Saves: atomic, locked, sanitised, damaged saves listed never crashing; CLI; Pilot."""

import os
import random
import signal
import subprocess
import sys

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


UNICODE_NAMES = ["Partie à Zoé", "игра", "खेल 2", "日本語のゲーム", "Ölçü_3-b"]


@pytest.mark.parametrize("name", UNICODE_NAMES)
def test_save_names_take_letters_and_digits_of_any_script(name):
    """A stranger's find: 'Partie à Zoé' and 'игра' were refused by a message asking for letters."""
    assert check_name(name) == name


@pytest.mark.parametrize("bad", ["a\u200bb", "a\u202eb", "a\u00a0b", "\u0301x", "a\u2215b", "a\uff0fb", "x\x1b[31m",
                                 "-x", "_x", "a.b", "..", "игра/x"])
def test_unicode_names_still_refuse_separators_dots_controls_and_invisible_characters(bad):
    with pytest.raises(SaveError, match="use letters, digits, spaces"):
        check_name(bad)


def test_a_refused_name_is_shown_as_typed_not_in_pythons_quoting():
    """A play-tester's find: "[b]x[/b] \\" was refused as '[b]x[/b] \\\\', its backslash doubled
    (Python's repr), so the name shown was not the one typed."""
    with pytest.raises(SaveError) as refused:
        check_name("[b]x[/b] \\")
    assert str(refused.value).startswith('save name "[b]x[/b] \\": use letters'), str(refused.value)
    with pytest.raises(SaveError) as refused:
        check_name("a\x1bb")  # (a control character is still shown as an escape, never raw)
    assert '"a\\x1bb"' in str(refused.value) and "\x1b" not in str(refused.value), str(refused.value)


def test_a_name_is_one_spelling_of_its_letters():
    """'é' typed as e + a combining accent (as some systems send it) names the same save."""
    import unicodedata

    assert check_name(unicodedata.normalize("NFD", "Partie à Zoé")) == "Partie à Zoé"


def test_a_unicode_name_is_written_listed_renamed_and_deleted_as_one_file(store):
    g = save(store, "Partie à Zoé", plays=12)
    assert [p.name for p in store.folder.iterdir() if p.suffix == ".toml"] == ["Partie à Zoé.toml"]
    assert store.names() == ["Partie à Zoé"] and store.listing()[0].name == "Partie à Zoé"
    assert store.load("Partie à Zoé").replay().plays == g.plays
    store.rename("Partie à Zoé", "игра")
    assert store.names() == ["игра"] and store.load("игра").replay().plays == g.plays
    store.delete("игра")
    assert store.names() == []


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


def test_a_save_that_is_not_toml_is_listed_with_its_line_never_its_path(store):
    store.folder.mkdir(parents=True, exist_ok=True)
    store.path("broken").write_text("players = 2\nnot a save\n")
    said = "line 2: the record is not valid TOML: Expected '=' after a key in a key/value pair (column 5)"
    assert store.info("broken").damaged == said
    assert dict(store.check()) == {"broken": said}


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


def test_a_write_protected_save_is_opened_read_only_and_never_rewritten(store):
    """A stranger's find: a save made read-only on purpose (chmod 444) was played on and
    rewritten (a rename over it ignores the file's mode), coming back 0600 and changed."""
    import os

    save(store)
    path = store.path("friday")
    os.chmod(path, 0o444)
    before = path.read_bytes()
    session = SaveSession(store, "friday", SEATS, "standard")
    message = session.open()
    assert session.read_only and "write-protected" in message and "chmod u+w" in message
    session.opened(played(30))
    assert session.unsaved(played(30)) == 0 and session.unsaved(played(35)) == 5  # (what leaving loses)
    assert session.copy_name() == "friday copy"
    session.save(played(35))
    session.close()
    assert path.read_bytes() == before and os.stat(path).st_mode & 0o777 == 0o444
    os.chmod(path, 0o644)  # writable again: saved as usual
    session = SaveSession(store, "friday", SEATS, "standard")
    assert session.open() is None and not session.read_only
    session.save(played(35))
    session.close()
    assert path.read_bytes() != before


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


GAME_STATE = ("plays", "round_plays", "round_no", "hands", "draw", "discard", "played", "total", "direction",
              "current", "owed", "ninety_nine_used", "pending_double", "tokens", "points", "out", "dealer", "over")


def state_of(game) -> dict:
    return {k: getattr(game, k) for k in GAME_STATE}


def test_undo_rebuild_is_the_same_game_up_to_that_play():
    """Against the game as it stood after 12 plays (played again from the start, not rebuilt),
    across a round end: the first 12 plays of this seed's random game, then the rest replayed."""
    g = played(40)
    assert g.round_no > 1 and not g.over  # the rebuilt stretch crosses a round end
    for k in (12, len(g.round_plays[0]) + 1):
        assert state_of(rebuild(g, k)) == state_of(played(k)), k
    assert state_of(rebuild(g, len(g.plays))) == state_of(g)
    assert state_of(rebuild(g, 12)) != state_of(played(13))  # the state compared tells plays apart


CHILD = r"""
import os, random, signal, sys
from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.saves import SaveStore
seats = [SeatSpec("A"), SeatSpec("B", "bot:easy"), SeatSpec("C", "bot:easy"), SeatSpec("D", "bot:easy")]
store = SaveStore()
seed, at_write, at_step = (int(a) for a in sys.argv[1:4])
writing, steps = [0], [0]

def stop_before(fn):
    # each file-system step of a save: on write number at_write, before step at_step, say so and
    # stop; the parent's SIGKILL lands exactly there
    def step(*args, **kw):
        if writing[0] == at_write:
            if steps[0] == at_step:
                sys.stdout.write(f"stop {at_write} {at_step} {fn.__name__}\n"); sys.stdout.flush()
                os.kill(os.getpid(), signal.SIGSTOP)
            steps[0] += 1
        return fn(*args, **kw)
    return step

for name in ("fsync", "link", "replace", "unlink"):
    setattr(os, name, stop_before(getattr(os, name)))
rng = random.Random(seed)
g = Game([s.name for s in seats], DEFAULT, seed)
while not g.over:
    g.play(rng.choice(g.legal_plays()))
    writing[0] += 1
    store.write("victim", Record.from_game(g, seats))
    sys.stdout.write(f"saved {len(g.plays)}\n"); sys.stdout.flush()
    if writing[0] == at_write:
        sys.stdout.write("through\n"); sys.stdout.flush()
        signal.pause()  # (killed by the parent)
"""


def test_sigkill_while_saving_never_loses_more_than_the_last_play(store):
    """Killed at each step of a save (before each fsync, link, rename, unlink it makes), on the
    first save (no backup yet) and a later one: the save always loads, with every acknowledged
    play and at most the one being saved. The child says where it is and stops there; the
    SIGKILL lands at that point, never at a moment left to a clock."""
    env = dict(os.environ)
    for at_write in (1, 6):
        at_step = 0
        while True:
            proc = subprocess.Popen([sys.executable, "-c", CHILD, "7", str(at_write), str(at_step)],
                                    stdout=subprocess.PIPE, text=True, env=env)
            acked, where = 0, None
            for line in proc.stdout:
                if line.startswith("saved "):
                    acked = int(line.split()[1])
                else:
                    where = line.strip()
                    break
            os.kill(proc.pid, signal.SIGKILL)
            proc.stdout.close()
            proc.wait()
            assert where is not None, f"the child ended without reaching write {at_write}"
            assert acked == at_write - (not where.startswith("through")), where
            record = store.load("victim") if at_write > 1 or store.path("victim").exists() else None
            count = record.play_count if record is not None else 0
            assert acked <= count <= at_write, (where, acked, count)
            store.path("victim").unlink(missing_ok=True)
            store.path("victim").with_name("victim.toml.bak").unlink(missing_ok=True)
            if where == "through":
                break
            at_step += 1
        assert at_step >= (2 if at_write == 1 else 5), f"write {at_write} took only {at_step} steps"


def test_the_chmod_hint_for_a_write_protected_save_can_be_pasted_into_a_shell(store):
    """A stranger's find: "chmod u+w .../game 2026-12-04 17-19-52.toml" failed when pasted (the
    spaces split it): the path is quoted for a shell."""
    import shlex

    save(store, "friday night")
    path = store.path("friday night")
    os.chmod(path, 0o444)
    message = SaveSession(store, "friday night", SEATS, "standard").open()
    command = message[message.index("chmod u+w "):].split(" to save to it again")[0]
    assert shlex.split(command) == ["chmod", "u+w", str(path)]


def test_a_renamed_save_exported_and_imported_comes_back_under_its_new_name(store, tmp_path):
    """A play-tester renamed a save to "mine", exported it (`ono99 saves export mine f.toml`) and
    imported the file: it came back as "game 2026-12-06 16-39-13", the name it had before the
    rename (a rename moves the file and leaves the name written inside it). The export carries
    the name it was exported from."""
    save(store, "game 2026-12-06 16-39-13")
    store.rename("game 2026-12-06 16-39-13", "mine")
    out = store.export("mine", tmp_path / "f.toml")
    assert load_record(out).meta["name"] == "mine"
    store.delete("mine")
    assert store.import_file(out) == "mine"
