"""The table protocol: versioned JSON lines (docs/protocol.md is its reference).

One message per line, a JSON object with a "type". Everything a client sends is
checked here against its type's fields before the server looks at it, so a bad
message gets one specific error and nothing else happens. Views go out as
plain dicts built from a PlayerView (rules as Rules.to_dict()).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import fields
from functools import lru_cache

from ..engine.cards import ALL_CARDS
from ..engine.game import GameSetupError, check_names
from ..engine.rules import Rules, RulesError, rules_from_dict
from ..engine.view import PlayerView

VERSION = 1
MAX_LINE = 16 * 1024  # bytes per line a client may send (the biggest real message, a rules table, is ~1 KiB)
MAX_SERVER_LINE = 4 * 1024 * 1024  # what a client accepts from the server (a state with a long log)
MAX_TEXT = 200  # characters in any string field from a client
READ_VIEW = "_read_view"  # a state's view as the client read it on arrival (a PlayerView: never encoded)


class ProtocolError(ValueError):
    """A message that cannot be accepted; ``code`` is machine-readable, the text says why."""

    def __init__(self, code: str, message: str, re=None):
        super().__init__(message)
        self.code = code
        self.re = re  # the message's "id", once it is known to be one: its answer carries it


# Each client message type: field -> (types, required). "id" (echoed back as "re") is allowed on all.
_ID = (int, str)
_STR, _INT, _BOOL = (str,), (int,), (bool,)
CLIENT_MESSAGES: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    # "address": a gateway's child (serve-ssh, web) names the address of the player it plays for
    "hello": {"version": (_INT, True), "name": (_STR, True), "password": (_STR, False), "token": (_STR, False),
              "address": (_STR, False)},
    "tables": {},
    "create": {"rules": ((str, dict), False), "seats": (_INT, False), "name": (_STR, False)},
    "sit": {"table": (_INT, True), "seat": (_INT, False), "token": (_STR, False)},
    "watch": {"table": (_INT, True)},
    "stand": {},
    "bots": {"level": (_STR, False), "count": (_INT, False)},
    "start": {"dealer": (_INT, False)},
    "play": {"card": (_STR, True), "seq": (_INT, True)},
    "undo": {},
    "ping": {},
}


_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


def encode(message: dict) -> bytes:
    """One line of compact JSON. ensure_ascii: no raw control or escape bytes on anyone's wire."""
    return _dumps(message).encode("ascii") + b"\n"


def decode(line: bytes) -> dict:
    """A line from the server as a checked message (clients use this; the server uses ``parse``):
    ProtocolError says what is wrong with it (see SERVER_MESSAGES)."""
    try:
        message = json.loads(line)
    except RecursionError:  # (Python's words for it named Python's own limit)
        raise ProtocolError("bad_json", "not JSON this client reads: nested too deep") from None
    except ValueError as exc:
        raise ProtocolError("bad_json", f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("bad_message", "a message is a JSON object with a \"type\"")
    kind = message["type"]
    spec = SERVER_MESSAGES.get(kind)
    if spec is None:
        raise ProtocolError("unknown_type", f"a message of unknown type {kind[:40]!r}")
    _check(message, spec, kind, _seats(message))
    if kind == "state":
        _check_view(message["view"])
        if message["seat"] != (None if message["view"]["seat"] == -1 else message["view"]["seat"]):
            raise ProtocolError("bad_message", "state: 'seat' is not its view's")
        if message["full"] and "rules" not in message["view"]:
            raise ProtocolError("bad_message", "state: a full state without its rules")
    return message


def _type_name(types: tuple[type, ...]) -> str:
    names = {int: "an integer", str: "a string", bool: "true or false", dict: "an object"}
    return " or ".join(names[t] for t in types)


def parse(line: bytes) -> dict:
    """A client's line as a checked message; ProtocolError says exactly what is wrong."""
    if len(line) > MAX_LINE:
        raise ProtocolError("too_long", f"a line may hold at most {MAX_LINE} bytes")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("bad_json", "a line must be UTF-8 text") from None
    try:
        message = json.loads(text)
    except RecursionError:  # (Python's words for it named Python's own limit)
        raise ProtocolError("bad_json", "not JSON this server reads: nested too deep") from None
    except ValueError as exc:
        raise ProtocolError("bad_json", f"not JSON: {str(exc)[:80]}") from None
    if not isinstance(message, dict):
        raise ProtocolError("bad_message", "a message is a JSON object like {\"type\": \"ping\"}")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a \"type\" (a string)")
    spec = CLIENT_MESSAGES.get(kind)
    if spec is None:
        shown = kind[:40]
        raise ProtocolError("unknown_type", f"unknown message type {shown!r}; types are {', '.join(CLIENT_MESSAGES)}")
    if "id" in message and (type(message["id"]) not in _ID or (isinstance(message["id"], str)
                                                                and len(message["id"]) > 64)
                            or (type(message["id"]) is int and not -2**31 <= message["id"] < 2**31)):
        raise ProtocolError("bad_message", "\"id\" must be a 32-bit integer or a string of at most 64 characters")
    try:
        _check_fields(kind, spec, message)
    except ProtocolError as exc:  # (a direct answer: the client waiting on this id hears it)
        exc.re = message.get("id")
        raise
    return message


