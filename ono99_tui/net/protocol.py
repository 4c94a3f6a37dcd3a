"""The table protocol: versioned JSON lines (docs/protocol.md is its reference).

One message per line, a JSON object with a "type". Everything a client sends is
checked here against its type's fields before the server looks at it, so a bad
message gets one specific error and nothing else happens. Views go out as
plain dicts built from a PlayerView (rules as Rules.to_dict()).
"""

from __future__ import annotations

import json
from dataclasses import fields
from functools import lru_cache

from ..engine.rules import Rules, RulesError, rules_from_dict
from ..engine.view import PlayerView

VERSION = 1
MAX_LINE = 16 * 1024  # bytes per line a client may send (the biggest real message, a rules table, is ~1 KiB)
MAX_SERVER_LINE = 4 * 1024 * 1024  # what a client accepts from the server (a state with a long log)
MAX_TEXT = 200  # characters in any string field from a client


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
    """A line from the server (clients use this; the server uses ``parse``)."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("bad_json", f"not JSON: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("bad_message", "a message is a JSON object with a \"type\"")
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
        values = dict(data)
        if "rules" in values:
            values["rules"] = _rules_from_json(json.dumps(values["rules"], sort_keys=True))
        elif rules is not None:
            values["rules"] = rules
        else:
            raise ValueError("a view without rules, and no full state before it")
        values["round_plays"] = tuple((int(s), str(c)) for s, c in values["round_plays"])
        for name in _FIELDS:
            if isinstance(values[name], list):
                values[name] = tuple(values[name])
        return PlayerView(**{name: values[name] for name in _FIELDS})
    except (KeyError, TypeError, ValueError, RulesError) as exc:
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
