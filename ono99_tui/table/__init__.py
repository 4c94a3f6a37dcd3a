"""The table session: one game with its seats, bots, save, statistics and undo. UI-free.

The table screen, the lab (simulate, rules compare) and the network server all
drive a TableSession; per-seat views and events come out of redact.py.
"""

from .redact import SPECTATOR, event_for, events_for, view_for
from .seats import SeatError, bot_names, bot_seed, check_seats, parse_levels
from .session import (BotTurn, HumanTurn, IllegalMove, NotYourTurn, SeatUpdate, StalePlay, Step, TableError,
                      TableOver, TableSession)

__all__ = ["SPECTATOR", "BotTurn", "HumanTurn", "Step", "TableOver", "IllegalMove", "NotYourTurn", "SeatError", "SeatUpdate", "StalePlay", "TableError",
           "TableSession", "bot_names", "bot_seed", "check_seats", "event_for", "events_for", "parse_levels",
           "view_for"]
