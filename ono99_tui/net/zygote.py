"""A warm process every session's child is forked from: 50 logins at once start like one.

Starting a fresh Python for each SSH session (or browser tab) and importing Textual, Rich and
the app in it costs a few hundred milliseconds of CPU and ~38 MiB each, nothing shared. The
gateway instead starts one *zygote*: its own clean process (``python -m ono99_tui.net.zygote``,
never a fork of the gateway, which runs an event loop and threads), with a throwaway home and
nothing from the server's environment but PATH (and PYTHONPATH naming CODE_ROOT). It imports the modules it is told to
(``preload``), runs a warm-up (``warm``: what can be done before a terminal exists), freezes
what it has (``gc.freeze()``: the collector never writes to those pages, so they stay shared
with every child), and then waits on a private socket (one end of a socketpair: nothing on the
file system to connect to). For each session the gateway sends what the child is to run and
its terminal -- the PTY's slave end, or three pipe ends -- as file descriptors (SCM_RIGHTS). The
zygote forks; the child

* starts a session of its own (``setsid``: its own process group, which the gateway ends as one
  when the connection ends) and takes the PTY as its controlling terminal (TIOCSCTTY), so
  resizes reach it as SIGWINCH, or takes the pipes as stdin/stdout/stderr;
* closes every other descriptor the zygote holds, moves to its throwaway home, and gets exactly
  the environment the gateway names (net/child.py's Sandbox: the whitelist and the throwaway
  config and data folders), with the modules that read the environment at import (``reload``,
  e.g. Textual's constants, which is how a web tab gets Textual's web driver) read again;
* reseeds every random source (``random``'s generator; ``secrets``, ``os.urandom``, ``tempfile``
  and OpenSSL draw from the kernel or reseed after a fork by themselves);
* runs the entry point (``"module:function"``, given the command line without the program).

The zygote only forks and reaps: it tells the gateway each child's pid (with a pidfd, so the
gateway can follow the exact process even if the zygote is gone) and, as each ends, its exit
status. Everything textual is named by the caller as strings (cli.py): this module imports
neither Textual nor the app.

**The trade-off against one fresh process per session.** Children of one zygote share its
address-space layout (ASLR is drawn once, at the zygote's exec) and its string-hash seed
(PYTHONHASHSEED cannot change in a running interpreter: every str's hash is cached with it).
A session that could read its own process's memory layout would know its siblings'; a player
who could learn the hash seed could choose names that collide in dicts -- of their own process
only, since each child talks to one player, and the table server (a separate process) has its
own seed. Neither is reachable from the game's input, and each restart of the zygote draws
both afresh; the gateway restarts it after ``recycle_after`` children for that reason. Memory
is never shared *writably*: a fork copies on write, so a session never sees another session's
memory or files (each has its own throwaway home).

When the zygote is not there (it crashed and is being restarted, or cannot start) a session
gets today's fresh process instead: the gateway falls back, nobody waits.
"""

from __future__ import annotations

import array
import asyncio
import json
import logging
import os
import signal
import socket
import sys
import tempfile
from dataclasses import dataclass, field

log = logging.getLogger("ono99.server")

MAX_MESSAGE = 1 << 20  # bytes in one request or reply (an environment and a command line)
# the folder that holds the ono99_tui package this gateway runs: its sessions run the same code, not
# whatever `python -m ono99_tui` finds on its own (another installed ono99, or none, for a gateway
# run from a checkout or with PYTHONPATH: the only variable of the server's the zygote would lack)
CODE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
READY_TIMEOUT = 60.0  # seconds a starting zygote has to import and warm up


@dataclass(frozen=True)
class ZygoteSpec:
    """What the zygote preloads and runs, by name (the caller's modules; never imported here)."""

    entry: str  # "module:function": called with the command line (a list of str), returns the exit code
    preload: tuple[str, ...] = ()  # modules imported once, before any fork
    warm: str | None = None  # "module:function" called once after the preload (no arguments)
    reload: tuple[str, ...] = ()  # modules read again in each child, after its environment is set
    recycle_after: int = 1000  # children, after which a new zygote (new layout, new hash seed) takes over
    path: tuple[str, ...] = ()  # folders put first on sys.path (modules not installed, e.g. the tests')


