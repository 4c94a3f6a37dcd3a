"""End to end on loopback: three real `ono99 join` front ends, each on its own PTY (its screen
read with pyte), and a bot play a whole game at one table server; every key a player presses
is chosen from what that player's screen shows. The server's record replays to the same result."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time

import pyte

from ono99_tui.net.client import Client

from .netplay import HANG, HOST, serving
from .test_net_play import SHORT, replays_to_same_result

COLS, ROWS = 80, 24
SYNC_QUERY, SYNC_SUPPORTED = b"\x1b[?2026$p", b"\x1b[?2026;2$y"
SYNC_START, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"


class Term:
    """One `ono99 join` in its own session on its own 80x24 PTY; what it draws goes to pyte."""

    def __init__(self, name: str, argv: list[str], env: dict):
        self.name = name
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.master = master
        try:
            self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                         start_new_session=True, close_fds=True)
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.changed = asyncio.Event()
        self.eof = False
        self.raw = bytearray()  # everything it wrote (a crash's traceback is printed after the screen)
        self.lines = list(self.screen.display)  # the last whole frame
        self._tail, self._in_frame = b"", False
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the child closed its end
            data = b""
        if not data:
            self.eof = True
            asyncio.get_running_loop().remove_reader(self.master)
            self._publish()
            return
        self.raw += data
        self.stream.feed(data)
        scan = self._tail + data
        self._tail = scan[-16:]
        if SYNC_QUERY in scan:  # like a real terminal: synchronized output is supported
            os.write(self.master, SYNC_SUPPORTED)
        start, end = scan.rfind(SYNC_START), scan.rfind(SYNC_END)
        if start > end:
            self._in_frame = True
        elif end >= 0:
            self._in_frame = False
        if not self._in_frame:  # only whole frames are read: never a screen half drawn
            self._publish()

    def _publish(self) -> None:
        self.lines = list(self.screen.display)
        self.changed.set()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def press(self, key: str) -> None:
        os.write(self.master, {"enter": b"\r"}.get(key, key.encode()))

    async def wait(self, want, what: str, deadline: float) -> str:
        """Until ``want`` (a predicate on the screen text) holds; an assertion with the screen if
        the deadline passes or the process ends first."""
        while True:
            text = self.text
            if want(text):
                return text
            if self.eof or time.monotonic() > deadline:
                break
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), max(0.01, deadline - time.monotonic()))
        raise AssertionError(f"{self.name}'s screen never showed {what}"
                             f"{' (the process ended)' if self.eof else ''}:\n{self.text}")

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

    def kill(self) -> None:
        if self.proc.returncode is None:  # not reaped yet: its process group cannot be anyone else's
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self.master)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        os.close(self.master)


# a card's top edge with its number key, in whichever border its marks give it (rounded, heavy,
# double when focused, dashed when it cannot be played)
CARD_TITLE = re.compile(r"[╭┏╔┌](\S) (\d) \1+[╮┓╗┐]")


def hand_cards(lines: list[str]) -> list[tuple[int, str, str]]:
    """The cards in the hand box as drawn: (number key, face, note) for each."""
    cards = []
    for row, line in enumerate(lines[:-2]):
        for m in CARD_TITLE.finditer(line):
            face, note = (lines[row + k][m.start() + 1:m.end() - 1].strip() for k in (1, 2))
            cards.append((int(m.group(2)), face, note))
    return cards


def my_turn(name: str, text: str) -> bool:
    """The scoreboard points at this player ("you"), and the hand box hint does not say who we are
    waiting for (it says "Your turn", or why the last card pressed cannot be played)."""
    return re.search(rf"▶ {name} .* you ", text) is not None and "Waiting for" not in text


def choose(lines: list[str]) -> str | None:
    """The key a careful player presses: a card that can be played and does not bust, else any
    card that can be played."""
    cards = [c for c in hand_cards(lines) if "can't play" not in c[2]]
    safe = [c for c in cards if "BUST" not in c[2]]
    pick = (safe or cards or [None])[0]
    return None if pick is None else str(pick[0])


def notice(text: str) -> str | None:
    """The notice on top, if any: "over" (the game-over notice), "continue" (any other)."""
    if "wins!" in text and "Leave the table" in text:  # (a network table's game-over: no "Play again")
        return "over"
    if (re.search(r"Round \d+ over", text) and "Continue" in text) or ("Out of the game" in text and "Watch" in text):
        return "continue"
    return None


def notice_title(text: str) -> str:
    """The words that name the notice on top ("Round 2 over", "Out of the game"): pressing Enter
    on it is answered once they are gone, not at the first change (the pressed button is one)."""
    m = re.search(r"Round \d+ over|Out of the game", text)
    return m.group(0) if m else ""


async def play(term: Term, deadline: float) -> tuple[str, int, int]:
    """Play from the screen until the game-over notice: (its screen, keys pressed, presses that
    showed nothing within 3 s)."""
    pressed = unseen = 0
    while time.monotonic() < deadline and not term.eof:
        text = term.text
        lines = term.lines
        shown = notice(text)
        if shown == "over":
            return text, pressed, unseen
        confirm = re.search(r"Press (\d)(?: or Enter)? again to play it anyway", text)
        if shown == "continue":
            if "Game over." in text and await term.change(text, 2.0):
                continue  # the last round's notice: the game-over notice may be coming over it
            title = notice_title(text)
            term.press("enter")
            pressed += 1
            # one Enter per notice: a second one, pressed while the first is still being answered,
            # would answer the notice that comes next (game over) without it ever being seen
            await term.wait(lambda t: title not in t or notice(t) == "over", f"the {title!r} notice answered",
                            deadline)
            continue
        elif confirm:
            term.press(confirm.group(1))
        elif my_turn(term.name, text) and (key := choose(lines)) is not None:
            term.press(key)
        else:  # someone else's turn: until the screen changes
            await term.change(text, max(0.01, deadline - time.monotonic()))
            continue
        pressed += 1
        # a key was pressed: until its effect is drawn (a press the screen was too busy for shows
        # nothing: after a while it is decided again from what the screen shows)
        unseen += not await term.change(text, 3.0)
    raise AssertionError(f"{term.name} never saw the game end{' (the process ended)' if term.eof else ''}:\n"
                         f"{term.text}")


def join(tmp_path, name: str, port: int) -> Term:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", ONO99_DATA_DIR=str(tmp_path / name / "data"),
               ONO99_CONFIG_DIR=str(tmp_path / name / "config"))
    return Term(name, [sys.executable, "-m", "ono99_tui", "join", f"{HOST}:{port}", "--name", name], env)


async def test_three_join_front_ends_and_a_bot_play_a_whole_game_and_the_record_replays_to_it(tmp_path):
    start = time.monotonic()
    deadline = start + HANG  # only ends a hang: each wait says what it waited for, with the screen
    async with serving(seed=7, bot_delay=0, turn_timer=60) as server:
        host = await Client.connect(HOST, server.port, "Host")  # makes the table; never sits
        table = (await host.request({"type": "create", "seats": 4, "rules": SHORT}))["table"]
        terms: list[Term] = []
        try:
            for name in ("Ann", "Bob", "Cy"):  # each finds the one table waiting
                terms.append(join(tmp_path, name, server.port))
                await terms[-1].wait(lambda t, n=name: re.search(rf"\d\. {n} +connected  <- you", t),
                                     "its seat in the lobby", deadline)
            ann = terms[0]
            await ann.wait(lambda t: all(re.search(rf"\d\. {n} +connected", t) for n in ("Ann", "Bob", "Cy")),
                           "everyone seated", deadline)
            ann.press("b")
            await ann.wait(lambda t: "bot (medium)" in t, "the bot in the last seat", deadline)
            ann.press("s")
            finals = await asyncio.gather(*(play(t, deadline) for t in terms), return_exceptions=True)
            failed = [f for f in finals if isinstance(f, BaseException)]
            if failed:
                for term in terms:
                    (tmp_path / f"{term.name}.out").write_bytes(term.raw)
                raise AssertionError("\n\n".join(map(str, failed)) + f"\n(all output in {tmp_path})")
            assert server.tables[table].session.over
            game = replays_to_same_result(server, table)
            winner = game.names[game.winner]
            for term, (text, pressed, _) in zip(terms, finals):
                assert f"{winner} wins!" in text, text
                played = sum(s == game.names.index(term.name) for s, _ in game.plays)
                assert 1 <= played <= pressed  # every play of theirs came from a key pressed on their screen
            for term in terms:  # leaving the game-over notice leaves `ono99 join`
                term.press("\x1b")
            for term in terms:
                try:
                    code = await asyncio.to_thread(term.proc.wait, max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    raise AssertionError(f"{term.name}'s join did not leave after Escape:\n{term.text}") from None
                assert code == 0, term.text
            print(f"\n{len(game.plays)} plays, {winner} won, {time.monotonic() - start:.1f} s, "
                  f"presses (unseen): {[(p, u) for _, p, u in finals]}")
        finally:
            for term in terms:
                term.kill()
            await host.aclose()
