"""`ono99 serve-ssh`: `ssh -p 2222 host` is all a friend needs.

Each SSH session gets its own `ono99 join` process (net/child.py: sandboxed, its own process
group) on its own pseudo-terminal (made its controlling terminal, so resizes arrive as
SIGWINCH), talking to the table server this process runs on loopback with a secret only the
children know. One rule picks the front end: the exact command `plain`, or a session
without a PTY, gets `ono99 join --plain` in the same sandbox, on pipes, with lines in and lines
out (net/lines.py: a line-length limit, the rate limit on whole lines, never an escape out);
the command `watch` (or `watch N`) gets `ono99 watch`, a spectator's screen; every other
session gets the full screen. The SSH side is kept narrow: no agent or port
forwarding, no other exec, no subsystem/sftp/scp, only TERM and LANG from the client's
environment, a login timeout, a timeout for a logged-in connection that starts no game, an
idle timeout, connection caps per IP and in all (from the TCP accept), an input rate limit;
the child cannot stop itself with Ctrl+Z. However a session ends, the player's terminal is
given back as it was (normal screen, no mouse reporting, a cursor) and they are told why;
when the connection drops, its process group is killed.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import fcntl
import hashlib
import hmac
import logging
import os
import re
import signal
import struct
import termios
from collections import Counter
from dataclasses import dataclass
import warnings
from pathlib import Path

# cryptography 46+ deprecates DSA keys, and asyncssh (2.24) names its DSA classes as it is
# imported: every `ono99 serve-ssh` began with four lines of warning about code not ours, before
# its own one-line message. (The host key ono99 makes is ed25519.)
warnings.filterwarnings("ignore", message="DSA is deprecated", module="asyncssh")
import asyncssh  # noqa: E402 - after the filter, which must see the import

from .child import (CHOOSE_ENV, KILL_GRACE, NAME_ENV, RESIZES_PER_SECOND, InnerTable, InputBucket, Resizes, Sandbox,
                    TerminalModes, check_name, duration, end_group, join_argv, kill_group, watch_argv, seat_key,
                    start)
from ..engine.game import MAX_NAME, NAME_RULE
from .lines import LineInput, LineOutput
from .zygote import Zygote, ZygoteSpec

LOGIN_TIMEOUT = 20.0
PLAIN_COMMAND = "plain"  # `ssh -p 2222 HOST plain`: the game in lines of text (docs/accessibility.md)
# `ssh -t -p 2222 HOST watch` (the table being played) or `... watch 3`: a spectator's screen, never a hand
WATCH_COMMAND = re.compile(r"watch(?: ([1-9][0-9]{0,5}))?")
FULL = "ono99: server full, try again later"
SHUTDOWN_GRACE = 5.0  # seconds the sessions have to end by themselves when the server stops
# bytes of a session's screen that may wait for a client that reads nothing (its SSH window shut);
# past it the gate stops reading the session's PTY until they are taken: the app waits, not the
# gateway's memory (a client spamming window changes made ~1 MB/s of redraws, all kept)
OUTPUT_HELD = 256 * 1024


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
    session_timeout: float = 20.0  # a logged-in connection with no game running is closed after this
    max_per_ip: int = 4  # connections from one address, logged in or not
    # from the capacity measured with sessions forked from the zygote (docs/deploy.md, Capacity): 300
    # sessions held on a 2-core, 24 GB machine at ~16 MiB each; 256 leaves headroom (~4 GiB)
    max_connections: int = 512  # connections in all, logged in or not (refused at once past it)
    max_sessions: int = 256  # games (child processes) in all
    resizes_per_second: float = RESIZES_PER_SECOND  # window changes a session's app is given at most
    input_rate: float = 2048.0  # bytes a second a session may type, on average...
    input_burst: int = 16384  # ...with bursts up to this many; the rest is dropped
    plain_max_line: int = 200  # characters in one line a plain session may type (a longer one is refused)
    child_args: tuple[str, ...] = ()  # extra arguments for each `ono99 join` (tests)
    zygote: ZygoteSpec | None = None  # fork each session from a warm process (net/zygote.py; cli.py names it)


def authorized_keys(path) -> asyncssh.SSHAuthorizedKeys:
    """The keys let in, from an OpenSSH authorized_keys file: a regular file of at most 1 MiB (a
    FIFO or /dev/zero named by mistake was read forever), or ValueError saying what is wrong."""
    from ..store.readfile import read_text

    text = read_text(path, "authorized keys file")  # (ReadError: a ValueError, "PATH: REASON")
    if "PRIVATE KEY-----" in text:  # (asyncssh said "No valid entries found")
        raise ValueError(f"{path} is a private key: give the public keys, such as the {path}.pub "
                         "ssh-keygen made beside it (never share a private key)")
    keys = asyncssh.SSHAuthorizedKeys()
    try:
        keys.load(text)  # (asyncssh's import_authorized_keys lets an empty file through: nobody gets in)
    except (asyncssh.KeyImportError, ValueError) as exc:
        if str(exc) == "No valid entries found":  # (asyncssh's words for an empty file, or one of no keys)
            raise ValueError(f"{path}: no public key in it; the file holds one a line, in OpenSSH's "
                             "authorized_keys format (ssh-ed25519 AAAA... name), as a .pub file does") from None
        raise ValueError(f"{path}: {exc}") from None
    return keys

log = logging.getLogger("ono99.ssh")
FILES_PER_SESSION = 4  # a session's PTY or pipes, its pidfd, and its connection to the table server (both ends)


def fit_open_files(config: SSHConfig, tables: int, tables_wanted: int | None = None) -> tuple[SSHConfig, str | None]:
    """The gateway's caps made to fit the open-file limit (server.fit_gateway_files): its
    connections and its sessions' files beside the tables' (``tables``: the table server's caps as
    fitted; ``tables_wanted``: as asked, for the limit to raise to)."""
    from .server import fit_gateway_files

    connections, sessions, warning = fit_gateway_files(config.max_connections, config.max_sessions,
                                                       FILES_PER_SESSION, tables, tables_wanted, "SSH", "sessions")
    return dataclasses.replace(config, max_sessions=sessions, max_connections=connections), warning


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
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, conn) -> None:
        """Count the connection, and refuse it at once (before any login) past a cap: a
        connection that never logs in takes its place until the login timeout."""
        self.conn = conn
        conn.set_extra_info(ono99_server=self)
        peer = conn.get_extra_info("peername")
        self.ip = peer[0] if peer else "?"
        gate, cfg = self.gate, self.gate.config
        gate.connections.add(conn)
        gate.per_ip[self.ip] += 1
        gate.total += 1
        if gate.per_ip[self.ip] > cfg.max_per_ip or gate.total > cfg.max_connections:
            self.refused = True
            # the address's own cap is not "server full": five friends behind one router were told
            # that of an empty server, and its operator looked at the wrong limit
            why = FULL if gate.total > cfg.max_connections else (
                f"ono99: too many connections from {self.ip}: at most {cfg.max_per_ip} at once, try again later")
            # after the server's version line (sent when this returns): the client is told why
            asyncio.get_running_loop().call_soon(self._refuse, why)

    def _refuse(self, why: str) -> None:
        try:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, why)
        except (OSError, asyncssh.Error):
            pass

    def auth_completed(self) -> None:
        self.arm()

    def arm(self) -> None:
        """A logged-in connection must start a game soon (`ssh -N` never does: it would hold a
        place under the caps until the client gives up)."""
        self.disarm()
        self._timer = asyncio.get_running_loop().call_later(self.gate.config.session_timeout, self._no_game)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _no_game(self) -> None:
        self._timer = None
        if not self.sessions:
            try:
                self.conn.disconnect(asyncssh.DISC_BY_APPLICATION,
                                     "ono99: no game was started on this connection: it is closed")
            except (OSError, asyncssh.Error):
                pass

    def connection_lost(self, exc) -> None:
        self.disarm()
        self.gate.connections.discard(self.conn)
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

    def __init__(self, config: SSHConfig, table: InnerTable, kept: bool = True):
        self.config = config
        self.table = table
        self.kept = kept  # the table server saves and resumes its games: a restart keeps the seats
        self.per_ip: Counter[str] = Counter()
        self.total = 0
        self.sessions = 0
        self.children: set[int] = set()  # process group ids, for the tests and for shutdown
        self.held: set[int] = set()  # of those, the ones whose output waits for their client to read (tests)
        self.resizes: set[Resizes] = set()  # the running sessions' window changes (tests count them)
        self.connections: set = set()  # every SSH connection, logged in or not
        self._running: set[asyncio.Task] = set()  # the sessions' tasks
        self._stop = asyncio.Event()  # set by close(): sessions still running end, told why
        self._stop_reason = ""
        self._accepting = True
        self._acceptor = None
        self.authorized = authorized_keys(config.authorized_keys) if config.authorized_keys else None
        self._secret = seat_key(config.seat_key)  # without a kept key: seat tokens hold for this run only
        self.zygote = Zygote(config.zygote) if config.zygote is not None else None

    def seat_token(self, fingerprint: str, name: str) -> str:
        """The seat token of an SSH key and user name: only this server (its seat key) makes it."""
        mac = hmac.new(self._secret, f"{fingerprint}\0{name}".encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")

    async def start(self, key: asyncssh.SSHKey) -> int:
        if self.zygote is not None:
            self.zygote.start()  # (until it is ready, sessions get a fresh process)
        self._acceptor = await asyncssh.create_server(
            lambda: _Server(self), self.config.host, self.config.port, server_host_keys=[key],
            process_factory=self._session, encoding=None, line_editor=False, agent_forwarding=False,
            x11_forwarding=False, allow_scp=False, login_timeout=LOGIN_TIMEOUT, keepalive_interval=60,
            sftp_factory=None, allow_pty=True)
        return self._acceptor.sockets[0].getsockname()[1]

    def stop_accepting(self) -> None:
        self._accepting = False  # (a logged-in connection cannot start a game either)
        if self._acceptor is not None:
            self._acceptor.close()

    async def close(self, reason: str = "the server is stopping", grace: float = SHUTDOWN_GRACE) -> None:
        """Stop: no new connections; the sessions get ``grace`` seconds to end by themselves (their
        `ono99 join` was told by the table server why, and restored the terminal), then the rest
        are ended (their terminal restored by the gate, and told ``reason``); then every
        connection is closed."""
        self.stop_accepting()
        if self._running:
            await asyncio.wait(list(self._running), timeout=grace)
        self._stop_reason = reason
        self._stop.set()
        if self._running:
            await asyncio.wait(list(self._running), timeout=3 * KILL_GRACE + 1)
        for pgid in list(self.children):  # (a session that could not end in time)
            kill_group(pgid, signal.SIGKILL)
        for conn in list(self.connections):
            conn.close()
        if self.zygote is not None:
            await self.zygote.close()

    async def _session(self, process: asyncssh.SSHServerProcess) -> None:
        cfg = self.config
        chan_ip = process.get_extra_info("peername", ("?",))[0]
        term = process.get_terminal_type()
        # one rule: the exact command `plain`, or a session without a PTY, gets the game in lines
        plain = process.command == PLAIN_COMMAND or (process.command is None and process.subsystem is None
                                                      and term is None)
        watch = WATCH_COMMAND.fullmatch(process.command or "")
        if watch and term is None:
            process.stderr.write(b"ono99: watching needs a terminal: ssh -t ... watch\r\n")
            process.exit(1)
            return
        if not watch and re.fullmatch(r"watch\s+\S.*", process.command or ""):
            # (watch 99999999999, watch x: the command is right, its table number is not)
            process.stderr.write(b"ono99: watch N takes a table's number, 1 to 999999 (watch alone: the table "
                                 b"being played)\r\n")
            process.exit(1)
            return
        if not plain and not watch and (process.command is not None or process.subsystem is not None):
            process.stderr.write(b"ono99: this server only plays O'NO 99: connect without a command "
                                 b"(or with the command plain, for the game in lines of text, or watch or "
                                 b"watch N, to watch a table)\r\n")
            process.exit(1)
            return
        # the whole user name, as the web gateway takes ?name=: one longer than a name was cut and sat
        # under a name its player never chose (the child would say "--name must be...": an option never given)
        name = process.get_extra_info("username") or "guest"
        if check_name(name) is None:
            shown = name if len(name) <= 2 * MAX_NAME else name[:2 * MAX_NAME] + "..."
            process.stderr.write(f"ono99: the SSH user name {shown!r} cannot be a name at the table: a name is "
                                 f"{NAME_RULE}; log in as another user (ssh OTHER@HOST) to take another "
                                 f"name\r\n".encode())
            process.exit(2)
            return
        owner = process.get_extra_info("ono99_server")
        if owner is not None and owner.sessions:
            process.stderr.write(b"ono99: one game per connection: open another connection for another\r\n")
            process.exit(1)
            return
        if self.sessions >= cfg.max_sessions or self.per_ip[chan_ip] > cfg.max_per_ip or not self._accepting:
            process.stdout.write(FULL.encode() + (b"\n" if plain and term is None else b"\r\n"))
            process.exit(1)
            return
        self.sessions += 1
        task = asyncio.current_task()
        self._running.add(task)
        if owner is not None:
            owner.sessions += 1
            owner.disarm()
        try:
            if plain:
                await self._run_plain(process, term, owner)
            else:
                await self._run_child(process, term, owner, watch=(watch.group(1) or "") if watch else None)
        finally:
            self._running.discard(task)
            self.sessions -= 1
            if owner is not None:
                owner.sessions -= 1
                owner.arm()  # (one game per connection: a connection kept open after it is closed soon)

    def _child_env(self, box: Sandbox, process, owner, term: str) -> dict[str, str]:
        lang = (process.env or {}).get("LANG")
        name = process.get_extra_info("username") or "guest"
        # the same key (and user name) comes back to the same seat: a token only this server can make
        token = self.seat_token(owner.fingerprint, name) if owner is not None and owner.fingerprint else None
        return box.env(self.table, term=term,
                       lang=_clean(lang, "C.UTF-8") if isinstance(lang, (str, bytes)) else "C.UTF-8",
                       token=token, address=owner.ip if owner is not None else None,
                       comeback="connect again with the same key to come back to it" if self.kept else None,
                       # (the full screen and the plain lines alike: an SSH player gives no --name)
                       **{NAME_ENV: "log in as another user (ssh OTHER@HOST) to take another name"})

    async def _run_child(self, process, term: str, owner, watch: str | None = None) -> None:
        """The table screen of `ono99 join` (``watch``: of `ono99 watch`, "" for the table being
        played, else that table's number) on a PTY of its own."""
        cfg = self.config
        name = process.get_extra_info("username") or "guest"
        cols, rows = process.get_terminal_size()[:2]
        master, slave = os.openpty()
        _set_size(master, cols or 80, rows or 24)
        box = Sandbox("ssh")
        env = self._child_env(box, process, owner, _clean(term, "xterm"))
        if watch is not None:
            del env[NAME_ENV]  # (a watcher takes no seat)
            env[CHOOSE_ENV] = "connect with the command watch N to choose one"
            argv = watch_argv(self.table, name, int(watch) if watch else None)
        else:
            argv = join_argv(self.table, name, cfg.child_args)

        def child_setup() -> None:  # in the child, after setsid: the PTY becomes its terminal
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            for sig in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
                signal.signal(sig, signal.SIG_IGN)  # Ctrl+Z cannot stop it

        try:
            proc = await start(self.zygote, argv, env, box.home,
                               tty=slave, stdin=slave, stdout=slave, stderr=slave, preexec_fn=child_setup,
                               no_stop=True)
        except BaseException:
            os.close(master)
            box.remove()
            raise
        finally:
            os.close(slave)
        pgid = proc.pid
        self.children.add(pgid)
        loop = asyncio.get_running_loop()
        out_done = asyncio.Event()
        modes = TerminalModes()

        held: list[asyncio.Task] = []

        def readable() -> None:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every process holding the terminal has gone
                data = b""
            if not data:
                loop.remove_reader(master)
                out_done.set()
                return
            modes.feed(data)
            _send(process, data)
            if process.channel.get_write_buffer_size() > OUTPUT_HELD:
                # the client takes nothing: read no more of the PTY (the app blocks writing) until it does
                loop.remove_reader(master)
                self.held.add(pgid)
                held[:] = [loop.create_task(resume())]  # (one at a time: it is paused)

        async def resume() -> None:
            try:
                await process.stdout.drain()
            except (OSError, asyncssh.Error):
                return  # the connection is gone: the session ends
            self.held.discard(pgid)
            if not out_done.is_set():
                loop.add_reader(master, readable)

        loop.add_reader(master, readable)
        pump = loop.create_task(self._pump_input(process, master))
        waiter = loop.create_task(proc.wait())
        stopping = loop.create_task(self._stop.wait())
        reason = None
        try:
            done, _ = await asyncio.wait({pump, waiter, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if waiter not in done:  # the gate ends it (not the app itself): the player is told why
                reason = pump.result() if pump in done else self._stop_reason
            elif proc.returncode < 0:  # killed (out of memory, by hand): it could say nothing itself
                reason = "the game stopped unexpectedly"
        finally:
            pump.cancel()
            stopping.cancel()
            for task in held:
                task.cancel()
            if pgid in self.held:  # (a client that took nothing: the rest of the output is not waited for)
                self.held.discard(pgid)
                out_done.set()
            # the output is read all along: what the app writes as it goes reaches the player
            await end_group(proc)
            try:
                await asyncio.wait_for(out_done.wait(), KILL_GRACE)
            except TimeoutError:
                pass
            loop.remove_reader(master)
            os.close(master)
            self.children.discard(pgid)
            box.remove()
            # whatever way it ended, the terminal is given back as it was: normal screen, no mouse
            # reporting, a cursor (nothing when the app restored it itself); then why, in one line
            tail = modes.restore()
            if reason:
                tail += f"\r\nono99: {reason}\r\n".encode()
            if tail:
                _send(process, tail)
            try:
                process.exit(proc.returncode if proc.returncode and proc.returncode > 0 else 1 if reason else 0)
            except (OSError, asyncssh.Error):
                pass

    async def _pump_input(self, process, master: int) -> str | None:
        """Keys from the client to the child, rate-limited; resizes to the PTY. Returns why the
        session ends (None: the connection is gone)."""
        cfg = self.config
        bucket = InputBucket(cfg.input_rate, cfg.input_burst)
        resizes = Resizes(lambda width, height: _set_size(master, width or 80, height or 24), cfg.resizes_per_second)
        self.resizes.add(resizes)
        try:
            while True:
                try:
                    data = await asyncio.wait_for(process.stdin.read(4096), cfg.idle_timeout)
                except asyncssh.TerminalSizeChanged as change:
                    resizes.change(change.width, change.height)
                    continue
                except TimeoutError:
                    return f"no key for {duration(cfg.idle_timeout)}: the session has ended"
                except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                    return "your terminal sent a break: the session has ended"
                except (OSError, asyncssh.Error):
                    return None
                if not data:
                    if process.channel.is_closing():
                        return None  # the connection ended
                    return "your terminal closed its input: the session has ended"
                data = bucket.take(data)  # typing faster than any person: the rest is dropped
                if data:
                    try:
                        os.write(master, data)
                    except OSError:
                        return None
        finally:
            resizes.close()
            self.resizes.discard(resizes)

    async def _run_plain(self, process, term: str | None, owner) -> None:
        """`ono99 join --plain` in the same sandbox, on pipes: what the player types reaches it
        as whole lines (net/lines.py: a line-length limit, the input rate limit), and
        what it writes reaches them as lines of text only, its errors with the rest, in order."""
        cfg = self.config
        name = process.get_extra_info("username") or "guest"
        box = Sandbox("ssh")
        env = self._child_env(box, process, owner, "dumb")  # (no terminal: it writes lines, never escapes)
        out = LineOutput(crlf=term is not None)  # a PTY's terminal needs CR LF to start a line
        try:
            proc = await start(self.zygote, join_argv(self.table, name, (*cfg.child_args, "--plain")), env,
                               box.home, pipes=True, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                               stderr=asyncio.subprocess.STDOUT)
        except BaseException:
            box.remove()
            raise
        pgid = proc.pid
        self.children.add(pgid)
        loop = asyncio.get_running_loop()

        async def relay() -> None:
            while data := await proc.stdout.read(65536):
                _send(process, out.text(data))
                try:  # a client that types but never reads holds the game up, not the server's memory
                    await process.stdout.drain()
                except (OSError, asyncssh.Error):
                    pass

        relaying = loop.create_task(relay())
        pump = loop.create_task(self._pump_lines(process, proc, out, echo=term is not None))
        waiter = loop.create_task(proc.wait())
        stopping = loop.create_task(self._stop.wait())
        reason = None
        try:
            done, _ = await asyncio.wait({pump, waiter, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if waiter not in done:  # the gate ends it (not the game itself): the player is told why
                reason = pump.result() if pump in done else self._stop_reason
            elif proc.returncode < 0:  # killed: it could say nothing itself
                reason = "the game stopped unexpectedly"
        finally:
            pump.cancel()
            stopping.cancel()
            await end_group(proc)
            try:  # what it wrote as it went reaches the player
                await asyncio.wait_for(relaying, KILL_GRACE)
            except (TimeoutError, OSError):
                relaying.cancel()
            self.children.discard(pgid)
            if hasattr(proc, "close"):
                proc.close()  # (a forked child: the gate's ends of its pipes)
            box.remove()
            if reason:
                _send(process, out.say(f"ono99: {reason}"))
            try:
                process.exit(proc.returncode if proc.returncode and proc.returncode > 0 else 1 if reason else 0)
            except (OSError, asyncssh.Error):
                pass

    async def _pump_lines(self, process, proc, out: LineOutput, echo: bool) -> str | None:
        """Lines from the client to the plain child. Returns why the session ends (None: the
        connection is gone). The end of input is the player leaving: the child reads every
        line before it, then leaves by itself (saying so)."""
        cfg = self.config
        lines = LineInput(cfg.plain_max_line, cfg.input_rate, cfg.input_burst, echo)
        idle = f"nothing typed for {duration(cfg.idle_timeout)}: the session has ended"
        while True:
            try:
                data = await asyncio.wait_for(process.stdin.read(4096), cfg.idle_timeout)
            except asyncssh.TerminalSizeChanged:
                continue  # (lines do not care)
            except TimeoutError:
                return idle
            except (asyncssh.BreakReceived, asyncssh.SignalReceived):
                return "your terminal sent a break: the session has ended"
            except (OSError, asyncssh.Error):
                return None
            if not data and process.channel.is_closing():
                return None  # the connection ended
            fed = lines.feed(data) if data else None
            if fed is not None:
                _send(process, out.echoed(fed.echo))
                for note in fed.notes:
                    _send(process, out.say(f"ono99: {note}"))
                if fed.lines:
                    try:
                        proc.stdin.write(fed.lines)
                        await proc.stdin.drain()
                    except (OSError, RuntimeError):  # it has gone: its own end is what ends the session
                        await asyncio.Event().wait()
                if not fed.end:
                    continue
            try:
                proc.stdin.close()
            except OSError:
                pass
            await asyncio.sleep(cfg.idle_timeout)  # (a child that never leaves is ended as idle)
            return idle


def _send(process, data: bytes) -> None:
    try:
        process.stdout.write(data)
    except (OSError, asyncssh.Error):
        pass  # the connection is gone


def _clean(value, default: str) -> str:
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    value = str(value)
    ok = value and len(value) <= 40 and all(c.isalnum() or c in "-_.@+" for c in value)
    return value if ok else default


def _set_size(fd: int, cols: int, rows: int) -> None:
    cols, rows = max(1, min(int(cols), 1000)), max(1, min(int(rows), 1000))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def closing_message(kept: bool) -> str:
    """What the players of a gateway's table server are told when it stops."""
    if kept:
        return "the server is restarting"
    return "the server is stopping; nothing is kept (this server does not save games)"


async def run(config: SSHConfig, server_config, ready=None) -> None:
    """The table server on loopback and the SSH gate in front of it, until SIGTERM/SIGINT."""
    from .server import Server, stop_on_signals

    stop = stop_on_signals()  # before anything is said to be ready: a SIGTERM then stops it cleanly (saving)
    # only this process's children know the password: no other local user reaches the table server
    server_config.host, server_config.port = "127.0.0.1", config.table_port
    server_config.password = InnerTable.new_secret()
    server_config.gateway = True  # its players are counted by the address each child names
    server = Server(server_config)
    table = InnerTable(await server.start(), server_config.password)
    kept = bool(server_config.save and server_config.resume)
    # (server_config keeps the caps asked for; the server's own are fitted to the files it has)
    config, warning = fit_open_files(config, server.config.max_tables, server_config.max_tables)
    if warning:
        log.warning("%s", warning)
    try:
        gate = SSHGate(config, table, kept)
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
        # in this order: no one new comes in; the table server tells every session why (each
        # `ono99 join` gives its terminal back and says so) and saves; the sessions end
        gate.stop_accepting()
        reason = closing_message(kept)
        await server.close(reason)
        await gate.close(reason)
