"""The game state machine: rounds, turns, scoring (R2-R9).

A game is fully determined by its seats, rules, seed, first dealer, any
stacked decks and its plays, so a game record is just those (see record.py).
Everything a play causes (draws, reshuffles, a lost round, scoring, the next
deal, a player stuck with no legal card) happens inside ``play`` and is
reported as events: plain dicts, ready for JSON.

Every round and every game ends (RULES.md R4.6, [decision]): some accepted
house rules (tiny decks, Tens cancelled by Minus Tens) allow a round whose
positions repeat forever, or a points tie-break that never breaks. So:

- a round that reaches ``MAX_ROUND_PLAYS`` plays ends at once, and the player
  to move loses it (round_lost reason "play-limit"), as if stuck under R5.2;
- a tie-break (R9.4) still tied after ``MAX_TIE_ROUNDS`` rounds is won by the
  tied player who lost the fewest rounds in the game, then by seat order.

Both limits are far beyond any round or tie-break with the shipped presets
(see tests/test_termination.py), so they only ever decide degenerate games.
"""

from __future__ import annotations

import random
import unicodedata
from collections import Counter

from ..text import counted
from . import cards as C
from .legal import legal_plays, why_not
from .rules import DEFAULT, Rules
from .view import PlayerView

MIN_SEATS, MAX_SEATS = 2, 8
MISSING_CARD_POINTS = 15  # R9.1
MAX_ROUND_PLAYS = 1000  # R4.6: a round ends after this many plays
MAX_TIE_ROUNDS = 100  # R4.6/R9.4: a tie-break ends after this many rounds


class IllegalPlay(ValueError):
    """A play the rules do not allow now; the game is unchanged."""


class GameSetupError(ValueError):
    """Seats, dealer or decks that cannot start a game."""


MAX_NAME = 24  # the one limit on a player's name: New game, Settings, records, join --name, web, SSH
NAME_RULE = f"1 to {MAX_NAME} printable characters that show (not only accents)"  # what messages say


def normalise_name(name) -> str:
    """A player name as every path stores it (Settings, New game, records, saves): spaces
    around it dropped; refused (GameSetupError saying what is allowed) when it cannot be a
    name: empty, longer than MAX_NAME, or holding a control or other unprintable character
    (which would corrupt records or the terminal). Markup-like text such as "[b]" is a
    fine name: every screen shows names as text."""
    if not isinstance(name, str):
        raise GameSetupError(f"a player name must be text, not {type(name).__name__}")
    text = name.strip()
    if not text:
        raise GameSetupError("a player name cannot be empty")
    shown = repr(text[:30]) + ("..." if len(text) > 30 else "")  # repr: control characters escaped
    if len(text) > MAX_NAME:
        raise GameSetupError(f"player name {shown} is too long ({len(text)} characters; at most {MAX_NAME})")
    if not text.isprintable():
        raise GameSetupError(f"player name {shown} holds a control or unprintable character; "
                             "use letters, digits, spaces and punctuation")
    if unicodedata.category(text[0]).startswith("M") or not any(_shows(ch) for ch in text):
        # (accents alone, or Hangul fillers: a seat with a blank name, or an accent on the border)
        raise GameSetupError(f"player name {shown} shows nothing on screen (or starts with an accent); "
                             "use letters, digits or punctuation")
    return text


_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e")  # letters that draw as nothing


def _shows(ch: str) -> bool:
    return unicodedata.category(ch)[0] not in "MZC" and ch not in _BLANKS


def _name_key(name: str) -> str:
    """The form in which check_names finds two names the same: NFC ("Zoë" typed either way)."""
    return unicodedata.normalize("NFC", name)


def name_taken(name: str, names) -> int | None:
    """The index of the first of ``names`` that check_names would call the same name as
    ``name``, or None: a question can refuse a taken name as it is typed."""
    key = _name_key(name)
    return next((i for i, n in enumerate(names) if _name_key(n) == key), None)


