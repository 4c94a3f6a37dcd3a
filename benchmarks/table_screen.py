"""The table screen's cost per play, against a bare Textual app doing one update, same run.

    python benchmarks/table_screen.py [--plays 300] [--rounds 30] [--games 200]

Prints:
- CPU per play on the table screen (you and three random bots, bot delay 0: the bots'
  thinking is negligible, so this is the screen's own cost) and per update of a bare app
  that sets four card widgets and a label;
- key press -> first frame that shows the new total, table screen vs bare app (medians);
- RSS at rounds 1, 10 and 30 of a headless game through the screen (you and three medium
  bots, 10 tokens each so it lasts), after a garbage collection;
- whole-game throughput of bot games through the TableSession vs the bare engine loop.

It only uses the app's public surface (quick game key, the screen's game, card widgets),
so it can be pointed at an older checkout with PYTHONPATH to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("ONO99_DATA_DIR", tempfile.mkdtemp(prefix="ono99-bench-data-"))
os.environ.setdefault("ONO99_CONFIG_DIR", tempfile.mkdtemp(prefix="ono99-bench-cfg-"))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class FrameClock:
    """Timestamps of the frames an app writes (its _display calls)."""

    def __init__(self, app: App):
        self.times: list[float] = []
        original = app._display

        def display(*args, **kwargs):
            self.times.append(time.perf_counter())
            return original(*args, **kwargs)

        app._display = display

    def first_after(self, t: float) -> float | None:
        return next((x for x in self.times if x > t), None)


# -- the bare app -----------------------------------------------------------------------------
class Bare(App):
    CSS = "Static.card { width: 16; height: 4; border: round white; }"

    def compose(self) -> ComposeResult:
        for i in range(4):
            yield Static(str(i), classes="card")
        yield Static("Total 0", id="total")

    def key_1(self) -> None:
        self.n = getattr(self, "n", 0) + 1
        for i, w in enumerate(self.query(".card")):
            w.update(f"card {self.n + i}")
        self.query_one("#total", Static).update(f"Total {self.n}")


async def bare_figures(updates: int) -> tuple[float, float]:
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        clock = FrameClock(app)
        await pilot.pause()
        latencies = []
        cpu0 = time.process_time()
        for _ in range(updates):
            t = time.perf_counter()
            await pilot.press("1")
            await pilot.pause()
            while clock.first_after(t) is None:
                await asyncio.sleep(0.001)
            latencies.append(clock.first_after(t) - t)
        cpu = (time.process_time() - cpu0) / updates
    return cpu, statistics.median(latencies)


# -- the table screen ---------------------------------------------------------------------------
def _screen_parts():
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.screens.modals import GameOverScreen, PassScreen, RoundEndScreen
    from ono99_tui.tui.widgets.card import CardWidget

    return Ono99App, GameScreen, (RoundEndScreen, PassScreen), GameOverScreen, CardWidget


async def _my_turn(pilot, app, parts) -> bool:
    """Until the human may play; False when the game is over. Waits on the app's own signals."""
    _, GameScreen, notices, GameOverScreen, _ = parts
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            return False
        if isinstance(screen, notices):
            await pilot.press("enter")
            continue
        if isinstance(screen, GameScreen) and screen._human_may_play():
            return True


def _playable(screen, CardWidget) -> int:
    cards = [c for c in screen.query(CardWidget) if getattr(c, "card", None) is not None]
    safe = [c for c in cards if c.reason is None and not getattr(c, "busts", False)]
    return (safe or [c for c in cards if c.reason is None])[0].index


async def table_figures(plays: int, rules: str | None, levels: str, bot_delay: float) -> tuple[float, float, int]:
    parts = _screen_parts()
    Ono99App, GameScreen, _, _, CardWidget = parts
    app = Ono99App(bot_delay=bot_delay, seed=7, rules_spec=rules)
    async with app.run_test(size=(80, 24)) as pilot:
        from ono99_tui.engine.record import SeatSpec
        from ono99_tui.tui.setup import TableSetup

        setup = TableSetup([SeatSpec("You")] + [SeatSpec(n, f"bot:{levels}") for n in ("Bo", "Cy", "Di")],
                           app.rules, "bench", seed=7)
        app.start_game(setup)
        clock = FrameClock(app)
        screen = app.screen
        game = screen.game
        latencies = []
        start_plays = len(game.plays)
        cpu0 = time.process_time()
        while len(screen.game.plays) - start_plays < plays:
            if not await _my_turn(pilot, app, parts):
                break
            index = _playable(screen, CardWidget)
            total_before = len(screen.game.plays)
            t = time.perf_counter()
            await pilot.press(str(index))
            while len(screen.game.plays) == total_before:
                await pilot.pause()
            await pilot.pause()
            while clock.first_after(t) is None:
                await asyncio.sleep(0.001)
            latencies.append(clock.first_after(t) - t)
        made = len(screen.game.plays) - start_plays
        cpu = (time.process_time() - cpu0) / max(1, made)
    return cpu, statistics.median(latencies), made


