"""A player's save names and files (store/saves.py: check_name, delete, restore), pinned where
planted bugs survived (issue 25): what each refusal says, what a delete leaves (nothing of the
save) and never reaches (a file outside the folder), what a restore keeps aside and names."""

from __future__ import annotations

import errno
import os
import re
import shutil

import pytest

from ono99_tui.store import saves as saves_module
from ono99_tui.store.files import load_record
from ono99_tui.store.journal import journal_path
from ono99_tui.store.lock import Lock
from ono99_tui.store.saves import SaveError, SaveStore, check_name, name_for, restored_kept

from .test_journal_check import killed_mid_round
from .test_saves import save


@pytest.fixture
def store(private_dirs):
    return SaveStore()


def refused(call, *args) -> str:
    with pytest.raises(SaveError) as exc:
        call(*args)
    return str(exc.value)


def files(store) -> dict:
    return {p.name: p.read_bytes() for p in store.folder.iterdir()
            if p.is_file() and not p.name.startswith(".") and not p.name.endswith(".lock")}


# -- names ---------------------------------------------------------------------------------
def test_a_name_is_at_most_forty_characters_and_says_so():
    assert check_name("x" * 40) == "x" * 40
    assert refused(check_name, "x" * 41) == "save names are at most 40 characters (41 given)"
    assert check_name("Friday.TOML") == "Friday" and check_name(" x .toml ") == "x"


def test_a_missing_or_unsafe_name_is_refused_in_these_words():
    assert refused(check_name, "  .toml") == "a save needs a name"
    assert refused(check_name, "a/b") == ('save name "a/b": use letters, digits, spaces, \'-\' and \'_\', starting with '
                                          "a letter or digit (no '/', '\\', '..' or leading '.')")


def test_a_device_name_of_windows_is_refused_in_these_words():
    assert refused(check_name, "nul ") == ('save name "nul" is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, '
                                          "LPT1-9); choose another")
    assert "device name" in refused(check_name, "COM\u00b9")


@pytest.mark.parametrize("stem, suggested", [
    ("mygame (1)", "mygame 1"), ("x.sync-conflict-20260101", "x sync-conflict-20260101"),
    ("--==--", "game"), ("_leading", "leading"), ("a" * 50, "a" * 40), ("a" * 39 + " b", "a" * 39),
    ("Partie a\u0300 Zoe\u0301", "Partie \u00e0 Zo\u00e9"), ("Xavier (1)", "Xavier 1"),
    ("\u0915\u093e\u092e (1)", "\u0915\u093e\u092e 1"),  # (Hindi "kaam": its vowel sign is a spacing mark, Mc)
    ("\u0928\u092e\u0938\u094d\u0924\u0947 (2)", "\u0928\u092e\u0938\u094d\u0924\u0947 2"),  # (a virama, Mn)
])
def test_a_file_name_that_is_no_save_name_is_offered_one_like_it(stem, suggested):
    assert name_for(stem) == suggested and check_name(suggested) == suggested


def test_names_written_with_marks_are_save_names():
    for name in ("\u0915\u093e\u092e", "\u0928\u092e\u0938\u094d\u0924\u0947"):
        assert check_name(name) == name


def test_a_dot_file_in_the_folder_is_never_listed_nor_deleted_as_a_save(store):
    save(store, "friday")
    shutil.copy(store.path("friday"), store.folder / ".draft.toml")
    assert store.names() == ["friday"]
    with pytest.raises(SaveError):
        store.delete(".draft")
    assert (store.folder / ".draft.toml").exists()


# -- delete --------------------------------------------------------------------------------
def test_deleting_a_save_leaves_nothing_of_it(store):
    killed_mid_round(store)
    save(store, "crash", plays=40)  # (a .bak beside it too)
    assert {"crash.toml", "crash.toml.bak", "crash.toml.journal"} <= set(files(store))
    store.delete("crash")
    assert not [n for n in files(store) if n.startswith("crash")]


def test_a_save_that_is_not_there_is_said_to_be_not_there(store):
    assert refused(store.delete, "ghost") == f"no save named 'ghost' in {store.folder}"
    assert refused(store.restore, "ghost") == f"no save named 'ghost' in {store.folder}"


def test_a_file_named_like_no_save_can_be_deleted_by_the_name_it_is_listed_under(store):
    save(store, "mygame")
    shutil.copy(store.path("mygame"), store.folder / "mygame (1).toml")
    store.delete("mygame (1)")
    assert sorted(files(store)) == ["mygame.toml"]


