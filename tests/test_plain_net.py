"""`ono99 join HOST --plain` and `ono99 host --plain`: network tables in lines, run as users run them.

A real `ono99 serve`, two plain joins at one table (lines piped into each), a whole game."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time

import pytest

from tests.test_plain import GAME, assert_plain_bytes


class Running:
    """A subprocess whose stdout is collected (raw) by a thread, to wait on what it has said."""

    command = ("-m", "ono99_tui")  # what python runs

    def __init__(self, *args: str, **env: str):
        self.proc = subprocess.Popen([sys.executable, *self.command, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, **env))
        self.raw = bytearray()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for chunk in iter(lambda: self.proc.stdout.read1(65536), b""):
            self.raw.extend(chunk)

    @property
    def lines(self) -> list[str]:
        return bytes(self.raw).decode().splitlines()

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = re.search(pattern, bytes(self.raw).decode(), re.M)
            if m:
                return m
            if self.proc.poll() is not None and not self.thread.is_alive():
                break
            time.sleep(0.05)
        err = self.proc.stderr.read().decode() if self.proc.poll() is not None else ""
        raise AssertionError(f"never said {pattern!r}; said:\n{bytes(self.raw).decode()[-3000:]}{err}")

    def type(self, text: str, close: bool = False) -> None:
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()
        if close:
            self.proc.stdin.close()

    def finish(self, timeout: float = 120) -> int:
        rc = self.proc.wait(timeout)
        self.thread.join(10)
        err = self.err = self.proc.stderr.read().decode()
        assert "Traceback" not in err, err
        return rc


def stop(*running) -> None:
    """Each of these still running (a test that failed half way): killed, never left behind."""
    for p in running:
        if p is not None and p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait(10)


def serving_to_ann() -> tuple[Running, str, Running]:
    """`ono99 serve` (bots at once, a 2 s turn timer, no saves) and Ann's plain join, waiting at
    table 1: (the server, its port, Ann)."""
    server = Running("serve", "--port", "0", "--bot-delay", "0", "--turn-timer", "2", "--no-save")
    port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    ann = Running("join", f"127.0.0.1:{port}", "--name", "Ann", "--or-create", "--plain")
    ann.wait_for(r"^Table 1, rules standard: seat 1, Ann, you; seat 2, empty")
    return server, port, ann


def test_two_plain_joins_play_a_whole_game_at_one_server_table():
    server, port, ann = serving_to_ann()
    try:
        # --plain before, too; and a password this server does not ask: said, not silently dropped
        bob = Running("--plain", "join", f"127.0.0.1:{port}", "--name", "Bob", "--password", "hunter2")
        ann.wait_for(r"seat 2, Bob;")
        bob.wait_for(r"^Seated at table 1, seat 2\.$")
        bob.wait_for(rf"^Note: 127\.0\.0\.1:{port} asks no password: the one given was not used")
        ann.type("b\ns\n" + GAME * 800, close=True)
        bob.wait_for(r"^Table: Ann, human; Bob, human; Medium, medium bot; Medium 2, medium bot\.")
        bob.type(GAME * 800, close=True)
        assert ann.finish() == 0 and bob.finish() == 0
    finally:
        server.proc.terminate()
        server.proc.wait(10)
    for player in (ann, bob):
        assert_plain_bytes(bytes(player.raw))
        # (a stranger's find: a human out of a network game was told "The computer players play
        # on" with a person still playing, and offered "m for the main menu", which join has not)
        assert "The computer players play on." not in player.lines
        assert not any("m for the main menu" in line for line in player.lines)
    out = [line for player in (ann, bob) for line in player.lines if line.startswith("You are out")]
    assert all(line == "You are out of the game; the others play on." for line in out), out
    assert not any(line.startswith("Note:") for line in ann.lines)  # (she gave none)
    over = [[line for line in p.lines if line.startswith("Game over after")] for p in (ann, bob)]
    assert len(over[0]) == 1 and over[0] == over[1], over
    # each hears its own plays as its own, and the other's plays as the other's
    assert any(line.startswith("Ann: ") for line in bob.lines) and any(line.startswith("Bob: ") for line in ann.lines)
    # each was asked at its own turns, and nobody is ever told what anyone drew
    for p in (ann, bob):
        assert sum(line.startswith("Your turn") for line in p.lines) >= 3
        assert not any("draw" in line and "nothing to draw" not in line and "draw pile" not in line
                       for line in p.lines)


def test_plain_join_to_nothing_is_one_message():
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", "join", "127.0.0.1:1", "--name", "Ann", "--plain"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.startswith("ono99: cannot connect to 127.0.0.1:1") and len(proc.stderr.splitlines()) == 1
    assert proc.stderr == "ono99: cannot connect to 127.0.0.1:1: connection refused\n"  # (not asyncio's words)


def test_host_plain_plays_against_bots_and_leaves_at_end_of_input():
    host = Running("host", "--plain", "--port", "0", "--bot-delay", "0", "--seats", "3", "--no-save")
    host.wait_for(r"^Others join with: ono99 join localhost:\d+ --name NAME$")
    host.type("x\nb\ns\n" + GAME * 600, close=True)
    assert host.finish() == 0
    assert_plain_bytes(bytes(host.raw))
    lines = host.lines
    assert "The game has not started: type b, s or q." in lines  # (no w: see below)
    assert any(line.startswith("Game over after ") for line in lines)


def test_a_plain_host_is_not_offered_another_table_to_watch_on_its_one_table_server():
    """A play-tester's find: `ono99 host --plain` offered "w to watch another table", and `w 1`
    answered "There is no other table 1 to watch": a host's server holds one table. Neither the
    host nor a guest there is offered w; w says why there is nothing to watch."""
    host = Running("host", "--plain", "--port", "0", "--seats", "3", "--no-save", "--name", "Ann")
    guest = None
    try:
        port = host.wait_for(r"^Others join with: ono99 join localhost:(\d+) --name NAME$").group(1)
        host.wait_for(r"^Type b to fill the empty seats with bots, s to start once every seat is taken, or q to "
                      r"leave\.$")
        host.type("w 1\nw\n")
        host.wait_for(r"^This server \(ono99 host\) holds one table: there is no other to watch\.\n"
                      r"This server \(ono99 host\) holds one table: there is no other to watch\.$")
        guest = Running("join", f"127.0.0.1:{port}", "--name", "Bob", "--plain")
        guest.wait_for(r"^Type b to fill the empty seats with bots, s to start once every seat is taken, or q to "
                       r"leave\.$")
        for p in (host, guest):
            assert not any("watch another table" in line or "to watch" in line and "Type w" in line
                           for line in p.lines), p.lines
    finally:
        stop(host, guest)


def test_a_network_game_of_one_round_says_game_over_after_1_round(tmp_path):
    """One token and no extra life (R8.2) between two: the game ends with its first round, and
    the lines said "Game over after 1 rounds."."""
    rules = tmp_path / "one.toml"
    rules.write_text("[scoring]\ntokens = 1\nextra_life = false\n")
    host = Running("host", "--plain", "--port", "0", "--bot-delay", "0", "--seats", "2", "--no-save",
                   "--rules", str(rules))
    host.wait_for(r"^Others join with: ono99 join localhost:\d+ --name NAME$")
    host.type("b\ns\n" + GAME * 200, close=True)
    assert host.finish() == 0
    over = [line for line in host.lines if line.startswith("Game over after ")]
    assert len(over) == 1 and re.fullmatch(r"Game over after 1 round\. \S.* wins?\.", over[0]), over
    assert host.lines[host.lines.index(over[0]) + 1].startswith("Standings: first ")


def test_a_plain_join_dials_back_to_its_seat_by_itself_when_a_killed_server_comes_back(tmp_path):
    """A stranger's find: a killed server left a plain join with only a line to run the same
    ono99 join again, while the full screen dials back by itself. Lines now dial back too: the
    player is told, a card typed meanwhile is not played (and said so), and once the server is
    back (its saved table resumed) the game goes on from the same hand to its end."""
    data = str(tmp_path / "server-data")
    server = Running("serve", "--port", "0", "--bot-delay", "0", "--turn-timer", "60", ONO99_DATA_DIR=data)
    port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    try:
        ann = Running("join", f"127.0.0.1:{port}", "--name", "Ann", "--or-create", "--plain")
        ann.wait_for(r"^Table 1, rules standard: seat 1, Ann, you")
        ann.type("b\ns\n")
        ann.wait_for(r"^Which card\?")
        hand = _asked(ann.lines)
    finally:
        server.proc.kill()  # no word to anyone: as a crash, a lost machine
        server.proc.wait(10)
    ann.wait_for(r"^Connection lost: .*Reconnecting\.\.\.$")
    ann.type("1\n")  # played while the server is down: not sent, and the player is told
    ann.wait_for(r"^Not connected: that card was not played")
    assert ann.proc.poll() is None  # still at the table, dialling
    server = Running("serve", "--port", port, "--bot-delay", "0", "--turn-timer", "60", ONO99_DATA_DIR=data)
    try:
        server.wait_for(r"listening on 127\.0\.0\.1:")
        ann.wait_for(r"^Reconnected\.$")
        # while down, the turn was not asked (it said "Which card?" after the loss and after each
        # refused card): it waits, said once, and is asked again once back
        down = ann.lines[max(i for i, line in enumerate(ann.lines) if line.startswith("Connection lost")):
                         ann.lines.index("Reconnected.")]
        assert "Which card?" not in down, down
        # then where the table stands, and the turn asked again (a screen reader heard nothing after
        # "Reconnected.", the hand said while the connection was still down)
        # (what was played in the round so far, if anything: Ann may lead it; the table now; then the
        # turn asked again)
        ann.wait_for(r"^Reconnected\.\r?\n(^Round \d+, plays? .*\r?\n)?^Round \d+, total -?\d+, .* It is your "
                     r"turn(?s:.*)^Which card\?")
        assert _asked(ann.lines) == hand  # the same hand
        ann.type(GAME * 600, close=True)
        assert ann.finish() == 0
    finally:
        server.proc.terminate()
        server.proc.wait(10)
    assert any(line.startswith("Game over after ") for line in ann.lines), ann.lines[-20:]
    assert_plain_bytes(bytes(ann.raw))


def _asked(lines: list[str]) -> list[str]:
    """The hand said with the last "Which card?": its numbered lines."""
    end = max(i for i, line in enumerate(lines) if line == "Which card?")
    start = max(i for i in range(end) if lines[i].startswith("Your turn"))
    return [line for line in lines[start + 1:end] if line[:1].isdigit()]


def test_a_plain_join_refused_on_a_terminal_says_one_line_and_nothing_from_the_event_loop_at_exit():
    """A stranger's find: on a terminal, a refused plain join often added "Exception ignored in
    BaseEventLoop.__del__ ... Invalid file descriptor: -1" after its one line (the network loop
    was left to the garbage collector). Run on a PTY as a user runs it, several times."""
    from .cli import on_a_pty

    server = Running("serve", "--port", "0", "--password", "pw", "--no-save")
    try:
        port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        from ono99_tui.net.kept_seats import keep_token

        keep_token("127.0.0.1", int(port), "Bob", "x" * 24)  # (Bob sat here before: it showed most then)
        # the installed `ono99` command, as users run it: its way out of the interpreter showed the
        # noise about one time in three (`python -m ono99_tui` hardly ever)
        command = os.path.join(os.path.dirname(sys.executable), "ono99")
        argv = [command] if os.path.exists(command) else [sys.executable, "-m", "ono99_tui"]
        for attempt in range(12):
            code, text = on_a_pty(argv + ["join", f"127.0.0.1:{port}", "--name", "Bob", "--password", "nope",
                                          "--plain"], typed=b"\x04")  # (input ends at once, as Ctrl+D)
            assert code == 2, text
            lines = text.strip().splitlines()
            if attempt < 5:
                assert lines == ["ono99: wrong password for this server"], text
            else:  # (guesses from one address wait after five a minute: refused in one line too)
                assert len(lines) == 1 and lines[0].startswith("ono99: too many wrong passwords from 127.0.0.1"), text
    finally:
        server.proc.terminate()
        server.proc.wait(10)


def test_a_plain_host_closes_the_table_for_everyone_with_x_after_saying_yes():
    """A stranger's find: in lines, q keeps a hosted game (the same ono99 host carries it on) and
    nothing closed the table for everyone, so the guests waited for a host who had gone. x asks,
    then closes it; ? lists the commands a network seat has (no undo, no save-as)."""
    host = Running("host", "--plain", "--port", "0", "--seats", "2", "--bot-delay", "0", "--name", "Ann")
    try:
        port = host.wait_for(r"^Others join with: ono99 join localhost:(\d+) --name NAME$").group(1)
        bob = Running("join", f"127.0.0.1:{port}", "--name", "Bob", "--plain")
        host.wait_for(r"seat 2, Bob\.$")
        host.type("s\n?\n")
        host.wait_for(r"^x: close the table for everyone: the game ends here \(asks first\)\.$")
        assert not any(line.startswith(("u: ", "w: ")) for line in host.lines)
        host.type("x\nno\n")
        host.wait_for(r"^The table stays\.$")
        host.type("x\nyes\n")
        host.wait_for(r"^You left the table\. The table closes: you were its host\.$")
        assert host.finish() == 0
        assert bob.proc.wait(60) == 2
        err = bob.proc.stderr.read().decode()
        assert "the host closed the table; the game ends here" in err, err
    finally:
        stop(host, locals().get("bob"))


def test_a_line_typed_while_others_play_is_dropped_and_said_on_a_terminal_not_kept_for_the_next_turn():
    """Keys bunched after a card (a key pressed twice, a paste, SSH) must not answer the next
    turn, whose hand the player has not yet heard: on a terminal a line typed while others play
    is dropped, and the player told; a pipe keeps it for the next question (a script's game)."""
    from tests.test_plain import _Pty

    term = _Pty("host", "--plain", "--port", "0", "--seats", "2", "--bot-delay", "2", "--no-save", "--name", "Ann")
    try:
        term.wait_for(r"^Others join with: ono99 join localhost:\d+ --name NAME$")
        term.write("b\ns\n")
        start = 0
        while True:
            asked = term.wait_for(r"^(Your turn[^\n]*)\n((?:\d+: [^\n]*\n)+)(?:Type [^\n]*\n)?Which card\?\n", start)
            start += asked.end()
            safe = [m.group(1) for m in re.finditer(r"^(\d+): [^\n]*, total (\d+|stays)\.$", asked.group(2), re.M)]
            assert safe, asked.group(0)  # (a 2-seat deal's first turns always have one)
            if "first of two" not in asked.group(1):
                break
            term.write(f"{safe[0]}\n")  # (a Double Play owed: the turn goes on; play its first card)
        term.write(f"{safe[0]}\n7\n")  # a card, and a key meant for nothing yet, in one write
        # the card's own line first (a stranger saw the 7 refused before the card it followed)
        term.wait_for(r"^Ann: [^\n]*\n(?:[^\n]*\n)*?It is not your turn: '7' was not used\.$", start)
        again = term.wait_for(r"^Which card\?$", start)  # the next turn is asked, its hand said first
        term.write("q\n")
        term.wait_for(r"^You left the table\. The table closes", start + again.end())  # (--no-save)
    finally:
        rc = term.close()
    said = term.text[start:]
    assert rc == 0, said
    assert not re.search(r"^(That is not|There is no) ", said, re.M), said  # the 7 answered nothing


def test_leaving_a_plain_join_with_q_mid_game_says_nothing_on_stderr():
    """A stranger's find: every q at a plain join's table left "Task was destroyed but it is
    pending!" (the table's reader, still running) on stderr. Leaving now ends what runs first."""
    server = Running("serve", "--port", "0", "--bot-delay", "0", "--turn-timer", "60", "--no-save")
    try:
        port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        for name in ("Ann", "Bob"):
            player = Running("join", f"127.0.0.1:{port}", "--name", name, "--or-create", "--plain")
            player.wait_for(rf"^Table \d+, rules standard: seat 1, {name}, you")
            player.type("b\ns\n")
            player.wait_for(r"^Which card\?$")
            player.type("q\n", close=True)
            assert player.finish() == 0
            assert player.lines[-1].startswith("You left the table. Your seat is kept"), player.lines[-3:]
            assert player.err == "", player.err
    finally:
        server.proc.terminate()
        server.proc.wait(10)


def test_a_plain_join_that_leaves_with_q_is_told_to_the_table_as_leaving_and_one_killed_as_lost():
    """Bob leaves with q: Ann hears he left the table (not that his connection was lost); Cy's
    join is killed: Ann hears Cy lost the connection. Both seats are kept, played by a bot."""
    server = Running("serve", "--port", "0", "--bot-delay", "0", "--turn-timer", "60", "--no-save")
    players = []
    try:
        port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        ann = Running("join", f"127.0.0.1:{port}", "--name", "Ann", "--or-create", "--plain")
        ann.wait_for(r"^Table 1, rules standard: seat 1, Ann, you")
        bob = Running("join", f"127.0.0.1:{port}", "--name", "Bob", "--plain")
        players = [ann, bob]
        ann.wait_for(r"seat 2, Bob;")
        cy = Running("join", f"127.0.0.1:{port}", "--name", "Cy", "--plain")
        players.append(cy)
        ann.wait_for(r"seat 3, Cy;")
        ann.type("b\ns\n")
        for p in (bob, cy):
            p.wait_for(r"^Table: Ann, human; Bob, human; Cy, human; Medium, medium bot\.")
        bob.type("q\n", close=True)
        assert bob.finish() == 0 and bob.lines[-1].startswith("You left the table. Your seat is kept")
        ann.wait_for(r"^Bob left the table; a bot plays their turns until they are back\.$")
        cy.proc.kill()
        ann.wait_for(r"^Cy lost the connection; a bot plays their turns until they are back\.$")
        assert not any(line.startswith("Bob lost the connection") for line in ann.lines)
    finally:
        for p in (*players, server):
            if p.proc.poll() is None:
                p.proc.kill()
            p.proc.wait(10)


def _playing_when_the_server_is_killed(join=Running, **env: str) -> tuple[Running, str]:
    """Ann at a --no-save server's table, at her turn, when the server is killed (no word to
    anyone); returned once she has said she is reconnecting, with the server's port."""
    server = Running("serve", "--port", "0", "--bot-delay", "0", "--turn-timer", "60", "--no-save")
    port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    try:
        ann = join("join", f"127.0.0.1:{port}", "--name", "Ann", "--or-create", "--plain", **env)
        ann.wait_for(r"^Table 1, rules standard: seat 1, Ann, you")
        ann.type("b\ns\n")
        ann.wait_for(r"^Which card\?")
    finally:
        server.proc.kill()
        server.proc.wait(10)
    ann.wait_for(r"^Connection lost: .*Reconnecting\.\.\.$")
    return ann, port


def test_a_plain_join_dialling_back_to_a_server_without_its_table_says_so_and_keeps_the_seat(tmp_path, monkeypatch):
    """A stranger's find: a --no-save server killed and started again told a redialling plain
    join "your seat is gone", which nobody knows. It says what is known, in one line, exit 2."""
    data = str(tmp_path / "ann-data")
    ann, port = _playing_when_the_server_is_killed(Running, ONO99_DATA_DIR=data)
    server = Running("serve", "--port", port, "--bot-delay", "0", "--no-save")
    try:
        server.wait_for(r"listening on 127\.0\.0\.1:")
        assert ann.finish() == 2
    finally:
        server.proc.terminate()
        server.proc.wait(10)
    assert ann.err == ("ono99: the connection to the server ended, and the server has no table 1 now (it "
                       "restarted without its saved games, or the table was closed). Your seat is still kept "
                       "on this machine: if its game comes back to that server, the same ono99 join brings you "
                       "back to it.\n"), ann.err
    from ono99_tui.net.kept_seats import kept_tokens

    monkeypatch.setenv("ONO99_DATA_DIR", data)
    assert kept_tokens("127.0.0.1", int(port), "Ann")  # (and it is)


class _Patient(Running):
    """ono99 as run, but saying "Still reconnecting" every 2 s rather than every minute."""

    command = ("-c", "import sys, ono99_tui.plain.remote as r; r.STILL_RECONNECTING_EVERY = 2.0; "
                     "from ono99_tui.cli import main; sys.exit(main(sys.argv[1:]))")


def test_a_plain_join_left_while_reconnecting_says_the_server_cannot_be_reached_and_keeps_saying_it_tries():
    """Strangers' finds: q while the server was down said "Your seat is kept: a bot plays it
    after the server's turn timer", with no server running to keep anything; and a long
    reconnection said nothing after its first line. It says what is known, and a line now and
    then (each minute; here each 2 s) that it still tries."""
    ann, port = _playing_when_the_server_is_killed(_Patient)
    first = int(ann.wait_for(r"^Still reconnecting \(try (\d+)\)\.\.\.$").group(1))
    ann.wait_for(rf"^Still reconnecting \(try (?!{first}\))\d+\)\.\.\.$")
    ann.type("q\n", close=True)
    assert ann.finish() == 0 and ann.err == "", ann.err
    said = [line for line in ann.lines if line.startswith("Still reconnecting")]
    tries = [int(re.search(r"\d+", line).group()) for line in said]
    assert tries == sorted(set(tries)) and tries[0] >= 2, said  # (each says a later try)
    assert ann.lines[-1] == ("You left the table. The server cannot be reached now; if its game comes back, "
                             "the same ono99 join brings you back to your seat."), ann.lines[-3:]


def test_a_plain_host_that_keeps_no_game_says_so_for_q_in_its_help():
    """`?` at a --no-save host listed "q: leave the table; the game is kept, and the same ono99
    host carries it on", and q then closed the table: the help says what q does there."""
    host = Running("host", "--plain", "--port", "0", "--seats", "2", "--bot-delay", "0", "--no-save")
    host.wait_for(r"^Others join with: ono99 join localhost:\d+ --name NAME$")
    host.type("b\ns\n")
    host.wait_for(r"^Which card\?$")
    host.type("?\n")
    host.wait_for(r"^q: leave the table; it closes, and the game ends here for everyone \(this server keeps no "
                  r"game once it stops\)\.$")
    host.type("q\n", close=True)
    assert host.finish() == 0 and host.err == "", host.err
    assert host.lines[-1] == "You left the table. The table closes: you were its host.", host.lines[-3:]
    assert not any("the game is kept" in line for line in host.lines)


def test_a_plain_watcher_watches_and_never_takes_a_seat():
    # `ono99 --plain watch` sat Wendy at Ann's waiting table as a player ("Seated at table 1,
    # seat 2"), and `ono99 watch ... --plain` was refused as an unknown option
    server, port, ann = serving_to_ann()
    try:
        wendy = Running("watch", f"127.0.0.1:{port}", "--name", "Wendy", "--plain")
        wendy.wait_for(r"^Watching table 1: you hold no cards\.$")
        wendy.wait_for(r"^Table 1, rules standard: seat 1, Ann; seat 2, empty")  # (nobody else sits)
        wendy.wait_for(r"^You are watching: its plays are said once its game starts\. Type q to leave\.$")
        wendy.type("b\n")  # a watcher fills no seat
        wendy.wait_for(r"^You are watching: type q to leave\.$")
        ann.type("b\ns\n" + GAME * 800, close=True)
        wendy.wait_for(r"^Ann: ")  # Ann's plays, as they come
        assert ann.finish() == 0
        wendy.wait_for(r"^Game over after")
        assert wendy.finish() == 0  # (the game over: watching ends by itself)
    finally:
        server.proc.terminate()
        server.proc.wait(10)
    assert_plain_bytes(bytes(wendy.raw))
    assert not any(line.startswith(("Seated", "Your turn", "Your hand")) for line in wendy.lines), wendy.lines
    assert not any("Wendy" in line for line in ann.lines if line.startswith("Table 1")), ann.lines


def test_a_plain_watcher_at_a_lobby_table_that_closes_is_told_so_and_leaves():
    # Ann, the one player at a waiting table, left: the server closed it and told Wendy
    # ("table 1 closed: nobody sits at it"), who then waited for q at a table that was gone
    server, port, ann = serving_to_ann()
    wendy = None
    try:
        wendy = Running("watch", f"127.0.0.1:{port}", "--name", "Wendy", "--plain")
        wendy.wait_for(r"^You are watching: its plays are said once its game starts\. Type q to leave\.$")
        ann.type("q\n")
        assert ann.finish() == 0
        rc = wendy.finish(timeout=30)  # (its input left open: it ends by itself)
        assert (rc, wendy.err) == (2, "ono99: table 1 closed: nobody sits at it\n"), (rc, wendy.err, wendy.lines)
    finally:
        stop(wendy, ann)
        server.proc.terminate()
        server.proc.wait(10)


def test_the_join_line_a_password_host_shows_lets_a_guest_who_copies_it_sit_down():
    """A play-tester's find: `ono99 host --password sesame` showed "Others join with: ono99 join
    localhost:PORT --name NAME"; a guest who copied it was told "this server needs a password".
    The line names the password (shell-quoted: it is the host's own screen); a guest who runs it
    as a shell would, with a name for NAME, sits at the table."""
    import shlex

    host = Running("host", "--plain", "--port", "0", "--seats", "2", "--bot-delay", "0", "--no-save",
                   "--name", "Ann", "--password", "open sesame")
    guest = None
    try:
        line = host.wait_for(r"^Others join with: (ono99 join .*)$").group(1)
        assert line.endswith(" --password 'open sesame'"), line
        argv = ["Bob" if word == "NAME" else word for word in shlex.split(line)[1:]]
        guest = Running(*argv, "--plain")
        guest.wait_for(r"^Seated at table 1, seat 2\.$")
        host.wait_for(r"seat 2, Bob\.$")
    finally:
        stop(host, guest)


def test_a_host_with_a_password_file_does_not_show_the_password_in_its_join_line(tmp_path):
    secret = tmp_path / "pw.txt"
    secret.write_text("hunter2\n")
    host = Running("host", "--plain", "--port", "0", "--seats", "2", "--no-save", "--password-file", str(secret))
    try:
        line = host.wait_for(r"^Others join with: .*$").group(0)
        assert line.endswith(f" --name NAME --password PW (PW: the password in {secret})"), line
        assert "hunter2" not in bytes(host.raw).decode()
    finally:
        host.proc.kill()
        host.proc.wait(10)


def _a_free_port() -> int:
    """A free port of the 49600-49999 range (a kept host game is kept by its port: never port 0)."""
    import random
    import socket

    for port in random.sample(range(49600, 50000), 400):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port in 49600-49999")


def _a_kept_host_game(tmp_path, *flags: str, name: str = "Hana") -> tuple[str, str, list[str]]:
    """`ono99 host --plain` on a port of its own, a game started and left with q (kept); the
    port, the data folder, and the lines the host said."""
    port, data = str(_a_free_port()), str(tmp_path / "host-data")
    host = Running("host", "--plain", "--port", port, "--seats", "2", "--bot-delay", "0", "--name", name,
                   *flags, ONO99_DATA_DIR=data)
    try:
        host.type("b\ns\n")
        host.wait_for(r"^Which card\?$")
        host.type("q\n", close=True)
        assert host.finish() == 0, host.err
    finally:
        stop(host)
    return port, data, host.lines


def test_a_host_game_kept_with_a_password_names_the_flag_and_is_not_reopened_without_one(tmp_path):
    """A play-tester's find: a host restarted without --password resumed the private game open
    to anyone, with no warning; its farewell had said only "run the same ono99 host (port P,
    --name Hana)". The farewell names the flag (never the password), and a start without a
    password refuses, in one line, to reopen that game; with the password it is back."""
    port, data, said = _a_kept_host_game(tmp_path, "--password", "sesame")
    assert said[-1] == (f"You left the table. The game is kept: run the same ono99 host (port {port}, --name Hana, "
                        "with --password) to carry it on; its players come back to their seats."), said[-3:]
    assert not any("sesame" in line for line in said if not line.startswith("Others join with: "))
    proc = subprocess.run([sys.executable, "-m", "ono99_tui", "host", "--plain", "--port", port, "--seats", "2",
                           "--name", "Hana"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, ONO99_DATA_DIR=data))
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert proc.stderr == (f"ono99: the game kept on port {port} was played with a password: run ono99 host with "
                           "--password (or --password-file) to carry it on; without one, anyone who reaches the "
                           "port could take a seat in it (another --port starts a new table)\n"), proc.stderr
    secret = tmp_path / "pw"
    secret.write_text("sesame\n")
    host = Running("host", "--plain", "--port", port, "--seats", "2", "--name", "Hana", "--password-file",
                   str(secret), ONO99_DATA_DIR=data)
    try:
        host.wait_for(r"^Back in your seat\.$")
        host.wait_for(r"^Which card\?$")
        host.type("q\n", close=True)
        assert host.finish() == 0, host.err
    finally:
        stop(host)
    assert host.lines[-1] == (f"You left the table. The game is kept: run the same ono99 host (port {port}, --name "
                              f"Hana, with --password-file {secret}) to carry it on; its players come back to their "
                              "seats."), host.lines[-3:]


def test_ctrl_c_at_a_plain_hosts_game_says_the_game_is_kept_and_how_to_carry_it_on(tmp_path):
    """A play-tester's find: Ctrl+C mid-game at `ono99 host --plain` said only "ono99:
    interrupted" (exit 130), though the game is kept as with q. It now says so in q's words, and
    the same ono99 host is back in the game."""
    import signal

    port, data = str(_a_free_port()), str(tmp_path / "host-data")
    host = Running("host", "--plain", "--port", port, "--seats", "2", "--bot-delay", "0", "--name", "Hana",
                   ONO99_DATA_DIR=data)
    try:
        host.type("b\ns\n")
        host.wait_for(r"^Which card\?$")
        host.proc.send_signal(signal.SIGINT)
        assert host.finish() == 130
    finally:
        stop(host)
    assert host.err == "ono99: interrupted\n", host.err
    assert host.lines[-1] == (f"Interrupted. The game is kept: run the same ono99 host (port {port}, --name Hana) "
                              "to carry it on; its players come back to their seats."), host.lines[-3:]
    again = Running("host", "--plain", "--port", port, "--seats", "2", "--name", "Hana", ONO99_DATA_DIR=data)
    try:
        again.wait_for(r"^Back in your seat\.$")
        again.type("x\nyes\n", close=True)  # (closed for good: nothing left kept)
        assert again.finish() == 0, again.err
    finally:
        if again.proc.poll() is None:
            again.proc.kill()


def test_a_host_restarted_under_another_name_is_told_which_name_carries_its_kept_game_on(tmp_path, monkeypatch):
    """A play-tester's find: `ono99 host` run again under another --name, while the port kept a
    game, said "this server holds one table (ono99 host) and makes no other: join it while a seat
    is free, or watch it" (exit 2). It names the --name the game is kept for, and the way to a
    new table; under that name the host is back in the game."""
    port, data, said = _a_kept_host_game(tmp_path, name="Hal")
    for plain in (["--plain"], []):  # (the table screen says it in the same line, once it is gone)
        argv = [sys.executable, "-m", "ono99_tui", "host", *plain, "--port", port, "--seats", "3", "--name", "Hana"]
        if plain:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                                  env=dict(os.environ, ONO99_DATA_DIR=data))
            code, err = proc.returncode, proc.stderr
        else:
            from tests.test_plain import _Pty

            monkeypatch.setenv("ONO99_DATA_DIR", data)
            monkeypatch.setenv("TERM", "xterm-256color")
            term = _Pty(*argv[3:])
            code = term.close()
            err = term.text
        assert code == 2, err
        assert (f"ono99: a game kept for --name Hal is on port {port}: run ono99 host with --name Hal (and --port "
                f"{port}) to carry it on, or with another --port to start a new table") in err, err
        assert "makes no other" not in err
    host = Running("host", "--plain", "--port", port, "--name", "Hal", ONO99_DATA_DIR=data)
    try:
        host.wait_for(r"^Back in your seat\.$")
        host.type("x\nyes\n", close=True)
        assert host.finish() == 0, host.err
    finally:
        stop(host)


