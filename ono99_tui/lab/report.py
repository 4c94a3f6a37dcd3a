"""Text for `ono99 simulate`: the tables a person reads after a run."""

from __future__ import annotations

REASONS = {
    "bust": "bust (went to the target)",
    "no-legal-card": "no card to play (R5.2)",  # (only 99s, or only a Double Play to start two plays)
    "play-limit": "play limit reached (R4.6)",
}


def pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def ci(pair) -> str:
    lo, hi = pair
    return f"{100 * lo:4.1f}-{100 * hi:4.1f}%"


def rounded_note(requested: int, games: int, seats: int) -> str | None:
    """Why more games ran than were asked for (None when none were added)."""
    if games == requested:
        return None
    return (f"{games} games, not {requested}: rounded up to a multiple of {seats} "
            f"(the seats) so every bot sits in every seat equally often.")


def simulate_lines(summary: dict, label: str, elapsed: float, seed: int, jobs: int) -> list[str]:
    n = summary["games"]
    seats = summary["seats"]
    lines = [
        f"{n:,} games, {seats} seats, rules: {label}, seed {seed}, {jobs} job{'s' if jobs > 1 else ''}",
        "Every bot sat in every seat equally; each deal was replayed once per seating.",
        "",
        f"{'level':<8} {'seats':>5} {'wins':>7} {'win rate':>9}  {'95% CI':<12} {'fair share':>10}",
    ]
    for row in summary["levels"]:
        lines.append(
            f"{row['level']:<8} {row['seats']:>5} {row['wins']:>7,} {pct(row['win_rate']):>9}  "
            f"{ci(row['ci95']):<12} {pct(row['fair_share']):>10}"
        )
    lines += ["", f"{'seat':<8} {'':>5} {'wins':>7} {'win rate':>9}  {'95% CI':<12}"]
    for row in summary["by_seat"]:
        lines.append(f"{'seat ' + str(row['seat']):<8} {'':>5} {row['wins']:>7,} {pct(row['win_rate']):>9}  {ci(row['ci95']):<12}")
    ends = summary["round_ends"]
    rounds = sum(ends.values()) or 1
    lines += [
        "",
        f"Rounds per game: {summary['rounds_per_game']:.2f}   plays per round: {summary['plays_per_round']:.1f}",
        f"First player of a round lost it: {pct(summary['first_player_lost_share']).strip()} "
        f"(1 in {seats}: {pct(1 / seats).strip()})",
        "How rounds ended:",
    ]
    width = max([30] + [len(REASONS.get(reason, reason)) for reason in ends])  # (a column, whatever the words)
    for reason, count in ends.items():
        lines.append(f"  {REASONS.get(reason, reason):<{width}} {count:>8,}  {pct(count / rounds)}")
    apart = summary.get("cannot_tell_apart") or []
    if apart:
        pairs = "; ".join(f"{a} and {b}" for a, b in apart)
        lines += ["", f"Cannot be told apart at {n:,} games: {pairs} (their 95% intervals, per seat, "
                  "overlap; the split above may be luck: play more games)."]
    rate = n / elapsed if elapsed > 0 else 0.0
    lines += ["", f"Elapsed: {elapsed:.1f} s ({rate:,.1f} games/s)"]
    return lines
