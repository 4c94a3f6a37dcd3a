"""`ono99 serve-ssh`: `ssh -p 2222 host` is all a friend needs.

Each SSH session gets its own `ono99 join` process on its own pseudo-terminal (made its
controlling terminal, so resizes arrive as SIGWINCH), talking to the table server this
process runs on loopback. The SSH side is kept narrow: no agent or port forwarding, no
exec/subsystem/sftp/scp, a PTY or nothing, only TERM and LANG from the client's
environment, a login timeout, an idle timeout, connection caps per IP and in all, an input
rate limit; the child runs with throwaway config and data folders and cannot stop itself
with Ctrl+Z. When the connection drops, its process group is killed.
"""

from __future__ import annotations

import asyncio
import base64
import fcntl
import hashlib
import hmac
import os
import secrets
import shutil
import signal
import struct
import sys
import tempfile
import termios
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import asyncssh

LOGIN_TIMEOUT = 20.0
FULL = "ono99: server full, try again later"
KILL_GRACE = 2.0  # seconds between SIGHUP and SIGKILL for a session's processes


@dataclass
class SSHConfig:
    host: str = "127.0.0.1"
    port: int = 2222
    host_key: Path | None = None  # generated on first run when missing
    seat_key: Path | None = None  # the secret seat tokens are made from (kept: seats outlive a restart)
    authorized_keys: Path | None = None
    open: bool = False  # anyone may come in (their SSH user name is their name)
    table_port: int = 0  # the table server's port on 127.0.0.1 (0: any free one)
    idle_timeout: float = 30 * 60.0
    max_per_ip: int = 4  # connections from one address, logged in or not
    max_connections: int = 128  # connections in all, logged in or not (refused at once past it)
    max_sessions: int = 64  # games (child processes) in all
    input_rate: float = 2048.0  # bytes a second a session may type, on average...
    input_burst: int = 16384  # ...with bursts up to this many; the rest is dropped
    child_args: tuple[str, ...] = ()  # extra arguments for each `ono99 join` (tests)


SEAT_KEY_BYTES = 32


def seat_key(path: Path | None) -> bytes:
    """The secret that turns an SSH key into a seat token: made once and kept (readable by its
    owner only), so a player's key still finds their seat after a restart. Without a path, or when
    the file is damaged (a warning), a secret for this run only."""
    import logging

    from ..store.readfile import ReadError, read_bytes

    if path is None:
        return secrets.token_bytes(SEAT_KEY_BYTES)
    try:
        data = read_bytes(path, "seat key", 4096)
    except ReadError as exc:
        if not exc.missing:
            logging.getLogger("ono99.server").warning("%s; seats from SSH keys hold for this run only", exc)
            return secrets.token_bytes(SEAT_KEY_BYTES)
    else:
        if len(data) == SEAT_KEY_BYTES:
            return data
        logging.getLogger("ono99.server").warning(
            "%s: the seat key is damaged (not %d bytes); seats from SSH keys hold for this run only",
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
        logging.getLogger("ono99.server").warning("cannot keep the seat key %s: %s; seats from SSH keys hold "
                                                  "for this run only", path, exc.strerror or exc)
    return data


def host_key(path: Path) -> asyncssh.SSHKey:
    """The server's key, made once and kept (readable by its owner only)."""
    if path.exists():
        return asyncssh.read_private_key(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.export_private_key())
    return key


class _Server(asyncssh.SSHServer):
    def __init__(self, gate: "SSHGate"):
        self.gate = gate
        self.ip: str | None = None
        self.conn = None
        self.fingerprint: str | None = None
        self.refused = False
        self.sessions = 0

    def connection_made(self, conn) -> None:
        """Count the connection, and refuse it at once (before any login) past a cap: a
        connection that never logs in takes its place until the login timeout."""
        self.conn = conn
        conn.set_extra_info(ono99_server=self)
        peer = conn.get_extra_info("peername")
        self.ip = peer[0] if peer else "?"
        gate, cfg = self.gate, self.gate.config
        gate.per_ip[self.ip] += 1
        gate.total += 1
        if gate.per_ip[self.ip] > cfg.max_per_ip or gate.total > cfg.max_connections:
            self.refused = True
            # after the server's version line (sent when this returns): the client is told why
            asyncio.get_running_loop().call_soon(self._refuse)

    def _refuse(self) -> None:
        try:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, FULL)
        except (OSError, asyncssh.Error):
            pass

    def connection_lost(self, exc) -> None:
        self.gate.per_ip[self.ip] -= 1
        if self.gate.per_ip[self.ip] <= 0:
            del self.gate.per_ip[self.ip]
        self.gate.total -= 1

    def begin_auth(self, username: str) -> bool:
        if self.refused:
            return True  # (being disconnected) never let it in
        return not self.gate.config.open  # --open: no authentication; else a listed key

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key) -> bool:
        if self.refused or self.gate.authorized is None or self.gate.authorized.validate(key, self.ip, self.ip) is None:
            return False
        self.fingerprint = key.get_fingerprint()  # the seat comes back to the same key
        return True

    def password_auth_supported(self) -> bool:
        return False

    # no forwarding of any kind
    def connection_requested(self, dest_host, dest_port, orig_host, orig_port):
        return False

    def server_requested(self, listen_host, listen_port):
        return False

    def unix_connection_requested(self, dest_path):
        return False

    def unix_server_requested(self, listen_path):
        return False


