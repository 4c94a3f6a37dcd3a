"""The soak (issue 21): random clients join, play, drop, reconnect and vanish at a real `ono99
serve` process while it is restarted twice; then everyone goes, and what the server holds is
counted against its baseline: tables, connections (sockets), child processes, open files
(/proc/PID/fd), threads and memory, and the abandoned tables' saves are listed as such.

tests/test_net_soak.py runs a short one; benchmarks/soak.py a long one with its figures.
Loopback only; bounded by ``duration`` and by a timeout on every wait."""

from __future__ import annotations

import asyncio
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from ono99_tui.net.client import Client, Disconnected, ServerError
from ono99_tui.net.protocol import ProtocolError

HOST = "127.0.0.1"
WAIT = 15.0  # seconds any one message may take before a client gives up on it (a hang is a failure)
RESTART = 90.0  # seconds a client waits for the restarted server (a loaded machine starts Python slowly)


class ServeProcess:
    """`ono99 serve -v` in a process of its own (the soak's data folder); its stderr as it comes."""

    def __init__(self, flags: list[str], env: dict, preexec_fn=None):
        self.proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", "serve", "--port", "0", "-v", *flags],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(env, PYTHONUNBUFFERED="1"), preexec_fn=preexec_fn)
        line = self.proc.stdout.readline()
        if "listening on 127.0.0.1:" not in line:
            raise RuntimeError(f"ono99 serve did not start: {line}{self.proc.stderr.read()}")
        self.port = int(line.split("127.0.0.1:")[1].split()[0])
        self.pid = self.proc.pid
        self.lines: list[str] = []
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, predicate, what: str, timeout: float = 60) -> None:
        """Until the server has said (on stderr) what ``predicate`` looks for in its lines."""
        end = time.monotonic() + timeout
        while not predicate(self.lines):
            try:
                line = self._queue.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the server never said {what}; it said {self.lines[-5:]}") from None
            if line is None:
                raise AssertionError(f"the server ended before it said {what}: {self.lines[-5:]}")
            self.lines.append(line)

    def count(self, words: str) -> int:
        return sum(words in line for line in self.lines)

    def drain(self) -> None:
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return
            if line is not None:
                self.lines.append(line)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        while (line := self._queue.get(timeout=10)) is not None:
            self.lines.append(line)
        return code


def figures(pid: int) -> dict:
    """What the process holds now, from /proc."""
    kinds = Counter()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        kinds[target.split(":")[0] if ":" in target and not target.startswith("/") else "file"] += 1
    status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status").read().splitlines() if ":" in line)
    children = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children += 1
    return {"fds": sum(kinds.values()), "sockets": kinds["socket"], "fd_kinds": dict(kinds),
            "threads": int(status["Threads"]), "rss_kb": int(status["VmRSS"].split()[0]), "children": children}


@dataclass
class Tally:
    games_started: int = 0
    games_finished: int = 0
    plays: int = 0
    drops: int = 0
    comebacks: int = 0  # a token brought a player back to their seat
    comebacks_refused: int = 0  # ...the table was gone (closed as abandoned, or over)
    restart_comebacks: int = 0  # the resident player back at their table after a restart
    vanished: int = 0
    idle_sockets: int = 0
    idle_ends: Counter = field(default_factory=Counter)  # how the server ended each idle socket
    empty_lobbies: int = 0  # create (and maybe sit) then leave before the start
    guests: int = 0
    errors: Counter = field(default_factory=Counter)


