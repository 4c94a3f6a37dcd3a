"""Clients coming back by themselves: T tables x 2 seats of RemoteTables (the `ono99 join`
client, no screen) on a saving server in this process; the server is stopped (as on SIGTERM)
and started again on the same port and data folder after --down seconds. Reports how long after
the restarted server listened each seat had its table back (p50/p99/max), how many reconnection
attempts that took, and, as the same-run baseline, one table alone. With the client's backoff
(0.5 s doubling to 10 s, jittered) the worst wait after the server is back is one backoff step.

    python benchmarks/reconnect.py [--tables 50] [--down 3]

Loopback only; a temporary data folder.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time


async def one_run(tables: int, down: float) -> tuple[list[float], int]:
    from ono99_tui.net.client import Client
    from ono99_tui.net.remote import RemoteTable
    from ono99_tui.net.server import Server, ServerConfig

    def config(port):
        return ServerConfig(host="127.0.0.1", port=port, seed=1, turn_timer=600, bot_delay=0, rate=1e9,
                            burst=10**9, save=True, resume=True)

    server = Server(config(0))
    port = await server.start()
    remotes, dials = [], [0]
    for t in range(tables):
        clients = [await Client.connect("127.0.0.1", port, n) for n in ("Ann", "Bob")]
        table = (await clients[0].request({"type": "create", "seats": 2}))["table"]
        sits = [await c.request({"type": "sit", "table": table}) for c in clients]
        await clients[0].request({"type": "start"})
        for client, sit, name in zip(clients, sits, ("Ann", "Bob")):
            while (msg := await client.recv())["type"] != "state":
                pass
            remote = RemoteTable(client, table, sit["seat"], msg)

            async def redial(name=name, token=sit["token"]):
                dials[0] += 1
                return await Client.connect("127.0.0.1", port, name, token=token)
            remote.redial = redial
            remote.start()
            remotes.append(remote)
    await server.close()
    while any(r.status is None for r in remotes):
        await asyncio.sleep(0.01)
    await asyncio.sleep(down)
    server = Server(config(port))
    await server.start()
    listening = time.monotonic()
    back: dict[int, float] = {}
    while len(back) < len(remotes):
        for i, r in enumerate(remotes):
            if i not in back and r.status is None:
                back[i] = time.monotonic() - listening
        await asyncio.sleep(0.005)
    for r in remotes:
        r.close()
    await server.close()
    return sorted(back.values()), dials[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--down", type=float, default=3.0, help="seconds the server stays down")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        os.environ["ONO99_DATA_DIR"] = data
        base, base_dials = asyncio.run(one_run(1, args.down))
    with tempfile.TemporaryDirectory() as data:
        os.environ["ONO99_DATA_DIR"] = data
        times, dials = asyncio.run(one_run(args.tables, args.down))
    p = lambda q: times[min(len(times) - 1, int(q * len(times)))]  # noqa: E731
    print(f"load average {os.getloadavg()[0]:.2f}; server down {args.down:g} s")
    print(f"{len(times)} seats back after the restart: p50 {p(0.5):.2f} s, p99 {p(0.99):.2f} s, "
          f"max {times[-1]:.2f} s; {dials / len(times):.1f} attempts per seat")
    print(f"baseline, 1 table (2 seats): max {base[-1]:.2f} s, {base_dials / len(base):.1f} attempts per seat; "
          f"ratio p50 {p(0.5) / max(statistics.median(base), 1e-9):.2f}")


if __name__ == "__main__":
    main()
