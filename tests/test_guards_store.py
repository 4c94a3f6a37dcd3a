"""The store's guards, each pinned by a test that fails when the guard is dropped (issue 25).

Planted bugs that once survived the whole suite: a journal whose first line names another
record replayed as if it were this save's; a journal line the record already holds played a
second time; the lock taken on a file its last holder had already removed (the release race).
Each test builds the exact state, with no clock and no random kill moment.
"""

import json
import types

import pytest

from ono99_tui.engine.record import Record
from ono99_tui.store import lock as lock_module
from ono99_tui.store.files import load_record
from ono99_tui.store.journal import JournalWriter, chain_start, journal_path, new_id, play_line, read_journal
from ono99_tui.store.lock import Lock
from ono99_tui.store.saves import SaveStore
from tests.test_journal_check import JOURNAL_PLAYS, killed_mid_round


@pytest.fixture
def store(private_dirs):
    return SaveStore()


def journal_plays_of(store, name="crash") -> tuple[str, list[tuple[int, int, str, str]]]:
    """(the journal's id, its plays as (number, round, name, card)) -- read from its lines."""
    lines = journal_path(store.path(name)).read_text().splitlines()
    header = lines[0].split(" ")
    return header[2], [tuple(json.loads(line.partition(" ")[2])) for line in lines[1:]]


def rewrite_journal(store, journal_id: str, plays, name="crash") -> None:
    """A whole, well-chained journal with this id and these plays (what another fold would write)."""
    previous, lines = chain_start(journal_id), []
    for p in plays:
        line, previous = play_line(p, previous)
        lines.append((p[0], line, previous))
    JournalWriter(journal_path(store.path(name)), journal_id, lines, durable=True).close()


def test_a_whole_journal_naming_another_record_is_never_replayed(store):
    """Every line verifies and every play is legal: only the journal's id says that these plays
    are not this record's (a save copied over another of the same name, a fold's leftover).
    They are set aside and reported, never played."""
    g = killed_mid_round(store)
    record = load_record(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    assert journal_id == record.meta["journal"] and len(plays) == JOURNAL_PLAYS
    # the unchanged journal is this record's: every play is read (the test's own control)
    assert len(read_journal(record, store.path("crash")).plays) == JOURNAL_PLAYS

    other = new_id()
    assert other != journal_id
    rewrite_journal(store, other, plays)
    read = read_journal(record, store.path("crash"))
    assert read.plays == []
    assert read.set_aside == JOURNAL_PLAYS
    assert "continues another record" in read.problem
    _, game = store.open_game("crash")
    assert len(game.plays) == record.play_count == len(g.plays) - JOURNAL_PLAYS


def test_journal_lines_the_record_already_holds_are_skipped_not_played_twice(store):
    """A fold writes the record first and starts the journal again after: killed between the
    two, the journal still begins with plays the record holds. Exactly those are skipped --
    the one numbered like the record's last play included."""
    g = killed_mid_round(store)
    record = load_record(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    count = record.play_count
    assert plays[0][0] == count + 1

    folded = 3  # the fold wrote these three journal plays into the record, then the kill came
    game = record.replay()
    for _, _, _, card in plays[:folded]:
        game.play(card)
    newer = Record.from_game(game, record.seats, dict(record.meta))
    assert newer.meta["journal"] == journal_id and newer.play_count == count + folded
    store.write("crash", newer)

    read = read_journal(load_record(store.path("crash")), store.path("crash"))
    assert read.problem is None and read.set_aside == 0
    assert read.plays == [(r, n, c) for _, r, n, c in plays[folded:]]
    _, opened = store.open_game("crash")
    assert opened.plays == g.plays


def test_the_lock_is_not_taken_on_a_file_its_holder_removed_meanwhile(private_dirs, monkeypatch):
    """The release race: we open NAME.toml.lock, its holder releases (removes the file, closes),
    another ono99 creates a new lock file and takes it, and only then does our flock run -- on
    the removed file, where it succeeds. Taking that would make two holders; the lock must see
    the path now names another file and try again (and find it held)."""
    save = private_dirs / "saves" / "g.toml"
    save.parent.mkdir(parents=True)
    holder, ours, newcomer = Lock(save), Lock(save), Lock(save)
    assert holder.acquire()

    real = lock_module.fcntl
    raced = []

    def flock(fd, op):
        if not raced:  # our first flock, after our open: the race happens here
            raced.append(True)
            holder.release()
            assert newcomer.acquire()
        return real.flock(fd, op)

    monkeypatch.setattr(lock_module, "fcntl", types.SimpleNamespace(flock=flock, LOCK_EX=real.LOCK_EX,
                                                                    LOCK_NB=real.LOCK_NB))
    got = ours.acquire()
    assert raced, "the race was never staged"
    assert newcomer.mine
    assert not got and not ours.mine, "two processes hold the same save's lock"
    monkeypatch.setattr(lock_module, "fcntl", real)
    assert ours.held_by_other()
    newcomer.release()
    assert ours.acquire()  # and once it is free, ours to take
    ours.release()


def test_a_journal_names_its_record_by_a_16_hex_digit_id(store):
    """docs/record-format.md, "The journal": the first line is `ono99-journal 2 ID START`, the id
    16 hex digits that the record's meta.journal names, START the check value the chain starts from
    (16 hex digits too: from the id, or from the last line a fold took into the record)."""
    killed_mid_round(store)
    header = journal_path(store.path("crash")).read_text().splitlines()[0].split(" ")
    assert header[:2] == ["ono99-journal", "2"] and len(header) == 4
    journal_id, start = header[2], header[3]
    assert len(journal_id) == 16 and int(journal_id, 16) >= 0
    assert load_record(store.path("crash")).meta["journal"] == journal_id
    assert len(start) == 16 and int(start, 16) >= 0
    assert len({new_id() for _ in range(50)}) == 50  # (ids never repeat in practice)


@pytest.mark.parametrize("header", [b"ono98-journal 2 {id} {start}", b"ono99-journal 3 {id} {start}",
                                    b"ono99-journal 2", b"ono99-journal  2 {id} {start}",
                                    b"ONO99-JOURNAL 2 {id} {start}"])
@pytest.mark.parametrize("cut", [b"", b'7e3a [99, 9, "You"'])
def test_a_damaged_first_line_sets_every_play_aside_with_its_reason(store, header, cut):
    """Deterministic, one damage at a time (the hypothesis test finds these only by chance): a
    first line that is not a journal header sets aside every play line after it, and a line cut
    short at the end, counted exactly."""
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    lines = path.read_bytes().split(b"\n")
    journal_id, start = lines[0].split(b" ")[2:4]
    lines[0] = header.replace(b"{id}", journal_id).replace(b"{start}", start)
    path.write_bytes(b"\n".join(lines) + cut)
    read = read_journal(record, store.path("crash"))
    assert read.plays == []
    assert read.set_aside == JOURNAL_PLAYS + (1 if cut else 0)
    assert read.problem == "its first line is not an ono99 journal header (damaged)"
