"""The table server under load: T tables x C bot clients on loopback, as fast as they go.

The server runs in its own process (`Server` with no flood limit, no bot delay, no saving);
this process runs every client in one event loop. Each client is a protocol client with an
easy bot deciding from the view it was sent. Reports moves/s through the server and the move
round trip (play sent -> its "ok" received, after the states it caused), p50/p99/max, and as
a baseline the same number of games played straight through TableSession in one process
(no network), measured in the same run. Target: p99 <= 50 ms on a 2-core machine.

    python benchmarks/server.py [--tables 100] [--clients 4] [--rules standard]
    python benchmarks/server.py --profile /tmp/server.prof   # where the server's time goes (pstats)
    python benchmarks/server.py --ssh 50     # 50 concurrent SSH sessions (serve-ssh)
    python benchmarks/server.py --ssh 50 --plain   # 50 plain ones (`ssh HOST plain`), and 50 PTY ones
    python benchmarks/server.py --ssh 300 --game   # then a 4-player game: key -> screen, alone and among 300

--ssh N: N SSH sessions with a PTY opened at once on loopback; reports time to first screen
(the lobby drawn, read with pyte), RSS per session (its `ono99 join` process) and idle CPU
per session over 5 s, with one session alone as the baseline measured in the same run.
With --plain: the same for sessions running the command `plain` (no PTY; first screen = the
lobby's prompt line), then for as many PTY sessions, for a same-run ratio.
With --game: four sessions at one table (each `ono99 join --or-create` sits at the first table
waiting) start a game and play it from their screens (pyte), keys chosen from what each screen
shows; every key pressed is timed until that player's screen changes (key -> screen). First with
only those 4 sessions open (alone), then with all N open (the game among them), same run; p50/p99
of each and the ratio of the p99s (target <= 2x), with the load average before and after each game.

Loopback only (127.0.0.1); every game ends by itself, so the run is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import re
import statistics
import sys
import time
from pathlib import Path

from ono99_tui.bots.levels import Bot
from ono99_tui.engine.record import SeatSpec
from ono99_tui.net.client import Client
from ono99_tui.net.server import ServerConfig, run
from ono99_tui.store.rule_presets import resolve
from ono99_tui.table import TableSession

HOST = "127.0.0.1"


def serve(queue, profile: str | None = None) -> None:
    config = ServerConfig(host=HOST, port=0, turn_timer=3600, bot_delay=0, rate=1e9, burst=10**9, seed=1,
                          max_tables=10_000, max_connections=100_000,
                          # every client is on 127.0.0.1: the per-address caps are for strangers
                          per_address=100_000, tables_per_address=10_000)
    if not profile:
        asyncio.run(run(config, queue.put))
        return
    # `--profile FILE`: where the server's time per move goes. The server ends cleanly on the
    # SIGTERM the benchmark sends it, so the profile is written when run() returns.
    import cProfile

    prof = cProfile.Profile()
    try:
        prof.runcall(asyncio.run, run(config, queue.put))
    finally:
        prof.dump_stats(profile)


def baseline(n_games: int, clients: int, rules) -> tuple[int, float]:
    """The same kind of games straight through TableSession: no sockets, no JSON."""
    t0 = time.perf_counter()
    moves = 0
    for i in range(n_games):
        session = TableSession([SeatSpec(f"P{k}", "bot:easy") for k in range(clients)], rules, seed=1000 + i,
                               record_events=True)
        session.play_bots()
        moves += session.seq
    return moves, time.perf_counter() - t0


def _gate(n: int, zygote: bool, keys: str, host_key_path: str, pipe) -> None:
    """The gateway as `ono99 serve-ssh` runs it (its table server on loopback, the SSH gate, the
    zygote), in a process of its own: the clients (and this benchmark's reading of their screens)
    are in another, as they would be on the players' machines. Answers the measuring process's
    questions on ``pipe``: ("children",) -> {pid: (cpu seconds, (USS, PSS, RSS))}, ("stop",)."""
    from pathlib import Path

    from ono99_tui.cli import session_zygote
    from ono99_tui.net.child import InnerTable
    from ono99_tui.net.server import Server
    from ono99_tui.net.ssh import SSHConfig, SSHGate, host_key

    async def run_gate():
        secret = InnerTable.new_secret()
        # a gateway's inner server: its players all come from 127.0.0.1 (docs/deploy.md, Limits); every
        # cap this run meets is raised past n
        server = Server(ServerConfig(host=HOST, port=0, bot_delay=0, password=secret, gateway=True,
                                     max_tables=10_000, max_connections=100_000, per_address=100_000,
                                     tables_per_address=10_000, tables_per_connection=10_000))
        gate = SSHGate(SSHConfig(host=HOST, port=0, authorized_keys=Path(keys), max_per_ip=n + 1,
                                 max_sessions=n + 1, max_connections=2 * n + 8, idle_timeout=3600,
                                 zygote=session_zygote() if zygote else None),
                       InnerTable(await server.start(), secret), kept=False)
        port = await gate.start(host_key(Path(host_key_path)))
        if gate.zygote is not None:
            assert await gate.zygote.ready(), "the zygote never became ready"
        loop = asyncio.get_running_loop()
        pipe.send((port, gate.zygote.pid if gate.zygote else None))
        try:
            while True:
                ask = await loop.run_in_executor(None, pipe.recv)
                if ask[0] == "stop":
                    break
                if ask[0] == "children":
                    pipe.send({pid: (_cpu(pid), _mem(pid)) for pid in list(gate.children)})
                elif ask[0] == "forked":
                    pipe.send(gate.zygote.forked if gate.zygote else 0)
                elif ask[0] == "tables":  # the tables waiting: each seat's name if a person connected sits there
                    pipe.send([[s.name if s.player == "human" and s.conn is not None else None for s in t.seats]
                               for t in server.tables.values() if not t.started])
        finally:
            gate.stop_accepting()
            await server.close()
            await gate.close()
        pipe.send("stopped")

    asyncio.run(run_gate())


async def ssh_sessions(n: int, plain: bool = False, zygote: bool = True, hold=None, one_by_one: bool = False) -> dict:
    """n SSH sessions opened at once on a gateway in its own process. Returns {"times": seconds to
    first screen per session, "mem": (USS, PSS, RSS) bytes per session's process, "cpu": CPU
    seconds per session's process (its own, and its share of the zygote's forking) once every
    session has its first screen, "idle": idle CPU share per session over 5 s, "zygote": (USS,
    PSS, RSS) of the zygote}. ``hold``: an async function given the open sessions [(conn,
    process, what it said up to its first screen)] and ``ask`` (a question to the gateway) before
    they are closed; what it returns is under "held". ``one_by_one``: each session opened once
    the one before has its first screen (not at once)."""
    import tempfile
    from pathlib import Path

    import asyncssh

    tmp = Path(tempfile.mkdtemp(prefix="ono99-bench-"))
    key = asyncssh.generate_private_key("ssh-ed25519")
    (tmp / "keys").write_bytes(key.export_public_key())
    ctx = multiprocessing.get_context("spawn")
    ours, theirs = ctx.Pipe()
    gate = ctx.Process(target=_gate, args=(n, zygote, str(tmp / "keys"), str(tmp / "host_key"), theirs),
                       daemon=True)
    gate.start()
    loop = asyncio.get_running_loop()

    async def ask(*question):
        ours.send(question)
        return await loop.run_in_executor(None, ours.recv)

    port, zygote_pid = await loop.run_in_executor(None, ours.recv)
    zygote_cpu0 = _cpu(zygote_pid) if zygote_pid else 0.0

    async def one(i: int):
        t0 = time.perf_counter()
        conn = await asyncssh.connect(HOST, port, username=f"p{i}", client_keys=[key], known_hosts=None,
                                      agent_path=None)
        if plain:
            proc = await conn.create_process("plain", encoding=None)
            want = b"Type b to fill"
        else:
            proc = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            want = b"<- you"  # the lobby, drawn: the player's own seat is marked
        said = b""
        while want not in said:
            try:
                data = await asyncio.wait_for(proc.stdout.read(65536), 120)
            except TimeoutError:
                raise RuntimeError(f"session p{i}: no first screen after 120 s; it said: {said[-800:]!r}") from None
            if not data:
                raise RuntimeError(f"a session ended before its first screen: {said[-500:]!r}")
            said += data
        return conn, proc, time.perf_counter() - t0, said

    try:
        if one_by_one:
            sessions = [await one(i) for i in range(n)]
        else:
            sessions = await asyncio.gather(*(one(i) for i in range(n)))
        children = await ask("children")
        zygote_share = (_cpu(zygote_pid) - zygote_cpu0) / n if zygote_pid else 0.0
        zygote_mem = _mem(zygote_pid) if zygote_pid else None
        await asyncio.sleep(5)
        later = await ask("children")
        idle = sum(later[p][0] - children[p][0] for p in children if p in later) / 5 / len(children)
        result = {"times": [s[2] for s in sessions], "mem": [m for _, m in children.values()],
                  "cpu": [c + zygote_share for c, _ in children.values()], "idle": idle, "zygote": zygote_mem,
                  "forked": await ask("forked")}
        if hold is not None:
            result["held"] = await hold([(c, p, said) for c, p, _, said in sessions], ask)
        for conn, *_ in sessions:
            conn.close()
        return result
    finally:
        ours.send(("stop",))
        await loop.run_in_executor(None, ours.recv)
        gate.join(30)


# -- --game: a 4-player game played from the screens, every key timed until its screen changes ---------
SYNC_QUERY, SYNC_SUPPORTED = b"\x1b[?2026$p", b"\x1b[?2026;2$y"
SYNC_START, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"
# reading a hand, whose turn it is and which notice is up from the screen: as the end-to-end test does
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # (tests/, as the other benchmarks)
from tests.test_net_e2e import choose as _choose, my_turn as _my_turn, notice as _notice  # noqa: E402


class SSHScreen:
    """One SSH session's 80x24 screen, read with pyte from what it has said (its first screen
    included) and goes on saying; published whole frames only (synchronized output is answered as
    supported, like a real terminal), each with the time it was read."""

    def __init__(self, name: str, process, said: bytes):
        import pyte

        self.name, self.process = name, process
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()
        self.eof = False
        self.lines = list(self.screen.display)
        self._tail, self._in_frame = b"", False
        if SYNC_QUERY in said:  # its query was read before this screen existed: answered now
            process.stdin.write(SYNC_SUPPORTED)
        self._feed(said, answer=False)
        self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):  # (the connection closed)
            while data := await self.process.stdout.read(65536):
                self._feed(data)
        self.eof = True
        self._publish()

    def _feed(self, data: bytes, answer: bool = True) -> None:
        self.stream.feed(data)
        scan = self._tail + data
        self._tail = scan[-16:]
        if answer and SYNC_QUERY in scan:
            self.process.stdin.write(SYNC_SUPPORTED)
        start, end = scan.rfind(SYNC_START), scan.rfind(SYNC_END)
        if start > end:
            self._in_frame = True
        elif end >= 0:
            self._in_frame = False
        if not self._in_frame:  # only whole frames are read: never a screen half drawn
            self._publish()

    def _publish(self) -> None:
        lines = list(self.screen.display)
        if lines != self.lines:
            self.lines = lines
            self.changed.set()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def press(self, key: str) -> None:
        self.process.stdin.write({"enter": b"\r"}.get(key, key.encode()))

    async def change(self, before: str, limit: float) -> bool:
        """Until the screen differs from ``before``, at most ``limit`` seconds: did it?"""
        end = time.monotonic() + limit
        while self.text == before and not self.eof:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return self.text != before

    async def wait(self, want, what: str, deadline: float) -> str:
        while not want(self.text):
            if self.eof or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}'s screen never showed {what}:\n{self.text}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.01, deadline - time.monotonic()))
        return self.text

    def close(self) -> None:
        self._task.cancel()


async def _play(term: SSHScreen, deadline: float, latencies: list, stats: dict) -> None:
    """Play from the screen until the game-over notice; every key pressed: the seconds until the
    screen changed (in ``latencies``; a press that shows nothing within 5 s is counted unseen)."""

    async def pressed(key: str, text: str) -> None:
        t0 = time.perf_counter()
        term.press(key)
        stats["keys"] += 1
        if await term.change(text, 5.0):
            latencies.append(time.perf_counter() - t0)
        else:
            stats["unseen"] += 1

    while time.monotonic() < deadline and not term.eof:
        text, lines = term.text, term.lines
        shown = _notice(text)
        if shown == "over":
            return
        confirm = re.search(r"Press (\d)(?: or Enter)? again to play it anyway", text)
        if shown == "continue":
            if "Game over." in text and await term.change(text, 2.0):
                continue  # the last round's notice: the game-over notice may be coming over it
            m = re.search(r"Round \d+ lost|Out of the game", text)
            title = m.group(0) if m else ""
            await pressed("enter", text)
            # one Enter per notice (a second would answer the next notice unseen)
            await term.wait(lambda t, title=title: title not in t or _notice(t) == "over",
                            f"the {title!r} notice answered", deadline)
        elif confirm:
            await pressed(confirm.group(1), text)
        elif _my_turn(term.name, text) and (key := _choose(lines)) is not None:
            await pressed(key, text)
        else:  # someone else's turn: until the screen changes
            await term.change(text, max(0.01, deadline - time.monotonic()))
    if not term.eof and time.monotonic() >= deadline:
        stats["unfinished"] += 1


async def _game(sessions, ask) -> dict:
    """Four sessions sitting at one table (found through the gateway's table server) start a game
    and play it to its end from their screens: every key's latency to its screen's change."""
    by_name = {f"p{i}": s for i, s in enumerate(sessions)}
    tables = await ask("tables")
    full = [t for t in tables if len(t) == 4 and all(n in by_name for n in t)]
    if not full:
        raise RuntimeError(f"no table with 4 of these sessions connected: {tables[:10]}")
    names = full[0]
    terms = [SSHScreen(n, by_name[n][1], by_name[n][2]) for n in names]
    others = [asyncio.get_running_loop().create_task(_drain(p)) for n, (_, p, _) in by_name.items()
              if n not in names]  # the other sessions' output is read too, as their players' terminals would
    latencies: list[float] = []
    stats = {"keys": 0, "unseen": 0, "unfinished": 0}
    deadline = time.monotonic() + 600
    try:
        host = terms[0]
        await host.wait(lambda t: all(re.search(rf"\d\. {n} +connected", t) for n in names), "everyone seated",
                        deadline)
        load0, t0 = _load(), time.perf_counter()
        await asyncio.gather(*(t.wait(lambda x: "<- you" in x, "its lobby", deadline) for t in terms))
        before = host.text
        host.press("s")
        started = time.perf_counter()
        await host.change(before, 30)
        latencies.append(time.perf_counter() - started)
        stats["keys"] += 1
        await asyncio.gather(*(_play(t, deadline, latencies, stats) for t in terms))
        return {"latencies": latencies, "seconds": time.perf_counter() - t0, "load0": load0, "load1": _load(),
                "table": names, **stats}
    finally:
        for t in terms:
            t.close()
        for task in others:
            task.cancel()


async def _drain(process) -> None:
    with contextlib.suppress(Exception):
        while await process.stdout.read(65536):
            pass


def _quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _mem(pid: int) -> tuple[int, int, int]:
    """(USS, PSS, RSS) bytes of a process, from /proc/PID/smaps_rollup: USS is what it alone holds
    (its private pages), PSS shares each shared page among the processes that map it."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1]) * 1024
    uss = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0) + fields.get("Private_Hugetlb", 0)
    return uss, fields.get("Pss", 0), fields.get("Rss", 0)


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load() -> str:
    with open("/proc/loadavg") as f:
        return f"[loadavg {f.read().strip()}]"


