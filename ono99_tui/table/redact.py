"""What each seat may be told: its own hand and public information, nothing else.

The engine's events carry everything (the deck order, every dealt hand, every
drawn card, the reshuffled pile's order) because saves and local replays need
it. Anything that leaves the table for a seat, a spectator or a network
client goes through here. Unknown event types are dropped, never passed on:
a new kind of event has to be looked at before anyone sees it.
"""

from __future__ import annotations

from ..engine.view import PlayerView

SPECTATOR = None  # the "seat" of someone who watches: public information only

# Events that are public as they stand. R9.1: at the end of a round the hands are
# counted openly, so the points breakdown (cards per seat) is public too.
# An undo's shuffle of the unseen pile ("unseen_shuffled") gives only how many cards it holds.
_PUBLIC = frozenset({"dealer", "play", "double", "round_lost", "tokens", "points", "eliminated", "tie",
                     "game_over", "unseen_shuffled"})


def event_for(event: dict, seat: int | None) -> dict | None:
    """``event`` as ``seat`` may see it (None: a spectator), or None if it tells them nothing."""
    kind = event.get("type")
    if kind in _PUBLIC:
        return dict(event)
    if kind == "deal":
        out = {k: event[k] for k in ("type", "round", "dealer", "seats", "stacked") if k in event}
        out["hand_size"] = len(event["hands"][event["seats"][0]]) if event.get("seats") else 0
        if seat is not None and seat in event.get("seats", ()):
            out["hand"] = list(event["hands"][seat])
        return out
    if kind == "draw":
        if seat is not None and seat == event["seat"]:
            return dict(event)
        # that a card was drawn (or none could be, R4.4) is public; which card is not
        if event["card"] is None:  # nothing to draw: public, and said as the record says it
            return {"type": "draw", "seat": event["seat"], "hidden": False, "card": None}
        return {"type": "draw", "seat": event["seat"], "hidden": True}
    if kind == "reshuffle":
        return {"type": "reshuffle", "round": event["round"], "cards": len(event["order"])}
    return None


def events_for(events, seat: int | None) -> list[dict]:
    out = []
    for event in events:
        shown = event_for(event, seat)
        if shown is not None:
            out.append(shown)
    return out


def view_for(game, seat: int | None, like: PlayerView | None = None) -> PlayerView:
    """The seat's view; a spectator's view is a seat's with no hand and no seat.
    ``like``: a view of this same state for any seat, whose public fields are taken as they are
    (a table telling every seat of one change builds them once)."""
    if like is None:
        like = PlayerView.of(game, 0 if seat is None else seat)
        if seat is not None:
            return like
    if seat is None:
        return like.seen_by(-1, ())
    return like.seen_by(seat, tuple(game.hands[seat]))
