"""A real `ono99 serve` restarted under three real `ono99 join`s and an `ono99 watch`, each on its
own PTY (read with pyte, frame by frame): every one of them comes back by itself, the players to
their seats and hands, the game goes on to its end, and the spectator never sees a card of a hand."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time

from ono99_tui.net.client import Client

from .netplay import HOST, until
from .test_net_e2e import Term, hand_cards, play
from .test_net_play import SHORT


async def serve(data: str, port: int = 0) -> tuple[asyncio.subprocess.Process, int]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ono99_tui", "serve", "--port", str(port), "--bot-delay", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ, PYTHONUNBUFFERED="1", ONO99_DATA_DIR=data))
    line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
    assert "listening on 127.0.0.1:" in line, line + (await proc.stderr.read()).decode()
    return proc, int(line.split("127.0.0.1:")[1].split()[0])


async def stop(proc) -> None:
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(proc.wait(), 30) == 0
    err = (await proc.stderr.read()).decode()
    assert "Traceback" not in err, err


def front_end(tmp_path, name: str, argv: list[str]) -> Term:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", ONO99_DATA_DIR=str(tmp_path / name / "data"),
               ONO99_CONFIG_DIR=str(tmp_path / name / "config"))
    return Term(name, [sys.executable, "-m", "ono99_tui", *argv], env)


def outside_log(text: str) -> str:
    """The screen without its log pane's lines (what the status lines say now, not what was said)."""
    kept, in_log = [], False
    for line in text.splitlines():
        if "╭─ Log" in line:
            in_log = True
        elif in_log and "╰" in line:
            in_log = False
        elif not in_log:
            kept.append(line)
    return "\n".join(kept)


class Watcher(Term):
    """A spectator's screen: every whole frame it draws is checked for a hand's card."""

    frames = 0
    hands_seen: list = []

    def _publish(self) -> None:
        super()._publish()
        self.frames += 1
        if hand_cards(self.lines):
            self.hands_seen = [*self.hands_seen, "\n".join(self.lines)]


async def test_three_joins_and_a_watcher_come_back_by_themselves_when_the_server_restarts(tmp_path):
    deadline = time.monotonic() + 180  # (a bound for a failure; it takes about 30 s)
    data = str(tmp_path / "server-data")
    server, port = await serve(data)
    terms: list[Term] = []
    try:
        host = await Client.connect(HOST, port, "Host")  # makes the table; never sits
        table = (await host.request({"type": "create", "seats": 4, "rules": SHORT}))["table"]
        for name in ("Ann", "Bob", "Cy"):
            terms.append(front_end(tmp_path, name, ["join", f"{HOST}:{port}", "--name", name]))
            await terms[-1].wait(lambda t, n=name: re.search(rf"\d\. {n} +connected  <- you", t),
                                 "its seat in the lobby", deadline)
        await host.aclose()
        env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES")}
        env.update(TERM="xterm-256color", ONO99_DATA_DIR=str(tmp_path / "w"), ONO99_CONFIG_DIR=str(tmp_path / "w"))
        watcher = Watcher("Wes", [sys.executable, "-m", "ono99_tui", "watch", f"{HOST}:{port}", "--name", "Wes",
                                  "--table", str(table)], env)
        await watcher.wait(lambda t: "Watching" in t and "Ann" in t, "the lobby, watching", deadline)
        await terms[0].wait(lambda t: "Watching: Wes" in t, "Wes watching, in the lobby", deadline)
        ann = terms[0]
        ann.press("b")
        await ann.wait(lambda t: "bot (medium)" in t, "the bot in the last seat", deadline)
        ann.press("s")
        for term in terms:  # the players see who watches
            await term.wait(lambda t: "Your hand" in t and "watching: Wes" in t, "the table, and Wes watching",
                            deadline)
        await watcher.wait(lambda t: "Watching" in t and "Ann" in t and "Cy" in t, "the table", deadline)
        assert "Play 1" not in watcher.text and "Save as" not in watcher.text  # nothing to play or save
        hands = {t.name: sorted(face for _, face, _ in hand_cards(t.lines)) for t in terms}
        assert all(hands.values())

        await stop(server)  # SIGTERM: the server saves its table and says it is stopping
        for term in [*terms, watcher]:
            await term.wait(lambda t: "Reconnecting" in t, "the reconnecting line", deadline)
        for term in terms:  # keys pressed meanwhile, bunched: nothing is played, nothing breaks
            term.press("1231\r")
        server, again = await serve(data, port)  # started again on the same port and data folder
        assert again == port
        back_from = time.monotonic()
        for term in terms:  # (the log keeps "Connection lost ... Reconnecting..." as what happened)
            await term.wait(lambda t, n=term.name: "Reconnecting" not in outside_log(t) and "Your hand" in t
                            and sorted(face for _, face, _ in hand_cards(term.lines)) == hands[n],
                            "its seat and hand back", deadline)
        await watcher.wait(lambda t: "Reconnecting" not in outside_log(t) and "Watching" in t, "the table back",
                           deadline)
        print(f"\nall four back {time.monotonic() - back_from:.2f} s after the server listened again")

        finals = await asyncio.gather(*(play(t, deadline) for t in terms), return_exceptions=True)
        failed = [f for f in finals if isinstance(f, BaseException)]
        assert not failed, "\n\n".join(map(str, failed))
        winner = re.search(r"(\S+) wins!", finals[0][0]).group(1)
        await watcher.wait(lambda t: f"{winner} wins!" in t, "the game's end", deadline)
        assert watcher.frames > 20 and watcher.hands_seen == [], watcher.hands_seen[:1]
    finally:
        for term in terms:
            term.kill()
        if "watcher" in locals():
            watcher.kill()
        if server.returncode is None:
            await stop(server)


