"""The plain front end (`ono99 --plain`): the game as lines of text, one line of input per action.

For screen readers, braille displays, pipes and scripts: every line written is a sentence
that stands on its own, nothing is redrawn, no cursor moves, no colour, no escape or other
control byte ever reaches the output (console.py). It drives the same TableSession as the
table screen (table.py); the menus ask one question a line (menu.py); the sentences are in
words.py. At a network table (remote.py) the same turns are played on a RemoteTable, with
the connection and standard input on threads of their own (network.py) and a lobby in
lines (lobby.py). No Textual, no Rich (tests/test_plain_purity.py).
"""

from .menu import run

__all__ = ["run"]
