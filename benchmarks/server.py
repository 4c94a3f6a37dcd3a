"""The table server under load: T tables x C bot clients on loopback, as fast as they go.

The server runs in its own process (`Server` with no flood limit, no bot delay, no saving);
this process runs every client in one event loop. Each client is a protocol client with an
easy bot deciding from the view it was sent. Reports moves/s through the server and the move
round trip (play sent -> its "ok" received, after the states it caused), p50/p99/max, and as
a baseline the same number of games played straight through TableSession in one process
(no network), measured in the same run. Target: p99 <= 50 ms on a 2-core machine.

    python benchmarks/server.py [--tables 100] [--clients 4] [--rules standard]
    python benchmarks/server.py --ssh 50     # 50 concurrent SSH sessions (serve-ssh)
    python benchmarks/server.py --ssh 50 --plain   # 50 plain ones (`ssh HOST plain`), and 50 PTY ones

--ssh N: N SSH sessions with a PTY opened at once on loopback; reports time to first screen
(the lobby drawn, read with pyte), RSS per session (its `ono99 join` process) and idle CPU
per session over 5 s, with one session alone as the baseline measured in the same run.
With --plain: the same for sessions running the command `plain` (no PTY; first screen = the
lobby's prompt line), then for as many PTY sessions, for a same-run ratio.

Loopback only (127.0.0.1); every game ends by itself, so the run is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import time

from ono99_tui.bots.levels import Bot
from ono99_tui.engine.record import SeatSpec
from ono99_tui.net.client import Client
from ono99_tui.net.server import ServerConfig, run
from ono99_tui.store.rule_presets import resolve
from ono99_tui.table import TableSession

HOST = "127.0.0.1"


def serve(queue) -> None:
    config = ServerConfig(host=HOST, port=0, turn_timer=3600, bot_delay=0, rate=1e9, burst=10**9, seed=1,
                          max_tables=10_000, max_connections=100_000,
                          # every client is on 127.0.0.1: the per-address caps are for strangers
                          per_address=100_000, tables_per_address=10_000)
    asyncio.run(run(config, queue.put))


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


async def ssh_sessions(n: int, plain: bool = False) -> tuple[list[float], list[int], float]:
    """(seconds to first screen per session, RSS bytes per session, idle CPU share per session)."""
    import tempfile
    from pathlib import Path

    import asyncssh
    import pyte

    from ono99_tui.net.child import InnerTable
    from ono99_tui.net.server import Server
    from ono99_tui.net.ssh import SSHConfig, SSHGate, host_key

    tmp = Path(tempfile.mkdtemp(prefix="ono99-bench-"))
    key = asyncssh.generate_private_key("ssh-ed25519")
    (tmp / "keys").write_bytes(key.export_public_key())
    secret = InnerTable.new_secret()
    # a gateway's inner server: its players all come from 127.0.0.1 (docs/deploy.md, Limits)
    server = Server(ServerConfig(host=HOST, port=0, bot_delay=0, password=secret, gateway=True))
    gate = SSHGate(SSHConfig(host=HOST, port=0, authorized_keys=tmp / "keys", max_per_ip=n + 1,
                             max_sessions=n + 1), InnerTable(await server.start(), secret), kept=False)
    port = await gate.start(host_key(tmp / "host_key"))

    async def one(i: int):
        t0 = time.perf_counter()
        conn = await asyncssh.connect(HOST, port, username=f"p{i}", client_keys=[key], known_hosts=None,
                                      agent_path=None)
        if plain:
            proc = await conn.create_process("plain", encoding=None)
            said = b""
            while b"Type b to fill" not in said:
                data = await asyncio.wait_for(proc.stdout.read(65536), 120)
                if not data:
                    raise RuntimeError(f"a plain session ended before its lobby: {said!r}")
                said += data
            return conn, proc, time.perf_counter() - t0
        proc = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        screen = pyte.Screen(80, 24)
        stream = pyte.Stream(screen)
        while "<- you" not in "\n".join(screen.display):
            data = await asyncio.wait_for(proc.stdout.read(65536), 120)
            if not data:
                raise RuntimeError("a session ended before its first screen:\n" + "\n".join(screen.display))
            stream.feed(data.decode("utf-8", "replace"))
        return conn, proc, time.perf_counter() - t0

    try:
        sessions = await asyncio.gather(*(one(i) for i in range(n)))
        pids = list(gate.children)
        rss = [_rss(pid) for pid in pids]
        cpu0 = sum(_cpu(pid) for pid in pids)
        await asyncio.sleep(5)
        idle = (sum(_cpu(pid) for pid in pids) - cpu0) / 5 / len(pids)
        for conn, proc, _ in sessions:
            conn.close()
        return [t for _, _, t in sessions], rss, idle
    finally:
        gate.stop_accepting()
        await server.close()
        await gate.close()


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ssh_main(n: int, plain: bool = False) -> None:
    print(f"SSH benchmark: {n} concurrent sessions, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} before the run")
    kinds = [True, False] if plain else [False]
    for kind in kinds:
        what = "plain (ssh HOST plain, no PTY)" if kind else "full screen (PTY)"
        alone, _, _ = asyncio.run(ssh_sessions(1, kind))
        times, rss, idle = asyncio.run(ssh_sessions(n, kind))
        times.sort()
        print(f"-- {what}; load average {os.getloadavg()[0]:.1f} after")
        print(f"one session alone: first screen in {alone[0]:.2f} s (baseline)")
        print(f"{n} at once: first screen p50 {statistics.median(times):.2f} s, max {times[-1]:.2f} s "
              f"({statistics.median(times) / alone[0]:.1f}x the baseline)")
        print(f"RSS per session (its ono99 join process): median {statistics.median(rss) / 2**20:.0f} MiB, "
              f"total {sum(rss) / 2**20:,.0f} MiB")
        print(f"idle CPU per session over 5 s: {idle * 100:.2f}% of a core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4, help="bot clients per table (2-8)")
    parser.add_argument("--rules", default="standard", help="a rules preset name")
    parser.add_argument("--ssh", type=int, default=0, metavar="N", help="measure N concurrent SSH sessions instead")
    parser.add_argument("--plain", action="store_true", help="with --ssh: plain sessions, then PTY ones")
    args = parser.parse_args()
    if args.ssh:
        ssh_main(args.ssh, args.plain)
        return
    rules, label = resolve(args.rules)
    print(f"server benchmark: {args.tables} tables x {args.clients} bot clients, rules {label}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} before the run")
    queue = multiprocessing.get_context("spawn").Queue()
    proc = multiprocessing.get_context("spawn").Process(target=serve, args=(queue,), daemon=True)
    proc.start()
    try:
        port = queue.get(timeout=60)
        cpu0 = cpu_seconds(proc.pid)
        moves, elapsed, rtts = asyncio.run(play_all(port, args.tables, args.clients, args.rules))
        server_cpu = cpu_seconds(proc.pid) - cpu0
    finally:
        proc.terminate()
        proc.join(10)
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