def _check_fields(kind: str, spec: dict, message: dict) -> None:
    for key, value in message.items():
        if key in ("type", "id"):
            continue
        if key not in spec:
            allowed = ", ".join(spec) or "none"
            raise ProtocolError("bad_message", f"{kind}: unknown field {key[:40]!r} (fields: {allowed})")
        types, _ = spec[key]
        # bool is an int in Python; a JSON true is never a number here
        if type(value) not in types:
            raise ProtocolError("bad_message", f"{kind}: {key!r} must be {_type_name(types)}")
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise ProtocolError("bad_message", f"{kind}: {key!r} is longer than {MAX_TEXT} characters")
        if isinstance(value, int) and not -2**31 <= value < 2**31:
            raise ProtocolError("bad_message", f"{kind}: {key!r} is out of range")
    missing = [key for key, (_, required) in spec.items() if required and key not in message]
    if missing:
        raise ProtocolError("bad_message", f"{kind}: missing {', '.join(repr(m) for m in missing)}")


# -- what a client accepts from the server -------------------------------------------
# Every line from the server is checked as it is read (decode): a server that is not ono99, of
# another version, a buggy fork or a hostile one is refused there with one ProtocolError saying
# what it sent, never met later as a crash when a screen draws it. A spec is a dict (field ->
# (spec, required); other fields are ignored), [spec] (a list of them; [spec, n]: at least n;
# [spec, n, m]: n to m),
# a tuple (any one of them), or one of these shapes. A SEAT is one of the message's seats (_seats).
class _Shape:
    def __init__(self, name: str, fits):
        self.name, self.fits = name, fits


def _int(low=-2**31, high=2**31 - 1, name="an integer") -> _Shape:
    return _Shape(name, lambda v, n: type(v) is int and low <= v <= high)


_CARDS = frozenset(ALL_CARDS)
INT, COUNT = _int(), _int(0, name="a count")
BOOL = _Shape("true or false", lambda v, n: type(v) is bool)
TEXT = _Shape("a string", lambda v, n: type(v) is str and len(v) <= MAX_SERVER_TEXT)
NULL = _Shape("null", lambda v, n: v is None)
SEAT = _Shape("a seat number", lambda v, n: type(v) is int and 0 <= v < n)
CARD = _Shape("a card", lambda v, n: type(v) is str and v in _CARDS)
OBJECT = _Shape("an object", lambda v, n: type(v) is dict)
EVERY_SEAT = _Shape("every seat once", lambda v, n: type(v) is list and all(type(s) is int for s in v)
                    and sorted(v) == list(range(n)))


def _one_of(*values) -> _Shape:
    return _Shape(" or ".join(map(repr, values)), lambda v, n: type(v) in (str, int) and v in values)


class _Tagged:
    """An object whose "type" is one of ``kinds``' keys, with that kind's fields."""

    def __init__(self, kinds: dict):
        self.kinds = kinds


class _PerSeat:
    """A list of one ``item`` for each seat."""

    def __init__(self, item):
        self.item = item


class _Pair:
    """A list of exactly these, in order ([seat, card])."""

    def __init__(self, *items):
        self.items = items


WATCHERS_NAMED = 12  # watchers a table's listing names (all are counted): a server sends no more
# (a hostile one's 20,000 names were taken, and its table took seconds to leave)
_SEAT_ROW = {"name": ((TEXT, NULL), True), "player": ((TEXT, NULL), True), "connected": (BOOL, True),
             "left": (BOOL, False)}
