"""The wire format: framing with a size limit, checked messages with specific errors, views
round-trip; and `ono99 serve` as a user starts and stops it."""

import json
import re
import os
import signal
import subprocess
import sys
import asyncio

import pytest

from ono99_tui.engine.record import SeatSpec
from ono99_tui.net.client import Client, split_address
from ono99_tui.net.protocol import (MAX_LINE, LineBuffer, ProtocolError, encode, encode_state, parse,
                                    view_from_dict, view_public_json, view_to_dict)
from ono99_tui.table import TableSession

from .cli import ono99


def test_lines_are_split_and_an_oversized_one_is_refused_once_without_being_held():
    buf = LineBuffer(limit=10)
    assert buf.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert buf.feed(b':2}\n') == [b'{"b":2}']
    assert buf.feed(b"x" * 25) == [None]  # refused as soon as it passes the limit
    assert buf.feed(b"x" * 1000) == [] and len(buf._buf) == 0
    assert buf.feed(b"xx\nok\n") == [b"ok"]
    assert buf.feed(b"y" * 11 + b"\nfine\n") == [None, b"fine"]


@pytest.mark.parametrize("line, code, words", [
    (b"{", "bad_json", "not JSON"),
    (b"[1]", "bad_message", "JSON object"),
    (b'{"type": 3}', "bad_message", "\"type\""),
    (b'{"type": "dance"}', "unknown_type", "unknown message type 'dance'; types are hello"),
    (b'{"type": "sit"}', "bad_message", "sit: missing 'table'"),
    (b'{"type": "sit", "table": "1"}', "bad_message", "sit: 'table' must be an integer"),
    (b'{"type": "sit", "table": true}', "bad_message", "'table' must be an integer"),
    (b'{"type": "play", "card": "5", "seq": 1, "force": 1}', "bad_message", "unknown field 'force' (fields: card, seq)"),
    (b'{"type": "hello", "version": 1, "name": "' + b"n" * 300 + b'"}', "bad_message", "longer than"),
    (b'{"type": "sit", "table": 99999999999}', "bad_message", "out of range"),
    (b"\xff\xfe", "bad_json", "UTF-8"),
    (b'{"type": "ping", "id": 1180591620717411303424}', "bad_message", "a 32-bit integer"),  # (it was echoed)
    (b"[" * 8000, "bad_json", "not JSON this server reads: nested too deep"),  # (not Python's words)
    (b"x" * (MAX_LINE + 1), "too_long", "at most"),
])
def test_a_bad_message_gets_a_specific_error(line, code, words):
    with pytest.raises(ProtocolError, match=re.escape(words)) as exc:
        parse(line)
    assert exc.value.code == code


def test_what_goes_on_the_wire_is_ascii_json_without_control_characters():
    wire = encode({"type": "table", "name": "\x1b[2J[@click=app.quit]ü"})
    assert wire.endswith(b"\n") and b"\x1b" not in wire and wire.isascii()
    assert json.loads(wire)["name"] == "\x1b[2J[@click=app.quit]ü"


def test_a_view_survives_the_round_trip():
    table = TableSession([SeatSpec("A"), SeatSpec("B", "bot:easy")], seed=3)
    view = table.view_for(0)
    assert view_from_dict(json.loads(encode(view_to_dict(view)))) == view
    with pytest.raises(ProtocolError, match="cannot be read"):
        view_from_dict({"seat": 0})
    # a state after the first leaves the rules out: they never change during a game
    lean = json.loads(encode(view_to_dict(view, with_rules=False)))
    assert "rules" not in lean and view_from_dict(lean, view.rules) == view
    with pytest.raises(ProtocolError, match="without rules"):
        view_from_dict(lean)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_state_encoded_with_a_shared_public_part_is_the_state_itself(seed):
    """The server encodes a change's public view once and splices each seat's own part in
    (net/server.py). Every update of a whole game, to every seat and a spectator, must read
    back as exactly that seat's own state: nothing of the seat whose view
    the public part was taken from can reach another (SEAT_FIELDS are all that differ)."""
    from ono99_tui.table import BotTurn

    table = TableSession([SeatSpec("Zo\u00eb [b]\u7532"), SeatSpec("B", "bot:easy"), SeatSpec("C", "bot:medium"),
                          SeatSpec("D", "bot:easy")], seed=seed)
    changes: dict[int, list] = {}
    for seat in (None, 3, 0, 2, 1):  # the first told (here a spectator) gives the public part
        table.subscribe(lambda u: changes.setdefault(u.change, []).append(u), seat)
    checked = 0
    while not table.over:
        step = table.next_step()
        if isinstance(step, BotTurn):
            table.submit(step.seat, step.decide(), step.seq)
        else:
            table.submit(step.seat, table.view_for(step.seat).legal_plays()[0], step.seq)
    assert len(changes) > 50 and all(len(us) == 5 for us in changes.values())  # one number per change
    for number, updates in changes.items():
        public = view_public_json(updates[0].view)
        for u in updates:
            wire = encode_state(7, u.seat, number, u.view, public, u.events)
            assert json.loads(wire) == json.loads(encode({"type": "state", "table": 7, "seat": u.seat, "seq": number,
                                   "view": view_to_dict(u.view, with_rules=False), "events": u.events,
                                   "full": False}))
            assert wire.endswith(b"\n") and wire.count(b"\n") == 1 and wire.isascii() and b"\x1b" not in wire
            assert view_from_dict(json.loads(wire)["view"], table.rules) == u.view
            checked += 1
    assert checked == 5 * len(changes)


