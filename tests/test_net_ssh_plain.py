"""`ssh -p 2222 HOST plain` and SSH sessions without a PTY: the plain front end, over asyncssh's
own client in-process (as tests/test_net_ssh.py does), its raw bytes checked; the gateway's
line-length limit, rate limit, idle timeout and stop line; other commands still refused."""

from __future__ import annotations

import asyncio
import os
import re
import time

import asyncssh
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.net.lines import LineInput, LineOutput
from ono99_tui.plain import words as W

from .netplay import HOST
from .test_net_ssh import Gate, keys  # noqa: F401 - (a fixture)
from .test_plain import assert_plain_bytes


class Lines:
    """A plain session's output: every byte kept (``raw``), read until a line matches."""

    def __init__(self, process):
        self.process, self.raw, self.seen = process, b"", 0

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8")

    async def until(self, pattern: str, limit: float = 30.0, after: int | None = None) -> re.Match:
        """The first match of ``pattern`` (a line, re.M) in what is said after offset ``after``
        (by default: after the last match)."""
        start = self.seen if after is None else after
        deadline = time.monotonic() + limit
        while True:
            m = re.compile(pattern, re.M).search(self.text, start)
            if m:
                self.seen = m.end()
                return m
            if time.monotonic() > deadline:
                raise AssertionError(f"never said {pattern!r}; said:\n{self.text[-2500:]}")
            try:
                data = await asyncio.wait_for(self.process.stdout.read(65536), 1.0)
            except TimeoutError:
                continue
            except (asyncssh.Error, OSError):
                data = b""
            if not data:
                m = re.compile(pattern, re.M).search(self.text, start)
                if m:
                    return m
                raise AssertionError(f"the session ended without saying {pattern!r}:\n{self.text[-2500:]}")
            self.raw += data

    async def rest(self, limit: float = 30.0) -> bytes:
        """Everything until the session ends."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                data = await asyncio.wait_for(self.process.stdout.read(65536), 1.0)
            except TimeoutError:
                continue
            except (asyncssh.Error, OSError):
                return self.raw
            if not data:
                return self.raw
            self.raw += data
        raise AssertionError(f"the session never ended: {self.text[-500:]}")

    def type(self, text: str) -> None:
        self.process.stdin.write(text.encode())


def connect(g, key, username="ann", **kw):
    return asyncssh.connect(HOST, g.port, username=username, client_keys=[key], known_hosts=None, agent_path=None,
                            **kw)


async def play_turns(s: Lines, turns: int) -> None:
    """Sit's done: fill with bots, start, and play ``turns`` turns by typing a card's number (one
    that does not lose the round, when there is one)."""
    await s.until(r"^Table 1, rules standard: seat 1, ann, you; seat 2, empty")
    s.type("b\n")
    await s.until(r"^Table 1, .*seat 2, .*bot")
    s.type("s\n")
    await play_turns_seated(s, turns)


@pytest.mark.parametrize("how", ["plain command", "shell without a PTY"])
async def test_a_plain_session_reaches_the_lobby_sits_starts_with_bots_and_plays_turns_in_lines(tmp_path, keys, how):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as conn:
            command = "plain" if how == "plain command" else None
            process = await conn.create_process(command, encoding=None)  # (no PTY asked for)
            s = Lines(process)
            await s.until(r"^Seated at table 1, seat 1\.$")
            await play_turns(s, 3)
            (table,) = g.server.tables.values()
            assert table.seats[0].name == "ann" and table.session is not None
            (pgid,) = g.gate.children
            with open(f"/proc/{pgid}/stat") as f:  # forked from the gate's zygote (net/zygote.py)...
                assert int(f.read().rsplit(")", 1)[1].split()[1]) == g.gate.zygote.pid
            with open(f"/proc/{pgid}/comm", "rb") as f:  # ...so its command line is the zygote's
                assert f.read().strip() == b"ono99 session"
            s.type("q\n")  # leaving: the seat is kept, the session ends by itself, status 0
            out = await s.rest()
            assert "You left the table. Your seat is kept" in out.decode()
        assert process.exit_status == 0
        assert_plain_bytes(out)  # nothing below 0x20 but the newline, no ESC, no C1, in all of it
        assert not g.gate.children


async def test_a_plain_session_whose_name_is_taken_is_told_to_log_in_as_another_user_not_to_use_name(tmp_path):
    """A second `ssh ann@HOST plain` at the table where ann sits was told "connect with another
    --name": an option an SSH player never gives (the full screen said how to take another name)."""
    async with Gate(tmp_path, None, open=True) as g:  # (--open: two strangers may call themselves ann)
        def stranger():
            return asyncssh.connect(HOST, g.port, username="ann", client_keys=None, known_hosts=None, agent_path=None)

        async with stranger() as first, stranger() as second:
            sitting = Lines(await first.create_process("plain", encoding=None))
            await sitting.until(r"^Seated at table 1, seat 1\.$")
            again = await second.create_process("plain", encoding=None)
            out = (await Lines(again).rest()).decode()
            assert "someone called 'ann' already sits at this table; log in as another user (ssh OTHER@HOST) " \
                   "to take another name" in out, out
            assert "--name" not in out


