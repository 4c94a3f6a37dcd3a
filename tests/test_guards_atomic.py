"""store/atomic.py pinned where mutants survived (benchmarks/mutation.py, issue 25): a new save's
exclusive create (by hard link, or an exclusive open where links are not to be had), the sweep of
temp files a killed writer left behind, and what a refused link says."""

import errno
import os
import time

import pytest

from ono99_tui.store import atomic
from ono99_tui.store.atomic import TEMP_SUFFIX, LinkedFile, remove_stale_temps, write_new


def names(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("links", [True, False])
def test_a_new_file_is_written_whole_once_and_never_over_another(tmp_path, monkeypatch, links):
    if not links:  # a file system without hard links: the exclusive open instead
        def no_link(*args, **kw):
            raise OSError(errno.EPERM, "Operation not permitted")
        monkeypatch.setattr(atomic.os, "link", no_link)
    path = tmp_path / "g.toml"
    assert write_new(path, "ünïcode text\n") is True
    assert path.read_bytes() == "ünïcode text\n".encode("utf-8")
    assert write_new(path, b"other bytes") is False
    assert path.read_bytes() == "ünïcode text\n".encode("utf-8")  # never over the file already there
    assert write_new(tmp_path / "b.toml", b"\x00raw") is True and (tmp_path / "b.toml").read_bytes() == b"\x00raw"
    assert names(tmp_path) == ["b.toml", "g.toml"]  # no temp file left behind


def test_a_link_refused_for_another_reason_is_an_error_not_a_fallback(tmp_path, monkeypatch):
    def broken(*args, **kw):
        raise OSError(errno.EIO, "Input/output error")
    monkeypatch.setattr(atomic.os, "link", broken)
    with pytest.raises(OSError) as err:
        write_new(tmp_path / "g.toml", "text")
    assert err.value.errno == errno.EIO and names(tmp_path) == []


def test_a_new_name_taken_by_a_link_is_not_written_through(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("theirs")
    (tmp_path / "g.toml").symlink_to(target)
    assert write_new(tmp_path / "g.toml", "mine") is False
    assert target.read_text() == "theirs" and os.path.islink(tmp_path / "g.toml")


def test_only_old_temp_files_of_the_prefix_are_swept(tmp_path):
    old = time.time() - 3600
    files = {f".g.toml.a1{TEMP_SUFFIX}": True, f".g.toml.b2{TEMP_SUFFIX}": True,  # old temps: swept
             f".g.toml.c3{TEMP_SUFFIX}.fresh": False, "g.toml": False, f"g.toml{TEMP_SUFFIX}": False,
             f".h.toml.d4{TEMP_SUFFIX}": False}  # another save's, with the prefix given
    for name in files:
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, (old, old))
    fresh = tmp_path / f".g.toml.e5{TEMP_SUFFIX}"
    fresh.write_text("a write in progress")
    (tmp_path / f".g.toml.dir{TEMP_SUFFIX}").mkdir()
    os.utime(tmp_path / f".g.toml.dir{TEMP_SUFFIX}", (old, old))
    target = tmp_path / "kept"
    target.write_text("a link's target")
    os.utime(target, (old, old))
    (tmp_path / f".g.toml.ln{TEMP_SUFFIX}").symlink_to(target)
    os.utime(tmp_path / f".g.toml.ln{TEMP_SUFFIX}", (old, old), follow_symlinks=False)
    before = set(names(tmp_path))
    assert remove_stale_temps(tmp_path, prefix=".g.toml.") == 2
    assert set(names(tmp_path)) == before - {n for n, swept in files.items() if swept}
    assert remove_stale_temps(tmp_path) == 1  # any save's: the other one, now
    assert fresh.exists() and target.exists()  # a young temp (a write in progress) and a link's target stay
    assert remove_stale_temps(tmp_path / "missing") == 0


def test_a_refused_link_says_where_it_points_and_what_to_do(tmp_path):
    link = tmp_path / "g.toml"
    link.symlink_to("/somewhere/else")
    err = LinkedFile(link)
    assert err.errno == errno.ELOOP and err.filename == str(link)
    assert err.strerror == (f"{link} is a link (to /somewhere/else); ono99 never writes through a link inside "
                             "its folders: remove the link or put the real file there")
    assert LinkedFile(link, "folder").strerror.endswith("put the real folder there")


def _spy(monkeypatch, name):
    """Record the first argument of atomic's os.NAME (and call the real one)."""
    seen, real = [], getattr(os, name)

    def spy(*args, **kw):
        seen.append(args[0])
        return real(*args, **kw)
    monkeypatch.setattr(atomic.os, name, spy)
    return seen


def test_a_write_goes_through_a_temp_file_beside_it_named_for_the_sweep(tmp_path, monkeypatch):
    """The temp file must be in the file's own folder (a rename across file systems is not
    atomic, or fails) and named .NAME.XXXX.tmp, which is what remove_stale_temps sweeps after a
    kill: a temp elsewhere or named otherwise would be left for ever."""
    replaced, linked = _spy(monkeypatch, "replace"), _spy(monkeypatch, "link")
    atomic.write_atomic(tmp_path / "g.toml", "x", backup=False)
    assert write_new(tmp_path / "n.toml", "y") is True
    for tmp, name in ((replaced[-1], "g.toml"), (linked[-1], "n.toml")):
        tmp = os.fspath(tmp)
        assert os.path.dirname(tmp) == str(tmp_path), tmp
        base = os.path.basename(tmp)
        assert base.startswith(f".{name}.") and base.endswith(TEMP_SUFFIX) and len(base) > len(name) + 6, base


def test_text_is_written_as_utf_8_whatever_the_locale(tmp_path):
    """Names like Zoë go into saves and stats: under a POSIX locale (an SSH session, cron) the
    file must still be UTF-8, never the locale's encoding (which cannot even encode them)."""
    import subprocess
    import sys

    path = tmp_path / "g.toml"
    code = f"from ono99_tui.store.atomic import write_atomic; write_atomic({str(path)!r}, 'Zo\\u00eb \\u2713')"
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
           "PYTHONIOENCODING": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert path.read_bytes() == "Zoë ✓".encode("utf-8")


def test_the_previous_version_is_kept_as_bak_only_when_asked(tmp_path):
    path = tmp_path / "g.toml"
    atomic.write_atomic(path, "one")
    atomic.write_atomic(path, "two", backup=False)
    assert names(tmp_path) == ["g.toml"] and path.read_text() == "two"
    atomic.write_atomic(path, "three")
    assert names(tmp_path) == ["g.toml", "g.toml.bak"] and (tmp_path / "g.toml.bak").read_text() == "two"


def test_a_folder_where_the_bak_goes_leaves_no_temp_beside_the_save(tmp_path):
    """A stranger's find: with NAME.bak a folder, every write left .NAME.bak.tmp behind."""
    path = tmp_path / "g.toml"
    (tmp_path / "g.toml.bak").mkdir()
    atomic.write_atomic(path, "one")
    atomic.write_atomic(path, "two")
    assert names(tmp_path) == ["g.toml", "g.toml.bak"] and path.read_text() == "two"
    assert (tmp_path / "g.toml.bak").is_dir()


def test_a_write_that_fails_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "g.toml"
    atomic.write_atomic(path, "old", backup=False)

    def full(*args, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(atomic.os, "replace", full)
    with pytest.raises(OSError):
        atomic.write_atomic(path, "new", backup=False)
    assert names(tmp_path) == ["g.toml"] and path.read_text() == "old"


def test_writes_are_synced_unless_told_not_to(tmp_path, monkeypatch):
    synced = _spy(monkeypatch, "fsync")
    atomic.write_atomic(tmp_path / "a.toml", "x")
    assert write_new(tmp_path / "b.toml", "y") is True
    assert len(synced) >= 4  # each file, and its folder
    synced.clear()
    atomic.write_atomic(tmp_path / "c.toml", "x", durable=False)
    assert write_new(tmp_path / "d.toml", "y", durable=False) is True
    assert synced == []


def test_a_temp_older_than_a_minute_is_swept_and_a_younger_one_kept(tmp_path, monkeypatch):
    now = 1_000_000.0
    monkeypatch.setattr(atomic.time, "time", lambda: now)
    for name, age in (("old", 60.5), ("young", 59.5)):
        p = tmp_path / f".g.toml.{name}{TEMP_SUFFIX}"
        p.write_text("x")
        os.utime(p, (now - age, now - age))
    assert remove_stale_temps(tmp_path) == 1
    assert names(tmp_path) == [f".g.toml.young{TEMP_SUFFIX}"]


def test_open_nofollow_makes_a_private_descriptor_with_the_mode_asked(tmp_path):
    import fcntl

    old = os.umask(0o022)
    try:
        fd = atomic.open_nofollow(tmp_path / "a", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        fd2 = atomic.open_nofollow(tmp_path / "b", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    finally:
        os.umask(old)
    try:
        assert os.stat(tmp_path / "a").st_mode & 0o777 == 0o644  # the default mode
        assert os.stat(tmp_path / "b").st_mode & 0o777 == 0o600
        # not inherited by the processes ono99 starts (a server's sessions, a web tab's child)
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    finally:
        os.close(fd)
        os.close(fd2)


def test_an_exclusive_create_on_a_link_is_refused_as_a_link(tmp_path):
    """O_EXCL on a name a link holds fails with EEXIST, not ELOOP: it is still a link, and says so
    (not "file exists", which would send the user looking for a file)."""
    (tmp_path / "g").symlink_to(tmp_path / "nowhere")
    with pytest.raises(LinkedFile) as err:
        atomic.open_nofollow(tmp_path / "g", os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    assert "is a link" in err.value.strerror
    with pytest.raises(FileExistsError):  # a real file there is just a file that exists
        (tmp_path / "f").write_text("x")
        atomic.open_nofollow(tmp_path / "f", os.O_WRONLY | os.O_CREAT | os.O_EXCL)


def test_refusals_name_a_file_or_a_folder(private_dirs):
    data = private_dirs / "data"
    data.mkdir()
    (data / "real").mkdir()
    (data / "saves").symlink_to(data / "real")
    with pytest.raises(LinkedFile) as err:
        atomic.refuse_linked_folder(data / "saves" / "g.toml")
    assert err.value.strerror == (f"{data / 'saves'} is a link (to {data / 'real'}); ono99 never writes through "
                                  "a link inside its folders: remove the link or put the real folder there")
    (data / "real" / "g.toml").symlink_to(data / "x")
    with pytest.raises(LinkedFile) as err:
        atomic.refuse_link(data / "real" / "g.toml")
    assert err.value.strerror.endswith("put the real file there") and f"(to {data / 'x'})" in err.value.strerror
    atomic.refuse_link(data / "real" / "missing.toml")  # nothing there: nothing to refuse


def test_a_link_gone_before_it_could_be_read_is_still_named_plainly(tmp_path):
    """open_nofollow's ELOOP came from a link that another process has removed since: the
    message says what was refused, with no target and nothing made up."""
    gone = tmp_path / "g.toml"
    assert LinkedFile(gone).strerror == (f"{gone} is a link; ono99 never writes through a link inside its "
                                         "folders: remove the link or put the real file there")
