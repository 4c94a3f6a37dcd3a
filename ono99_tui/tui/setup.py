"""What a new table needs: seats (human or bot level), rules, seed, first dealer."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

from ..engine.rules import DEFAULT, Rules

if TYPE_CHECKING:  # the record module (and the game behind it) loads when a table is set
    from ..engine.record import SeatSpec


def quick_bots(rules: Rules) -> int:
    """How many bots the quick game seats against you: three, or as many as the rules deal to."""
    return max(1, min(3, rules.max_players() - 1))


def quick_words(rules: Rules, level: str = "") -> str:
    """"three medium bots", "two bots", "one bot": who a quick game under ``rules`` is against."""
    n = quick_bots(rules)
    return f"{('one', 'two', 'three')[n - 1]} {level + ' ' if level else ''}bot{'s' if n > 1 else ''}"


@dataclass
class TableSetup:
    seats: list[SeatSpec]
    rules: Rules = DEFAULT
    rules_label: str = "standard"
    seed: int = field(default_factory=lambda: random.randrange(2**31))
    first_dealer: str | None = None
    decks: dict[int, list[str]] | None = None  # stacked decks: tests and replays only

    @classmethod
    def default(cls, name: str = "You", level: str = "medium", rules: Rules = DEFAULT,
                rules_label: str = "standard", seed: int | None = None) -> "TableSetup":
        """You against three bots: the one-key start; against fewer when the rules deal to fewer
        players (ten cards a hand from a small deck: four seats could not be dealt, and the quick
        game died with a traceback)."""
        from ..engine.record import SeatSpec
        from ..table.seats import free_bot_names

        bots = quick_bots(rules)
        seats = [SeatSpec(name)] + [SeatSpec(n, f"bot:{level}") for n in free_bot_names([name], bots)]
        setup = cls(seats, rules, rules_label)
        if seed is not None:
            setup.seed = seed
        if rules.dealer_first == "agree":
            setup.first_dealer = name
        return setup
