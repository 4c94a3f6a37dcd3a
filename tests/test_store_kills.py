"""The world being unkind to files: a process killed between two writes, names a shell cannot
type back. Each test stands for a play-tester's find (kill -9 at a step, a saves folder
holding what another program made) and checks nothing the player was told is lost or wrong."""

import os

from ono99_tui.engine.record import SeatSpec
from ono99_tui.engine.rules import rules_from_dict
from ono99_tui.store import stats
from ono99_tui.store.saves import SaveStore
from ono99_tui.table import TableSession
from tests.waits import load_screen

SHORT = rules_from_dict({"scoring": {"tokens": 1, "extra_life": False}})
SEATS = [SeatSpec("You"), SeatSpec("Bo", "bot:easy"), SeatSpec("Cy", "bot:easy")]


class Killed(BaseException):
    """kill -9 at that step: nothing after it runs (not an error anything catches)."""


def _finish(table):
    while not table.over:
        if table.bot_to_move:
            table.play_bot()
        else:
            table.submit(table.game.current, table.game.legal_plays()[0])


def test_a_kill_while_the_statistics_are_written_at_a_games_end_loses_no_game(private_dirs, monkeypatch):
    """kill -9 at the end of a game (ono99 --plain), while stats.toml was being written: the save
    already held the last play, so `ono99 resume` opened a finished game, which counts nothing,
    and the game was missing from `ono99 stats` for good. The statistics are now written before
    the save that finishes the game: a kill between the two leaves the last play to make again,
    and the game is counted then (once: its id)."""
    real = stats.write_atomic

    def killed(*args, **kwargs):
        raise Killed

    table = TableSession(SEATS, SHORT, seed=5)
    table.record_stats = True
    assert table.autosave("short", "friday") is None
    monkeypatch.setattr(stats, "write_atomic", killed)
    try:
        _finish(table)
    except Killed:
        pass
    monkeypatch.setattr(stats, "write_atomic", real)
    table.save.wait()
    table.save._drop_journal()  # as the killed process left it: no fold on leaving, the lock dropped
    table.save.lock.release()

    record, game = SaveStore().open_game("friday")
    again = TableSession(SEATS, SHORT, seed=record.seed, game=game, game_id=record.game_id)
    again.record_stats = True
    assert again.autosave("short", "friday", opened=True) is None
    _finish(again)
    again.close()
    players, problem = stats.load_stats()
    assert problem is None
    assert players.get("You", {}).get("games") == 1


def test_a_save_file_named_in_bytes_no_shell_types_gets_a_rename_command_that_works(private_dirs, tmp_path):
    """A saves folder filled by another program (a sync tool, an archive from another system): a
    file named b"bad\\xff\\xfe.toml" (not UTF-8) was listed as "bad\\udcff\\udcfe" with
    `mv '.../bad\\udcff\\udcfe.toml' ...`, a command naming no file; one with a newline in its name
    was listed over two lines. Each is now one line, and its command renames the file."""
    import os
    import shutil
    import subprocess

    from tests.cli import ono99

    store = SaveStore()
    table = TableSession(SEATS, SHORT, seed=5)
    assert table.autosave("short", "friday") is None
    table.close()
    folder = os.fsencode(store.folder)
    odd = [b"bad\xff\xfe", b"two\nlines", b"it's \x1b[31mred"]
    for raw in odd:
        shutil.copy(store.path("friday"), folder + b"/" + raw + b".toml")
    out = ono99("saves", "list")
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if "[cannot open]" in line]
    assert len(lines) == len(odd), out.stdout
    assert "\\udc" not in out.stdout and "bad\\xff\\xfe  [cannot open]" in out.stdout
    assert "two\\x0alines  [cannot open]" in out.stdout
    for line in lines:
        command = line[line.index("e.g. mv ") + len("e.g. "):]
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
    assert not any(os.path.lexists(folder + b"/" + raw + b".toml") for raw in odd)
    assert sorted(store.names()) == ["bad", "friday", "it s 31mred", "two lines"]


def test_a_disk_that_fills_in_the_middle_of_a_journal_line_leaves_no_damage_behind(private_dirs, monkeypatch):
    """Disk full while a play was appended: part of its line was written, the rest refused. The
    table said "Not saving" (that play was never acknowledged as saved), yet the half line stayed
    in the journal, and the next `ono99 resume` called the save damaged, set a play aside into a
    journal-damaged file, and `saves check` exited 2 for it ever after. A failed append now takes
    its part line back out: the save opens clean with every play saved before the disk filled."""
    import errno

    import ono99_tui.store.journal as journal_mod
    from ono99_tui.engine import Game
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.store import saves as saves_mod
    from ono99_tui.store.session import SaveSession
    from tests.test_saves_faults import journal_plays

    store = SaveStore()
    game = Game([s.name for s in SEATS], DEFAULT, 3)
    session = SaveSession(store, "full", SEATS, "standard")
    assert session.open() is None
    session.save(game)
    rng = journal_plays(session, game, 2)
    saved = len(game.plays)

    real = os.write
    calls = []

    def full(fd, data):  # the disk takes a few bytes of the line, then no more
        calls.append(fd)
        if len(calls) == 1:
            return real(fd, bytes(data[:7]))
        raise OSError(errno.ENOSPC, "No space left on device")

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal_mod.os, "write", full)
    monkeypatch.setattr(saves_mod, "write_atomic", no_space)
    game.play(rng.choice(game.legal_plays()))
    assert "Not saving" in (session.save(game) or "")
    session.close()  # left while the disk is still full: nothing more could be written
    monkeypatch.undo()

    record, reopened = store.open_game("full")
    assert len(reopened.plays) == saved
    again = SaveSession(store, "full", SEATS, "standard")
    assert again.open(reopened) is None  # no "Damaged save", nothing set aside
    again.close()
    assert [why for _, why in store.check()] == [None]



