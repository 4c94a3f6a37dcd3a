"""Pure rules of O'NO 99: no UI imports here, ever (a test enforces it).

The names below load on first use, so a caller that only needs the rules
(the main menu, `ono99 rules`) does not pay for the game machinery.
"""

from importlib import import_module

_WHERE = {
    "Game": "game", "GameSetupError": "game", "IllegalPlay": "game",
    "DEFAULT": "rules", "Rules": "rules", "RulesError": "rules",
    "PlayerView": "view",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
