"""The long soak (issue 21; tests/test_net_soak.py is the short one): random clients join, play,
drop, come back with their seat tokens and vanish at a real `ono99 serve` (its own throwaway
data folder) restarted twice under them; then everyone goes and the server's figures are
compared with its baseline (one whole game played through it and gone, before the soak).

    python benchmarks/soak.py [--players 40] [--minutes 3] [--abandoned-after 5] [--seed 21]

Prints what the clients did, and baseline -> end for tables, sockets, open files, child
processes, threads and RSS, and whether every table closed as abandoned is listed as such by
`ono99 saves list`. Exit 1 if anything is not back to its baseline. Loopback only; bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.soak import Soak  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=40)
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--abandoned-after", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ono99-soak-") as home:
        env = dict(os.environ, ONO99_DATA_DIR=os.path.join(home, "data"), ONO99_CONFIG_DIR=os.path.join(home, "config"))
        load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        print(f"before: {load}")
        soak = Soak(env, args.seed, args.players, args.minutes * 60, args.abandoned_after)
        out = asyncio.run(soak.run())
        print(f"after:  {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    t = out["tally"]
    print(f"\n{args.players} clients for {out['played_s']:.0f} s, the server restarted twice "
          f"(tables resumed: {out['resumed_at_restarts']}; SIGTERM to listening again: "
          f"{', '.join(f'{x:.1f} s' for x in out['restart_seconds'])})")
    print(f"  games started {t.games_started}, finished {t.games_finished}, plays by people {t.plays}, "
          f"guests {t.guests}")
    print(f"  drops {t.drops}, came back to their seat {t.comebacks} (table gone: {t.comebacks_refused}), "
          f"vanished {t.vanished}; the resident player back at their table after a restart {t.restart_comebacks}")
    print(f"  lobby tables made and left {t.empty_lobbies}; sockets that never said hello {t.idle_sockets}: "
          f"{dict(t.idle_ends)}")
    print(f"  client errors: {dict(t.errors) or 'none'}")
    base, end = out["baseline"], out["end"]
    print("\nserver process     baseline    end")
    rows = [("tables", 0, len(out["tables_left"])), ("sockets", base["sockets"], end["sockets"]),
            ("open files (fd)", base["fds"], end["fds"]), ("child processes", base["children"], end["children"]),
            ("threads", base["threads"], end["threads"]),
            ("RSS (MiB)", f"{base['rss_kb'] / 1024:.1f}", f"{end['rss_kb'] / 1024:.1f}")]
    for name, a, b in rows:
        print(f"  {name:<16} {a:>8} {b:>8}")
    last = out["last_start"]
    print(f"  (the last process, restarted {out['played_s'] * 2 / 3:.0f} s in: RSS {last['rss_kb'] / 1024:.1f} MiB "
          f"once its tables were resumed, {last['fds']} open files)")
    logged, listed = out["abandoned_logged"], out["abandoned_listed"]
    print(f"\ntables closed as abandoned: {len(logged)}; listed as abandoned by `ono99 saves list`: {len(listed)}"
          f" ({'the same saves' if logged == listed else 'NOT the same saves'})")
    ok = (out["exit"] == 0 and not out["tracebacks"] and not out["tables_left"] and end["sockets"] == base["sockets"]
          and end["fds"] <= base["fds"] and end["children"] == 0 and end["threads"] <= base["threads"]
          and logged == listed)
    print("back to baseline" if ok else "NOT back to baseline")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
