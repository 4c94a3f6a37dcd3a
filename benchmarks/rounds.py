"""Paired rounds: does a bot lose fewer rounds than medium in the same seat of the same deal?

Between ``regret.py`` (decisions, valued with the hidden hands known) and ``strength.py``
(whole games, thousands of CPU-seconds a table) sits the round. Each deal's first round is
played twice with the same seeds: once with the tested bot in one seat, once with medium
there, the same bots in every other seat (medium, or ``--others``). The two rounds are the
same until the tested bot first leaves medium's card, so the difference in "this seat lost
the round" is paired and its noise is only that of the rounds where it differed. Every seat
of every deal is played. Under tokens it also turns the round edge into a game win rate, in
a model checked against oracle-hands' 4,000 games (docs/bots.md).

By the performance-difference identity, the round-level gain is the sum over the bot's own
decisions of what each gains over medium's card with medium playing afterwards: what
``regret.py`` measures one decision at a time. So this checks that the decision-level gains add
up in play, on positions the bot itself reaches.

    python benchmarks/rounds.py [--bot hard] [--players 4] [--deals 200] [--jobs 2] [--rules standard]
                                [--others medium|easy,random|...] [--start 0] [--seed 7] [--against medium]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from ono99_tui.bots import search  # noqa: E402
from ono99_tui.bots.heuristics import TUNED  # noqa: E402
from ono99_tui.bots.levels import Bot  # noqa: E402
from ono99_tui.bots.trained import trained_policy  # noqa: E402
from ono99_tui.bots.stakes import win_chance  # noqa: E402
from ono99_tui.engine import Game  # noqa: E402
from ono99_tui.store.rule_presets import resolve  # noqa: E402


#: variants of a level, to pair a change against it (--bot or --against): the search constants
#: they set. "hard-own-tuned": its own turns and play-outs by heuristics.TUNED (off in hard).
VARIANTS = {"hard-own-tuned": {"OWN": TUNED},
            # its next turn in the play-outs chosen from what it would know then (bots/lookahead.py)
            "hard-look": {"LOOKAHEAD": True}, "hard-look-k1": {"LOOKAHEAD": True, "LOOK_K": 1.0},
            "hard-look-256": {"LOOKAHEAD": True, "LOOK_DEALS": 256},
            # its own later turns in the play-outs by the policy trained on its searches (bots/trained.py)
            "hard-ei": {"OWN": trained_policy()}}


def first_round(players: int, deal: int, seed: int, seat: int, level: str, rules,
                others=("medium",)) -> tuple[int, float, int, int]:
    """Play deal ``deal``'s first round with ``level`` in ``seat`` and ``others`` (cycled) in the
    other seats: (loser, the points the others added on average less this seat's (R9.1; 0 under
    tokens), decisions by ``seat``, decisions where it left medium's card)."""
    settings = VARIANTS.get(level, {})
    old = {k: getattr(search, k) for k in settings}
    for k, v in settings.items():
        setattr(search, k, v)
    try:
        return _first_round(players, deal, seed, seat, level.split("-")[0] if settings else level, rules, others)
    finally:
        for k, v in old.items():
            setattr(search, k, v)


def _first_round(players, deal, seed, seat, level, rules, others):
    g = Game([f"P{i}" for i in range(players)], rules, seed * 100_000 + deal, record_events=False)
    rest = [others[(deal + i) % len(others)] for i in range(players - 1)]
    levels = rest[:seat] + [level] + rest[seat:]
    bots = [Bot(lv, deal * 10 + s) for s, lv in enumerate(levels)]
    shadow = Bot("medium", deal * 10 + seat) if level != "medium" else None
    decisions = departures = 0
    while g.round_no == 1 and not g.over:
        view = g.view(g.current)
        card = bots[g.current].choose(view)
        if g.current == seat and len(set(view.legal_plays())) > 1:
            decisions += 1
            if shadow is not None and card != shadow.choose(view):
                departures += 1
        g.play(card)
    margin = sum(g.points[s] for s in range(players) if s != seat) / (players - 1) - g.points[seat]
    return g.last_loser, margin, decisions, departures


