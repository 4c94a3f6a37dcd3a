"""The table screen's cost per play, against a bare Textual app doing one update, same run.

    python benchmarks/table_screen.py [--plays 300] [--rounds 30] [--games 200]

Prints:
- CPU per play on the table screen (you and three random bots, bot delay 0: the bots'
  thinking is negligible, so this is the screen's own cost) and per update of a bare app
  that sets four card widgets and a label;
- key press -> first frame whose text shows the new total, table screen vs bare app (medians);
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



def _game(screen):
    """The game behind a table screen (its table's; an older checkout's screen had ``game``)."""
    return screen.table.game if hasattr(screen, "table") and hasattr(screen.table, "game") else screen.game

def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def frame_text(update) -> str:
    """The text a frame (a compositor update) writes: its changed lines, joined."""
    if update is None:
        return ""
    strips = getattr(update, "strips", None)
    if strips is not None:  # a full layout
        return "\n".join("".join(seg.text for seg in strip) for strip in strips)
    chops = getattr(update, "chops", None) or ()
    return "\n".join("".join(strip.text for strip in line.values() if strip is not None) for line in chops)


class FrameClock:
    """The frames an app writes (its _display calls): when, and (if ``watch``) what they show.

    ``watch`` is a pattern to look for in each frame's text, so that a latency is measured to the
    first frame that actually shows the new total, not to any frame (a cursor blink, a footer)."""

    def __init__(self, app: App, watch: bool = False):
        self.frames: list[tuple[float, str]] = []
        self.watch = watch
        original = app._display

        def display(screen, renderable, *args, **kwargs):
            self.frames.append((time.perf_counter(), frame_text(renderable) if self.watch else ""))
            return original(screen, renderable, *args, **kwargs)

        app._display = display

    def first_after(self, t: float, shows: str | None = None) -> float | None:
        """The time of the first frame after ``t`` (that contains the text ``shows``)."""
        return next((x for x, text in self.frames if x > t and (shows is None or shows in text)), None)

    async def wait_for(self, t: float, shows: str | None, pilot, limit: float = 10.0) -> float:
        deadline = time.perf_counter() + limit
        while (found := self.first_after(t, shows)) is None:
            if time.perf_counter() > deadline:
                raise AssertionError(f"no frame showing {shows!r} within {limit} s")
            await asyncio.sleep(0.001)
        return found - t


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


async def bare_cpu_run(updates: int) -> float:
    """CPU per update of the bare app (frames not inspected: that would cost CPU here)."""
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        cpu0 = time.process_time()
        for _ in range(updates):
            await pilot.press("1")
            await pilot.pause()
        return (time.process_time() - cpu0) / updates


async def bare_latency(updates: int) -> list[float]:
    """Key press -> first frame that shows the bare app's new total, per update."""
    app = Bare()
    async with app.run_test(size=(80, 24)) as pilot:
        clock = FrameClock(app, watch=True)
        await pilot.pause()
        latencies = []
        for _ in range(updates):
            t = time.perf_counter()
            await pilot.press("1")
            latencies.append(await clock.wait_for(t, f"Total {app.n}", pilot))
            await pilot.pause()
    return latencies


# -- the table screen ---------------------------------------------------------------------------
def _screen_parts():
    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.game import GameScreen
    from ono99_tui.tui.screens.modals import GameOverScreen, OutScreen, PassScreen, RoundEndScreen
    from ono99_tui.tui.widgets.card import CardWidget

    return Ono99App, GameScreen, (RoundEndScreen, PassScreen), GameOverScreen, CardWidget, OutScreen


async def _my_turn(pilot, app, parts) -> bool:
    """Until the human may play; False when the game is over (or the human is out of it).
    Waits on the app's own signals."""
    _, GameScreen, notices, GameOverScreen, _, OutScreen = parts
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        if isinstance(screen, GameOverScreen):
            return False
        if isinstance(screen, OutScreen):
            # the human is out: the bots would play on without end for this loop; skip to the end
            screen.dismiss("skip")
            await pilot.pause()
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


async def table_figures(plays: int, rules: str | None, levels: str, bot_delay: float,
                        watch: bool = False) -> tuple[float, list[float], int, int]:
    """(CPU per play, key->frame latencies, your plays, bots' plays) over about ``plays`` plays of yours.

    CPU per play is the total CPU over every play made in the run, yours and the bots'. The
    latency is measured (``watch``) to the first frame whose text shows the total your play made,
    for plays that change the total (a Hold leaves the same total on screen)."""
    from ono99_tui.engine import cards as C

    parts = _screen_parts()
    Ono99App, GameScreen, _, _, CardWidget, _ = parts
    app = Ono99App(bot_delay=bot_delay, seed=7, rules_spec=rules)
    async with app.run_test(size=(80, 24)) as pilot:
        from ono99_tui.engine.record import SeatSpec
        from ono99_tui.tui.setup import TableSetup

        setup = TableSetup([SeatSpec("You")] + [SeatSpec(n, f"bot:{levels}") for n in ("Bo", "Cy", "Di")],
                           app.rules, "bench", seed=7)
        app.start_game(setup)
        clock = FrameClock(app, watch=watch)
        screen = app.screen
        latencies = []
        start_plays = len(_game(screen).plays)
        mine = 0
        cpu0 = time.process_time()
        while mine < plays:
            if not await _my_turn(pilot, app, parts):
                break
            index = _playable(screen, CardWidget)
            card = screen.query_one("#hand").cards[index - 1].card
            game = _game(screen)
            before = len(game.plays)
            expected = game.total + C.EFFECT[card]
            t = time.perf_counter()
            await pilot.press(str(index))
            while len(_game(screen).plays) == before:
                await pilot.pause()
            mine += 1
            if watch and C.EFFECT[card] and expected < game.rules.target:
                latencies.append(await clock.wait_for(t, f"Total {expected}/", pilot))
        made = len(_game(screen).plays) - start_plays
        cpu = (time.process_time() - cpu0) / max(1, made)
    return cpu, latencies, mine, made - mine


