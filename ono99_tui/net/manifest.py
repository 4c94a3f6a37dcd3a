"""The server's manifest: which tables are being played, so a restarted server resumes them.

``DATA/server/tables.json`` names each live hosted table (one that has started, saves, and is
not over): its id, name, rules label, the save that holds its game, and its seats (name, kind,
seat token) and, when no person was connected at it, since when (``away_since``, seconds since
the epoch: the --abandoned-after clock goes on across a restart) and whether its server asked
a password (``password: true``, never the password itself: a server started again without
one does not resume that table, which would open a private game to anyone). The game itself
is only ever in the save; the manifest holds what the save does not (the table's id and name,
and the tokens that let each player back in). It is written
atomically (store/atomic.py, a private file: the tokens are keys) whenever a table starts, a
seat's player comes or goes, a game ends, and when the server stops.

Reading it is never fatal: a missing manifest is "no tables"; a damaged one, or a damaged
entry, is a warning in the log and that part is skipped.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ..engine.game import MAX_NAME
from ..store.atomic import write_atomic
from ..store.paths import data_dir
from ..store.readfile import ReadError, read_text

log = logging.getLogger("ono99.server")

VERSION = 1
LIMIT = 4 * 1024 * 1024  # far above any real manifest (a table's entry is some hundred bytes)
MAX_TOKEN = 200


def manifest_path() -> Path:
    return data_dir() / "server" / "tables.json"


@dataclass
class SeatEntry:
    name: str
    player: str  # "human" or "bot:LEVEL"
    token: str | None  # a human seat's


@dataclass
class TableEntry:
    id: int
    name: str
    rules: str  # the rules label
    save: str  # the save's name in the saves folder
    seats: list[SeatEntry]
    away_since: float | None = None  # time.time() since which no person was at it (None: someone was)
    password: bool = False  # its server asked a password: it is resumed only by a server that asks one

    def to_dict(self) -> dict:
        out = {"id": self.id, "name": self.name, "rules": self.rules, "save": self.save,
               "seats": [{"name": s.name, "player": s.player, "token": s.token} for s in self.seats]}
        if self.away_since is not None:
            out["away_since"] = round(self.away_since, 3)
        if self.password:
            out["password"] = True
        return out


def write_manifest(path: Path, tables: list[TableEntry], next_id: int) -> None:
    """The manifest, whole or not at all; OSError when the data folder cannot be written."""
    doc = {"format": "ono99-server-tables", "version": VERSION, "next_id": next_id,
           "tables": [t.to_dict() for t in tables]}
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=True) + "\n", backup=False)


def read_manifest(path: Path, set_aside: bool = True) -> tuple[list[TableEntry], int]:
    """(tables, next table id) from the manifest; ([], 1) when it is missing or unreadable
    (a warning in the log, and a damaged file kept aside unless ``set_aside`` is False: a check
    that only reads). A damaged entry is skipped with a warning; the others are kept."""
    try:
        text = read_text(path, "server manifest", LIMIT)
    except ReadError as exc:
        if not exc.missing:
            log.warning("not resuming any table: %s", exc)
        return [], 1
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        log.warning("not resuming any table: %s: the server manifest is not valid JSON (%s)%s", path,
                    str(exc)[:200], _set_aside(path) if set_aside else "")
        return [], 1
    if not isinstance(doc, dict) or doc.get("format") != "ono99-server-tables" or doc.get("version") != VERSION:
        log.warning("not resuming any table: %s is not an ono99 server manifest of version %d%s", path, VERSION,
                    _set_aside(path) if set_aside else "")
        return [], 1
    next_id = doc.get("next_id")
    if not _is_int(next_id) or next_id < 1:
        next_id = 1
    raw_tables = doc.get("tables")
    if not isinstance(raw_tables, list):
        log.warning("not resuming any table: %s: 'tables' is not a list", path)
        return [], next_id
    out: list[TableEntry] = []
    seen_ids: set[int] = set()
    for i, raw in enumerate(raw_tables):
        try:
            entry = _entry(raw)
        except ValueError as exc:
            log.warning("%s: table entry %d skipped: %s", path, i + 1, exc)
            continue
        if entry.id in seen_ids:
            log.warning("%s: table entry %d skipped: table id %d appears twice", path, i + 1, entry.id)
            continue
        seen_ids.add(entry.id)
        out.append(entry)
    return out, max([next_id, *(t.id + 1 for t in out)])


def _set_aside(path: Path) -> str:
    """Keep a damaged manifest (the next write would replace it) as NAME.damaged; what was done."""
    aside = path.with_name(path.name + ".damaged")
    try:
        os.replace(path, aside)
    except OSError:
        return ""
    return f"; it is kept as {aside}"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31


def _text(raw: dict, key: str, most: int = 200) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value or len(value) > most or not value.isprintable():
        raise ValueError(f"{key!r} must be printable text of 1 to {most} characters")
    return value


def _entry(raw) -> TableEntry:
    if not isinstance(raw, dict):
        raise ValueError("not a table")
    table_id = raw.get("id")
    if not _is_int(table_id) or table_id < 1:
        raise ValueError("'id' must be a positive integer")
    seats_raw = raw.get("seats")
    if not isinstance(seats_raw, list) or not 2 <= len(seats_raw) <= 8:
        raise ValueError("'seats' must be a list of 2 to 8 seats")
    seats = []
    for s in seats_raw:
        if not isinstance(s, dict):
            raise ValueError("a seat is not a table")
        name, player, token = _text(s, "name", MAX_NAME), _text(s, "player", 20), s.get("token")
        if player != "human" and not player.startswith("bot:"):
            raise ValueError(f"seat {name!r}: 'player' must be 'human' or 'bot:LEVEL'")
        if player == "human":
            if not isinstance(token, str) or not 22 <= len(token) <= MAX_TOKEN or not token.isprintable():
                raise ValueError(f"seat {name!r}: a human seat needs its token")
        else:
            token = None
        seats.append(SeatEntry(name, player, token))
    away = raw.get("away_since")
    if away is not None and (isinstance(away, bool) or not isinstance(away, (int, float))
                             or not 0 <= away < 2**40):
        raise ValueError("'away_since' must be a time in seconds since the epoch")
    password = raw.get("password", False)
    if not isinstance(password, bool):
        raise ValueError("'password' must be true or false")
    return TableEntry(table_id, _text(raw, "name"), _text(raw, "rules"), _text(raw, "save", 40), seats,
                      None if away is None else float(away), password)


def _kept_tables(folder: Path | None = None):
    """(manifest path, its live tables) for each server manifest in ``folder`` (the data folder's
    server/): `ono99 serve`'s tables.json and each `ono99 host`'s host-PORT.json. Never fatal: a
    manifest that cannot be read keeps nothing (its server does not resume it either)."""
    folder = folder or data_dir() / "server"
    try:
        paths = sorted(folder.glob("*.json"))
    except OSError:
        return
    for path in paths:
        if path.name != "tables.json" and not (path.name.startswith("host-") and path.stem[5:].isdecimal()):
            continue
        # (quietly: reading here is a check, the server's own read logs what is wrong)
        previous, log.disabled = log.disabled, True
        try:
            tables, _ = read_manifest(path, set_aside=False)
        finally:
            log.disabled = previous
        yield path, tables


def kept_by(save: str, folder: Path | None = None) -> str | None:
    """Which server keeps the save ``save`` as a live table (its manifest names it), in words
    for a player ("ono99 host on port 7901", "ono99 serve"), or None. Such a game goes on at that
    server, where its players come back to their own seats: opened locally it would show every
    hand at one terminal and its plays would reach the network game."""
    for path, tables in _kept_tables(folder):
        if any(t.save == save for t in tables):
            return "ono99 serve" if path.name == "tables.json" else f"ono99 host on port {path.stem[5:]}"
    return None


def kept_saves(folder: Path | None = None) -> frozenset[str]:
    """Every save a server keeps as a live table (kept_by's, all at once): what Continue and
    `ono99 resume` without a name pass over when they look for the latest unfinished game, which
    is then the latest one played here."""
    return frozenset(t.save for _, tables in _kept_tables(folder) for t in tables)


def kept_refusal(save: str) -> str | None:
    """Why the save ``save`` is not opened here (a server keeps it as a live table), or None: the
    one check `ono99 resume`, `ono99 replay` and both front ends' Continue and Load make."""
    server = kept_by(save)
    if server is None:
        return None
    return (f"{save!r} is being played at a network table that {server} keeps, and goes on there: each "
            f"player comes back to their own seat when {server} runs again. It is not opened here, where "
            "every player's hand would show.")
