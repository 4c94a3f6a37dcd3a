"""A journal that proves itself, and summaries checked (issue 20); undo that replays (issue 19).

A save killed mid-round holds its last plays only in its journal. Every way of damaging that
journal (a flipped byte, a cut, lines reordered or left out, CRLF endings, a play changed to
another legal card, a file over the size limit) must be found, the plays that verify kept, the
rest set aside in a file of their own and the player told, on screen (the save session's
notice), in `saves list` and in `saves check`. Before record version 3 each of these lost plays
in silence (one flipped byte in line 3 of a 12-play journal: 10 plays gone at the next play).
"""

import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ono99_tui import cli
from ono99_tui.engine import Game
from ono99_tui.engine.record import VERSION, Record, check_digest, digest, toml_string
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.files import load_record
from ono99_tui.store.journal import MAX_BYTES, journal_path, read_journal
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.session import SaveSession
from ono99_tui.table import TableSession
from tests.test_saves import SEATS

JOURNAL_PLAYS = 12


@pytest.fixture
def store(private_dirs):
    return SaveStore()


def run_cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def killed_mid_round(store, name="crash", seed=7, journal_plays=JOURNAL_PLAYS) -> Game:
    """A save as a kill leaves it: the record written at the last round end (a fold that also
    compacts the journal), then ``journal_plays`` plays of the round in the journal only."""
    for s in range(seed, seed + 200):
        g = Game([x.name for x in SEATS], DEFAULT, s)
        rng = random.Random(s)
        session = SaveSession(store, name, SEATS, "standard")
        session.open()
        session.save(g)
        while not g.over and not (g.round_no >= 2 and len(g.round_plays[-1]) == journal_plays):
            g.play(rng.choice(g.legal_plays()))
            session.save(g)
        session.wait()
        session._drop_journal()  # killed: no fold on leaving
        session.lock.release()
        if not g.over:
            assert load_record(store.path(name)).play_count == len(g.plays) - journal_plays
            return g
        store.delete(name)
    raise AssertionError("no game with a round that long")


def journal_lines(store, name="crash") -> list[bytes]:
    return journal_path(store.path(name)).read_bytes().splitlines(keepends=True)


def open_table(store, name="crash"):
    """What the app and the server do: open_game, then a table with the save attached."""
    record, game = store.open_game(name)
    table = TableSession(record.seats, record.rules, record.seed, game=game)
    notice = table.attach_save(SaveSession(store, name, record.seats, "standard"), opened=True)
    return table, notice


def kept_journals(store, name="crash"):
    return sorted(p for p in store.folder.iterdir() if p.name.startswith(f"{name}.toml.journal-damaged-"))


def edited_to_another_legal_card(g: Game, lines: list[bytes], k: int) -> bytes:
    """Journal line ``k`` (1 = the first play line) with its card changed to another card that
    is legal at that point, its check value left as it was: a naive edit of history."""
    n, rnd, name, card = json.loads(lines[k].partition(b" ")[2])
    probe = Game(g.names, g.rules, g.seed, first_dealer=g.first_dealer)
    for seat, c in g.plays[: n - 1]:
        probe.play(c)
    other = [c for c in probe.legal_plays() if c != card]
    assert other, "no other legal card at that play"
    check = lines[k].partition(b" ")[0]
    return check + b" " + json.dumps([n, rnd, name, other[0]], ensure_ascii=False).encode() + b"\n"


