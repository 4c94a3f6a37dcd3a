"""`ono99 serve-ssh` on loopback: an asyncssh client with a PTY (screen read with pyte) sees
the table lobby and resizes it; wrong keys, sessions without a PTY and commands are refused;
when the connection drops the session's processes are gone within 5 s."""

import asyncio
import os
import random
import time

import asyncssh
import pyte
import pytest

from ono99_tui.net.server import Server, ServerConfig
from ono99_tui.net.ssh import SSHConfig, SSHGate, host_key

from .netplay import HANG, HOST, until


@pytest.fixture
def keys(tmp_path):
    client = asyncssh.generate_private_key("ssh-ed25519")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    (tmp_path / "authorized_keys").write_bytes(client.export_public_key())
    return client, stranger, tmp_path / "authorized_keys"


class Gate:
    def __init__(self, tmp_path, authorized, server=None, **config):
        self.tmp_path, self.authorized, self.config = tmp_path, authorized, config
        self.server_config = server or {}

    async def __aenter__(self):
        self.server = Server(ServerConfig(host=HOST, port=0, bot_delay=0, **self.server_config))
        table_port = await self.server.start()
        self.gate = SSHGate(SSHConfig(host=HOST, port=0, authorized_keys=self.authorized, **self.config),
                           table_port)
        self.port = await self.gate.start(host_key(self.tmp_path / "host_key"))
        return self

    async def __aexit__(self, *exc):
        await self.gate.close()
        await self.server.close()


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
        await until(lambda: not alive(pgid), "the session's processes end with the connection")
        assert not g.gate.children


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
            result = await conn.run()  # a shell, but no PTY
            assert result.exit_status == 1 and "a terminal is needed" in result.stderr
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
        assert b"server full" in await refused(reader)  # told why, in the SSH disconnect message
        writer.close()
        with pytest.raises(asyncssh.DisconnectError, match="server full"):  # a real client is told too
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
    first = SSHGate(SSHConfig(seat_key=path), 1)
    again = SSHGate(SSHConfig(seat_key=path), 1)  # a restarted server
    assert first.seat_token("SHA256:abc", "ann") == again.seat_token("SHA256:abc", "ann")
    assert first.seat_token("SHA256:abc", "ann") != first.seat_token("SHA256:abc", "bob")
    assert os.stat(path).st_mode & 0o077 == 0  # the owner's alone
    assert SSHGate(SSHConfig(), 1).seat_token("SHA256:abc", "ann") != first.seat_token("SHA256:abc", "ann")
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
