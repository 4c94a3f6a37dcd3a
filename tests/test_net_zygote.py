"""serve-ssh's sessions forked from a warm zygote (net/zygote.py): through a real PTY, the
session's child is the zygote's, in a session of its own with the PTY as its controlling
terminal and exactly the sandbox a fresh process gets (the environment whitelist, throwaway
folders, no descriptor of anyone else's); its process group goes with the connection; two
children draw different random numbers; a killed zygote is replaced; without a zygote, a
fresh process serves the session."""

import asyncio
import json
import os
import signal
from pathlib import Path

import asyncssh
import pyte
import pytest

from ono99_tui import __version__
from ono99_tui.net.zygote import ZygoteSpec

from .netplay import HOST, until
from .test_net_ssh import Gate, alive, at_the_table, keys, read_screen  # noqa: F401 - keys is a fixture

ROOT = str(Path(__file__).resolve().parent.parent)
PROBE = ZygoteSpec(entry="tests.zygote_probe:main", path=(ROOT,))


async def probe(g, key, username="ann"):
    """An SSH session with a PTY whose child (tests/zygote_probe.py) says what it was given."""
    conn = await asyncssh.connect(HOST, g.port, username=username, client_keys=[key], known_hosts=None,
                                  agent_path=None)
    process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
    said = b""
    while b" END" not in said:
        data = await process.stdout.read(65536)
        assert data, f"the session ended before its child spoke: {said!r}"
        said += data
    line = said.split(b"PROBE ", 1)[1].split(b" END", 1)[0]
    return conn, process, json.loads(line.replace(b"\r\n", b""))


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # (a zombie not yet reaped by whoever it was left to)
        return f.read().rsplit(")", 1)[1].split()[0] == "Z"


async def test_a_forked_session_has_its_own_terminal_sandbox_and_group_which_go_with_the_connection(
        tmp_path, keys, monkeypatch):
    client_key, _, authorized = keys
    monkeypatch.setenv("ONO99_SERVER_ONLY", "not for the children")  # the gateway's environment
    async with Gate(tmp_path, authorized, zygote=PROBE) as g:
        conn, process, child = await probe(g, client_key, username="-bob")
        async with conn:
            zygote = g.gate.zygote.pid
            assert child["ppid"] == zygote and child["pid"] != zygote  # forked, not a fresh process
            assert child["pid"] == child["sid"] == child["pgid"] and g.gate.children == {child["pid"]}
            assert child["tty"] and child["tty_nr"] != 0  # the PTY is its controlling terminal
            assert set(child["fds"]) <= {0, 1, 2, 3}  # (3: the listing itself) nothing of the zygote's
            assert child["argv"] == ["join", f"127.0.0.1:{g.table.port}", "--name=-bob", "--or-create"]
            env = child["env"]
            home = env["HOME"]
            assert set(env) == {"PATH", "HOME", "TERM", "LANG", "ONO99_CONFIG_DIR", "ONO99_DATA_DIR", "ONO99_PASSWORD",
                                "ONO99_GATEWAY", "ONO99_SEAT_TOKEN", "ONO99_PLAYER_ADDRESS", "ONO99_NAME_HINT"}
            assert env["ONO99_PASSWORD"] == g.table.secret and env["ONO99_PLAYER_ADDRESS"] == "127.0.0.1"
            assert env["ONO99_NAME_HINT"] == "log in as another user (ssh OTHER@HOST) to take another name"
            assert env["ONO99_CONFIG_DIR"] == os.path.join(home, "config") and os.path.isdir(home)
            assert os.path.realpath(child["cwd"]) == os.path.realpath(home) and "ono99-ssh-" in home
            pgid, sleeper = child["pgid"], child["sleeper"]
            assert alive(pgid) and not _gone(sleeper)
        # the connection is gone: so is everything in the child's process group, and its home
        await until(lambda: _gone(child["pid"]) and _gone(sleeper) and not g.gate.children,
                    "the session's process group ends with the connection")
        await until(lambda: not os.path.exists(home), "its throwaway home is removed")


