"""`ono99 serve-ssh` on loopback: an asyncssh client with a PTY (screen read with pyte) sees
the table lobby and resizes it; wrong keys and commands are refused (sessions without a PTY
get the plain front end: tests/test_net_ssh_plain.py);
when the connection drops the session's processes are gone within 5 s."""

import asyncio
import os
import random
import re
import signal
import time

import asyncssh
import pyte
import pytest

from ono99_tui.cli import session_zygote
from ono99_tui.net.child import InnerTable
from ono99_tui.net.server import Server, ServerConfig
from ono99_tui.net.ssh import SSHConfig, SSHGate, closing_message, host_key

from .netplay import HANG, HOST, listening_ports, until

ZYGOTE = session_zygote()


@pytest.fixture
def keys(tmp_path):
    client = asyncssh.generate_private_key("ssh-ed25519")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    (tmp_path / "authorized_keys").write_bytes(client.export_public_key())
    return client, stranger, tmp_path / "authorized_keys"


class Gate:
    def __init__(self, tmp_path, authorized, server=None, **config):
        config.setdefault("zygote", ZYGOTE)  # sessions forked from a warm zygote, as `ono99 serve-ssh` runs them
        self.wait_for_zygote = config.pop("wait_for_zygote", True)
        self.tmp_path, self.authorized, self.config = tmp_path, authorized, config
        self.server_config = server or {}

    async def __aenter__(self):
        secret = InnerTable.new_secret()
        self.server = Server(ServerConfig(host=HOST, port=0, bot_delay=0, password=secret, gateway=True, **self.server_config))
        self.table = InnerTable(await self.server.start(), secret)
        self.kept = bool(self.server.config.save and self.server.config.resume)
        self.gate = SSHGate(SSHConfig(host=HOST, port=0, authorized_keys=self.authorized, **self.config),
                           self.table, self.kept)
        self.port = await self.gate.start(host_key(self.tmp_path / "host_key"))
        if self.gate.zygote is not None and self.wait_for_zygote:
            assert await self.gate.zygote.ready()  # (its sessions are forked from it, not fresh processes)
        return self

    async def stop(self):
        """As `ono99 serve-ssh` stops on SIGTERM (net/ssh.py run)."""
        self.gate.stop_accepting()
        reason = closing_message(self.kept)
        await self.server.close(reason)
        await self.gate.close(reason)

    async def __aexit__(self, *exc):
        await self.stop()


def alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


