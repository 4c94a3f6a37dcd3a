"""A UI fuzz: random keys, clicks and resizes on the running app (Pilot), seeded and bounded.

Shared by tests/test_ui_fuzz.py (a few hundred events) and benchmarks/fuzz_ui.py (thousands,
each session in its own process so that a hang is caught). A session starts the app on a
data folder with saves in it (an unfinished game, a finished one, a damaged one, one whose
names are markup), bots without delay so games move, and sends events until its count is
spent; when the app quits (q on the menu, a key that exits), a new app is started and the
events go on. A crash is any exception out of the app or out of Pilot.
"""

from __future__ import annotations

import random
from pathlib import Path
from dataclasses import dataclass, field

KEYS = ("up", "down", "left", "right", "enter", "escape", "tab", "shift+tab", "space", "backspace",
        "pageup", "pagedown", "home", "end", "ctrl+s", "question_mark", "ctrl+p", "delete",
        *"1234567890", *"abcdefghijklmnopqrstuvwxyz", "A", "Z", "[", "]", "/", "-", "_")
SIZES = ((80, 24), (40, 12), (120, 40), (60, 20), (200, 60), (20, 8))


@dataclass
class Outcome:
    events: int = 0
    apps: int = 0  # app starts (one more each time the app quit)
    crashes: list[str] = field(default_factory=list)
    screens: set[str] = field(default_factory=set)


def make_saves() -> None:
    """A few saves in the data folder the environment names: what Continue and Load open."""
    from ono99_tui.engine import Game
    from ono99_tui.engine.record import Record, SeatSpec
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.store.saves import SaveStore

    store = SaveStore()
    store.folder.mkdir(parents=True, exist_ok=True)
    for name, seats, plays in (("done", ("You", "Bo"), 10_000), ("going", ("You", "Bo", "Cy"), 9),
                               ("markup", ("[b]You", "[/]"), 5)):
        specs = [SeatSpec(seats[0])] + [SeatSpec(n, "bot:easy") for n in seats[1:]]
        g = Game(list(seats), DEFAULT, 7)
        rng = random.Random(7)
        while not g.over and len(g.plays) < plays:
            g.play(rng.choice(g.legal_plays()))
        store.write(name, Record.from_game(g, specs, {"rules": "standard", "finished": g.over}))
    store.path("damaged").write_text("version = 2\n[meta]\nname = 'damaged'\n")


def _where(exc: BaseException) -> str:
    """The innermost ono99 frames of the exception (or of what it wraps: a worker's error)."""
    import traceback

    inner = exc
    while inner.__cause__ is not None or getattr(inner, "error", None) is not None:
        inner = inner.__cause__ or inner.error
    frames = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in traceback.extract_tb(inner.__traceback__)
              if "ono99_tui" in f.filename]
    return " < ".join(reversed(frames[-3:])) or "?"


def _send_key(app, key: str) -> None:
    """The key event Pilot.press sends, without its waits for the machine to go idle (on a
    busy machine they cost 100+ ms a key; one pause after a burst is enough)."""
    from textual import events

    char = key if len(key) == 1 else {"space": " ", "enter": "\r", "tab": "\t", "question_mark": "?",
                                      "backspace": "\x7f", "escape": "\x1b"}.get(key)
    name = {"[": "left_square_bracket", "]": "right_square_bracket", "/": "slash", "-": "minus",
            "_": "underscore"}.get(key, key)
    event = events.Key(name, char)
    event.set_sender(app)
    app._driver.send_message(event)


async def fuzz(events: int, seed: int, outcome: Outcome | None = None) -> Outcome:
    from ono99_tui.tui.app import Ono99App

    rng = random.Random(seed)
    out = outcome or Outcome()
    size = (80, 24)
    while out.events < events:
        app = Ono99App(bot_delay=0, seed=rng.randrange(1000))
        out.apps += 1
        recent: list[str] = []
        try:
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                while out.events < events and app.is_running:
                    roll = rng.random()
                    if roll < 0.8:  # a burst of keys, as a fast typist sends them, then one pause
                        burst = [rng.choice(KEYS) for _ in range(rng.randint(1, 3))]
                        what = "keys " + " ".join(burst)
                        for key in burst:
                            _send_key(app, key)
                        out.events += len(burst) - 1
                    elif roll < 0.9:
                        w, h = app.size
                        x, y = rng.randrange(max(1, w)), rng.randrange(max(1, h))
                        what = f"click {x},{y}"
                        await pilot.click(offset=(x, y))
                    else:
                        size = rng.choice(SIZES)
                        what = f"resize {size[0]}x{size[1]}"
                        await pilot.resize_terminal(*size)
                    recent = (recent + [what])[-12:]
                    out.events += 1
                    await pilot.pause()
                    out.screens.add(type(app.screen).__name__)
        except Exception as exc:  # noqa: BLE001 - what the fuzz counts
            out.crashes.append(f"seed {seed}: {type(exc).__name__}: {str(exc)[:300]} at {_where(exc)} after {recent}")
            out.events += 1  # a crash ends that app: go on with the next
    return out