def _pair(args) -> tuple[int, int, int, int, float, float, float]:
    players, deal, seed, seat, level, rules_spec, others, against = args
    rules = resolve(rules_spec)[0]
    t0 = time.process_time()
    lost_bot, margin_bot, decisions, departures = first_round(players, deal, seed, seat, level, rules, others)
    spent = time.process_time() - t0
    lost_med, margin_med, _, _ = first_round(players, deal, seed, seat, against, rules, others)
    return (int(lost_bot == seat), int(lost_med == seat), decisions, departures, spent,
            margin_bot, margin_med)


def game_rate(r: float, players: int, lives: int = 4) -> float:
    """The chance a player wins a tokens game (R8.3: the last one left) when its chance of
    losing each round is r times an equal player's, the others sharing the rest equally
    (bots/stakes.py). Default lives: 3 tokens and the extra life (R8.1, R8.2)."""
    return win_chance(lives, (lives,) * (players - 1), edge=r)


def _mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    return mean, math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="hard")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--others", default="medium", help="the other seats' levels, cycled (e.g. easy,random)")
    ap.add_argument("--against", default="medium", help="the level in the same seat the bot is paired "
                    f"against: medium, another level, or a variant ({', '.join(VARIANTS)})")
    args = ap.parse_args()
    others = tuple(args.others.split(","))
    tasks = [(args.players, d, args.seed, s, args.bot, args.rules, others, args.against)
             for d in range(args.start, args.start + args.deals) for s in range(args.players)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(_pair, tasks, chunksize=4))
    wall = time.perf_counter() - t0
    n = len(rows)
    bot = sum(r[0] for r in rows) / n
    med = sum(r[1] for r in rows) / n
    mean, se = _mean_se([r[1] - r[0] for r in rows])  # rounds medium lost that the bot did not
    decisions = sum(r[2] for r in rows)
    departures = sum(r[3] for r in rows)
    differ = sum(1 for r in rows if r[0] != r[1])
    load = os.getloadavg()[0]
    print(f"{args.bot} vs {args.against} in the same seat, {args.players} players, deals {args.start}-"
          f"{args.start + args.deals - 1} (seed {args.seed}), every seat: {n} paired rounds, "
          f"rules {args.rules}, others {args.others}")
    print(f"  rounds lost: {args.bot} {100 * bot:.1f}%, {args.against} {100 * med:.1f}% "
          f"(fair {100 / args.players:.1f}%)")
    print(f"  gain: {100 * mean:+.2f} points of round survival (se {100 * se:.2f}); "
          f"outcomes differ in {differ} rounds")
    if med and args.rules == "standard":
        low, mid, high = (100 * game_rate(x / med, args.players) for x in (bot + se, bot, bot - se))
        print(f"  {args.bot} loses r = {bot / med:.3f} times {args.against}'s share of rounds; in a game of "
              f"such rounds (game_rate) it wins {mid:.1f}% (fair {100 / args.players:.1f}%), "
              f"{low:.1f}-{high:.1f}% with r one standard error either way")
    if any(r[5] or r[6] for r in rows):
        pts, pts_se = _mean_se([r[5] - r[6] for r in rows])
        print(f"  points (R9.1), the others' mean less this seat's: {args.bot} "
              f"{sum(r[5] for r in rows) / n:+.2f}, {args.against} {sum(r[6] for r in rows) / n:+.2f}; "
              f"gain {pts:+.2f} a round (se {pts_se:.2f})")
    print(f"  decisions with a choice {decisions} ({decisions / n:.1f} a round), left medium's card "
          f"in {departures} ({100 * departures / max(1, decisions):.1f}%); per decision "
          f"{100 * mean * n / max(1, decisions):+.2f} points")
    print(f"  {args.bot} CPU {sum(r[4] for r in rows):.0f} s; wall {wall:.0f} s with {args.jobs} jobs; "
          f"load average {load:.2f}")


if __name__ == "__main__":
    main()