async def read_screen(process, screen, stream, want, limit=HANG):
    """Feed the child's output to pyte until ``want`` (a predicate on the text) holds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        text = "\n".join(screen.display)
        if want(text):
            return text
        try:
            data = await asyncio.wait_for(process.stdout.read(65536), 1.0)
        except TimeoutError:
            continue
        if not data:
            break
        stream.feed(data.decode("utf-8", "replace"))
    raise AssertionError("screen never showed it:\n" + "\n".join(screen.display))


async def test_a_player_with_a_listed_key_gets_the_table_and_resizes_it_and_leaves_no_process(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None) as conn:
            process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
            screen = pyte.Screen(80, 24)
            stream = pyte.Stream(screen)
            text = await read_screen(process, screen, stream, lambda t: "Table 1" in t and "ann" in t)
            assert "<- you" in text
            pgids = set(g.gate.children)
            assert len(pgids) == 1
            screen.resize(30, 100)
            process.change_terminal_size(100, 30)
            await read_screen(process, screen, stream, lambda t: len(screen.display) == 30 and any(
                "O'NO 99" in line and line.index("O'NO 99") > 44 for line in screen.display))
        # the connection is gone: so is the session's process group
        pgid = pgids.pop()
        await until(lambda: not alive(pgid) and not g.gate.children,
                    "the session's processes end with the connection, and the gate lets it go")


async def test_strangers_sessions_without_a_terminal_and_commands_are_refused(tmp_path, keys):
    client_key, stranger, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        with pytest.raises(asyncssh.PermissionDenied):
            await asyncssh.connect(HOST, g.port, username="eve", client_keys=[stranger], known_hosts=None,
                                   agent_path=None)
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None) as conn:
            result = await conn.run("cat /etc/passwd")
            assert result.exit_status == 1 and "only plays O'NO 99" in result.stderr
            for command in ("watch 99999999999", "watch x", "watch 0"):  # (the number is wrong, not the command)
                result = await conn.run(command, term_type="xterm")
                assert result.exit_status == 1 and result.stderr == (
                    "ono99: watch N takes a table's number, 1 to 999999 (watch alone: the table being played)\r\n")
            # (a shell without a PTY gets the game in lines: tests/test_net_ssh_plain.py)
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", g.server.port)
        assert not g.gate.children


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


async def test_ctrl_z_cannot_stop_the_child_and_a_burst_of_escape_bytes_disturbs_nobody_else(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None) as a_conn, \
                asyncssh.connect(HOST, g.port, username="bob", client_keys=[client_key], known_hosts=None,
                                 agent_path=None) as b_conn:
            a = await a_conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            a_screen = pyte.Screen(80, 24)
            a_stream = pyte.Stream(a_screen)
            await read_screen(a, a_screen, a_stream, lambda t: "<- you" in t)
            (a_pid,) = g.gate.children
            a.stdin.write(b"\x1a")  # Ctrl+Z: were the child stopped, the next key would show nothing
            a.stdin.write(b"b")
            await read_screen(a, a_screen, a_stream, lambda t: "bot (medium)" in t)
            assert _state(a_pid) != "T"
            b = await b_conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            b_screen = pyte.Screen(80, 24)
            b_stream = pyte.Stream(b_screen)
            await read_screen(b, b_screen, b_stream, lambda t: "<- you" in t and "bob" in t)
            rng = random.Random(1)
            burst = bytes(rng.choice(b"\x1b[]0123456789;?mHJK\x07\x9b") for _ in range(1 << 20))
            a.stdin.write(burst)  # 1 MiB of escape bytes: rate-limited; whatever it does is to ann's screen only
            b.stdin.write(b"b")  # bob's table (a new one: ann's is full) still answers: fill it with bots
            await read_screen(b, b_screen, b_stream, lambda t: "bot (medium)" in t)
        assert g.server.tables  # the table server is still up


def test_serve_ssh_wants_keys_or_open_and_says_so_in_one_line(tmp_path):
    from .cli import ono99

    proc = ono99("serve-ssh")
    assert proc.returncode == 2 and "--authorized-keys FILE" in proc.stderr and "--open" in proc.stderr
    (tmp_path / "keys").write_text("not a key\n")
    proc = ono99("serve-ssh", "--authorized-keys", str(tmp_path / "keys"))
    assert proc.returncode == 2 and "--authorized-keys" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    # a FIFO (or /dev/zero) was read to its end, which never comes: serve-ssh hung, saying nothing
    # (with /dev/zero, its memory growing); a key file is a regular file of at most 1 MiB
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "huge").write_bytes(b"# " + b"x" * (1 << 20) + b"\n")
    for path, why in ((tmp_path / "fifo", "it is a named pipe (FIFO), not a regular file"),
                      (tmp_path / "huge", "the authorized keys file is too large")):
        proc = ono99("serve-ssh", "--authorized-keys", str(path), timeout=60)
        assert proc.returncode == 2 and proc.stderr.startswith("ono99: --authorized-keys: ") and why in proc.stderr, \
            proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_serve_ssh_on_a_port_in_use_says_so_in_the_systems_words(tmp_path):
    """It said "cannot listen on 127.0.0.1:P: error while attempting to bind on address
    ('127.0.0.1', P): address already in use" (asyncio's words around the system's); ono99 web
    and serve say "Address already in use". A --bind naming no host said "Unknown error -2" on web."""
    import socket

    from .cli import ono99

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = ono99("serve-ssh", "--open", "--port", str(port), timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == f"ono99: cannot listen on 127.0.0.1:{port}: Address already in use\n", proc.stderr
    for command in (("serve-ssh", "--open"), ("web",)):  # a --bind that names nothing said "Unknown error -2"
        proc = ono99(*command, "--bind", "no-such-host.invalid", "--port", "0", timeout=60)
        assert proc.returncode == 2 and proc.stderr.startswith("ono99: cannot listen on no-such-host.invalid:0: ")
        assert "Unknown error" not in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr


async def test_the_same_key_comes_back_to_the_same_seat_and_hand(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        connect = lambda: asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key],  # noqa: E731
                                           known_hosts=None, agent_path=None)
        async with connect() as conn:
            p = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            screen = pyte.Screen(80, 24)
            stream = pyte.Stream(screen)
            await read_screen(p, screen, stream, lambda t: "<- you" in t)
            p.stdin.write(b"b")
            await read_screen(p, screen, stream, lambda t: "bot (medium)" in t)
            p.stdin.write(b"s")
            await read_screen(p, screen, stream, lambda t: "Your hand" in t)
        (table,) = g.server.tables.values()
        seat = table.seats[0]
        await until(lambda: seat.conn is None, "the dropped session's connection ends on the server too")
        assert seat.name == "ann"
        async with connect() as conn:
            p = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            screen = pyte.Screen(80, 24)
            stream = pyte.Stream(screen)
            await read_screen(p, screen, stream, lambda t: "Your hand" in t)
            assert table.seats[0].conn is not None and len(g.server.tables) == 1


async def raw(port: int, source: str):
    """A TCP connection from ``source`` (any 127.x address is this machine) that never logs in;
    returns once the server has answered with its version line (it has counted the connection)."""
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
    line = await asyncio.wait_for(reader.readline(), 10)
    assert line.startswith(b"SSH-2.0-")
    return reader, writer


async def refused(reader) -> bytes:
    """Everything the server sends until it closes the connection (bounded)."""
    data = b""
    for _ in range(100):
        chunk = await asyncio.wait_for(reader.read(4096), 10)
        if not chunk:
            return data
        data += chunk
    raise AssertionError("the server never closed the connection")


async def test_connections_past_the_per_address_cap_are_refused_before_any_login(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, max_per_ip=2) as g:
        held = [await raw(g.port, "127.0.0.2") for _ in range(2)]  # two that never log in
        assert g.gate.per_ip["127.0.0.2"] == 2
        reader, writer = await raw(g.port, "127.0.0.2")
        # told why, in the SSH disconnect message: its address's cap, not "server full" (an empty
        # server said that to the fifth friend behind one router)
        assert b"too many connections from 127.0.0.2: at most 2 at once" in await refused(reader)
        writer.close()
        with pytest.raises(asyncssh.DisconnectError, match="too many connections from 127.0.0.2"):  # a real client too
            await asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                   agent_path=None, local_addr=("127.0.0.2", 0))
        # another address still gets in, and logs in
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None, local_addr=("127.0.0.3", 0)) as conn:
            assert conn.get_extra_info("server_version").startswith("SSH-2.0-")
        for _, w in held:
            w.close()
        await until(lambda: not g.gate.per_ip.get("127.0.0.2"), "the closed connections uncounted as they end")
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None, local_addr=("127.0.0.2", 0)):
            pass  # room again from that address


async def test_connections_past_the_global_cap_are_refused_whoever_they_are_from(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, max_per_ip=10, max_connections=3) as g:
        held = [await raw(g.port, f"127.0.0.{i}") for i in (2, 3, 4)]
        assert g.gate.total == 3
        reader, writer = await raw(g.port, "127.0.0.5")
        assert b"server full" in await refused(reader)
        writer.close()
        with pytest.raises(asyncssh.DisconnectError, match="server full"):
            await asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                   agent_path=None, local_addr=("127.0.0.6", 0))
        assert not g.gate.children and g.gate.sessions == 0  # nothing ran for them
        for _, w in held:
            w.close()


async def test_one_game_per_connection(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None) as conn:
            p = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            screen = pyte.Screen(80, 24)
            await read_screen(p, screen, pyte.Stream(screen), lambda t: "<- you" in t)
            second = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            err = await asyncio.wait_for(second.stderr.read(), 10)
            assert b"one game per connection" in err and len(g.gate.children) == 1


def test_seat_tokens_from_ssh_keys_outlive_a_restart_through_the_kept_seat_key(tmp_path, caplog):
    from ono99_tui.net.ssh import seat_key

    path = tmp_path / "data" / "ssh_seat_key"
    first = SSHGate(SSHConfig(seat_key=path), InnerTable(1, "x"))
    again = SSHGate(SSHConfig(seat_key=path), InnerTable(1, "x"))  # a restarted server
    assert first.seat_token("SHA256:abc", "ann") == again.seat_token("SHA256:abc", "ann")
    assert first.seat_token("SHA256:abc", "ann") != first.seat_token("SHA256:abc", "bob")
    assert os.stat(path).st_mode & 0o077 == 0  # the owner's alone
    assert SSHGate(SSHConfig(), InnerTable(1, "x")).seat_token("SHA256:abc", "ann") != first.seat_token("SHA256:abc", "ann")
    path.write_bytes(b"short")  # damaged: a warning, and a key for this run
    assert len(seat_key(path)) == 32 and "damaged" in caplog.text


async def test_after_a_restart_the_same_key_comes_back_to_the_same_seat_and_hand(tmp_path, keys):
    client_key, _, authorized = keys
    resuming = dict(server={"save": True, "resume": True, "turn_timer": 60}, seat_key=tmp_path / "seat_key")

    async def session(g, *keys_to_press, until):
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None) as conn:
            p = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            screen = pyte.Screen(80, 24)
            stream = pyte.Stream(screen)
            await read_screen(p, screen, stream, lambda t: "<- you" in t or "Your hand" in t)
            for key, shows in keys_to_press:
                p.stdin.write(key)
                await read_screen(p, screen, stream, lambda t: shows in t)
            return await read_screen(p, screen, stream, until)

    async with Gate(tmp_path, authorized, **resuming) as g:
        await session(g, (b"b", "bot (medium)"), (b"s", "Your hand"), until=lambda t: "Your hand" in t)
        (table,) = g.server.tables.values()
        token, hand = table.seats[0].token, sorted(table.session.game.hands[0])
    async with Gate(tmp_path, authorized, **resuming) as g:  # the server was restarted
        (again,) = g.server.tables.values()
        assert again.seats[0].token == token and again.seats[0].conn is None
        await session(g, until=lambda t: "Your hand" in t)
        assert sorted(again.session.game.hands[0]) == hand and len(g.server.tables) == 1


# -- sessions the server ends: the player's terminal is given back, and they are told why ----------
SWITCHED = [(b"\x1b[?1049h", b"\x1b[?1049l"), (b"\x1b[?1000h", b"\x1b[?1000l"), (b"\x1b[?1003h", b"\x1b[?1003l"),
            (b"\x1b[?1006h", b"\x1b[?1006l"), (b"\x1b[?25l", b"\x1b[?25h")]


async def until_closed(process, limit=30.0) -> bytes:
    """Everything the session writes until it ends (the server closes the channel)."""
    out = b""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            data = await asyncio.wait_for(process.stdout.read(65536), 1.0)
        except TimeoutError:
            continue
        except (asyncssh.Error, OSError):
            return out
        if not data:
            return out
        out += data
    raise AssertionError(f"the session never ended; its last output: {out[-300:]!r}")


def assert_given_back(out: bytes, why: str) -> None:
    """Each mode the app switched on was switched off after it (alternate screen left, mouse reporting
    off, cursor shown), and the last line the player reads says why the session ended."""
    for on, off in SWITCHED:
        assert on in out, f"the app never sent {on!r}: the test does not test anything"
        assert out.rfind(off) > out.rfind(on), f"{on!r} is still in force when the session ends"
    last = out[max(out.rfind(off) for _, off in SWITCHED):]
    text = re.sub(r"\x1b\[[0-9;?<>]*[A-Za-z]", "", last.decode("utf-8", "replace"))
    lines = [line.strip() for line in text.replace("\r", "\n").split("\n") if line.strip()]
    assert lines and lines[-1] == f"ono99: {why}", (lines, why)


class Recorded:
    """A client process whose output is also kept whole, from its first byte (``seen``)."""

    def __init__(self, process):
        self.process, self.stdin, self.channel, self.seen = process, process.stdin, process.channel, b""
        self.stdout = self

    async def read(self, n):
        data = await self.process.stdout.read(n)
        self.seen += data
        return data


async def at_the_table(g, key, username="ann", start=True):
    conn = await asyncssh.connect(HOST, g.port, username=username, client_keys=[key], known_hosts=None,
                                  agent_path=None)
    process = Recorded(await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None))
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    await read_screen(process, screen, stream, lambda t: "<- you" in t)
    if start:
        process.stdin.write(b"b")
        await read_screen(process, screen, stream, lambda t: "bot (medium)" in t)
        process.stdin.write(b"s")
        await read_screen(process, screen, stream, lambda t: "Your hand" in t)
    return conn, process


async def test_a_server_stop_mid_game_gives_the_terminal_back_and_says_the_seat_is_kept(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, server={"save": True, "resume": True}) as g:
        conn, process = await at_the_table(g, client_key)
        async with conn:
            stopping = asyncio.ensure_future(g.stop())
            await until_closed(process)
            out = process.seen
            await stopping
        # the app itself was told by the table server (its `closing`), restored the terminal and said so
        assert_given_back(out, "the server is restarting; your seat is kept: connect again with the same key "
                               "to come back to it")
        await until(lambda: not g.gate.children, "the gate lets the ended session go")


async def test_without_saving_a_server_stop_says_nothing_is_kept(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, process = await at_the_table(g, client_key)
        async with conn:
            stopping = asyncio.ensure_future(g.stop())
            await until_closed(process)
            out = process.seen
            await stopping
        assert_given_back(out, "the server is stopping; nothing is kept (this server does not save games)")


async def test_a_stop_that_a_stuck_session_cannot_answer_still_gives_its_terminal_back(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, process = await at_the_table(g, client_key, start=False)
        (pgid,) = g.gate.children
        os.killpg(pgid, signal.SIGSTOP)  # it cannot hear the table server's `closing`
        async with conn:
            g.gate.stop_accepting()
            await g.server.close(closing_message(False))
            stopping = asyncio.ensure_future(g.gate.close(closing_message(False), grace=0.5))
            await until_closed(process)
            out = process.seen
            await stopping
        assert_given_back(out, "the server is stopping; nothing is kept (this server does not save games)")
        with pytest.raises(ProcessLookupError):
            os.killpg(pgid, 0)


async def test_an_idle_session_ends_with_its_terminal_given_back_and_a_reason(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, idle_timeout=3.0) as g:
        conn, process = await at_the_table(g, client_key, start=False)
        async with conn:
            await until_closed(process)
            out = process.seen
        assert_given_back(out, "no key for 3 seconds: the session has ended")
        await until(lambda: not g.gate.children, "the gate lets the ended session go")


@pytest.mark.parametrize("how", ["eof", "break"])
async def test_a_break_or_the_end_of_input_ends_the_session_with_its_terminal_given_back(tmp_path, keys, how):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, process = await at_the_table(g, client_key)
        async with conn:
            if how == "eof":
                process.stdin.write_eof()
            else:
                process.channel.send_break(500)
            await until_closed(process)
            out = process.seen
        why = "your terminal closed its input" if how == "eof" else "your terminal sent a break"
        assert_given_back(out, why + ": the session has ended")
        await until(lambda: not g.gate.children, "the gate lets the ended session go")


def test_terminal_modes_follow_sequences_cut_between_reads_and_restore_only_what_is_on():
    from ono99_tui.net.child import TerminalModes

    modes = TerminalModes()
    stream = b"x\x1b[?1049h\x1b[?1000h\x1b[?1006h\x1b[?25l\x1b[>1uhello\x1b[?1000l"
    for i in range(len(stream)):  # every byte boundary a read may cut at
        modes = TerminalModes()
        modes.feed(stream[:i])
        modes.feed(stream[i:])
        assert modes.restore() == b"\x1b[<u\x1b[?1049l\x1b[?1006l\x1b[?25h\x1b[0m", i
    modes.feed(b"\x1b[<u\x1b[?1049l\x1b[?1006l\x1b[?25h")
    assert modes.restore() == b""  # the app restored everything itself: nothing more is sent


# -- connections that log in and never play; names; the inner table server --------------------------------
async def test_a_logged_in_connection_that_starts_no_game_is_closed(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, session_timeout=1.0, max_per_ip=2) as g:
        # `ssh -N` twice: logged in, no session; each is closed, and the address has its places back
        conns = [await asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                        agent_path=None, local_addr=("127.0.0.2", 0)) for _ in range(2)]
        for conn in conns:
            await asyncio.wait_for(conn.wait_closed(), 10)
        for _ in range(500):
            if not g.gate.per_ip.get("127.0.0.2"):
                break
            await asyncio.sleep(0.01)
        assert not g.gate.per_ip.get("127.0.0.2") and not g.gate.connections
        # a connection that plays is not closed by it, and is closed soon after its game ends
        async with asyncssh.connect(HOST, g.port, username="ann", client_keys=[client_key], known_hosts=None,
                                    agent_path=None, local_addr=("127.0.0.2", 0)) as conn:
            p = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            screen = pyte.Screen(80, 24)
            await read_screen(p, screen, pyte.Stream(screen), lambda t: "<- you" in t)
            await asyncio.sleep(1.5)  # longer than the timeout: the game goes on
            p.stdin.write(b"b")
            await read_screen(p, screen, pyte.Stream(screen), lambda t: "bot (medium)" in t)
            p.stdin.write(b"\x1b")  # Escape leaves the lobby: the game ends, the connection stays open...
            await until_closed(p)
            await asyncio.wait_for(conn.wait_closed(), 10)  # ...until the timeout closes it


async def test_a_name_that_starts_with_a_dash_reaches_the_table_as_it_is(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, process = await at_the_table(g, client_key, username="-bob", start=False)
        async with conn:
            (table,) = g.server.tables.values()
            assert table.seats[0].name == "-bob"


def _waiting(g) -> int:
    """Bytes the gate's SSH channels hold for their clients (asyncssh's send buffers)."""
    return sum(chan.get_write_buffer_size() for conn in g.gate.connections for chan in conn._channels.values())


async def test_a_client_that_reads_nothing_and_spams_window_changes_cannot_grow_the_gateways_memory(tmp_path, keys):
    """Each window change redraws the whole screen (200x60: tens of KB); a client that shuts its
    SSH window and sends them nonstop had every redraw kept in the gateway (~0.5 MB/s, without
    end). Its session's output is held back instead, and reaches it once it reads again."""
    from ono99_tui.net.ssh import OUTPUT_HELD

    client_key, _, authorized = keys
    # (every change passed on: the output held back is what is tested, not the changes' rate limit)
    async with Gate(tmp_path, authorized, resizes_per_second=1e6) as g:
        conn, process = await at_the_table(g, client_key, start=False)
        async with conn:
            (pgid,) = g.gate.children
            process.channel.pause_reading()  # it takes nothing more: its SSH window shuts
            flip = 0

            def spam() -> bool:
                nonlocal flip
                for _ in range(20):
                    flip ^= 1
                    process.process.change_terminal_size(200 - flip, 60)
                return pgid in g.gate.held or _waiting(g) > 8 * OUTPUT_HELD

            await until(spam, "the session's output is held back, or piles up in the gateway")
            assert pgid in g.gate.held and _waiting(g) <= OUTPUT_HELD + 65536, _waiting(g)
            process.process.change_terminal_size(80, 24)
            process.channel.resume_reading()  # it reads again: the session goes on, at its size
            screen = pyte.Screen(80, 24)
            await read_screen(process, screen, pyte.Stream(screen), lambda t: "<- you" in t and "Table" in t)
            await until(lambda: pgid not in g.gate.held, "once the client has read, the output flows again")