async def test_two_forked_children_draw_different_random_numbers(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, zygote=PROBE) as g:
        a_conn, _, a = await probe(g, client_key, "ann")
        b_conn, _, b = await probe(g, client_key, "bob")
        async with a_conn, b_conn:
            assert a["ppid"] == b["ppid"] == g.gate.zygote.pid
            assert a["random"] != b["random"]  # reseeded after the fork (64 bits: never equal by chance)
            assert a["env"]["HOME"] != b["env"]["HOME"]


async def test_a_killed_zygote_is_replaced_and_its_sessions_play_on(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        zygote = g.gate.zygote
        first = zygote.pid
        conn, process = await at_the_table(g, client_key, start=False)
        screen = pyte.Screen(80, 24)
        stream = pyte.Stream(screen)
        async with conn:
            (old_child,) = g.gate.children
            os.kill(first, signal.SIGKILL)
            await until(lambda: zygote.available and zygote.pid not in (None, first), "a new zygote is ready")
            assert zygote.starts == 2
            process.stdin.write(b"b")  # the session forked from the killed zygote plays on
            await read_screen(process, screen, stream, lambda t: "bot (medium)" in t)
            b_conn, b = await at_the_table(g, client_key, username="bob", start=False)
            async with b_conn:
                (new_child,) = g.gate.children - {old_child}
                with open(f"/proc/{new_child}/stat") as f:
                    assert int(f.read().rsplit(")", 1)[1].split()[1]) == zygote.pid  # forked from the new one
        # the orphaned session still ends with its connection
        await until(lambda: not alive(old_child) and not g.gate.children, "both sessions end with their connections")


async def test_without_a_zygote_a_fresh_process_serves_the_session(tmp_path, keys):
    client_key, _, authorized = keys
    broken = ZygoteSpec(entry="no_such_module_anywhere:main")  # it can never start
    async with Gate(tmp_path, authorized, zygote=broken, wait_for_zygote=False) as g:
        await until(lambda: g.gate.zygote.starts >= 1 and not g.gate.zygote.available and g.gate.zygote._failures,
                    "the zygote failed to start")
        conn, process = await at_the_table(g, client_key, username="-bob", start=False)
        async with conn:
            (child,) = g.gate.children
            with open(f"/proc/{child}/stat") as f:
                assert int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid()  # the gateway's own child
            (table,) = g.server.tables.values()
            assert table.seats[0].name == "-bob"
        await until(lambda: not alive(child) and not g.gate.children, "its process group ends with the connection")


async def test_a_burst_of_sessions_larger_than_the_zygotes_socket_holds_is_forked_whole():
    """Requests queue when the socket is full (the zygote forks one at a time): none is lost."""
    from ono99_tui.net.zygote import Zygote

    zygote = Zygote(ZygoteSpec(entry="ono99_tui.cli:main"))
    zygote.start()
    try:
        assert await zygote.ready()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PADDING": "x" * 20_000}
        children = await asyncio.gather(*(zygote.spawn(["--version"], env, "/", pipes=True) for _ in range(60)))
        assert all(children)
        said = await asyncio.gather(*(child.stdout.read() for child in children))
        assert set(said) == {f"ono99 {__version__}\n".encode()} and set(await asyncio.gather(*(c.wait() for c in children))) == {0}
        for child in children:
            child.close()
    finally:
        await zygote.close()


def test_the_sessions_run_the_same_ono99_as_the_gateway_not_another_installed_one(tmp_path):
    """`python -m ono99_tui serve-ssh` from a checkout (or with PYTHONPATH naming one) while another
    ono99 is installed: the zygote, started with only PATH from the gateway's environment, imported
    the installed one, so every player ran other code than the server (a play-tester's fixes on the
    server were not in any session); with none installed, no session could start at all. The
    zygote and a fresh process both run the gateway's own ono99_tui."""
    import shutil
    import subprocess
    import sys

    import ono99_tui

    copy = tmp_path / "checkout"
    shutil.copytree(Path(ono99_tui.__file__).parent, copy / "ono99_tui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "ono99_tui" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{__version__}"', '__version__ = "9.9.9-checkout"'))
    script = """if True:
        import asyncio, os, sys
        from ono99_tui.net.child import Sandbox, start
        from ono99_tui.net.zygote import Zygote, ZygoteSpec
        from ono99_tui.cli import session_zygote

        async def version(zygote):
            box = Sandbox("test")
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": box.home}
            child = await start(zygote, ["--version"], env, box.home, pipes=True, stdin=asyncio.subprocess.PIPE,
                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
            said = await child.stdout.read()
            await child.wait()
            if hasattr(child, "close"):
                child.close()
            box.remove()
            return said.decode().strip()

        async def main():
            zygote = Zygote(session_zygote())
            zygote.start()
            try:
                assert await zygote.ready(), "the zygote never started"
                print("zygote:", await version(zygote))
            finally:
                await zygote.close()
            print("fresh:", await version(None))

        asyncio.run(main())
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", script], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["zygote: ono99 9.9.9-checkout", "fresh: ono99 9.9.9-checkout"], \
        (proc.stdout, proc.stderr[-2000:])


def _pipes() -> set[str]:
    """The pipes this process holds an end of."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # (the listing's own descriptor)
            continue
        if target.startswith("pipe:"):
            found.add(f"{fd} {target}")
    return found


async def test_a_zygote_lost_with_a_session_in_flight_leaves_that_session_a_fresh_process_and_no_open_pipe():
    """A play-tester's 1,050 plain sessions: at the zygote's recycling one session ended at once with
    not a word, and its pipes stayed open in the gateway: the zygote, gone with the request in flight,
    was answered with ([] for no child), which spawn took for a child. spawn now says None (the caller
    starts a fresh process) and closes its ends of the pipes."""
    from ono99_tui.net.zygote import Zygote

    zygote = Zygote(ZygoteSpec(entry="ono99_tui.cli:main"))
    zygote.start()
    try:
        assert await zygote.ready()
        send = zygote._send

        async def lost_in_flight(request, fds):  # the zygote dies with this request unanswered
            zygote._lost()

        zygote._send = lost_in_flight
        before = _pipes()
        assert await zygote.spawn(["--version"], {"PATH": "/usr/bin:/bin"}, "/", pipes=True) is None
        assert _pipes() == before  # (its three pipes: no end of one left open here)
        zygote._send = send
    finally:
        await zygote.close()


async def test_a_zygote_is_recycled_only_when_no_session_is_being_forked_from_it():
    """Killed for recycling while a fork was in flight, the zygote left a forked child nobody knew
    of: it sat at a table as the player, blocked on a pipe the gateway kept open, for ever (their
    next sessions: "someone called 'p25' already sits at this table"). Past recycle_after a zygote
    is replaced once nothing is in flight; until then a session gets a fresh process."""
    from ono99_tui.net.zygote import Zygote

    zygote = Zygote(ZygoteSpec(entry="ono99_tui.cli:main", recycle_after=1))
    zygote.start()
    try:
        assert await zygote.ready()
        child = await zygote.spawn(["--version"], {"PATH": "/usr/bin:/bin"}, "/", pipes=True)
        assert child is not None and zygote.forked == 1
        await child.wait()
        child.close()
        first = zygote.pid
        in_flight = asyncio.get_running_loop().create_future()
        zygote._pending[-1] = in_flight  # (a session's request the zygote has not answered yet)
        assert await zygote.spawn(["--version"], {"PATH": "/usr/bin:/bin"}, "/", pipes=True) is None
        zygote.forked = 0  # (were it killed just now, it could fork nothing more)
        child = await zygote.spawn(["--version"], {"PATH": "/usr/bin:/bin"}, "/", pipes=True)
        assert child is not None and zygote.pid == first and zygote.starts == 1  # not killed under it
        await child.wait()
        child.close()
        del zygote._pending[-1]
        assert await zygote.spawn(["--version"], {"PATH": "/usr/bin:/bin"}, "/", pipes=True) is None
        await until(lambda: zygote.available and zygote.pid not in (None, first), "a new zygote took over")
    finally:
        await zygote.close()
