"""What the plain front end says: every line a sentence that stands on its own.

Cards are said as words ("Nine", "Minus Ten", "Ninety-nine"), totals as digits. Kept short:
a listener hears every word (benchmarks/plain_words.py counts them between two turns).
Pure functions of views and events: no I/O here.
"""

from __future__ import annotations

from ..engine import cards as C
from ..engine.describe import agree, possessive
from ..engine.legal import busts
from ..engine.view import PlayerView
from ..text import counted

CARD_WORD = {"2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six", "7": "Seven", "8": "Eight",
             "9": "Nine", C.TEN: "Ten", C.MINUS_TEN: "Minus Ten", C.HOLD: "Hold", C.REVERSE: "Reverse",
             C.DOUBLE: "Double Play", C.NINETY_NINE: "Ninety-nine"}
ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def card(c: str) -> str:
    return CARD_WORD.get(c, c)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _who(names, seat: int) -> str:
    return names[seat]


def direction_word(direction: int) -> str:
    return "left" if direction == 1 else "right"


# -- what happened ---------------------------------------------------------------------

def play_sentence(event: dict, names, drew_nothing: bool = False, players: int = 3, drew: str | None = None) -> str:
    """"Bo: Ten, total 20." -- the name, the card, the total: a listener hears a play per line,
    so no word more (benchmarks/plain_words.py). ``drew``: the card the viewer drew after their
    own play ("Ann: Ten, total 20; drew Seven."), which the next hand line would only hide among
    the others."""
    who = _who(names, event["seat"])
    c, total = event["card"], event["total"]
    text = f"{who}: {card(c)}"
    if c in C.ADDERS or c == C.MINUS_TEN:
        text += f", total {total}"
    else:
        text += f", total stays {total}"
        if c == C.REVERSE and players > 2:
            text += ", direction flips"
    if drew_nothing:
        text += f"; {agree(who, 'has')} nothing to draw"
    elif drew is not None:
        text += f"; drew {card(drew)}"
    return text + "."


_REASON = {"bust": "goes bust at {total}", "no-legal-card": "has no card to play at {total}",
           "play-limit": "must play when the round hits its play limit (R4.6)"}


