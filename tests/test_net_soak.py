"""A short soak (issue 21; the long one is benchmarks/soak.py): random clients join, play, drop,
come back with their seat tokens and vanish at a real `ono99 serve` restarted twice under them;
then everyone goes, and the server is back to its baseline: no table, no connection, no child
process, no more open files or threads than before, memory near where it was; every table it
closed as abandoned has its save kept and listed as abandoned by `ono99 saves list`."""

import asyncio
import os

from .soak import Soak


def test_a_short_soak_leaves_the_server_as_it_found_it():
    soak = Soak(dict(os.environ), seed=21, players=10, duration=15, abandoned_after=2)
    out = asyncio.run(asyncio.wait_for(soak.run(), 120))
    tally, base, end = out["tally"], out["baseline"], out["end"]
    assert out["exit"] == 0 and not out["tracebacks"], _around_traceback(out["log"]) or out["log"][-5:]
    # it was a soak: games played, finished, dropped and resumed, across both restarts
    assert tally.games_started >= 10 and tally.games_finished >= 1 and tally.plays >= 100, tally
    assert tally.drops >= 1 and tally.comebacks >= 1 and tally.vanished >= 1 and tally.empty_lobbies >= 1, tally
    # each socket that never said hello was closed by the hello timeout (or by a restart)
    assert tally.idle_ends["hello_timeout"] >= 1, tally
    assert tally.idle_ends["hello_timeout"] + tally.idle_ends["closing"] == tally.idle_sockets, tally
    assert min(out["resumed_at_restarts"]) >= 1 and tally.restart_comebacks >= 2, (out["resumed_at_restarts"], tally)
    # back to the baseline
    assert out["tables_left"] == []
    # its listening socket and its event loop's own pair: no connection left
    assert end["sockets"] == base["sockets"] == 3, (base, end)
    assert end["fds"] <= base["fds"], (base, end)
    assert end["children"] == base["children"] == 0
    assert end["threads"] <= base["threads"], (base, end)
    assert end["rss_kb"] < base["rss_kb"] * 1.5, (base, end)  # a guard against a leak, not a measure
    # every table closed as abandoned is in the saves, listed as abandoned
    assert out["abandoned_logged"], "no table was abandoned"
    assert out["abandoned_logged"] == out["abandoned_listed"]


def _around_traceback(log: list[str]) -> str:
    """The server's log from its first traceback on (a failure names what raised, not only that)."""
    at = next((i for i, line in enumerate(log) if "Traceback" in line), None)
    return "" if at is None else "\n".join(log[max(0, at - 3):at + 40])
