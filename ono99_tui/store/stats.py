"""Statistics per player name, kept in stats.toml in the data folder (atomic writes).

Only human seats are counted. For each name: games, wins, rounds lost, the sum
of final points (points games) for the average, and per bot level faced: games
and wins.
"""

from __future__ import annotations

from pathlib import Path

import tomli_w

from ..text import shorten, visible
from .atomic import write_atomic
from .paths import data_dir
from .readfile import ReadError, load_toml

COUNTS = ("games", "wins", "rounds_lost", "points_games", "points_total")


def stats_file() -> Path:
    return data_dir() / "stats.toml"


def load_stats(path: Path | None = None) -> tuple[dict, str | None]:
    """The statistics and, if the file could not be read, why (then they start empty, and
    the file is left alone: nothing writes over statistics it could not read)."""
    doc, problem = _load_doc(path or stats_file())
    return doc.get("players", {}), problem


def _load_doc(path: Path) -> tuple[dict, str | None]:
    """The whole document (keys this version does not know included, so that a write keeps them)."""
    try:
        doc = load_toml(path, "statistics file")
    except ReadError as exc:
        return {}, (None if exc.missing else f"{exc}; fix or remove the file to count games again")
    problem = check_stats(doc)
    if problem:
        return {}, f"{visible(path)}: {problem}; fix or remove the file to count games again"
    return doc, None


def _count_problem(where: str, value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"{where} must be a whole number from 0, not {shorten(repr(value))}"
    return None


def check_stats(doc: dict) -> str | None:
    """What is wrong with a statistics document (naming the key), or None."""
    players = doc.get("players", {})
    if not isinstance(players, dict):
        return "players must be a table of player names"
    for name, row in players.items():
        where = f"players.{shorten(name, 40)}"
        if not isinstance(row, dict):
            return f"{where} must be a table (games, wins, ...), not {shorten(repr(row))}"
        for key in COUNTS:
            if key in row and (bad := _count_problem(f"{where}.{key}", row[key])):
                return bad
        if bad := _more_wins(where, row):
            return bad
        faced = row.get("faced", {})
        if not isinstance(faced, dict):
            return f"{where}.faced must be a table of bot levels"
        for level, f in faced.items():
            at = f"{where}.faced.{shorten(level, 20)}"
            if not isinstance(f, dict):
                return f"{at} must be a table (games, wins)"
            for key in ("games", "wins"):
                if bad := _count_problem(f"{at}.{key}", f.get(key, 0)):
                    return bad
            if bad := _more_wins(at, f):
                return bad
    return None


def _more_wins(where: str, row: dict) -> str | None:
    wins, games = row.get("wins", 0), row.get("games", 0)
    if wins > games:
        return f"{where}.wins ({wins}) is more than {where}.games ({games})"
    return None


def record_game(game, seats, path: Path | None = None) -> None:
    path = path or stats_file()
    doc, problem = _load_doc(path)
    if problem:  # never write over a file we could not read
        raise OSError(problem)
    players = doc.setdefault("players", {})
    levels = sorted({s.bot_level for s in seats if s.is_bot})
    lost = [r["loser"] for r in game.round_log]
    for i, seat in enumerate(seats):
        if seat.is_bot:
            continue
        row = players.setdefault(seat.name, {})
        row["games"] = row.get("games", 0) + 1
        row["wins"] = row.get("wins", 0) + (game.winner == i)
        row["rounds_lost"] = row.get("rounds_lost", 0) + lost.count(i)
        if game.rules.scoring_mode == "points":
            row["points_games"] = row.get("points_games", 0) + 1
            row["points_total"] = row.get("points_total", 0) + game.points[i]
        faced = row.setdefault("faced", {})
        for level in levels:
            f = faced.setdefault(level, {"games": 0, "wins": 0})
            f["games"] += 1
            f["wins"] += game.winner == i
    # every other key is written back as it was read: a newer ono99's counts are not dropped
    write_atomic(path, "# ono99 statistics, per player name\n" + tomli_w.dumps({**doc, "players": players}))


def stats_lines(players: dict) -> list[str]:
    if not players:
        return ["No finished games yet."]
    lines = [f"{'player':<16} {'games':>5} {'wins':>5} {'win %':>6} {'rounds lost':>11} {'avg points':>10}  vs bots"]
    for name, row in sorted(players.items()):
        name = shorten(name, 24)  # a name from the file: shown, never obeyed; names are at most 24
        games = row.get("games", 0)
        wins = row.get("wins", 0)
        pg = row.get("points_games", 0)
        avg = f"{row.get('points_total', 0) / pg:.0f}" if pg else "-"
        faced = [f"{shorten(lv, 20)} {f.get('wins', 0)}/{f.get('games', 0)}"
                 for lv, f in sorted(row.get("faced", {}).items())]
        pct = f"{100 * wins / games:.0f}%" if games else "-"
        first = f"{name:<16} {games:>5} {wins:>5} {pct:>6} {row.get('rounds_lost', 0):>11} {avg:>10}  "
        # one bot level a line, under the column: a list on one line wrapped mid-entry at 80 columns
        lines.append(first + (faced[0] if faced else "-"))
        lines.extend(" " * len(first) + entry for entry in faced[1:])
    return lines