@pytest.mark.parametrize("text, expected", [("example.org", ("example.org", 7099)), ("h:1234", ("h", 1234)),
                                            ("[::1]:9", ("::1", 9)), ("[::1]", ("::1", 7099)),
                                            ("::1", ("::1", 7099)), ("fe80::1%eth0", ("fe80::1%eth0", 7099))])
def test_addresses(text, expected):
    assert split_address(text, 7099) == expected


@pytest.mark.parametrize("text, words", [("h:x", "must be a number"), ("h:70000", "1 to 65535"), (":5", "no host"),
                                         ("[::1", "brackets"), ("http://example.org", "not a web address"),
                                         ("https://h:8000/", "not a web address"),
                                         ("127.0.0.1:47101:5", "with one ':'")])
def test_bad_addresses_say_what_is_wrong(text, words):
    with pytest.raises(ValueError, match=words):
        split_address(text, 7099)


def test_serve_listens_on_loopback_and_a_sigterm_tells_players_and_stops(tmp_path):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", "serve", "--port", "0", "--no-save"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert "listening on 127.0.0.1:" in line, line + proc.stderr.read()
        port = int(line.split("127.0.0.1:")[1].split()[0])

        async def visit():
            c = await Client.connect("127.0.0.1", port, "Ann")
            assert (await c.request({"type": "ping"}))["type"] == "pong"
            proc.send_signal(signal.SIGTERM)
            return await c.recv()

        closing = asyncio.run(asyncio.wait_for(visit(), 20))
        assert closing["type"] == "closing" and "shutting down" in closing["message"]
        assert proc.wait(timeout=20) == 0
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_says_whether_it_saves_games_and_never_that_it_does_under_no_save():
    """A stranger's find: `ono99 serve --no-save` said "games are saved" as it started."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for flags, end in [([], "games are saved)"),
                       (["--no-save"], "--no-save: games are not saved, and end when it stops)")]:
        proc = subprocess.Popen([sys.executable, "-m", "ono99_tui", "serve", "--port", "0", *flags],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            line = proc.stdout.readline()
        finally:
            proc.terminate()
            proc.wait(20)
        assert re.fullmatch(r"ono99 serve: listening on 127\.0\.0\.1:\d+ \(Ctrl\+C or SIGTERM stops it; "
                            + re.escape(end) + "\n", line), line
        assert "Traceback" not in proc.stderr.read()


def test_serve_refuses_bad_options_in_one_line():
    for args, words in [(["--port", "70000"], "--port must be a whole number from 0 to 65535, got 70000"),
                        (["--turn-timer", "-1"], "--turn-timer must be 0 to 86400 seconds, got -1"),
                        (["--lobby-timeout", "-1"], "--lobby-timeout must be 0 to 604800 seconds, got -1")]:
        proc = ono99("serve", *args)
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_the_password_can_come_from_a_file_and_a_bad_one_is_one_line(tmp_path):
    from ono99_tui.cli import _server_config, build_parser

    pw = tmp_path / "pw"
    pw.write_text("s3cret\n")
    args = build_parser().parse_args(["serve", "--password-file", str(pw)])
    assert _server_config(args).password == "s3cret"
    pw.write_bytes(b"s3cret\r\n")  # (a file from a Windows editor)
    assert _server_config(build_parser().parse_args(["serve", "--password-file", str(pw)])).password == "s3cret"
    (tmp_path / "empty").write_text("\n")
    # a space taken off was one a player who copied the file's line typed and was refused for
    (tmp_path / "spaced").write_text("s3cret \n")
    (tmp_path / "lines").write_text("s3cret\nother\n")
    for extra, words in [(["--password-file", str(tmp_path / "empty")], "is empty"),
                         (["--password-file", str(tmp_path / "spaced")], "begins or ends with a space or tab"),
                         (["--password-file", str(tmp_path / "lines")], "more than one line"),
                         (["--password-file", str(tmp_path / "missing")], "missing"),
                         (["--password", "x", "--password-file", str(pw)], "not both")]:
        proc = ono99("serve", *extra)
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    # --password "$PW" with PW unset: a server that said it asked a password let anyone in
    for command in ("serve", "host", "web"):
        for empty in ("", "  "):
            proc = ono99(command, "--password", empty, "--port", "0")
            assert proc.returncode == 2 and proc.stderr == "ono99: --password is empty: give a password, or " \
                "leave --password out for a server anyone may join\n", (command, proc.stderr)


@pytest.mark.parametrize("answer, words", [(b"HTTP/1.0 400 Bad Request\r\n\r\n", "does not answer as an ono99 table server"),
                                           (b"SSH-2.0-OpenSSH_9.6\r\n", "does not answer as an ono99 table server"),
                                           (b"", "cannot connect to 127.0.0.1:")])
@pytest.mark.parametrize("command", [["join", "--name", "Zed"], ["watch"], ["join", "--plain", "--name", "Zed"]])
def test_join_and_watch_at_something_that_is_not_an_ono99_server_say_so_in_one_line(answer, words, command):
    """A play-tester pointed `ono99 join` at a web server: a ProtocolError traceback, exit 1."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(4096)
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        proc = ono99(command[0], f"127.0.0.1:{port}", *command[1:])
    finally:
        listener.close()
    assert proc.returncode == 2, proc.stderr
    assert words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_field_the_server_refuses_is_answered_to_the_request_that_sent_it():
    """A play-tester's find: a refused field (out of range, wrong type, too long) was answered
    without "re", so a client waiting on its request heard nothing, waited out its timeout and
    blamed the connection (ono99 watch --table 2147483648: "no answer" after 30 s)."""
    from .netplay import serving

    async def main():
        async with serving() as server:
            client = await Client.connect("127.0.0.1", server.port, "Ann")
            for msg, words in [({"type": "watch", "table": 2**31}, "'table' is out of range"),
                               ({"type": "sit", "table": "1"}, "'table' must be an integer"),
                               ({"type": "create", "name": "x" * 500}, "longer than"),
                               ({"type": "tables", "colour": 1}, "unknown field 'colour'")]:
                with pytest.raises(Exception, match=words):
                    await asyncio.wait_for(client.request(msg), 10)  # (answered: no wait for a timeout)
            assert parse(b'{"type": "sit", "table": 1, "id": 7}')["id"] == 7
            with pytest.raises(ProtocolError) as exc:
                parse(b'{"type": "sit", "table": 99999999999, "id": 7}')
            assert exc.value.re == 7
            await client.aclose()
    asyncio.run(main())


@pytest.mark.parametrize("command", [["join", "--name", "Zed"], ["join", "--plain", "--name", "Zed"], ["watch"],
                                     ["watch", "--plain"]])
def test_a_table_number_the_server_cannot_have_is_refused_before_connecting(command):
    for table in ("2147483648", "0", "-3"):
        proc = ono99(*command, "127.0.0.1:9", "--table", table)
        assert proc.returncode == 2 and proc.stderr == \
            f"ono99: --table must be a table number, 1 or more (ono99 watch lists them), got {table}\n", proc.stderr


@pytest.mark.parametrize("plain", [[], ["--plain"]])
def test_a_seat_token_the_server_cannot_read_is_refused_before_connecting(plain, monkeypatch):
    monkeypatch.setenv("ONO99_SEAT_TOKEN", "t" * 300)
    proc = ono99("join", "127.0.0.1:9", "--name", "Zed", *plain)
    assert proc.returncode == 2 and proc.stderr.startswith("ono99: ONO99_SEAT_TOKEN must be at most 200 printable"), \
        proc.stderr