def test_a_plain_join_waiting_alone_with_or_create_is_seated_again_when_the_server_restarts():
    """A play-tester's find: a plain `ono99 join --or-create` waiting alone in the lobby ended at a
    server restart ("the server is shutting down") or a dropped connection, its table gone. It now
    dials back, and --or-create makes it a new table."""
    server, port, ann = serving_to_ann()
    again = None
    try:
        server.proc.terminate()
        assert server.proc.wait(30) == 0
        ann.wait_for(r"^Connection lost: the server is shutting down.*Reconnecting\.\.\.$")
        again = Running("serve", "--port", port, "--bot-delay", "0", "--no-save")
        again.wait_for(r"listening on 127\.0\.0\.1:")
        ann.wait_for(r"^The table you waited at was closed while you were away: you sit at table 1\.$")
        ann.wait_for(r"^Reconnected\.$")
        ann.type("b\ns\n" + GAME * 800, close=True)
        ann.wait_for(r"^Table: Ann, human; Medium, medium bot")
        assert ann.finish() == 0, ann.err
    finally:
        stop(server, again, ann)


def test_two_plain_joins_waiting_together_with_or_create_are_together_again_after_a_restart(tmp_path):
    """A play-tester's find: two players waiting at one table both came back from a restart, each
    to a new table of their own (a server that saves numbers its tables on over a restart). The
    first back makes one; the next sits at it, as --or-create does."""
    data = {"ONO99_DATA_DIR": str(tmp_path / "server")}
    server = Running("serve", "--port", "0", "--bot-delay", "0", **data)
    port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    again = ann = bob = None
    try:
        ann = Running("join", f"127.0.0.1:{port}", "--name", "Ann", "--or-create", "--plain")
        ann.wait_for(r"^Table 1, rules standard: seat 1, Ann, you; seat 2, empty")
        bob = Running("join", f"127.0.0.1:{port}", "--name", "Bob", "--or-create", "--plain")
        ann.wait_for(r"seat 2, Bob;")
        server.proc.terminate()
        assert server.proc.wait(30) == 0
        again = Running("serve", "--port", port, "--bot-delay", "0", **data)
        again.wait_for(r"listening on 127\.0\.0\.1:")
        said = [p.wait_for(r"^The table you waited at was closed while you were away: you sit at (?:a new one, )?"
                           r"table (\d+)\.$") for p in (ann, bob)]
        assert said[0].group(1) == said[1].group(1) != "1", [m.group(0) for m in said]
        both = rf"^Table {said[0].group(1)}, rules standard: seat \d, (Ann|Bob)[^;]*; seat \d, (Ann|Bob)"
        ann.wait_for(both)
        bob.wait_for(both)
    finally:
        stop(server, again, ann, bob)


