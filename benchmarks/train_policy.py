"""Expert iteration for the hard bot: train the policy its own later turns play inside its
play-outs (``bots/trained.py``) on the search's high-budget decisions.

Two steps:

    python benchmarks/train_policy.py collect --out /tmp/ei-data.jsonl [--games 400] [--start 0]
                                              [--iterations 1152] [--seconds 1500]
    python benchmarks/train_policy.py train --data /tmp/ei-data.jsonl [--write]

``collect`` plays heads-up games (standard rules) between the expert (``hard``'s search at
``--iterations`` deals a decision, by default three times the 384 ``hard`` uses) and medium,
seats alternating, from game seeds 31,000,000 + i (apart from ``strength.py``'s seed 2026 and
``rounds.py``'s seed 7 x 100,000 + deal). At every decision of the expert's seat where ``hard``
searches (within 40 of the target or under a Double Play) with more than one card, it records
what that seat sees (hand, total, whether it owes two plays, the cards it cannot see: the player
view only) and every card's mean paired gain over medium's card in the search (points of round
survival, with its standard error), then plays the search's choice.

``train`` fits a linear model of those gains on ``trained.features`` (the card's features less
medium's card's; ridge regression, numpy here only: the bot itself is pure Python), holds out
every fifth game to pick the margin a card must clear and to report what the policy would have
gained there, and with ``--write`` writes the weights to ``ono99_tui/bots/ei_weights.py``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from ono99_tui.bots import search, trained  # noqa: E402
from ono99_tui.bots.heuristics import MEDIUM, _bust_share, choose_medium, medium_scores  # noqa: E402
from ono99_tui.bots.levels import Bot  # noqa: E402
from ono99_tui.bots.paired import best_by_gain  # noqa: E402
from ono99_tui.engine import Game  # noqa: E402
from ono99_tui.engine.rules import DEFAULT  # noqa: E402

SEED_BASE = 31_000_000
WEIGHTS_FILE = os.path.join(os.path.dirname(__file__), "..", "ono99_tui", "bots", "ei_weights.py")


def search_gains(view, rng: random.Random, iterations: int) -> tuple[str, dict[str, list[float]]]:
    """``search.choose_hard``'s loop (no reading, medium's own turns in the play-outs), returning
    medium's card and every other card's paired differences over it."""
    legal = view.legal_plays()
    prior = medium_scores(view, legal, MEDIUM)
    default = max(legal, key=lambda c: prior[c])
    diffs: dict[str, list[float]] = {c: [] for c in legal if c != default}
    n = min(iterations, iterations * search.FULL_HAND // (len(diffs) + 1))
    for _ in range(n):
        hands, draw, models = search._determinize_with_models(view, rng, None)
        seed = rng.getrandbits(32)
        base = search._outcome(view, hands, draw, default, seed, models, MEDIUM)
        for card in diffs:
            diffs[card].append(search._outcome(view, hands, draw, card, seed, models, MEDIUM) - base)
    return default, diffs


def _mean_se(xs):
    n = len(xs)
    m = sum(xs) / n
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, n - 1) / n)


def collect(args) -> None:
    t0 = time.perf_counter()
    done = 0
    with open(args.out, "a", encoding="utf-8") as out:
        for game_no in range(args.start, args.start + args.games):
            if time.perf_counter() - t0 > args.seconds:
                break
            g = Game(["A", "B"], DEFAULT, SEED_BASE + game_no, record_events=False)
            expert = game_no % 2
            medium = Bot("medium", SEED_BASE + game_no)
            rng = random.Random(f"expert/{SEED_BASE + game_no}")
            while not g.over:
                view = g.view(g.current)
                legal = view.legal_plays()
                if g.current != expert:
                    g.play(medium.choose(view))
                    continue
                if len(legal) == 1 or not search.worth_searching(view):
                    g.play(legal[0] if len(legal) == 1 else choose_medium(view, rng))
                    continue
                default, diffs = search_gains(view, rng, args.iterations)
                gains = {c: _mean_se(d) for c, d in diffs.items()}
                out.write(json.dumps({
                    "game": game_no, "hand": list(view.hand), "total": view.total,
                    "first_of_two": view.plays_owed == 2, "unseen": dict(view.unseen()),
                    "legal": legal, "default": default, "deals": len(next(iter(diffs.values()))),
                    "gain": {c: m for c, (m, _) in gains.items()}, "se": {c: s for c, (_, s) in gains.items()},
                }) + "\n")
                done += 1
                g.play(best_by_gain(default, diffs, 0.0))
            out.flush()
            print(f"game {game_no}: {done} positions, {time.perf_counter() - t0:.0f} s, load {_load()}",
                  flush=True)
    print(f"collected {done} positions in {time.perf_counter() - t0:.0f} s; load {_load()}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _phi(row: dict, card: str):
    import numpy as np

    unseen = row["unseen"]
    x = np.zeros(trained.N_FEATURES)
    for i, v in trained.features(DEFAULT, card, row["hand"], row["total"], row["first_of_two"],
                                 lambda room: _bust_share(unseen, room)):
        x[i] += v
    return x


def _design(rows):
    import numpy as np

    xs, ys, owner = [], [], []
    for k, row in enumerate(rows):
        base = _phi(row, row["default"])
        for card, gain in row["gain"].items():
            xs.append(_phi(row, card) - base)
            ys.append(gain)
            owner.append(k)
    return np.array(xs), np.array(ys), np.array(owner)


def _policy_gain(rows, coef, margin: float) -> tuple[float, float, int]:
    """Mean labelled gain (points of round survival per position) of the card the model picks,
    its standard error, and how many positions leave medium's card."""
    got, moved = [], 0
    for row in rows:
        unseen = row["unseen"]
        pol = trained.Trained(coef=tuple(coef), margin=margin)
        card = pol.pick(DEFAULT, row["legal"], row["default"], row["hand"], row["total"], row["first_of_two"],
                        True, lambda room: _bust_share(unseen, room))
        got.append(0.0 if card == row["default"] else row["gain"][card])
        moved += card != row["default"]
    m, se = _mean_se(got)
    return 100 * m, 100 * se, moved