class Soak:
    def __init__(self, env: dict, seed: int, players: int, duration: float, abandoned_after: float = 3.0):
        self.env, self.rng = env, random.Random(seed)
        self.players, self.duration, self.abandoned_after = players, duration, abandoned_after
        self.flags = ["--bot-delay", "0", "--turn-timer", "1", "--abandoned-after", f"{abandoned_after:g}",
                      "--hello-timeout", "1", "--tables-per-address", "1000", "--per-address", "1000"]
        self.server: ServeProcess | None = None
        self.logs: list[str] = []  # every server process's stderr
        self.stopped: list[list[str]] = []  # each stopped process's stderr
        self.restart_seconds: list[float] = []  # SIGTERM to listening again
        self.up = asyncio.Event()  # set while a server is listening
        self.tally = Tally()
        self.deadline = 0.0

    # -- the server --------------------------------------------------------------------------
    def start(self) -> ServeProcess:
        self.server = ServeProcess(self.flags, self.env)
        self.up.set()
        return self.server

    async def restart(self) -> None:
        """SIGTERM, and start it again on the same data folder (clients meanwhile find it gone)."""
        self.up.clear()
        old = self.server
        began = time.monotonic()
        code = await asyncio.to_thread(old.stop)
        self.logs += old.lines
        self.stopped.append(old.lines)
        if code != 0:
            raise AssertionError(f"ono99 serve exited {code}: {old.lines[-5:]}")
        self.server = await asyncio.to_thread(ServeProcess, self.flags, self.env)
        self.up.set()
        self.restart_seconds.append(time.monotonic() - began)

    async def connect(self, name: str, token: str | None = None) -> Client:
        await asyncio.wait_for(self.up.wait(), RESTART)
        return await Client.connect(HOST, self.server.port, name, token=token, timeout=WAIT)

    # -- the clients -------------------------------------------------------------------------
    async def play(self, client: Client, rng: random.Random, turns: int | None, pace: float = 0.0) -> str:
        """Random legal plays on this seat's turns (each ``pace`` seconds after the turn came):
        "over", "turns" (played ``turns``), or "lost" (the connection ended: a restart, or the
        table closed)."""
        mine = 0
        while True:
            try:
                msg = await asyncio.wait_for(client.recv(), WAIT)
            except (Disconnected, ConnectionError, ProtocolError):
                return "lost"
            client.last_seen = msg  # (what a hang is reported with)
            if msg["type"] in ("closing", "kicked"):
                return "lost"
            if msg["type"] != "state":
                continue
            view = client.view(msg)
            if view.over:
                return "over"
            if view.my_turn and msg["seat"] == view.seat:
                if turns is not None and mine >= turns:
                    return "turns"
                if pace:
                    await asyncio.sleep(pace)
                client.send({"type": "play", "card": rng.choice(view.legal_plays()), "seq": msg["seq"]})
                mine += 1
                self.tally.plays += 1

    async def game(self, name: str, rng: random.Random, end: str | None = None) -> None:
        """Make a table (maybe waiting for a guest), fill it with bots, play; then finish the game,
        drop and come back with the seat token (maybe several times), or vanish."""
        client = await self.connect(name)
        try:
            humans = 2 if rng.random() < 0.3 else 1
            table = (await client.request({"type": "create", "seats": rng.randint(max(2, humans), 4)}))["table"]
            sit = await client.request({"type": "sit", "table": table})
            token = sit["token"]
            if humans == 2:  # a guest may come: wait a little for them
                try:
                    await asyncio.wait_for(self._until_guest(client), rng.uniform(0.2, 1.0))
                except TimeoutError:
                    pass
            await client.request({"type": "bots", "level": rng.choice(["random", "easy"])})
            await client.request({"type": "start"})
            self.tally.games_started += 1
            await self.seated(client, name, token, rng, end)
        finally:
            client.close()

    async def resident(self) -> None:
        """One player who stays, playing slowly, so that each restart cuts someone off mid-game:
        they come back with their token to the resumed table, or make a new one."""
        rng = random.Random(self.rng.random())
        token = None
        while time.monotonic() < self.deadline:
            try:
                client = await self.connect("Resident", token)
            except (ServerError, ConnectionError, OSError, TimeoutError) as exc:
                self.tally.errors[f"resident: {getattr(exc, 'code', type(exc).__name__)}"] += 1
                await asyncio.sleep(0.2)
                continue
            try:
                if token is not None and client.welcome.get("resumed"):
                    self.tally.restart_comebacks += 1
                else:
                    table = (await client.request({"type": "create", "seats": 2}))["table"]
                    token = (await client.request({"type": "sit", "table": table}))["token"]
                    await client.request({"type": "bots", "level": "random"})
                    await client.request({"type": "start"})
                    self.tally.games_started += 1
                if await self.play(client, rng, None, pace=0.25) == "over":
                    self.tally.games_finished += 1
                    token = None
            except (ServerError, Disconnected, ConnectionError, ProtocolError, OSError, TimeoutError) as exc:
                self.tally.errors[f"resident: {getattr(exc, 'code', type(exc).__name__)}"] += 1
            finally:
                client.close()

    async def _until_guest(self, client: Client) -> None:
        while True:
            msg = await client.recv()
            if msg["type"] == "table" and sum(s["player"] == "human" for s in msg["table"]["seats"]) >= 2:
                return

    async def seated(self, client: Client, name: str, token: str, rng: random.Random,
                     first: str | None = None) -> None:
        """Play on; ``first``: how the first stretch ends (at the first turn, for drop and vanish)."""
        while True:
            end = first or rng.choices(["finish", "drop", "vanish"], [3, 4, 2])[0]
            turns = None if end == "finish" else 0 if first else rng.randint(0, 12)
            result = await self.play(client, rng, turns)
            if result == "over":
                self.tally.games_finished += 1
                return
            if result == "turns" and end == "vanish":
                self.tally.vanished += 1
                client.writer.transport.abort()
                return
            if result == "turns":
                self.tally.drops += 1
                client.writer.transport.abort()
            else:
                client.close()
            if time.monotonic() > self.deadline:
                return
            # a player's Wi-Fi, back after a while; now and then after their table has been closed
            # (a scripted drop comes back at once: well within --abandoned-after)
            late = first is None and rng.random() < 0.15
            await asyncio.sleep(0 if first else self.abandoned_after + rng.uniform(0.5, 1.5) if late
                                else rng.uniform(0, 1.5))
            first = None
            client = await self.connect(name, token)
            if not client.welcome.get("resumed"):
                self.tally.comebacks_refused += 1
                client.close()
                return
            self.tally.comebacks += 1

    async def guest(self, name: str, rng: random.Random) -> None:
        client = await self.connect(name)
        try:
            tables = (await client.request({"type": "tables"}))["tables"]
            waiting = [t["id"] for t in tables if t["state"] == "waiting" and any(s["player"] is None
                                                                                   for s in t["seats"])]
            if not waiting:
                return
            sit = await client.request({"type": "sit", "table": rng.choice(waiting)})
            self.tally.guests += 1
            await self.seated(client, name, sit["token"], rng)
        finally:
            client.close()

    async def idle_socket(self, rng: random.Random) -> None:
        """Connect and never say hello: the server closes it after --hello-timeout."""
        await asyncio.wait_for(self.up.wait(), RESTART)
        reader, writer = await asyncio.open_connection(HOST, self.server.port)
        self.tally.idle_sockets += 1
        try:
            data = await asyncio.wait_for(reader.read(), WAIT)
        except ConnectionError as exc:
            self.tally.idle_ends[type(exc).__name__] += 1
        else:  # hello_timeout, or closing (a restart came first)
            self.tally.idle_ends["hello_timeout" if b'"hello_timeout"' in data
                                 else "closing" if b'"closing"' in data else repr(data[:60])] += 1
        finally:
            writer.close()

    async def empty_lobby(self, name: str, rng: random.Random) -> None:
        """Make a table, maybe sit at it, and leave before the start: it goes at once."""
        client = await self.connect(name)
        try:
            table = (await client.request({"type": "create", "seats": 3}))["table"]
            if rng.random() < 0.5:
                await client.request({"type": "sit", "table": table})
            self.tally.empty_lobbies += 1
        finally:
            client.writer.transport.abort()

    # what the first players do first, so that a short soak does each at least once
    FIRST = [("game", "drop"), ("lobby", None), ("idle", None), ("game", "vanish"), ("game", "finish"),
             ("guest", None)]

    async def player(self, i: int) -> None:
        rng = random.Random(self.rng.random())
        script = [self.FIRST[i]] if i < len(self.FIRST) else []
        while time.monotonic() < self.deadline:
            kind, end = script.pop() if script else (rng.choices(["game", "guest", "idle", "lobby"], [5, 2, 1, 1])[0],
                                                     None)
            name = f"P{i}-{rng.randrange(10**6)}"
            try:
                if kind == "game":
                    await self.game(name, rng, end)
                elif kind == "guest":
                    await self.guest(name, rng)
                elif kind == "idle":
                    await self.idle_socket(rng)
                else:
                    await self.empty_lobby(name, rng)
            except (ServerError, Disconnected, ConnectionError, ProtocolError, OSError, TimeoutError) as exc:
                self.tally.errors[f"{kind}: {getattr(exc, 'code', type(exc).__name__)}"] += 1
                await asyncio.sleep(rng.uniform(0, 0.3))

    async def listing(self) -> list[dict]:
        client = await self.connect("Soak-check")
        try:
            return (await client.request({"type": "tables"}))["tables"]
        finally:
            await client.aclose()

    async def run(self) -> dict:
        """The whole soak; the figures (see the module's docstring)."""
        first = self.start()
        fresh = figures(first.pid)  # before any client: its listening socket and the loop's own
        # the baseline: one whole game played through it and gone (the bots' workers exist)
        warm = random.Random(0)
        client = await self.connect("Warm-up")
        table = (await client.request({"type": "create", "seats": 2}))["table"]
        await client.request({"type": "sit", "table": table})
        await client.request({"type": "bots", "level": "random"})
        await client.request({"type": "start"})
        try:
            assert await self.play(client, warm, None) == "over"
        except TimeoutError:  # (seen once in CI, not understood yet: say what there was to see)
            raise AssertionError(f"the warm-up game: no message for {WAIT:g} s after "
                                 f"{getattr(client, 'last_seen', None)}; the server said {self.server.lines[-10:]}")
        await client.aclose()
        baseline = await self.settled(first.pid, {"sockets": fresh["sockets"], "threads": None})
        t0 = time.monotonic()
        self.deadline = t0 + self.duration
        tasks = [asyncio.create_task(self.player(i)) for i in range(self.players)]
        tasks.append(asyncio.create_task(self.resident()))
        for k in (1, 2):  # restarted twice, under them
            await asyncio.sleep(max(0.0, t0 + self.duration * k / 3 - time.monotonic()))
            await self.restart()
        last_start = figures(self.server.pid)  # the last process, its tables just resumed
        await asyncio.wait(tasks, timeout=self.duration + 4 * WAIT + RESTART)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        played = time.monotonic() - t0
        # everyone has gone: each table closes by itself (abandoned-after) or has ended
        end = time.monotonic() + self.abandoned_after + 2 * WAIT
        while (tables := await self.listing()) and time.monotonic() < end:
            await asyncio.sleep(min(0.5, self.abandoned_after / 4))
        final = await self.settled(self.server.pid, baseline)
        code = self.server.stop()
        logs = self.logs + self.server.lines
        # the tables each restarted process resumed (its first lines: it resumes before it listens)
        restarts = [sum("resumed from" in x for x in lines) for lines in (*self.stopped[1:], self.server.lines)]
        abandoned = sorted(set(re.findall(r"its save '([^']+)' is kept as an abandoned game", "\n".join(logs))))
        listed = subprocess.run([sys.executable, "-m", "ono99_tui", "saves", "list"], capture_output=True,
                                text=True, env=self.env)
        # "NAME  WHEN  round N, abandoned  rules: ..." (a name may hold spaces)
        listed_abandoned = sorted(re.findall(r"^(.+?)  \d{4}-\d\d-\d\d \d\d:\d\d  round \d+, abandoned", listed.stdout,
                                             re.M))
        return {"baseline": baseline, "end": final, "last_start": last_start, "tables_left": tables, "exit": code, "played_s": played,
                "resumed_at_restarts": restarts, "restart_seconds": self.restart_seconds,
                "tally": self.tally, "abandoned_logged": abandoned, "abandoned_listed": listed_abandoned,
                "tracebacks": [x for x in logs if "Traceback" in x], "log": logs}

    async def settled(self, pid: int, target: dict) -> dict:
        """The process's figures once its sockets and threads are down to ``target``'s (the last
        client's socket handled, the save writers' threads ended: they end 5 s after their last
        fold), or as they are after a bounded wait."""
        end = time.monotonic() + 12
        while True:
            now = figures(pid)
            if (now["sockets"] <= target["sockets"] and (target["threads"] is None
                                                         or now["threads"] <= target["threads"])) \
                    or time.monotonic() > end:
                return now
            await asyncio.sleep(0.2)
