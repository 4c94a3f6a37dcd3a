"""Expert iteration for the hard bot: train the policy its own later turns play inside its
play-outs (``bots/trained.py``) on the search's high-budget decisions.

Two steps:

    python benchmarks/train_policy.py collect --out /tmp/ei-data.jsonl [--games 400] [--start 0]
                                              [--iterations 1152] [--seconds 1500]
    python benchmarks/train_policy.py train --data /tmp/ei-data.jsonl [--write]
    python benchmarks/train_policy.py alone [--deals 2000] [--start 0] [--seed 7]

``collect`` plays heads-up games (standard rules) between the expert (``hard``'s search at
``--iterations`` deals a decision, by default three times the 384 ``hard`` uses) and medium,
seats alternating, from game seeds 31,000,000 + i (apart from ``strength.py``'s seed 2026 and
``rounds.py``'s seed 7 x 100,000 + deal). At every decision of the expert's seat where ``hard``
searches (within 40 of the target or under a Double Play) with more than one card, it records
what that seat sees (hand, total, whether it owes two plays, the cards it cannot see: the player
view only) and every card's mean paired gain over medium's card in the search (points of round
survival, with its standard error), then plays the search's choice.

``train`` fits a linear model on ``trained.features`` (by default a softmax policy over each
position's cards, fitted to the gain it expects; or ridge regression of each card's gain on its
features less medium's card's; plain Python, like the bot), holds out
every fifth game to pick the margin a card must clear and to report what the policy would have
gained there, and with ``--write`` writes the weights to ``ono99_tui/bots/ei_weights.py``.
``alone`` plays the shipped policy on its own (medium corrected by it wherever hard would search)
against medium in paired heads-up first rounds, as ``rounds.py`` pairs them (a few seconds).
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


def _phi(row: dict, card: str) -> dict[int, float]:
    unseen = row["unseen"]
    x: dict[int, float] = {}
    for i, v in trained.features(DEFAULT, card, row["hand"], row["total"], row["first_of_two"],
                                 lambda room: _bust_share(unseen, room), card == row["default"]):
        x[i] = x.get(i, 0.0) + v
    return x


def _busts(row, card: str) -> bool:
    """A card that busts: the policy never plays one in medium's place, so it is not trained on."""
    return card in trained.C.ADDERS and row["total"] + trained.C.EFFECT[card] >= DEFAULT.target


def _design(rows) -> list[tuple[dict[int, float], float]]:
    """(the card's features less medium's card's, the card's gain over medium's) for every card."""
    out = []
    for row in rows:
        base = _phi(row, row["default"])
        for card, gain in row["gain"].items():
            if _busts(row, card):
                continue
            x = _phi(row, card)
            for i, v in base.items():
                x[i] = x.get(i, 0.0) - v
            out.append(({i: v for i, v in x.items() if v}, gain))
    return out


def _ridge(data, ridge: float) -> list[float]:
    """Least squares with a ridge of ``ridge`` x the count of cards, solved in plain Python
    (Gaussian elimination with partial pivoting; a hundred-odd features)."""
    n = trained.N_FEATURES
    a = [[0.0] * n for _ in range(n)]
    b = [0.0] * n
    for x, y in data:
        items = list(x.items())
        for i, vi in items:
            b[i] += vi * y
            row = a[i]
            for j, vj in items:
                row[j] += vi * vj
    for i in range(n):
        a[i][i] += ridge * len(data)
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[piv], b[col], b[piv] = a[piv], a[col], b[piv], b[col]
        p = a[col][col]
        for r in range(col + 1, n):
            f = a[r][col] / p
            if f:
                ar, ac = a[r], a[col]
                for c in range(col, n):
                    ar[c] -= f * ac[c]
                b[r] -= f * b[col]
    w = [0.0] * n
    for i in range(n - 1, -1, -1):
        w[i] = (b[i] - sum(a[i][j] * w[j] for j in range(i + 1, n))) / a[i][i]
    return w


def _groups(rows) -> list[list[tuple[dict[int, float], float]]]:
    """Per position: (features, gain over medium's card) of every legal card, medium's (gain 0)
    included."""
    out = []
    for row in rows:
        cards = [(_phi(row, row["default"]), 0.0)]
        cards += [(_phi(row, c), g) for c, g in row["gain"].items() if not _busts(row, c)]
        out.append(cards)
    return out


