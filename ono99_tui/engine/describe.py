"""Events in a player's words: "Ana plays 7 -> 56", "Bo plays Hold - 56 stays".

Used by `ono99 replay` and the game log. Plain text, no markup.
"""

from __future__ import annotations

import dataclasses

from . import cards as C

_REASONS = {"bust": "went bust", "no-legal-card": "had no card to play",
            "play-limit": "had to play when the round hit its play limit (R4.6)"}  # past tense: no agreement needed


def _cards(count: int) -> str:
    return f"{count} card{'' if count == 1 else 's'}"


def agree(who: str, verb: str) -> str:
    """Verb agreement for the default human seat name "You": "You play", "Bo plays"."""
    if who != "You":
        return verb
    return {"plays": "play", "draws": "draw", "gives": "give", "is": "are", "has": "have", "wins": "win",
            "loses": "lose", "deals": "deal", "holds": "hold"}.get(verb, verb)


def possessive(who: str) -> str:
    """"Ann's"; the default human seat name "You" reads "Your" (hot seat had "You's hand")."""
    return "Your" if who == "You" else f"{who}'s"


def plays_made(n: int, verb: bool = True) -> str:
    """"1 play made here is", "4 plays made here are" (``verb``: with it): what leaving a game
    opened read-only loses."""
    words = f"{n} play made here" if n == 1 else f"{n} plays made here"
    return f"{words} {'is' if n == 1 else 'are'}" if verb else words


def players_by_round(events) -> dict[int, int]:
    """How many players each round in ``events`` was dealt to (its deal event's seats)."""
    return {e["round"]: len(e["seats"]) for e in events if e["type"] == "deal" and "seats" in e}


def describe(event: dict, names, *, ascii: bool = False, viewer: int | None = None,
             in_round: int | None = None) -> str | None:
    """One line for ``event``, or None for events not worth a line (draws, deals' decks).
    ``in_round``: how many players the event's round was dealt to (players_by_round), which a
    Reverse needs: with 2 it acts as a Hold and the direction stays (R6.2); when it is not
    known, the line claims neither."""
    arrow = "->" if ascii else "→"
    dash = "-" if ascii else "—"
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event else ""
    if kind == "dealer":
        how = event["method"]
        if how == "high-card":
            # every draw, the first included: a tie for the highest card draws again (R2.2)
            # "Di drew 9", never "Di 9", which reads as a score or a total
            rounds = [", ".join(f"{names[s]} drew {C.LABEL[c]}" for s, c in draw) for draw in event["draws"]]
            drawn = rounds[0] + "".join(f"; tie, again: {r}" for r in rounds[1:])
            return f"{who} {agree(who, 'deals')} first (high card: {drawn})"
        return f"{who} {agree(who, 'deals')} first ({'chosen at random' if how == 'random' else 'named by the table'})"
    if kind == "deal":
        stacked = " from a stacked deck" if event.get("stacked") else ""
        dealer = names[event["dealer"]]
        return f"Round {event['round']}: {dealer} {agree(dealer, 'deals')}{stacked}"
    if kind == "play":
        card, total = event["card"], event["total"]
        label = C.LABEL[card]
        if card in C.ADDERS or card == C.MINUS_TEN:
            return f"{who} {agree(who, 'plays')} {label} {arrow} {total}"
        if card == C.REVERSE:
            does = {None: "", 2: " (a Hold with two players)"}.get(in_round, ", direction flips")
            return f"{who} {agree(who, 'plays')} Reverse {dash} {total} stays{does}"
        if card == C.DOUBLE:
            return f"{who} {agree(who, 'plays')} Double Play {dash} {total} stays"
        return f"{who} {agree(who, 'plays')} {label} {dash} {total} stays"
    if kind == "double":
        return f"{who} must play twice"
    if kind == "draw":
        if event.get("hidden"):
            return None  # someone else's card: a seat's log never names it
        if event.get("card") is None:  # (an older ono99 server's redacted draw has no "card")
            return f"{who} {agree(who, 'has')} nothing to draw and {agree(who, 'holds')} one card fewer"
        if viewer is not None and viewer == event["seat"]:
            return f"{who} {agree(who, 'draws')} {C.LABEL[event['card']]}"
        return None
    if kind == "reshuffle":
        # a seat's (redacted) copy gives only how many cards: never the order (table/redact.py)
        count = event["cards"] if "cards" in event else len(event["order"])
        return f"The played cards are shuffled into a new draw pile ({_cards(count)})"
    if kind == "unseen_shuffled":
        return f"Undo: the draw pile is shuffled ({_cards(event['cards'])}), so the cards drawn back stay unseen"
    if kind == "round_lost":
        return f"{who} {_REASONS[event['reason']]} at {event['total']} and {agree(who, 'loses')} round {event['round']}"
    if kind == "tokens":
        left = event["tokens"]
        return f"{who} {agree(who, 'gives')} up a token ({left} left)" if left else f"{who} {agree(who, 'gives')} up the last token"
    if kind == "points":
        parts = [f"{names[row['seat']]} +{row['gained']} = {row['score']}" for row in event["breakdown"]]
        return "Points: " + ", ".join(parts)
    if kind == "eliminated":
        return f"{who} {agree(who, 'is')} out"
    if kind == "tie":
        tied = ", ".join(names[s] for s in event["seats"])
        return f"Tie at {event['score']}: {tied} play on"
    if kind == "game_over":
        winner = names[event["winner"]]
        return f"{winner} {agree(winner, 'wins')} the game!"
    return None


