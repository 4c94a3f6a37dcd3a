"""`ono99 rules compare A B`: the same deals and bots under two rule sets, side by side."""

from __future__ import annotations

from ..engine import cards as C
from ..text import display_width
from .report import REASONS

ROWS = (
    ("rounds_per_game", "rounds per game", "{:.2f}"),
    ("plays_per_round", "plays per round", "{:.1f}"),
    ("first_seat_win_rate", "first player of the game wins", "{:.1%}"),
    ("first_player_lost_share", "first player of a round loses it", "{:.1%}"),
    ("ninety_nines_played_per_game", "99 cards played per game", "{:.2f}"),
)
SPECIALS = (C.HOLD, C.REVERSE, C.DOUBLE, C.MINUS_TEN, C.NINETY_NINE)


def decider_share(summary: dict, card: str) -> float:
    rounds = sum(summary["deciding_cards"].values()) or 1
    return summary["deciding_cards"].get(card, 0) / rounds


def compare_lines(a: dict, b: dict, label_a: str, label_b: str, bots: list[str], seed: int, elapsed: float) -> list[str]:
    width = 36
    col = max(14, display_width(label_a) + 2, display_width(label_b) + 2)  # columns, not characters

    def right(text: str) -> str:
        return " " * (col - display_width(text)) + text

    lines = [
        f"{a['games']:,} games each, the same deals and bots ({', '.join(bots)}), seed {seed}",
        "",
        f"{'':<{width}}{right(label_a)}{right(label_b)}",
    ]
    for key, text, fmt in ROWS:
        lines.append(f"{text:<{width}}{fmt.format(a[key]):>{col}}{fmt.format(b[key]):>{col}}")
    lines.append(f"{'fair share for the first player':<{width}}{1 / a['seats']:>{col}.1%}{1 / b['seats']:>{col}.1%}")
    lines += ["", "Rounds decided by a special card (the card played just before the losing play):"]
    for card in SPECIALS:
        lines.append(f"  {C.LABEL[card]:<{width - 2}}{decider_share(a, card):>{col}.1%}{decider_share(b, card):>{col}.1%}")
    ends_a, ends_b = a["round_ends"], b["round_ends"]
    lines += ["", "How rounds ended:"]
    for reason in sorted(set(ends_a) | set(ends_b)):
        ra = ends_a.get(reason, 0) / (sum(ends_a.values()) or 1)
        rb = ends_b.get(reason, 0) / (sum(ends_b.values()) or 1)
        lines.append(f"  {REASONS.get(reason, reason):<{width - 2}}{ra:>{col}.1%}{rb:>{col}.1%}")
    lines += ["", f"Elapsed: {elapsed:.1f} s"]
    return lines