def _softmax_fit(groups, l2: float, steps: int, lr: float = 0.05) -> list[float]:
    """A softmax policy over each position's cards, fitted to the most gain it expects:
    maximise the mean over positions of sum_c pi(c) gain(c) - l2 |w|^2 (gains in points of round
    survival), by Adam on the exact gradient. Its deterministic play is the card of highest
    score, which ``Trained.pick`` plays when it beats medium's by the margin."""
    n = trained.N_FEATURES
    w = [0.0] * n
    m1, m2 = [0.0] * n, [0.0] * n
    for t in range(1, steps + 1):
        grad = [-2 * l2 * x for x in w]
        for cards in groups:
            z = [sum(w[i] * v for i, v in x.items()) for x, _ in cards]
            top = max(z)
            e = [math.exp(v - top) for v in z]
            tot = sum(e)
            p = [v / tot for v in e]
            mean = sum(pc * 100 * g for pc, (_, g) in zip(p, cards))
            for pc, (x, g) in zip(p, cards):
                f = pc * (100 * g - mean) / len(groups)
                if f:
                    for i, v in x.items():
                        grad[i] += f * v
        for i in range(n):  # Adam, ascending
            m1[i] = 0.9 * m1[i] + 0.1 * grad[i]
            m2[i] = 0.999 * m2[i] + 0.001 * grad[i] ** 2
            w[i] += lr * (m1[i] / (1 - 0.9 ** t)) / (math.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)
    return w


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
    rows = _rows(args.data)
    held = [r for r in rows if r["game"] % 5 == 0]
    fit = [r for r in rows if r["game"] % 5 != 0]
    data = _design(fit)
    coef = _ridge(data, args.ridge) if args.model == "ridge" else _softmax_fit(_groups(fit), args.l2, args.steps)
    label = [0.0 if best_by_gain_mean(r) is None else r["gain"][best_by_gain_mean(r)] for r in held]
    print(f"{len(rows)} positions ({len(fit)} fit, {len(held)} held out, every fifth game); "
          f"{len(data)} cards; {args.model}, ridge {args.ridge}, l2 {args.l2}, steps {args.steps}")
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
        coef = (_ridge(_design(rows), args.ridge) if args.model == "ridge"
                else _softmax_fit(_groups(rows), args.l2, args.steps))
        games = sorted({r["game"] for r in rows})
        with open(WEIGHTS_FILE, "w", encoding="utf-8") as fh:
            fh.write('"""Weights of the trained play-out policy (bots/trained.py). Written by\n'
                     f"benchmarks/train_policy.py from {len(rows)} positions of {len(games)} heads-up games "
                     f"(game seeds {SEED_BASE} + {games[0]}..{games[-1]}),\n"
                     f"labelled by searches of up to {max(r['deals'] for r in rows)} deals; {args.model}, ridge {args.ridge}, "
                     f"l2 {args.l2}, steps {args.steps};\n"
                     f"held out: {best[0]:+.3f} (se {best[1]:.3f}) points a position.\n"
                     'Do not edit by hand."""\n\n')
            fh.write(f"MARGIN = {best[2]!r}\n")
            fh.write("COEF = (\n" + "".join(f"    {round(v, 6)!r},\n" for v in coef) + ")\n")
        print(f"wrote {os.path.normpath(WEIGHTS_FILE)}")


def alone(args) -> None:
    """The trained policy on its own against medium: heads-up first rounds of rounds.py's deals
    (game seed ``seed`` x 100,000 + deal, the same bots' seeds), each seat played once by medium
    and once by medium corrected by the policy wherever hard would search, paired."""
    policy = trained.trained_policy()

    def first_round(deal: int, seat: int, use: bool) -> int:
        g = Game(["P0", "P1"], DEFAULT, args.seed * 100_000 + deal, record_events=False)
        bots = [Bot("medium", deal * 10 + s) for s in range(2)]
        while g.round_no == 1 and not g.over:
            view = g.view(g.current)
            card = bots[g.current].choose(view)  # (always asked: the bots' random streams stay paired)
            if use and g.current == seat and len(view.legal_plays()) > 1:
                unseen = view.unseen()
                card = policy.pick(view.rules, view.legal_plays(), card, view.hand, view.total,
                                   view.plays_owed == 2, True, lambda room: _bust_share(unseen, room))
            g.play(card)
        return int(g.last_loser == seat)

    d = [first_round(deal, seat, False) - first_round(deal, seat, True)
         for deal in range(args.start, args.start + args.deals) for seat in range(2)]
    m, se = _mean_se(d)
    print(f"the trained policy alone vs medium, heads-up, deals {args.start}-{args.start + args.deals - 1} "
          f"(seed {args.seed}), every seat: {len(d)} paired rounds, gain {100 * m:+.2f} points of round "
          f"survival (se {100 * se:.2f}), outcomes differ in {sum(1 for x in d if x)}; load {_load()}")


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
    t.add_argument("--model", choices=("softmax", "ridge"), default="softmax")
    t.add_argument("--ridge", type=float, default=1e-4)
    t.add_argument("--l2", type=float, default=1e-3)
    t.add_argument("--steps", type=int, default=200)
    t.add_argument("--margins", type=float, nargs="+", default=[0.0, 0.005, 0.01, 0.02, 0.04])
    t.add_argument("--write", action="store_true")
    a = sub.add_parser("alone")
    a.add_argument("--deals", type=int, default=2000)
    a.add_argument("--start", type=int, default=0)
    a.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    {"collect": collect, "train": train, "alone": alone}[args.step](args)


if __name__ == "__main__":
    main()