@pytest.mark.parametrize("command", [None, "plain", "watch"])
async def test_a_user_name_no_table_takes_is_refused_in_the_players_words_with_no_process(tmp_path, keys, command):
    """`ssh -l ' ' HOST` (a name of accents only, one of 25 characters): the player never gave --name, and is told
    which user name cannot sit and how to take another, before any process is started for it."""
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        # (a name longer than 24 was cut to 24 and sat under a name its player never chose)
        for username in (" ", "\u0301\u0301", "reginald.fortescue-smythe"):
            async with asyncssh.connect(HOST, g.port, username=username, client_keys=[client_key], known_hosts=None,
                                        agent_path=None) as conn:
                process = await conn.create_process(command, term_type=None if command == "plain" else "xterm")
                result = await process.wait(timeout=HANG)  # (its input left open: it ends by itself)
            assert result.exit_status == 2, result
            assert result.stderr == (f"ono99: the SSH user name {username!r} cannot be a name at the table: a name "
                                     "is 1 to 24 printable characters that show (not only accents); log in as "
                                     "another user (ssh OTHER@HOST) to take another name\r\n"), result.stderr
            assert "--name" not in result.stdout + result.stderr
        assert g.gate.zygote.forked == 0 and not g.gate.children and not g.server.tables


@pytest.mark.parametrize("zygote", [True, False], ids=["zygote", "fresh"])
async def test_the_inner_table_server_refuses_a_client_without_the_childrens_secret(tmp_path, keys, zygote):
    from ono99_tui.net.client import Client, ServerError

    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, zygote=ZYGOTE if zygote else None) as g:
        for password in (None, "guess"):
            with pytest.raises(ServerError) as refused:
                await Client.connect(HOST, g.table.port, "eve", password)
            assert refused.value.code == "auth"
        conn, process = await at_the_table(g, client_key, start=False)
        async with conn:
            (pid,) = g.gate.children
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item)
            assert g.table.secret.encode() not in b" ".join(argv)  # `ps` shows the command line to everyone
            if zygote:
                # a forked child gets its environment over the zygote's private socket: what /proc
                # shows is the zygote's own (no secret in it); the child sat, so it had the secret
                assert g.table.secret.encode() not in b" ".join(env.values()) and b"ONO99_PASSWORD" not in env
                (table,) = g.server.tables.values()
                assert table.seats[0].conn.address == "127.0.0.1"  # (the one its environment named)
            else:
                assert env[b"ONO99_PASSWORD"] == g.table.secret.encode()
                assert env[b"ONO99_PLAYER_ADDRESS"] == b"127.0.0.1"


