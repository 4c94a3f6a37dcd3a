"""What screens ask of the app, as messages.

A screen posts one of these to the app (``self.app.post_message(...)``) and the
app decides how: which screen goes where, what is read from disk. Screens never
call the app's methods to change what it does, and the app never asks a screen
what class it is.
"""

from __future__ import annotations

from textual.message import Message


class StartGame(Message):
    """Start a table from ``setup`` (a TableSetup); ``replace_screen``: in place of the asking screen."""

    def __init__(self, setup, replace_screen: bool = False) -> None:
        super().__init__()
        self.setup, self.replace_screen = setup, replace_screen


class ResumeGame(Message):
    """Open the saved game ``name`` where it stopped; ``replace_screen``: in place of the asking screen."""

    def __init__(self, name: str, replace_screen: bool = False) -> None:
        super().__init__()
        self.name, self.replace_screen = name, replace_screen


class ResumeFailed(Message, bubble=False):
    """The app to the screen on top: the save ``name`` could not be opened (the app said why)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class SettingsSaved(Message):
    """New settings were saved: use them now."""

    def __init__(self, settings) -> None:
        super().__init__()
        self.settings = settings


class SavesRead(Message, bubble=False):
    """The app to the screen on top: its worker has read every save; ``found`` is what
    ``menu_available`` takes (the menu redraws from it instead of reading again)."""

    def __init__(self, found: tuple) -> None:
        super().__init__()
        self.found = found