TABLE = {"id": (INT, True), "name": (TEXT, True), "rules": (TEXT, True), "rules_table": (OBJECT, False),
         "seats": ([_SEAT_ROW], True), "started": (BOOL, True), "over": (BOOL, True), "watchers": (COUNT, False),
         "watching": ([TEXT, 0, WATCHERS_NAMED], False), "state": (TEXT, False), "closes_in": (INT, False),
         "game": ((TEXT, NULL), False)}
# ("names" first: they say how many seats the seat numbers after them may name)
VIEW = {"names": ([TEXT], True), "seat": ((SEAT, _one_of(-1)), True), "rules": (OBJECT, False),
        "round": (COUNT, True), "dealer": (SEAT, True), "hand": ([CARD], True), "hand_sizes": (_PerSeat(COUNT), True),
        "in_round": ([SEAT], True), "played_this_round": ([CARD], True), "discard": ([CARD], True),
        "draw_pile_size": (COUNT, True), "total": (INT, True), "direction": (_one_of(1, -1), True),
        "current": ((SEAT, NULL), True), "plays_owed": (_int(0, 2), True), "ninety_nine_used": (BOOL, True),
        "pending_double": (BOOL, True), "tie_break": (BOOL, True), "tokens": (_PerSeat(INT), True),
        "points": (_PerSeat(INT), True), "out": (_PerSeat(BOOL), True), "over": (BOOL, True),
        "winner": ((SEAT, NULL), True), "round_plays": ([_Pair(SEAT, CARD)], True)}
# the events a seat is told (table/redact.py), with what the screens read of them
_ROW = {"seat": (SEAT, True), "cards": ([_Pair(CARD, INT)], True), "missing": (COUNT, True),
        "missing_points": (INT, False), "loser_penalty": (INT, True), "gained": (INT, True), "score": (INT, True)}
EVENTS = {
    "dealer": ({"seat": (SEAT, True), "method": (_one_of("high-card"), True),
                "draws": ([[_Pair(SEAT, CARD)], 1], True)},  # (every draw for the first deal, ties too)
               {"seat": (SEAT, True), "method": (_one_of("random", "named"), True)}),
    "deal": {"round": (COUNT, True), "dealer": (SEAT, True), "seats": ([SEAT], True), "stacked": (BOOL, False),
             "hand_size": (COUNT, False), "hand": ([CARD], False)},
    "play": {"n": (COUNT, False), "round": (COUNT, True), "seat": (SEAT, True), "card": (CARD, True),
             "total": (INT, True)},
    "double": {"seat": (SEAT, True)},
    "draw": {"seat": (SEAT, True), "hidden": (BOOL, False), "card": ((CARD, NULL), False)},
    "reshuffle": {"round": (COUNT, True), "cards": (COUNT, True)},
    "unseen_shuffled": {"round": (COUNT, True), "after": (COUNT, False), "cards": (COUNT, True)},
    "round_lost": {"round": (COUNT, True), "seat": (SEAT, True), "total": (INT, True),
                   "reason": (_one_of("bust", "no-legal-card", "play-limit"), True)},
    "tokens": {"seat": (SEAT, True), "change": (INT, True), "tokens": (INT, True)},
    "points": {"round": (COUNT, True), "breakdown": ([_ROW, 1], True)},
    "eliminated": {"round": (COUNT, False), "seat": (SEAT, True)},
    "tie": {"seats": ([SEAT, 2], True), "score": (INT, True)},
    "game_over": {"winner": (SEAT, True), "standings": (EVERY_SEAT, True)},
}
_RE = {"re": ((INT, TEXT), False)}
SERVER_MESSAGES: dict[str, dict] = {
    "welcome": {**_RE, "version": (INT, True), "server": (TEXT, False), "name": (TEXT, False),
                "password": (BOOL, False), "resumed": (BOOL, False), "one_table": (BOOL, False)},
    "tables": {**_RE, "tables": ([TABLE], True)},
    "ok": {**_RE, "table": (INT, False), "seat": (INT, False), "token": (TEXT, False), "game": ((TEXT, NULL), False),
           "added": (INT, False), "seq": (INT, False), "duplicate": (BOOL, False)},
    "pong": _RE,
    "error": {**_RE, "code": (TEXT, True), "message": (TEXT, True)},
    "notice": {"message": (TEXT, True)},
    "kicked": {"message": (TEXT, True)},
    "closing": {"message": (TEXT, True), "kept": (BOOL, False)},
    "table": {"table": (TABLE, True), "seat": ((SEAT, NULL), True)},
    "state": {"table": (INT, True), "seat": ((INT, NULL), True), "seq": (COUNT, True), "view": (VIEW, True),
              "events": ([_Tagged(EVENTS)], True), "full": (BOOL, True)},
}
# what each request is answered with: the reply's type, and the fields its asker reads
REPLIES = {"hello": ("welcome", ()), "tables": ("tables", ()), "create": ("ok", ("table",)),
           "sit": ("ok", ("table", "seat", "token")), "watch": ("ok", ("table",)), "ping": ("pong", ())}