def ssh_main(n: int, plain: bool = False, fresh: bool = False, game: bool = False) -> None:
    zygote = not fresh
    print(f"SSH benchmark: {n} concurrent sessions, {os.cpu_count()} CPUs, "
          f"{'forked from a warm zygote' if zygote else 'a fresh process each (--fresh)'} {_load()}")
    kinds = [True, False] if plain else [False]
    mib = 2 ** 20
    for kind in kinds:
        what = "plain (ssh HOST plain, no PTY)" if kind else "full screen (PTY)"
        print(f"-- {what}")
        one = asyncio.run(ssh_sessions(1, kind, zygote))
        alone = one["times"][0]
        print(f"one alone: login to first screen {alone:.2f} s, CPU {one['cpu'][0] * 1000:.0f} ms {_load()}")
        playing = game and not kind
        if playing:  # the game's 4 sessions alone: opened one by one, so that they sit at one table
            few = asyncio.run(ssh_sessions(4, kind, zygote, hold=_game, one_by_one=True))["held"]
            print(f"game, 4 sessions alone: {_game_line(few)}")
        r = asyncio.run(ssh_sessions(n, kind, zygote, hold=_game if playing else None))
        times = sorted(r["times"])
        print(f"{n} at once: first screen p50 {statistics.median(times):.2f} s, max {times[-1]:.2f} s "
              f"({statistics.median(times) / alone:.1f}x one alone) {_load()}")
        print(f"CPU per session to first screen: median {statistics.median(r['cpu']) * 1000:.0f} ms, "
              f"max {max(r['cpu']) * 1000:.0f} ms (its process, and its share of the zygote's; by the time all {n} have it, "
              f"so with the lobby redrawn as the others sit down) {_load()}")
        uss, pss, rss = (statistics.median(m[i] for m in r["mem"]) for i in range(3))
        print(f"USS per session: median {uss / mib:.1f} MiB (PSS {pss / mib:.1f} MiB, RSS {rss / mib:.1f} MiB); "
              f"total USS {sum(m[0] for m in r['mem']) / mib:,.0f} MiB, PSS {sum(m[1] for m in r['mem']) / mib:,.0f} MiB "
              f"{_load()}")
        if r["zygote"]:
            print(f"the zygote: USS {r['zygote'][0] / mib:.1f} MiB, PSS {r['zygote'][1] / mib:.1f} MiB, "
                  f"RSS {r['zygote'][2] / mib:.1f} MiB; {r['forked']} sessions forked from it")
        print(f"idle CPU per session over 5 s: {r['idle'] * 100:.2f}% of a core {_load()}")
        if playing:
            many = r["held"]
            print(f"game among {n} sessions ({', '.join(many['table'])}): {_game_line(many)}")
            a50, a99, m50, m99 = (1000 * _quantile(x["latencies"], q) for x in (few, many) for q in (0.5, 0.99))
            print(f"key -> screen: alone p50 {a50:.0f} ms p99 {a99:.0f} ms; among {n} sessions p50 {m50:.0f} ms "
                  f"p99 {m99:.0f} ms; ratio p99 {m99 / a99:.2f}x (target <= 2x)")