def test_a_delete_never_reaches_a_file_outside_the_saves_folder(store):
    save(store, "friday")
    outside = store.folder.parent / "outside.toml"
    outside.write_text("mine\n")
    for name in ("../outside", "..\\outside", "/" + str(outside.with_suffix(""))):
        with pytest.raises(SaveError):
            store.delete(name)
    assert outside.read_text() == "mine\n"


def test_a_delete_that_cannot_remove_a_file_names_it_and_why(store):
    save(store, "friday")
    bak = store.path("friday").with_name("friday.toml.bak")
    bak.mkdir()
    assert refused(store.delete, "friday") == f"cannot delete {bak}: Is a directory"
    assert "friday.toml" in files(store)
    bak.rmdir()
    store.path("friday").unlink()
    store.path("friday").mkdir()
    assert refused(store.delete, "friday") == f"cannot delete {store.path('friday')}: Is a directory"


def test_a_save_open_elsewhere_or_with_a_bad_lock_is_not_deleted_and_says_why(store):
    save(store, "friday")
    path = store.path("friday")
    lock = Lock(path)
    assert lock.acquire()
    try:
        assert refused(store.delete, "friday") == f"'friday' is open in another ono99 ({lock.owner()}); {lock.hint()}"
    finally:
        lock.release()
    path.with_name("friday.toml.lock").mkdir()
    assert refused(store.delete, "friday") == f"cannot delete {path}: {path.with_name('friday.toml.lock')}: Is a directory"
    assert "friday.toml" in files(store)


def test_a_saves_folder_that_is_a_file_is_said_to_be_one(private_dirs, tmp_path):
    where = tmp_path / "saves"
    where.write_text("")
    assert refused(SaveStore(where).delete, "friday") == f"cannot look for {where / 'friday.toml'}: Not a directory"


# -- restore -------------------------------------------------------------------------------
STAMP = re.compile(r"^friday\.toml\.replaced-\d{8}-\d{6}$")


def test_a_restore_keeps_the_save_it_replaces_and_says_where(store):
    save(store, "friday")
    save(store, "friday", plays=40)
    newer = store.path("friday").read_bytes()
    kept, journal = store.restore("friday")
    assert STAMP.match(kept) and journal == ""
    assert (store.folder / kept).read_bytes() == newer
    assert store.load("friday").play_count == 30


def test_a_restore_keeps_the_journal_of_the_save_it_replaces_and_leaves_none_beside_it(store):
    killed_mid_round(store)
    jpath = journal_path(store.path("crash"))
    plays = jpath.read_bytes()
    kept, journal = store.restore("crash")
    assert journal == kept + ".journal" and (store.folder / journal).read_bytes() == plays
    assert not jpath.exists()


def test_a_journal_left_without_its_save_is_kept_when_the_bak_is_restored(store):
    killed_mid_round(store)
    jpath = journal_path(store.path("crash"))
    plays = jpath.read_bytes()
    store.path("crash").unlink()
    kept, journal = store.restore("crash")
    assert kept == "" and re.match(r"^crash\.toml\.replaced-\d{8}-\d{6}\.journal$", journal)
    assert (store.folder / journal).read_bytes() == plays and store.load("crash").seats


def test_a_bak_alone_is_restored_keeping_nothing(store):
    save(store, "friday")
    save(store, "friday", plays=40)
    store.path("friday").unlink()
    assert store.restore("friday") == ("", "")
    assert restored_kept("", "") == ""


def test_kept_names_never_take_a_name_already_there(store, monkeypatch):
    real = saves_module.time.strftime
    monkeypatch.setattr(saves_module.time, "strftime",
                        lambda fmt, *a: "20260101-000000" if fmt == "%Y%m%d-%H%M%S" else real(fmt, *a))
    save(store, "friday")
    (store.folder / "friday.toml.replaced-20260101-000000").write_text("an earlier one\n")
    save(store, "friday", plays=40)
    assert store.restore("friday") == ("friday.toml.replaced-20260101-000000-2", "")
    (store.folder / "friday.toml.replaced-20260101-000000-3.journal").write_text("a journal kept alone\n")
    save(store, "friday", plays=50)
    assert store.restore("friday") == ("friday.toml.replaced-20260101-000000-4", "")
    assert (store.folder / "friday.toml.replaced-20260101-000000").read_text() == "an earlier one\n"


def test_the_restored_save_is_listed_as_checked_without_a_replay(store):
    save(store, "friday")
    save(store, "friday", plays=40)
    store.restore("friday")
    assert {i.name: i.checked for i in store.infos(replay=False)} == {"friday": True}