MAX_SERVER_TEXT = 2000  # characters in any string the server sends (its longest, an error's message, ~300)


def _name(spec) -> str:
    if isinstance(spec, dict):
        return "an object"
    if isinstance(spec, (list, _PerSeat)):
        return "a list"
    if isinstance(spec, _Tagged):
        return f"an object whose \"type\" is one of {', '.join(spec.kinds)}"
    if isinstance(spec, _Pair):
        return f"a list of {len(spec.items)}"
    if isinstance(spec, tuple):
        return " or ".join(_name(s) for s in spec)
    return spec.name


def _check(value, spec, where: str, seats: int) -> None:
    """``value`` as ``spec`` says (see SERVER_MESSAGES), else ProtocolError naming ``where``."""
    def bad(why=None):
        return ProtocolError("bad_message", f"{where}: {why or 'must be ' + _name(spec)}")

    if isinstance(spec, dict):
        if type(value) is not dict:
            raise bad()
        for key, (sub, required) in spec.items():
            if key in value:
                _check(value[key], sub, f"{where}.{key}", seats)
            elif required:
                raise bad(f"no {key!r}")
    elif isinstance(spec, _Tagged):
        if type(value) is not dict or type(value.get("type")) is not str or value["type"] not in spec.kinds:
            raise bad()
        _check(value, spec.kinds[value["type"]], f"{where} ({value['type']})", seats)
    elif isinstance(spec, (list, _PerSeat, _Pair)):
        if type(value) is not list:
            raise bad()
        if isinstance(spec, _Pair):
            items = spec.items
            if len(value) != len(items):
                raise bad(f"must be a list of {len(items)}")
        elif isinstance(spec, _PerSeat):
            items = (spec.item,) * seats
            if len(value) != seats:
                raise bad(f"must be a list of {seats}, one for each seat")
        else:
            items = spec[:1] * len(value)
            if len(value) < (spec[1] if len(spec) > 1 else 0):
                raise bad(f"must be a list of at least {spec[1]}")
            if len(spec) > 2 and len(value) > spec[2]:
                raise bad(f"must be a list of at most {spec[2]}")
        for i, (item, sub) in enumerate(zip(value, items)):
            _check(item, sub, f"{where}[{i}]", seats)
    elif isinstance(spec, tuple):
        for one in spec:
            try:
                return _check(value, one, where, seats)
            except ProtocolError:
                pass
        raise bad()
    elif not spec.fits(value, seats):
        raise bad()


def _seats(message: dict) -> int:
    """How many seats the seat numbers in ``message`` may name: its table's seats, its view's names."""
    holder, key = {"table": ("table", "seats"), "state": ("view", "names")}.get(message["type"], ("", ""))
    inner = message.get(holder)
    seats = inner.get(key) if isinstance(inner, dict) else None
    return len(seats) if isinstance(seats, list) else 0


def _check_view(data: dict) -> None:
    """A view's fields as VIEW says, and what they say together: the names of a game (check_names)."""
    names = data.get("names") if isinstance(data, dict) else None
    _check(data, VIEW, "view", len(names) if isinstance(names, list) else 0)
    try:
        check_names(names)
    except GameSetupError as exc:
        raise ProtocolError("bad_message", f"view.names: {exc}") from None
    for holds, what in _VIEW_HOLDS:
        if not holds(data):
            raise ProtocolError("bad_message", f"view: {what}")


# what every view of a game holds (engine/game.py), and the screens count on
_VIEW_HOLDS = (
    (lambda v: len(set(v["in_round"])) == len(v["in_round"]), "a seat in the round twice"),
    (lambda v: (v["current"] is None) == v["over"], "whose turn it is while the game is on, and only then"),
    (lambda v: (v["winner"] is None) != v["over"], "a winner once the game is over, and only then"),
    (lambda v: v["current"] is None or v["current"] in v["in_round"] and not v["out"][v["current"]]
     and v["hand_sizes"][v["current"]] > 0, "the seat to move is not in the round, or holds no card"),
    (lambda v: len(v["hand"]) == (0 if v["seat"] < 0 else v["hand_sizes"][v["seat"]]),
     "the hand is not as many cards as its seat holds"),
)


