"""What each bot's decision is worth, judged with the hidden hands known: a quick yardstick
for changes to the hard bot, thousands of decisions a minute instead of games an hour.

Collects positions with a choice from games between medium bots (the tables the strength
targets are set at), then values every legal card of each position by many play-outs from
the *real* hands, the real draw-pile contents reshuffled (nobody knows its order) and every
player playing as medium afterwards (they are medium bots): ``truth``. Each variant then
decides every position as it would in play, from the player view only, and is scored by the
truth of the card it chose. Variants are compared on the same positions and the same truth
(paired), so a difference of a few hundredths of a point of round survival shows; the
report gives the mean value given up against the best card ("regret"), the difference to
medium with its standard error, how often the variant leaves medium's card, and its time.

A decision's value here is one round's survival (R8, tokens) with the decider playing medium
from the next turn on: the hard bot's own objective. It says nothing about game-level play
(who is close to out) or points rules; the strength tables in ``strength.py`` do.

    python benchmarks/regret.py [--players 4] [--positions 600] [--truth 400] [--variants medium,hard,v3,...]
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import random
import statistics
import time
from collections import Counter

from ono99_tui.bots import search
from ono99_tui.bots.heuristics import choose_medium
from ono99_tui.bots.levels import Bot
from ono99_tui.bots.rollout import play_out_sim
from ono99_tui.engine import Game
from ono99_tui.engine.rules import DEFAULT
from ono99_tui.store.rule_presets import resolve


def positions(players: int, count: int, seed: int = 11, rules=DEFAULT) -> list:
    """(view, the others' real hands, the real draw pile's cards) where the mover has a choice."""
    rng = random.Random(seed)
    found, game_no = [], 0
    while len(found) < count:
        g = Game([f"P{i}" for i in range(players)], rules, seed * 10_000 + game_no, record_events=False)
        bots = [Bot("medium", game_no * 10 + i) for i in range(players)]
        game_no += 1
        while not g.over:
            view = g.view(g.current)
            if len(set(view.legal_plays())) > 1 and rng.random() < 0.2:
                hands = {s: list(g.hands[s]) for s in view.in_round if s != view.seat}
                found.append((view, hands, list(g.draw)))
            g.play(bots[g.current].choose(view))
    return found[:count]


def truth(view, hands, pile, n: int, rng: random.Random, game: bool = False) -> dict[str, float]:
    """Each legal card's round survival, from the real hands, the pile reshuffled, medium for all;
    ``game``: instead, the chance of winning the game the round leaves (bots/stakes.py)."""
    legal = list(dict.fromkeys(view.legal_plays()))
    won = dict.fromkeys(legal, 0.0)
    policies = {s: "medium" for s in hands}
    for _ in range(n):
        draw = pile[:]
        rng.shuffle(draw)
        seed = rng.getrandbits(32)
        for card in legal:
            sim = play_out_sim(view, hands, draw, card, seed, search.MAX_ROLLOUT_PLAYS, policies)
            if game:
                won[card] += search.round_value(view, sim)
            else:
                won[card] += 0.5 if sim.loser is None else float(sim.loser != view.seat)
    return {c: w / n for c, w in won.items()}


def _with(settings: dict):
    """Set module constants of bots.search / bots.belief for a variant; returns an undo."""
    from ono99_tui.bots import belief
    old = []
    for key, value in settings.items():
        mod = belief if key in ("PRIOR", "NOISE", "TRIES", "DEPTH") else search
        old.append((mod, key, getattr(mod, key)))
        setattr(mod, key, value)

    def undo():
        for mod, key, value in old:
            setattr(mod, key, value)
    return undo


def _exact_reading(view, rng, proposals: int):
    """Deals whose hands are drawn from the exact posterior given every play of the round, judged
    as medium's (importance resampling: uniform proposals weighted by their exact likelihood)."""
    from ono99_tui.bots import belief
    from ono99_tui.bots.belief import Reader

    old = belief.PRIOR
    belief.PRIOR = {"medium": 1.0}
    try:
        reader = Reader(view)
        others = [s for s in view.in_round if s != view.seat]
        pool = list(view.unseen().elements())
        weights: dict = {}
        cands = []
        for _ in range(proposals):
            picks = rng.sample(range(len(pool)), sum(view.hand_sizes[s] for s in others))
            hands, at = {}, 0
            w = 1.0
            for s in others:
                hand = tuple(sorted(pool[i] for i in picks[at:at + view.hand_sizes[s]]))
                at += view.hand_sizes[s]
                key = (s, hand)
                if key not in weights:
                    weights[key] = reader.likelihood(s, list(hand), "medium")
                w *= weights[key]
                hands[s] = list(hand)
            cands.append((hands, w))
    finally:
        belief.PRIOR = old
    total = sum(w for _, w in cands)
    cum = list(__import__("itertools").accumulate(w for _, w in cands))

    def deal():
        import bisect
        hands, _ = cands[min(len(cands) - 1, bisect.bisect_right(cum, rng.random() * total))]
        left = Counter(view.unseen())
        for h in hands.values():
            left.subtract(h)
        draw = list((+left).elements())
        rng.shuffle(draw)
        return {s: list(h) for s, h in hands.items()}, draw
    return deal


