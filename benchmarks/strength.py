"""Bot strength tables for docs/bots.md: every level against the one below it.

Heads-up and 4-player (one of the level, three of the level below), duplicate
style (every seating of every deal), with 95% Wilson intervals, plus two
yardsticks never offered to players, against medium: the oracle (sees every
card) and the hands oracle (hard's search given the others' real hands).
Each row also gives round-level rates (rounds lost per round played, beside
what an equal player would lose): a heads-up game is first to four lost
rounds, so a game edge is about twice the round edge.

Results are appended to a JSON lines file as each pairing finishes; each row
records its rules, seed, tag and the range of game indices it played. A long
run can be played in parts (``--start``, a multiple of the seat count): the
report merges rows of the same table, rules, seed and tag whose ranges do not
overlap into one row.

    python benchmarks/strength.py [--games 2000] [--jobs 2] [--rules points] [--start 0]
                                  [--only hard] [--seats 2,4] [--bots hard,easy,random,random]
                                  [--tag NAME] [--out benchmarks/strength.jsonl]
    python benchmarks/strength.py --report [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

from ono99_tui.lab import simulate as sim
from ono99_tui.lab.stats import wilson

PAIRINGS = [
    ("easy", "random"), ("medium", "easy"), ("hard", "medium"), ("oracle", "medium"),
    ("oracle-hands", "medium"),
]


def tables(pairs, games: int, seats=(2, 4)):
    for n in seats:
        for top, below in pairs:
            yield [top] + [below] * (n - 1), games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--start", type=int, default=0, help="index of the first game (a multiple of the seats)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rules", default="standard", metavar="PRESET|FILE", help="house rules (default: standard)")
    ap.add_argument("--only", default="", help="comma-separated top levels to run (default: all)")
    ap.add_argument("--seats", default="2,4", help="table sizes to run (default: 2,4)")
    ap.add_argument("--bots", default="", help="one table, its levels seat by seat (overrides --only/--seats)")
    ap.add_argument("--tag", default="", help="a name for this version of the bots (kept in the row)")
    ap.add_argument("--out", default="benchmarks/strength.jsonl")
    ap.add_argument("--report", action="store_true", help="print the Markdown table from --out and stop")
    args = ap.parse_args()
    if args.report:
        report(args.out)
        return
    from ono99_tui.store.rule_presets import resolve

    rules, label = resolve(args.rules)
    if args.bots:
        todo = [(sim.parse_bots(args.bots, allow_oracle=True), args.games)]
    else:
        only = set(filter(None, args.only.split(",")))
        pairs = [p for p in PAIRINGS if not only or p[0] in only]
        todo = list(tables(pairs, args.games, [int(n) for n in args.seats.split(",")]))
    for levels, games in todo:
        if args.start % len(levels):
            raise SystemExit(f"--start {args.start}: must be a multiple of the {len(levels)} seats")
        games = sim.games_needed(games, len(levels))
        tally = sim.Tally(levels)
        start = time.perf_counter()
        for result in sim.run_games(levels, rules, args.seed, games, args.jobs, start=args.start):
            tally.add(result)
        summary = tally.summary()
        summary.update(bots=levels, elapsed_s=round(time.perf_counter() - start, 1), seed=args.seed,
                       rules=label, range=[args.start, args.start + games], tag=args.tag,
                       seat_wins=[s["wins"] for s in summary["by_seat"]], loadavg=_loadavg())
        print(line(summary), flush=True)
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(summary) + "\n")


def _loadavg() -> str:
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return ""


def line(s: dict) -> str:
    top = s["levels"][0]
    text = (f"{','.join(s['bots']):<28} [{s.get('rules', 'standard')}{'/' + s['tag'] if s.get('tag') else ''}] "
            f"{top['wins']:>5}/{s['games']} = {100 * top['win_rate']:.1f}% "
            f"[{100 * top['ci95'][0]:.1f}, {100 * top['ci95'][1]:.1f}] fair {100 * top['fair_share']:.0f}%")
    if "rounds_played" in top:
        text += (f"; rounds lost {100 * top['round_loss_rate']:.1f}% [{100 * top['round_loss_ci95'][0]:.1f}, "
                 f"{100 * top['round_loss_ci95'][1]:.1f}] fair {100 * top['round_loss_fair']:.1f}% "
                 f"of {top['rounds_played']}")
    return text + f" ({s['elapsed_s']} s)"


def key(s: dict) -> tuple:
    return (tuple(s.get("bots") or [lv["level"] for lv in s["levels"]]), s.get("rules", "standard"),
            s.get("seed", 2026), s.get("tag", ""))


def merge(rows: list[dict]) -> list[dict]:
    """Rows of one table, rules, seed and tag, played over ranges that do not overlap, as one row
    (in the order each table first appears). Overlapping ranges are kept apart: a rerun of the same
    games is not more evidence."""
    groups: dict[tuple, list[list[dict]]] = {}
    for s in rows:
        parts = groups.setdefault(key(s), [[]])
        rng = s.get("range", [0, s["games"]])
        for part in parts:
            if all(rng[1] <= p.get("range", [0, p["games"]])[0] or rng[0] >= p.get("range", [0, p["games"]])[1]
                   for p in part):
                part.append(s)
                break
        else:
            parts.append([s])
    return [_merged(part) for parts in groups.values() for part in parts]


def _merged(part: list[dict]) -> dict:
    if len(part) == 1:
        return part[0]
    first = part[0]
    n = sum(p["games"] for p in part)
    levels = []
    for i, lv in enumerate(first["levels"]):
        wins = sum(p["levels"][i]["wins"] for p in part)
        row = dict(lv, wins=wins, win_rate=wins / n, ci95=list(wilson(wins, n)))
        if all("rounds_played" in p["levels"][i] for p in part):
            got = Counter()
            for p in part:
                got.update({k: p["levels"][i][k] for k in ("rounds_played", "rounds_lost", "rounds_fair_sum")})
            row.update(sim.round_rates(got["rounds_played"], got["rounds_lost"], got["rounds_fair_sum"]))
        levels.append(row)
    ranges = sorted(tuple(p.get("range", [0, p["games"]])) for p in part)
    return dict(first, games=n, levels=levels, elapsed_s=sum(p["elapsed_s"] for p in part),
                range=[list(r) for r in ranges], parts=len(part),
                loadavg=[p.get("loadavg", "") for p in part])


def report(path: str) -> None:
    """The Markdown table for docs/bots.md, from the results file (parts of a run merged)."""
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    print("| table | rules | games | wins of the first level | win rate | 95% CI | fair share "
          "| rounds lost (of played) | 95% CI | fair | time |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|---:|---:|")
    for s in merge(rows):
        top = s["levels"][0]
        others = Counter(s.get("bots", [])[1:]) or Counter({s["levels"][1]["level"]: s["seats"] - 1})
        rest = ", ".join(f"{n} {lv}" for lv, n in others.items())
        table = f"1 {top['level']} vs {rest}" if s["seats"] > 2 else f"{top['level']} vs {s['levels'][1]['level']}"
        if s.get("tag"):
            table += f" ({s['tag']})"
        rounds = " | | "
        if "rounds_played" in top:
            rounds = (f"{100 * top['round_loss_rate']:.1f}% (of {top['rounds_played']:,}) | "
                      f"{100 * top['round_loss_ci95'][0]:.1f}-{100 * top['round_loss_ci95'][1]:.1f}% | "
                      f"{100 * top['round_loss_fair']:.1f}%")
        print(f"| {table} | {s.get('rules', 'standard')} | {s['games']:,} | {top['wins']:,} | "
              f"{100 * top['win_rate']:.1f}% | {100 * top['ci95'][0]:.1f}-{100 * top['ci95'][1]:.1f}% | "
              f"{100 * top['fair_share']:.0f}% | {rounds} | {s['elapsed_s']:.0f} s |")


if __name__ == "__main__":
    main()
