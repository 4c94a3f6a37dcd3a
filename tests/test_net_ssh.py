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

from .netplay import HOST


@pytest.fixture
def keys(tmp_path):
    client = asyncssh.generate_private_key("ssh-ed25519")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    (tmp_path / "authorized_keys").write_bytes(client.export_public_key())
    return client, stranger, tmp_path / "authorized_keys"


class Gate:
    def __init__(self, tmp_path, authorized):
        self.tmp_path, self.authorized = tmp_path, authorized

    async def __aenter__(self):
        self.server = Server(ServerConfig(host=HOST, port=0, bot_delay=0))
        table_port = await self.server.start()
        self.gate = SSHGate(SSHConfig(host=HOST, port=0, authorized_keys=self.authorized), table_port)
        self.port = await self.gate.start(host_key(self.tmp_path / "host_key"))
        return self

    async def __aexit__(self, *exc):
        await self.gate.close()
        await self.server.close()


async def read_screen(process, screen, stream, want, limit=30.0):
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
        # the connection is gone: so is the session's process group, within 5 s
        pgid = pgids.pop()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the session's processes outlived the connection")
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
