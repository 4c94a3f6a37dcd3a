"""The sandboxed `ono99 join` a gateway runs for each session (serve-ssh and web).

One child per SSH session or browser tab: a throwaway home with its own config and data
folders, nothing from the server's environment but PATH (and what is named here), its own
process group (ended as one when the session ends), its name passed as ``--name=NAME`` (a
name like ``-bob`` is never read as an option), and the inner table server's secret in its
environment (never on its command line, where `ps` shows it). The SSH side gives it a
pseudo-terminal; :class:`TerminalModes` follows what the app switched on there, so the
gateway can switch it off again whatever way the child ended. :class:`InputBucket` is the
input rate limit both gateways apply.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

KILL_GRACE = 2.0  # seconds between SIGHUP and SIGKILL for a session's processes

# the environment variables a child is given the inner table server's secret and its player's address in
SECRET_ENV = "ONO99_PASSWORD"
ADDRESS_ENV = "ONO99_PLAYER_ADDRESS"
GATEWAY_ENV = "ONO99_GATEWAY"  # set: the child is a gateway's (it keeps no seat token in its throwaway folder)
COMEBACK_ENV = "ONO99_COMEBACK"  # how a player of this gateway comes back to a seat kept over a restart
CHOOSE_ENV = "ONO99_CHOOSE_HINT"  # how a player of this gateway names one table of several (not --table N)
NAME_ENV = "ONO99_NAME_HINT"  # how a player of this gateway takes another name (not --name)


@dataclass(frozen=True)
class InnerTable:
    """The table server a gateway runs for its children: loopback, on ``port``, with a random
    password only the children are given, so no other local user can sit, watch or create."""

    port: int
    secret: str

    @staticmethod
    def new_secret() -> str:
        return secrets.token_urlsafe(24)


def check_name(name: str) -> str | None:
    """The name if a table would take it, else None: a gateway refuses a name (an SSH user name, a
    page's ?name=) in its player's words before it starts a child, which would speak of --name."""
    from ..engine.game import GameSetupError, check_name

    try:
        check_name(name)
    except GameSetupError:
        return None
    return name


def duration(seconds: float) -> str:
    """"30 minutes", "3 seconds": how long a gateway waited, in the line that says why it ended a session."""
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"


def join_argv(table: InnerTable, name: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The arguments of a session's `ono99 join` (no secret in them: `ps` shows them to everyone)."""
    return ["join", f"127.0.0.1:{table.port}", f"--name={name}", "--or-create", *extra]


def watch_argv(table: InnerTable, name: str, table_no: int | None = None) -> list[str]:
    """The arguments of a session's `ono99 watch`: the table being played, or table ``table_no``."""
    return ["watch", f"127.0.0.1:{table.port}", f"--name={name}",
            *(["--table", str(table_no)] if table_no is not None else [])]


def join_args(table: InnerTable, name: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The command line of a session's `ono99 join` as a fresh process."""
    return [sys.executable, "-m", "ono99_tui", *join_argv(table, name, extra)]


async def start(zygote, args: list[str], env: dict[str, str], cwd: str, *, tty: int | None = None,
                pipes: bool = False, stdin=None, stdout=None, stderr=None, preexec_fn=None, no_stop: bool = False):
    # (stderr=STDOUT: on pipes, the child's errors go with the rest of its output, in order)
    """A session's child: forked from the gateway's warm ``zygote`` (net/zygote.py) when one is
    ready, else a fresh process (:func:`spawn`) with the same sandbox. ``args`` are `ono99`'s
    arguments (:func:`join_argv`)."""
    if zygote is not None:
        child = await zygote.spawn(args, env, cwd, tty=tty, pipes=pipes, no_stop=no_stop, title="ono99 session",
                                   merge_stderr=stderr == asyncio.subprocess.STDOUT, wait=ZYGOTE_WAIT)
        if child is not None:
            return child
    return await spawn([sys.executable, "-m", "ono99_tui", *args], env, cwd, stdin=stdin, stdout=stdout,
                       stderr=stderr, preexec_fn=preexec_fn)


ZYGOTE_WAIT = 5.0  # seconds a session waits for a zygote that is (re)starting before a fresh process serves it


class Sandbox:
    """A session's throwaway home, and the environment its child runs with."""

    def __init__(self, kind: str):
        self.kind = kind
        self.home = tempfile.mkdtemp(prefix=f"ono99-{kind}-")

    def env(self, table: InnerTable, *, term: str, lang: str = "C.UTF-8", token: str | None = None,
            address: str | None = None, comeback: str | None = None, **extra: str) -> dict[str, str]:
        home = self.home
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": term, "LANG": lang,
               "ONO99_CONFIG_DIR": os.path.join(home, "config"), "ONO99_DATA_DIR": os.path.join(home, "data"),
               SECRET_ENV: table.secret, GATEWAY_ENV: self.kind}
        if token:
            env["ONO99_SEAT_TOKEN"] = token
        if address:
            env[ADDRESS_ENV] = address
        if comeback and token:  # without a token of its own, a session cannot come back to its seat
            env[COMEBACK_ENV] = comeback
        env.update(extra)
        return env

    def remove(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


async def spawn(args: list[str], env: dict[str, str], cwd: str, *, stdin, stdout, stderr,
                preexec_fn=None) -> asyncio.subprocess.Process:
    """The child, in a session (and process group) of its own, running this gateway's ono99_tui."""
    from .zygote import CODE_ROOT

    env = {**env, "PYTHONPATH": CODE_ROOT}
    return await asyncio.create_subprocess_exec(*args, stdin=stdin, stdout=stdout, stderr=stderr, env=env,
                                                cwd=cwd, start_new_session=True, preexec_fn=preexec_fn)


def kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def end_group(proc: asyncio.subprocess.Process, grace: float = KILL_GRACE) -> None:
    """SIGHUP to the child's group, SIGKILL after ``grace``; then whatever it left in its group goes."""
    for sig in (signal.SIGHUP, signal.SIGKILL):
        if proc.returncode is not None:
            break
        kill_group(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), grace)
        except TimeoutError:
            pass
    kill_group(proc.pid, signal.SIGKILL)


RESIZES_PER_SECOND = 5.0  # window changes a session's app is given at most (the last one always)


class Resizes:
    """A session's window changes, passed to its app at most ``per_second`` (the first at once, the
    last always): a window being dragged sends dozens and the app needs only where it stops, while a
    client sending them nonstop had its app redraw the whole screen for each (about a core of CPU and
    a megabyte a second of output for one session). ``apply(width, height)`` may be a coroutine."""

    def __init__(self, apply, per_second: float = RESIZES_PER_SECOND):
        self._apply = apply
        self._gap = 1.0 / per_second
        self._latest: tuple[int, int] | None = None
        self._changed = asyncio.Event()
        self.applied = 0  # (tests)
        self._task = asyncio.get_running_loop().create_task(self._run())

    def change(self, width: int, height: int) -> None:
        self._latest = (width, height)  # (one not passed on yet is replaced: only the latest counts)
        self._changed.set()

    async def _run(self) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            size, self._latest = self._latest, None
            self.applied += 1
            try:
                done = self._apply(*size)
                if asyncio.iscoroutine(done):
                    await done
            except (OSError, RuntimeError):
                return  # the session is ending (its terminal or its tab gone): nothing left to size
            await asyncio.sleep(self._gap)

    def close(self) -> None:
        self._task.cancel()


class InputBucket:
    """A token bucket on input bytes: ``rate`` a second on average, bursts up to ``burst``;
    typing faster than any person is cut, never queued."""

    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self._tokens, self._last = float(burst), time.monotonic()

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def room(self) -> float:
        """Bytes that may pass now."""
        self._refill()
        return self._tokens

    def allow(self, n: int) -> bool:
        """Whether ``n`` bytes may pass whole (they are counted if so): lines are let through
        whole or not at all."""
        self._refill()
        if n > self._tokens:
            return False
        self._tokens -= n
        return True

    def take(self, data):
        self._refill()
        data = data[:int(self._tokens)]
        self._tokens -= len(data)
        return data


# private modes a terminal app switches on, and what switches each off again (25, the cursor, the other way)
_MODES = {"1049": "l", "1047": "l", "47": "l", "1000": "l", "1002": "l", "1003": "l", "1005": "l", "1006": "l",
          "1015": "l", "1004": "l", "2004": "l", "2048": "l", "1": "l", "25": "h"}
_MODE_SEQ = re.compile(rb"\x1b\[\?([0-9;]+)([hl])|\x1b\[([<>])([0-9]*)u")
_ALT_SCREENS = ("1049", "1047", "47")


class TerminalModes:
    """What the child left switched on in the player's terminal, read from its output as it
    passes: an app killed mid-game leaves the alternate screen, mouse reporting and a hidden
    cursor behind; :meth:`restore` is what puts them back."""

    def __init__(self) -> None:
        self.changed: dict[str, str] = {}  # mode -> "h"/"l" as last set, for the modes in _MODES
        self.kitty = 0  # keyboard-protocol levels pushed (CSI > flags u) and not popped (CSI < u)
        self._tail = b""

    def feed(self, data: bytes) -> None:
        buf = self._tail + data
        end = 0
        for m in _MODE_SEQ.finditer(buf):
            end = m.end()
            if m.group(1) is not None:
                for mode in m.group(1).split(b";"):
                    mode = mode.decode()
                    if mode in _MODES:
                        self.changed[mode] = m.group(2).decode()
            elif m.group(3) == b">":
                self.kitty += 1
            else:
                self.kitty = max(0, self.kitty - int(m.group(4) or 1))
        rest = buf[end:]
        esc = rest.rfind(b"\x1b")
        # an escape sequence cut between two reads is finished by the next
        self._tail = rest[esc:] if esc >= 0 and len(rest) - esc < 24 else b""

    def restore(self) -> bytes:
        """The bytes that switch off what is still on (nothing when the app restored it itself)."""
        out = b"\x1b[<u" * self.kitty
        left_alt = False
        for mode in sorted(self.changed, key=lambda m: m not in _ALT_SCREENS):  # the normal screen first
            off = _MODES[mode]
            if self.changed[mode] != off:
                if mode in _ALT_SCREENS:
                    if left_alt:
                        continue
                    left_alt = True
                out += f"\x1b[?{mode}{off}".encode()
        if out:
            out += b"\x1b[0m"
        return out


SEAT_KEY_BYTES = 32


def seat_key(path: Path | None) -> bytes:
    """The secret that turns an SSH key (or a browser tab's id) into a seat token: made once and kept
    (readable by its owner only), so a player's key (or tab) still finds their seat after a restart. Without a path, or when
    the file is damaged (a warning), a secret for this run only."""
    import logging

    from ..store.readfile import ReadError, read_bytes

    if path is None:
        return secrets.token_bytes(SEAT_KEY_BYTES)
    try:
        data = read_bytes(path, "seat key", 4096)
    except ReadError as exc:
        if not exc.missing:
            logging.getLogger("ono99.server").warning("%s; seats hold for this run only", exc)
            return secrets.token_bytes(SEAT_KEY_BYTES)
    else:
        if len(data) == SEAT_KEY_BYTES:
            return data
        logging.getLogger("ono99.server").warning(
            "%s: the seat key is damaged (not %d bytes); seats hold for this run only",
            path, SEAT_KEY_BYTES)
        return secrets.token_bytes(SEAT_KEY_BYTES)
    data = secrets.token_bytes(SEAT_KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        logging.getLogger("ono99.server").warning("cannot keep the seat key %s: %s; seats hold "
                                                  "for this run only", path, exc.strerror or exc)
    return data
