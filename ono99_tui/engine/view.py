"""What one seat may know (boardgame.io's playerView).

A view holds the seat's own hand and public information only: the others'
hand sizes, never their cards, and the draw pile's size, never its order.
Bots and UIs are only ever given views.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields

from .legal import legal_plays, why_not
from .rules import Rules


@dataclass(frozen=True)
class PlayerView:
    seat: int
    names: tuple[str, ...]
    rules: Rules
    round: int
    dealer: int
    hand: tuple[str, ...]
    hand_sizes: tuple[int, ...]  # 0 for seats not in this round
    in_round: tuple[int, ...]  # seats playing this round, in seat order
    played_this_round: tuple[str, ...]  # every card played this round, in order
    discard: tuple[str, ...]  # played cards not yet reshuffled into the draw pile
    draw_pile_size: int
    total: int
    direction: int  # 1 = left (seat order), -1 = right
    current: int | None  # whose turn; None when the game is over
    plays_owed: int  # 2 while the player to move is under a Double Play and has not played yet
    ninety_nine_used: bool
    pending_double: bool  # the player to move played a Double Play as the first of two (house rule)
    tie_break: bool  # only the seats in this round still contend for the win (R9.4)
    tokens: tuple[int, ...]
    points: tuple[int, ...]
    out: tuple[bool, ...]
    over: bool
    winner: int | None
    round_plays: tuple[tuple[int, str], ...]  # (seat, card) this round, in order

    @classmethod
    def of(cls, game, seat: int) -> "PlayerView":
        return cls(
            seat=seat,
            names=game.names,
            rules=game.rules,
            round=game.round_no,
            dealer=game.dealer,
            hand=tuple(game.hands[seat]),
            hand_sizes=tuple(len(h) for h in game.hands),
            in_round=tuple(game.order),
            played_this_round=tuple(game.played),
            discard=tuple(game.discard),
            draw_pile_size=len(game.draw),
            total=game.total,
            direction=game.direction,
            current=None if game.over else game.current,
            plays_owed=game.owed,
            ninety_nine_used=game.ninety_nine_used,
            pending_double=game.pending_double,
            tie_break=game.contenders is not None,
            tokens=tuple(game.tokens),
            points=tuple(game.points),
            out=tuple(game.out),
            over=game.over,
            winner=game.winner,
            round_plays=tuple(game.round_plays[-1]),
        )

    def seen_by(self, seat: int, hand: tuple[str, ...]) -> "PlayerView":
        """This state as ``seat``, holding ``hand``, sees it: every other field of a view is public,
        so a table telling each seat of one change builds them once. (Copied, not passed through
        dataclasses.replace, which costs as much as building the view.)"""
        view = object.__new__(PlayerView)
        fields_ = view.__dict__
        for name in _NAMES:
            fields_[name] = self.__dict__[name]
        fields_["seat"], fields_["hand"] = seat, hand
        return view

    @property
    def my_turn(self) -> bool:
        return self.current == self.seat

    @property
    def second_of_two(self) -> bool:
        """The player to move made the last play: this is the second play of a Double Play turn
        (R6.2). Nobody else ever moves twice in a row."""
        return (self.current is not None and self.plays_owed == 1 and bool(self.round_plays)
                and self.round_plays[-1][0] == self.current)

    def legal_plays(self) -> list[str]:
        """The cards this seat may play now (empty when it is not their turn)."""
        if not self.my_turn:
            return []
        return legal_plays(self.rules, self.hand, self.total, self.plays_owed == 2, self.ninety_nine_used)

    def why_not(self, card: str) -> str | None:
        if not self.my_turn:
            return "it is not your turn"
        return why_not(self.rules, self.hand, self.total, self.plays_owed == 2, self.ninety_nine_used, card)

    def unseen(self) -> Counter:
        """Cards this seat cannot see: the others' hands and the draw pile together."""
        left = Counter(self.rules.deck)
        left.subtract(self.hand)
        left.subtract(self.discard)
        return +left


_NAMES = tuple(f.name for f in fields(PlayerView))
