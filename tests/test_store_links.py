"""Nothing is written through a link inside the data and config folders (issue 20 items 1, 12):
locks, saves, journals, stats, imports. Real symlinks, real files they point at, checked untouched."""

import os

import pytest

from ono99_tui.engine.record import Record
from ono99_tui.store.atomic import LinkedFile, write_atomic
from ono99_tui.store.lock import Lock
from ono99_tui.store.paths import data_dir
from ono99_tui.store.saves import SaveError, SaveStore
from ono99_tui.store.session import SaveSession
from tests.cli import ono99
from tests.test_saves import SEATS, played, save

PRECIOUS = "precious: must never be truncated\n"


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_text(PRECIOUS)
    return path


@pytest.fixture
def store(private_dirs):
    return SaveStore()


def test_a_lock_that_is_a_link_is_refused_and_its_target_untouched(store, victim):
    save(store, "friday")
    os.symlink(victim, store.path("friday").with_name("friday.toml.lock"))
    with pytest.raises(LinkedFile):
        Lock(store.path("friday")).acquire()
    proc = ono99("saves", "delete", "friday")
    assert proc.returncode == 2 and "is a link" in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1  # one message
    assert victim.read_text() == PRECIOUS
    assert store.path("friday").exists()  # and the save is still there


def test_opening_a_save_with_a_linked_lock_saves_nothing_and_leaves_the_target(store, victim):
    game = save(store, "friday")
    os.symlink(victim, store.path("friday").with_name("friday.toml.lock"))
    session = SaveSession(store, "friday", SEATS, "standard")
    notice = session.open()
    assert notice and "is a link" in notice
    session.save(game)
    assert victim.read_text() == PRECIOUS


def test_a_lock_or_listing_cache_that_is_a_hard_link_is_never_written_into(store, victim, private_dirs):
    # O_NOFOLLOW stops symbolic links only: a play-tester's hard-linked NAME.toml.lock had its
    # target's text replaced by "pid@host", and a hard-linked stats.toml.lock the same
    from ono99_tui.engine import Game
    from ono99_tui.store.stats import record_game

    game = save(store, "friday")
    os.link(victim, store.path("friday").with_name("friday.toml.lock"))
    with pytest.raises(LinkedFile, match="is a link; ono99 never writes through a link inside its folders: "
                                         "remove the link or put the real lock file there"):
        Lock(store.path("friday")).acquire()
    session = SaveSession(store, "friday", SEATS, "standard")
    notice = session.open()
    assert notice and "friday.toml.lock is a link" in notice, notice
    session.save(game)
    proc = ono99("saves", "delete", "friday")
    assert proc.returncode == 2 and "is a link" in proc.stderr and store.path("friday").exists()
    os.link(victim, data_dir() / "stats.toml.lock")
    with pytest.raises(OSError, match="is a link"):
        record_game(Game(["Ana", "Bo"], seed=1, record_events=False), [])
    os.unlink(store.path("friday").with_name("friday.toml.lock"))
    (store.folder / ".checked").unlink(missing_ok=True)
    os.link(victim, store.folder / ".checked")
    save(store, "saturday")  # written from a game: noted in the listing's cache, but not through a link
    assert victim.read_text() == PRECIOUS


def test_a_save_that_is_a_link_is_listed_as_such_and_never_opened(store, victim):
    store.folder.mkdir(parents=True, exist_ok=True)
    save(store, "real")
    target = store.folder.parent / "outside.toml"
    target.write_text(store.path("real").read_text())
    os.symlink(target, store.folder / "linked.toml")
    infos = {i.name: i for i in store.listing()}
    assert "a link" in infos["linked"].damaged
    with pytest.raises(SaveError, match="is a link"):
        store.open_game("linked")
    with pytest.raises(SaveError):
        store.write("linked", store.load("real"))
    assert target.read_text() == store.path("real").read_text()  # not written through


def test_write_atomic_refuses_a_link_and_stats_are_not_written_through_one(private_dirs, victim):
    link = private_dirs / "link.toml"
    os.symlink(victim, link)
    with pytest.raises(LinkedFile):
        write_atomic(link, "x = 1\n")
    assert victim.read_text() == PRECIOUS and os.path.islink(link)
    from ono99_tui.store import stats

    data_dir().mkdir(parents=True, exist_ok=True)
    os.symlink(victim, stats.stats_file())
    game = played(500, seed=5)
    with pytest.raises(OSError):
        stats.record_game(game, SEATS)
    assert victim.read_text() == PRECIOUS


