"""The long variant of tests/test_hot_seat_frames.py: hot seat on an 80x24 PTY, every frame checked.

    python benchmarks/hot_seat_frames.py [--hand-overs 600] [--bot-delay 0.05] [--seed 7]

Plays Ann and Ben with Cy (a medium bot), then Ann and Ben alone, each for half the hand-overs
(a game that ends before is followed by the next seed), and prints the frames checked, the turns
ended by a person's play, the hand-overs, the frames that broke the rule (a hand on screen other
than its owner's at their turn, or round a dialog, or under a hiding title) and the hands shown
that were not their viewer's. Exit status 1 if any frame broke the rule.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hot_seat_frames import Watch, play_hot_seat, turns_ended, wrong_hands  # noqa: E402

TRIO = [("Ann", "human"), ("Ben", "human"), ("Cy", "bot:medium")]
DUO = [("Ann", "human"), ("Ben", "human")]


async def run(hand_overs: int, bot_delay: float, seed: int) -> int:
    watch = Watch()
    games = []
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ono99-hot-seat-") as tmp:
        for seats, share in ((TRIO, hand_overs // 2), (DUO, hand_overs - hand_overs // 2)):
            goal = watch.passes + share
            n = 0
            while watch.passes < goal:
                name = f"{'trio' if len(seats) == 3 else 'duo'}{n}"
                games.append(await play_hot_seat(Path(tmp), name, seats, seed + n, goal - watch.passes, watch,
                                                 time.monotonic() + 1800, bot_delay))
                n += 1
    wrong = wrong_hands(watch, games)
    print(f"{watch.frames} frames checked, {turns_ended(games)} turns ended by a play of Ann's or Ben's, "
          f"{watch.passes} hand-overs, {watch.plays} plays by key, {len(watch.shown)} frames showed a hand, "
          f"{len(watch.broken)} frames broke the rule, {len(wrong)} hands shown that were not their viewer's; "
          f"{time.monotonic() - start:.0f} s, load average {os.getloadavg()[0]:.1f}")
    for problem in watch.broken[:3] + wrong[:3]:
        print(problem)
    return 1 if watch.broken or wrong else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hand-overs", type=int, default=600)
    parser.add_argument("--bot-delay", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    return asyncio.run(run(args.hand_overs, args.bot_delay, args.seed))


if __name__ == "__main__":
    sys.exit(main())
