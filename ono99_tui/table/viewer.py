"""Whose eyes are on a screen: the one seat whose hand (and whose drawn cards) a front end may show.

Every front end asks here, never each widget on its own: the hand, the log and the card reference
all show what ``seat`` may know, and nothing when it is None.

One person at the keyboard (or one seat at a network table): always that seat. Two or more people
at one keyboard (hot seat): a hand is shown only while its owner is to move and has said they have
the keyboard (their "Pass to" button); the table flow calls ``after_change`` in the same step as the
play that ends their turn, so the next frame already shows no hand. The log there speaks to nobody
in particular (``log_seat`` is None): public lines only, so it never names a drawn card.
"""

from __future__ import annotations

from typing import Sequence


class Viewer:
    def __init__(self, humans: Sequence[int]):
        self.humans = tuple(humans)
        self.shared = len(self.humans) > 1  # hot seat: the keyboard goes round
        self.seat: int | None = self.humans[0] if len(self.humans) == 1 else None

    @property
    def log_seat(self) -> int | None:
        """The seat the log (and every event shown) is written for: at a shared keyboard, nobody."""
        return None if self.shared else self.seat

    def after_change(self, current: int | None, round_ended: bool = False) -> None:
        """The table changed (a play, an undo). At a shared keyboard the hand on screen goes as soon
        as its owner is not the one to move, or their round ended (the next hand is a new deal)."""
        if self.shared and self.seat is not None and (round_ended or current != self.seat):
            self.seat = None

    def must_hand_over(self, seat: int | None) -> bool:
        """``seat`` (a person at this keyboard) is to move and does not have the keyboard yet:
        ask for it ("Pass to NAME") before anything of theirs is shown."""
        return self.shared and seat in self.humans and seat != self.seat

    def seated(self, seat: int) -> None:
        """``seat``'s owner said they have the keyboard (their "Pass to" button)."""
        if self.shared and seat in self.humans:
            self.seat = seat

    def leave(self) -> None:
        """Nobody's hand (leaving the table, or every person here is out and watches)."""
        if self.shared:
            self.seat = None
