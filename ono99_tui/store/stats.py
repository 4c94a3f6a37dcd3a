"""Statistics per player name, kept in stats.toml in the data folder (atomic writes).

Only human seats are counted. For each name: games, wins, rounds lost, the sum
of final points (points games) for the average, and per bot level faced: games
and wins.

A game is counted once, however many copies of it are finished (a save's .bak put back, an
export imported twice, a Save as copy): each game's id (the record's meta.game, see
engine.record.Record.game_id) is kept in ``counted_games`` when it is counted, and a game whose
id is there is not counted again. Only the newest COUNTED_KEEP ids are kept, so the file stays
small (a copy finished after that many other games would count again). A file without the key
(an older ono99's) is read as one that counted no game yet; an older ono99 keeps the key as it is.

Names are compared NFC-normalised ("Zoë" typed either way is one player; rows an
older ono99 kept apart are merged when read). An update holds stats.toml.lock
while it reads, adds and writes, so games ending at once in several processes
are all counted (each adds to what the one before it wrote).
"""

from __future__ import annotations

from pathlib import Path

import tomli_w

from ..text import display_width, fit, same_name, short_names, shorten, visible
from .atomic import LinkedFile, is_link, write_atomic
from .lock import Lock
from .paths import data_dir
from .readfile import ReadError, load_toml

COUNTS = ("games", "wins", "rounds_lost", "points_games", "points_total")
COUNTED_KEEP = 1000  # game ids kept in counted_games (~20 bytes each: the file stays under ~25 KB of them)


def stats_file() -> Path:
    return data_dir() / "stats.toml"


def load_stats(path: Path | None = None) -> tuple[dict, str | None]:
    """The statistics and, if the file could not be read, why (then they start empty, and
    the file is left alone: nothing writes over statistics it could not read)."""
    doc, problem = _load_doc(path or stats_file())
    return _merged(doc.get("players", {})), problem


def _merged(players: dict) -> dict:
    """Rows whose names are one name in NFC added together (checked rows: see check_stats)."""
    if all(same_name(name) == name for name in players):
        return players
    out: dict = {}
    for name, row in players.items():
        into = out.setdefault(same_name(name), {})
        for key, value in row.items():
            if key == "faced":
                faced = into.setdefault("faced", {})
                for level, f in value.items():
                    g = faced.setdefault(level, {"games": 0, "wins": 0})
                    for k in ("games", "wins"):
                        g[k] = g.get(k, 0) + f.get(k, 0)
            elif key in COUNTS:
                into[key] = into.get(key, 0) + value
            else:
                into.setdefault(key, value)  # a newer ono99's key: kept as the first row had it
    return out


def _load_doc(path: Path) -> tuple[dict, str | None]:
    """The whole document (keys this version does not know included, so that a write keeps them)."""
    if is_link(path):  # (one a game could never update: said as such, not as whatever it points at)
        return {}, f"{visible(LinkedFile(path).strerror)}; no game is counted until then"
    try:
        doc = load_toml(path, "statistics file")
    except ReadError as exc:
        if exc.missing:
            return {}, None
        from .atomic import file_in_the_way

        if (in_the_way := file_in_the_way(path)) is not None:  # (ONO99_DATA_DIR naming a file)
            return {}, f"cannot read {visible(path)}: {visible(in_the_way)}; no game is counted until then"
        return {}, f"{exc}; fix or remove the file to count games again"
    problem = check_stats(doc)
    if problem:
        return {}, f"{visible(path)}: {problem}; fix or remove the file to count games again"
    return doc, None