async def test_sigterm_to_serve_ssh_tells_a_player_mid_game_and_gives_their_terminal_back(tmp_path, keys):
    """The real command: its inner table server wants the secret; SIGTERM ends every session cleanly."""
    import sys

    from ono99_tui.net.client import Client, ServerError

    client_key, _, authorized = keys
    env = dict(os.environ, ONO99_DATA_DIR=str(tmp_path / "data"), ONO99_CONFIG_DIR=str(tmp_path / "config"))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui", "serve-ssh", "--port", "0", "--bot-delay", "0", "--authorized-keys",
        str(authorized), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    try:
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        port = int(re.search(r":(\d+) for", line).group(1))
        (inner,) = listening_ports(proc.pid) - {port}
        with pytest.raises(ServerError) as refused:  # another local user cannot sit, watch or create
            await Client.connect(HOST, inner, "eve")
        assert refused.value.code == "auth"

        class Served:
            pass

        served = Served()
        served.port = port
        conn, process = await at_the_table(served, client_key)
        async with conn:
            proc.send_signal(signal.SIGTERM)
            await until_closed(process)
        assert_given_back(process.seen, "the server is restarting; your seat is kept: connect again with the same "
                                        "key to come back to it")
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_a_game_killed_on_the_server_gives_the_terminal_back_and_says_so(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, process = await at_the_table(g, client_key)
        async with conn:
            (pgid,) = g.gate.children
            os.kill(pgid, signal.SIGKILL)  # (out of memory): the app restores nothing itself
            await until_closed(process)
            assert_given_back(process.seen, "the game stopped unexpectedly")
            assert process.process.exit_status == 1


async def test_with_open_too_a_connection_that_starts_no_game_is_closed(tmp_path, keys):
    async with Gate(tmp_path, None, open=True, session_timeout=0.5) as g:
        conn = await asyncssh.connect(HOST, g.port, username="anyone", known_hosts=None, agent_path=None,
                                      client_keys=None)
        await asyncio.wait_for(conn.wait_closed(), 10)
        for _ in range(500):
            if not g.gate.connections:
                break
            await asyncio.sleep(0.01)
        assert not g.gate.connections and g.gate.total == 0


async def test_the_watch_command_shows_the_table_being_played_and_never_a_hand(tmp_path, keys):
    """`ssh -t HOST watch`: a spectator's screen of the one game being played (issue 21's watch
    choice), no seat taken; `watch N` names one of several; without a terminal it is refused."""
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, player = await at_the_table(g, client_key, "ann")
        try:
            table = next(iter(g.server.tables))
            for command in ("watch", f"watch {table}"):  # (one game per connection: a connection each)
                async with asyncssh.connect(HOST, g.port, username="bea", client_keys=[client_key],
                                            known_hosts=None, agent_path=None) as conn2:
                    process = await conn2.create_process(command, term_type="xterm-256color", term_size=(80, 24),
                                                         encoding=None)
                    screen = pyte.Screen(80, 24)
                    stream = pyte.Stream(screen)
                    text = await read_screen(process, screen, stream,
                                             lambda t: "ann" in t and "Your hand" not in t and "Tokens" in t)
                    assert "<- you" not in text
                    listing = g.server.tables[table].public()
                    assert "bea" in listing["watching"]  # watching, not seated
                    assert "bea" not in [s["name"] for s in listing["seats"]]
            async with asyncssh.connect(HOST, g.port, username="bea", client_keys=[client_key], known_hosts=None,
                                        agent_path=None) as conn2:
                result = await conn2.run("watch", term_type=None)
                assert result.exit_status == 1 and "watching needs a terminal" in result.stderr
            async with asyncssh.connect(HOST, g.port, username="bea", client_keys=[client_key], known_hosts=None,
                                        agent_path=None) as conn2:
                result = await conn2.run("watch 0")
                assert result.exit_status == 1 and "watch N takes a table's number" in result.stderr
        finally:
            player.process.close()
            conn.close()


def test_the_gateway_limits_have_flags_that_reach_it_and_bad_ones_are_one_line(tmp_path, monkeypatch):
    from ono99_tui import cli
    from ono99_tui.net import ssh

    from .cli import ono99

    for args, words in [(["--ssh-per-address", "0"], "--ssh-per-address must be a whole number from 1 to 65535"),
                        (["--idle-timeout", "0"], "--idle-timeout must be 1 to 604800 seconds"),
                        (["--session-timeout", "nan"], "--session-timeout must be 1 to 604800 seconds")]:
        proc = ono99("serve-ssh", "--open", "--port", "0", *args)
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, \
            proc.stderr
    seen = []

    async def run(ssh_config, config, ready):
        seen.append(ssh_config)

    monkeypatch.setattr(ssh, "run", run)
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "data"))
    assert cli.main(["serve-ssh", "--open", "--port", "0", "--ssh-per-address", "2", "--idle-timeout", "90",
                     "--session-timeout", "5"]) == 0
    (config,) = seen
    assert (config.max_per_ip, config.idle_timeout, config.session_timeout) == (2, 90.0, 5.0)


