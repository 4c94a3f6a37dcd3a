"""Attacks on every file ono99 reads (rules, records, saves, config.toml, themes, stats.toml,
last-setup.toml) and on a save's lock file (the game opens, saves, renames and deletes the save
around it), each also as a link to a file elsewhere that must never be written through; shared by the hypothesis fuzz (tests/test_fuzz_readers.py)
and the long fuzz run (benchmarks/fuzz_inputs.py).

``READERS[kind](path)`` reads one file the way the game does and returns "ok" (accepted) or
"clean" (refused with the reader's own error or a reported problem); any other exception is
a traceback, a file left changed is data lost. ``attacks(kind, rng)`` yields (label, writer)
cases: writer(path) puts one hostile file (or FIFO, folder, device link) at path.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import tomli_w
import tomllib

from ono99_tui.store.files import load_rules_file
from ono99_tui.store.files import load_record
from ono99_tui.engine import Game
from ono99_tui.engine.record import Record, RecordError, SeatSpec
from ono99_tui.engine.rules import RulesError
from ono99_tui.store.saves import SaveError, SaveStore
from ono99_tui.store.settings import Settings, load_settings, to_toml
from ono99_tui.store.stats import load_stats, record_game

KINDS = ("rules", "record", "save", "config", "theme", "stats", "setup", "journal")
#: and the lock file, which ono99 writes (so "reading never changes it" does not apply): the long run
ALL_KINDS = KINDS + ("lock",)
ROOT = Path(__file__).resolve().parents[1]
SEATS = [SeatSpec("Ana"), SeatSpec("Bo", "bot:medium"), SeatSpec("Cy", "bot:easy")]


# -- the readers ----------------------------------------------------------------------------

def read_rules(path: Path) -> str:
    try:
        load_rules_file(path)
    except RulesError:
        return "clean"
    return "ok"


def read_record(path: Path) -> str:
    try:
        load_record(path).replay(record_events=False)
    except RecordError:
        return "clean"
    return "ok"


def read_save(path: Path) -> str:
    """As the app does: the list (every save's summary), the menu's Continue, then opening it."""
    store = SaveStore(path.parent)
    infos = store.listing()
    store.latest_unfinished()
    try:
        store.open_game(path.stem)
    except SaveError:
        return "clean"
    return "clean" if any(i.damaged for i in infos) else "ok"


def read_journal(path: Path) -> str:
    """A save's journal (record version 3: every line checked), beside a valid save: opened as
    the app opens it and checked as `saves check` does. Whatever the journal holds, the game
    opened is the real game up to some play (never another history)."""
    store = SaveStore(path.parent)
    save = store.path("fuzz")
    if not save.exists():
        save.write_text(_journal_save()[0])
    _, game, read = store._open("fuzz", record_events=False)
    real = _journal_save()[1]
    assert game.plays == real[: len(game.plays)], "a journal changed the game's history"
    list(store.check())
    return "clean" if read.set_aside or read.not_a_file else "ok"


def read_config(path: Path) -> str:
    _, problems = load_settings(path)
    return "clean" if problems else "ok"


def read_theme(path: Path) -> str:
    from ono99_tui.tui.themes import load_themes

    themes, problems = load_themes(path.parent)
    return "clean" if problems else "ok"


def read_stats(path: Path) -> str:
    """Read, then count a finished game as the end of a game does (never over a bad file,
    never through a link)."""
    players, problem = load_stats(path)
    if path.is_symlink():
        try:
            record_game(_finished_game(), SEATS, path)
        except OSError:
            return "clean"
        raise AssertionError("record_game wrote through a link")
    if problem is None:
        return "ok"
    try:
        record_game(_finished_game(), SEATS, path)
    except OSError:
        return "clean"
    raise AssertionError("record_game wrote over a statistics file it could not read")


def read_setup(path: Path) -> str:
    from ono99_tui.store.last_setup import load_last_setup

    setup, problem = load_last_setup(path)
    return "clean" if problem else "ok"


def read_lock(path: Path) -> str:
    """A save beside a hostile lock file: opened, played on, saved, closed, renamed, deleted, as
    the game and `ono99 saves` do; "clean" when any of it was refused with a message."""
    from ono99_tui.store.session import SaveSession

    store = SaveStore(path.parent)
    save_path = path.parent / "fuzz.toml"
    if not os.path.lexists(save_path):
        save_path.write_text(sample("save"))
    record, game = store.open_game("fuzz")
    session = SaveSession(store, "fuzz", record.seats, "standard")
    notice = session.open()
    session.opened(game)
    if not game.over:
        game.play(game.legal_plays()[0])
    session.save(game)
    session.close()
    try:
        store.rename("fuzz", "fuzz moved")
        store.delete("fuzz moved")
    except SaveError:
        return "clean"
    return "clean" if notice or session.failed else "ok"


READERS = {"lock": read_lock, "setup": read_setup, "rules": read_rules, "record": read_record, "save": read_save, "config": read_config,
           "theme": read_theme, "stats": read_stats, "journal": read_journal}
#: Files a reader must never change (reading is not writing); stats may gain a game when valid.
KEEPS_FILE = {"rules", "record", "save", "config", "theme", "setup", "journal"}


def file_name(kind: str) -> str:
    return {"save": "fuzz.toml", "config": "config.toml", "stats": "stats.toml", "theme": "mine.toml",
            "setup": "last-setup.toml", "journal": "fuzz.toml.journal", "lock": "fuzz.toml.lock"}.get(
        kind, "input.toml")


# -- valid samples, the starting point of most attacks ---------------------------------------

_GAME: list[Game] = []


def _finished_game() -> Game:
    if not _GAME:
        rng = random.Random(5)
        g = Game([s.name for s in SEATS], seed=5, record_events=False)
        while not g.over:
            g.play(rng.choice(g.legal_plays()))
        _GAME.append(g)
    return _GAME[0]


_JOURNAL: list = []


def _journal_save() -> tuple[str, list, str]:
    """(a save of a game's first 15 plays, that game's 25 plays, the journal of plays 16 to 25)."""
    if not _JOURNAL:
        from ono99_tui.store.journal import MAGIC, VERSION, chain_start, play_line

        rng = random.Random(7)
        g = Game([s.name for s in SEATS], seed=7, record_events=False)
        head = None
        for _ in range(25):
            if len(g.plays) == 15:
                head = Record.from_game(g, SEATS, {"rules": "standard", "name": "fuzz", "journal": "0123456789abcdef"})
            g.play(rng.choice(g.legal_plays()))
        previous = chain_start("0123456789abcdef")
        lines = [f"{MAGIC} {VERSION} 0123456789abcdef {previous}\n"]
        for n, (seat, card) in enumerate(g.plays[15:], start=16):
            rounds = [i for i, rp in enumerate(g.round_plays, start=1) for _ in rp]
            line, previous = play_line((n, rounds[n - 1], g.names[seat], card), previous)
            lines.append(line.decode())
        _JOURNAL.append((head.to_toml(), list(g.plays), "".join(lines)))
    return _JOURNAL[0]


def sample(kind: str) -> str:
    if kind == "journal":
        return _journal_save()[2]
    if kind == "rules":
        return (ROOT / "ono99_tui" / "presets" / "first-to-500.toml").read_text() + "hand_size = 5\n"
    if kind in ("record", "save"):
        rng = random.Random(7)
        g = Game([s.name for s in SEATS], seed=7, record_events=False)
        for _ in range(25):
            g.play(rng.choice(g.legal_plays()))
        return Record.from_game(g, SEATS, {"rules": "standard", "name": "fuzz"}).to_toml()
    if kind == "config":
        return to_toml(Settings())
    if kind == "setup":
        return ('rules = "standard"\ndealer = "rules"\n[[seats]]\nname = "You"\nplayer = "human"\n'
                '[[seats]]\nname = "Bo"\nplayer = "bot:medium"\n')
    if kind == "theme":
        return (ROOT / "themes" / "ono99-ansi.toml").read_text().replace('"ono99-ansi"', '"mine"')
    if kind == "lock":
        return f"{os.getpid()}@localhost\n"
    players = {"Ana": {"games": 3, "wins": 1, "rounds_lost": 5, "faced": {"medium": {"games": 3, "wins": 1}}}}
    return tomli_w.dumps({"players": players})


# -- attacks ----------------------------------------------------------------------------------

NASTY = ["\x1b]0;pwned\x07", "\x1b[31m", "[/]", "[@click=app.quit]", "[b]", "\u202e", "\x00", "\ufeff",
         " You ", "", "x" * 300, "CON", "../../etc", "\n", "é", "🂡"]


def _random_value(rng: random.Random, depth: int = 0):
    pick = rng.randrange(9 if depth < 3 else 6)
    if pick == 0:
        return rng.choice([True, False])
    if pick == 1:
        return rng.choice([0, -1, 1, 2, 99, 10**18, -(10**18), rng.randrange(-1000, 1000)])
    if pick == 2:
        return rng.choice([0.5, -0.0, float("inf"), 1e300])
    if pick in (3, 4):
        return rng.choice(NASTY + ["medium", "bot:medium", "human", "hard", "tokens", "points", "#123456"])
    if pick == 5:
        return rng.choice(["Ana: 7", "Bo: hold", "You : 7", "Ana: 99", "Zed: 5", "Ana:", ": 7"])
    if pick == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if pick == 7:
        return {rng.choice(NASTY + ["name", "player", "games", "x"]): _random_value(rng, depth + 1)
                for _ in range(rng.randrange(3))}
    return {"games": rng.randrange(-2, 5)}


def _replace_leaf(doc, rng: random.Random):
    """Replace one value somewhere in the document with a random one of any type."""
    node = doc
    for _ in range(6):
        if isinstance(node, dict) and node:
            key = rng.choice(list(node))
            if rng.random() < 0.4 or not isinstance(node[key], (dict, list)) or not node[key]:
                node[key] = _random_value(rng)
                return
            node = node[key]
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.4 or not isinstance(node[i], (dict, list)) or not node[i]:
                node[i] = _random_value(rng)
                return
            node = node[i]
        else:
            return


def _typed(text: str, rng: random.Random) -> str:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:  # not TOML (a journal): its values are mutated as bytes instead
        return _mutated(text, rng)
    for _ in range(rng.randrange(1, 4)):
        _replace_leaf(doc, rng)
    if rng.random() < 0.3:
        doc[rng.choice(NASTY[:6] + ["unknown"])] = _random_value(rng)
    try:
        return tomli_w.dumps(doc)
    except (TypeError, ValueError):
        return text


def _mutated(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randrange(1, 6)):
        op = rng.randrange(4)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[i:i + rng.randrange(1, 20)]
        elif op == 1:
            chars[i:i] = list(rng.choice(["[", "]", "{", "}", '"', "'", "=", "\n", ".", "#", "\\", "\x1b", "[[",
                                          "\ufeff", "\x00", '"""', "1e999", "9" * 5000]))
        elif op == 2 and chars:
            j = rng.randrange(len(chars))
            chars[i:i] = chars[j:j + rng.randrange(1, 40)]
        elif chars:
            chars[min(i, len(chars) - 1)] = chr(rng.randrange(0, 0x250))
    return "".join(chars)


def _write(text: str | bytes):
    def writer(path: Path) -> None:
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        path.write_bytes(data)
    return writer


def _special(kind: str):
    def writer(path: Path) -> None:
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "folder":
            path.mkdir()
        elif kind == "dangling":
            path.symlink_to(path.with_name("gone.toml"))
        elif kind.startswith("elsewhere:"):  # a link to a precious file outside the folder
            victim = path.parent.parent / "victim"
            victim.write_text(kind[len("elsewhere:"):])
            path.symlink_to(victim)
        else:
            path.symlink_to(kind)
    return writer


def structural(text: str, rng: random.Random, big: bool):
    """The named attacks of issue 15: nesting, sizes, key floods, encodings, special files."""
    n = rng.choice([100, 1000, 10_000] + ([100_000] if big else []))
    yield "deep arrays", _write("a = " + "[" * n + "]" * n + "\n")
    yield "deep inline tables", _write("a = " + "{a=" * n + "1" + "}" * n + "\n")
    yield "deep header", _write("[" + ".".join(["a"] * n) + "]\n")
    yield "deep dotted key", _write(".".join(["a"] * n) + " = 1\n")
    yield "unknown keys", _write(text + "".join(f"\nk{i} = {i}" for i in range(n * (2 if big else 1))))
    yield "huge string", _write(f'big = "{"x" * (n * 500)}"\n' + text)
    yield "huge integer", _write("target = " + "9" * 5000 + "\n")
    yield "byte-order mark", _write("\ufeff" + text)
    yield "not UTF-8", _write(text.encode() + b"\xff\xfe")
    yield "empty", _write("")
    yield "NUL bytes", _write(text.replace("\n", "\x00\n", 3))
    for special in ("fifo", "folder", "/dev/zero", "/dev/urandom", "/dev/null", "dangling"):
        yield f"special: {special}", _special(special)
    yield "link to a file elsewhere (valid)", _special("elsewhere:" + text)
    yield "link to a file elsewhere (other)", _special("elsewhere:precious\n")


def attacks(kind: str, rng: random.Random, count: int, big: bool = False):
    """``count`` (label, writer) cases for ``kind``: the structural ones, then random mutations."""
    text = sample(kind)
    cases = list(structural(text, rng, big))
    while len(cases) < count:
        roll = rng.random()
        if roll < 0.45 and kind != "lock":  # (a lock's text is not TOML)
            cases.append(("wrong types", _write(_typed(text, rng))))
        elif roll < 0.9:
            cases.append(("mutated bytes", _write(_mutated(text, rng))))
        else:
            nasty = rng.choice(NASTY)
            cases.append(("nasty strings", _write(text.replace('"', '"' + nasty.replace("\\", ""), 1))))
    return cases[:count] if count >= len(cases) else cases


def fresh(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
