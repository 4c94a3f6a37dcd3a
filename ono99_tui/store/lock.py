"""A save's lock: NAME.toml.lock, held with flock by the ono99 that has the save open.

The kernel holds the lock for the open file and drops it when that process ends,
however it ends, so there are no stale locks to guess about (an empty file, a
reused PID, a file from another host are all just files nobody holds). Taking
it is one atomic call: two processes can never both get it. The file's text,
"pid@host", is only for the message saying who has it.

The lock file is never opened through a link (O_NOFOLLOW): a NAME.toml.lock that is
a symlink -- from an archive, a shared folder -- or a hard link to another file is
refused with a message, and the file it points at is left alone.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from .atomic import LinkedFile, open_nofollow, refuse_linked_folder, refuse_shared

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; see _acquire_by_pid
    fcntl = None


class Lock:
    def __init__(self, save_path: Path):
        self.path = Path(save_path).with_name(Path(save_path).name + ".lock")
        self.mine = False
        self._fd: int | None = None
        self.exact = True  # False once flock was unavailable: "held" is then a guess from the file

    def hint(self) -> str:
        """What to do about a lock another ono99 seems to hold."""
        if self.exact:
            return "close it there first"
        return f"close it there first, or, if no ono99 has it open, delete {self.path}"

    def owner(self) -> str:
        try:
            with os.fdopen(open_nofollow(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as fh:
                text = fh.read(200).decode("utf-8", "replace").strip()
        except OSError:
            return "unknown"
        return "".join(c for c in text if c.isprintable()) or "unknown"

    def held_by_other(self) -> bool:
        """Whether another process holds it now (tried, never waited for)."""
        if self.mine:
            return False
        if fcntl is None:  # pragma: no cover
            self.exact = False
            return self._held_by_pid()
        try:
            fd = open_nofollow(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            return False
        except LinkedFile:
            raise
        except OSError:
            return True  # cannot even look: assume it is in use
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            self.exact = False
            return self._held_by_pid()  # a file system without flock
        finally:
            os.close(fd)  # closing drops the lock we may just have taken
        return False

    def acquire(self, wait: bool = False) -> bool:
        """Take the lock; False when another process has it (``wait``: wait for it instead).
        OSError when the folder is unusable, LinkedFile when the lock file is a link."""
        if self.mine:
            return True
        if fcntl is None:  # pragma: no cover
            self.exact = False
            return self._acquire_by_pid()
        refuse_linked_folder(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(10_000 if wait else 5):  # (another holder released between open and flock)
            fd = open_nofollow(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return False
            except OSError:  # a file system without flock (some network mounts): the pid file
                os.close(fd)
                self.exact = False
                return self._acquire_by_pid()
            try:
                same = os.lstat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the holder released (and removed) it between our open and our flock
                os.close(fd)
                continue
            refuse_shared(fd, self.path, "lock file")  # (a hard link: its pid@host would overwrite another file)
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}@{socket.gethostname()}\n".encode())
            except OSError:
                pass  # the lock holds without its note (a full disk): only the message loses the owner
            self._fd, self.mine = fd, True
            return True
        return False

    def release(self) -> None:
        if not self.mine:
            return
        self.mine = False
        try:
            self.path.unlink(missing_ok=True)  # removed while still held, so nobody takes a dead file
        except OSError:
            pass
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    # -- without flock (Windows, some network file systems): a "pid@host" file ----------------
    def _held_by_pid(self) -> bool:
        if not self.path.exists():
            return False
        pid_s, _, host = self.owner().partition("@")
        if not host:
            return False  # empty or garbled (written on a full disk): nobody's
        if host == socket.gethostname() and pid_s.isdecimal():
            try:
                os.kill(int(pid_s), 0)
            except (ProcessLookupError, OverflowError):  # (no such process; a pid no process can have)
                return False
            except OSError:
                return True
            return int(pid_s) != os.getpid()
        return True

    def _acquire_by_pid(self) -> bool:
        """Weaker: a dead holder's file is taken over, which two processes could race for."""
        if self._held_by_pid():
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)
        try:
            fd = open_nofollow(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{os.getpid()}@{socket.gethostname()}\n")
        self.mine = True
        return True
