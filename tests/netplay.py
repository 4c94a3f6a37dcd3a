"""Shared by the network tests: a live server on loopback, recording clients, random players."""

from __future__ import annotations

import asyncio
import os
import contextlib
import random

from ono99_tui.net.client import Client
from ono99_tui.net.server import Server, ServerConfig

HOST = "127.0.0.1"  # loopback only, always


@contextlib.asynccontextmanager
async def serving(**config):
    config.setdefault("seed", 1)
    # test clients play as fast as the loop goes: no flood limit unless a test asks for one
    config.setdefault("rate", 1e9)
    config.setdefault("burst", 10**9)
    server = Server(ServerConfig(host=HOST, port=0, **config))
    await server.start()
    try:
        yield server
    finally:
        await server.close()


class _Tap:
    """A StreamReader stand-in that keeps every byte read."""

    def __init__(self, reader, sink: bytearray):
        self._reader, self._sink = reader, sink

    async def read(self, n: int = -1) -> bytes:
        data = await self._reader.read(n)
        self._sink += data
        return data


class RecordingClient(Client):
    """A client that keeps every byte the server sent it, from the first."""

    def __init__(self, reader, writer):
        self.received = bytearray()
        super().__init__(_Tap(reader, self.received), writer)


async def connect(server: Server, name: str, cls=RecordingClient, **kw) -> Client:
    return await cls.connect(HOST, server.port, name, **kw)


async def play_randomly(client: Client, rng: random.Random, seat: int, max_messages: int = 100_000,
                        on_turn=None) -> tuple[dict, list[dict]]:
    """Play random legal cards whenever it is this seat's turn, until the game is over.
    Returns (the last state, every message seen)."""
    seen = []
    for _ in range(max_messages):
        msg = await client.recv()
        seen.append(msg)
        if msg["type"] != "state":
            continue
        view = client.view(msg)
        if view.over:
            return msg, seen
        if view.my_turn and view.seat == seat:
            if on_turn is not None:
                await on_turn(client, msg, view)
            client.send({"type": "play", "card": rng.choice(view.legal_plays()), "seq": msg["seq"]})
    raise AssertionError("the game did not end")


async def table_with(server: Server, names: list[str], bots: int = 0, rules=None, level: str = "random",
                     start: bool = True, **create) -> tuple[int, list[Client], list[int], list[str]]:
    """A table with a client per name (in seat order) and ``bots`` bot seats; started."""
    clients = [await connect(server, n) for n in names]
    msg = {"type": "create", "seats": len(names) + bots, **create}
    if rules is not None:
        msg["rules"] = rules
    table = (await clients[0].request(msg))["table"]
    seats, tokens = [], []
    for c in clients:
        reply = await c.request({"type": "sit", "table": table})
        seats.append(reply["seat"])
        tokens.append(reply["token"])
    if bots:
        await clients[0].request({"type": "bots", "level": level})
    if start:
        await clients[0].request({"type": "start"})
    return table, clients, seats, tokens


async def wait_for(client: Client, predicate, limit: int = 10_000) -> dict:
    for _ in range(limit):
        msg = await client.recv()
        if predicate(msg):
            return msg
    raise AssertionError("no such message")


# What a network test waits for comes from the server (a message, a connection ended, a bot's
# play): every wait is on that. A budget only ends a hang, so it is generous enough that no load
# on this machine reaches it, and it ends in an assertion naming what was waited for.
HANG = 240.0


async def until(condition, what: str, budget: float = HANG) -> None:
    """Until ``condition()`` holds (a state the server reaches on its own), checked every 10 ms;
    an AssertionError naming ``what`` if it never does."""
    loop = asyncio.get_running_loop()
    end = loop.time() + budget
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"never happened (waited {budget:.0f} s): {what}")
        await asyncio.sleep(0.01)


def run(coro, timeout: float = HANG):
    """Run a coroutine with a safety net: a hung test fails (naming the coroutine) instead of
    hanging the suite."""
    name = getattr(coro, "__qualname__", repr(coro))
    try:
        return asyncio.run(asyncio.wait_for(coro, timeout))
    except TimeoutError:
        raise AssertionError(f"{name} did not finish in {timeout:.0f} s: it hung waiting on the server") from None


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on (from /proc: its sockets' inodes)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    ports = set()
    with open(f"/proc/{pid}/net/tcp") as f:
        for row in f.read().splitlines()[1:]:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:
                ports.add(int(cols[1].split(":")[1], 16))
    return ports


async def started_table(server: Server, name: str, seats: int = 2) -> tuple[Client, int]:
    """``name`` connected, at a table of ``seats`` it made, the rest bots, its game started:
    (that client, the table)."""
    client = await connect(server, name)
    table = (await client.request({"type": "create", "seats": seats}))["table"]
    await client.request({"type": "sit", "table": table})
    await client.request({"type": "bots"})
    await client.request({"type": "start"})
    return client, table


async def ono99_run(*args: str, timeout: float = 60) -> tuple[int, str, str]:
    """``python -m ono99_tui ARGS`` as a user runs it, no input: (exit status, stdout, stderr);
    never left running."""
    import asyncio
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui", *args, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    finally:
        if proc.returncode is None:  # (a screen that started after all)
            proc.kill()
            await proc.wait()
    return proc.returncode, out.decode(), err.decode()