async def memory_by_round(rounds: int) -> dict[int, float]:
    parts = _screen_parts()
    Ono99App, GameScreen, _, _, CardWidget = parts
    path = Path(tempfile.mkdtemp()) / "long.toml"
    path.write_text("[scoring]\ntokens = 10\n")
    app = Ono99App(bot_delay=0, seed=5, rules_spec=str(path))
    seen: dict[int, float] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        from ono99_tui.engine.record import SeatSpec
        from ono99_tui.tui.setup import TableSetup

        setup = TableSetup([SeatSpec("You")] + [SeatSpec(n, "bot:medium") for n in ("Bo", "Cy", "Di")],
                           app.rules, "bench", seed=5)
        app.start_game(setup)
        screen = app.screen
        marks = {1, 10, rounds}
        while await _my_turn(pilot, app, parts):
            r = screen.game.round_no
            if r in marks and r not in seen:
                gc.collect()
                seen[r] = rss_mib()
            if r >= rounds:
                break
            await pilot.press(str(_playable(screen, CardWidget)))
    return seen


def throughput(games: int) -> tuple[float, float]:
    """Games per second: bare engine loop vs the same games through a TableSession."""
    from ono99_tui.bots.levels import Bot
    from ono99_tui.engine import Game
    from ono99_tui.engine.record import SeatSpec
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.table import TableSession, bot_seed

    names = ["A", "B", "C", "D"]

    def engine_game(seed: int) -> int:
        game = Game(names, DEFAULT, seed, record_events=False)
        bots = [Bot("medium", bot_seed(seed, s)) for s in range(4)]
        while not game.over:
            s = game.current
            game.play(bots[s].choose(game.view(s)))
        return len(game.plays)

    def table_game(seed: int) -> int:
        table = TableSession([SeatSpec(n, "bot:medium") for n in names], DEFAULT, seed, record_events=False)
        table.play_bots()
        return len(table.game.plays)

    rates = []
    for fn in (engine_game, table_game):
        t = time.perf_counter()
        plays = sum(fn(seed) for seed in range(games))
        rates.append(games / (time.perf_counter() - t))
        assert plays > 0
    return rates[0], rates[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plays", type=int, default=150, help="your plays measured on the table screen")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--games", type=int, default=200, help="bot games for the throughput figure")
    args = ap.parse_args()

    bare_cpu, bare_lat = asyncio.run(bare_figures(args.plays))
    table_cpu, _, made = asyncio.run(table_figures(args.plays, None, "random", bot_delay=0))
    # latency with the bots waiting a moment (as they do for a person): the frame measured is the
    # one your own play makes, not one queued behind the bots' plays
    _, table_lat, _ = asyncio.run(table_figures(max(20, args.plays // 3), None, "random", bot_delay=0.05))
    # a play of yours brings three bot plays with it: CPU per play counts all four
    print(f"bare app, one update:        CPU {bare_cpu * 1000:6.1f} ms   key->frame {bare_lat * 1000:6.1f} ms")
    per_play = table_cpu / 4
    print(f"table screen ({made} of your plays, each followed by 3 bot plays):")
    print(f"  CPU per play               {per_play * 1000:6.1f} ms   ({per_play / bare_cpu:.1f}x the bare app; target <= 3x)")
    print(f"  key->frame (new total)     {table_lat * 1000:6.1f} ms   ({table_lat / bare_lat:.1f}x the bare app; target <= 3x)")

    mem = asyncio.run(memory_by_round(args.rounds))
    marks = sorted(mem)
    print("RSS by round (you + 3 medium, headless): " + ", ".join(f"round {r}: {mem[r]:.1f} MiB" for r in marks))
    if len(marks) >= 2:
        print(f"  growth round {marks[0]} -> {marks[-1]}: {mem[marks[-1]] - mem[marks[0]]:+.1f} MiB (target <= 5 MiB)")

    engine_rate, table_rate = throughput(args.games)
    print(f"bot games per second: engine loop {engine_rate:.1f}, table session {table_rate:.1f} "
          f"({table_rate / engine_rate:.2f}x; target >= 0.8x)")


if __name__ == "__main__":
    main()
