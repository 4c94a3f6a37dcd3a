"""The store's guards, each pinned by a test that fails when the guard is dropped (issue 25).

Planted bugs that once survived the whole suite: a journal whose first line names another
record replayed as if it were this save's; a journal line the record already holds played a
second time; the lock taken on a file its last holder had already removed (the release race).
Each test builds the exact state, with no clock and no random kill moment.
"""

import errno
import json
import os
import types

import pytest

from ono99_tui.engine.record import Record
from ono99_tui.store import lock as lock_module
from ono99_tui.store.files import load_record
from ono99_tui.store.journal import (MAX_BYTES, JournalRead, JournalWriter, chain, chain_start, journal_path, new_id,
                                     play_line, read_journal)
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


def write_payloads(store, journal_id: str, payloads: list[str], header: str | None = None, tail: bytes = b"",
                   name="crash") -> None:
    """A journal whose lines are these payloads, each chained as ono99 chains them: every check
    value matches, so what the reader finds is the content itself."""
    previous = chain_start(journal_id)
    out = [(header or f"ono99-journal 2 {journal_id} {previous}") + "\n"]
    for payload in payloads:
        previous = chain(previous, payload)
        out.append(f"{previous} {payload}\n")
    journal_path(store.path(name)).write_bytes("".join(out).encode() + tail)


def _case(kind: str, plays: list, count: int, journal_id: str):
    """(payloads, header, tail, plays read, set aside, the reason) for one kind of bad journal."""
    p = [json.dumps(list(x)) for x in plays]
    n4, r4, who4, card4 = plays[3]
    if kind == "not a play":
        return p[:3] + ["[1, 2"] + p[4:], None, b"", 3, 9, "line 5: not a play"
    if kind == "a stranger's play":
        return p[:3] + [json.dumps([n4, r4, "Nobody", card4])] + p[4:], None, b"", 3, 9, \
            "line 5: not a play of this game"
    if kind == "numbers jump":
        return p[:3] + p[4:], None, b"", 3, 8, f"line 5: play numbers jump from {count + 3} to {count + 5}"
    if kind == "does not follow the record":
        return p[1:], None, b"", 0, 11, f"line 2: play {count + 2} does not follow play {count}"
    if kind == "back a round":
        return p[:3] + [json.dumps([n4, r4 - 1, who4, card4])] + p[4:], None, b"", 3, 9, \
            f"line 5: play {n4} goes back to round {r4 - 1}"
    if kind == "cut short":
        return p, None, p[0].encode()[:7], 12, 1, \
            "line 14 is cut short (the play being saved when ono99 stopped, or damage)"
    if kind == "not a play, then cut short":
        return p[:3] + ["[1, 2"] + p[4:], None, p[0].encode()[:7], 3, 10, "line 5: not a play"
    if kind == "no start value":
        return p, f"ono99-journal 2 {journal_id}", b"", 0, 12, "its first line is damaged"
    if kind == "a short start value":
        return p, f"ono99-journal 2 {journal_id} {chain_start(journal_id)[:15]}", b"", 0, 12, \
            "its first line is damaged"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["not a play", "not a play, then cut short", "a stranger's play", "numbers jump", "does not follow the record",
                                  "back a round", "cut short", "no start value", "a short start value"])
def test_each_reason_a_journal_is_set_aside_is_found_and_said_exactly(store, kind):
    """Every line here verifies (its check value is right): the reader must still refuse what
    does not continue this game, keep the plays before it, count exactly the plays set aside
    and give the reason `saves check` and the table's notice repeat to the player."""
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    payloads, header, tail, verified, aside, problem = _case(kind, plays, record.play_count, journal_id)
    write_payloads(store, journal_id, payloads, header, tail)
    read = read_journal(record, store.path("crash"))
    assert read.plays == [(r, n, c) for _, r, n, c in plays[:verified]]
    assert (read.set_aside, read.problem, read.present, read.not_a_file, read.linked) == \
        (aside, problem, True, False, False)
    assert read.describe() == f"{aside} play{'' if aside == 1 else 's'} in the journal set aside: {problem}"
    # a control: the same lines, well formed, read whole
    write_payloads(store, journal_id, [json.dumps(list(x)) for x in plays])
    whole = read_journal(record, store.path("crash"))
    assert (len(whole.plays), whole.set_aside, whole.problem) == (JOURNAL_PLAYS, 0, None)