async def memory_by_round(rounds: int) -> dict[int, float]:
    """RSS (after a collection) at rounds 1, 10 and ``rounds``. If you are out before the last,
    the bots play on (the "Watch fast" choice) and the screen keeps showing the game."""
    parts = _screen_parts()
    Ono99App, GameScreen, notices, GameOverScreen, CardWidget, OutScreen = parts
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
        table = app.screen
        marks = {1, 10, rounds}
        while True:
            await app.workers.wait_for_complete()
            await pilot.pause()
            r = _game(table).round_no
            if r in marks and r not in seen:
                gc.collect()
                seen[r] = rss_mib()
            screen = app.screen
            if r >= rounds or isinstance(screen, GameOverScreen):
                break
            if isinstance(screen, OutScreen):
                screen.dismiss("fast")
            elif isinstance(screen, notices):
                await pilot.press("enter")
            elif isinstance(screen, GameScreen) and screen._human_may_play():
                await pilot.press(str(_playable(screen, CardWidget)))
    return seen


def throughput(games: int, reps: int = 5) -> tuple[float, float]:
    """Games per second: bare engine loop vs the same games through a TableSession.

    The two are interleaved game by game (the same seed through each, in turn, the first of
    the pair alternating), over ``reps`` shares of the games, so that whatever else loads the
    machine hits both alike."""
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

    spent = {engine_game: 0.0, table_game: 0.0}
    done = 0
    for rep in range(reps):
        for seed in range(rep * (games // reps), (rep + 1) * (games // reps)):
            # game by game, engine and table in turn (the first one alternating): a burst of load
            # from elsewhere on the machine falls on both alike
            order = (engine_game, table_game) if seed % 2 == 0 else (table_game, engine_game)
            for fn in order:
                t = time.perf_counter()
                assert fn(seed) > 0
                spent[fn] += time.perf_counter() - t
            done += 1
    return done / spent[engine_game], done / spent[table_game]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plays", type=int, default=150, help="plays of yours measured on the table screen")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--games", type=int, default=200, help="bot games for the throughput figure")
    ap.add_argument("--reps", type=int, default=6, help="engine/table alternations in the throughput figure")
    args = ap.parse_args()

    bare_cpu = asyncio.run(bare_cpu_run(args.plays))
    per_play, _, mine, theirs = asyncio.run(table_figures(args.plays, None, "random", bot_delay=0))
    # latency with the bots waiting a moment (as they do for a person): the frame measured is the
    # one your own play makes, not one queued behind the bots' plays
    # alternated (bare, table, bare, table) so that the machine's load hits both alike
    bare_samples: list[float] = []
    table_samples: list[float] = []
    lat_plays = 0
    for _ in range(2):
        bare_samples += asyncio.run(bare_latency(max(10, args.plays // 6)))
        _, samples, mine_here, _ = asyncio.run(table_figures(max(10, args.plays // 6), None, "random",
                                                             bot_delay=0.2, watch=True))
        table_samples += samples
        lat_plays += mine_here
    bare_lat = statistics.median(bare_samples)
    table_lat = statistics.median(table_samples) if table_samples else None
    print(f"bare app, one update:        CPU {bare_cpu * 1000:6.1f} ms   key->frame {bare_lat * 1000:6.1f} ms")
    print(f"table screen: {mine + theirs} plays ({mine} yours, {theirs} the bots'):")
    print(f"  CPU per play               {per_play * 1000:6.1f} ms   ({per_play / bare_cpu:.1f}x the bare app; target <= 3x)")
    if table_lat is None:
        print("  key->frame (new total)     not measured (no play of yours changed the total)")
    else:
        print(f"  key->frame (new total)     {table_lat * 1000:6.1f} ms   ({table_lat / bare_lat:.1f}x the bare app; "
              f"target <= 3x; median of {len(table_samples)}: your plays that changed the total, of {lat_plays}; "
              f"bare: median of {len(bare_samples)})")

    mem = asyncio.run(memory_by_round(args.rounds))
    marks = sorted(mem)
    print("RSS by round (you + 3 medium, headless): " + ", ".join(f"round {r}: {mem[r]:.1f} MiB" for r in marks))
    if len(marks) >= 2:
        print(f"  growth round {marks[0]} -> {marks[-1]}: {mem[marks[-1]] - mem[marks[0]]:+.1f} MiB (target <= 5 MiB)")

    engine_rate, table_rate = throughput(args.games, args.reps)
    print(f"bot games per second: engine loop {engine_rate:.1f}, table session {table_rate:.1f} "
          f"({table_rate / engine_rate:.2f}x; target >= 0.8x)")


if __name__ == "__main__":
    main()
