"""`ono99 join` remembers its seat tokens, so the same `ono99 join` comes back to its seat.

``DATA/seats.json`` holds, per server address and player name, the token of the seat last
taken there (a private file, written atomically: a token is a key to a seat). A join that finds
one says hello with it: if the seat is still there (a dropped connection, a restarted server)
it is taken back, hand and all; if not, the entry is forgotten and the join sits as usual.
A damaged or unreadable file is treated as empty: remembering is a convenience, never a reason
not to play.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..store.atomic import write_atomic
from ..store.paths import data_dir
from ..store.readfile import ReadError, read_text

KEEP = 20  # seats remembered at most (the oldest go first)


def kept_path() -> Path:
    return data_dir() / "seats.json"


def _key(host: str, port: int, name: str) -> str:
    return f"{host}:{port}\0{name}"


def _load(path: Path) -> dict[str, str]:
    try:
        doc = json.loads(read_text(path, "kept seats", 64 * 1024))
    except (ReadError, ValueError, RecursionError):
        return {}
    seats = doc.get("seats") if isinstance(doc, dict) else None
    if not isinstance(seats, dict):
        return {}
    return {k: v for k, v in seats.items() if isinstance(k, str) and isinstance(v, str) and 0 < len(v) <= 200}


def _store(path: Path, seats: dict[str, str]) -> None:
    seats = dict(list(seats.items())[-KEEP:])
    try:
        write_atomic(path, json.dumps({"version": 1, "seats": seats}, indent=1, ensure_ascii=True) + "\n",
                     backup=False)
    except OSError:
        pass  # not remembered: the player can still come back with ONO99_SEAT_TOKEN


def kept_token(host: str, port: int, name: str, path: Path | None = None) -> str | None:
    return _load(path or kept_path()).get(_key(host, port, name))


def keep_token(host: str, port: int, name: str, token: str, path: Path | None = None) -> None:
    path = path or kept_path()
    seats = _load(path)
    key = _key(host, port, name)
    if seats.get(key) == token:
        return
    seats.pop(key, None)
    seats[key] = token  # the newest last
    _store(path, seats)


def forget_token(host: str, port: int, name: str, path: Path | None = None) -> None:
    path = path or kept_path()
    seats = _load(path)
    if seats.pop(_key(host, port, name), None) is not None:
        _store(path, seats)
