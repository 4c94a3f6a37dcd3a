"""Words a listener hears between two of their turns in `ono99 --plain` (target: median <= 40).

Seeded quick games (you and three medium bots, standard rules), played in this process through
the plain front end's own console, with a player who reads the numbered hand it is given and
plays the first card that neither busts nor is refused (a busting card only when it must).
Counted: every word printed after one of your plays up to and including the prompt of your
next turn (the others' plays, a lost round, the deal, your hand). Also the 90th percentile and
the longest gap, and the same figures for the hand listing alone.

    python benchmarks/plain_words.py [--games 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class Player(io.RawIOBase):
    """Standard input that answers what the output so far asks."""

    def __init__(self, out: io.BytesIO):
        self.out = out
        self.seen = 0
        self.gaps: list[int] = []
        self.hands: list[int] = []
        self._words = 0
        self._hand_words = 0
        self._counting = False

    def readline(self, limit: int = -1) -> bytes:
        text = self.out.getvalue()[self.seen:].decode()
        self.seen = len(self.out.getvalue())
        lines = text.splitlines()
        from ono99_tui.plain.table import PROMPT

        prompt = lines[-1] if lines else ""
        for line in lines:
            n = len(line.split())
            if self._counting:
                self._words += n
            if line[:1].isdigit() and ": " in line or line.startswith(("Your turn", "You must")):
                self._hand_words += n
        if prompt == PROMPT:
            if self._counting:
                self.gaps.append(self._words)
                self.hands.append(self._hand_words)
            self._counting, self._words, self._hand_words = False, 0, 0
            cards = [line for line in lines if line[:1].isdigit() and ": " in line]
            good = [c for c in cards if "busts" not in c and "can't" not in c]
            pick = (good or [c for c in cards if "can't" not in c] or ["1:"])[0].split(":")[0]
            self._counting = True  # from the line after this answer on
            return f"{pick}\n{pick}\n".encode() if not good else f"{pick}\n".encode()
        if prompt.startswith("Main menu") or "Your choice" in prompt:
            return b""  # one game is enough: end of input
        if "play again" in prompt:
            return b""
        if "skip to the end" in prompt:  # out of the game: the bots finish it
            self._counting = False
            return b"s\n"
        return b"\n"  # a round is over: go on


def one_game(seed: int) -> Player:
    from ono99_tui.plain.console import Console, EndOfInput
    from ono99_tui.plain.menu import PlainApp

    out = io.BytesIO()
    player = Player(out)

    class Once(io.RawIOBase):  # the second line of a confirmed bust comes from a buffer
        buffer = b""

        def readline(self, limit=-1):
            if not self.buffer:
                self.buffer = player.readline()
                if not self.buffer:
                    return b""
            line, _, self.buffer = self.buffer.partition(b"\n")
            return line + b"\n"

    app = PlainApp(Console(Once(), out), seed=seed)
    try:
        app.play(app.quick_setup())
    except EndOfInput:
        pass
    return player


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ONO99_CONFIG_DIR"] = str(Path(tmp) / "config")
        os.environ["ONO99_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ.pop("ONO99_BOT_DELAY", None)
        gaps, hands = [], []
        for g in range(args.games):
            p = one_game(args.seed + g)
            gaps += p.gaps
            hands += p.hands
    q = statistics.quantiles(gaps, n=10)
    print(f"{args.games} games from seed {args.seed}, 4 seats, {len(gaps)} gaps between your turns")
    print(f"words between two of your turns: median {statistics.median(gaps):g} (target <= 40), "
          f"90th percentile {q[-1]:g}, longest {max(gaps)}")
    print(f"of which your turn and hand: median {statistics.median(hands):g}")


if __name__ == "__main__":
    main()