async def test_another_command_or_a_subsystem_is_still_refused(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as conn:
            for command in ("plain ", "plain; sh", "PLAIN", "sh -c plain", "ono99 --plain"):
                result = await conn.run(command, encoding=None)
                assert result.exit_status == 1 and b"only plays O'NO 99" in result.stderr, command
                assert result.stdout == b""
            with pytest.raises(asyncssh.ChannelOpenError):
                await conn.start_sftp_client()
            result = await conn.run("cat /etc/passwd", term_type="xterm", encoding=None)  # with a PTY too
            assert result.exit_status == 1 and b"only plays O'NO 99" in result.stdout + result.stderr
        assert not g.gate.children and g.gate.sessions == 0


async def test_an_over_long_line_is_refused_in_one_line_and_the_session_goes_on(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as conn:
            process = await conn.create_process("plain", encoding=None)
            s = Lines(process)
            await s.until(r"^Type b to fill")
            # 300 characters (and no newline yet: it is refused at once, not when it ends), then 1 MiB more
            s.type("b" * 300)
            await s.until(r"^ono99: a line longer than 200 characters is not read: type it again, shorter$")
            s.type("x" * (1 << 20) + "\nb\n")
            await s.until(r"^Table 1, .*seat 2, .*bot")  # the line after it is read
            assert s.text.count("longer than 200") == 1
            # nothing of it reached the game: it would have said it does not know the command
            assert "The game has not started" not in s.text
            s.type("q\n")
            out = await s.rest()
        assert_plain_bytes(out)


async def test_escape_bytes_typed_never_come_back_and_a_flood_of_lines_is_cut_with_one_line(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, input_rate=50.0, input_burst=200) as g:
        async with connect(g, client_key) as conn:
            process = await conn.create_process("plain", encoding=None)
            s = Lines(process)
            await s.until(r"^Type b to fill")
            # a name-like line full of escapes: the game says it is no command, as text
            s.type("\x1b[31m\x1b]0;owned\x07\x9bzz\r\n")
            await s.until(r"^The game has not started: type b, s, w or q\.$")
            before = s.text.count("The game has not started")
            s.type("zz\n" * 500)  # 1500 bytes at once, past a burst of 200: cut, said once
            await s.until(r"^ono99: typing faster than anyone types: lines are dropped")
            await asyncio.sleep(1)  # (the bucket refills)
            s.type("q\n")
            out = await s.rest()
        said = s.text.count("The game has not started") - before
        assert 50 <= said <= 80, said  # about 200 bytes' worth of lines got through, and not one more
        assert s.text.count("typing faster") == 1
        assert "You left the table." in s.text  # the line after it came through
        assert_plain_bytes(out)


async def test_an_idle_plain_session_ends_with_one_line_saying_why(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, idle_timeout=2.0) as g:
        async with connect(g, client_key) as conn:
            process = await conn.create_process("plain", encoding=None)
            s = Lines(process)
            await s.until(r"^Type b to fill")
            out = await s.rest()
        assert out.decode().splitlines()[-1] == "ono99: nothing typed for 2 seconds: the session has ended"
        assert_plain_bytes(out)
        assert not g.gate.children


async def test_a_server_stop_mid_game_says_why_in_one_line_and_the_same_key_comes_back(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized, server={"save": True, "resume": True}) as g:
        conn = await connect(g, client_key)
        async with conn:
            process = await conn.create_process("plain", encoding=None)
            s = Lines(process)
            await play_turns(s, 1)
            stopping = asyncio.ensure_future(g.stop())
            out = await s.rest()
            await stopping
        assert out.decode().splitlines()[-1] == ("ono99: the server is restarting; your seat is kept: connect again "
                                                 "with the same key to come back to it"), out.decode()[-1500:]
        assert process.exit_status == 2
        assert_plain_bytes(out)
        assert not g.gate.children


async def test_the_end_of_input_is_leaving_after_every_line_typed_before_it(tmp_path, keys):
    """`ssh HOST plain < moves.txt`: the lines are played in order, then the session ends by itself."""
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as conn:
            process = await conn.create_process("plain", encoding=None)
            s = Lines(process)
            await s.until(r"^Type b to fill")
            s.type("b\ns\n" + "1\n1\n\n" * 3)
            process.stdin.write_eof()
            out = (await s.rest()).decode()
        assert "Your turn" in out and "\nann: " in out, out
        assert out.splitlines()[-1].startswith("End of input. Your seat is kept")
        assert process.exit_status == 0


async def test_ssh_t_plain_echoes_what_is_typed_and_edits_it_as_a_terminal_would(tmp_path, keys):
    """With a PTY (ssh -t HOST plain) the player's terminal sends keys, not lines: the gateway echoes
    them, Backspace erases, Enter (CR) ends the line; lines end in CR LF; still no escape out."""
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as conn:
            process = await conn.create_process("plain", term_type="xterm-256color", term_size=(80, 24),
                                                encoding=None)
            s = Lines(process)
            await s.until(r"^Type b to fill.*\r$")
            s.type("x\x7fb\x1b[A\r")  # x, Backspace, b, an arrow key, Enter: the line is "b"
            await s.until(r"^Table 1, .*seat 2, .*bot")
            assert "x\b \bb\r\n" in s.text
            s.type("q\r")
            out = await s.rest()
        assert b"\x1b" not in out
        assert {b for b in out if b < 0x20} <= {0x08, 0x0A, 0x0D}
        assert b"\n" not in out.replace(b"\r\n", b"")


# -- the line gate alone ---------------------------------------------------------------------------
def test_line_input_keeps_crlf_as_one_end_across_chunks_and_refuses_long_lines_at_once():
    gate = LineInput(10, 1e9, 1 << 30, echo=False)
    fed = [gate.feed(chunk) for chunk in (b"1\r", b"\n2\n\r\n", b"\xc3\xa9" * 10, b"\xc3\xa9x", b"yz\n3\n")]
    lines = b"".join(f.lines for f in fed)
    # "é" * 10 is 10 characters (20 bytes): under the limit, until the 11th; the rest of that line is dropped
    assert lines == b"1\n2\n\n3\n"
    notes = [n for f in fed for n in f.notes]
    assert len(notes) == 1 and fed[3].notes  # said when the 11th character came, not at its line's end


@given(st.lists(st.sampled_from([b"a", b"\xc3\xa9", b"\r", b"\n", b"\r\n", b"\x1b[A", b"\x00", b"x" * 7]),
                max_size=60), st.data())
@settings(max_examples=300, deadline=None)
def test_line_input_without_a_pty_cuts_the_same_lines_however_the_bytes_are_chunked(pieces, data):
    typed = b"".join(pieces)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(typed)), max_size=8)))
    chunks = [typed[a:b] for a, b in zip([0, *cuts], [*cuts, len(typed)])]
    whole, cut = LineInput(10, 1e12, 1 << 40, echo=False), LineInput(10, 1e12, 1 << 40, echo=False)
    one = whole.feed(typed)
    many = [cut.feed(c) for c in chunks]
    assert b"".join(f.lines for f in many) == one.lines
    assert sum(len(f.notes) for f in many) == len(one.notes)
    # the reference: split at CR LF, CR or LF; a line over 10 characters never comes through
    ends = re.split(rb"\r\n|\r|\n", typed)[:-1]
    assert one.lines == b"".join(line + b"\n" for line in ends if len(line.decode()) <= 10)