# ---------------------------------------------------------------- the zygote process itself
def _resolve(name: str):
    import importlib

    module, _, func = name.partition(":")
    return getattr(importlib.import_module(module), func)


def _send(sock: socket.socket, msg: dict, fds: list[int] = ()) -> None:
    data = json.dumps(msg).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.send(data)


def main(argv: list[str] | None = None) -> int:
    """``python -m ono99_tui.net.zygote FD SPEC_JSON``: serve the gateway on the socket FD."""
    import gc
    import importlib
    import selectors
    import threading

    argv = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(argv[0]))
    spec = ZygoteSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in json.loads(argv[1]).items()})
    os.environ.pop("PYTHONHASHSEED", None)
    sys.path[:0] = spec.path
    problems = []
    for name in spec.preload:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # (a module that is not there at all is simply not preloaded)
                problems.append(f"{name}: {exc}")
        except ImportError as exc:  # (the children import it themselves, and say why it fails)
            problems.append(f"{name}: {exc}")
    if spec.warm:
        try:
            _resolve(spec.warm)()
        except Exception as exc:  # a warm-up that fails only costs the children time
            problems.append(f"warm-up {spec.warm}: {exc!r}")
    entry = _resolve(spec.entry)
    if threading.active_count() > 1:  # a fork copies one thread: a lock another held stays locked
        problems.append(f"{threading.active_count() - 1} threads left running after the warm-up")
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    gc.collect()
    gc.freeze()  # what is here now is never written by the collector: its pages stay shared

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # (the wakeup fd is what the loop watches)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the gateway ends it by closing the socket
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ, "sock")
    selector.register(wake_r, selectors.EVENT_READ, "wake")
    _send(sock, {"ready": os.getpid(), "problems": problems})
    own = [sock, selector, wake_r, wake_w]
    while True:
        for key, _ in selector.select():
            if key.data == "wake":
                try:
                    while os.read(wake_r, 4096):
                        pass
                except BlockingIOError:
                    pass
                _reap(sock)
                continue
            try:
                data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 8)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data, fds = b"", []
            if not data:  # the gateway has gone (or closed it): so does the zygote; its children stay
                return 0
            try:
                request = json.loads(data)
            except ValueError:
                for fd in fds:
                    os.close(fd)
                continue
            gc.freeze()  # (what the loop made since: also left alone in the children)
            try:
                pid = os.fork()
            except OSError as exc:
                for fd in fds:
                    os.close(fd)
                _send(sock, {"id": request.get("id"), "error": f"fork: {exc.strerror or exc}"})
                continue
            if pid == 0:
                _child(request, fds, own, entry, spec)  # never returns
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            try:
                _send(sock, {"id": request.get("id"), "pid": pid}, [pidfd])
            except OSError:
                pass
            finally:
                os.close(pidfd)
            _reap(sock)