async def test_watch_says_in_one_line_which_table_or_why_not():
    from .cli import ono99
    from .netplay import serving

    proc = await asyncio.to_thread(ono99, "watch", "127.0.0.1:1")
    assert proc.returncode == 2 and "cannot connect to 127.0.0.1:1" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    async with serving() as server:
        address = f"{HOST}:{server.port}"
        proc = await asyncio.to_thread(ono99, "watch", address)
        assert proc.returncode == 2 and "no table on" in proc.stderr and "to watch" in proc.stderr, proc.stderr
        a = await Client.connect(HOST, server.port, "Ann")
        for name in ("First", "-x [b]Second"):
            await a.request({"type": "create", "seats": 2, "name": name})
        proc = await asyncio.to_thread(ono99, "watch", address, "--name", "W")
        assert proc.returncode == 2 and "choose one with --table N" in proc.stderr, proc.stderr
        assert "-x [b]Second" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        proc = await asyncio.to_thread(ono99, "watch", address, "--table", "9")
        assert proc.returncode == 2 and "9" in proc.stderr, proc.stderr
        proc = await asyncio.to_thread(ono99, "watch", address, "--name", "\x1b[2J")
        assert proc.returncode == 2 and "--name must be 1 to 24 printable" in proc.stderr
        await a.aclose()


async def test_watch_alone_watches_the_one_game_people_are_at_not_the_tables_they_left():
    """`ssh -t HOST watch` (or `ono99 watch HOST`) with one game being played and others everyone
    dropped out of (their bots wait, `away` in the lobby): the game being played is watched; with
    several, the choice lists the ones people are at and says which the others are."""
    from ono99_tui.net.lobby import JoinPlan, ServerError, choose_watched

    from .netplay import serving, started_table

    async with serving(abandoned_after=600) as server:
        left = []
        for name in ("Gone", "Went"):  # started, then everyone dropped: away, not being played
            client, table = await started_table(server, name)
            await client.aclose()
            left.append(table)
        await until(lambda: all(server.tables[t].state == "away" for t in left), "the left tables are away")
        ann, playing = await started_table(server, "Ann")
        plan = JoinPlan(HOST, server.port, "W", None, None, watch=True)
        watcher = await Client.connect(HOST, server.port, "W")
        assert await choose_watched(watcher, plan) == playing
        bob, also = await started_table(server, "Bob")
        try:
            await choose_watched(watcher, plan)
        except ServerError as exc:
            said = str(exc)
        assert f"{playing}: Table {playing} (playing, Ann" in said and f"{also}: Table {also} (playing, Bob" in said
        assert "Gone" not in said and "Went" not in said, said
        await ann.aclose()
        await bob.aclose()
        await until(lambda: not any(t.state == "playing" for t in server.tables.values()), "all are away")
        try:  # nobody plays anywhere: the choice is among the tables left, each said as it is
            await choose_watched(watcher, plan)
        except ServerError as exc:
            said = str(exc)
        assert "(away, Gone" in said and "(playing" not in said, said
        await watcher.aclose()