async def test_ctrl_q_mid_game_over_ssh_says_the_seat_is_kept_and_how_to_come_back(tmp_path, keys):
    """A play-tester's find: Ctrl+Q mid-game over serve-ssh ended the session with no line at all,
    where a local join says where the seat is kept."""
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, server={"save": True, "resume": True}) as g:
        conn, process = await at_the_table(g, client_key)
        async with conn:
            process.stdin.write(b"\x11")  # Ctrl+Q
            await until_closed(process)
            out = process.seen
        text = re.sub(r"\x1b\[[0-9;?<>]*[A-Za-z]", "", out[out.rfind(b"\x1b[?1049l"):].decode("utf-8", "replace"))
        lines = [line.strip() for line in text.replace("\r", "\n").split("\n") if line.strip()]
        assert lines[-1] == ("You left table 1; your seat is kept (a bot plays it after the turn timer): connect "
                             "again with the same key to come back to it."), lines
        (table,) = g.server.tables.values()
        assert table.seats[0].name == "ann" and table.started


def test_serve_ssh_with_both_open_and_keys_and_a_server_on_an_unknown_address_say_one_line(tmp_path):
    from .cli import ono99

    keys = tmp_path / "keys"
    keys.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_public_key())
    proc = ono99("serve-ssh", "--open", "--authorized-keys", str(keys))
    assert proc.returncode == 2 and proc.stderr.strip().endswith("not both"), proc.stderr
    for command in ("serve", "web", "serve-ssh --open"):  # (it warned of no password, then failed)
        proc = ono99(*command.split(), "--bind", "nosuchhost.invalid", "--port", "0")
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, (command, proc.stderr)
        assert "cannot listen on nosuchhost.invalid" in proc.stderr and "warning" not in proc.stderr, proc.stderr


