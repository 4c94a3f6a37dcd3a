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