def _game_line(g: dict) -> str:
    lat = g["latencies"]
    unfinished = f", {g['unfinished']} players never saw the end" if g["unfinished"] else ""
    return (f"{g['keys']} keys in {g['seconds']:.1f} s, {len(lat)} timed ({g['unseen']} showed nothing in 5 s"
            f"{unfinished}); "
            f"key -> screen p50 {1000 * _quantile(lat, 0.5):.0f} ms, p99 {1000 * _quantile(lat, 0.99):.0f} ms, "
            f"max {1000 * max(lat):.0f} ms; before {g['load0']} after {g['load1']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4, help="bot clients per table (2-8)")
    parser.add_argument("--rules", default="standard", help="a rules preset name")
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile of the server process to FILE")
    parser.add_argument("--ssh", type=int, default=0, metavar="N", help="measure N concurrent SSH sessions instead")
    parser.add_argument("--plain", action="store_true", help="with --ssh: plain sessions, then PTY ones")
    parser.add_argument("--fresh", action="store_true", help="with --ssh: a fresh process per session (no zygote)")
    parser.add_argument("--game", action="store_true",
                        help="with --ssh: then a 4-player game played from the screens, key -> screen alone and among N")
    args = parser.parse_args()
    if args.ssh:
        ssh_main(args.ssh, args.plain, args.fresh, args.game)
        return
    rules, label = resolve(args.rules)
    print(f"server benchmark: {args.tables} tables x {args.clients} bot clients, rules {label}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} before the run")
    queue = multiprocessing.get_context("spawn").Queue()
    proc = multiprocessing.get_context("spawn").Process(target=serve, args=(queue, args.profile), daemon=True)
    proc.start()
    try:
        port = queue.get(timeout=60)
        cpu0 = cpu_seconds(proc.pid)
        moves, elapsed, rtts = asyncio.run(play_all(port, args.tables, args.clients, args.rules))
        server_cpu = cpu_seconds(proc.pid) - cpu0
    finally:
        proc.terminate()
        proc.join(30 if args.profile else 10)
    base_moves, base_elapsed = baseline(args.tables, args.clients, rules)
    rtts.sort()
    q = lambda p: rtts[min(len(rtts) - 1, int(p * len(rtts)))] * 1000  # noqa: E731
    print(f"through the server: {moves:,} moves in {elapsed:.2f} s = {moves / elapsed:,.0f} moves/s")
    print(f"move round trip: p50 {q(0.50):.1f} ms, p90 {q(0.90):.1f} ms, p99 {q(0.99):.1f} ms, "
          f"max {rtts[-1] * 1000:.1f} ms (target p99 <= 50 ms)")
    print(f"baseline, TableSession in one process: {base_moves:,} moves in {base_elapsed:.2f} s = "
          f"{base_moves / base_elapsed:,.0f} moves/s")
    print(f"ratio: the server carries {moves / elapsed / (base_moves / base_elapsed):.2f}x the in-process rate "
          f"(median round trip {statistics.median(rtts) * 1000:.1f} ms)")
    # the server's own CPU per move: what other load on the machine changes least
    print(f"server CPU: {server_cpu:.2f} s for the run (seating and playing) = {server_cpu / moves * 1e6:.0f} us per move; "
          f"{server_cpu / elapsed * 100:.0f}% of a core")


def cpu_seconds(pid: int) -> float:
    """user + system CPU seconds of a process (Linux /proc)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def play_all(port: int, n_tables: int, clients: int, rules: str) -> tuple[int, float, list[float]]:
    """Seat every client, start every table, and play until every game is over."""
    rtts: list[float] = []
    seated = []
    for i in range(n_tables):
        host = await Client.connect(HOST, port, f"T{i}P0", timeout=60)
        table = (await host.request({"type": "create", "rules": rules, "seats": clients}))["table"]
        await host.request({"type": "sit", "table": table})
        others = []
        for k in range(1, clients):
            c = await Client.connect(HOST, port, f"T{i}P{k}", timeout=60)
            await c.request({"type": "sit", "table": table})
            others.append(c)
        seated.append([host, *others])
    t0 = time.perf_counter()
    for clients_ in seated:
        clients_[0].send({"type": "start"})
    results = await asyncio.gather(*(drive(c, rtts, seed=i * 10 + k) for i, cs in enumerate(seated)
                                     for k, c in enumerate(cs)))
    elapsed = time.perf_counter() - t0
    return sum(results), elapsed, rtts


async def drive(client: Client, rtts: list, seed: int) -> int:
    bot = Bot("easy", seed)
    sent: dict[int, float] = {}
    moves, next_id = 0, 1_000_000
    while True:
        msg = await client.recv()
        kind = msg["type"]
        if kind == "ok" and msg.get("re") in sent:
            rtts.append(time.perf_counter() - sent.pop(msg["re"]))
        elif kind == "state":
            # these 400 clients are a load generator sharing the server's two cores (real clients
            # decode on their own machines): a state is made into a view only when this client
            # acts on it (its turn, the game's end) or must keep its rules (a full state)
            raw = msg["view"]
            if not (msg["full"] or raw["over"] or raw["current"] == msg["seat"]):
                continue
            view = client.view(msg)
            if view.over:
                await client.aclose()
                return moves
            if view.my_turn:
                next_id += 1
                sent[next_id] = time.perf_counter()
                client.send({"type": "play", "card": bot.choose(view), "seq": msg["seq"], "id": next_id})
                moves += 1


if __name__ == "__main__":
    main()
