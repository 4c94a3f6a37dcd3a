"""Crash-proof file writes: temp file in the same folder, fsync, rename over.

The previous version is kept as NAME.bak, so a file is always either the old
whole version or the new whole version, never half of one.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def write_atomic(path: Path, text: str, backup: bool = True, durable: bool = True) -> None:
    """Write ``text`` to ``path`` whole or not at all; ``durable=False`` skips the fsyncs
    (for caches that can be rebuilt)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if backup and path.exists():
            # keep the last good version as NAME.bak: a hard link made aside and renamed into
            # place, so NAME itself is never missing, not even for a moment
            aside = path.with_name(f".{path.name}.bak.tmp")
            try:
                aside.unlink(missing_ok=True)
                os.link(path, aside)
                os.replace(aside, path.with_name(path.name + ".bak"))
            except OSError:
                pass  # no backup on a file system without hard links; the write is still atomic
        os.replace(tmp, path)
        if durable:
            _fsync_dir(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(folder: Path, older_than: float = 60.0, prefix: str = ".") -> int:
    """Delete temp files a killed writer left behind (".NAME.XXXX.tmp"); the number removed.

    Only those older than ``older_than`` seconds: a younger one may be another ono99's
    write in progress. Never raises."""
    removed = 0
    cutoff = time.time() - older_than
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            pass
    return removed