class SSHGate:
    """The SSH server: who comes in and what each session runs."""

    def __init__(self, config: SSHConfig, table_port: int):
        self.config = config
        self.table_port = table_port
        self.per_ip: Counter[str] = Counter()
        self.total = 0
        self.sessions = 0
        self.children: set[int] = set()  # process group ids, for the tests and for shutdown
        self._acceptor = None
        self.authorized = (asyncssh.read_authorized_keys(str(config.authorized_keys))
                           if config.authorized_keys else None)
        self._secret = seat_key(config.seat_key)  # without a kept key: seat tokens hold for this run only

    def seat_token(self, fingerprint: str, name: str) -> str:
        """The seat token of an SSH key and user name: only this server (its seat key) makes it."""
        mac = hmac.new(self._secret, f"{fingerprint}\0{name}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")

    async def start(self, key: asyncssh.SSHKey) -> int:
        self._acceptor = await asyncssh.create_server(
            lambda: _Server(self), self.config.host, self.config.port, server_host_keys=[key],
            process_factory=self._session, encoding=None, line_editor=False, agent_forwarding=False,
            x11_forwarding=False, allow_scp=False, login_timeout=LOGIN_TIMEOUT, keepalive_interval=60,
            sftp_factory=None, allow_pty=True)
        return self._acceptor.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._acceptor is not None:
            self._acceptor.close()
        for pgid in list(self.children):
            _kill_group(pgid, signal.SIGKILL)

    async def _session(self, process: asyncssh.SSHServerProcess) -> None:
        cfg = self.config
        chan_ip = process.get_extra_info("peername", ("?",))[0]
        if process.command is not None or process.subsystem is not None:
            process.stderr.write(b"ono99: this server only plays O'NO 99: connect without a command\r\n")
            process.exit(1)
            return
        term = process.get_terminal_type()
        if term is None:
            process.stderr.write(b"ono99: a terminal is needed: connect with ssh -t\r\n")
            process.exit(1)
            return
        owner = process.get_extra_info("ono99_server")
        if owner is not None and owner.sessions:
            process.stderr.write(b"ono99: one game per connection: open another connection for another\r\n")
            process.exit(1)
            return
        if self.sessions >= cfg.max_sessions or self.per_ip[chan_ip] > cfg.max_per_ip:
            process.stdout.write(FULL.encode() + b"\r\n")
            process.exit(1)
            return
        self.sessions += 1
        if owner is not None:
            owner.sessions += 1
        try:
            await self._run_child(process, term)
        finally:
            self.sessions -= 1
            if owner is not None:
                owner.sessions -= 1

    async def _run_child(self, process, term: str) -> None:
        cfg = self.config
        name = process.get_extra_info("username") or "guest"
        cols, rows = process.get_terminal_size()[:2]
        master, slave = os.openpty()
        _set_size(master, cols or 80, rows or 24)
        home = tempfile.mkdtemp(prefix="ono99-ssh-")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": _clean(term, "xterm"),
               "ONO99_CONFIG_DIR": os.path.join(home, "config"), "ONO99_DATA_DIR": os.path.join(home, "data")}
        owner = process.get_extra_info("ono99_server")
        if owner is not None and owner.fingerprint:
            # the same key (and user name) comes back to the same seat: a token only this server can make
            env["ONO99_SEAT_TOKEN"] = self.seat_token(owner.fingerprint, name)
        lang = (process.env or {}).get("LANG")
        if isinstance(lang, (str, bytes)):
            env["LANG"] = _clean(lang, "C.UTF-8")
        args = [sys.executable, "-m", "ono99_tui", "join", f"127.0.0.1:{self.table_port}", "--name", name[:23],
                "--or-create", *cfg.child_args]

        def child_setup() -> None:  # in the child, after setsid: the PTY becomes its terminal
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            for sig in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
                signal.signal(sig, signal.SIG_IGN)  # Ctrl+Z cannot stop it

        proc = await asyncio.create_subprocess_exec(*args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                                    cwd=home, start_new_session=True, preexec_fn=child_setup)
        os.close(slave)
        pgid = proc.pid
        self.children.add(pgid)
        loop = asyncio.get_running_loop()
        out_done = asyncio.Event()

        def readable() -> None:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                loop.remove_reader(master)
                out_done.set()
                return
            process.stdout.write(data)

        loop.add_reader(master, readable)
        pump = loop.create_task(self._pump_input(process, master))
        waiter = loop.create_task(proc.wait())
        try:
            await asyncio.wait({pump, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            pump.cancel()
            loop.remove_reader(master)
            if proc.returncode is None:
                await _end_group(pgid, proc)
            self.children.discard(pgid)
            os.close(master)
            shutil.rmtree(home, ignore_errors=True)
            try:
                process.exit(proc.returncode if proc.returncode and proc.returncode > 0 else 0)
            except (OSError, asyncssh.Error):
                pass

    async def _pump_input(self, process, master: int) -> None:
        """Keys from the client to the child, rate-limited; resizes to the PTY; idle sessions end."""
        cfg = self.config
        tokens, last = float(cfg.input_burst), time.monotonic()
        while True:
            try:
                data = await asyncio.wait_for(process.stdin.read(4096), cfg.idle_timeout)
            except asyncssh.TerminalSizeChanged as change:
                _set_size(master, change.width or 80, change.height or 24)
                continue
            except (TimeoutError, asyncssh.BreakReceived, asyncssh.SignalReceived):
                return
            if not data:
                return  # the connection ended
            now = time.monotonic()
            tokens = min(cfg.input_burst, tokens + (now - last) * cfg.input_rate)
            last = now
            if len(data) > tokens:
                data = data[:int(tokens)]  # typing faster than any person: the rest is dropped
            tokens -= len(data)
            if data:
                try:
                    os.write(master, data)
                except OSError:
                    return


def _clean(value, default: str) -> str:
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    value = str(value)
    ok = value and len(value) <= 40 and all(c.isalnum() or c in "-_.@+" for c in value)
    return value if ok else default


def _set_size(fd: int, cols: int, rows: int) -> None:
    cols, rows = max(1, min(int(cols), 1000)), max(1, min(int(rows), 1000))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def _end_group(pgid: int, proc) -> None:
    _kill_group(pgid, signal.SIGHUP)
    try:
        await asyncio.wait_for(proc.wait(), KILL_GRACE)
    except TimeoutError:
        pass
    _kill_group(pgid, signal.SIGKILL)
    try:
        await asyncio.wait_for(proc.wait(), KILL_GRACE)
    except TimeoutError:
        pass


async def run(config: SSHConfig, server_config, ready=None) -> None:
    """The table server on loopback and the SSH gate in front of it, until SIGTERM/SIGINT."""
    from .server import Server, stop_on_signals

    stop = stop_on_signals()  # before anything is said to be ready: a SIGTERM then stops it cleanly (saving)
    server = Server(server_config)
    table_port = await server.start()
    try:
        gate = SSHGate(config, table_port)
        key = host_key(config.host_key)
        port = await gate.start(key)
    except BaseException:
        await server.close()  # (the port is taken): the resumed tables' saves are closed properly
        raise
    if ready is not None:
        ready(port, key)
    try:
        await stop.wait()
    finally:
        await gate.close()
        await server.close()