def test_settings_that_cannot_be_written_say_which_file_and_why(private_dirs):
    """Settings saved (o in --plain, Save on the Settings screen) where the config folder is a file
    said "Settings not saved: File exists."; where config.toml is a folder, "Is a directory": no file
    named, nothing to do. Both now name config.toml and what is in its way."""
    from tests.cli import ono99

    config = private_dirs / "config"
    config.write_text("not a folder\n")
    out = ono99("--plain", input="o\nZed\n\n\n\n\nq\n")
    assert f"Settings not saved: cannot write {config}/config.toml: {config} is a file, not a folder" \
        in out.stdout, out.stdout
    config.unlink()
    (config / "config.toml").mkdir(parents=True)
    out = ono99("--plain", input="o\nZed\n\n\n\n\nq\n")
    assert (f"Settings not saved: cannot write {config}/config.toml: it is a folder, not a file "
            "(move it away)") in out.stdout, out.stdout


async def test_load_shows_an_odd_file_name_on_one_line_and_offers_a_save_name_to_rename_it_to(private_dirs):
    """Load with a save file named b"two\\nlines.toml" (another program's): its name took two lines
    of the list; r on b"bad\\xff.toml" opened Rename with "bad\\udcff" in the field, a name refused
    as it stood. The name is shown on one line, as its bytes, and Rename offers a save name
    like it (what saves list suggests), so Enter renames it."""
    import shutil

    from textual.widgets import Input

    from ono99_tui.tui.app import Ono99App

    store = SaveStore()
    table = TableSession(SEATS, SHORT, seed=5)
    assert table.autosave("short", "friday") is None
    table.close()
    folder = os.fsencode(store.folder)
    for raw in (b"two\nlines", b"bad\xff"):
        shutil.copy(store.path("friday"), folder + b"/" + raw + b".toml")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await load_screen(pilot)
        listing = screen.query_one("#saves")
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert any(text.startswith("[b]two\\x0alines[/b]  DAMAGED") for text in shown), shown
        bad = next(i for i, info in enumerate(screen.infos) if info.name.startswith("bad"))
        listing.highlighted = bad
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "bad"
        assert "\\udc" not in app.screen.title_text
        await pilot.press("enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert "bad" in store.names() and not os.path.lexists(folder + b"/bad\xff.toml")


def test_a_data_folder_that_is_a_file_is_named_as_such_everywhere(private_dirs):
    """ONO99_DATA_DIR naming a file: `saves list` said "cannot read the saves folder .../saves: Not a
    directory", `ono99 stats` told the player to "fix or remove the file" (stats.toml, which does
    not exist), and a game "Not saving: ... Not a directory". Each now says the data folder is a file."""
    from tests.cli import ono99

    data = private_dirs / "data"
    data.write_text("a file, not a folder\n")
    said = f"{data} is a file, not a folder"
    listing = ono99("saves", "list")
    assert listing.returncode == 2 and said in listing.stderr, listing.stderr
    counts = ono99("stats")
    assert counts.returncode == 2 and said in counts.stderr and "remove the file" not in counts.stderr, counts.stderr
    table = TableSession(SEATS, SHORT, seed=5)
    notice = table.autosave("short")
    assert notice and notice.startswith("Not saving") and said in notice, notice


def test_a_save_nobody_may_read_says_how_to_allow_it(private_dirs, monkeypatch):
    """A save with mode 000 (or another user's) was listed "[damaged] cannot read the save:
    permission denied": nothing to do but guess. It now says how to allow reading it."""
    import errno

    from ono99_tui.store import readfile

    table = TableSession(SEATS, SHORT, seed=5)
    assert table.autosave("short", "friday") is None
    table.close()
    path = str(SaveStore().path("friday"))
    real = readfile.os.open

    def denied(file, flags, *args, **kwargs):  # (the tests run as root, whom mode 000 does not stop)
        if str(file) == path:
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real(file, flags, *args, **kwargs)

    monkeypatch.setattr(readfile.os, "open", denied)
    (info,) = SaveStore().listing()
    import shlex

    assert info.damaged == f"cannot read the save: permission denied; to allow it: chmod u+r {shlex.quote(path)} (as its owner)"