def rounds_apart(events: list[dict]) -> list[list[dict]]:
    """Events cut before each deal that follows a lost round: one part per round. One change at
    the table can end several rounds (R5.2: a hand of only 99s loses at the deal), and each
    round's end is told on its own, with the scores it left."""
    parts: list[list[dict]] = [[]]
    for e in events:
        if e["type"] == "deal" and any(x["type"] == "round_lost" for x in parts[-1]):
            parts.append([])
        parts[-1].append(e)
    return [p for p in parts if p]


def scores_before(tokens, points, out, later: list[dict]) -> tuple[list[int], list[int], list[bool]]:
    """Tokens, points and who is out as they stood before ``later`` (events since), from the
    scores now: each later change taken back."""
    tokens, points, out = list(tokens), list(points), list(out)
    for e in reversed(later):
        if e["type"] == "tokens":
            tokens[e["seat"]] -= e["change"]
        elif e["type"] == "eliminated":
            out[e["seat"]] = False
        elif e["type"] == "points":
            for row in e["breakdown"]:
                points[row["seat"]] = row["score"] - row["gained"]
    return tokens, points, out


def seats_at_round_end(before, part: list[dict], seats: int, plays: int):
    """(dealer, seats in the round, hand sizes) as the round lost in ``part`` ended, or None when
    they cannot be told. ``part``: the lost round's events as a seat was told them (one part of
    ``rounds_apart``); ``before``: the view last shown before them, used when ``part`` does not
    hold the round's deal (its plays came one change at a time); ``seats``: seats at the table;
    ``plays``: the plays the round had, to check that nothing came between ``before`` and
    ``part``. By then the table holds the next deal: its dealer, and hand sizes that differ
    from the round's end under R4.4."""
    lost = next((e for e in part if e["type"] == "round_lost"), None)
    if lost is None:
        return None
    deal = next((e for e in part if e["type"] == "deal" and e.get("round") == lost["round"]), None)
    if deal is not None:  # (lost at its deal, R5.2: the deal is the part's first event)
        if not isinstance(deal.get("hand_size"), int):  # (optional in the protocol: a server's word)
            return None
        dealer, in_round, sizes = deal["dealer"], tuple(deal["seats"]), [0] * seats
        for s in in_round:
            sizes[s] = deal["hand_size"]  # (a seat's copy of a deal: table/redact.py)
        made = 0
    elif before is not None and before.round == lost["round"] and len(before.hand_sizes) == seats:
        dealer, in_round, sizes = before.dealer, before.in_round, list(before.hand_sizes)
        made = len(before.round_plays)
    else:
        return None
    for e in part:
        if e is lost:
            break
        if e["type"] == "play":
            sizes[e["seat"]] -= 1
            made += 1
        elif e["type"] == "draw":
            sizes[e["seat"]] += e.get("hidden") or e.get("card") is not None  # (none to draw: R4.4)
    if made != plays:  # a change not seen between them: better the table as it is than a wrong count
        return None
    return dealer, in_round, tuple(max(0, n) for n in sizes)


def view_before(view, later: list[dict]):
    """``view`` with the scores as they stood before ``later``: what a round's notice shows when
    later rounds have ended since (their scores are in the view already)."""
    tokens, points, out = scores_before(view.tokens, view.points, view.out, later)
    return dataclasses.replace(view, tokens=tuple(tokens), points=tuple(points), out=tuple(out))
