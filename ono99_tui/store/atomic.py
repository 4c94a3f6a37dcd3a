"""Crash-proof file writes: temp file in the same folder, fsync, rename over.

The previous version is kept as NAME.bak, so a file is always either the old
whole version or the new whole version, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str, backup: bool = True) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
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
