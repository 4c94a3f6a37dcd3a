"""Hot seat, frame by frame: `ono99 resume` on an 80x24 PTY, every chunk it writes fed to pyte and
every whole frame checked (issue 19, point 2). Shared by tests/test_hot_seat_frames.py and the
long variant in benchmarks/hot_seat_frames.py.

The rule checked on every frame: with two or more humans at one keyboard, a hand is on screen only
while its owner is to move and has confirmed their "Pass to NAME"; never under "Hands hidden", never
with the Pass-to dialog up, never while someone else is to move. After the game the save is
replayed, and every hand that was drawn must be the hand its viewer held at one of their turns.
"""

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
from dataclasses import dataclass, field

import pyte

from ono99_tui.engine import Game
from ono99_tui.engine import cards as C
from ono99_tui.engine.record import Record

COLS, ROWS = 80, 24
SYNC_QUERY, SYNC_SUPPORTED = b"\x1b[?2026$p", b"\x1b[?2026;2$y"
SYNC_START, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"
# a card's top edge with its number key, in whichever border its marks give it
CARD_TITLE = re.compile(r"[╭┏╔┌](\S) (\d+) \1+[╮┓╗┐]")
HAND_TITLE = re.compile(r"╭─ (.+?) ─+╮$")  # the hand box's title: the last box title on screen
MOVER = re.compile(r"▶ (\S+) ")
LONG_RULES = "[scoring]\ntokens = 5\n"  # long games: many hand-overs from one deal


def face(card: str) -> str:
    """A card's value as the hand draws it (widgets/card.py)."""
    return C.LABEL[card] if card in C.ADDERS or card == C.NINETY_NINE else C.LABEL[card].upper()


def drawn_cards(lines: list[str]) -> list[tuple[int, str, str]]:
    """The cards drawn anywhere on screen: (number key, face, note)."""
    cards = []
    for row, line in enumerate(lines[:-2]):
        for m in CARD_TITLE.finditer(line):
            face_, note = (lines[row + k][m.start() + 1:m.end() - 1].strip() for k in (1, 2))
            cards.append((int(m.group(2)), face_, note))
    return cards


@dataclass
class Watch:
    """What the frames showed: the counts, what each shown hand was, and every broken rule."""

    frames: int = 0
    passes: int = 0  # "Pass to NAME" confirmed: the keyboard handed over
    plays: int = 0  # cards played by key
    shown: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (viewer, faces)
    broken: list[str] = field(default_factory=list)