def check_name(name) -> str:
    """One player's name as check_names checks each (a network player's, before any table), or
    GameSetupError. It must already be normalised (normalise_name): a game that quietly stripped
    " Ana" would record plays by a seat its record does not have."""
    norm = normalise_name(name)
    if norm != name:
        raise GameSetupError(f"player name {name!r} has spaces around it; use {norm!r}")
    return name


def check_names(names) -> list[str]:
    """The seats' names, or GameSetupError: each a name (check_name), all different."""
    names = list(names)
    for name in names:
        check_name(name)
    if not MIN_SEATS <= len(names) <= MAX_SEATS:
        raise GameSetupError(f"a game needs {MIN_SEATS} to {MAX_SEATS} players, not {len(names)}")
    dupes = sorted(n for n, k in Counter(names).items() if k > 1)
    if dupes:
        raise GameSetupError(f"player names must differ: {', '.join(dupes)} appears more than once")
    # the same letters in two Unicode forms ("Zoë" typed two ways) look the same: one name
    alike = sorted(n for n, k in Counter(_name_key(n) for n in names).items() if k > 1)
    if alike:
        raise GameSetupError(f"player names must differ: {', '.join(alike)} appears more than once "
                             "(written with different Unicode characters that look the same)")
    return names


def check_deck(rules: Rules, deck, round_no: int) -> tuple[str, ...]:
    """A stacked deck must be exactly the rules' deck in some order (R1, R3.1)."""
    try:
        deck = tuple(C.parse_card(str(c)) for c in deck)
    except ValueError as exc:
        raise GameSetupError(f"round {round_no} deck: {exc}") from None
    want, got = Counter(rules.deck), Counter(deck)
    if want != got:
        missing = want - got
        extra = got - want
        parts = []
        if missing:
            parts.append("missing " + ", ".join(f"{n}x {c}" for c, n in sorted(missing.items())))
        if extra:
            parts.append("extra " + ", ".join(f"{n}x {c}" for c, n in sorted(extra.items())))
        raise GameSetupError(
            f"round {round_no} deck must hold the rules' {len(rules.deck)} cards exactly: " + "; ".join(parts)
        )
    return deck


