"""One card in the hand: number key, value, kind; dimmed (and marked) when it cannot be played."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import Static

from ...engine import cards as C

KIND_CLASS = {C.TEN: "ten", C.MINUS_TEN: "minus", C.HOLD: "helper", C.REVERSE: "helper",
              C.DOUBLE: "helper", C.NINETY_NINE: "ninety-nine"}
KIND_TEXT = {C.TEN: "+10", C.MINUS_TEN: "-10", C.HOLD: "total stays", C.REVERSE: "flip direction",
             C.DOUBLE: "next plays 2x", C.NINETY_NINE: "can't play"}


class CardWidget(Static, can_focus=True):
    class Chosen(Message):
        def __init__(self, card: "CardWidget") -> None:
            super().__init__()
            self.card = card

    def __init__(self, index: int, card: str, reason: str | None, *, ninety_nine_playable: bool = False) -> None:
        self.index = index
        self.card = card
        self.reason = reason
        kind = KIND_CLASS.get(card, "number")
        big = C.LABEL[card] if card in C.ADDERS or card == C.NINETY_NINE else C.LABEL[card].upper()
        if card in C.NUMBERS:
            note = f"+{card}"
        elif card == C.NINETY_NINE and ninety_nine_playable:
            note = "on 0s: hold"
        else:
            note = KIND_TEXT[card]
        mark = "" if reason is None else " (x)"
        super().__init__(f"[b]{big}[/b]\n{note}{mark}", classes=f"card {kind}" + (" unplayable" if reason else ""))
        self.border_title = f"{index}"

    def on_click(self) -> None:
        self.post_message(self.Chosen(self))

    def key_enter(self) -> None:
        self.post_message(self.Chosen(self))