def test_a_linked_saves_folder_is_refused_import_writes_nothing_there(private_dirs, tmp_path):
    outside = tmp_path / "etc"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0\n")
    data_dir().mkdir(parents=True)
    os.symlink(outside, data_dir() / "saves")
    record = tmp_path / "friday.toml"
    game = played(20)
    record.write_text(Record.from_game(game, SEATS, {"name": "friday"}).to_toml())
    proc = ono99("saves", "import", str(record))
    assert proc.returncode == 2 and "is a link" in proc.stderr and "ONO99_DATA_DIR" in proc.stderr, proc.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["passwd"]
    proc = ono99("saves", "list")
    assert proc.returncode == 2 and "is a link" in proc.stderr


def test_a_data_folder_linked_on_purpose_keeps_working(tmp_path, monkeypatch):
    synced = tmp_path / "Dropbox" / "ono99"
    synced.mkdir(parents=True)
    os.symlink(synced, tmp_path / "linked-data")
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "linked-data"))
    record = tmp_path / "friday.toml"
    record.write_text(Record.from_game(played(20), SEATS, {"name": "friday"}).to_toml())
    proc = ono99("saves", "import", str(record))
    assert proc.returncode == 0, proc.stderr
    assert (synced / "saves" / "friday.toml").is_file()
    proc = ono99("saves", "list")
    assert proc.returncode == 0 and "friday" in proc.stdout


def test_rename_and_delete_never_touch_what_a_linked_journal_points_at(store, victim):
    save(store, "friday")
    journal = store.path("friday").with_name("friday.toml.journal")
    os.symlink(victim, journal)
    store.rename("friday", "saturday")
    store.delete("saturday")
    assert victim.read_text() == PRECIOUS
    assert not os.path.lexists(store.folder / "saturday.toml.journal")


def test_a_linked_folder_inside_the_config_folder_is_not_written_through(private_dirs, tmp_path):
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.store.paths import config_dir, user_rules_dir
    from ono99_tui.store.rule_presets import save_preset

    outside = tmp_path / "somewhere"
    outside.mkdir()
    config_dir().mkdir(parents=True)
    os.symlink(outside, user_rules_dir())
    with pytest.raises(LinkedFile, match="is a link"):
        save_preset("mine", DEFAULT)
    assert list(outside.iterdir()) == []


def test_a_rules_or_themes_folder_that_is_a_link_is_neither_read_nor_changed_through(private_dirs, tmp_path):
    # a play-tester's rules/ was a link: the presets in the folder it points at were listed and
    # used, and Delete / Rename in House rules deleted and renamed them there
    from ono99_tui.store.paths import config_dir, user_rules_dir, user_themes_dir
    from ono99_tui.store.rule_presets import delete_preset, rename_preset, resolve, user_presets
    from ono99_tui.tui.themes import load_themes

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "house.toml").write_text("# my precious\n[scoring]\nmode = \"points\"\n")
    themes_elsewhere = tmp_path / "themes-elsewhere"
    themes_elsewhere.mkdir()
    (themes_elsewhere / "dark.toml").write_text("[theme]\nname = \"mine\"\n")
    config_dir().mkdir(parents=True)
    os.symlink(outside, user_rules_dir())
    os.symlink(themes_elsewhere, user_themes_dir())
    with pytest.raises(ValueError, match=f"{user_rules_dir()} is a link"):
        delete_preset("house")
    with pytest.raises(ValueError, match=f"{user_rules_dir()} is a link"):
        rename_preset("house", "moved")
    with pytest.raises(Exception, match="is a link"):
        resolve("house")
    assert [p.description for p in user_presets()] == ["your preset"]  # named, its text not read
    proc = ono99("rules", "list")
    listed = [line.split(None, 1) for line in proc.stdout.splitlines()]
    assert proc.returncode == 0 and ["house", f"cannot be read: {user_rules_dir()}: is a link; ono99 follows no "
                                     "link inside its config folder: put the file itself there, or link the "
                                     "whole config folder"] in listed, proc.stdout
    themes, problems = load_themes()
    assert "mine" not in themes and problems == [f"{user_themes_dir()}: {problems[0].split(': ', 1)[1]}"]
    assert "is a link" in problems[0]
    assert [p.name for p in outside.iterdir()] == ["house.toml"]
    assert (outside / "house.toml").read_text().startswith("# my precious")