async def test_window_changes_sent_nonstop_reach_the_app_a_few_times_a_second_and_the_last_one_always(tmp_path, keys):
    """A gateway's helper's find: a client that reads (so its output is never held back) and
    sends window changes nonstop had its app redraw the whole screen for every one, about a core
    of CPU and a megabyte a second for one session. They now reach the PTY at most
    RESIZES_PER_SECOND (the first at once), and the size the client ends at always does."""
    from ono99_tui.net.child import RESIZES_PER_SECOND

    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        conn, process = await at_the_table(g, client_key, start=False)
        async with conn:
            (resizes,) = g.gate.resizes
            started = time.monotonic()
            for i in range(400):  # (with a read between: the client takes what it is sent)
                process.process.change_terminal_size(200 - i % 2, 60)
                if i % 20 == 0:
                    await asyncio.sleep(0)  # (the changes go out as they are made)
            process.process.change_terminal_size(80, 24)
            # the last change sent, the size the client ended at, reaches the session's terminal
            await until(lambda: _pty_size(g) == (24, 80), "the session's terminal takes the last size sent")
            elapsed = time.monotonic() - started
            # every change a session's app is given, but at most a few a second: never the 401 sent
            assert 1 <= resizes.applied <= 2 + elapsed * RESIZES_PER_SECOND, (resizes.applied, elapsed)
            screen = pyte.Screen(80, 24)
            await read_screen(process, screen, pyte.Stream(screen), lambda t: "<- you" in t and "Table" in t)


