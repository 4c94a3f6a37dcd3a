"""Save speed: time per autosave during a 4-player game, and time to load a 1,000-play save.

Baselines measured in the same run: writing the same bytes with a plain
open().write() (no fsync, no rename), and parsing the same TOML with tomllib
(no replay). Targets: <= 5 ms per autosave, <= 100 ms per load.

    python benchmarks/saves.py
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
import tomllib
from pathlib import Path

from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.engine.rules import DEFAULT, load_rules_text
from ono99_tui.store.saves import SaveStore

SEATS = [SeatSpec("You"), SeatSpec("Bo", "bot:medium"), SeatSpec("Cy", "bot:medium"), SeatSpec("Di", "bot:medium")]


def long_game(min_plays: int, seed: int = 1) -> Game:
    """A 4-player game with at least ``min_plays`` plays: 10 tokens each, random legal play."""
    rules = load_rules_text("[scoring]\ntokens = 10\n")
    while True:
        g = Game([s.name for s in SEATS], rules, seed, record_events=False)
        rng = random.Random(seed)
        while not g.over:
            g.play(rng.choice(g.legal_plays()))
        if len(g.plays) >= min_plays:
            return g
        seed += 1


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = SaveStore(Path(tmp) / "saves")
        g = Game([s.name for s in SEATS], DEFAULT, 3, record_events=False)
        rng = random.Random(3)
        autosave, plain = [], []
        while not g.over:
            g.play(rng.choice(g.legal_plays()))
            t = time.perf_counter()
            store.write("autosave", Record.from_game(g, SEATS, {"rules": "standard"}))
            autosave.append((time.perf_counter() - t) * 1000)
            text = store.path("autosave").read_text()
            t = time.perf_counter()
            with open(Path(tmp) / "plain.toml", "w") as fh:
                fh.write(text)
            plain.append((time.perf_counter() - t) * 1000)
        print(f"autosave during a {len(g.plays)}-play 4-player game (record, TOML, fsync, rename, .bak):")
        print(f"  median {statistics.median(autosave):.2f} ms, p99 {sorted(autosave)[int(.99 * len(autosave))]:.2f} ms, "
              f"max {max(autosave):.2f} ms; plain write of the same bytes: median {statistics.median(plain):.3f} ms "
              f"(ratio {statistics.median(autosave) / statistics.median(plain):.0f}x)  target <= 5 ms")

        big = long_game(1000)
        store.write("big", Record.from_game(big, SEATS, {"rules": "standard"}))
        text = store.path("big").read_text()
        loads, parses = [], []
        for _ in range(10):
            t = time.perf_counter()
            store.load("big")  # parse, check, and replay every play under the rules
            loads.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            tomllib.loads(text)
            parses.append((time.perf_counter() - t) * 1000)
        print(f"load a {len(big.plays)}-play save ({len(text) // 1024} KiB), replaying every play:")
        print(f"  median {statistics.median(loads):.1f} ms, max {max(loads):.1f} ms; tomllib parse alone: "
              f"{statistics.median(parses):.1f} ms (ratio {statistics.median(loads) / statistics.median(parses):.1f}x)"
              "  target <= 100 ms")


if __name__ == "__main__":
    main()