def test_a_plain_join_back_before_anyone_made_a_table_waits_for_one_to_open():
    """A player who joined without --or-create was thrown out when a restart brought them back
    before whoever made their table ("the table is no longer there to sit at again"). Now they
    wait for a table to open, and sit at the first that does."""
    server = Running("serve", "--port", "0", "--bot-delay", "0", "--no-save")
    port = server.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    again = ann = bob = cid = None
    try:
        ann = Running("join", f"127.0.0.1:{port}", "--name", "Ann", "--or-create", "--plain")
        ann.wait_for(r"^Table 1, rules standard: seat 1, Ann, you; seat 2, empty")
        bob = Running("join", f"127.0.0.1:{port}", "--name", "Bob", "--plain")
        ann.wait_for(r"seat 2, Bob;")
        stop(ann)  # the table's maker is gone when the server comes back
        server.proc.terminate()
        assert server.proc.wait(30) == 0
        again = Running("serve", "--port", port, "--bot-delay", "0", "--no-save")
        again.wait_for(r"listening on 127\.0\.0\.1:")
        bob.wait_for(r"^The table you waited at was closed while you were away, and no table is waiting for "
                     r"players: waiting for one to open \(Ctrl\+C to stop\)\.$")
        assert bob.proc.poll() is None
        cid = Running("join", f"127.0.0.1:{port}", "--name", "Cid", "--or-create", "--plain")
        cid.wait_for(r"^Table 1, rules standard: seat 1, Cid, you")
        bob.wait_for(r"^Reconnected\.$")  # (at the new table 1: the number is free again after a restart)
        bob.wait_for(r"^Table 1, rules standard: seat 1, Cid; seat 2, Bob, you;")
        cid.wait_for(r"seat 2, Bob;")
    finally:
        stop(server, again, ann, bob, cid)


