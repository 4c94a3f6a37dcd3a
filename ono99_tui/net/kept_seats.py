"""`ono99 join` remembers its seat tokens, so the same `ono99 join` comes back to its seat.

``DATA/seats.json`` holds, per server address and player name, the tokens of the last few seats
taken there, newest first (a private file, written atomically: a token is a key to a seat). A
join says hello with each in turn until the server gives one back (a dropped connection, a
restarted server), hand and all; if none is, it sits as usual. A token the server does not have
is not forgotten at once: a host may have started a new table for an evening and bring the kept
game back the next day, and its guests' older tokens then still find their seats. A token is
forgotten when its game is over or its server says the seat is gone for good, and the oldest go
once there are more than ``PER_SEAT``. A damaged or unreadable file is treated as empty:
remembering is a convenience, never a reason not to play.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..store.atomic import write_atomic
from ..store.paths import data_dir
from ..store.readfile import ReadError, read_text

KEEP = 20  # addresses and names remembered at most (the oldest go first)
PER_SEAT = 3  # tokens remembered per address and name (each costs a hello when the join starts)


TOKEN_ENV = "ONO99_SEAT_TOKEN"  # a seat token given by hand (or by a gateway to its child)


def seat_token_from_env() -> str | None:
    """ONO99_SEAT_TOKEN, checked here: one the server cannot read was sent, and the join waited
    for an answer that never came, then blamed the connection."""
    import os

    from ..errors import UserError
    from .manifest import MAX_TOKEN

    token = os.environ.get(TOKEN_ENV) or None
    if token is not None and (len(token) > MAX_TOKEN or not token.isprintable()):
        raise UserError(f"{TOKEN_ENV} must be at most {MAX_TOKEN} printable characters: the seat token "
                        "a join was given")
    return token


def kept_path() -> Path:
    return data_dir() / "seats.json"


def _key(host: str, port: int, name: str) -> str:
    return f"{host}:{port}\0{name}"


def _token(v) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 200


def _load(path: Path) -> dict[str, list[str]]:
    try:
        doc = json.loads(read_text(path, "kept seats", 64 * 1024))
    except (ReadError, ValueError, RecursionError):
        return {}
    seats = doc.get("seats") if isinstance(doc, dict) else None
    if not isinstance(seats, dict):
        return {}
    kept = {}
    for k, v in seats.items():
        tokens = [v] if _token(v) else [t for t in v if _token(t)] if isinstance(v, list) else []  # (version 1: one)
        if isinstance(k, str) and tokens:
            kept[k] = tokens[:PER_SEAT]
    return kept


def _store(path: Path, seats: dict[str, list[str]]) -> None:
    seats = dict(list(seats.items())[-KEEP:])
    try:
        write_atomic(path, json.dumps({"version": 2, "seats": seats}, indent=1, ensure_ascii=True) + "\n",
                     backup=False)
    except OSError:
        pass  # not remembered: the player can still come back with ONO99_SEAT_TOKEN


def kept_tokens(host: str, port: int, name: str, path: Path | None = None) -> list[str]:
    """The tokens kept for this address and name, newest first; with none kept under the name
    as typed, those of a name the server holds for the same one (text.alike: "zed" for "Zed"), so
    a player who types it another way after a crash is not sat at a new table meanwhile."""
    seats = _load(path or kept_path())
    if _key(host, port, name) in seats:
        return seats[_key(host, port, name)]
    from ..text import alike

    prefix, wanted = f"{host}:{port}\0", alike(name)
    same = [tokens for key, tokens in reversed(seats.items())  # (the newest are last in the file)
            if key.startswith(prefix) and alike(key[len(prefix):]) == wanted]
    return [token for tokens in same for token in tokens][:PER_SEAT]


def kept_token(host: str, port: int, name: str, path: Path | None = None) -> str | None:
    """The newest token kept for this address and name."""
    return next(iter(kept_tokens(host, port, name, path)), None)


def keep_token(host: str, port: int, name: str, token: str, path: Path | None = None) -> None:
    path = path or kept_path()
    seats = _load(path)
    key = _key(host, port, name)
    old = seats.pop(key, [])
    if old[:1] == [token]:
        return  # (already the newest: nothing to write)
    seats[key] = ([token] + [t for t in old if t != token])[:PER_SEAT]  # the newest first, and last in the file
    _store(path, seats)


def forget_token(host: str, port: int, name: str, token: str | None = None, path: Path | None = None) -> None:
    """Forget ``token`` (its game is over, its seat gone for good), or every token of this
    address and name."""
    path = path or kept_path()
    seats = _load(path)
    key = _key(host, port, name)
    tokens = seats.get(key, [])
    left = [t for t in tokens if token is not None and t != token]
    if left == tokens:
        return
    if left:
        seats[key] = left
    else:
        seats.pop(key)
    _store(path, seats)


def names_keeping(host: str, port: int, tokens, path: Path | None = None) -> list[str]:
    """The names under which this machine keeps one of ``tokens`` for this address (a seat
    taken here under another --name, say): oldest kept first."""
    prefix, wanted = f"{host}:{port}\0", set(tokens)
    return [key[len(prefix):] for key, kept in _load(path or kept_path()).items()
            if key.startswith(prefix) and wanted.intersection(kept)]