def test_the_restored_save_is_named_as_it_now_is_with_a_journal_of_its_own(store):
    save(store, "friday")
    save(store, "friday", plays=40)
    store.rename("friday", "saturday")  # (the .bak goes with it, still naming "friday" inside)
    bak = store.path("saturday").with_name("saturday.toml.bak")
    was = load_record(bak).meta
    store.restore("saturday")
    now = store.load("saturday").meta
    assert now["name"] == "saturday" and was["name"] == "friday"
    assert now.get("journal") and now["journal"] != was.get("journal")  # (its own journal's id, not the .bak's)


def test_a_journal_a_crash_left_beside_the_restored_save_is_never_read_as_its_own(store):
    """Restore keeps the replaced journal aside, writes the restored save, then removes the
    journal: killed between the two, that journal is still beside the restored save."""
    killed_mid_round(store)
    jpath = journal_path(store.path("crash"))
    _, journal = store.restore("crash")
    restored = store.load("crash").play_count
    shutil.copy(store.folder / journal, jpath)
    record = store.load("crash")
    assert record.play_count == restored
    assert store.journal_report("crash", record.replay()) is None  # (not "it continues another record")


@pytest.mark.parametrize("kept, journal, said", [
    ("a.toml.replaced-1", "a.toml.replaced-1.journal",
     "; the save it replaced is kept as a.toml.replaced-1, and its journal (plays since) as a.toml.replaced-1.journal"),
    ("a.toml.replaced-1", "", "; the save it replaced is kept as a.toml.replaced-1"),
    ("", "a.toml.replaced-1.journal", "; the journal left beside it is kept as a.toml.replaced-1.journal"),
    ("", "", ""),
])
def test_what_a_restore_kept_is_said_in_these_words(kept, journal, said):
    assert restored_kept(kept, journal) == said


def test_a_restore_that_cannot_write_changes_nothing_and_says_why(store, monkeypatch):
    killed_mid_round(store)
    before = files(store)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(saves_module, "write_atomic", full)
    assert refused(store.restore, "crash") == (f"cannot restore {store.path('crash')}: No space left on device "
                                               "(nothing was restored)")
    assert files(store) == before


@pytest.mark.parametrize("how", ["no bak", "write-protected", "a bak link", "a save link", "a save folder", "damaged bak",
                                 "same plays", "open elsewhere", "lock a folder"])
def test_a_restore_refused_says_why_in_these_words_and_changes_nothing(store, how, tmp_path):
    save(store, "friday")
    save(store, "friday", plays=40)
    path = store.path("friday")
    bak = path.with_name("friday.toml.bak")
    lock = None
    if how == "no bak":
        bak.unlink()
        said = "'friday' has no .bak (previous version) to restore"
    elif how == "write-protected":
        os.chmod(path, 0o444)
        said = ("'friday' is write-protected (chmod a-w), so its .bak was not restored over it; to restore it, "
                f"allow writing first: chmod u+w {path}")
    elif how == "a bak link":
        os.replace(bak, tmp_path / "elsewhere")
        bak.symlink_to(tmp_path / "elsewhere")
        said = f"{bak} is a link, not a previous version: ono99 follows no link in the saves folder (nothing was restored)"
    elif how == "a save link":
        os.replace(path, tmp_path / "elsewhere")
        path.symlink_to(tmp_path / "elsewhere")
        said = f"{path} is a link, not a save: ono99 follows no link in the saves folder (nothing was restored)"
    elif how == "a save folder":
        path.unlink()
        path.mkdir()
        said = f"{path} is not a regular file, so the .bak was not restored over it (move it away, then restore)"
    elif how == "damaged bak":
        bak.write_text('seed = "x"\n')
        said = f"the .bak of 'friday' is damaged too: {bak}: has no format field; an ono99 record has format = \"ono99-record\""
    elif how == "same plays":
        shutil.copy(path, bak)
        said = "'friday' already holds the same plays as its .bak (previous version): nothing to restore"
    elif how == "open elsewhere":
        lock = Lock(path)
        assert lock.acquire()
        said = f"'friday' is open in another ono99 ({lock.owner()}); {lock.hint()}"
    else:
        path.with_name("friday.toml.lock").mkdir()
        said = f"cannot restore {path}: {path.with_name('friday.toml.lock')}: Is a directory"
    before = files(store)
    try:
        shown = refused(store.restore, "friday")
    finally:
        if lock is not None:
            lock.release()
    assert shown == said
    assert files(store) == before