# -- views ----------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _rules_dict(rules: Rules) -> dict:
    return rules.to_dict()  # only ever serialised, never changed


@lru_cache(maxsize=256)
def _rules_from_json(text: str) -> Rules:
    return rules_from_dict(json.loads(text), "server")


_FIELDS = tuple(f.name for f in fields(PlayerView))


def view_to_dict(view: PlayerView, with_rules: bool = True) -> dict:
    """``with_rules=False``: without the rules, which never change during a game (the
    client keeps them from the last full state); the biggest part of a view otherwise."""
    out = {}
    for name in _FIELDS:
        value = getattr(view, name)
        if name == "rules":
            if not with_rules:
                continue
            value = _rules_dict(value)
        elif name == "round_plays":
            value = [[s, c] for s, c in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


# The only fields of a view that differ between the seats (and a spectator) looking at one
# state of the game: everything else in a PlayerView is public (engine/view.py).
SEAT_FIELDS = ("seat", "hand")


def view_public_json(view: PlayerView) -> str:
    """The view's public fields (all but SEAT_FIELDS and the rules) as the members of a JSON
    object, without its braces: the same for every seat in one state, so a server telling four
    seats of one change encodes this part once (``encode_state``)."""
    out = view_to_dict(view, with_rules=False)
    for name in SEAT_FIELDS:
        del out[name]
    return _dumps(out)[1:-1]


def encode_state(table: int, seat: int | None, seq: int, view: PlayerView, public: str, events: list) -> bytes:
    """``encode`` of a state message without the rules ("full": false) whose view is ``view``,
    given ``view_public_json(view)`` (or that of any view of the same state)."""
    # (numbers formatted directly: the head is most of what is left per seat once the public part is shared)
    who = "null" if seat is None else int(seat)
    own = _dumps({name: getattr(view, name) for name in SEAT_FIELDS})[:-1]
    return (f'{{"type":"state","table":{int(table)},"seat":{who},"seq":{int(seq)},"view":{own},{public}}},'
            f'"events":{_dumps(events)},"full":false}}\n').encode("ascii")


def view_from_dict(data: dict, rules: Rules | None = None) -> PlayerView:
    """A view the server sent (checked: a bad one is a ProtocolError, not a crash later);
    ``rules``: the table's, for a view sent without them."""
    try:
        _check_view(data)
        values = dict(data)
        if "rules" in values:
            values["rules"] = _rules_from_json(json.dumps(values["rules"], sort_keys=True))
        elif rules is not None:
            values["rules"] = rules
        else:
            raise ValueError("a view without rules, and no full state before it")
        deck = values["rules"].deck
        values["round_plays"] = [(s, c) for s, c in values["round_plays"]]
        if Counter(values["hand"]) - Counter(deck) or max(values["hand_sizes"]) > len(deck) \
                or values["draw_pile_size"] > len(deck):
            raise ValueError("more cards than the table's deck holds")
        view = PlayerView(**{name: tuple(values[name]) if isinstance(values[name], list) else values[name]
                             for name in _FIELDS})
        if view.my_turn and not view.legal_plays():  # (the engine ends a round on a seat that has none)
            raise ValueError("this seat is to move with no card it may play")
        return view
    except (ProtocolError, ValueError, RulesError) as exc:
        raise ProtocolError("bad_message", f"the server sent a view that cannot be read: {exc}") from None


class LineBuffer:
    """Splits a byte stream into lines, refusing (once per line) any longer than ``limit``
    without ever holding more than ``limit`` bytes of it."""

    def __init__(self, limit: int = MAX_LINE):
        self.limit = limit
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes | None]:
        """Complete lines in ``data``; None stands for a line that was too long (dropped)."""
        out: list[bytes | None] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            if self._skipping:
                self._skipping = False
            elif len(self._buf) + nl - start > self.limit:
                out.append(None)
            else:
                self._buf += data[start:nl]
                out.append(bytes(self._buf))
            self._buf.clear()
            start = nl + 1
        if not self._skipping:
            self._buf += data[start:]
            if len(self._buf) > self.limit:
                self._buf.clear()
                self._skipping = True
                out.append(None)
        return out