class HotSeatTerm:
    """One `ono99 resume NAME` on its own 80x24 PTY; every whole frame goes through ``check``."""

    def __init__(self, argv: list[str], env: dict, watch: Watch):
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
        self.watch = watch
        self.viewer: str | None = None  # whose "Pass to" was confirmed last (None: nobody's yet)
        self.changed = asyncio.Event()
        self.eof = False
        self.raw = bytearray()
        self.lines = list(self.screen.display)
        self.keys: list[tuple[int, str]] = []  # (frames seen before it, key) for each key pressed
        self.recent: list[str] = []  # the last frames' hand titles and movers, for a failure's story
        self._pending = b""  # bytes of a frame not yet ended
        self._in_frame = False
        asyncio.get_running_loop().add_reader(master, self._read)

    # -- reading: every frame, not only the last of a chunk ---------------------------------
    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.eof = True
            asyncio.get_running_loop().remove_reader(self.master)
            self.changed.set()
            return
        self.raw += data
        if SYNC_QUERY in self._pending[-16:] + data:
            os.write(self.master, SYNC_SUPPORTED)  # like a real terminal: synchronized output
        buf = self._pending + data
        self._pending = b""
        while buf:
            if self._in_frame:
                end = buf.find(SYNC_END)
                if end < 0:  # keep a possible partial marker for the next chunk
                    keep = len(buf) - len(SYNC_END) + 1
                    self.stream.feed(buf[:max(0, keep)])
                    self._pending = buf[max(0, keep):]
                    return
                self.stream.feed(buf[:end + len(SYNC_END)])
                buf = buf[end + len(SYNC_END):]
                self._in_frame = False
                self._frame()
            else:
                start = buf.find(SYNC_START)
                if start < 0:
                    keep = len(buf) - len(SYNC_START) + 1
                    self.stream.feed(buf[:max(0, keep)])
                    self._pending = buf[max(0, keep):]
                    if keep > 0:
                        self._frame()  # drawn outside a synchronized frame: the terminal shows it now
                    return
                if start:
                    self.stream.feed(buf[:start])
                    self._frame()
                self.stream.feed(buf[start:start + len(SYNC_START)])
                buf = buf[start + len(SYNC_START):]
                self._in_frame = True

    def _frame(self) -> None:
        self.lines = list(self.screen.display)
        self.watch.frames += 1
        self.check(self.lines)
        self.changed.set()

    # -- the rule ----------------------------------------------------------------------------
    def check(self, lines: list[str]) -> None:
        text = "\n".join(lines)
        if "Tokens" not in text and "Points" not in text:
            return  # not the table (the menu, or the screen before the first frame)
        cards = drawn_cards(lines)
        titles = [m.group(1) for line in lines if (m := HAND_TITLE.search(line.strip()))]
        title = titles[-1] if titles else ""
        mover = MOVER.search(text)
        problem = None
        if re.search(r"\bdraws (?!a card)\S", text) and "nothing to draw" not in text:
            problem = "the log names a drawn card"
        elif cards:
            faces = tuple(sorted(f for _, f, _ in cards))
            if self.viewer is None:
                problem = "a hand on screen before anyone took the keyboard"
            elif "Pass to " in text:
                problem = "a hand on screen with the Pass-to dialog up"
            elif title != f"{self.viewer}'s hand":
                problem = f"cards under the title {title!r} (the keyboard is {self.viewer}'s)"
            elif mover is None or mover.group(1) != self.viewer:
                problem = f"{self.viewer}'s hand on screen while {mover and mover.group(1)} is to move"
            elif "Waiting for" in text:
                problem = f"{self.viewer}'s hand on screen while the table waits for someone else"
            else:
                self.watch.shown.append((self.viewer, faces))
        self.recent = (self.recent + [f"{self.watch.frames}: {title!r}, mover {mover and mover.group(1)}, "
                                      f"{len(cards)} cards{', Pass-to dialog' if 'Pass to ' in text else ''}"])[-30:]
        if problem:
            keys = [k for k in self.keys if k[0] >= self.watch.frames - 30]
            self.watch.broken.append(f"frame {self.watch.frames}: {problem}:\n{text}\nframes before: "
                                     f"{self.recent}\nkeys since: {keys}")

    # -- driving -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def press(self, key: str) -> None:
        self.keys.append((self.watch.frames, key))
        os.write(self.master, {"enter": b"\r", "escape": b"\x1b"}.get(key, key.encode()))

    async def until(self, want, limit: float) -> bool:
        """Until ``want(text)`` holds for the screen, at most ``limit`` seconds: did it?"""
        end = time.monotonic() + limit
        while not want(self.text) and not self.eof:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return want(self.text)

    async def change(self, before: str, limit: float) -> bool:
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
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self.master)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        os.close(self.master)


def round_over(text: str) -> bool:
    """The notice of a lost round is up."""
    return re.search(r"Round \d+ over", text) is not None and "Continue" in text


def played(text: str) -> tuple:
    """What a play changes on screen: the log, whose turn it is, the notices."""
    lines = text.split("\n")
    log = [line for line in lines[7:16]]
    mover = MOVER.search(text)
    return (log, mover and mover.group(1), "Press " in text, "Pass to " in text, "lost" in text)


def choose(lines: list[str]) -> str | None:
    """A card that can be played and does not bust, else any card that can be played."""
    cards = [c for c in drawn_cards(lines) if "can't play" not in c[2]]
    safe = [c for c in cards if "BUST" not in c[2]]
    pick = (safe or cards or [None])[0]
    return None if pick is None else str(pick[0])


def make_save(data_dir, name: str, seats: list[tuple[str, str]], seed: int, rules: str = LONG_RULES) -> None:
    env = dict(os.environ, ONO99_DATA_DIR=str(data_dir))
    code = (
        "import sys, json\n"
        "from ono99_tui.engine import Game\n"
        "from ono99_tui.engine.record import Record, SeatSpec\n"
        "from ono99_tui.engine.rules import load_rules_text\n"
        "from ono99_tui.store.saves import SaveStore\n"
        "seats = [SeatSpec(n, p) for n, p in json.loads(sys.argv[1])]\n"
        "g = Game([s.name for s in seats], load_rules_text(sys.argv[2]), int(sys.argv[3]))\n"
        "SaveStore().write(sys.argv[4], Record.from_game(g, seats, meta={'rules': 'test'}))\n"
    )
    import json

    subprocess.run([sys.executable, "-c", code, json.dumps(seats), rules, str(seed), name], env=env, check=True)