def _count_problem(where: str, value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"{where} must be a whole number from 0, not {shorten(repr(value))}"
    return None


SAID_AT_MOST = 8  # problems of a statistics file said at once (a hand-edited file has a few; the rest counted)


def check_stats(doc: dict) -> str | None:
    """What is wrong with a statistics document (naming each key, all at once: fixed one per run,
    a hand-edited file took as many runs as it had mistakes), or None."""
    problems = list(_stats_problems(doc))
    if not problems:
        return None
    more = len(problems) - SAID_AT_MOST
    return "; ".join(problems[:SAID_AT_MOST]) + (f"; and {more} more" if more > 0 else "")


def _stats_problems(doc: dict):
    counted = doc.get("counted_games", [])
    if not isinstance(counted, list) or not all(isinstance(g, str) for g in counted):
        yield f"counted_games must be a list of game ids (text), not {shorten(repr(counted))}"
    players = doc.get("players", {})
    if not isinstance(players, dict):
        yield "players must be a table of player names"
        return
    for name, row in players.items():
        where = f"players.{shorten(name, 40)}"
        if not isinstance(row, dict):
            yield f"{where} must be a table (games, wins, ...), not {shorten(repr(row))}"
            continue
        bad = [p for key in COUNTS if key in row and (p := _count_problem(f"{where}.{key}", row[key]))]
        yield from bad
        if not bad and (more := _more_wins(where, row)):
            yield more
        faced = row.get("faced", {})
        if not isinstance(faced, dict):
            yield f"{where}.faced must be a table of bot levels"
            continue
        for level, f in faced.items():
            at = f"{where}.faced.{shorten(level, 20)}"
            if not isinstance(f, dict):
                yield f"{at} must be a table (games, wins)"
                continue
            bad = [p for key in ("games", "wins") if (p := _count_problem(f"{at}.{key}", f.get(key, 0)))]
            yield from bad
            if not bad and (more := _more_wins(at, f)):
                yield more


def _more_wins(where: str, row: dict) -> str | None:
    wins, games = row.get("wins", 0), row.get("games", 0)
    if wins > games:
        return f"{where}.wins ({wins}) is more than {where}.games ({games})"
    return None


def record_game(game, seats, path: Path | None = None, game_id: str | None = None) -> bool:
    """Count a finished ``game`` for the human ``seats``; False when the game ``game_id`` was
    counted already (a copy of it finished again: nothing is added). OSError when the file
    cannot be read or written."""
    path = path or stats_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = Lock(path)
    if not lock.acquire(wait=True):  # serialised: read, add, write as one step (waits for another ono99's)
        raise OSError(f"{visible(path)} is being updated by another ono99 (its lock {visible(lock.path)} is held)")
    try:
        return _add_game(game, seats, path, game_id)
    finally:
        lock.release()


def _add_game(game, seats, path: Path, game_id: str | None) -> bool:
    doc, problem = _load_doc(path)
    if problem:  # never write over a file we could not read
        raise OSError(problem)
    counted = doc.get("counted_games", [])
    if game_id is not None:
        if game_id in counted:
            return False
        doc["counted_games"] = (counted + [game_id])[-COUNTED_KEEP:]  # newest last
    doc["players"] = _merged(doc.get("players", {}))
    players = doc.setdefault("players", {})
    levels = sorted({s.bot_level for s in seats if s.is_bot})
    lost = [r["loser"] for r in game.round_log]
    for i, seat in enumerate(seats):
        if seat.is_bot:
            continue
        row = players.setdefault(same_name(seat.name), {})
        row["games"] = row.get("games", 0) + 1
        row["wins"] = row.get("wins", 0) + (game.winner == i)
        row["rounds_lost"] = row.get("rounds_lost", 0) + lost.count(i)
        if game.rules.scoring_mode == "points":
            row["points_games"] = row.get("points_games", 0) + 1
            row["points_total"] = row.get("points_total", 0) + game.points[i]
        faced = row.setdefault("faced", {})
        for level in levels:
            f = faced.setdefault(level, {})
            f["games"] = f.get("games", 0) + 1  # (a hand-edited table may lack either: 0, as check_stats reads it)
            f["wins"] = f.get("wins", 0) + (game.winner == i)
    # every other key is written back as it was read: a newer ono99's counts are not dropped
    write_atomic(path, "# ono99 statistics, per player name\n" + tomli_w.dumps({**doc, "players": players}))
    return True


NAME_COLUMNS = 20  # so a row with "medium 1000/1000" still fits 80 columns; longer names are cut
FEWEST_NAME_COLUMNS = 8  # past this a name is not cut further to fit a width: its bot levels go under it
# the number columns: header, and the columns each takes at least (a count wider than that widens it)
COLUMNS = (("games", 5), ("wins", 5), ("win %", 6), ("rounds lost", 11), ("avg points", 10))


def stats_lines(players: dict, width: int | None = None) -> list[str]:
    """The table `ono99 stats` prints, aligned by display width (a wide name takes two
    columns a character), never wider than 80 columns before the bot levels.

    ``width``: the columns there are (the statistics screen's). Every line then fits in it: the
    names are cut further (told apart, short_names), and a count is never cut; where a name
    would keep fewer than FEWEST_NAME_COLUMNS, the bot levels go on lines of their own under
    the row instead of in a column beside it."""
    if not players:
        return ["No finished games yet."]
    shown = [visible(name) for name in players]  # a name from the file: shown, never obeyed
    rows = []
    for name, row in sorted(players.items()):
        games = row.get("games", 0)
        wins = row.get("wins", 0)
        pg = row.get("points_games", 0)
        avg = f"{row.get('points_total', 0) / pg:.0f}" if pg else "-"
        pct = f"{100 * wins / games:.0f}%" if games else "-"
        faced = [f"{shorten(lv, 20)} {f.get('wins', 0)}/{f.get('games', 0)}"
                 for lv, f in sorted(row.get("faced", {}).items())]
        rows.append((name, [str(games), str(wins), pct, str(row.get("rounds_lost", 0)), avg], faced))
    sizes = [max([least] + [len(cells[i]) for _, cells, _ in rows]) for i, (_, least) in enumerate(COLUMNS)]
    counts = sum(size + 1 for size in sizes) + 2  # each count after a space, two before the bot levels
    name_width = max(16, min(NAME_COLUMNS, max(display_width(n) for n in shown)))
    beside = True  # the bot levels in a column beside the row
    if width is not None:
        levels = max([display_width("vs bots")] + [display_width(e) for _, _, faced in rows for e in faced])
        if width - counts - levels >= FEWEST_NAME_COLUMNS:
            name_width = min(name_width, width - counts - levels)
        else:
            beside = False
            name_width = max(FEWEST_NAME_COLUMNS, min(name_width, width - counts + 2))
    names = dict(zip(players, short_names(shown, name_width)))  # cut names never look alike
    header = " ".join([fit("player", name_width)] + [f"{title:>{size}}" for (title, _), size in zip(COLUMNS, sizes)])
    lines = [header + ("  vs bots" if beside else "")]
    for name, cells, faced in rows:
        first = " ".join([fit(names[name], name_width)] + [f"{cell:>{size}}" for cell, size in zip(cells, sizes)])
        if not beside:  # (a narrow screen: under the row, indented, each its own line)
            lines.append(first)
            lines.extend(f"  vs {entry}" for entry in faced)
            continue
        first += "  "
        # one bot level a line, under the column: a list on one line wrapped mid-entry at 80 columns
        lines.append(first + (faced[0] if faced else "-"))
        lines.extend(" " * display_width(first) + entry for entry in faced[1:])
    return lines