def _reap(sock: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        try:
            _send(sock, {"exit": pid, "status": os.waitstatus_to_exitcode(status)})
        except OSError:
            pass


def _child(request: dict, fds: list[int], own: list, entry, spec: ZygoteSpec) -> None:
    """In the forked child: the session's own process on its terminal, then the entry point."""
    code = 1
    try:
        import gc
        import importlib
        import random

        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for thing in own:
            thing.close() if hasattr(thing, "close") else os.close(thing)
        os.setsid()  # its own session and process group: ended as one when the connection ends
        if request.get("tty"):
            (tty,) = fds
            import fcntl
            import termios

            fcntl.ioctl(tty, termios.TIOCSCTTY, 0)
            fds = [tty, tty, tty]
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in set(fds):
            if fd > 2:
                os.close(fd)
        os.closerange(3, 1 << 16)  # nothing of the zygote's (or a sibling's) is left open here
        _fresh_stdio()
        if request.get("no_stop"):
            for sig in (signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
                signal.signal(sig, signal.SIG_IGN)  # Ctrl+Z cannot stop it
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        random.seed()  # from os.urandom: no two children deal alike
        for name in spec.reload:
            module = sys.modules.get(name)
            if module is not None:
                importlib.reload(module)
        gc.enable()
        argv = list(request["argv"])
        sys.argv = ["ono99", *argv]
        _name_process(request.get("title"))
        try:
            code = entry(argv)
        except SystemExit as exc:
            code = exc.code
        if code is None:
            code = 0
        elif not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - whatever happens, the child never returns to the zygote's loop
        try:
            import traceback

            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
        code = 1
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
        except BaseException:  # noqa: BLE001
            pass
        os._exit(code & 0xFF if isinstance(code, int) else 1)


def _fresh_stdio() -> None:
    """sys.stdin, stdout and stderr on the new 0, 1 and 2, as a fresh interpreter makes them
    (the zygote's were made for /dev/null: buffered, seekable)."""
    import io

    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, f"__{name}__", None) or getattr(sys, name)
        tty = os.isatty(fd)
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(buffered, encoding=old.encoding, errors=old.errors,
                                  line_buffering=fd == 2 or (fd == 1 and tty))
        setattr(sys, f"__{name}__", stream)
        setattr(sys, name, stream)


def _name_process(title: str | None) -> None:
    """What `ps -o comm` and `top` show for the child (its command line stays the zygote's)."""
    if not title:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, title.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


# ---------------------------------------------------------------- the gateway's side
class ZygoteChild:
    """A session's process forked by the zygote, as the gateway sees it: like an
    asyncio.subprocess.Process (pid, returncode, wait(), and stdin/stdout/stderr streams when it
    runs on pipes). Its pid is its process group (setsid)."""

    def __init__(self, pid: int, pidfd: int, loop: asyncio.AbstractEventLoop):
        self.pid = pid
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None
        self._pidfd = pidfd
        self._done = loop.create_future()
        self._gone = loop.create_future()  # the process has ended (its pidfd said so)
        self._transports = []
        loop.add_reader(pidfd, self._exited)

    def _exited(self) -> None:
        loop = self._done.get_loop()
        loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        self._pidfd = -1
        if not self._gone.done():
            self._gone.set_result(None)

    def _status(self, code: int) -> None:
        """Its exit status, as the zygote reaped it."""
        if not self._done.done():
            self.returncode = code
            self._done.set_result(code)

    def orphaned(self) -> None:
        """The zygote is gone: the process (now init's) says only that it ended, not how."""
        if not self._done.done():
            self._gone.add_done_callback(lambda _: self._status(0))

    async def wait(self) -> int:
        return await asyncio.shield(self._done)

    def close(self) -> None:
        if self._pidfd >= 0:
            self._done.get_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        for transport in self._transports:
            transport.close()


@dataclass
class _Pending:
    future: asyncio.Future
    fds: list[int] = field(default_factory=list)


class Zygote:
    """The gateway's handle on its zygote: starts it, restarts it when it dies (with backoff),
    forks sessions from it. :meth:`spawn` returns None when no zygote is ready: the caller then
    starts a fresh process as before."""

    RESTART_DELAYS = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)

    def __init__(self, spec: ZygoteSpec):
        self.spec = spec
        self.pid: int | None = None
        self.starts = 0  # zygotes started (a restart counts)
        self.forked = 0  # children forked by the present zygote
        self.problems: list[str] = []
        self._proc: asyncio.subprocess.Process | None = None
        self._sock: socket.socket | None = None
        self._ready: asyncio.Event | None = None
        self._pending: dict[int, asyncio.Future] = {}
        self._children: dict[int, ZygoteChild] = {}
        self._next_id = 0
        self._sending: asyncio.Lock | None = None
        self._writable: asyncio.Future | None = None
        self._closed = False
        self._keeper: asyncio.Task | None = None
        self._home: str | None = None
        self._failures = 0

    # -- life
    def start(self) -> None:
        """Start the zygote in the background (and keep one running until :meth:`close`)."""
        self._ready = asyncio.Event()
        self._keeper = asyncio.get_running_loop().create_task(self._keep())

    async def ready(self, timeout: float = READY_TIMEOUT) -> bool:
        """Wait until a zygote is ready to fork (True), or ``timeout`` passes (False)."""
        if self._ready is None:
            return False
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    @property
    def available(self) -> bool:
        return self._ready is not None and self._ready.is_set()

    async def _keep(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._closed:
            started = loop.time()
            try:
                await self._run_one()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - whatever it was, sessions fall back; try again
                log.warning("the session zygote failed: %s", exc)
            if self._closed:
                return
            if loop.time() - started > 60:
                self._failures = 0
            delay = self.RESTART_DELAYS[min(self._failures, len(self.RESTART_DELAYS) - 1)]
            self._failures += 1
            if delay:
                await asyncio.sleep(delay)

    async def _run_one(self) -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._home = tempfile.mkdtemp(prefix="ono99-zygote-")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": CODE_ROOT, "LANG": "C.UTF-8", "HOME": self._home,
               "ONO99_CONFIG_DIR": os.path.join(self._home, "config"),
               "ONO99_DATA_DIR": os.path.join(self._home, "data")}
        spec = json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in self.spec.__dict__.items()})
        try:
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ono99_tui.net.zygote", str(theirs.fileno()), spec,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, env=env, cwd=self._home,
                pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs.close()
        self.starts += 1
        self.forked = 0
        ours.setblocking(False)
        self._sock = ours
        lost = loop.create_future()
        loop.add_reader(ours, self._readable, lost)
        exited = loop.create_task(self._proc.wait())
        try:
            await asyncio.wait({lost, exited}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
            if self._sock is not None and not lost.done():
                self._readable(lost)  # what it said before it went (a child forked, its pid) is heard
            self._lost()
            await self._stop_process()

    def _readable(self, lost: asyncio.Future) -> None:
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self._sock, MAX_MESSAGE, 4)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, fds = b"", []
            if not data:
                if not lost.done():
                    lost.set_result(None)
                asyncio.get_running_loop().remove_reader(self._sock)
                return
            try:
                msg = json.loads(data)
            except ValueError:
                msg = {}
            if "ready" in msg:
                self.pid = msg["ready"]
                self.problems = msg.get("problems") or []
                for problem in self.problems:
                    log.warning("session zygote: %s", problem)
                self._failures = 0 if not self.problems else self._failures
                self._remove_home()  # (warmed up: it keeps nothing there; each child has a home of its own)
                self._ready.set()
            elif "exit" in msg:
                child = self._children.pop(msg["exit"], None)
                if child is not None:
                    child._status(msg["status"])
            elif "id" in msg:
                future = self._pending.pop(msg["id"], None)
                child = None
                if "pid" in msg and fds:
                    # followed from here on: its exit may come in this very read
                    child = ZygoteChild(msg["pid"], fds.pop(0), asyncio.get_running_loop())
                    self._children[child.pid] = child
                    self.forked += 1
                if future is not None and not future.done():
                    future.set_result((msg, child))
                elif child is not None:  # nobody waits for it any more: it goes
                    try:
                        os.killpg(child.pid, signal.SIGKILL)
                    except OSError:
                        pass
            for fd in fds:
                os.close(fd)

    def _lost(self) -> None:
        """The zygote has gone: nothing more is forked from it; its children end on their own."""
        if self._ready is not None:
            self._ready.clear()
        if self._sock is not None:
            try:
                asyncio.get_running_loop().remove_reader(self._sock)
                asyncio.get_running_loop().remove_writer(self._sock)
            except (ValueError, RuntimeError):
                pass
            self._sock.close()
            self._sock = None
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)  # a sender waiting for room finds it gone
        for future in self._pending.values():
            if not future.done():  # (no child: the caller starts a fresh process, and closes its pipe ends)
                future.set_result(({"error": "the zygote has gone"}, None))
        self._pending.clear()
        for child in self._children.values():
            child.orphaned()
        self._children.clear()
        self._remove_home()

    def _remove_home(self) -> None:
        if self._home is not None:
            import shutil

            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None

    async def _stop_process(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            try:
                proc.kill()  # (its children, in sessions of their own, are not touched)
            except ProcessLookupError:
                pass
            await proc.wait()
        self.pid = None

    async def close(self) -> None:
        self._closed = True
        if self._keeper is not None:
            self._keeper.cancel()
            try:
                await self._keeper
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
        self._lost()
        await self._stop_process()

    def kill(self) -> None:
        """(Tests, and recycling) end the present zygote: the keeper starts another."""
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()

    # -- forking
    async def spawn(self, argv: list[str], env: dict[str, str], cwd: str, *, tty: int | None = None,
                    pipes: bool = False, merge_stderr: bool = False, no_stop: bool = False,
                    title: str | None = None, wait: float = 0.0) -> ZygoteChild | None:
        """A child running the entry point with ``argv``, on the PTY slave ``tty`` (made its
        controlling terminal) or on new pipes (``pipes``: its stdin, stdout and stderr as asyncio
        streams on the returned child; ``merge_stderr``: its stderr goes to its stdout). None
        when no zygote is ready (within ``wait`` seconds if one is starting)."""
        if self._closed or self._ready is None:
            return None
        if not self._ready.is_set():
            # only a first start is worth waiting for: after a crash (or a start that failed)
            # the sessions get fresh processes until a zygote is ready again
            if not wait or self._failures or not await self.ready(wait):
                return None
        if self.forked >= self.spec.recycle_after:
            # a new one takes over (a new address-space layout and hash seed), once nothing is being
            # forked from this one: killed mid-fork, it would leave a child nobody knows of (sitting at
            # a table as its player, its pipes held open); meanwhile a fresh process serves the session
            if not self._pending:
                self.kill()
            return None
        loop = asyncio.get_running_loop()
        ends: list[int] = []
        ours: list[int] = []
        if tty is not None:
            ends = [tty]
        elif pipes:
            for child_reads in (True, False) if merge_stderr else (True, False, False):
                r, w = os.pipe()
                ends.append(r if child_reads else w)
                ours.append(w if child_reads else r)
            if merge_stderr:
                ends.append(ends[1])
        self._next_id += 1
        rid = self._next_id
        future = loop.create_future()
        self._pending[rid] = future
        request = {"id": rid, "argv": argv, "env": env, "cwd": cwd, "tty": tty is not None, "no_stop": no_stop,
                   "title": title}
        try:
            try:
                await self._send(request, ends)
            except (ConnectionError, OSError):  # it has just gone: a fresh process serves this session
                future.set_result(({"error": "the zygote has gone"}, None))
            msg, child = await future
        except BaseException:
            self._pending.pop(rid, None)
            for fd in ours:
                os.close(fd)
            raise
        finally:
            if pipes:
                for fd in set(ends):
                    os.close(fd)
        if child is None:
            if msg.get("error"):
                log.warning("session zygote: %s", msg["error"])
            for fd in ours:
                os.close(fd)
            return None
        if pipes:
            await _streams(child, loop, *ours)
        return child

    async def _send(self, request: dict, fds: list[int]) -> None:
        """One request, whole; when the socket is full (the zygote forks one child at a time),
        the senders queue here, one of them waiting for room (an event loop has one writer per
        socket)."""
        data = json.dumps(request).encode()
        loop = asyncio.get_running_loop()
        if self._sending is None:
            self._sending = asyncio.Lock()
        async with self._sending:
            while True:
                sock = self._sock
                if sock is None:
                    raise ConnectionError("the zygote has gone")
                try:
                    socket.send_fds(sock, [data], fds) if fds else sock.send(data)
                    return
                except (BlockingIOError, InterruptedError):
                    writable = self._writable = loop.create_future()
                    loop.add_writer(sock, lambda: writable.done() or writable.set_result(None))
                    try:
                        await writable  # (or the zygote is lost: _lost wakes it)
                    finally:
                        self._writable = None
                        if sock.fileno() >= 0:
                            loop.remove_writer(sock)


async def _streams(child: ZygoteChild, loop, stdin_w: int, stdout_r: int, stderr_r: int | None = None) -> None:
    """asyncio streams on the gateway's ends of a child's pipes (as create_subprocess_exec makes)."""
    limit = 2 ** 16
    readers = []
    for fd in (stdout_r, stderr_r):
        if fd is None:
            readers.append(None)
            continue
        reader = asyncio.StreamReader(limit=limit, loop=loop)
        transport, _ = await loop.connect_read_pipe(lambda r=reader: asyncio.StreamReaderProtocol(r, loop=loop),
                                                   os.fdopen(fd, "rb", 0))
        child._transports.append(transport)
        readers.append(reader)
    transport, protocol = await loop.connect_write_pipe(lambda: asyncio.streams.FlowControlMixin(loop=loop),
                                                        os.fdopen(stdin_w, "wb", 0))
    child._transports.append(transport)
    child.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
    child.stdout, child.stderr = readers


if __name__ == "__main__":
    sys.exit(main())