async def play_hot_seat(tmp_path, name: str, seats: list[tuple[str, str]], seed: int, passes: int,
                        watch: Watch, deadline: float, bot_delay: float = 0.05) -> Game:
    """Play the hot-seat game ``name`` from its screen until ``passes`` hand-overs (or its end), leave
    it for the menu (saved) and return the game as the save replays it."""
    data, config = tmp_path / name / "data", tmp_path / name / "config"
    make_save(data, name, seats, seed)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL") and k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", ONO99_DATA_DIR=str(data), ONO99_CONFIG_DIR=str(config),
               ONO99_BOT_DELAY=str(bot_delay))
    term = HotSeatTerm([sys.executable, "-m", "ono99_tui", "resume", name], env, watch)
    humans = [n for n, p in seats if p == "human"]
    try:
        target = watch.passes + passes
        while True:
            if term.eof or time.monotonic() > deadline:
                tail = bytes(term.raw[-3000:]).decode(errors="replace") if term.eof else ""
                raise AssertionError(f"the game stopped short ({watch.passes} hand-overs"
                                     f"{', the process ended' if term.eof else ''}):\n{term.text}\n{tail}")
            text, lines = term.text, term.lines
            asked = re.search(r"Pass to (\S+)", text)
            confirm = re.search(r"Press (\d+) again to play it anyway", text)
            mover = MOVER.search(text)
            if "wins!" in text and "Play again" in text:
                break  # the game is over: enough hand-overs or not, this game has no more
            if asked and "I am " in text:
                if watch.passes >= target:
                    break
                term.viewer = asked.group(1)  # pressed: from now on this name may see their hand
                term.press("enter")
                # until the dialog has gone (a second Enter would play the card the hand focuses)
                if not await term.until(lambda t: "Pass to " not in t, 30.0):
                    raise AssertionError(f"Enter did not take the Pass-to dialog away:\n{term.text}")
                watch.passes += 1
                continue
            if round_over(text):
                term.press("enter")
                # until the notice has gone (a second Enter would answer the next dialog, or play)
                if not await term.until(lambda t: not round_over(t), 30.0):
                    raise AssertionError(f"Enter did not close the round's notice:\n{term.text}")
                continue
            if confirm:
                term.press(confirm.group(1))
                before = played(text)
                if not await term.until(lambda t: played(t) != before, 30.0):
                    raise AssertionError(f"the bust was not confirmed:\n{term.text}")
                continue
            if (mover and mover.group(1) in humans and mover.group(1) == term.viewer
                  and "Waiting for" not in text and (key := choose(lines)) is not None):
                term.press(key)
                watch.plays += 1
                # until the play shows (the log grows, the turn moves, a notice or the bust question
                # comes): pressed again before that, the key would act twice
                before = played(text)
                if not await term.until(lambda t: played(t) != before, 30.0):
                    raise AssertionError(f"the key {key} played nothing:\n{term.text}")
                continue
            await term.change(text, max(0.01, deadline - time.monotonic()))  # someone else moves
        # leave for the menu: the table is saved as it goes, and closed on the way out
        term.press("escape")
        while "Tokens" in term.text and not term.eof and time.monotonic() < deadline:
            await term.change(term.text, max(0.01, deadline - time.monotonic()))
        if "Tokens" in term.text:
            raise AssertionError(f"Escape did not leave the table:\n{term.text}")
    finally:
        term.kill()
    from ono99_tui.store.saves import SaveStore

    record = SaveStore(data / "saves").load(name)
    return record.replay()


def hands_at_turns(game: Game) -> dict[str, set[tuple[str, ...]]]:
    """Each seat's hand (as faces) at every position where it was to move, from the game's record."""
    record = Record.from_game(game)
    replay = record.new_game()
    seen: dict[str, set[tuple[str, ...]]] = {n: set() for n in game.names}
    for round_plays in record.rounds:
        for name, card in round_plays:
            seen[name].add(tuple(sorted(face(c) for c in replay.hands[replay.current])))
            replay.play(card)
    if not replay.over:
        seen[replay.names[replay.current]].add(tuple(sorted(face(c) for c in replay.hands[replay.current])))
    return seen


def turns_ended(games: list[Game], humans=("Ann", "Ben")) -> int:
    """How many times a person's play ended their turn (someone else to move, or the round over):
    each time their hand had to leave the screen in the frame that followed."""
    ended = 0
    for game in games:
        replay = Record.from_game(game).new_game()
        for seat, card in game.plays:
            round_no = replay.round_no
            replay.play(card)
            if replay.names[seat] in humans and (replay.over or replay.round_no != round_no
                                                 or replay.current != seat):
                ended += 1
    return ended


def wrong_hands(watch: Watch, games: list[Game]) -> list[str]:
    """Hands shown that were not their viewer's at any of the viewer's turns."""
    owned: dict[str, set] = {}
    for game in games:
        for name, hands in hands_at_turns(game).items():
            owned.setdefault(name, set()).update(hands)
    return [f"{viewer}'s hand showed {faces}, a hand {viewer} never held at a turn"
            for viewer, faces in watch.shown if faces not in owned.get(viewer, set())]


__all__ = ["Watch", "play_hot_seat", "turns_ended", "wrong_hands"]
