"""Crash-proof file writes: temp file in the same folder, fsync, rename over.

The previous version is kept as NAME.bak, so a file is always either the old
whole version or the new whole version, never half of one.

Nothing is written through a link: the data and config folders are resolved once
(store/paths.py), and a link found inside them -- a save, a lock, a journal, a
stats file someone replaced with a symlink, perhaps from an archive or a shared
folder -- is refused (``LinkedFile``), never followed to whatever it points at.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from pathlib import Path

TEMP_SUFFIX = ".tmp"
#: open() flag that refuses a link as the last part of the path (0 where the system has none)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LinkedFile(OSError):
    """A file or folder ono99 would write is a symbolic link: refused, never followed."""

    def __init__(self, path: str | Path, what: str = "file"):
        target = ""
        try:
            target = f" (to {os.readlink(path)})"
        except OSError:
            pass
        super().__init__(errno.ELOOP, f"{path} is a link{target}; ono99 never writes through a link "
                                      f"inside its folders: remove the link or put the real {what} there")
        self.filename = str(path)


def is_link(path: str | Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def refuse_link(path: str | Path, what: str = "file") -> None:
    """LinkedFile when ``path`` is a symbolic link (a missing path is fine)."""
    if is_link(path):
        raise LinkedFile(path, what)


def linked_folder(path: str | Path) -> Path | None:
    """The first folder that is a link between the data or config folder and ``path``'s
    folder (saves/, rules/, themes/ replaced by a link), or None. Paths outside those two
    folders (an export's target, a test's own folder) are the caller's choice: not checked."""
    from .paths import config_dir, data_dir

    folder = Path(os.path.abspath(path)).parent
    for root in (data_dir(), config_dir()):
        try:
            parts = folder.relative_to(root).parts
        except ValueError:
            continue
        here = root
        for part in parts:
            here = here / part
            if is_link(here):
                return here
    return None


def refuse_linked_folder(path: str | Path) -> None:
    if (folder := linked_folder(path)) is not None:
        raise LinkedFile(folder, "folder")


def refuse_shared(fd: int, path: str | Path, what: str = "file") -> None:
    """LinkedFile (and ``fd`` closed) when the file open at ``fd`` is not one of ono99's own to
    write into: a hard link (another name holds the same file: writing here would change it
    there) or not a regular file. O_NOFOLLOW stops symbolic links only."""
    info = os.fstat(fd)
    if info.st_nlink > 1 or not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise LinkedFile(path, what)


def open_nofollow(path: str | Path, flags: int, mode: int = 0o644) -> int:
    """os.open that refuses a link (LinkedFile) instead of following it."""
    if not NOFOLLOW:  # (no O_NOFOLLOW, as on Windows: a look first, the best there is)
        refuse_link(path)
    try:
        return os.open(path, flags | NOFOLLOW | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.EEXIST and is_link(path)):
            raise LinkedFile(path) from None
        raise


def write_new(path: Path, text: str | bytes, durable: bool = True) -> bool:
    """Write ``path`` whole, only if no file (or link) has that name: False when one has.
    The text goes to a temp file that is then hard-linked in place, so the name appears
    with its whole content or not at all, and two writers can never both take one name.
    Where hard links are not to be had, an exclusive create written in place (a crash
    may then leave it short, never over someone else's file)."""
    path = Path(path)
    refuse_linked_folder(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        try:
            os.link(tmp, path, follow_symlinks=False)
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            try:
                out = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            except FileExistsError:
                return False
            with os.fdopen(out, "wb") as fh:
                fh.write(data)
                if durable:
                    fh.flush()
                    os.fsync(fh.fileno())
        if durable:
            _fsync_dir(path.parent)
        return True
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def write_atomic(path: Path, text: str, backup: bool = True, durable: bool = True) -> None:
    """Write ``text`` to ``path`` whole or not at all; ``durable=False`` skips the fsyncs
    (for caches that can be rebuilt)."""
    path = Path(path)
    refuse_linked_folder(path)  # before mkdir, which would follow it
    path.parent.mkdir(parents=True, exist_ok=True)
    refuse_link(path)  # replacing a link would be harmless, but its .bak would be the link
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
            except OSError:  # no hard links here, or NAME.bak is a folder: no backup; the write is still atomic
                try:
                    aside.unlink()  # (not left beside the save)
                except OSError:
                    pass
        os.replace(tmp, path)
        if durable:
            _fsync_dir(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def file_in_the_way(path: str | Path) -> str | None:
    """"FOLDER is a file, not a folder" when a folder above ``path`` is a file (ONO99_DATA_DIR
    naming one), else None: what "Not a directory" or "File exists" meant there."""
    for folder in Path(path).parents:
        if os.path.lexists(folder):
            return None if os.path.isdir(folder) else f"{folder} is a file, not a folder"
    return None


def write_protected(path) -> bool:
    """The file's owner took its write permission away (chmod a-w): a save or settings file kept
    as it is on purpose, which a rename over it would ignore. By the mode bits, so as root too."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and not mode & stat.S_IWUSR


def why_not_written(path: str | Path, exc: OSError) -> str:
    """Why ``write_atomic(path, ...)`` failed, naming ``path`` and what is in its way: "cannot
    write PATH: FOLDER is a file, not a folder" (the OSError alone said "File exists", or named
    the temp file beside it)."""
    path = Path(path)
    reason = exc.strerror or str(exc)
    if os.path.isdir(path) and not is_link(path):
        reason = "it is a folder, not a file (move it away)"
    elif (in_the_way := file_in_the_way(path)) is not None:
        reason = in_the_way
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        folder = next((f for f in path.parents if os.path.lexists(f)), path.parent)
        reason = f"{reason} (the folder {folder} cannot be written to)"
    return f"cannot write {path}: {reason}"


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