def test_a_play_made_before_the_plain_table_opens_is_said_once():
    """A play-tester's find: `ono99 host --plain` with bots said the bot's first play twice
    ("Medium: Ten, total 10." before "Your turn." and again after "Which card?"). The network
    thread adds each play to the table's events as it comes and queues it for this thread; the
    opening said every event the table held by then, and the queued update said the play again."""
    import io

    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.net.protocol import view_to_dict
    from ono99_tui.net.remote import RemoteTable
    from ono99_tui.plain.console import Console, EndOfInput
    from ono99_tui.plain.network import Inbox, InboxConsole, Network
    from ono99_tui.plain.remote import RemotePlain
    from ono99_tui.table import TableSession
    from ono99_tui.tui.setup import TableSetup

    seed = 3
    while (session := TableSession([SeatSpec("Ann"), SeatSpec("Bot", "bot:medium")], seed=seed)).current != 1:
        seed += 1  # (a deal where the bot plays first)
    first = {"view": view_to_dict(session.view_for(0)), "seq": session.seq,
             "events": session.events_for(0), "full": True}
    inbox = Inbox()
    remote = RemoteTable(client=None, table_id=1, seat=0, first_state=first)
    remote.subscribe(lambda update: inbox.put(("update", update)), 0)  # (as the network thread does)
    before = session.event_count
    session.play_bot()  # the bot plays, and the server sends it, before this thread opens the table
    remote.handle({"type": "state", "table": 1, "view": view_to_dict(session.view_for(0)), "seq": session.seq,
                   "events": session.events_for(0, before), "full": False})
    out = io.BytesIO()
    net = Network()
    try:
        plain = RemotePlain(InboxConsole(Console(io.BytesIO(), out), inbox), remote,
                            TableSetup(remote.seats, remote.view.rules, "standard"), net)
        inbox.put(("line", None))  # (the end of input, once the turn is asked)
        with pytest.raises(EndOfInput):
            plain.run()
    finally:
        net.stop()
    lines = out.getvalue().decode().splitlines()
    played = [i for i, line in enumerate(lines) if line.startswith("Bot: ")]
    assert len(played) == 1, lines
    assert played[0] < lines.index("Your turn."), lines  # (and before the turn it leads to)


def test_an_arrow_key_at_a_network_tables_turn_says_arrows_do_nothing_and_asks_again():
    # a stranger's Down arrow (ESC O B in application mode) and Enter at a plain host's "Which
    # card?" was told "Nothing typed"
    host = Running("host", "--plain", "--port", "0", "--bot-delay", "0", "--seats", "2", "--no-save")
    try:
        host.wait_for(r"^Others join with: ono99 join localhost:\d+ --name NAME$")
        host.type("b\ns\n\x1bOB\nq\n", close=True)
        assert host.finish() == 0
    finally:
        stop(host)
    lines = host.lines
    at = lines.index("Arrow keys and other special keys do nothing here: type your answer, then Enter.")
    assert lines[at - 1] == lines[at + 1] == "Which card?", lines
    assert not any(line.startswith("Nothing typed") for line in lines), lines
