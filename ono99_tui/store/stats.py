"""Statistics per player name, kept in stats.toml in the data folder (atomic writes).

Only human seats are counted. For each name: games, wins, rounds lost, the sum
of final points (points games) for the average, and per bot level faced: games
and wins.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import tomli_w

from .atomic import write_atomic
from .paths import data_dir


def stats_file() -> Path:
    return data_dir() / "stats.toml"


def load_stats(path: Path | None = None) -> tuple[dict, str | None]:
    """The statistics and, if the file could not be read, why (then they start empty)."""
    path = path or stats_file()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return {}, f"{path}: cannot read statistics: {exc}"
    players = doc.get("players", {})
    return (players if isinstance(players, dict) else {}), None


def record_game(game, seats, path: Path | None = None) -> None:
    path = path or stats_file()
    players, problem = load_stats(path)
    if problem:  # never write over a file we could not read
        raise OSError(problem)
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
    write_atomic(path, "# ono99 statistics, per player name\n" + tomli_w.dumps({"players": players}))


def stats_lines(players: dict) -> list[str]:
    if not players:
        return ["No finished games yet."]
    lines = [f"{'player':<16} {'games':>5} {'wins':>5} {'win %':>6} {'rounds lost':>11} {'avg points':>10}  vs bots"]
    for name, row in sorted(players.items()):
        games = row.get("games", 0)
        wins = row.get("wins", 0)
        pg = row.get("points_games", 0)
        avg = f"{row.get('points_total', 0) / pg:.0f}" if pg else "-"
        faced = [f"{lv} {f.get('wins', 0)}/{f.get('games', 0)}" for lv, f in sorted(row.get("faced", {}).items())]
        pct = f"{100 * wins / games:.0f}%" if games else "-"
        first = f"{name:<16} {games:>5} {wins:>5} {pct:>6} {row.get('rounds_lost', 0):>11} {avg:>10}  "
        # one bot level a line, under the column: a list on one line wrapped mid-entry at 80 columns
        lines.append(first + (faced[0] if faced else "-"))
        lines.extend(" " * len(first) + entry for entry in faced[1:])
    return lines
