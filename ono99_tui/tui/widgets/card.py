"""One card slot in the hand. Mounted once; each play changes what it shows, in place.

A slot shows its number key, the card's value and kind, and marks it (in text,
not colour alone) when it cannot be played, when it would bust, or when it was
just drawn.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from ...engine import cards as C

KIND_CLASS = {C.TEN: "ten", C.MINUS_TEN: "minus", C.HOLD: "helper", C.REVERSE: "helper",
              C.DOUBLE: "helper", C.NINETY_NINE: "ninety-nine"}
KIND_TEXT = {C.TEN: "+10", C.MINUS_TEN: "-10", C.HOLD: "total stays", C.REVERSE: "flip direction",
             C.DOUBLE: "next plays 2x", C.NINETY_NINE: "can't play"}
# narrower cards (five in a row at 80 columns): the same in 12 columns
SHORT_TEXT = {"flip direction": "flip order", "next plays 2x": "next twice", "(x) can't play": "(x) can't"}
# one-line cards (two rows of them at 80x24): the face alone, short
SHORT_FACE = {C.MINUS_TEN: "-10", C.DOUBLE: "DOUBLE"}


def face(card: str, note: str, width: int, height: int, *, unplayable: bool, busts: bool) -> Text:
    """What a card shows in a box ``width`` x ``height`` (its content): its face in bold over its
    note; narrower, the note shortened; one line high, the face and its mark ("(x)", "BUST!")."""
    big = C.LABEL[card] if card in C.ADDERS or card == C.NINETY_NINE else C.LABEL[card].upper()
    if height == 1:
        line = SHORT_FACE.get(card, big) + (" (x)" if unplayable else " BUST!" if busts else "")
        return Text(line, style="bold")
    if width and len(note) > width:
        note = SHORT_TEXT.get(note, note)
        note = note if len(note) <= width else note.replace(" BUST!", "!")
    text = Text(big, style="bold")
    text.append(f"\n{note}")
    return text


class CardWidget(Static, can_focus=True):
    class Chosen(Message):
        def __init__(self, card: "CardWidget") -> None:
            super().__init__()
            self.card = card

    def __init__(self, index: int) -> None:
        super().__init__("", classes="card")
        self.index = index
        self.card: str | None = None
        self.reason: str | None = None
        self.busts = False
        self.border_title = str(index)
        self.display = False  # an empty slot until a card is shown in it

    def show(self, card: str | None, reason: str | None = None, *, busts: bool = False, new: bool = False,
             ninety_nine_playable: bool = False) -> None:
        """Show ``card`` (None: an empty slot) without re-mounting anything."""
        if (card, reason, busts, new) == (self.card, self.reason, self.busts, self.has_class("new")):
            return
        self.card, self.reason, self.busts = card, reason, busts
        self.display = card is not None
        if card is None:
            return
        kind = KIND_CLASS.get(card, "number")
        flags = [kind] + [name for name, on in (("unplayable", reason is not None), ("busts", busts), ("new", new)) if on]
        if self.classes != {"card", *flags}:  # a restyle only when the look changes (a 7 for a 5: none)
            self.set_classes(["card", *flags])  # one restyle, not one per class
        if card in C.NUMBERS:
            note = f"+{card}"
        elif card == C.NINETY_NINE and ninety_nine_playable:
            note = "on 0s: hold"
        else:
            note = KIND_TEXT[card]
        if reason is not None:
            note = "(x) can't play"  # the 99 too: marked like every card that cannot be played
        elif busts:
            note = f"{note} BUST!"
        self._note = note
        self.refresh()  # drawn by render, to the box it has (a card's size is fixed: no layout)
        self.border_subtitle = "new" if new else ""

    _note = ""

    def render(self):
        if self.card is None:
            return ""
        size = self.content_size
        return face(self.card, self._note, size.width, size.height,
                    unplayable=self.reason is not None, busts=self.busts)

    def _mark_focus(self, focused: bool) -> None:
        """In ASCII every outline is the same "+-+": the focused card's number is marked "> 1 <"
        (text, so it shows with NO_COLOR too)."""
        ascii = getattr(self.app, "ascii", False)
        self.border_title = f"> {self.index} <" if ascii and focused else str(self.index)

    def on_focus(self) -> None:  # runs before Textual's own handler sets has_focus
        self._mark_focus(True)

    def on_blur(self) -> None:
        self._mark_focus(False)

    def on_click(self) -> None:
        if self.card is not None:
            self.post_message(self.Chosen(self))