def _pty_size(g) -> tuple[int, int]:
    """(rows, columns) of the one session's terminal, as its app reads it."""
    import fcntl
    import struct
    import termios

    (pgid,) = g.gate.children
    with open(f"/proc/{pgid}/fd/0", "rb", buffering=0) as tty:
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(tty.fileno(), termios.TIOCGWINSZ, b"\0" * 8))
    return rows, cols


async def test_resizes_pass_the_first_at_once_then_only_the_latest_at_the_rate():
    from ono99_tui.net.child import Resizes

    given: list[tuple[int, int]] = []
    resizes = Resizes(lambda w, h: given.append((w, h)), per_second=1000.0)
    try:
        resizes.change(100, 30)
        await until(lambda: given == [(100, 30)], "the first change is passed on at once")
        for width in range(101, 301):
            resizes.change(width, 30)  # (all before the next may pass: only the last counts)
        await until(lambda: given[-1:] == [(300, 30)], "the latest change is passed on")
        assert given == [(100, 30), (300, 30)]
    finally:
        resizes.close()

    async def gone(w, h):  # (the tab or terminal is gone: the sizing stops, no error escapes)
        raise OSError("gone")
    resizes = Resizes(gone)
    resizes.change(80, 24)
    await until(lambda: resizes._task.done(), "a session ending under a change stops the sizing")
    assert resizes._task.exception() is None