def train(args) -> None:
    import numpy as np

    rows = _rows(args.data)
    held = [r for r in rows if r["game"] % 5 == 0]
    fit = [r for r in rows if r["game"] % 5 != 0]
    x, y, _ = _design(fit)
    lam = args.ridge * len(y)
    coef = np.linalg.solve(x.T @ x + lam * np.eye(x.shape[1]), x.T @ y)
    label = [0.0 if best_by_gain_mean(r) is None else r["gain"][best_by_gain_mean(r)] for r in held]
    print(f"{len(rows)} positions ({len(fit)} fit, {len(held)} held out, every fifth game); "
          f"{len(y)} cards; ridge {args.ridge}")
    print(f"  held out, the search's own choice (labels' best, biased up): {100 * sum(label) / len(label):+.3f}")
    best = None
    for margin in args.margins:
        m, se, moved = _policy_gain(held, coef, margin)
        mf, _, movedf = _policy_gain(fit, coef, margin)
        print(f"  margin {margin:.3f}: held out {m:+.3f} (se {se:.3f}) points a position, leaves medium's card "
              f"in {moved} of {len(held)}; fitted {mf:+.3f}, leaves it in {movedf} of {len(fit)}")
        if best is None or m > best[0]:
            best = (m, se, margin, moved)
    print(f"  chosen margin {best[2]}: held out {best[0]:+.3f} (se {best[1]:.3f}); load {_load()}")
    if args.write:
        # refit on every position for the shipped weights, margin as chosen on the held-out games
        x, y, _ = _design(rows)
        coef = np.linalg.solve(x.T @ x + args.ridge * len(y) * np.eye(x.shape[1]), x.T @ y)
        games = sorted({r["game"] for r in rows})
        with open(WEIGHTS_FILE, "w", encoding="utf-8") as fh:
            fh.write('"""Weights of the trained play-out policy (bots/trained.py). Written by\n'
                     f"benchmarks/train_policy.py from {len(rows)} positions of {len(games)} heads-up games "
                     f"(game seeds {SEED_BASE} + {games[0]}..{games[-1]}),\n"
                     f"labelled by searches of {rows[0]['deals'] if rows else 0}+ deals; ridge {args.ridge}; "
                     f"held out: {best[0]:+.3f} (se {best[1]:.3f}) points a position.\n"
                     'Do not edit by hand."""\n\n')
            fh.write(f"MARGIN = {best[2]!r}\n")
            fh.write("COEF = (\n" + "".join(f"    {v!r},\n" for v in coef.round(6).tolist()) + ")\n")
        print(f"wrote {os.path.normpath(WEIGHTS_FILE)}")


def best_by_gain_mean(row):
    """The labels' best card (None: medium's), the search's own rule with k = 0."""
    best, gain = None, 0.0
    for c, g in row["gain"].items():
        if g > gain:
            best, gain = c, g
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--out", required=True)
    c.add_argument("--games", type=int, default=400)
    c.add_argument("--start", type=int, default=0)
    c.add_argument("--iterations", type=int, default=3 * search.DEFAULT_ITERATIONS)
    c.add_argument("--seconds", type=float, default=1500)
    t = sub.add_parser("train")
    t.add_argument("--data", required=True)
    t.add_argument("--ridge", type=float, default=1e-4)
    t.add_argument("--margins", type=float, nargs="+", default=[0.0, 0.005, 0.01, 0.02, 0.04])
    t.add_argument("--write", action="store_true")
    args = ap.parse_args()
    collect(args) if args.step == "collect" else train(args)


if __name__ == "__main__":
    main()