def decide(name: str, view, hands, pile, seed: int) -> str:
    rng = random.Random(seed)
    spec = VARIANTS[name]
    if spec == "medium":
        return choose_medium(view, rng)
    settings, kwargs = spec[0], dict(spec[1])
    undo = _with(settings)
    try:
        proposals = kwargs.pop("exact_read", 0)
        if proposals:
            return search.choose_hard(view, rng, deal=_exact_reading(view, rng, proposals), **kwargs)
        if kwargs.pop("real_hands", False):
            def deal():
                draw = pile[:]
                rng.shuffle(draw)
                return hands, draw
            return search.choose_hard(view, rng, deal=deal, **kwargs)
        return search.choose_hard(view, rng, **kwargs)
    finally:
        undo()


V3 = {"iterations": 96, "k": 1.0}  # hard before v4: 96 deals read from the plays, each played once, k = 1
READ = {"INFERENCE": True}  # the reading of the plays (off in the hard bot since v4)
V3_SET = {**READ, "PILES_PER_DEAL": 1}

#: name -> "medium" or (module constants to set, choose_hard keyword arguments)
VARIANTS = {
    "medium": "medium",
    "hard": ({}, {}),  # the hard bot as it is (v4: 384 unread deals, k = 0)
    "v3": (V3_SET, V3),
    "hands-known": ({}, {**V3, "real_hands": True}),  # oracle-hands: the honest ceiling of reading
    "v3-no-reading": ({"INFERENCE": False, "PILES_PER_DEAL": 1}, V3),
    "v3-k0": (V3_SET, {**V3, "k": 0.0}),
    "v3-search-everywhere": ({**V3_SET, "SEARCH_ROOM": 200}, V3),
    "v3-helpers-1x": ({**V3_SET, "HELPER_WEIGHT": 1.0}, V3),
    "v3-tries96": ({**V3_SET, "TRIES": 96}, V3),
    "v3-medium-prior": ({**V3_SET, "PRIOR": {"medium": 1.0}}, V3),
    "v4": ({"GAME_VALUE": False}, {}),  # valuing a round by its survival only (at any table size)
    "points-linear": ({"RACE": False}, {}),  # points heads-up: v5's value (points against the other's)
    "room20": ({"SEARCH_ROOM": 20}, {}),  # search only within 20 of the target (or under a Double Play)
    "room30": ({"SEARCH_ROOM": 30}, {}),
    "room60": ({"SEARCH_ROOM": 60}, {}),  # search within 60 of the target (hard: 40)
    "everywhere": ({"SEARCH_ROOM": 200}, {}),  # search every decision with a choice
    "hard-helpers2": ({"HELPER_WEIGHT": 2.0}, {}),
    "hard-helpers5": ({"HELPER_WEIGHT": 5.0}, {}),
    "hard-uncapped": ({"FULL_HAND": 99}, {}),  # 384 deals however many cards (before the play-out budget)
    "hard-256": ({}, {"iterations": 256}),
    "hard-768": ({}, {"iterations": 768}),
    "hard-k0.5": ({}, {"k": 0.5}),
    "hard-k1": ({}, {"k": 1.0}),
    "hard-k2": ({}, {"k": 2.0}),
    "read": (READ, {}),  # 96 readings x 4 draw piles
    "read-medium-prior": ({**READ, "PRIOR": {"medium": 1.0}}, {}),
    "read-depth6": ({**READ, "DEPTH": 6}, {}),
    "read-depth3": ({**READ, "DEPTH": 3}, {}),
    "read-tries96": ({**READ, "TRIES": 96}, {}),
    "read-piles2": ({**READ, "PILES_PER_DEAL": 2}, {}),
    "read-piles8": ({**READ, "PILES_PER_DEAL": 8}, {}),
    "exact-read-2000": ({}, {"exact_read": 2000}),
    "exact-read-500": ({}, {"exact_read": 500}),
    "read-medium-full": ({**READ, "PRIOR": {"medium": 1.0}, "PILES_PER_DEAL": 1}, {}),  # 384 readings, each once
    "read-medium-flat": ({**READ, "PRIOR": {"medium": 1.0}, "PILES_PER_DEAL": 1, "HELPER_WEIGHT": 1.0}, {}),
    "read-medium-flat-t96": ({**READ, "PRIOR": {"medium": 1.0}, "PILES_PER_DEAL": 1, "HELPER_WEIGHT": 1.0,
                              "TRIES": 96}, {}),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--positions", type=int, default=600)
    ap.add_argument("--truth", type=int, default=400, help="play-outs per legal card for the truth")
    ap.add_argument("--variants", default="medium,v3,hard,hands-known")
    ap.add_argument("--objective", choices=("round", "game"), default="round",
                    help="value a card by the round's survival, or by the chance of winning the game")
    ap.add_argument("--rules", default="standard", metavar="PRESET|FILE",
                    help="house rules of the games the positions come from (default: standard)")
    ap.add_argument("--against", default="v3", help="the variant the others are paired against")
    ap.add_argument("--cache", default="", help="keep the positions and their truth in this file "
                    "(a benchmark's own scratch file: pickle) and reuse them while the settings match")
    args = ap.parse_args()
    names = args.variants.split(",")
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise SystemExit(f"--variants: unknown {', '.join(unknown)} (known: {', '.join(VARIANTS)})")
    t0 = time.perf_counter()
    key = (args.players, args.positions, args.truth, args.objective, args.rules)
    rules = resolve(args.rules)[0]
    cached = None
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, "rb") as f:
            cached = pickle.load(f)
    if cached and cached[0] == key:
        found, truths = cached[1], cached[2]
    else:
        found = positions(args.players, args.positions, rules=rules)
        rng = random.Random(5)
        undo = _with({"GAME_VALUE": True})
        try:
            truths = [truth(v, h, p, args.truth, rng, args.objective == "game") for v, h, p in found]
        finally:
            undo()
        if args.cache:
            with open(args.cache, "wb") as f:
                pickle.dump((key, found, truths), f)
    print(f"{len(found)} positions with a choice, {args.players} players (medium table); truth: "
          f"{args.truth} play-outs per card, objective {args.objective}, rules {args.rules} ({time.perf_counter() - t0:.0f} s); load average "
          f"{os.getloadavg()[0]:.1f}")
    best = [max(t.values()) for t in truths]
    med_cards = [choose_medium(v, random.Random(i)) for i, (v, _, _) in enumerate(found)]
    med = [t[c] for c, t in zip(med_cards, truths)]
    print(f"{'variant':<18} {'regret':>8} {'vs medium':>10} {'(se)':>7} {'leaves medium':>14} {'ms/decision':>12}")
    values: dict[str, list[float]] = {}
    for name in names:
        got, times, left = [], [], 0
        for i, ((view, hands, pile), t) in enumerate(zip(found, truths)):
            start = time.perf_counter()
            card = decide(name, view, hands, pile, seed=i)
            times.append(time.perf_counter() - start)
            got.append(t[card])
            left += card != med_cards[i]
        diffs = [g - m for g, m in zip(got, med)]
        se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0
        regret = statistics.mean(b - g for b, g in zip(best, got))
        print(f"{name:<18} {100 * regret:>7.2f}p {100 * statistics.mean(diffs):>+9.2f}p {100 * se:>6.2f}p "
              f"{100 * left / len(found):>13.1f}% {1000 * statistics.median(times):>11.1f}", flush=True)
        values[name] = got
    base = args.against if args.against in values else None
    if base:
        print(f"paired against {base} (mean difference, its standard error):")
        for name, got in values.items():
            d = [g - b for g, b in zip(got, values[base])]
            if name != base and len(d) > 1:
                print(f"  {name:<18} {100 * statistics.mean(d):+.2f}p ({100 * statistics.stdev(d) / math.sqrt(len(d)):.2f}p)")
    unit = "round survival" if args.objective == "round" else "the chance of winning the game"
    print(f"(points of {unit} per decision; 'vs medium': mean value over medium's card, paired)")


if __name__ == "__main__":
    main()
