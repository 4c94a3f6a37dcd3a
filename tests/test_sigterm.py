"""`kill PID` (SIGTERM) on `ono99` leaves as quitting does: the terminal given back (alternate
screen left, cursor shown) and the game saved. (Found by a play-tester: killed mid-game, the
program died mid-screen, `EXIT=143` over the old table, the terminal left broken.)"""

import os
import pty
import select
import signal
import sys
import time

from .cli import ono99
from .netplay import HANG


def _read_until(fd: int, want, out: bytearray, limit: float) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the program has gone
                return want(bytes(out))
            if not data:
                return want(bytes(out))
            out += data
            if want(bytes(out)):
                return True
    return want(bytes(out))


def test_sigterm_mid_game_gives_the_terminal_back_and_keeps_the_game(tmp_path, monkeypatch):
    env = dict(os.environ, TERM="xterm-256color", ONO99_DATA_DIR=str(tmp_path / "data"),
               ONO99_CONFIG_DIR=str(tmp_path / "config"), ONO99_BOT_DELAY="0")
    env.pop("TEXTUAL_DRIVER", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: ono99 on this PTY, as a user runs it
        os.execve(sys.executable, [sys.executable, "-m", "ono99_tui"], env)
    out = bytearray()
    try:
        assert _read_until(fd, lambda o: b"uick game" in o, out, HANG), "the menu never came up"
        os.write(fd, b"g")
        assert _read_until(fd, lambda o: b"Your hand" in o, out, HANG), "the table never came up"
        mark = len(out)
        os.kill(pid, signal.SIGTERM)
        _read_until(fd, lambda o: False, out, 3)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0  # it left by itself, not killed by the signal
    after = bytes(out[mark:])
    assert b"\x1b[?1049l" in after and b"\x1b[?25h" in after  # alternate screen left, cursor shown
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ONO99_CONFIG_DIR", str(tmp_path / "config"))
    listed = ono99("saves", "list")
    assert listed.returncode == 0 and "game " in listed.stdout, listed.stdout  # the quick game was saved