def test_line_input_over_the_rate_drops_whole_lines_and_says_so_once_per_flood():
    gate = LineInput(200, 0.0001, 31, echo=False)
    fed = gate.feed(b"12\n" * 100)
    assert fed.lines == b"12\n" * 10 and fed.notes == [LineInput.SLOW]  # 31 bytes: ten whole lines, not a part of one
    assert gate.feed(b"34\n" * 50).notes == []  # still the same flood: not said again
    keys = LineInput(200, 0.0001, 5, echo=True)  # a PTY: keys past the burst are dropped
    fed = keys.feed(b"123456789\r")
    assert fed.lines == b"" and fed.echo == b"12345" and fed.notes == [LineInput.SLOW]


def test_line_output_lets_only_text_and_newlines_out_even_cut_mid_character():
    out = LineOutput(crlf=False)
    data = "a\x1b[2Jb\tc\x07\u009bd é\r\n".encode()
    got = b"".join(out.text(data[i:i + 1]) for i in range(len(data)))
    assert got == "a[2Jbcd é\n".encode()
    assert out.say("ono99: x") == b"ono99: x\n"
    out.text(b"half")
    assert out.say("why") == b"\nwhy\n"  # on a line of its own


async def test_in_the_lobby_w_lists_the_other_tables_and_w_n_watches_one_s_public_plays(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as a_conn, connect(g, client_key, username="bob") as b_conn:
            ann = Lines(await a_conn.create_process("plain", encoding=None))
            await ann.until(r"^Seated at table 1, seat 1\.$")
            await play_turns(ann, 1)  # table 1 is being played: bob is seated at a new one
            bob = Lines(await b_conn.create_process("plain", encoding=None))
            await bob.until(r"^Seated at table 2, seat 1\.$")
            await bob.until(r"w to watch another table, or q to leave\.$")
            bob.type("w 7\n")
            await bob.until(r"^There is no other table 7 to watch: type w for the list\.$")
            bob.type("w\n")
            await bob.until(r"^Table 1, rules standard, being played: ann, Medium, Medium 2 and Medium 3\.$")
            await bob.until(r"^Type w and a table's number to watch its plays; you give up your seat here\.$")
            bob.type("w 1\n")
            await bob.until(r"^You give up your seat at table 2 to watch table 1\.$")
            await bob.until(r"^You are watching table 1; you hold no cards\.")
            assert "its plays are said once its game starts" not in bob.text  # (it has started)
            await play_turns_seated(ann, 1)
            await bob.until(r"^ann: ")  # ann's play, heard by the watcher
            (table,) = [t for t in g.server.tables.values() if t.id == 1]
            assert len(table.watchers) == 1 and all(s.name != "bob" for s in table.seats)
            bob.type("h\nt\n")
            await bob.until(r"^You are watching: you hold no cards\.")
            await bob.until(r"^Round \d+, total \d+, bust at 99")
            # nothing a watcher is told names a card in anyone's hand
            assert not re.search(r"^\d+: ", bob.text[bob.text.index("You are watching table 1"):], re.M)
            bob.type("q\n")
            out = await bob.rest()
            assert out.decode().splitlines()[-1] == "You stopped watching table 1."
            assert_plain_bytes(out)
            ann.type("q\n")
            await ann.rest()


async def play_turns_seated(s: Lines, turns: int) -> None:
    """Play ``turns`` more turns at a started table (as play_turns does after the lobby)."""
    for _ in range(turns):
        turn = await s.until(r"^Your turn.*\n((?:\d+: .*\n)+)(?:Type a card.*\n)?Which card\?$", limit=60)
        cards = turn.group(1).splitlines()
        good = [line for line in cards if "can't be played" not in line and "busts" not in line] or cards
        number = good[0].split(":")[0]
        s.type(number + "\n")  # (when every card busts, none asks to be confirmed)
        await s.until(r"^ann: ")


async def test_a_dropped_plain_session_comes_back_to_its_seat_with_the_same_key(tmp_path, keys):
    client_key, _, authorized = keys
    async with Gate(tmp_path, authorized) as g:
        async with connect(g, client_key) as conn:
            s = Lines(await conn.create_process("plain", encoding=None))
            await play_turns(s, 1)
        (table,) = g.server.tables.values()
        for _ in range(200):  # the dropped session's connection ends on the server too
            if table.seats[0].conn is None:
                break
            await asyncio.sleep(0.02)
        assert table.seats[0].conn is None and not g.gate.children
        hand = sorted(table.session.game.hands[0])
        async with connect(g, client_key) as conn:
            s = Lines(await conn.create_process("plain", encoding=None))
            await s.until(r"^Back in your seat\.$")
            # (the turn it left: the server waits for it)
            turn = await s.until(r"^Your turn.*\n((?:\d+: .*\n)+)(?:Type a card.*\n)?Which card\?$")
            assert table.seats[0].conn is not None and len(g.server.tables) == 1
            said = [line.split(": ")[1].split(",")[0] for line in turn.group(1).splitlines()]
            assert sorted(said) == sorted(W.card(c) for c in hand)  # the same hand
            assert "Type b to fill" not in s.text  # (no lobby at a game under way)
            s.type("q\n")
            await s.rest()


async def test_plain_sessions_dropped_at_any_moment_leave_no_process_and_no_folder(tmp_path, keys, monkeypatch):
    import tempfile

    client_key, _, authorized = keys
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "homes"))  # the sessions' throwaway homes go here
    (tmp_path / "homes").mkdir()
    async with Gate(tmp_path, authorized, max_per_ip=10) as g:
        seen = set()
        for i, typed in enumerate((None, b"b\n", b"b\ns\n", b"x" * 5000, b"b\ns\n1\n2\n3\n")):
            conn = await connect(g, client_key, username=f"p{i}")  # (each a seat of its own)
            s = Lines(await conn.create_process("plain", encoding=None))
            if typed is not None:
                await s.until(r"^Type b to fill")
                s.process.stdin.write(typed)
            seen |= set(g.gate.children)
            conn.abort()  # gone mid-whatever, without a goodbye
        for _ in range(500):
            if not g.gate.children and not g.gate.sessions:
                break
            await asyncio.sleep(0.02)
        assert not g.gate.children and g.gate.sessions == 0
        assert seen  # (the sessions did run)
        for pgid in seen:
            with pytest.raises(ProcessLookupError):
                os.killpg(pgid, 0)
        assert not list((tmp_path / "homes").iterdir())