def damage(kind: str, g: Game, lines: list[bytes]) -> tuple[bytes, int, int]:
    """(the damaged journal, plays that still verify, plays set aside) for each kind of damage."""
    head, plays = lines[0], lines[1:]
    assert len(plays) == JOURNAL_PLAYS
    if kind == "flipped byte":  # the case: one byte in line 3
        line = bytearray(plays[2])
        line[len(line) // 2] ^= 0x04
        return head + b"".join(plays[:2]) + bytes(line) + b"".join(plays[3:]), 2, 10
    if kind == "truncated":  # cut in the middle of the 6th play (a disk, a sync tool)
        return head + b"".join(plays[:5]) + plays[5][:9], 5, 1
    if kind == "reordered":
        return head + b"".join(plays[:3] + [plays[4], plays[3]] + plays[5:]), 3, 9
    if kind == "skipped number":  # the 5th play's line left out
        return head + b"".join(plays[:4] + plays[5:]), 4, 7
    if kind == "edited legal card":
        return head + b"".join(plays[:3]) + edited_to_another_legal_card(g, lines, 4) + b"".join(plays[4:]), 3, 9
    if kind == "damaged header":
        return head.replace(b"ono99-journal 2 ", b"ono99-journal 2 0") + b"".join(plays), 0, 12
    if kind == "oversize":  # every play whole, then junk past the limit (no line ends in it)
        return head + b"".join(plays) + b"x" * (MAX_BYTES + 10), 12, 1
    raise AssertionError(kind)


KINDS = ["flipped byte", "truncated", "reordered", "skipped number", "edited legal card", "damaged header",
         "oversize"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_journal_is_found_reported_everywhere_and_kept_aside(store, capsys, kind):
    g = killed_mid_round(store)
    in_record = len(g.plays) - JOURNAL_PLAYS
    damaged, verify, set_aside = damage(kind, g, journal_lines(store))
    journal_path(store.path("crash")).write_bytes(damaged)

    # saves check finds it before any open, and says how many and why (exit 2)
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 2 and f"{set_aside} play{'' if set_aside == 1 else 's'} in the journal set aside" in out, out

    table, notice = open_table(store)
    assert table.game.plays == g.plays[: in_record + verify]
    assert notice and f"{set_aside} play{'' if set_aside == 1 else 's'} in the journal set aside" in notice
    assert f"Opened with the {in_record + verify} plays that verify" in notice
    # kept aside, byte for byte; never deleted, and not read again as the save's journal
    kept = kept_journals(store)
    assert len(kept) == 1 and kept[0].read_bytes() == damaged and kept[0].name in notice
    # the plays that verify are in the save now; the next play does not lose them
    table.play_bots() if table.bot_to_move else None
    if not table.over:
        table.submit(table.current, table.game.legal_plays()[0])
    table.close()
    record, game = store.open_game("crash")
    assert game.plays[: in_record + verify] == g.plays[: in_record + verify]
    assert kept[0].exists() and kept[0].read_bytes() == damaged

    info = store.listing()[0]
    assert info.set_aside and f"{set_aside} play" in info.set_aside and kept[0].name in info.set_aside
    code, out, _ = run_cli(capsys, "saves", "list")
    assert "[damaged journal]" in out and kept[0].name in out
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 2 and kept[0].name in out
    # opened again: nothing more set aside, the note kept
    table, notice = open_table(store)
    assert notice is None and len(kept_journals(store)) == 1
    table.close()


def test_export_of_a_save_with_a_damaged_journal_says_the_plays_it_leaves_out(store, capsys, tmp_path):
    # a play-tester flipped a byte in a journal: saves check and replay said "10 plays in the
    # journal set aside", export wrote a record without them and said nothing
    g = killed_mid_round(store)
    damaged, verify, set_aside = damage("flipped byte", g, journal_lines(store))
    journal_path(store.path("crash")).write_bytes(damaged)
    target = tmp_path / "out.toml"
    for args in (("saves", "export", "crash", str(target)), ("saves", "export", "crash", "-")):
        code, out, err = run_cli(capsys, *args)
        assert code == 0 and err.count("\n") == 1, err
        assert f"{set_aside} plays in the journal set aside" in err and err.rstrip().endswith("exported without them")
    assert journal_path(store.path("crash")).read_bytes() == damaged  # left as it was: only read


def test_a_damaged_journal_with_one_play_that_verifies_says_1_play(store):
    """The notice said "Opened with the 1 plays that verify": a game killed two plays into its
    first round, the second play's line damaged, opens with its one play, said as one."""
    g = Game([x.name for x in SEATS], DEFAULT, 7)
    session = SaveSession(store, "crash", SEATS, "standard")
    session.open()
    session.save(g)
    for _ in range(2):
        g.play(g.legal_plays()[0])
        session.save(g)
    session.wait()
    session._drop_journal()  # killed: no fold on leaving
    session.lock.release()
    assert load_record(store.path("crash")).play_count == 0
    lines = journal_lines(store)
    assert len(lines) == 3  # the header and the two plays
    line = bytearray(lines[2])
    line[len(line) // 2] ^= 0x04
    journal_path(store.path("crash")).write_bytes(lines[0] + lines[1] + bytes(line))
    table, notice = open_table(store)
    assert table.game.plays == g.plays[:1]
    assert "Opened with the 1 play that verifies; " in notice, notice
    table.close()


def test_a_previous_version_without_its_save_is_listed_with_how_to_put_it_back(store, capsys):
    # a play-tester's lost.toml.bak (its save deleted by hand) was invisible to saves list and
    # check, though saves restore brought it back
    killed_mid_round(store)
    bak = store.path("crash").with_name("crash.toml.bak")
    os.link(bak, store.path("crash").with_name("lost.toml.bak"))
    os.unlink(bak)
    code, out, _ = run_cli(capsys, "saves", "list")
    assert code == 0 and ("lost  [previous version only] lost.toml.bak is there without its save: ono99 saves "
                          "restore lost puts it back") in out, out
    assert "crash  [previous" not in out  # a save with its own .bak gone is only a save
    code, out, _ = run_cli(capsys, "saves", "restore", "lost")
    assert code == 0 and store.load("lost").names == store.load("crash").names
    code, out, _ = run_cli(capsys, "saves", "list")
    assert "[previous version only]" not in out


def test_a_crlf_converted_journal_still_reads_every_play(store, capsys):
    g = killed_mid_round(store)
    jp = journal_path(store.path("crash"))
    jp.write_bytes(jp.read_bytes().replace(b"\n", b"\r\n"))
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 0, out
    table, notice = open_table(store)
    assert table.game.plays == g.plays and notice is None and not kept_journals(store)
    table.close()


def test_a_whole_journal_is_not_damage(store, capsys):
    g = killed_mid_round(store)
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 0 and "crash: ok" in out
    table, notice = open_table(store)
    assert table.game.plays == g.plays and notice is None and not kept_journals(store)
    table.close()


def test_a_save_opened_read_only_leaves_a_damaged_journal_where_it_is_and_says_so(store):
    g = killed_mid_round(store)
    damaged, verify, set_aside = damage("flipped byte", g, journal_lines(store))
    journal_path(store.path("crash")).write_bytes(damaged)
    holder = SaveSession(store, "crash", SEATS, "standard")
    holder.lock = None
    from ono99_tui.store.lock import Lock

    lock = Lock(store.path("crash"))
    assert lock.acquire()
    try:
        _, notice = open_table(store)
        assert "read-only" in notice and "10 plays in the journal set aside" in notice
        assert journal_path(store.path("crash")).read_bytes() == damaged and not kept_journals(store)
    finally:
        lock.release()


# -- older formats ---------------------------------------------------------------------------------

def test_a_version_2_save_with_a_version_1_journal_opens_with_every_play_and_is_upgraded(store):
    g = killed_mid_round(store)
    path = store.path("crash")
    record = load_record(path)
    # the same save as version 2 wrote it: version line, its own digest; the journal as version 1
    body = path.read_text().split("\n", 2)[2].replace(f"version = {VERSION}\n", "version = 2\n")
    head = "# O'NO 99 game record (docs/record-format.md); replay it with `ono99 replay FILE`\n"
    path.write_text(head + "digest = " + toml_string(digest(head + body)) + "\n" + body)
    assert check_digest(path.read_text()) is True
    lines = [json.loads(line.partition(b" ")[2]) for line in journal_lines(store)[1:]]
    journal_path(path).write_text(f"ono99-journal 1 {record.meta['journal']}\n"
                                  + "".join(json.dumps(p) + "\n" for p in lines))
    assert store.listing()[0].damaged is None
    table, notice = open_table(store)
    assert table.game.plays == g.plays and notice is None
    table.submit(table.current, table.game.legal_plays()[0]) if not table.bot_to_move else table.play_bot()
    table.close()
    text = path.read_text()
    assert f"version = {VERSION}" in text
    assert store.open_game("crash")[1].plays[: len(g.plays)] == g.plays


# -- the journal path is a folder ------------------------------------------------------------------

def test_a_journal_path_that_is_a_folder_saves_every_play_in_the_record_and_says_so_once(store):
    """Before: "Not saving" on every play, while the record was in fact rewritten whole."""
    store.folder.mkdir(parents=True, exist_ok=True)
    journal_path(store.path("dir")).mkdir()
    g = Game([s.name for s in SEATS], DEFAULT, 4)
    rng = random.Random(4)
    session = SaveSession(store, "dir", SEATS, "standard")
    session.open()
    notices = [session.save(g)]
    for _ in range(6):
        g.play(rng.choice(g.legal_plays()))
        notices.append(session.save(g))
        assert store.load("dir").play_count == len(g.plays)
    told = [n for n in notices if n]
    assert len(told) == 1 and "without a journal" in told[0] and "Not saving" not in told[0], told
    session.close()
    assert journal_path(store.path("dir")).is_dir()  # left as it was


# -- replay of a save, summaries, .bak --------------------------------------------------------------

def test_replay_of_a_save_file_includes_its_journal(store, capsys):
    g = killed_mid_round(store)
    code, out, _ = run_cli(capsys, "replay", str(store.path("crash")), "--json")
    assert code == 0
    doc = json.loads(out)
    assert sum(e["type"] == "play" for e in doc["events"]) == len(g.plays)


def test_saves_check_finds_a_summary_that_says_other_than_the_plays_and_resume_never_opens_a_finished_game(
        store, capsys):
    g = Game([s.name for s in SEATS], DEFAULT, 3)
    rng = random.Random(3)
    while not g.over:
        g.play(rng.choice(g.legal_plays()))
    forged = Record.from_game(g, SEATS, {"rules": "standard", "finished": True})
    forged.summary = {**forged.summary, "finished": False, "scores": [3, 3, 3]}
    forged.summary.pop("winner", None)
    store.write("done", forged)  # a digest that fits: the listing trusts the head
    assert store.listing()[0].finished is False  # the cheap listing takes the summary's word
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 2 and "done: damaged: its [summary] says" in out, out
    # `ono99 resume` with no name picks the latest unfinished game: never this finished one
    assert store.latest_unfinished() is None
    assert store.listing()[0].finished is True  # and the listing is put right


def test_a_damaged_save_offers_its_bak_and_saves_restore_puts_it_back(store, capsys):
    g = killed_mid_round(store)
    path = store.path("crash")
    assert path.with_name("crash.toml.bak").exists()
    damaged = path.read_text().replace("[[rounds]]", "[[rounds]]\nbroken = 1", 1)
    path.write_text(damaged)
    code, out, _ = run_cli(capsys, "saves", "list")
    assert "[damaged]" in out and "saves restore crash" in out
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 2 and "saves restore crash" in out
    code, out, _ = run_cli(capsys, "saves", "restore", "crash")
    assert code == 0 and "Restored 'crash'" in out
    kept = sorted(p for p in store.folder.iterdir() if p.name.startswith("crash.toml.replaced-"))
    assert len(kept) == 2 and kept[0].read_text() == damaged and kept[1].name == kept[0].name + ".journal"
    record, game = store.open_game("crash")
    assert game.plays == g.plays[: len(game.plays)]
    # again: the save already is its .bak's game; a second copy of it was kept each time
    before = files_of(store.folder)
    code, out, err = run_cli(capsys, "saves", "restore", "crash")
    assert code == 2 and out == "" and "'crash' already holds the same plays as its .bak" in err
    assert files_of(store.folder) == before
    code, out, _ = run_cli(capsys, "saves", "restore", "nothing")
    assert code == 2


def test_saves_restore_reads_no_bak_through_a_link(store, capsys, tmp_path):
    """A .bak that is a link (from an archive or a shared folder) is not copied into the save,
    even when its target is a save that replays: the save and the target stay as they were."""
    killed_mid_round(store)
    path = store.path("crash")
    bak = path.with_name("crash.toml.bak")
    target = tmp_path / "elsewhere.toml"
    target.write_bytes(bak.read_bytes())
    bak.unlink()
    bak.symlink_to(target)
    before, target_before = path.read_bytes(), target.read_bytes()
    code, out, err = run_cli(capsys, "saves", "restore", "crash")
    assert code == 2 and "is a link" in err and "nothing was restored" in err, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert path.read_bytes() == before and target.read_bytes() == target_before and bak.is_symlink()
    assert not [p for p in store.folder.iterdir() if ".replaced-" in p.name]


def test_saves_restore_keeps_the_replaced_saves_journal_aside_and_leaves_a_save_that_checks(store):
    """A stranger's find: after `saves restore` the save's journal (the plays since the replaced
    save was written) stayed beside the restored one, which then opened as damaged ("12 plays in
    the journal set aside", or "the save names 'None'" for a .bak naming no journal)."""
    from tests.cli import ono99

    g = killed_mid_round(store)
    path = store.path("crash")
    journal = journal_path(path).read_bytes()
    bak = load_record(path.with_name("crash.toml.bak"))
    proc = ono99("saves", "restore", "crash")
    assert proc.returncode == 0 and proc.stderr == "", proc
    kept = sorted(p.name for p in store.folder.iterdir() if ".replaced-" in p.name)
    assert len(kept) == 2 and kept[1] == kept[0] + ".journal"
    assert proc.stdout == (f"Restored 'crash' from its .bak; the save it replaced is kept as {kept[0]}, "
                           f"and its journal (plays since) as {kept[1]}.\n")
    assert not journal_path(path).exists() and (store.folder / kept[1]).read_bytes() == journal
    # the restored save is the .bak's game, whole, and says nothing is wrong
    record, game = store.open_game("crash")
    assert game.plays == g.plays[: bak.play_count] and record.meta["name"] == "crash"
    check = ono99("saves", "check")
    assert check.returncode == 0 and check.stdout.startswith("crash: ok\n"), check.stdout
    # the save it replaced, with its journal beside it, still holds every play
    old = load_record(store.folder / kept[0])
    assert old.play_count + len(read_journal(old, store.folder / kept[0]).plays) == len(g.plays)


@pytest.mark.parametrize("bak", ["missing", "empty", "cut short", "not a record", "another game", "no name",
                                 "no journal id", "a folder"])
def test_saves_restore_with_any_bak_leaves_one_whole_save_and_names_real_things(store, bak):
    """Whatever the .bak is, restore either refuses in one message naming it, the save untouched,
    or restores a save that checks; no message says None."""
    from tests.cli import ono99

    g = killed_mid_round(store)
    path = store.path("crash")
    bak_path = path.with_name("crash.toml.bak")
    text = bak_path.read_text()
    bak_path.unlink()
    if bak == "empty":
        bak_path.write_text("")
    elif bak == "cut short":
        bak_path.write_text(text[: len(text) // 2])
    elif bak == "not a record":
        bak_path.write_text('theme = "ono99-dark"\n')
    elif bak == "another game":
        other = Game(["Ann", "Ben"], DEFAULT, 99)
        other.play(other.legal_plays()[0])
        bak_path.write_text(Record.from_game(other, meta={"name": "elsewhere"}).to_toml())
    elif bak in ("no name", "no journal id"):
        key = "name" if bak == "no name" else "journal"
        bak_path.write_text("".join(line for line in text.splitlines(keepends=True)
                                    if not line.startswith(f"{key} = ")))
    elif bak == "a folder":
        bak_path.mkdir()
    before = files_of(store.folder)
    proc = ono99("saves", "restore", "crash")
    said = proc.stdout + proc.stderr
    assert "None" not in said and said.count("\n") == 1, said
    if bak in ("missing", "empty", "cut short", "not a record", "a folder"):
        assert proc.returncode == 2 and files_of(store.folder) == before, said
        assert ("has no .bak" if bak == "missing" else f"the .bak of 'crash' is damaged too: {bak_path}") in said
        assert store.open_game("crash")[1].plays == g.plays
        return
    assert proc.returncode == 0 and "Restored 'crash' from its .bak" in proc.stdout, said
    check = ono99("saves", "check")
    assert check.returncode == 0 and check.stdout.startswith("crash: ok\n"), check.stdout
    record = store.load("crash")
    assert record.meta["name"] == "crash" and isinstance(record.meta["journal"], str)


def files_of(folder) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mode) for p in folder.iterdir() if p.is_file()}


def test_saves_restore_refuses_a_write_protected_save_and_changes_nothing(store):
    """A stranger's find: `saves restore` on a save made read-only on purpose (chmod a-w)
    replaced it silently, although a table opening it treats it as read-only."""
    from tests.cli import ono99

    killed_mid_round(store)
    path = store.path("crash")
    os.chmod(path, 0o444)
    before = files_of(store.folder)
    proc = ono99("saves", "restore", "crash")
    assert proc.returncode == 2 and proc.stdout == "", proc
    assert proc.stderr.count("\n") == 1 and "'crash' is write-protected" in proc.stderr, proc.stderr
    assert f"chmod u+w {path}" in proc.stderr
    assert files_of(store.folder) == before
    os.chmod(path, 0o644)  # allowed again: restored as usual
    assert ono99("saves", "restore", "crash").returncode == 0 and path.read_bytes() != before["crash.toml"][0]


# -- undo in a save ---------------------------------------------------------------------------------

def test_a_game_with_undos_saves_reopens_and_replays(store, capsys):
    for seed in range(30):
        table = TableSession(SEATS, DEFAULT, seed)
        table.attach_save(SaveSession(store, f"undo {seed}", SEATS, "standard"))
        rng, undone = random.Random(seed), 0
        for _ in range(60):
            table.play_bots()
            if table.over:
                break
            if table.may_undo(0) and rng.random() < 0.4:
                try:
                    table.undo(0)
                    undone += 1
                except Exception:  # noqa: BLE001 - a pile too small: refused, nothing changed
                    pass
                continue
            table.submit(0, rng.choice(table.game.legal_plays()))
        game = table.game
        table.close()
        if not undone:
            continue
        record, again = store.open_game(f"undo {seed}")
        assert record.undos and again.plays == game.plays and again.draw == game.draw
        assert again.hands == game.hands
        code, out, _ = run_cli(capsys, "replay", str(store.path(f"undo {seed}")), "--json")
        assert code == 0 and sum(e["type"] == "play" for e in json.loads(out)["events"]) == len(game.plays)
        return
    pytest.fail("no game with an undo")


@pytest.mark.parametrize("recalled", [True, False])
def test_the_sessions_look_under_the_lock_finds_the_same_as_the_open(store, recalled):
    """open_game, then the session under the lock: from what open_game found (neither file
    changed), or, when that is not known (another process opened it), by reading again. A line
    whose check values were made to fit but whose play breaks the rules is set aside too."""
    from ono99_tui.store import saves as saves_mod
    from tests.test_saves_faults import rechained

    g = killed_mid_round(store)
    lines = journal_lines(store)
    plays = [json.loads(line.partition(b" ")[2]) for line in lines[1:]]
    plays[6][3] = "99"  # a 99 is never legal under the default rules (R7.1)
    journal_path(store.path("crash")).write_text(rechained(lines[0].decode().rstrip("\n"), plays))
    record, game = store.open_game("crash")
    assert game.plays == g.plays[: len(g.plays) - JOURNAL_PLAYS + 6]
    if not recalled:
        saves_mod._READS.clear()
    table = TableSession(record.seats, record.rules, record.seed, game=game)
    notice = table.attach_save(SaveSession(store, "crash", record.seats, "standard"), opened=True)
    assert "6 plays in the journal set aside" in notice and "breaks the rules" in notice, notice
    assert len(kept_journals(store)) == 1
    table.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_opens_a_prefix_of_the_real_plays_and_any_play_left_out_is_reported(store, data):
    """Property: whatever happens to the journal's bytes (flips, cuts, lines swapped, dropped or
    doubled, CRLF), the game opened is the real game up to some play, and if it is short of the
    real game, the plays left out are reported (set aside), never dropped in silence."""
    from ono99_tui.store import saves as saves_mod

    if not store.path("crash").exists():
        g = killed_mid_round(store)
        store.folder.joinpath("real.json").write_text(json.dumps(g.plays))
        store.folder.joinpath("good.journal").write_bytes(journal_path(store.path("crash")).read_bytes())
    real = [tuple(p) for p in json.loads(store.folder.joinpath("real.json").read_text())]
    good = store.folder.joinpath("good.journal").read_bytes()
    lines = good.splitlines(keepends=True)
    head, body = lines[:1], lines[1:]
    for _ in range(data.draw(st.integers(0, 3))):
        op = data.draw(st.sampled_from(["swap", "drop", "double", "flip", "crlf"]))
        if not body:
            break
        i = data.draw(st.integers(0, len(body) - 1))
        if op == "swap" and len(body) > 1:
            j = data.draw(st.integers(0, len(body) - 1))
            body[i], body[j] = body[j], body[i]
        elif op == "drop":
            del body[i]
        elif op == "double":
            body.insert(i, body[i])
        elif op == "flip":
            line = bytearray(body[i])
            line[data.draw(st.integers(0, len(line) - 1))] ^= 1 << data.draw(st.integers(0, 7))
            body[i] = bytes(line)
        elif op == "crlf":
            body[i] = body[i].replace(b"\n", b"\r\n")
    raw = b"".join(head + body)
    raw = raw[: data.draw(st.integers(0, len(raw)))] if data.draw(st.booleans()) else raw
    journal_path(store.path("crash")).write_bytes(raw)
    saves_mod._READS.clear()
    record, game, read = store._open("crash", record_events=False)
    assert game.plays == real[: len(game.plays)]  # never another history
    if len(game.plays) < len(real):
        # a cut at the end of a line (or inside the header, before any play) cannot be told from
        # a journal whose later plays were never made (docs/record-format.md): the plays before it stay
        # (CRLF endings read as LF: a CRLF line cut after its "\r\n" is such a cut too)
        lf = raw.replace(b"\r\n", b"\n")
        whole_lines_cut = lf == good[: len(lf)] and (lf.endswith(b"\n") or b"\n" not in lf)
        assert read.set_aside or whole_lines_cut, (read, len(game.plays), len(real))


def test_save_as_writes_a_copy_and_the_table_goes_on_saving_under_its_own_name(store):
    """Issue 19: Save as renamed the running save and kept recording into it."""
    from ono99_tui.net.remote import RemoteTable

    table = TableSession(SEATS, DEFAULT, 5)
    assert not table.can_save_as  # no save attached: nothing to copy
    table.attach_save(SaveSession(store, "auto", SEATS, "standard"))
    assert table.can_save_as and RemoteTable.can_save_as is False  # the server saves a network game
    table.play_bots()
    table.submit(0, table.game.legal_plays()[0])
    table.play_bots()
    at_copy = list(table.game.plays)
    assert table.save_as("keep this") == "keep this"
    table.submit(0, table.game.legal_plays()[0])
    table.play_bots()
    table.close()
    assert store.open_game("keep this")[1].plays == at_copy
    assert store.open_game("auto")[1].plays == table.game.plays and len(table.game.plays) > len(at_copy)
    assert sorted(store.names()) == ["auto", "keep this"]
    with pytest.raises(Exception, match="already exists"):
        table.save_as("auto")


def test_the_commands_as_a_user_runs_them(store):
    """Subprocesses: exit statuses and one clear message each, never a traceback."""
    from tests.cli import ono99

    g = killed_mid_round(store)
    damaged, _, set_aside = damage("reordered", g, journal_lines(store))
    journal_path(store.path("crash")).write_bytes(damaged)
    proc = ono99("saves", "check")
    assert proc.returncode == 2 and f"{set_aside} plays in the journal set aside" in proc.stdout
    proc = ono99("replay", str(store.path("crash")))
    assert proc.returncode == 0 and f"{set_aside} plays in the journal set aside" in proc.stderr
    proc = ono99("saves", "restore", "nothing")
    assert proc.returncode == 2 and "no save named 'nothing'" in proc.stderr and proc.stderr.count("\n") == 1


def test_replay_takes_a_saves_name_as_resume_does(store, capsys):
    g = killed_mid_round(store)
    code, out, _ = run_cli(capsys, "replay", "crash", "--json")
    assert code == 0 and sum(e["type"] == "play" for e in json.loads(out)["events"]) == len(g.plays)
    code, _, err = run_cli(capsys, "replay", "no such game")
    assert code == 2 and "no such game" in err


async def test_resuming_a_damaged_save_tells_the_player_on_screen(store):
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen

    g = killed_mid_round(store)
    damaged, verify, set_aside = damage("flipped byte", g, journal_lines(store))
    journal_path(store.path("crash")).write_bytes(damaged)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        from tests.waits import settle

        assert app.resume("crash")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        messages = [str(n.message) for n in app._notifications]
        assert any(f"{set_aside} plays in the journal set aside" in m and "line 4" in m for m in messages), messages
        assert len(app.screen.table.game.plays) == len(g.plays) - JOURNAL_PLAYS + verify
    assert len(kept_journals(store)) == 1


async def test_the_load_screen_offers_a_damaged_saves_bak_and_b_puts_it_back(store):
    from tests.waits import load_screen, settle
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.load import LoadScreen

    killed_mid_round(store)
    path = store.path("crash")
    damaged = path.read_text().replace("[[rounds]]", "[[rounds]]\nbroken = 1", 1)
    path.write_text(damaged)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await load_screen(pilot)
        assert isinstance(screen, LoadScreen)
        info = screen.infos[0]
        assert info.damaged and info.has_bak
        await pilot.press("enter")
        await settle(pilot)
        assert "b to put back its previous version" in str(screen.query_one("#load-note").render())
        await pilot.press("b")
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert not screen.infos[0].damaged and screen.infos[0].name == "crash"
        kept = sorted(p.name for p in store.folder.iterdir() if p.name.startswith("crash.toml.replaced-"))
        told = [str(n.message) for n in app._notifications]
        assert f"'crash' is back at its previous version; the save it replaced is kept as {kept[0]}, and its " \
               f"journal (plays since) as {kept[1]}." in told, told
    assert len(kept) == 2 and (store.folder / kept[0]).read_text() == damaged


def test_a_damaged_journal_is_not_offered_the_bak_that_holds_fewer_plays(store, capsys):
    # a stranger's find: `saves check` advised `saves restore` for a damaged journal, whose .bak
    # holds fewer plays than resuming keeps (it plays on from the last good play)
    killed_mid_round(store)
    journal = store.path("crash").with_name("crash.toml.journal")
    lines = journal.read_text().splitlines(keepends=True)
    lines[-2] = lines[-2].replace('"', "'", 1)  # one line edited near the end
    journal.write_text("".join(lines))
    code, out, _ = run_cli(capsys, "saves", "check")
    assert code == 2 and "crash: damaged: " in out and "set aside" in out, out
    assert "saves restore" not in out
    assert "ono99 resume crash plays on from the last good play and keeps the plays after it in a file" in out