class Game:
    """One game of O'NO 99 for 2-8 named seats."""

    def __init__(
        self,
        names,
        rules: Rules = DEFAULT,
        seed: int = 0,
        first_dealer: int | str | None = None,
        decks: dict[int, list[str]] | None = None,
        record_events: bool = True,
    ):
        self.names = tuple(check_names(names))
        n = self.n = len(self.names)
        if n * rules.hand_size > len(rules.deck):
            raise GameSetupError(
                f"{n} players x {counted(rules.hand_size, 'card')} needs {n * rules.hand_size} cards, "
                f"but the deck has {len(rules.deck)} (at most {rules.max_players()} players with these rules)"
            )
        self.rules = rules
        self.seed = seed
        self.decks = {int(k): check_deck(rules, v, int(k)) for k, v in (decks or {}).items()}
        self.events: list[dict] = []
        self._recording = record_events
        self.plays: list[tuple[int, str]] = []
        self.round_plays: list[list[tuple[int, str]]] = []
        # per round: after how many of its plays an undo shuffled the unseen pile (shuffle_unseen)
        self.undo_marks: list[list[int]] = []
        self.tokens = [rules.scoring_tokens] * n
        self.points = [0] * n
        self.out = [False] * n
        self.out_round: list[int | None] = [None] * n
        self.contenders: list[int] | None = None  # R9.4 tie-break
        self.tie_rounds = 0  # rounds played in the tie-break so far (R4.6 limit)
        self.winner: int | None = None
        self.over = False
        self.round_no = 0
        self.last_loser: int | None = None
        self.round_log: list[dict] = []  # one summary per finished round
        self.dealer = self._first_dealer(first_dealer)
        self.first_dealer = self.dealer
        self._deal_round(first=True)
        self._settle()

    # -- events ---------------------------------------------------------------
    def _emit(self, event: dict) -> None:
        if self._recording:
            self.events.append(event)

    # -- setup ------------------------------------------------------------------
    def _seat_of(self, who: int | str) -> int:
        if isinstance(who, int) and not isinstance(who, bool) and 0 <= who < self.n:
            return who
        if isinstance(who, str) and who in self.names:
            return self.names.index(who)
        raise GameSetupError(f"no seat {who!r} at this table (seats: {', '.join(self.names)})")

    def _first_dealer(self, named: int | str | None) -> int:
        how = self.rules.dealer_first
        if named is not None:
            seat = self._seat_of(named)
            return self._dealer_chosen(seat, "named")
        rng = random.Random(f"{self.seed}/dealer")
        if how == "agree":
            raise GameSetupError('dealer.first = "agree": the table must name the first dealer')
        if how == "random":
            return self._dealer_chosen(rng.randrange(self.n), "random")
        # R2.2 high card: number cards and Tens; tied highest draw again.
        pool = [c for c in self.rules.deck if c in C.HIGH_CARD_DRAW]
        drawing = list(range(self.n))
        draws = []
        for _ in range(100):
            rng.shuffle(pool)
            drawn = list(zip(drawing, pool))
            draws.append([[s, c] for s, c in drawn])
            best = max(C.EFFECT[c] for _, c in drawn)
            drawing = [s for s, c in drawn if C.EFFECT[c] == best]
            if len(drawing) == 1:
                break
        return self._dealer_chosen(drawing[0], "high-card", draws)

    def _dealer_chosen(self, seat: int, method: str, draws=None) -> int:
        self.dealer_method = method
        event = {"type": "dealer", "seat": seat, "method": method}
        if draws is not None:
            event["draws"] = draws
        self._emit(event)
        return seat

    def _left_of(self, seat: int, among) -> int:
        for step in range(1, self.n + 1):
            s = (seat + step) % self.n
            if s in among:
                return s
        raise AssertionError("no seat to the left")  # unreachable: among is non-empty

    def _deal_round(self, first: bool = False) -> None:
        r = self.rules
        self.round_no += 1
        order = self.contenders if self.contenders else [s for s in range(self.n) if not self.out[s]]
        self.order = order
        self._pos = {s: i for i, s in enumerate(order)}
        if not first:
            anchor = self.last_loser if r.dealer_next == "loser" else self.dealer
            if r.dealer_next == "loser" and anchor in self._pos:
                self.dealer = anchor
            else:
                self.dealer = self._left_of(anchor, self._pos)
        deck = self.decks.get(self.round_no)
        if deck is None:
            shuffled = list(r.deck)
            random.Random(f"{self.seed}/round{self.round_no}").shuffle(shuffled)
            deck = tuple(shuffled)
        hands: list[list[str]] = [[] for _ in range(self.n)]
        k = len(order)
        start = self._pos[self._left_of(self.dealer, self._pos)]
        i = 0
        for _ in range(r.hand_size):
            for j in range(k):
                hands[order[(start + j) % k]].append(deck[i])
                i += 1
        self.hands = hands
        self.draw = list(reversed(deck[i:]))  # top of the pile is the end of the list
        self.discard: list[str] = []
        self.played: list[str] = []
        self.reshuffles = 0
        self.total = 0
        self.direction = 1
        self.current = self.leader = order[start]  # (leader: who played first in the round)
        self.owed = 1
        self.ninety_nine_used = False
        self.pending_double = False
        self.round_plays.append([])
        self.undo_marks.append([])
        self._emit(
            {
                "type": "deal",
                "round": self.round_no,
                "dealer": self.dealer,
                "seats": list(order),
                "deck": list(deck),
                "hands": [list(h) for h in hands],  # seat by seat; the table redacts all but one's own
                "stacked": self.round_no in self.decks,
            }
        )

    # -- questions ----------------------------------------------------------------
    def legal_plays(self) -> list[str]:
        """The distinct cards the player to move may play (computed once per position)."""
        return [] if self.over else list(self._legal)

    def why_not(self, card: str) -> str | None:
        if self.over:
            return "the game is over"
        return why_not(self.rules, self.hands[self.current], self.total, self.owed == 2, self.ninety_nine_used, card)

    def next_seat(self, seat: int, direction: int | None = None) -> int:
        order = self.order
        return order[(self._pos[seat] + (direction or self.direction)) % len(order)]

    @property
    def draw_pile_size(self) -> int:
        return len(self.draw)

    # -- undo ---------------------------------------------------------------------
    def shuffle_unseen(self) -> None:
        """Shuffle the draw pile where it stands: what an undo does once it has rewound the game
        (docs/rules.md "Undo"), so the cards the plays taken back drew go back unseen and the next
        draw cannot be known from before. Seeded and counted (``undo_marks``), so a record that
        holds the mark replays to the same pile. Refused (IllegalPlay) with fewer than two cards:
        a shuffle would hide nothing."""
        if self.over:
            raise IllegalPlay("the game is over")
        if len(self.draw) < 2:
            raise IllegalPlay(f"the draw pile holds {len(self.draw)} card{'' if len(self.draw) == 1 else 's'}: "
                              "too few to shuffle the cards drawn back in unseen")
        marks = self.undo_marks[-1]
        marks.append(len(self.round_plays[-1]))
        random.Random(f"{self.seed}/round{self.round_no}/undo{len(marks)}").shuffle(self.draw)
        self._emit({"type": "unseen_shuffled", "round": self.round_no, "after": marks[-1],
                    "cards": len(self.draw)})

    # -- playing ----------------------------------------------------------------
    def play(self, card: str) -> list[dict]:
        """Play ``card`` for the seat to move; return the events it caused."""
        if self.over:
            raise IllegalPlay("the game is over")
        if card not in C.EFFECT:
            raise IllegalPlay(f"unknown card {card!r} (cards are: {', '.join(C.ALL_CARDS)})")
        if card not in self._legal:
            reason = self.why_not(card)
            raise IllegalPlay(f"{self.names[self.current]} cannot play {C.LABEL[card]}: {reason}")
        start = len(self.events)
        self._apply(card)
        return self.events[start:]

    def _apply(self, card: str) -> None:
        r = self.rules
        p = self.current
        self.hands[p].remove(card)
        self.discard.append(card)
        self.played.append(card)
        self.total += C.EFFECT[card]
        self.plays.append((p, card))
        self.round_plays[-1].append((p, card))
        if self._recording:
            self.events.append(
                {"type": "play", "n": len(self.plays), "round": self.round_no, "seat": p, "card": card,
                 "total": self.total}
            )
        if card == C.NINETY_NINE:
            self.ninety_nine_used = True
        self._draw(p)
        if self.total >= r.target and card in C.ADDERS:
            self._finish_round(p, "bust")
            self._settle()
            return
        two_players = len(self.order) == 2
        if self.owed == 2:
            # First of two plays under a Double Play (R6.3-R6.5).
            if r.double_play_deflect and card in (C.HOLD, C.REVERSE):
                if card == C.REVERSE and not two_players:
                    self.direction = -self.direction
                self._turn_to(self.next_seat(p), 2)
                return
            if card == C.REVERSE and not two_players:
                self.direction = -self.direction
            if card == C.DOUBLE:
                self.pending_double = True
            self.owed = 1
            self._settle()
            return
        if card == C.REVERSE and not two_players:
            self.direction = -self.direction
        owed = 2 if (card == C.DOUBLE or self.pending_double) else 1
        self._turn_to(self.next_seat(p), owed)

    def _turn_to(self, seat: int, owed: int) -> None:
        self.current = seat
        self.owed = owed
        self.ninety_nine_used = False
        self.pending_double = False
        if owed == 2 and self._recording:
            self.events.append({"type": "double", "seat": seat})
        self._settle()

    def _settle(self) -> None:
        """R5.2: a player to move with no legal card loses the round at once; R4.6: so does
        the player to move once the round has had MAX_ROUND_PLAYS plays."""
        while not self.over:
            if len(self.round_plays[-1]) >= MAX_ROUND_PLAYS:
                self._finish_round(self.current, "play-limit")
                continue
            self._legal = legal_plays(
                self.rules, self.hands[self.current], self.total, self.owed == 2, self.ninety_nine_used
            )
            if self._legal:
                return
            self._finish_round(self.current, "no-legal-card")
        self._legal = []

    def _draw(self, seat: int) -> None:
        if not self.draw and len(self.discard) > 1:
            # R4.3: the played cards become a new draw pile. [decision] The card just
            # played stays face up: otherwise R4.4 (nothing to draw) could never happen.
            self.reshuffles += 1
            pile = self.discard[:-1]
            # after an undo in this round, a key of its own: the pile an undo came back to must
            # not reshuffle as it did before the undo (the discards can be the same again)
            undos = len(self.undo_marks[-1]) if self.undo_marks else 0
            key = f"/undo{undos}" if undos else ""
            random.Random(f"{self.seed}/round{self.round_no}{key}/reshuffle{self.reshuffles}").shuffle(pile)
            self.discard = self.discard[-1:]
            if self._recording:
                self.events.append({"type": "reshuffle", "round": self.round_no, "order": list(pile)})
            pile.reverse()
            self.draw = pile
        card = self.draw.pop() if self.draw else None  # R4.4: nothing to draw
        if card is not None:
            self.hands[seat].append(card)
        if self._recording:
            self.events.append({"type": "draw", "seat": seat, "card": card})

    # -- round end and scoring ------------------------------------------------------
    def _finish_round(self, loser: int, reason: str) -> None:
        self.last_loser = loser
        self._emit({"type": "round_lost", "round": self.round_no, "seat": loser, "reason": reason,
                    "total": self.total})
        summary = {"round": self.round_no, "loser": loser, "reason": reason, "total": self.total,
                   "plays": len(self.round_plays[-1]), "leader": self.leader, "seats": list(self.order)}
        if self.rules.scoring_mode == "tokens":
            self._score_tokens(loser)
        else:
            summary["breakdown"] = self._score_points(loser)
        self.round_log.append(summary)
        if not self.over:
            self._deal_round()

    def _eliminate(self, seat: int) -> None:
        self.out[seat] = True
        self.out_round[seat] = self.round_no
        self._emit({"type": "eliminated", "round": self.round_no, "seat": seat})

    def _score_tokens(self, loser: int) -> None:
        r = self.rules
        if self.tokens[loser] > 0:
            self.tokens[loser] -= 1
            self._emit({"type": "tokens", "seat": loser, "change": -1, "tokens": self.tokens[loser]})
            if self.tokens[loser] == 0 and not r.scoring_extra_life:
                self._eliminate(loser)
        else:
            self._eliminate(loser)  # R8.2: the extra life is spent
        alive = [s for s in range(self.n) if not self.out[s]]
        if len(alive) == 1:
            self._game_over(alive[0])

    def breakdown(self, seat: int, loser: int) -> dict:
        """R9.1 card-by-card points for ``seat``'s hand at the end of a round."""
        r = self.rules
        hand = C.sort_hand(self.hands[seat])
        missing = max(0, r.hand_size - len(hand))
        cards = [[c, C.HAND_VALUE[c]] for c in hand]
        penalty = r.scoring_bust_penalty if seat == loser else 0
        gained = sum(v for _, v in cards) + MISSING_CARD_POINTS * missing + penalty
        return {"seat": seat, "cards": cards, "missing": missing,
                "missing_points": MISSING_CARD_POINTS * missing, "loser_penalty": penalty,
                "gained": gained, "score": self.points[seat] + gained}

    def _score_points(self, loser: int) -> list[dict]:
        r = self.rules
        rows = [self.breakdown(s, loser) for s in self.order]
        for row in rows:
            self.points[row["seat"]] = row["score"]
        self._emit({"type": "points", "round": self.round_no, "breakdown": rows})
        order = self.order
        if self.contenders:
            self._decide_lowest(order)
        elif r.scoring_end == "elimination":
            reached = [s for s in order if self.points[s] >= r.scoring_limit]
            alive = [s for s in order if self.points[s] < r.scoring_limit]
            if alive:
                for s in reached:
                    self._eliminate(s)
                if len(alive) == 1:
                    self._game_over(alive[0])
            else:
                # [decision] R9.2: everyone reached the limit together; the lowest wins.
                low = min(self.points[s] for s in order)
                for s in order:
                    if self.points[s] != low:
                        self._eliminate(s)
                self._decide_lowest([s for s in order if self.points[s] == low])
        elif any(self.points[s] >= r.scoring_limit for s in order):
            self._decide_lowest(order)  # R9.3
        return rows

    def _decide_lowest(self, group: list[int]) -> None:
        """The lowest score in ``group`` wins; a tie plays on among the tied (R9.4)."""
        low = min(self.points[s] for s in group)
        best = [s for s in group if self.points[s] == low]
        if self.contenders is not None:
            self.tie_rounds += 1
        if len(best) > 1 and self.tie_rounds >= MAX_TIE_ROUNDS:
            # R4.6: a tie that never breaks (e.g. a deck of one card kind, no bust penalty)
            lost = Counter(r["loser"] for r in self.round_log)
            lost[self.last_loser] += 1  # this round's summary is not logged yet
            best = [min(best, key=lambda s: (lost[s], s))]
        if len(best) == 1:
            self._game_over(best[0])
        else:
            if self.contenders is None:
                self.contenders = best
                self._emit({"type": "tie", "seats": list(best), "score": low})

    def _game_over(self, winner: int) -> None:
        self.winner = winner
        self.over = True
        self._emit({"type": "game_over", "winner": winner, "standings": self.standings()})

    def standings(self) -> list[int]:
        """Seats, best first."""
        def key(s: int):
            still_in = self.out_round[s] is None
            late = self.out_round[s] or 0
            score = self.points[s] if self.rules.scoring_mode == "points" else -self.tokens[s]
            return (s != self.winner, not still_in, -late, score, s)
        return sorted(range(self.n), key=key)

    # -- positions for search ------------------------------------------------------------
    @classmethod
    def from_view(cls, view, hands: dict[int, list[str]], draw_top_first: list[str], seed: int = 0) -> "Game":
        """A game at ``view``'s position with the hidden cards filled in (a determinization).

        ``hands`` gives every other seat's cards, ``draw_top_first`` the draw pile. Events are
        off: this is for bots' simulations, which only look at the outcome.
        """
        g = cls.__new__(cls)
        g.names, g.n, g.rules, g.seed = view.names, len(view.names), view.rules, seed
        g.decks, g.events, g._recording = {}, [], False
        g.plays, g.round_plays = [], [list(view.round_plays)]
        g.undo_marks = [[]]
        g.tokens, g.points, g.out = list(view.tokens), list(view.points), list(view.out)
        g.out_round = [view.round if o else None for o in view.out]
        g.contenders = list(view.in_round) if view.tie_break else None
        g.tie_rounds = 0
        g.winner, g.over, g.round_no, g.last_loser, g.round_log = None, False, view.round, None, []
        g.dealer = g.first_dealer = view.dealer
        g.dealer_method = "named"
        g.order = list(view.in_round)
        g._pos = {s: i for i, s in enumerate(g.order)}
        g.hands = [list(hands.get(s, ())) for s in range(g.n)]
        g.hands[view.seat] = list(view.hand)
        g.draw = list(reversed(draw_top_first))
        g.discard, g.played = list(view.discard), list(view.played_this_round)
        g.reshuffles, g.total, g.direction = 0, view.total, view.direction
        g.current, g.owed = view.current, view.plays_owed
        g.leader = view.round_plays[0][0] if view.round_plays else view.current
        g.ninety_nine_used, g.pending_double = view.ninety_nine_used, view.pending_double
        g._settle()
        return g

    # -- views ----------------------------------------------------------------------
    def view(self, seat: int) -> PlayerView:
        return PlayerView.of(self, seat)