async def test_the_game_with_a_linked_saves_folder_says_not_saving_and_writes_nothing_there(private_dirs, tmp_path):
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen
    from tests.waits import settle

    outside = tmp_path / "etc"
    outside.mkdir()
    data_dir().mkdir(parents=True)
    os.symlink(outside, data_dir() / "saves")
    app = Ono99App(bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.menu_choice("new")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        messages = [str(n.message) for n in app._notifications]
        assert any(m.startswith("Not saving") and "is a link" in m for m in messages), messages
    assert list(outside.iterdir()) == []


def test_a_journal_that_is_a_link_is_reported_and_set_aside_never_read_or_dropped_in_silence(store, victim):
    """A save's journal replaced by a link (an archive, a dotfile manager): `saves check` said ok
    and opening dropped the link without a word. It is never followed: check names it (exit 2),
    opening keeps the link itself aside and says so, and what it points at is untouched."""
    from tests.steps import mid_round_save
    from ono99_tui.table import TableSession

    mid_round_save(store)
    journal = store.path("friday").with_name("friday.toml.journal")
    journal.unlink()
    journal.symlink_to(victim)
    proc = ono99("saves", "check")
    assert proc.returncode == 2 and "friday.toml.journal is a link" in proc.stdout, proc.stdout
    record, game = store.open_game("friday")
    table = TableSession(record.seats, record.rules, record.seed, game=game)
    notice = table.autosave("standard", "friday", opened=True)
    assert notice and "is a link" in notice and "kept as friday.toml.journal-damaged-" in notice
    kept = [p for p in store.folder.iterdir() if p.name.startswith("friday.toml.journal-damaged-")]
    assert len(kept) == 1 and kept[0].is_symlink()
    table.close()
    assert victim.read_text() == PRECIOUS
    assert "kept in friday.toml.journal-damaged-" in ono99("saves", "check").stdout


def test_an_index_that_is_a_link_is_neither_read_nor_written_through(store, victim):
    """saves/.index.json linked to a file elsewhere: its lines were shown by `saves list` (read
    through the link) and every listing was cold after (the write refused). Now it is not read, and
    the listing replaces the link itself with a real index; the file it pointed at is untouched."""
    import json as _json

    save(store, "friday", plays=10)
    lie = {"format": "ono99-saves-index", "version": 1, "saves": {}}
    victim.write_text(_json.dumps(lie))
    st = store.path("friday").stat()
    lie["saves"]["friday"] = {"stamp": [st.st_mtime_ns, st.st_size],
                              "info": {"players": "Mallory", "round": 99, "scores": "lies", "checked": True}}
    victim.write_text(_json.dumps(lie))
    before = victim.read_text()
    (store.folder / ".index.json").unlink(missing_ok=True)
    (store.folder / ".index.json").symlink_to(victim)
    listed = ono99("saves", "list")
    assert listed.returncode == 0 and "Mallory" not in listed.stdout and "round 99" not in listed.stdout
    assert victim.read_text() == before
    assert not (store.folder / ".index.json").is_symlink() and (store.folder / ".index.json").is_file()


def test_stats_that_is_a_link_is_said_to_be_one(private_dirs, victim):
    """`ono99 stats` read a linked stats.toml through the link ("not valid TOML" for a file that
    is not statistics); it says the file is a link, as every writer does, and exits 2."""
    data_dir().mkdir(parents=True, exist_ok=True)
    (data_dir() / "stats.toml").symlink_to(victim)
    proc = ono99("stats")
    assert proc.returncode == 2 and "stats.toml is a link" in proc.stderr and "TOML" not in proc.stderr
    assert victim.read_text() == PRECIOUS


def test_a_preset_that_is_a_link_is_named_and_not_read(private_dirs, tmp_path):
    # README: inside its folders ono99 follows no link; a linked preset was read and used
    elsewhere = tmp_path / "tiny.toml"
    elsewhere.write_text("# tiny, from elsewhere\ntarget = 10\n")
    rules = private_dirs / "config" / "rules"
    rules.mkdir(parents=True)
    (rules / "link.toml").symlink_to(elsewhere)
    (rules / "mine.toml").write_text("# mine\ntarget = 50\n")
    said = f"{rules / 'link.toml'}: is a link; ono99 follows no link inside its config folder"
    listed = ono99("rules", "list").stdout.splitlines()
    assert any(line.startswith("link ") and f"cannot be read: {said}" in line for line in listed), listed
    assert any(line.startswith("mine ") and "mine" in line and "cannot" not in line for line in listed)
    for args in (("rules", "show", "link"), ("--rules", "link", "--plain")):
        proc = ono99(*args, input="")
        assert proc.returncode == 2 and said in proc.stderr and proc.stdout == "", proc
    assert "target = 50" in ono99("rules", "show", "mine").stdout


def test_a_theme_that_is_a_link_is_named_and_not_read(tmp_path):
    from ono99_tui.tui.themes import load_themes

    elsewhere = tmp_path / "mine.toml"
    elsewhere.write_text('name = "mine"\n')
    folder = tmp_path / "themes"
    folder.mkdir()
    (folder / "mine.toml").symlink_to(elsewhere)
    themes, problems = load_themes(folder)
    assert "mine" not in themes
    assert problems == [f"{folder / 'mine.toml'}: is a link; ono99 follows no link inside its config folder: "
                        "put the file itself there, or link the whole config folder"]
