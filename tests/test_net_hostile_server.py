"""A server that is not ono99, another version, a buggy fork or a hostile one: whatever it sends,
a client refuses it as it reads it (one ProtocolError naming the server), never a traceback or a
crash later when a screen draws it. Every entry point as a user runs it: `ono99 join`, `join
--plain`, `watch`, `watch --plain`, against a fake server scripted here."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from ono99_tui.engine.record import SeatSpec
from ono99_tui.net.client import Client
from ono99_tui.net.protocol import ProtocolError, decode, encode, view_from_dict, view_to_dict
from ono99_tui.net.remote import RemoteTable
from ono99_tui.table.session import TableSession

SESSION = TableSession([SeatSpec("Ann"), SeatSpec("Bob", "bot:medium")], seed=3)
VIEW = view_to_dict(SESSION.view_for(0))


def table(started=True):
    return {"id": 1, "name": "Table 1", "rules": "standard", "rules_table": SESSION.rules.to_dict(),
            "seats": [{"name": "Ann" if started else None, "player": "human" if started else None,
                       "connected": started},
                      {"name": "Bob", "player": "bot:medium", "connected": True}],
            "started": started, "over": False, "watchers": 0, "watching": [],
            "state": "playing" if started else "waiting", "game": "g1"}


def state(who=0, **view):
    """A good state for seat ``who`` (None: a watcher's), its view's fields changed as given."""
    out = {"type": "state", "table": 1, "seat": who, "seq": SESSION.seq,
           "view": {**view_to_dict(SESSION.view_for(who)), **view},
           "events": SESSION.events_for(who, 0), "full": True}
    for key, value in view.items():
        if value is DROP:
            del out["view"][key]
    return out


DROP = object()


def with_(message: dict, **fields) -> dict:
    out = copy.deepcopy(message)
    for key, value in fields.items():
        if value is DROP:
            del out[key]
        else:
            out[key] = value
    return out


# (what, the message): each is refused as it is read
BAD = [
    ("unknown type", {"type": "wat"}),
    ("tables not a list", {"type": "tables", "tables": "nope"}),
    ("tables of numbers", {"type": "tables", "tables": [1, 2]}),
    ("a table without its fields", {"type": "tables", "tables": [{"id": 1}]}),
    ("a table's seats a string", {"type": "tables", "tables": [with_(table(), seats="x")]}),
    ("a table's id a string", {"type": "tables", "tables": [with_(table(), id="1")]}),
    ("a seat's player a number", {"type": "table", "seat": 0, "table": with_(table(), seats=[
        {"name": "A", "player": 5, "connected": True}] * 2)}),
    ("a table message without its table", {"type": "table", "seat": 0}),
    ("a table message's table a string", {"type": "table", "table": "x", "seat": 0}),
    ("a table message's seat a string", {"type": "table", "table": table(), "seat": "0"}),
    ("a table message's seat past its seats", {"type": "table", "table": table(), "seat": 5}),
    ("watching a string", {"type": "table", "seat": 0, "table": with_(table(), watching="abc")}),
    ("watching 20,000 names (a server names 12)", {"type": "table", "seat": 0, "table": with_(
        table(), watchers=20000, watching=[f"w{i}" for i in range(20000)])}),
    ("an ok's seat a string", {"type": "ok", "table": 1, "seat": "0", "token": "t"}),
    ("an ok's token a number", {"type": "ok", "table": 1, "seat": 0, "token": 5}),
    ("an error's message an object", {"type": "error", "code": "x", "message": {"a": 1}}),
    ("an error's code a list", {"type": "error", "code": ["auth"], "message": "x"}),
    ("a notice without a message", {"type": "notice"}),
    ("a kicked message a list", {"type": "kicked", "message": [1]}),
    ("closing's kept a string", {"type": "closing", "message": "bye", "kept": "x"}),
    ("a welcome's version a string", {"type": "welcome", "version": "1"}),
    ("a huge number", {"type": "ok", "seq": 10**400}),
    ("a state's seq a string", with_(state(), seq="x")),
    ("a state's events a string", with_(state(), events="x")),
    ("a state's full a string", with_(state(), full="yes")),
    ("a state without full", with_(state(), full=DROP)),
    ("a state's view a list", with_(state(), view=[1])),
    ("a state's view null", with_(state(), view=None)),
    ("a state's seat not its view's", with_(state(), seat=1)),
    ("a hand that is a number", state(hand=5)),
    ("a hand of cards that do not exist", state(hand=["ace", "[red]x", "\x1b[2J"])),
    ("more cards in hand than the deck has", state(hand=["2"] * 500)),
    ("names a string", state(names="AB")),
    ("no total", state(total=DROP)),
    ("a total that is a string", state(total="x")),
    ("a total past 32 bits", state(total=10**400)),
    ("a total that is a float", state(total=1e308)),
    ("whose turn, a seat that is not there", state(current=7)),
    ("the view's seat not there", state(seat=9)),
    ("a dealer not there", state(dealer=-5)),
    ("hand sizes for fewer seats", state(hand_sizes=[1])),
    ("tokens for no seats", state(tokens=[])),
    ("out for no seats", state(out=[])),
    ("points that are strings", state(points=["a", "b"])),
    ("fifty players", state(names=[f"P{i}" for i in range(50)], hand_sizes=[1] * 50, tokens=[1] * 50,
                            points=[0] * 50, out=[False] * 50, in_round=list(range(50)))),
    ("empty names", state(names=["", ""])),
    ("a name of 5000 characters", state(names=["A" * 5000, "B"])),
    ("a name with control characters", state(names=["Ann\x1b[2J", "Bob"])),
    ("two names the same", state(names=["Ann", "Ann"])),
    ("rules that are not rules", state(rules={"target": "x"})),
    ("rules a string", state(rules="x")),
    ("a full state without rules", state(rules=DROP)),
    ("a round's play without its card", state(round_plays=[[0]])),
    ("a round's play by a seat not there", state(round_plays=[[5, "2"]])),
    ("a round's play of no card", state(round_plays=[[0, "zz"]])),
    ("seats in the round not there", state(in_round=[7, 9])),
    ("a direction of 0", state(direction=0)),
    ("cards played that do not exist", state(played_this_round=["x"], discard=["\x1b[2J"])),
    ("a draw pile of -5", state(draw_pile_size=-5)),
    ("over a string", state(over="no", winner="x")),
    ("a winner not there", state(over=True, winner=9, current=None)),
    ("plays owed a billion", state(plays_owed=10**9)),
    ("my turn with no card to play", state(current=0, hand=[], hand_sizes=[0, 4])),
    ("a hand not as many cards as its seat's", state(hand_sizes=[3, 4])),
    ("over without a winner", state(over=True, winner=None, current=None)),
    ("a winner while the game goes on", state(winner=1)),
    ("nobody to move while the game goes on", state(current=None)),
    ("the seat to move out of the game", state(out=[False, True])),
    ("a seat in the round twice", state(in_round=[0, 0])),
    ("game over standings missing a seat", with_(state(), events=[{"type": "game_over", "winner": 1,
                                                                   "standings": [1]}])),
    ("game over standings a seat twice", with_(state(), events=[{"type": "game_over", "winner": 1,
                                                                 "standings": [1, 1]}])),
    ("points of nobody", with_(state(), events=[{"type": "points", "round": 1, "breakdown": []}])),
    ("a tie of one", with_(state(), events=[{"type": "tie", "seats": [1], "score": 3}])),
    ("events of numbers and unknown kinds", with_(state(), events=[1, {"type": "wat"}, {"no": "type"}])),
    ("an event whose type is a list", with_(state(), events=[{"type": ["play"]}])),
    ("a play by a seat not there", with_(state(), events=[{"type": "play", "n": 1, "round": 1, "seat": 9,
                                                           "card": "2", "total": 2}])),
    ("a play of no card", with_(state(), events=[{"type": "play", "n": 1, "round": 1, "seat": 1,
                                                  "card": "[red]x\x1b[2J", "total": 2}])),
    *[(f"a {kind} event without its fields", with_(state(), events=[{"type": kind}]))
      for kind in ("deal", "draw", "round_lost", "points", "game_over", "tokens", "tie", "eliminated", "dealer",
                   "reshuffle", "double", "unseen_shuffled", "play")],
    ("a round lost for no known reason", with_(state(), events=[{"type": "round_lost", "round": 1, "seat": 0,
                                                                 "reason": "x", "total": 100}])),
    ("a dealer by high card without its draws", with_(state(), events=[{"type": "dealer", "seat": 0,
                                                                        "method": "high-card"}])),
    ("game over standings a string", with_(state(), events=[{"type": "game_over", "winner": 0,
                                                             "standings": "x"}])),
    ("points' rows of cards that do not exist", with_(state(), events=[{"type": "points", "round": 1, "breakdown": [
        {"seat": 0, "cards": [["zz", 5]], "missing": 0, "loser_penalty": 0, "gained": 5, "score": 5}]}])),
]


def reader_of(*lines: bytes) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    for line in lines:
        reader.feed_data(line)
    reader.feed_eof()
    return reader


@pytest.mark.parametrize("what, message", BAD, ids=[w for w, _ in BAD])
async def test_a_message_the_client_cannot_read_is_refused_as_it_is_read(what, message):
    client = Client(reader_of(encode(state()), encode(message)), None)
    client.welcome, client.address_said = {"type": "welcome", "version": 1}, "example.org:7099"
    with pytest.raises(ProtocolError) as exc:  # (after a good state: the table's rules are known)
        assert (await client.recv())["type"] == "state"
        await client.recv()
    said = str(exc.value)
    assert said.startswith("example.org:7099 sent a message this ono99 cannot read (") and "\n" not in said, said
    assert "\x1b" not in said


def test_what_a_real_server_sends_is_read():
    for message in (state(), state(None), with_(state(), full=False, view={
            k: v for k, v in VIEW.items() if k != "rules"}), {"type": "table", "table": table(), "seat": 0},
                    {"type": "table", "table": table(), "seat": None}, {"type": "tables", "tables": [table(False)]},
                    {"type": "welcome", "version": 1, "server": "ono99 x", "name": "Ann", "password": False},
                    {"type": "ok", "table": 1, "game": "3f9c"}, {"type": "ok", "seq": 3, "duplicate": True},
                    {"type": "error", "code": "stale", "message": "no", "re": 4}, {"type": "pong", "re": "x"},
                    {"type": "closing", "message": "bye", "kept": True}, {"type": "notice", "message": "hi"},
                    {"type": "kicked", "message": "you joined this seat from somewhere else"}):
        assert decode(encode(message)) == json.loads(encode(message))


async def test_a_state_without_rules_before_any_with_them_is_refused_as_it_is_read():
    lean = with_(state(), full=False, view={k: v for k, v in VIEW.items() if k != "rules"})
    client = Client(reader_of(encode(lean)), None)
    client.welcome, client.address_said = {"type": "welcome", "version": 1}, "h:1"
    with pytest.raises(ProtocolError, match="cannot read"):
        await client.recv()


def test_a_view_that_cannot_be_is_refused_by_view_from_dict_too():
    for what, message in BAD:
        if message["type"] == "state" and isinstance(message.get("view"), dict) and message["view"] != VIEW \
                and message.get("seat") == message["view"].get("seat"):
            with pytest.raises(ProtocolError):
                view_from_dict(message["view"])


async def test_a_table_whose_server_sends_a_view_it_cannot_read_ends_without_dialling_back():
    """A bad state mid-game: the table ends, saying why, rather than dialling the same server back
    for 15 minutes (each time to be sent the same)."""
    reader = asyncio.StreamReader()
    reader.feed_data(encode(state()))
    client = Client(reader, None)
    client.welcome, client.address_said = {"type": "welcome", "version": 1}, "h:1"
    remote = RemoteTable(client, 1, 0, await client.recv())
    reader.feed_data(encode(state(hand=5) | {"full": False}))
    dialled = []

    async def redial():
        dialled.append(1)
        raise OSError("no")
    remote.redial = redial
    lost = asyncio.get_running_loop().create_future()
    remote.on_lost = lambda why, how: lost.set_result((why, how))
    remote.client.close = lambda: None
    remote.start()
    why, how = await asyncio.wait_for(lost, 10)
    assert "h:1 sent a message this ono99 cannot read" in why and how == "unreadable" and not dialled


# -- as a user runs it --------------------------------------------------------------------
class FakeServer:
    """A scripted server on a port of its own, in its own thread: a lobby with one table, and
    once the client sits (or watches), the table and its first state; ``hooks`` change any of it."""

    def __init__(self, **hooks):
        self.hooks = hooks
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def start():
            self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, limit=1 << 22)
            self.port = self.server.sockets[0].getsockname()[1]
            ready.set()

        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(start(), self.loop)
        assert ready.wait(10)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)

    connections = 0
    seated = 0  # sits and watches answered

    async def handle(self, reader, writer):
        self.connections += 1  # (dialled again: "again" changes the hooks)
        hooks = self.hooks if self.connections == 1 else {**self.hooks, **self.hooks.get("again", {})}
        watching = False
        try:
            while line := await reader.readline():
                msg = json.loads(line)
                kind, re = msg.get("type"), msg.get("id")
                if kind in hooks.get("silent", ()):  # (a server stuck: never answers these)
                    continue

                def send(m):
                    if isinstance(m, bytes):
                        writer.write(m)
                    else:
                        writer.write(encode({**m, "re": re} if re is not None and m["type"] in (
                            "welcome", "tables", "ok", "pong", "error") else m))

                if kind == "hello":
                    send(hooks.get("welcome", {"type": "welcome", "version": 1, "server": "fake", "name": msg["name"],
                                               "password": False, **({"resumed": False} if "token" in msg else {})}))
                    for after in hooks.get("resumed", []):  # (a seat taken back: its table and state)
                        send(after)
                elif kind == "tables":
                    send(hooks.get("tables", {"type": "tables", "tables": [table(started=watching)]}))
                elif kind == "ping":
                    send({"type": "pong"})
                elif kind in ("sit", "watch"):
                    self.seated += 1
                    seat = 0 if kind == "sit" else None
                    send(hooks.get("sit_ok", {"type": "ok", "table": 1, "seat": 0, "token": "tok"}) if kind == "sit"
                         else {"type": "ok", "table": 1, "game": "g1"})
                    send(hooks.get("table", {"type": "table", "table": table(), "seat": seat}))
                    if hooks.get("state", True):  # (False: the game has not started)
                        send(hooks.get("state", state(seat)))
                    for later in hooks.get("later", []):
                        send(later)
                    if hooks.get("drop"):  # (the connection lost: the client dials again)
                        await writer.drain()
                        return
                elif kind in ("stand", "bots", "start", "create"):
                    send({"type": "ok"})
                await writer.drain()
        except (ConnectionError, ValueError):
            pass
        finally:
            try:
                writer.close()
            except RuntimeError:  # (a connection a silent server still held when its loop stopped:
                pass  # closed by the garbage collector after the test, "Event loop is closed")


@pytest.fixture
def fake():
    servers = []

    def start(**hooks) -> FakeServer:
        servers.append(FakeServer(**hooks))
        return servers[-1]
    yield start
    for server in servers:
        server.close()


# ono99 with a client that asks a silent server whether it is there after 0.3 s, not 15 (and
# gives it 0.3 s to answer): what a stuck server does is seen in a test's time
PATIENT_LITTLE = ["-c", "import sys; from ono99_tui.net import client; client.PING_AFTER = client.PONG_WITHIN = 0.3; "
                  "from ono99_tui.cli import main; sys.exit(main())"]


def on_a_terminal(argv: list[str], deadline: float = 60.0, python=("-m", "ono99_tui"), until=None) -> tuple[int, str]:
    """``ono99 ARGV`` on an 80x24 PTY until it exits (killed, and the test failed, after
    ``deadline``: a hang); (exit status, what it wrote). ``until()``: true once it has done
    what the test waits for (it is killed then)."""
    import fcntl
    import pty
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, *python, *argv])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    out, end = bytearray(), time.monotonic() + deadline
    while time.monotonic() < end:
        if until is not None and until():
            os.kill(pid, signal.SIGKILL)
            break
        if select.select([fd], [], [], 0.5)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            out += chunk
    else:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    text = out.decode(errors="replace")
    assert time.monotonic() < end, f"still running after {deadline} s: {text[-2000:]}"
    return os.waitstatus_to_exitcode(status), text


# where the server goes wrong -> its hooks, for a seat (0) or a watcher (None)
HOSTILE = {
    "the tables": lambda seat: {"tables": {"type": "tables", "tables": "nope"}},
    "a table's seats": lambda seat: {"tables": {"type": "tables", "tables": [with_(table(seat is None), seats="x")]}},
    "the lobby's table": lambda seat: {"table": {"type": "table", "table": with_(table(), seats=[{}, {}]),
                                                 "seat": seat}},
    "the first state": lambda seat: {"state": state(seat, hand_sizes=[1])},
    "an event": lambda seat: {"state": with_(state(seat), events=[{"type": "deal"}])},
    "a later state": lambda seat: {"later": [with_(state(seat, total="x"), full=False)]},
    "the seat": lambda seat: {"table": {"type": "table", "table": table(), "seat": 1}},  # (the state: seat 0's)
    "a turn without cards": lambda seat: {"later": [with_(state(seat, current=0, hand=[], hand_sizes=[0, 4]),
                                                         full=False)]},
    "the view's names": lambda seat: {"state": state(seat, names=["A" * 5000, "B"])},
}


@pytest.mark.parametrize("where", list(HOSTILE))
@pytest.mark.parametrize("command", [["join", "--plain", "--name", "Ann"], ["watch", "--plain"]])
def test_lines_at_a_server_that_sends_what_they_cannot_read_say_so_in_one_line(where, command, fake):
    server = fake(**HOSTILE[where](None if command[0] == "watch" else 0))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # (standard input open and silent, as a player's who has typed nothing: its end would end lines first)
        proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", command[0], f"127.0.0.1:{server.port}",
                                 *command[1:]], stdin=subprocess.PIPE, stdout=out, stderr=err)
        try:
            status = proc.wait(60)
        finally:
            proc.kill()
            proc.stdin.close()
        out.seek(0)
        err.seek(0)
        said, stderr = out.read().decode(), err.read().decode()
    assert "Traceback" not in stderr and status == 2, (status, said, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ono99: 127.0.0.1:{server.port} sent a message this ono99 "
                                                   "cannot read ("), stderr


@pytest.mark.parametrize("where", list(HOSTILE))
@pytest.mark.parametrize("command", [["join", "--name", "Ann"], ["watch"]])
def test_the_table_screen_at_a_server_that_sends_what_it_cannot_read_says_so_in_one_line(where, command, fake):
    server = fake(**HOSTILE[where](None if command[0] == "watch" else 0))
    status, text = on_a_terminal([command[0], f"127.0.0.1:{server.port}", *command[1:]])
    assert "Traceback" not in text, text
    assert status == 2, text[-2000:]
    shown = text.rsplit("\x1b[?1049l", 1)[-1]  # (what stays on the terminal once the screen has gone)
    assert f"ono99: 127.0.0.1:{server.port} sent a message this ono99 cannot read (" in shown, text[-2000:]


# a connection lost, and dialled again: what the server answers then
AGAIN = {
    "in the lobby, a seat": {"state": False, "drop": True, "again": {"drop": False, "sit_ok": {"type": "ok"}}},
    "mid-game, a welcome": {"drop": True, "again": {"welcome": {"type": "welcome", "version": "1"}}},
    "mid-game, a state": {"drop": True, "again": {"welcome": {"type": "welcome", "version": 1, "resumed": True},
                                                  "resumed": [{"type": "table", "table": table(), "seat": 0},
                                                              state(hand=5)]}},
}


@pytest.mark.parametrize("where", list(AGAIN))
@pytest.mark.parametrize("plain", [[], ["--plain"]])
def test_a_server_dialled_again_that_sends_what_the_client_cannot_read_ends_it_in_one_line(where, plain, fake):
    """Before: lines waited for ever (the lobby's reader ended on it, unheard); the table screen
    dialled the same server again and again for 15 minutes."""
    server = fake(**AGAIN[where])
    status, text = on_a_terminal(["join", f"127.0.0.1:{server.port}", "--name", "Ann", *plain])
    shown = text.rsplit("\x1b[?1049l", 1)[-1]
    assert "Traceback" not in text and status == 2, text[-2000:]
    assert "ono99: " in shown and (f"127.0.0.1:{server.port} sent a message this ono99 cannot read (" in shown or
                                   f"127.0.0.1:{server.port} does not answer as an ono99 table server" in shown), shown
    assert server.connections == 2  # (once dialled again: not again and again)


@pytest.mark.parametrize("command", [["join", "--name", "Ann"], ["join", "--plain", "--name", "Ann"], ["watch"],
                                     ["watch", "--plain"]])
def test_a_server_listing_a_thousand_tables_is_told_in_a_line_of_some_length(command, fake):
    """Before: every table waiting, named in full, in one line (a server's 1000 tables named with
    2000 characters each: 2 MB of error on the terminal)."""
    many = [with_(table(command[0] == "watch"), id=i, name=f"T{i} " + "x" * 1990) for i in range(1, 1001)]
    server = fake(tables={"type": "tables", "tables": many})
    status, text = on_a_terminal([command[0], f"127.0.0.1:{server.port}", *command[1:]])
    assert status == 2 and "Traceback" not in text, text[-2000:]
    said = text.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("ono99: several tables") and len(said[0]) < 2000, said
    assert "and 980 more" in said[0], said[0][-300:]


async def test_a_table_that_fails_in_this_client_says_so_and_keeps_the_seat():
    """A bug here (a screen's update raising) was told as the server's: "... This server keeps no
    table once it stops, so the game ends here (your seat is not kept)", and the seat's token was
    forgotten, though the server keeps the seat."""
    from ono99_tui.net.lobby import JoinPlan
    from ono99_tui.tui.join import JoinApp

    reader = asyncio.StreamReader()
    reader.feed_data(encode(state()))
    client = Client(reader, None)
    client.welcome, client.address_said = {"type": "welcome", "version": 1}, "h:1"
    remote = RemoteTable(client, 1, 0, await client.recv())
    remote.client.close = lambda: None

    def broken(update):
        raise IndexError("list index out of range")
    remote.subscribe(broken, 0)
    lost = asyncio.get_running_loop().create_future()
    remote.on_lost = lambda why, how: lost.set_result((why, how))
    remote.start()
    reader.feed_data(encode(with_(state(), full=False)))
    why, how = await asyncio.wait_for(lost, 10)
    assert how == "failed" and why.startswith("ono99 failed while reading the table's messages (IndexError"), why
    app = JoinApp(JoinPlan("h", 1, "Ann", keep=True))
    app.remote, app.token = remote, "tok"
    forgotten = []
    app._forget = lambda: forgotten.append(1)
    assert app._seat_kept(why, how) == why and not forgotten


@pytest.mark.parametrize("command", [["join", "--name", "Ann"], ["join", "--plain", "--name", "Ann"], ["watch"],
                                     ["watch", "--plain"]])
def test_a_server_that_stops_answering_before_the_table_opens_is_told_in_one_line(command, fake):
    """A server that took the connection and the hello, then never answered the seat (or the
    watch): the table screen showed "Connecting..." until Escape."""
    server = fake(silent={"sit", "watch"})
    status, text = on_a_terminal([command[0], f"127.0.0.1:{server.port}", *command[1:]], python=PATIENT_LITTLE)
    shown = text.rsplit("\x1b[?1049l", 1)[-1]  # (what stays on the terminal once the screen has gone)
    assert status == 2 and "Traceback" not in text, text[-2000:]
    said = shown.strip().splitlines()
    assert len(said) == 1 and "ono99: " in said[0] and (
        f"127.0.0.1:{server.port} did not answer for 1 s" in said[0] or "no answer" in said[0]), said


@pytest.mark.parametrize("plain", [[], ["--plain"]])
def test_a_server_gone_silent_in_the_lobby_is_noticed_and_dialled_again(plain, fake):
    """Waiting in the lobby for the game to start, a server stuck (or a connection dead without a
    word) was never noticed: "Waiting for players" stayed up for good. It is asked whether it is
    there, as at a table, and dialled again when it does not answer."""
    server = fake(state=False, silent={"ping"})
    on_a_terminal(["join", f"127.0.0.1:{server.port}", "--name", "Ann", *plain], python=PATIENT_LITTLE,
                  until=lambda: server.seated >= 2)
    assert server.seated >= 2  # (seated, the silence noticed, and seated again)
