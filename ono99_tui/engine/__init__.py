"""Pure rules of O'NO 99: no UI imports here, ever (a test enforces it)."""

from .game import Game, GameSetupError, IllegalPlay
from .rules import DEFAULT, Rules, RulesError
from .view import PlayerView

__all__ = ["DEFAULT", "Game", "GameSetupError", "IllegalPlay", "PlayerView", "Rules", "RulesError"]
