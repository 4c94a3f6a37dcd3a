"""Computer players. A bot sees only a PlayerView: its own hand and public information."""

from .levels import DESCRIPTIONS, LEVELS, make_bot

__all__ = ["DESCRIPTIONS", "LEVELS", "make_bot"]