def event_lines(events: list[dict], names, viewer: int | None, players: int = 3) -> list[str]:
    """Sentences for a seat's (redacted) events, in order; a play and its draw are one sentence."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        e = events[i]
        kind = e["type"]
        if kind == "play":
            drew, got = False, None
            nxt = events[i + 1] if i + 1 < len(events) else None
            if nxt is not None and nxt["type"] == "draw" and nxt["seat"] == e["seat"]:
                i += 1  # another's draw is never said (only that the pile was empty); one's own is
                drew = not nxt.get("hidden") and nxt.get("card") is None
                got = nxt.get("card") if viewer == e["seat"] and not nxt.get("hidden") else None
            lines.append(play_sentence(e, names, drew, players, got))
        elif kind == "draw":
            pass  # a draw without its play: never in a table's events
        elif kind == "double":
            who = names[e["seat"]]
            lines.append(f"{who} must play twice.")
        elif kind == "deal":
            dealer = names[e["dealer"]]
            stacked = " from a stacked deck" if e.get("stacked") else ""
            lines.append(f"Round {e['round']}: {dealer} {agree(dealer, 'deals')}{stacked}.")
        elif kind == "dealer":
            lines.append(dealer_sentence(e, names))
        elif kind == "reshuffle":
            lines.append(f"The played cards are shuffled into a new draw pile of {e['cards']}.")
        elif kind == "round_lost":
            who = names[e["seat"]]
            why = _REASON[e["reason"]].format(total=e["total"])
            if who == "You":
                why = why.replace("goes", "go").replace("has no", "have no")
            lines.append(f"{who} {why} and {agree(who, 'loses')} round {e['round']}.")
        elif kind == "tokens":
            who = names[e["seat"]]
            left = e["tokens"]
            lines.append(f"{who} {agree(who, 'gives')} up a token, {left} left." if left
                         else f"{who} {agree(who, 'gives')} up the last token.")
        elif kind == "points":
            lines.extend(points_lines(e["breakdown"], names))
        elif kind == "eliminated":
            who = names[e["seat"]]
            lines.append(f"{who} {agree(who, 'is')} out of the game.")
        elif kind == "tie":
            tied = and_list([names[s] for s in e["seats"]])
            lines.append(f"Tie at {e['score']} points: {tied} play on.")
        # game_over: said by the game-over lines (standings_lines), once
        i += 1
    return lines


def dealer_sentence(e: dict, names) -> str:
    who = names[e["seat"]]
    how = e["method"]
    if how == "high-card":
        # "Di drew Ninety-nine", never "Di Ninety-nine", which reads as a score or a total
        draws = "; then ".join(", ".join(f"{names[s]} drew {card(c)}" for s, c in d) for d in e["draws"])
        return f"{who} {agree(who, 'deals')} first, by high card: {draws}."
    return f"{who} {agree(who, 'deals')} first, {'chosen at random' if how == 'random' else 'named by the table'}."


def points_lines(breakdown: list[dict], names) -> list[str]:
    out = []
    for row in breakdown:
        who = names[row["seat"]]
        cards = and_list([card(c) for c, _ in row["cards"]]) or "no cards"
        extra = []
        if row["missing"]:
            extra.append(f"{row.get('missing_points', 15 * row['missing'])} for missing cards")
        if row["loser_penalty"]:
            extra.append(f"{row['loser_penalty']} for losing")
        more = f", plus {' and '.join(extra)}" if extra else ""
        out.append(f"{who} {agree(who, 'has')} {cards} left{more}: {row['gained']} points, "
                   f"{row['score']} in all.")
    return out


def and_list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# -- the hand -----------------------------------------------------------------------------

def short_reason(view: PlayerView, c: str) -> str | None:
    """Why ``c`` cannot be played now, in a few words (the full reason: the view's why_not,
    said when the card is chosen anyway)."""
    why = view.why_not(c)
    if why is None:
        return None
    rules = view.rules
    if c == C.NINETY_NINE:
        if not rules.ninety_nine_card_playable_on_tens:
            return " (R7.1)"
        if view.ninety_nine_used:
            return ": only one a turn (R7.2)"
        return " unless the total ends in 0 (R7.2)"
    if c == C.DOUBLE and "R6.3" in why:
        return " as the first of two (R6.3)"
    if "R5.3" in why:
        return f": you must play {card(view.legal_plays()[0])} (R5.3)"
    return f": {why}"


def card_line(view: PlayerView, n: int, c: str) -> str:
    """"1: Nine, total 38", "3: Hold, total stays", "4: Ninety-nine, can't be played (R7.1)".
    What else a card does (Reverse, Double Play) is in the card reference (r): a listener
    hears the hand every turn."""
    reason = short_reason(view, c)
    if reason:
        return f"{n}: {card(c)}, can't be played{reason}."
    total = view.total + C.EFFECT[c]
    if busts(view.rules, c, view.total):
        return f"{n}: {card(c)}, busts at {total}."
    if c in C.ADDERS or c == C.MINUS_TEN:
        return f"{n}: {card(c)}, total {total}."
    return f"{n}: {card(c)}, total stays."


def hand_order(view: PlayerView) -> list[str]:
    return C.sort_hand(view.hand)


def hand_lines(view: PlayerView, owner: str | None = None) -> list[str]:
    """The turn's header, then the hand as a numbered list with what each card would do.
    (The total is in the line before, the play that made it, and in every card's line.)"""
    head = "Your turn" if owner is None else f"{possessive(owner)} turn"
    if view.plays_owed == 2:
        head += ", first of two plays"
    elif view.second_of_two:
        head += ", second of two plays"
    if not view.round_plays:
        head += f", total {view.total}"
    return [head + "."] + [card_line(view, i, c) for i, c in enumerate(hand_order(view), start=1)]


def next_seat(view: PlayerView, seat: int) -> int | None:
    order = view.in_round
    if seat not in order or len(order) < 2:
        return None
    return order[(order.index(seat) + view.direction) % len(order)]


# -- answers to the short commands ---------------------------------------------------------

def total_line(view: PlayerView) -> str:
    if view.over:
        return "The game is over."
    cur = view.names[view.current]
    twice = " and must play twice" if view.plays_owed == 2 else ""
    nxt = next_seat(view, view.current)
    after = f" Then {view.names[nxt]}." if nxt is not None and nxt != view.current else ""
    turn = f"It is {'your' if view.current == view.seat else cur + chr(39) + 's'} turn{twice}."
    return (f"Round {view.round}, total {view.total}, bust at {view.rules.target}, play goes "
            f"{direction_word(view.direction)}. {turn}{after} The draw pile has {counted(view.draw_pile_size, 'card')}.")


def scores_lines(view: PlayerView, cards: bool = True) -> list[str]:
    rules = view.rules
    parts = []
    for s, name in enumerate(view.names):
        if view.out[s]:
            parts.append(f"{name} out")
        elif rules.scoring_mode == "tokens":
            t = view.tokens[s]
            parts.append(f"{name} {t} token{'' if t == 1 else 's'}")
        else:
            parts.append(f"{name} {view.points[s]} points")
        if cards and s in view.in_round and not view.over:
            parts[-1] += f", {counted(view.hand_sizes[s], 'card')}"
    what = "Tokens" if rules.scoring_mode == "tokens" else f"Points, limit {rules.scoring_limit}"
    return [f"{what}: " + "; ".join(parts) + "."]


def last_plays_lines(view: PlayerView, count: int = 8) -> list[str]:
    plays = view.round_plays[-count:]
    if not plays:
        return [f"No plays yet in round {view.round}."]
    said = "; ".join(f"{view.names[s]} {card(c)}" for s, c in plays)
    first = len(view.round_plays) - len(plays) + 1
    where = f"plays {first} to {len(view.round_plays)}" if len(plays) > 1 else f"play {first}"
    return [f"Round {view.round}, {where}: {said}. Total {view.total}."]


def effect_words(c: str, view: PlayerView) -> str:
    rules = view.rules
    if c in C.ADDERS:
        return f"adds {C.EFFECT[c]}"
    if c == C.MINUS_TEN:
        return "takes off 10, even below 0 (R6.6)"
    if c == C.HOLD:
        return "the total stays (R6.1)"
    if c == C.REVERSE:
        return "a Hold with two players (R6.2)" if len(view.in_round) == 2 else "play changes direction (R6.2)"
    if c == C.DOUBLE:
        return "the next player plays twice (R6.3)"
    if rules.ninety_nine_card_playable_on_tens:
        return "a Hold on a total ending in 0 (R7.2)"
    return "never played, 20 points in hand (R7.1)"


def reference_lines(view: PlayerView) -> list[str]:
    rules = view.rules
    unseen = view.unseen()
    lines = [f"Card reference: {len(rules.deck)} cards; seen means played since the last shuffle or "
             f"in your hand. Reaching {rules.target} or more loses the round."]
    for c in C.ALL_CARDS:
        n = rules.count(c)
        if not n:
            continue
        hidden = unseen.get(c, 0)
        pts = f" Worth {C.HAND_VALUE[c]} points in hand." if rules.scoring_mode == "points" else ""
        lines.append(f"{card(c)}: {effect_words(c, view)}. {n} in the deck, {n - hidden} seen, {hidden} unseen.{pts}")
    return lines


COMMANDS = (
    ("a card's number", "play that card"),
    ("h", "your hand again"),
    ("t", "the total, the direction and who is next"),
    ("s", "scores or tokens, and how many cards each holds"),
    ("l", "the last plays of this round"),
    ("r", "card reference: what each card does, how many are unseen"),
    ("u", "undo your last play, against bots only, on your turn"),
    ("w", "save a copy of the game under a name of your choice; the game goes on saving under its own name "
           "(one opened read-only goes on saving in the copy)"),
    ("?", "this help"),
    ("q", "leave the table; the game is saved after every play"),
)


# at a network table: the server saves and there is no undo; leaving keeps the seat (or the game)
GUEST_COMMANDS = tuple(c for c in COMMANDS if c[0] not in ("u", "w", "q")) + (
    ("q", "leave the table; your seat is kept, and the same ono99 join brings you back to it"),)
HOST_COMMANDS = tuple(c for c in COMMANDS if c[0] not in ("u", "w", "q")) + (
    ("q", "leave the table; the game is kept, and the same ono99 host carries it on"),
    ("x", "close the table for everyone: the game ends here (asks first)"),)
# a host whose server keeps no game once it stops (--no-save, --port 0): q closes the table too
HOST_COMMANDS_NOT_KEPT = tuple(c for c in COMMANDS if c[0] not in ("u", "w", "q")) + (
    ("q", "leave the table; it closes, and the game ends here for everyone (this server keeps no game "
          "once it stops)"),
    ("x", "close the table for everyone: the game ends here (asks first)"),)


def help_lines(rules, label: str, commands=COMMANDS) -> list[str]:
    # the Ninety-nine as the rules in force have it (R7.1, or R7.2 under ninety-nine-option)
    ninety_nine = ("a Ninety-nine keeps the total too, played when the total ends in 0, one a turn"
                   if rules.ninety_nine_card_playable_on_tens else "a Ninety-nine cannot be played")
    lines = [f"Keep the running total under {rules.target}. On your turn play one card; you draw "
             "automatically. Two to Nine and Ten add their value, Minus Ten takes 10 off, Hold keeps the "
             f"total, Reverse also changes direction, Double Play makes the next player play twice; {ninety_nine}. "
             f"Whoever takes the total to {rules.target} or more loses the round."]
    lines.append(f"Rules in force, {label}: " + " ".join(rules.summary()))
    lines.append("Commands at the table, each followed by Enter:")
    lines.extend(f"{key}: {what}." for key, what in commands)
    return lines


def standings_lines(view, standings: list[int], rounds: int) -> list[str]:
    """The game-over lines from a (public) view and the table's standings, best first."""
    names = view.names
    parts = []
    for i, s in enumerate(standings):
        if view.rules.scoring_mode == "points":
            parts.append(f"{ORDINAL[i]} {names[s]} with {view.points[s]} points")
        else:
            parts.append(f"{ORDINAL[i]} {names[s]}")
    winner = names[view.winner] if view.winner is not None else names[standings[0]]
    return [f"Game over after {counted(rounds, 'round')}. {winner} {agree(winner, 'wins')}.",
            "Standings: " + "; ".join(parts) + "."]