def test_a_journal_naming_another_record_says_both_ids(store):
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    other = new_id()
    rewrite_journal(store, other, plays)
    read = read_journal(record, store.path("crash"))
    assert (read.plays, read.set_aside, read.present) == ([], JOURNAL_PLAYS, True)
    assert read.problem == f"it continues another record (journal id {other!r}, the save names {journal_id!r})"
    # a damaged id (any length) is shown cut to the 16 characters an id has
    long_id = "f" * 40
    rewrite_journal(store, long_id, plays)
    assert read_journal(record, store.path("crash")).problem == (
        f"it continues another record (journal id {'f' * 16!r}, the save names {journal_id!r})")
    # with no play the record lacks, the same journal is a fold's leftover: nothing to report
    rewrite_journal(store, other, [])
    assert read_journal(record, store.path("crash")) == JournalRead([], 0, None, present=True)
    # a record naming no journal at all (edited by hand) says so, not Python's None
    del record.meta["journal"]
    rewrite_journal(store, other, plays)
    assert read_journal(record, store.path("crash")).problem == (
        f"it continues another record (journal id {other!r}, the save names no journal)")


def test_a_journal_that_is_a_link_a_folder_or_unreadable_is_never_read_and_says_why(store, tmp_path, monkeypatch):
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    elsewhere = tmp_path / "elsewhere.journal"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    assert read_journal(record, store.path("crash")) == JournalRead([])  # none: nothing to say
    path.symlink_to(elsewhere)
    read = read_journal(record, store.path("crash"))
    problem = (f"crash.toml.journal is a link (to {elsewhere}); ono99 follows no link in the saves folder, "
               "so plays in what it points at were not read")
    assert read == JournalRead([], 0, problem, present=True, not_a_file=True, linked=True)
    assert read.describe() == f"the journal is not read: {problem}"
    path.unlink()
    path.mkdir()
    assert read_journal(record, store.path("crash")) == JournalRead([], not_a_file=True)
    path.rmdir()
    path.write_bytes(elsewhere.read_bytes())
    assert len(read_journal(record, store.path("crash")).plays) == JOURNAL_PLAYS  # (the control)
    from ono99_tui.store import journal as journal_module

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    for where in ("open", "lstat"):
        with monkeypatch.context() as m:
            m.setattr(journal_module.os, where, refused)
            read = read_journal(record, store.path("crash"))
        assert read == JournalRead([], 0, "cannot read crash.toml.journal: Permission denied", present=True), where