def test_the_ssh_servers_caps_fit_the_open_file_limit(monkeypatch):
    """A play-tester's find: serve-ssh fitted only its table server to ulimit -n, never its
    sessions (each holds files: its PTY or pipes, its pidfd, its connection to the table server).
    Under ulimit -n 100 the 18th session found no file left: its player saw "Connection lost",
    and nothing said why (the one warning spoke of the table server's connections)."""
    import resource

    from ono99_tui.net.server import FILES_PER_TABLE
    from ono99_tui.net.ssh import FILES_PER_SESSION, fit_open_files

    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 1024))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: None)  # (the hard limit: no higher)
    fitted, warning = fit_open_files(SSHConfig(), tables=128, tables_wanted=200)
    assert FILES_PER_SESSION * fitted.max_sessions + fitted.max_connections + FILES_PER_TABLE * 128 + 256 <= 1024
    assert fitted.max_connections > fitted.max_sessions >= 32 and fitted.max_per_ip == SSHConfig().max_per_ip
    assert warning.startswith("open files are limited to 1024") and "sessions" in warning and "LimitNOFILE" in warning
    want = int(warning.split(" to ")[-1].split()[0])  # (raised to that, the caps asked for all fit)
    assert want == 512 + FILES_PER_SESSION * 256 + FILES_PER_TABLE * 200 + 256
    monkeypatch.setattr(resource, "getrlimit", lambda which: (want, want))
    assert fit_open_files(SSHConfig(), tables=200) == (SSHConfig(), None)


@pytest.mark.parametrize("command", [["serve-ssh", "--open", "--no-zygote"], ["web", "--no-zygote"]])
def test_a_gateway_under_a_low_open_file_limit_says_so_once_for_the_whole_process(tmp_path, command):
    """Under ulimit -n 1024, `ono99 web` warned twice with two limits to raise to (its table
    server's and its own), and serve-ssh warned only of its table server's connections, which
    nobody but its own sessions reaches: one warning now, the gateway's, naming what it serves."""
    import subprocess
    import sys

    def few_files():
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))

    env = dict(os.environ, ONO99_DATA_DIR=str(tmp_path / "data"), ONO99_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", *command, "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, preexec_fn=few_files)
    try:
        ready = proc.stdout.readline()  # (said once it listens: every warning of its start is said before)
        assert "ono99 " in ready, ready + proc.stderr.read()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    said = [line for line in err.splitlines() if "open files are limited" in line]
    assert len(said) == 1 and ("sessions" in said[0] or "tabs" in said[0]), err


def test_an_authorized_keys_file_without_a_public_key_says_what_the_file_holds(tmp_path):
    """serve-ssh --authorized-keys given the private key (~/.ssh/id_ed25519, not its .pub), an
    empty file or one of garbage said asyncssh's "No valid entries found"."""
    from ono99_tui.net import ssh

    private = tmp_path / "id_ed25519"
    private.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
                       "-----END OPENSSH PRIVATE KEY-----\n")
    with pytest.raises(ValueError) as said:
        ssh.authorized_keys(private)
    assert str(said.value) == (f"{private} is a private key: give the public keys, such as the {private}.pub "
                               "ssh-keygen made beside it (never share a private key)")
    for text in ("", "garbage\n", "ssh-ed25519\n"):
        (tmp_path / "keys").write_text(text)
        with pytest.raises(ValueError) as said:
            ssh.authorized_keys(tmp_path / "keys")
        assert str(said.value).startswith(f"{tmp_path / 'keys'}: no public key in it; "), str(said.value)


@pytest.mark.parametrize("command", ["join", "watch", "plain"])
def test_a_gateways_session_that_cannot_reach_its_tables_names_no_loopback_port(command, monkeypatch, tmp_path):
    """A play-tester's find: an SSH session opened as serve-ssh stopped said "ono99: cannot
    connect to 127.0.0.1:38557: connection refused": the gateway's own table server, on a random
    loopback port, which means nothing to the player. A gateway's child says "this server"."""
    import socket

    from .cli import ono99

    with socket.socket() as s:  # a port nothing listens on
        s.bind((HOST, 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ONO99_GATEWAY", "ssh")
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ONO99_CONFIG_DIR", str(tmp_path / "config"))
    args = ["join", f"{HOST}:{port}", "--name=ann", "--or-create", "--plain"] if command == "plain" else \
        [command, f"{HOST}:{port}", "--name=ann", *(["--or-create"] if command == "join" else [])]
    proc = ono99(*args, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "ono99: cannot connect to this server: connection refused", proc.stderr