def test_an_oversized_journal_keeps_its_whole_lines_and_counts_the_rest(store):
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    whole = path.read_bytes()
    # every play whole, then bytes past the limit with no line end: only the size is wrong
    path.write_bytes(whole + b"x" * (MAX_BYTES + 10))
    read = read_journal(record, store.path("crash"))
    assert (len(read.plays), read.set_aside) == (JOURNAL_PLAYS, 1)
    assert read.problem == "the journal is larger than 4 MiB; the lines past that were not read"
    # lines of junk on both sides of the limit: the first bad line is the reason; those read
    # and those past the limit (counted, never held) are all set aside
    junk = b"x" * 100 + b"\n"
    path.write_bytes(whole + junk * ((MAX_BYTES - len(whole)) // len(junk) + 5000))
    read = read_journal(record, store.path("crash"))
    data = path.read_bytes()
    past = data[:MAX_BYTES].rfind(b"\n") + 1
    assert len(read.plays) == JOURNAL_PLAYS and read.problem.startswith(f"line {JOURNAL_PLAYS + 2}: damaged")
    assert read.set_aside == data.count(b"\n") - JOURNAL_PLAYS - 1 == data[past:].count(b"\n") + data[
        len(whole):past].count(b"\n")


def test_the_chain_is_the_documented_one(store):
    """docs/record-format.md, "The journal": a line's check value is the first 16 hex digits of
    SHA-256 of the previous value, a line end and the play's JSON (UTF-8, not escaped), and the
    first line's start value is that of "ono99-journal" and the journal's id. Journals written by
    any version read by any other: the formula is the format, so it is pinned here."""
    import hashlib

    def sha(text):
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    start = chain_start("0123456789abcdef")
    assert start == sha("ono99-journal\n0123456789abcdef")
    line, check = play_line((5, 2, "Zoë", "10"), start)
    assert line == f'{check} [5, 2, "Zoë", "10"]\n'.encode("utf-8")
    assert check == sha(f'{start}\n[5, 2, "Zoë", "10"]')


def test_a_journal_writer_appends_whole_lines_and_refuses_a_link_in_its_way(store, monkeypatch):
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    path = journal_path(store.path("crash"))
    old = os.umask(0o022)
    try:
        writer = JournalWriter(path, journal_id)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o600  # the owner's alone, as the save is (whatever the umask)
    # several plays in one append, then one: every line verifies and the count follows
    writer.append(plays[:3])
    writer.append(plays[3:4])
    assert writer.lines == 4
    # the disk takes one byte per write: every byte still goes down
    from ono99_tui.store import journal as journal_module
    real_write = os.write
    monkeypatch.setattr(journal_module.os, "write", lambda fd, data: real_write(fd, bytes(data[:1])))
    writer.append(plays[4:6])
    monkeypatch.setattr(journal_module.os, "write", lambda fd, data: 0)  # a disk that takes nothing
    with pytest.raises(OSError) as err:
        writer.append(plays[6:7])
    assert (err.value.errno, err.value.strerror) == (errno.EIO, "the journal took no more bytes")
    monkeypatch.undo()
    assert writer.lines == 6
    read = read_journal(record, store.path("crash"))
    assert (read.plays, read.problem) == ([(r, n, c) for _, r, n, c in plays[:6]], None)
    # started again after nothing was folded: every line kept, chained from the same start
    rest, start = writer.restarted(record.play_count)
    assert [n for n, _, _ in rest] == [p[0] for p in plays[:6]] and start == chain_start(journal_id)
    fd = writer.fd
    writer.close()
    writer.close()  # twice: nothing more to do
    assert writer.fd is None
    with pytest.raises(OSError):
        os.fstat(fd)  # closed, not leaked
    # a link where the writer makes its temp file: never written through
    target = store.folder / "elsewhere"
    target.write_text("theirs")
    other = new_id()
    (store.folder / f".{path.name}.{other}.tmp").symlink_to(target)
    with pytest.raises(OSError):
        JournalWriter(path, other)
    assert target.read_text() == "theirs"


def test_plays_set_aside_are_counted_without_the_ones_the_record_holds(store):
    """The count `saves check` reports: lines the record already holds (a fold's leftover, up to
    and including its last play) are not plays lost; a damaged line counts even when its number
    says it is old (it may have been a new one); a blank line is not a play; a journal of
    version 1 (no check values) is counted the same way."""
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    count = record.play_count
    # numbered count-2..count, of the round before (a fold at the round's end, killed before the
    # journal was started again): skipped, never "going back" a round
    old = [(count - 2 + i, plays[0][1] - 1, plays[0][2], plays[0][3]) for i in range(3)]
    assert plays[0][1] - 1 == len(record.rounds)  # the record's last round
    # another record's journal holding three old plays and the twelve new ones: twelve set aside
    rewrite_journal(store, new_id(), old + plays)
    assert read_journal(record, store.path("crash")).set_aside == JOURNAL_PLAYS
    # this record's: a blank line after the fourth play is damage; the eight after it are set aside
    p = [json.dumps(list(x)) for x in old + plays]
    path = journal_path(store.path("crash"))
    write_payloads(store, journal_id, p)
    lines = path.read_bytes().split(b"\n")
    path.write_bytes(b"\n".join(lines[:8] + [b""] + lines[8:]))
    read = read_journal(record, store.path("crash"))
    assert (len(read.plays), read.set_aside, read.problem) == (
        4, 8, "line 9: damaged or edited (its check value does not match)")
    # the second old line damaged: it counts (1), the third (the record's last play) does not,
    # the twelve new plays do
    write_payloads(store, journal_id, p)
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:5] + (b"0" if lines[2][5:6] != b"0" else b"1") + lines[2][6:]  # its check value
    path.write_bytes(b"\n".join(lines))
    read = read_journal(record, store.path("crash"))
    assert (read.plays, read.set_aside) == ([], 1 + JOURNAL_PLAYS)
    # a damaged line, then a copy of a play already read (a sync tool): the copy is not a play lost
    write_payloads(store, journal_id, p)
    lines = path.read_bytes().split(b"\n")  # header, 3 old, 12 new
    lines[7] = lines[7][:5] + (b"0" if lines[7][5:6] != b"0" else b"1") + lines[7][6:]  # the 4th new play
    path.write_bytes(b"\n".join(lines[:8] + [lines[5]] + lines[8:]))  # then the 2nd new play again
    read = read_journal(record, store.path("crash"))
    assert (len(read.plays), read.set_aside) == (3, 1 + JOURNAL_PLAYS - 4)
    # version 1: bare JSON lines; one that does not follow sets aside itself and the rest
    v1 = [f"ono99-journal 1 {journal_id}"] + p[:5] + p[6:]
    path.write_text("\n".join(v1) + "\n")
    read = read_journal(record, store.path("crash"))
    assert (len(read.plays), read.set_aside) == (2, JOURNAL_PLAYS - 3)
    assert read.problem == f"line 7: play numbers jump from {count + 2} to {count + 4}"
    # version 1, a line that is not a play, then old lines: only the bad line and the new plays count
    v1 = [f"ono99-journal 1 {journal_id}", "garbage"] + p
    path.write_text("\n".join(v1) + "\n")
    read = read_journal(record, store.path("crash"))
    assert (read.plays, read.set_aside, read.problem) == ([], 1 + JOURNAL_PLAYS, "line 2: not a play")


def test_the_size_limit_counts_exactly_at_its_edges_and_holds_no_more_than_the_limit(store):
    """A journal is read up to MAX_BYTES in whole lines; past that its lines are counted as set
    aside, a chunk at a time, never held: exact at the edges, bounded in memory."""
    import tracemalloc

    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    whole = path.read_bytes()

    def journal(size: int, last: bytes) -> bytes:
        """``whole``, then lines of x up to exactly ``size`` bytes, ``last`` the final byte."""
        fill = size - len(whole) - 1
        body = (b"x" * 99 + b"\n") * (fill // 100) + b"x" * (fill % 100)
        return whole + body + last

    # exactly at the limit, its last line cut short: read whole, and that line is what is wrong
    path.write_bytes(journal(MAX_BYTES, b"x"))
    read = read_journal(record, store.path("crash"))
    assert read.problem == f"line {JOURNAL_PLAYS + 2}: damaged or edited (its check value does not match)"
    lines = path.read_bytes().count(b"\n")
    assert read.set_aside == lines - JOURNAL_PLAYS - 1 + 1  # every junk line, the cut one too
    # one byte past it, that byte ending a line: the one line across the limit is set aside, once
    data = journal(MAX_BYTES + 1, b"\n")
    path.write_bytes(data)
    read = read_journal(record, store.path("crash"))
    assert read.set_aside == data.count(b"\n") - JOURNAL_PLAYS - 1
    # far past it (60 MiB, counted in chunks): the count is exact and the memory bounded
    big = journal(MAX_BYTES + 60 * 1024 * 1024, b"\n")
    path.write_bytes(big)
    tracemalloc.start()
    try:
        read = read_journal(record, store.path("crash"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.set_aside == big.count(b"\n") - JOURNAL_PLAYS - 1 and len(read.plays) == JOURNAL_PLAYS
    assert peak < 40 * 1024 * 1024, f"read_journal held {peak / 2**20:.0f} MiB of a 64 MiB journal"


def test_journals_with_nothing_to_read_say_nothing(store):
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    journal_id, plays = journal_plays_of(store)
    count = record.play_count
    # not even a whole first line (a kill during the journal's first write)
    path.write_bytes(b"ono99-jour")
    assert read_journal(record, store.path("crash")) == JournalRead([], present=True)
    # a damaged first line and only plays the record holds: nothing is lost, so nothing to say
    old = [json.dumps([count - 1, 1, plays[0][2], "5"]), json.dumps([count, 1, plays[0][2], "5"])]
    write_payloads(store, journal_id, old, header=f"ono99-journal 2 {journal_id}")
    assert read_journal(record, store.path("crash")) == JournalRead([], present=True)
    # a CRLF journal cut just before its last line end: that line is cut short like any other
    write_payloads(store, journal_id, [json.dumps(list(x)) for x in plays])
    crlf = path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(crlf[:-1])
    read = read_journal(record, store.path("crash"))
    assert (len(read.plays), read.set_aside) == (JOURNAL_PLAYS - 1, 1)
    assert read.problem.startswith(f"line {JOURNAL_PLAYS + 1} is cut short")


def test_a_journal_swapped_for_a_link_after_the_look_is_still_not_followed(store, tmp_path, monkeypatch):
    """read_journal looks (lstat) before it opens: a link put in place between the two must
    still not be followed (O_NOFOLLOW), and a link whose target cannot be read is named plainly."""
    from ono99_tui.store import journal as journal_module

    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(path.read_bytes())
    regular = os.lstat(path)
    path.unlink()
    path.symlink_to(elsewhere)
    with monkeypatch.context() as m:
        m.setattr(journal_module.os, "lstat", lambda p: regular)  # the look saw the regular file
        read = read_journal(record, store.path("crash"))
    assert read.plays == [] and read.present and read.problem.startswith("cannot read crash.toml.journal: ")
    with monkeypatch.context() as m:
        m.setattr(journal_module.os, "readlink", lambda p: (_ for _ in ()).throw(OSError(2, "gone")))
        read = read_journal(record, store.path("crash"))
    assert read.problem == ("crash.toml.journal is a link; ono99 follows no link in the saves folder, "
                            "so plays in what it points at were not read")


def test_bytes_that_are_not_utf_8_or_a_bad_header_with_nothing_to_lose_are_read_calmly(store):
    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    lines = path.read_bytes().split(b"\n")
    # a byte no UTF-8 text holds, in the 5th play's card: that line is damage, not a crash
    lines[5] = lines[5][:-3] + b"\xff" + lines[5][-2:]
    path.write_bytes(b"\n".join(lines))
    read = read_journal(record, store.path("crash"))
    assert (len(read.plays), read.set_aside) == (4, JOURNAL_PLAYS - 4)
    assert read.problem == "line 6: damaged or edited (its check value does not match)"
    # a first line that is no header, and nothing the record lacks: nothing lost, nothing said
    path.write_bytes(b"not a journal\n")
    assert read_journal(record, store.path("crash")) == JournalRead([], present=True)


def test_a_fifo_put_in_the_journals_place_after_the_look_never_blocks_the_open(store, monkeypatch):
    """Opened without O_NONBLOCK, a FIFO that takes the journal's place between the look and the
    open would block the app (or the server) until something writes to it."""
    import threading

    from ono99_tui.store import journal as journal_module

    killed_mid_round(store)
    record = load_record(store.path("crash"))
    path = journal_path(store.path("crash"))
    regular = os.lstat(path)
    path.unlink()
    os.mkfifo(path)
    result = []
    monkeypatch.setattr(journal_module.os, "lstat", lambda p: regular)  # the look saw the regular file
    reader = threading.Thread(target=lambda: result.append(read_journal(record, store.path("crash"))), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # blocked in open(): a writer lets it go, and the test fails
        os.close(os.open(path, os.O_WRONLY))
        reader.join(10)
        raise AssertionError("read_journal blocked on a FIFO")
    assert result == [JournalRead([], present=True)]
