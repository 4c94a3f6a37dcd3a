"""The `ono99` command.

Errors a user can cause print one clear message on stderr and exit 2; they
never show a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from . import __version__
from .errors import UserError
from .text import counted, shorten, visible

EXIT_USAGE = 2


def _out(text: str = "") -> None:
    # everything printed may hold names, keys or values from files: never raw control characters
    _put(visible(text, keep_newlines=True) + "\n")


def _put(text: str) -> None:
    """``text`` to standard output as it is (a record exported to -, rules shown whole): a reader
    gone stops the writing, a full disk is one line (`saves export NAME - > /dev/full` and
    `rules show > /dev/full` ended in tracebacks)."""
    if _reader_gone:
        return
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        _stop_writing()
    except OSError as exc:  # (a full disk, /dev/full: one line, not a traceback)
        raise UserError(f"cannot write to standard output: {exc.strerror or exc}") from None


_reader_gone = False  # standard output's reader left (| head -1): the rest is dropped, the work goes on


def _stop_writing() -> None:
    """The reader of standard output has gone: nothing more is written, but the command carries
    on to its own exit status (`rules check a.toml bad.toml | head -1` said 0: the check stopped)."""
    global _reader_gone
    _reader_gone = True
    _nowhere(sys.stdout)


def _nowhere(stream) -> None:
    """``stream`` writes to /dev/null from now on: the interpreter's last flush goes nowhere, quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _err(text: str) -> None:
    try:
        print(visible(text, keep_newlines=True), file=sys.stderr, flush=True)
    except OSError:
        # 2> /dev/full, or 2>&1 | head -1 gone: nowhere to say it; the command goes on to its own
        # exit status (`rules check bad.toml 2>&1 | head -0` exited 0, and 2> /dev/full with a
        # traceback's 1)
        _nowhere(sys.stderr)


# -- rules ---------------------------------------------------------------------

def cmd_rules_list(args) -> int:
    """Every preset, yours saying where it is and whether it can be read (a listing: exit 0, as
    ``saves list``; ``rules check FILE`` is the validator)."""
    from .engine.rules import RulesError
    from .store import presets as shipped
    from .store.paths import user_rules_dir
    from .store.rule_presets import all_presets, load

    presets = all_presets()
    width = max(len(visible(p.name)) for p in presets)  # (as shown: an ESC shows as \x1b, four columns)
    for p in presets:
        about = p.description + (f"  (yours: {p.path})" if p.mine else "")
        if p.mine:
            try:
                load(p)
            except RulesError as exc:  # (a play-tester's broken presets were listed as if fine)
                about = f"cannot be read: {str(exc).splitlines()[0]}"  # (it names the file)
        _out(f"{visible(p.name):<{width}}  {visible(about)}")
    try:
        folder = user_rules_dir()
        hidden = sorted(f for f in folder.glob("*.toml") if f.stem in shipped.preset_names()) if folder.is_dir() else []
    except OSError:
        hidden = []
    for f in hidden:
        _out(f"(not used: {visible(str(f))}: a shipped preset has the name {f.stem!r}; rename the file to use it)")
    return 0


def cmd_rules_show(args) -> int:
    from .engine.rules import RulesError, commented_toml
    from .store.rule_presets import resolve

    try:
        rules, label = resolve(args.source)
    except RulesError as exc:
        raise UserError(str(exc)) from None
    header = f"O'NO 99 house rules: {label}\nEvery key with its value; a rules file need only name the keys it changes."
    _put(visible(commented_toml(rules, header), keep_newlines=True))
    return 0


def cmd_rules_check(args) -> int:
    from .engine.rules import RulesError
    from .store.files import load_rules_file
    from .store.readfile import STDIN

    bad = 0
    if args.files.count("-") > 1:
        raise UserError("rules check: - (standard input) can be given once")
    for path in args.files:
        try:
            if path == "-":  # (`... | ono99 rules check -` said "-: no such file")
                _piped_rules()
                path = STDIN
            else:
                load_rules_file(path)
        except RulesError as exc:
            bad += 1
            for problem in exc.problems:
                _err(str(problem))
        else:
            _out(f"{path}: ok")
    return EXIT_USAGE if bad else 0


def _piped_rules():
    """Rules from standard input (``rules check -``), or RulesError naming it and what is wrong."""
    from .engine.rules import Problem, RulesError, load_rules_text
    from .store.readfile import STDIN, ReadError, read_stdin

    try:
        text = read_stdin("rules file", command="rules check")
    except ReadError as exc:
        raise RulesError([Problem(exc.where, "", exc.reason)]) from None
    return load_rules_text(text, STDIN)


# -- replay ----------------------------------------------------------------------

def _state(game) -> dict:
    state = {"over": game.over, "round": game.round_no, "winner": game.winner,
             "tokens": list(game.tokens), "points": list(game.points), "out": list(game.out)}
    if not game.over:
        state.update(to_move=game.current, total=game.total, plays_owed=game.owed,
                     direction="left" if game.direction == 1 else "right", dealer=game.dealer)
    return state


def _where(game) -> list[str]:
    names = game.names
    lines = []
    if game.over:
        lines.append(f"Game over after {counted(game.round_no, 'round')}: {names[game.winner]} wins.")
    else:
        twice = " (must play twice)" if game.owed == 2 else ""
        direction = "left" if game.direction == 1 else "right"
        lines.append(
            f"Round {game.round_no}, total {game.total}, play goes {direction}: "
            f"{names[game.current]} to play{twice}."
        )
    from .engine.record import scores_text, summary_of

    scores = scores_text(list(names), summary_of(game))  # the winner says "won", never a bare "Bo 0"
    if game.rules.scoring_mode == "tokens":
        lines.append("Tokens: " + scores)
    else:
        lines.append(f"Points (limit {game.rules.scoring_limit}): " + scores)
    return lines


def _replay_source(spec: str):
    """(record, game) for `ono99 replay`: a record file, or a save by name as `resume` takes it
    (a save, by name or by its path in the saves folder, with its journal's plays)."""
    import os
    from pathlib import Path

    from .engine.record import RecordError
    from .store.files import load_record
    from .store.saves import SUFFIX, SaveError, check_name

    store = _store()
    path = Path(spec)
    name = None
    if os.path.lexists(path):
        if path.name.endswith(SUFFIX) and Path(os.path.realpath(path.parent)) == Path(os.path.realpath(store.folder)):
            name = path.name[: -len(SUFFIX)]  # a save's own file: its journal counts too
    else:
        try:
            name = check_name(spec)
        except SaveError:
            name = None
        if name is not None and not os.path.lexists(store.folder / (name + SUFFIX)):
            raise UserError(f"no record file or save named {spec!r} (saves are in {store.folder}; "
                            "ono99 saves list shows them)")
    if name is not None:
        from .net.manifest import kept_refusal

        refused = kept_refusal(name)
        if refused:  # every hand of a game still being played: not while it is
            raise UserError(refused)
    try:
        if name is not None:
            record, game, read = _save_errors(lambda: store._open(name))
            if read.set_aside:
                _err(f"{store.path(name)}: {read.describe()}; replayed without them")
            return record, game
        record = load_record(path)
        return record, record.replay()
    except RecordError as exc:
        raise UserError(str(exc)) from None


def cmd_replay(args) -> int:
    from .engine.describe import describe, players_by_round

    if args.compact and not args.json:  # (it was dropped in silence)
        raise UserError("--compact goes with --json (one line of JSON); the replay in words has no compact form")

    record, game = _replay_source(args.file)
    if args.json:
        doc = {
            "format": "ono99-events",
            "version": 1,
            "seats": [{"name": s.name, "player": s.player} for s in record.seats],
            "rules": record.rules.to_dict(),
            "seed": record.seed,
            "events": game.events,
            "state": _state(game),
        }
        _out(json.dumps(doc, indent=None if args.compact else 1))
        return 0
    import os

    from .tui.glyphs import choose_ascii  # plain Python: no Textual behind it

    try:  # like the game: ASCII where the terminal cannot draw the arrows (TERM=linux, LANG=C)
        ascii_only = choose_ascii("ascii" if args.ascii else None, os.environ, setting=False)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    names = game.names
    seats = ", ".join(f"{s.name} ({s.player})" for s in record.seats)
    _out(f"O'NO 99: {len(names)} players: {seats}")
    for line in record.rules.summary():
        _out(f"  {line}")
    in_round = players_by_round(game.events)
    for event in game.events:
        line = describe(event, names, ascii=ascii_only, in_round=in_round.get(event.get("round")))
        if line is None:
            continue
        indent = "" if event["type"] in ("deal", "dealer", "game_over") else "  "
        _out(indent + line)
    _out()
    for line in _where(game):
        _out(line)
    return 0


def cmd_rules_compare(args) -> int:
    import time

    from .engine.rules import RulesError
    from .lab import simulate as sim
    from .lab.compare import compare_lines
    from .lab.report import rounded_note
    from .store.rule_presets import resolve

    try:
        levels = sim.parse_bots(args.bots)
        (rules_a, label_a), (rules_b, label_b) = resolve(args.a), resolve(args.b)
        for rules, label in ((rules_a, label_a), (rules_b, label_b)):
            if len(levels) > rules.max_players():
                given = "--bots" in _WORDS or any(w.startswith("--bots=") for w in _WORDS)
                raise UserError(f"--bots: {len(levels)} seats{'' if given else ' (four medium bots unless --bots says'} "
                                f"{'' if given else 'otherwise) '}but {visible(label)} deals to at most "
                                f"{rules.max_players()}: give --bots with at most {rules.max_players()} levels")
        games = sim.games_needed(args.games, len(levels))
    except (sim.SimulationError, RulesError) as exc:
        raise UserError(str(exc)) from None
    jobs = _jobs(args.jobs, sim.batch_count(games, args.jobs or 1))
    quiet = args.json or not sys.stderr.isatty()
    agreed = [sim.AGREED_NOTE] if "agree" in (rules_a.dealer_first, rules_b.dealer_first) else []
    start = time.perf_counter()
    summaries = []
    with _progress(2 * games, "comparing", quiet) as bar:
        task = bar.add_task("cmp", total=2 * games, rate="", visible=not quiet)
        for rules in (rules_a, rules_b):
            tally = sim.Tally(levels)
            for result in _games(sim.run_games(levels, rules, args.seed, games, jobs)):
                tally.add(result)
                done = len(summaries) * games + tally.games
                bar.update(task, advance=1, rate=f"{done / (time.perf_counter() - start):,.1f} games/s")
            summaries.append(tally.summary())
    elapsed = time.perf_counter() - start
    if args.json:
        _out(json.dumps({"bots": levels, "seed": args.seed, "games": games, "games_requested": args.games,
                         "elapsed_s": round(elapsed, 3),
                         "a": {"rules": label_a, **summaries[0]}, "b": {"rules": label_b, **summaries[1]}}, indent=1))
    else:
        lines = compare_lines(summaries[0], summaries[1], label_a, label_b, levels, args.seed, elapsed)
        note = rounded_note(args.games, games, len(levels))
        for line in lines[:1] + ([note] if note else []) + agreed + lines[1:]:
            _out(line)
    return 0


# -- simulate --------------------------------------------------------------------

class _NoBar:
    """No progress bar (--json, or stderr not a terminal): rich's would still print a newline."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def update(self, *args, **kwargs) -> None:
        pass


def _named(value: str) -> str:
    """An option that names a file, folder or preset: an empty name (``--rules ""``, a shell
    variable that was not set) names nothing, and is refused rather than read as the default."""
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty name names nothing: give a name")
    return value


def _progress(total: int, what: str, quiet: bool = False):
    """A rich progress bar on stderr (so --json output stays clean), games/s included. The time
    so far ticks too: under house rules that make a game take minutes (a 100,000-point limit),
    the count of games stays at 0 for a long while, and the clock shows it is still going."""
    if quiet:
        return _NoBar()
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    return Progress(
        TextColumn(what), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    )


def _jobs(value: int | None, batches: int) -> int:
    """Processes to use: at most one per CPU and one per batch of games (--jobs 1000 for two
    games starts one)."""
    import os

    if value is not None and value < 1:
        raise UserError(f"--jobs must be at least 1, got {value}")
    cpus = os.cpu_count() or 1
    wanted = min(cpus, 8) if value is None else value
    return max(1, min(wanted, cpus, batches))


def cmd_simulate(args) -> int:
    import time

    from .engine.game import GameSetupError
    from .engine.rules import RulesError
    from .lab import simulate as sim
    from .lab.report import rounded_note, simulate_lines
    from .store.rule_presets import resolve

    try:
        levels = sim.parse_bots(args.bots)
        rules, label = resolve(args.rules)
        if len(levels) > rules.max_players():
            raise UserError(f"--bots: {len(levels)} seats, but these rules deal to at most {rules.max_players()}")
        games = sim.games_needed(args.games, len(levels))
        records = sim.check_records_dir(args.records) if args.records is not None else None
    except (sim.SimulationError, RulesError, GameSetupError) as exc:
        raise UserError(str(exc)) from None
    jobs = _jobs(args.jobs, sim.batch_count(games, args.jobs or 1))
    note = rounded_note(args.games, games, len(levels))
    if note and not args.json:
        _err(f"ono99: playing {note}")  # said before a long run starts, and again in the report
    agreed = [sim.AGREED_NOTE] if rules.dealer_first == "agree" else []
    tally = sim.Tally(levels)
    start = time.perf_counter()
    quiet = args.json or not sys.stderr.isatty()
    with _progress(games, "simulating", quiet) as bar:
        task = bar.add_task("sim", total=games, rate="", visible=not quiet)
        for result in _games(sim.run_games(levels, rules, args.seed, games, jobs, keep_records=records is not None)):
            tally.add(result)
            if records is not None:
                _write_record(records / sim.record_name(result.index, games), result.record_toml)
            elapsed = time.perf_counter() - start
            bar.update(task, advance=1, rate=f"{tally.games / elapsed:,.1f} games/s" if elapsed else "")
    elapsed = time.perf_counter() - start
    summary = tally.summary()
    if args.json:
        summary.update(bots=levels, rules=label, seed=args.seed, jobs=jobs, games_requested=args.games, elapsed_s=round(elapsed, 3),
                       records=str(records) if records else None)
        _out(json.dumps(summary, indent=1))
    else:
        lines = simulate_lines(summary, label, elapsed, args.seed, jobs)
        for line in lines[:1] + ([note] if note else []) + agreed + lines[1:]:
            _out(line)
        if records:
            _out(f"Records: {games} files in {records} (ono99 replay FILE)")
    return 0


def _games(results):
    """The simulator's results; a game these rules cannot set up is one message, not a traceback
    (from a worker process too)."""
    from .engine.game import GameSetupError

    try:
        yield from results
    except GameSetupError as exc:
        raise UserError(f"these rules cannot start a game: {exc}") from None


def _write_record(path, text: str) -> None:
    """One game's record, whole or not at all (a full disk leaves no half-written file)."""
    from .store.atomic import write_new

    try:
        if not write_new(path, text, durable=False):
            raise UserError(f"--records: {path} appeared meanwhile; not overwriting it")
    except OSError as exc:
        raise UserError(f"--records: cannot write {path}: {exc.strerror or exc}") from None


# -- saves and statistics -------------------------------------------------------------

def _store():
    from .store.saves import SaveStore

    return SaveStore()


def cmd_saves_list(args) -> int:
    import shlex

    from .store.saves import MISNAMED, write_protected

    store = _store()
    shown = unchecked = 0
    for info in _save_errors(lambda: iter(list(store.infos()))):
        shown += 1
        if info.damaged == MISNAMED:  # (a copy "mygame (1).toml": its file, not its plays, is the problem)
            _out(f"{visible(info.name)}  [cannot open] {_misnamed(info.name, info.path)}")
            continue
        if info.damaged:
            _out(f"{info.name}  [damaged] {info.damaged}")
            if info.has_bak:
                _out(f"    its previous version (.bak) is kept: ono99 saves restore {_quoted(info.name)}")
            continue
        undo = ", undo used" if info.undo_used else ""
        # a cheap read: a summary only the file vouches for is marked until its plays confirm it
        mark = "" if info.checked else " (*)"
        unchecked += not info.checked
        _out(f"{info.name}  {info.when}  {info.state}{mark}{undo}  rules: {info.rules}")
        _out(f"    {info.players}")
        _out(f"    {info.scores}")
        if info.set_aside:
            _out(f"    [damaged journal] {info.set_aside}")
        if write_protected(info.path):  # (opens read-only: plays made in it are kept nowhere)
            _out(f"    [write-protected] opens read-only; chmod u+w {shlex.quote(str(info.path))} "
                 "to play on in it")
    for name in _save_errors(store.lone_baks):  # (found only by whoever knew to type restore)
        shown += 1
        _out(f"{name}  [previous version only] {name}.toml.bak is there without its save: "
             f"ono99 saves restore {_quoted(name)} puts it back")
    if not shown:
        _out(f"No saved games in {store.folder}.")
    elif unchecked:
        _out(f"(*) as the save file says, not yet checked against its plays: opening it or "
             f"ono99 saves check does that.")
    return 0


def cmd_saves_check(args) -> int:
    store = _store()
    results = _save_errors(lambda: list(store.check()))
    if not results:
        _out(f"No saved games in {store.folder}.")
        return 0
    bad = [(name, problem) for name, problem in results if problem]
    baks = {e.name for e in _save_errors(store._scan) if e.has_bak}
    from .store.saves import MISNAMED

    paths = {e.name: e.path for e in _save_errors(store._scan)}
    for name, problem in results:
        if problem == MISNAMED:
            _out(f"{visible(name)}: cannot open: {_misnamed(name, paths.get(name, name))}")
            continue
        _out(f"{name}: {'damaged: ' + problem if problem else 'ok'}")
        if problem and name in store.playable:  # (its .bak holds fewer plays than resuming keeps)
            _out(f"    ono99 resume {_quoted(name)} plays on from the last good play and keeps the plays after "
                 "it in a file beside the save")
        elif problem and name in baks:
            _out(f"    its previous version (.bak) is kept: ono99 saves restore {_quoted(name)}")
    named = sum(problem == MISNAMED for _, problem in bad)
    _out(f"{len(results)} save{'' if len(results) == 1 else 's'} replayed in full: "
         f"{len(results) - len(bad)} ok, {len(bad) - named} damaged"
         + (f", {named} under a file name that is no save name." if named else "."))
    return EXIT_USAGE if bad else 0


def _misnamed(name: str, path: str) -> str:
    """What to do about a file in the saves folder whose name is no save name."""
    import unicodedata
    from pathlib import Path

    from .store.saves import name_for
    from .text import shell_word

    fixed = Path(path).with_name(name_for(name) + ".toml")
    form = (" (it is written in another Unicode form, as macOS writes names)"
            if unicodedata.normalize("NFC", name) == name_for(name) else "")
    return (f"its file name is not a save name{form}: rename it with r in Load, or rename the file, e.g. "
            f"mv {shell_word(str(path))} {shell_word(str(fixed))}")


def _save_errors(func):
    from .store.saves import SaveError

    try:
        return func()
    except SaveError as exc:
        raise UserError(str(exc)) from None


def _quoted(name: str) -> str:
    return f"'{name}'" if " " in name else name


def cmd_saves_restore(args) -> int:
    from .store.saves import restored_kept

    store = _store()
    kept, journal = _save_errors(lambda: store.restore(args.name))
    _out(f"Restored {args.name!r} from its .bak{restored_kept(kept, journal)}.")
    return 0


def cmd_saves_delete(args) -> int:
    store = _store()
    _save_errors(lambda: store.delete(args.name))
    _out(f"Deleted {args.name!r}.")
    return 0


def cmd_saves_export(args) -> int:
    store = _store()
    left_out: list[str] = []  # (plays of a damaged journal: said, as replay says them)
    if args.file == "-":  # (a stranger's "-" became a file named "-" in the current folder)
        record = _save_errors(lambda: store.exported(args.name, left_out))
        _put(record.to_toml())
    else:
        target = _save_errors(lambda: store.export(args.name, args.file, left_out))
        _out(f"Exported {args.name!r} to {target}.")
    for note in left_out:
        _err(note)
    return 0


def cmd_saves_import(args) -> int:
    store = _store()
    why: list[str] = []
    name = _save_errors(lambda: store.import_file(args.file, why))
    source = "the record from standard input" if args.file == "-" else args.file
    _out(f"Imported {source} as {name!r}" + (f" ({'; '.join(why)})." if why else "."))
    return 0


def cmd_stats(args) -> int:
    from .store.stats import load_stats, stats_lines

    players, problem = load_stats()
    if problem:
        raise UserError(problem)
    for line in stats_lines(players):
        _out(line)
    return 0


def cmd_resume(args) -> int:
    store = _store()
    if args.name:
        # the listing's check (a digest, not a replay): the table replays it once, when it opens
        name = _save_errors(lambda: store.check_name(args.name))
        info = _save_errors(lambda: store.info(name))
        if info.damaged == "no such save":
            raise UserError(f"no save named {args.name!r} in {store.folder}")
        if info.damaged:
            raise UserError(f"damaged save {name!r}: {info.damaged}")
    else:
        from .net.manifest import kept_saves

        kept = kept_saves()  # a network table's game goes on there: the latest one played here is resumed
        info = _save_errors(lambda: store.latest_unfinished(passed_over=kept))
        if info is None:
            elsewhere = sorted(kept & set(_save_errors(store.names)))
            also = (f"; {', '.join(map(repr, elsewhere))} {'goes' if len(elsewhere) == 1 else 'go'} on at "
                    "a network table" if elsewhere else "")
            raise UserError(f"no unfinished game to resume in {store.folder}{also} (ono99 saves list shows them all)")
        name = info.name
    from .net.manifest import kept_refusal

    refused = kept_refusal(name)
    if refused:  # a live network table's game: never opened with every hand here
        raise UserError(refused)
    args.resume_name = name
    return cmd_play(args)


# -- the game --------------------------------------------------------------------

def cmd_play(args) -> int:
    if getattr(args, "plain", False):  # lines of text for screen readers and pipes (docs/accessibility.md)
        from .plain import run

        return run(args)
    try:
        from .tui.app import run_app
    except ImportError as exc:  # pragma: no cover - a broken install
        raise UserError(f"the game screen cannot start: {exc}") from None
    return run_app(args)


# -- network play ------------------------------------------------------------------

DEFAULT_PORT = 7099
DAY, WEEK = 24 * 3600, 7 * 24 * 3600  # the longest a server's timers and timeouts may be set to (seconds)
# The most each cap may be set to: past these a number is a slip of the keyboard, not a server
# (--web-per-address 1000000000000 was taken). One address connects from at most 65535 ports; a
# million connections is about all the files Linux lets a process open (fs.nr_open, 1048576 by
# default), and 100,000 started tables take 300,000 of them; 10,000 sessions of ~16 MiB are 160 GiB.
MOST_PER_ADDRESS, MOST_CONNECTIONS, MOST_TABLES, MOST_SESSIONS = 65535, 1_000_000, 100_000, 10_000
TABLE_NUMBER = "a table number, 1 or more (ono99 watch lists them)"  # (the server's: 1 up, 32 bits)


def _server_config(args):
    from .net.server import ServerConfig

    # (the numbers were checked as they were read, by _Number: a bot delay of inf left its turn
    # waiting for good)
    if not str(args.bind).strip():
        raise UserError("--bind needs an address (127.0.0.1, 0.0.0.0 for every interface, ::1, ...)")
    from .net.client import host_problem

    if (why := host_problem(str(args.bind))) is not None:
        raise UserError(f"--bind {shorten(repr(args.bind), 80)}: {why}")
    password = args.password
    if password is not None and not password.strip():
        # ($PW unset in a script): the server would have said it asks a password and let anyone in
        raise UserError("--password is empty: give a password, or leave --password out for a server anyone "
                        "may join")
    if args.password_file is not None:
        if password is not None:
            raise UserError("give --password or --password-file, not both")
        from .store.readfile import ReadError, read_text

        try:
            text = read_text(args.password_file, "password file", limit=4096)
        except ReadError as exc:
            raise UserError(str(exc)) from None
        password = text.removesuffix("\n").removesuffix("\r")  # (the line's end: `echo PW > FILE`)
        shown = visible(args.password_file)
        if not password.strip():
            raise UserError(f"--password-file: {shown} is empty")
        # Nothing else is taken off: a space stripped here is one a player who copies the file's
        # line types and is refused for; a space kept is one nobody knows to type. Both are said.
        if "\n" in password or "\r" in password:
            raise UserError(f"--password-file: {shown} holds more than one line; the password is the file's "
                            "one line")
        if password != password.strip():
            raise UserError(f"--password-file: the password in {shown} begins or ends with a space or tab, "
                            "which every player would have to type: take it out of the file")
    # every server resumes its tables after a restart; `ono99 host` its own table, kept apart by
    # port (its players come back to that port), and only on a port it was given
    port = args.port
    hosting = args.func is cmd_host
    manifest = None
    if hosting and port and not args.no_save:
        from .net.manifest import manifest_path

        manifest = manifest_path().with_name(f"host-{port}.json")
    return ServerConfig(host=args.bind, port=port, password=password, turn_timer=args.turn_timer,
                        move_timer=args.move_timer,
                        bot_delay=args.bot_delay, save=not args.no_save, manifest=manifest,
                        resume=not args.no_save and (not hosting or bool(port)),
                        max_tables=args.max_tables, max_connections=args.max_connections,
                        per_address=args.per_address, hello_timeout=args.hello_timeout,
                        lobby_timeout=args.lobby_timeout, tables_per_connection=args.tables_per_connection,
                        tables_per_address=args.tables_per_address, abandoned_after=args.abandoned_after)


def _server_log(verbose: bool = False) -> None:
    """The server's warnings (a table not resumed, saving failing) on stderr, as ono99 says things;
    with ``verbose`` (--verbose) what happens to tables too (resumed, closed as abandoned)."""
    import logging

    class Lower(logging.Formatter):
        def format(self, record):
            return f"ono99: {record.levelname.lower()}: {super().format(record)}"

    logger = logging.getLogger("ono99")
    if any(getattr(h, "ono99", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(Lower("%(message)s"))
    handler.ono99 = True
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbose else logging.WARNING)


def cmd_serve(args) -> int:
    import asyncio

    from .net import server
    from .net.client import host_port

    config = _server_config(args)
    _server_log(args.verbose)
    # (--no-save: nothing is written, and the tables end when the server stops)
    saved = "games are saved" if config.save else "--no-save: games are not saved, and end when it stops"

    def ready(port: int) -> None:
        # (warned once it listens: an address it cannot listen on is one line, that one)
        _warn_open(config.host, config.password, "sit at your tables")
        _out(f"ono99 serve: listening on {host_port(config.host, port)} (Ctrl+C or SIGTERM stops it; {saved})")
        sys.stdout.flush()

    try:
        asyncio.run(server.run(config, ready))
    except OSError as exc:
        raise UserError(f"cannot listen on {host_port(config.host, config.port)}: {exc.strerror or exc}") from None
    return 0


def _run_join(args, plan) -> int:
    if getattr(args, "plain", False):
        from .plain.remote import run_join

        return run_join(plan)
    try:
        from .tui.app import need_terminal
        from .tui.join import build_app
    except ImportError as exc:  # pragma: no cover - a broken install
        raise UserError(f"the game screen cannot start: {exc}") from None
    need_terminal()
    app = build_app(args, plan)
    app.run()
    if app.failure:
        raise UserError(app.failure)
    if app.farewell:
        import os

        from .net.child import GATEWAY_ENV

        if os.environ.get(GATEWAY_ENV) == "web":
            # a browser tab: its standard output is the page's packets, and this line, written there
            # once they end, was lost ("Session ended." alone); the gate shows the last "ono99: "
            # line of its standard error where the page says "Session ended"
            _err(f"ono99: {app.farewell}")
        else:
            _out(app.farewell)
    return 0


def cmd_join(args) -> int:
    if getattr(args, "plain", False):  # the plain front end's own lobby: no Textual behind it
        from .plain.remote import join_plan, run_join

        return run_join(join_plan(args))
    from .engine.game import NAME_RULE, GameSetupError, check_name
    from .net.client import split_address
    from .net.lobby import JoinPlan

    try:
        host, port = split_address(args.address, DEFAULT_PORT)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        check_name(args.name)
    except GameSetupError:
        raise UserError(f"--name must be {NAME_RULE}, not {args.name!r}") from None
    from .net.lobby import probe

    import os

    from .net.kept_seats import kept_tokens, seat_token_from_env

    from .net.child import ADDRESS_ENV, COMEBACK_ENV, GATEWAY_ENV, NAME_ENV, SECRET_ENV

    token = seat_token_from_env()
    # a gateway's child (serve-ssh, web) keeps no seat token: its data folder is thrown away
    keep = token is None and not os.environ.get(GATEWAY_ENV)
    password = args.password if args.password is not None else os.environ.get(SECRET_ENV) or None
    kept = kept_tokens(host, port, args.name) if keep else []
    plan = JoinPlan(host, port, args.name, password, args.table, or_create=args.or_create, token=token,
                    comeback=next(iter(kept), None), older=tuple(kept[1:]), keep=keep,
                    address=os.environ.get(ADDRESS_ENV) or None, back_hint=os.environ.get(COMEBACK_ENV) or None,
                    redial=not os.environ.get(GATEWAY_ENV))  # (a gateway's child: its gateway tells the player)
    if os.environ.get(NAME_ENV):
        plan.name_hint = os.environ[NAME_ENV]
    if os.environ.get(GATEWAY_ENV):
        plan.where = "this server"  # (not the gateway's own table server on loopback)
    probe(plan)
    return _run_join(args, plan)


def cmd_watch(args) -> int:
    """A spectator: a table's public state, live (never a hand)."""
    import os

    from .engine.game import NAME_RULE, GameSetupError, check_name
    from .net.client import split_address
    from .net.lobby import JoinPlan, probe

    try:
        host, port = split_address(args.address, DEFAULT_PORT)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        check_name(args.name)
    except GameSetupError:
        raise UserError(f"--name must be {NAME_RULE}, not {args.name!r}") from None
    from .net.child import ADDRESS_ENV, CHOOSE_ENV, GATEWAY_ENV, SECRET_ENV

    password = args.password if args.password is not None else os.environ.get(SECRET_ENV) or None
    plan = JoinPlan(host, port, args.name, password, args.table, watch=True,
                    address=os.environ.get(ADDRESS_ENV) or None)  # (a gateway's child: its player's address)
    if os.environ.get(CHOOSE_ENV):
        plan.choose_hint = os.environ[CHOOSE_ENV]
    if os.environ.get(GATEWAY_ENV):
        plan.where = "this server"  # (not the gateway's own table server on loopback)
    if getattr(args, "plain", False):  # lines: a watcher's own plan (the join's would take a seat)
        from .plain.network import Plan
        from .plain.remote import run_join

        return run_join(Plan(host, port, args.name, password, args.table, watch=True, redial=False,
                             address=plan.address, choose_hint=plan.choose_hint, where=plan.where))
    probe(plan)
    return _run_join(args, plan)


def cmd_host(args) -> int:
    return _run_join(args, host_plan(args))


def host_plan(args):
    """`ono99 host`'s plan: its server, its table, and the host's way back to a game it left
    without closing it (checked before any screen: a bad flag or a port in use is one line)."""
    from .engine.rules import RulesError
    from .net.client import host_port

    if getattr(args, "plain", False):
        from .plain.remote import Plan as JoinPlan
    else:
        from .net.lobby import JoinPlan
    from .store.rule_presets import all_presets, resolve

    config = _server_config(args)
    config.single_table = True  # the host's table: guests sit at it, they make no other
    name = args.name
    try:
        rules, label = resolve(args.rules)
    except RulesError as exc:
        raise UserError(f"--rules: {exc}") from None
    most = min(8, rules.max_players())
    if not 2 <= args.seats <= most:
        raise UserError(f"--seats must be 2 to {most} with these rules, got {args.seats}")
    # a preset goes by name; a file's rules go as a table (the server never reads a client's path)
    spec = label if label in {p.name for p in all_presets()} else rules.to_dict()
    import socket

    try:  # a port in use is a one-line error before the screen starts
        with socket.create_server((config.host, config.port)):
            pass
    except OSError as exc:
        raise UserError(f"cannot listen on {host_port(config.host, config.port)}: {exc.strerror or exc}") from None
    hint = join_line(config.host, args.password, args.password_file)  # ({port}: filled once it listens)
    if config.resume and config.manifest is not None and config.password is None:
        _no_private_game_opened(config.manifest, config.port)
    plan = JoinPlan("127.0.0.1" if config.host in ("0.0.0.0", "") else config.host if config.host != "::" else "::1",
                    config.port, name, config.password, create={"rules": spec, "seats": args.seats},
                    serve=config, address_hint=hint)
    plan.password_flag = (f"--password-file {args.password_file}" if args.password_file is not None
                          else "--password" if args.password is not None else None)
    if config.resume:  # a game the host left without closing it (quit, crash, a closed terminal): back to it
        from .net.kept_seats import kept_tokens

        kept = kept_tokens(plan.host, plan.port, name)  # (newest first: a table started in between, then this)
        plan.keep, plan.comeback, plan.older = True, next(iter(kept), None), tuple(kept[1:])
    return plan


def _no_private_game_opened(manifest, port: int) -> None:
    """UserError when the game this port keeps was played with a password and the host gave
    none: resumed, it would be open to anyone who reaches the port (the host's guests, told the
    table is back, would find strangers in it). The host gives a password again, or another port."""
    import logging

    from .net.manifest import read_manifest

    quiet = logging.getLogger("ono99.server")  # (a check: the server's own read logs what is wrong)
    previous, quiet.disabled = quiet.disabled, True
    try:
        tables, _ = read_manifest(manifest, set_aside=False)
    finally:
        quiet.disabled = previous
    if any(t.password for t in tables):
        raise UserError(f"the game kept on port {port} was played with a password: run ono99 host with --password "
                        "(or --password-file) to carry it on; without one, anyone who reaches the port could "
                        "take a seat in it (another --port starts a new table)")


def join_line(bind: str, password: str | None, password_file: str | None) -> str:
    """The line `ono99 host` shows its guests to copy: an address they can reach (never the
    0.0.0.0 or :: it listens on, an IPv6 literal in the brackets join reads) and the password
    (the host's own secret, on the host's own screen; one read from a file is not printed).
    ``{port}`` is filled once the server listens."""
    import shlex

    from .text import visible

    wildcard = bind in ("", "0.0.0.0", "::")
    if bind in ("127.0.0.1", "::1", "localhost"):
        shown = "localhost"
    elif wildcard:
        shown = "HOST"
    else:
        shown = f"[{bind}]" if ":" in bind else bind
    line = f"Others join with: ono99 join {shown}:{{port}} --name NAME"
    if password_file is not None:
        line += f" --password PW (PW: the password in {visible(password_file)})"
    elif password is not None:
        line += f" --password {visible(shlex.quote(password))}"
    if wildcard:
        import socket

        line += f", where HOST is this machine's name or address on their network (its name: {socket.gethostname()})"
    return line


def session_zygote():
    """What the warm process serve-ssh and web fork their sessions from preloads and runs
    (net/zygote.py, which names nothing of the screen itself): the table screen of `ono99 join`,
    through this module's own main()."""
    from .net.zygote import ZygoteSpec

    return ZygoteSpec(entry="ono99_tui.cli:main", warm="ono99_tui.tui.warm:warm",
                      preload=("ono99_tui.net.lobby", "ono99_tui.tui.join", "ono99_tui.tui.screens.game",
                               "ono99_tui.tui.setup", "ono99_tui.net.remote", "ono99_tui.net.kept_seats",
                               "ono99_tui.store.settings", "ono99_tui.plain.remote",
                               "textual.drivers.linux_driver", "textual.drivers.web_driver"),
                      # Textual reads these at import: a web tab's child reads them again (its driver)
                      reload=("textual.constants",))


def cmd_serve_ssh(args) -> int:
    import asyncio

    from .net import ssh
    from .net.client import host_port
    from .store.paths import data_dir

    config = _server_config(args)
    _server_log(args.verbose)
    if not args.open and not args.authorized_keys:
        raise UserError("serve-ssh: give --authorized-keys FILE (only those keys get in) or --open (anyone does)")
    if args.open and args.authorized_keys:
        raise UserError("serve-ssh: give --authorized-keys FILE (only those keys get in) or --open (anyone does), "
                        "not both")
    if args.authorized_keys:
        try:
            ssh.authorized_keys(args.authorized_keys)
        except ValueError as exc:  # (it says the file and what is wrong with it)
            raise UserError(f"--authorized-keys: {exc}") from None
    config.port = 0  # the table server listens on loopback only, on any free port
    config.host = "127.0.0.1"
    config.door_closed, config.door_flag = not args.open, "--authorized-keys FILE (not --open)"
    ssh_config = ssh.SSHConfig(host=args.bind, port=args.port, host_key=data_dir() / "ssh_host_key",
                               seat_key=data_dir() / "ssh_seat_key",
                               authorized_keys=args.authorized_keys, open=args.open,
                               zygote=None if args.no_zygote else session_zygote(),
                               max_sessions=args.max_sessions, max_per_ip=args.ssh_per_address,
                               idle_timeout=args.idle_timeout, session_timeout=args.session_timeout,
                               # every session is a connection; as many more may be logging in
                               max_connections=max(2 * args.max_sessions, 16))

    def ready(port: int, key) -> None:
        who = "anyone (--open)" if args.open else f"the keys in {args.authorized_keys}"
        _out(f"ono99 serve-ssh: listening on {host_port(args.bind, port)} for {who}; players: ssh -p {port} NAME@HOST")
        _out(f"host key: {key.get_fingerprint()}")
        sys.stdout.flush()

    try:
        asyncio.run(ssh.run(ssh_config, config, ready))
    except OSError as exc:
        raise UserError(f"cannot listen on {args.bind}:{args.port}: {_listen_error(exc)}") from None
    return 0


def _listen_error(exc: OSError) -> str:
    """Why a server could not listen, in the system's words (asyncio wraps a port in use as "error
    while attempting to bind on address (...): address already in use"); an address that names
    nothing: the resolver's ("Name or service not known"; its negative codes have no strerror)."""
    import os
    import socket

    if exc.errno and exc.errno > 0 and not isinstance(exc, socket.gaierror):
        return os.strerror(exc.errno)
    return exc.strerror or str(exc)


def cmd_web(args) -> int:
    import asyncio

    try:
        from .net import web
    except ImportError as exc:  # pragma: no cover - a broken install
        raise UserError(f"ono99 web cannot start: {exc}") from None

    config = _server_config(args)
    _server_log(args.verbose)
    if args.public_url is not None:
        try:
            args.public_url = web.public_url(args.public_url)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    from .store.paths import data_dir

    web_config = web.WebConfig(host=args.bind, port=config.port, password=config.password,
                               public_url=args.public_url,
                               seat_key=data_dir() / "web_seat_key", max_tabs=args.max_sessions,
                               # every tab is a connection (its websocket); as many more may load pages
                               max_connections=max(2 * args.max_sessions, 16), per_address=args.web_per_address,
                               header_timeout=args.header_timeout, write_timeout=args.write_timeout,
                               idle_timeout=args.idle_timeout,
                               zygote=None if args.no_zygote else session_zygote())
    page_password = config.password
    config.door_closed = page_password is not None  # (its tables are kept private over a restart)
    config.host, config.port, config.password = "127.0.0.1", 0, None  # the table server: loopback only

    def ready(port: int) -> None:
        _warn_open(args.bind, page_password, "play at your tables")  # (once it listens)
        shown = f"[{args.bind}]" if ":" in args.bind else args.bind
        url = f"http://{shown}:{port}"
        if web_config.public_url:  # (what the reverse proxy in front of it passes requests on to)
            _out(f"ono99 web: open {web_config.public_url}/ in a browser (served here on {url}/; one seat per "
                 "tab; Ctrl+C or SIGTERM stops it)")
        else:
            _out(f"ono99 web: open {url}/ in a browser (one seat per tab; Ctrl+C or SIGTERM stops it)")
        sys.stdout.flush()

    try:
        asyncio.run(web.run(web_config, config, ready))
    except OSError as exc:
        raise UserError(f"cannot listen on {args.bind}:{args.port}: {_listen_error(exc)}") from None
    return 0


def _warn_open(host: str, password, who: str) -> None:
    import ipaddress

    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback and password is None:
        print(f"ono99: warning: serving on {host} without --password: anyone who can reach this "
              f"port can {who}", file=sys.stderr)


def _add_server_options(p, port_help: str, password: bool = True, verbose: bool = True) -> None:
    p.add_argument("--port", action=_Number, least=0, most=65535, default=DEFAULT_PORT, metavar="P",
                   help=port_help)
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every network)")
    p.set_defaults(password=None, password_file=None)
    if password:  # (serve-ssh: the SSH keys are the way in)
        p.add_argument("--password", default=None, metavar="PW", help="players must give this password to join")
        p.add_argument("--password-file", default=None, metavar="FILE",
                       help="the password from a file (kept out of the process list)")
    p.add_argument("--turn-timer", action=_Number, whole=False, least=0, most=DAY, default=30.0, metavar="S",
                   help="seconds before a bot plays the turn of a player who has lost their connection (default 30)")
    p.add_argument("--move-timer", action=_Number, whole=False, least=0, most=DAY, default=120.0, metavar="S",
                   help="seconds a connected player may take over a turn while other people wait, before a bot "
                   "plays that card (default 120; 0: no limit)")
    p.add_argument("--bot-delay", action=_Number, whole=False, least=0, most=60, default=0.8, metavar="S",
                   help="seconds a bot waits before it plays, so people can follow (default 0.8)")
    p.add_argument("--no-save", action="store_true", help="do not save hosted games in the saves folder")
    limits = p.add_argument_group("limits (docs/deploy.md)")
    limits.add_argument("--abandoned-after", action=_Number, whole=False, least=0, most=WEEK, default=600.0,
                        metavar="S",
                        help="close a started table nobody has been at for S seconds, keeping its save as an "
                        "abandoned game (default 600)")
    limits.add_argument("--max-tables", action=_Number, least=1, most=MOST_TABLES, default=200, metavar="N",
                        help="tables at once (default 200)")
    limits.add_argument("--max-connections", action=_Number, least=1, most=MOST_CONNECTIONS, default=1000, metavar="N",
                        help="connections at once (default 1000)")
    limits.add_argument("--per-address", action=_Number, least=1, most=MOST_PER_ADDRESS, default=8, metavar="N",
                        help="connections at once from one address, counted from the TCP accept (default 8)")
    limits.add_argument("--hello-timeout", action=_Number, whole=False, least=0.1, most=3600, default=10.0,
                        metavar="S",
                        help="close a connection that has not said hello within S seconds (default 10)")
    limits.add_argument("--lobby-timeout", action=_Number, whole=False, least=0, most=WEEK, default=600.0, metavar="S",
                        help="close a connection at no table (no seat, not watching) that has said nothing for S "
                        "seconds; 0: never (default 600)")
    limits.add_argument("--tables-per-connection", action=_Number, least=1, most=MOST_TABLES, default=2, metavar="N",
                        help="tables that are not over one connection may have made (default 2)")
    limits.add_argument("--tables-per-address", action=_Number, least=1, most=MOST_TABLES, default=6, metavar="N",
                        help="tables that are not over the connections from one address may have made (default 6)")
    if verbose:  # (ono99 host: its screen is the terminal, and says what happens to its one table)
        p.add_argument("-v", "--verbose", action="store_true",
                       help="say on stderr when tables are resumed or closed (not only warnings)")


# -- argument parsing --------------------------------------------------------------

def _add_zygote(p, sessions: int) -> None:
    p.add_argument("--no-zygote", action="store_true",
                   help="start a fresh process for each session instead of forking it from a warm one "
                   "(slower to open and ~2x the memory per session; docs/deploy.md, Capacity)")
    p.add_argument("--max-sessions", action=_Number, least=1, most=MOST_SESSIONS, default=sessions, metavar="N",
                   help=f"sessions (each a process of ~16 MiB) at once; past it a new one is told the server is "
                   f"full (default {sessions}; docs/deploy.md, Capacity)")


def _add_plain(p) -> None:
    """--plain after a subcommand too (``ono99 resume --plain``); SUPPRESS keeps one given before it."""
    p.add_argument("--plain", action="store_true", default=argparse.SUPPRESS,
                   help="lines of text instead of the full screen (docs/accessibility.md)")


_WORDS: list[str] = []  # the command line being read, for _Parser's hint


class _Number(argparse.Action):
    """A number option (``add_argument(..., action=_Number, least=1, most=65535)``): a word, or a
    number outside its range, is one line naming the option and what it takes, exit 2 -- never
    argparse's usage block (``web --web-per-address lots`` printed ten lines of it, the error
    last). ``whole``: a whole number, else seconds (nan and inf are refused too); ``allowed`` says
    the range in other words where it needs them."""

    def __init__(self, option_strings, dest, whole: bool = True, least=None, most=None,
                 allowed: str | None = None, **kwargs):
        super().__init__(option_strings, dest, **kwargs)
        self.whole, self.least, self.most = whole, least, most
        if allowed is None:
            if not whole:
                allowed = f"{least:g} to {most:g} seconds" if most is not None else f"{least:g} seconds or more"
            elif least is not None and most is not None:
                allowed = f"a whole number from {least} to {most}"
            elif least is not None:
                allowed = f"a whole number, {least} or more"
            else:
                allowed = "a whole number"
        self.allowed = allowed

    def value(self, text: str):
        """The number ``text`` gives, or None when it is none this option takes."""
        try:
            number = int(text) if self.whole else float(text)
        except ValueError:  # (a word, 1.5 for a whole number, or past int()'s 4300 digits)
            return None
        if number != number or number in (float("inf"), float("-inf")):
            return None
        if (self.least is not None and number < self.least) or (self.most is not None and number > self.most):
            return None
        return number

    def __call__(self, parser, namespace, values, option_string=None):
        number = self.value(values)
        if number is None:
            try:
                float(values)
                given = shorten(values.strip(), 40)  # a number out of range: as typed
            except ValueError:
                given = f"'{shorten(values, 40)}'"  # a word: quoted
            _err(f"ono99: {option_string or self.dest} must be {self.allowed}, got {given}")
            parser.exit(EXIT_USAGE)
        setattr(namespace, self.dest, number)


_OTHER_WORDS = {"rm": "delete", "del": "delete", "remove": "delete", "ls": "list", "load": "resume",
                "continue": "resume", "play": "resume", "server": "serve", "ssh": "serve-ssh", "spectate": "watch",
                "connect": "join", "statistics": "stats", "sim": "simulate", "validate": "check"}


class _Before(argparse.Action):
    """An option of ono99's own, given before a command (``ono99 --rules points host``): kept
    aside as well, as ``before_NAME``, since a command's option of the same name sets its own
    default over it (the host's table was made with standard rules, and nothing said)."""

    def __call__(self, parser, namespace, values, option_string=None):
        value = True if self.nargs == 0 else values
        setattr(namespace, self.dest, value)
        setattr(namespace, f"before_{self.dest}", value)


def _options_before(parser: argparse.ArgumentParser, args) -> None:
    """ono99's own --rules and --ascii, given before a command: used by the command that has the
    same option (host and simulate --rules, replay --ascii) unless it was given there too; a
    command that plays no new game is told --rules is not for it, not left to ignore it."""
    rules, ascii_ = getattr(args, "before_rules", None), getattr(args, "before_ascii", False)
    func = getattr(args, "func", None)
    if rules is not None and func not in (cmd_play, cmd_resume):
        if func in (cmd_host, cmd_simulate):
            if args.rules is None:
                args.rules = rules
        else:
            chosen = _chosen_parser(parser, _WORDS)
            chosen.error(f"--rules is for a new game ({chosen.prog} does not use it): ono99 --rules "
                         f"{shorten(rules, 40)}, ono99 host --rules ..., ono99 simulate --rules ...")
    if ascii_ and func is cmd_replay:
        args.ascii = True


class _Parser(argparse.ArgumentParser):
    """argparse's parser; its usage errors also say when a word that names a file was read as an
    option because it starts with a dash (``rules check -x.toml`` said FILE was missing)."""

    def error(self, message: str):
        dashed = [w for w in _WORDS if w.startswith("-") and w not in ("-", "--")
                  and (os.path.lexists(w) or w.endswith(".toml"))]  # (a file, or one meant to be)
        if dashed:
            w = dashed[0]
            message += f" ({w} starts with -, so it was read as an option: write it as ./{w})"
        elif (chose := re.match(r"argument (?:COMMAND|ACTION): invalid choice: '(.*)' \(choose from ", message)):
            # (`ono99 save list`, `ono99 simualte`, `ono99 help`: the list alone, no word of which was meant)
            import difflib

            subs = next(a for a in self._actions if isinstance(a, argparse._SubParsersAction))
            typed = chose.group(1)
            close = [w for w in (_OTHER_WORDS.get(typed.lower()),) if w in subs.choices] \
                or difflib.get_close_matches(typed.lower(), list(subs.choices), n=1, cutoff=0.6)
            if close:
                message += f"; did you mean {self.prog} {close[0]}?"
            elif chose.group(1) in ("help", "h", "?"):
                message += f"; {self.prog} --help says what each does"
        elif message.startswith("the following arguments are required"):
            # (`rules check -rf` said only that FILE was missing, as though -rf had not been typed)
            unknown = [w for w in self._own_words() if w.startswith("-") and w not in ("-", "--")
                       and not any(o.startswith(w.split("=")[0]) for o in self._option_string_actions)]
            if unknown:
                message += f" ({unknown[0]} is not an option of {self.prog})"
        super().error(message)

    def _own_words(self) -> list[str]:
        """The words typed after this (sub)command's own name: ``-rf`` in ``rules check -rf``."""
        words, at = list(_WORDS), 0
        for name in self.prog.split()[1:]:
            if name in words[at:]:
                at = words.index(name, at) + 1
        return words[at:]

    def _print_message(self, message, file=None):
        # (a word typed is echoed in argparse's "unrecognized arguments: ..."; an ESC in it reached
        # the terminal as it was typed: shown as \x1b, as every other message shows one)
        if not message:
            return
        file = file or sys.stderr
        try:
            file.write(visible(message, keep_newlines=True))
            file.flush()
        except BrokenPipeError:
            if file is sys.stdout:
                _stop_writing()
        except (AttributeError, OSError) as exc:  # (`ono99 --help > /dev/full` said nothing, and exit 0)
            if file is sys.stdout and not isinstance(exc, AttributeError):
                _stop_writing()
                _err(f"ono99: cannot write to standard output: {exc.strerror or exc}")
                sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ono99",
        description="O'NO 99, the card game, in your terminal. With no command, opens the game.",
        epilog="Settings live in config.toml in your config folder (edit them in the app's Settings). "
        "--theme, --ascii and --rules (and --unicode), and the ONO99_BOT_DELAY and ONO99_GLYPHS (ascii, "
        "unicode or auto) environment variables, win over the file for this run. ONO99_CONFIG_DIR and "
        "ONO99_DATA_DIR move the config and data folders. A --theme or --rules name that does not exist "
        "is an error; one in the settings file is reported and the default used.",
    )
    parser.add_argument("--version", action="version", version=f"ono99 {__version__}")
    glyphs = parser.add_mutually_exclusive_group()
    glyphs.add_argument("--ascii", action=_Before, nargs=0, default=False, help="draw with ASCII characters only")
    glyphs.add_argument("--unicode", action="store_true",
                        help="draw with Unicode characters even where the terminal looks unable to "
                        "(TERM=linux, vt100, dumb, or a locale that is not UTF-8 get ASCII by default)")
    parser.add_argument("--rules", metavar="PRESET|FILE", type=_named, action=_Before, help="house rules for a new game")
    parser.add_argument("--plain", action="store_true",
                        help="lines of text instead of the full screen: for screen readers, braille displays "
                        "and pipes (also after resume: ono99 resume --plain NAME)")
    parser.add_argument("--theme", metavar="NAME", help="colour theme (ono99-dark, ono99-light, "
                        "ono99-high-contrast, ono99-ansi, or one of yours)")
    parser.set_defaults(func=cmd_play)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    rules = sub.add_parser("rules", help="list, show and check house rules")
    rules_sub = rules.add_subparsers(title="rules commands", metavar="ACTION", required=True)
    p = rules_sub.add_parser("list", help="list the rules presets")
    p.set_defaults(func=cmd_rules_list)
    p = rules_sub.add_parser("show", help="print the full effective rules as TOML, every key commented")
    p.add_argument("source", nargs="?", metavar="PRESET|FILE", type=_named,
                   help="a preset name or a rules file (default: standard)")
    p.set_defaults(func=cmd_rules_show)
    p = rules_sub.add_parser("check", help="check rules files; exit 0 when all are valid, 2 when not")
    p.add_argument("files", nargs="+", metavar="FILE", type=_named,
                   help="house-rule files (.toml; - reads one from standard input); every problem of each is said, "
                   "with the key and what is allowed")
    p.set_defaults(func=cmd_rules_check)
    p = rules_sub.add_parser(
        "compare", help="simulate the same deals under two rule sets and compare them side by side",
        description="See what a house rule does before adopting it: the same deals and bots under rules A "
        "and B, with rounds per game, plays per round, which special cards decided rounds, first-player "
        "advantage and how often 99 cards were played.")
    p.add_argument("a", metavar="A", type=_named, help="a preset name or rules file")
    p.add_argument("b", metavar="B", type=_named, help="a preset name or rules file")
    p.add_argument("--games", action=_Number, default=200, metavar="N",
                   help="games under each rule set (default 200), rounded up to a multiple of the seats")
    p.add_argument("--bots", default="medium,medium,medium,medium", metavar="LEVELS",
                   help="comma-separated bot levels, one per seat (default: four medium bots)")
    p.add_argument("--seed", action=_Number, default=1, metavar="S", help="seed for the deals (default 1)")
    p.add_argument("--jobs", action=_Number, default=None, metavar="J", help="processes to use (default: one per CPU)")
    p.add_argument("--json", action="store_true", help="print both results as one JSON object")
    p.set_defaults(func=cmd_rules_compare)

    p = sub.add_parser("replay", help="replay a game record or a save play by play")
    p.add_argument("file", metavar="FILE|NAME", type=_named, help="a game record (.toml), or a save's name (as resume takes it)")
    p.add_argument("--json", action="store_true", help="print the event stream as JSON (docs/record-format.md)")
    p.add_argument("--compact", action="store_true", help="with --json: one line")
    p.add_argument("--ascii", action="store_true",
                   help="ASCII characters only (the default on TERM=linux, vt100, dumb or a non-UTF-8 locale)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("resume", help="open a saved game (default: the most recent unfinished one played here, not one a network server keeps)")
    p.add_argument("name", nargs="?", metavar="NAME", type=_named)
    _add_plain(p)
    p.set_defaults(func=cmd_resume)

    saves = sub.add_parser("saves", help="list, check, restore, delete, export and import saved games")
    saves_sub = saves.add_subparsers(title="saves commands", metavar="ACTION", required=True)
    p = saves_sub.add_parser("list", help="every save: players, rules, round, scores, last played; damaged ones say why")
    p.set_defaults(func=cmd_saves_list)
    p = saves_sub.add_parser("check", help="replay every save in full; exit 2 naming each damaged one and why")
    p.set_defaults(func=cmd_saves_check)
    p = saves_sub.add_parser("restore", help="put a save's previous version (its .bak) back; the save it "
                             "replaces is kept beside it")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_saves_restore)
    p = saves_sub.add_parser("delete", help="delete a save")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_saves_delete)
    p = saves_sub.add_parser("export", help="write a save to a file (never over an existing one)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("file", metavar="FILE", type=_named, help="the file to write; - writes the record to standard output")
    p.set_defaults(func=cmd_saves_export)
    p = saves_sub.add_parser("import", help="add a game record file to the saves (checked play by play)")
    p.add_argument("file", metavar="FILE", type=_named, help="the record file; - reads it from standard input")
    p.set_defaults(func=cmd_saves_import)

    p = sub.add_parser("stats", help="statistics per player name")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser(
        "simulate", help="play many bot games and report win rates",
        description="Play bot-only games, every bot in every seat equally (each deal replayed once per "
        "seating), and report win rates with 95% confidence intervals.",
    )
    p.add_argument("--bots", required=True, metavar="LEVELS",
                   help="comma-separated bot levels, one per seat (2-8): random, easy, medium, hard")
    p.add_argument("--games", action=_Number, default=100, metavar="N",
                   help="games to play (default 100), rounded up to a multiple of the seats")
    p.add_argument("--rules", default=None, metavar="PRESET|FILE", type=_named, help="house rules (default: standard)")
    p.add_argument("--seed", action=_Number, default=1, metavar="S", help="seed for the deals (default 1)")
    p.add_argument("--jobs", action=_Number, default=None, metavar="J", help="processes to use (default: one per CPU)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument("--records", metavar="DIR", type=_named,
                   help="write every game's record into DIR (made if missing; it must hold no game records yet)")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "serve", help="host tables for players on other terminals (ono99 join connects to it)",
        description="Run a table server: players connect with `ono99 join HOST:PORT --name NAME`, create or "
        "pick a table, fill empty seats with bots and play. The protocol is in docs/protocol.md.")
    _add_server_options(p, f"port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("join", help="sit at a table on an ono99 server (ono99 serve or ono99 host)",
                       description="Connect to a table server and play at one of its tables on this terminal.")
    p.add_argument("address", metavar="HOST[:PORT]", help=f"the server (default port {DEFAULT_PORT})")
    p.add_argument("--name", required=True, metavar="NAME", help="your name at the table")
    p.add_argument("--table", action=_Number, least=1, most=2**31 - 1, allowed=TABLE_NUMBER, metavar="N",
                   help="the table to sit at (default: the one table waiting for players)")
    p.add_argument("--password", default=None, metavar="PW", help="the server's password, if it has one")
    p.epilog = ("ONO99_SEAT_TOKEN in the environment: come back to the seat it holds (or sit with it as its token). "
                "ONO99_PASSWORD: the server's password, kept out of the process list.")
    p.add_argument("--or-create", action="store_true",
                   help="when no table is waiting for players, make one (standard rules, 4 seats) and sit at it")
    _add_plain(p)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser("watch", help="watch a table on an ono99 server (its public state, never a hand)",
                       description="Connect to a table server as a spectator: the table, the scores and the "
                       "log, live; no hand is ever shown. The players see your name as watching.")
    p.add_argument("address", metavar="HOST[:PORT]", help=f"the server (default port {DEFAULT_PORT})")
    p.add_argument("--table", action=_Number, least=1, most=2**31 - 1, allowed=TABLE_NUMBER, metavar="N",
                   help="the table to watch (default: the one being played)")
    p.add_argument("--name", default="Spectator", metavar="NAME",
                   help="the name the players see watching (default Spectator)")
    p.add_argument("--password", default=None, metavar="PW", help="the server's password, if it has one")
    p.epilog = "ONO99_PASSWORD: the server's password, kept out of the process list."
    _add_plain(p)
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser("serve-ssh", help="a table server that friends reach with nothing but ssh",
                       description="Run an SSH server: each SSH session gets the table screen (ono99 join) on its "
                       "own terminal, at tables served by this process. The host key is made on the first run "
                       "and kept in the data folder.")
    _add_server_options(p, "SSH port to listen on (default 2222)", password=False)
    p.set_defaults(port=2222)
    p.add_argument("--authorized-keys", default=None, metavar="FILE",
                   help="only these public keys get in (OpenSSH authorized_keys format)")
    p.add_argument("--open", action="store_true", help="anyone gets in; their SSH user name is their name")
    _add_zygote(p, 256)
    gate = p.add_argument_group("SSH gateway limits (docs/deploy.md)")
    gate.add_argument("--ssh-per-address", action=_Number, least=1, most=MOST_PER_ADDRESS, default=4, metavar="N",
                      help="SSH connections at once from one address, logged in or not, counted from the TCP "
                      "accept (default 4)")
    gate.add_argument("--idle-timeout", action=_Number, whole=False, least=1, most=WEEK, default=1800.0, metavar="S",
                      help="end a session with no key pressed for S seconds (default 1800)")
    gate.add_argument("--session-timeout", action=_Number, whole=False, least=1, most=WEEK, default=20.0, metavar="S",
                      help="close a logged-in connection with no game running after S seconds (default 20)")
    p.set_defaults(func=cmd_serve_ssh)

    p = sub.add_parser("web", help="play in a browser: each tab gets the table screen (ono99 join)",
                       description="Serve the table screen to browsers with textual-serve: each tab runs its own "
                       "ono99 join at tables served by this process. Your name: ?name=NAME at the end of the "
                       "address, else the user name given at the password prompt, else Guest 1, Guest 2...")
    _add_server_options(p, "HTTP port to listen on (default 8000; 0: any free port)")
    p.set_defaults(port=8000)
    p.add_argument("--public-url", default=None, metavar="URL",
                   help="the address browsers use, when it differs (behind a reverse proxy: https://...)")
    _add_zygote(p, 128)
    gate = p.add_argument_group("web gateway limits (docs/deploy.md)")
    gate.add_argument("--web-per-address", action=_Number, least=1, most=MOST_PER_ADDRESS, default=16, metavar="N",
                      help="HTTP connections at once from one address, open tabs included, counted from the TCP "
                      "accept; past it a connection is refused at once (default 16)")
    gate.add_argument("--header-timeout", action=_Number, whole=False, least=0.1, most=3600, default=10.0, metavar="S",
                      help="close a connection that has not sent a whole request's headers S seconds after it "
                      "was accepted or last answered; an open tab is never closed by it (default 10)")
    gate.add_argument("--write-timeout", action=_Number, whole=False, least=1, most=3600, default=30.0, metavar="S",
                      help="drop a connection that takes nothing of what it is sent for S seconds (it stopped "
                      "reading); a slow one that still reads is never dropped by it (default 30)")
    gate.add_argument("--idle-timeout", action=_Number, whole=False, least=1, most=WEEK, default=1800.0, metavar="S",
                      help="end a tab with no key pressed for S seconds (default 1800)")
    p.set_defaults(func=cmd_web)

    p = sub.add_parser("host", help="serve a table and sit at it; others join with ono99 join",
                       description="Start a table server in this process, create a table and sit at it as its "
                       "first player. Others join with `ono99 join HOST:PORT --name NAME`; press B to fill the "
                       "empty seats with bots and S to start. A game left without closing it (quit, a crash, "
                       "a closed terminal) is kept: the same ono99 host comes back to it, and its players to "
                       "their seats.")
    p.add_argument("--rules", default=None, metavar="PRESET|FILE", type=_named, help="house rules (default: standard)")
    p.add_argument("--seats", action=_Number, least=2, most=8, default=4, metavar="N",
                   help="seats at the table, 2-8 (default 4)")
    p.add_argument("--name", default="Host", metavar="NAME", help="your name at the table (default Host)")
    _add_server_options(p, f"port to listen on (default {DEFAULT_PORT}; 0: any free port, named in the join line)",
                        verbose=False)
    _add_plain(p)
    p.set_defaults(func=cmd_host)

    return parser


def _escape_what_cannot_be_printed() -> None:
    """On a stdout/stderr that is not UTF-8 (LC_ALL=POSIX, PYTHONIOENCODING=latin-1), a
    character it cannot encode is printed as a \\u escape, never a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass  # replaced by a test's capture, or closed


def _dash_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``--name -dash`` as ``--name=-dash``: argparse reads a value that starts with a dash as a
    missing value; a name, a password or a file may start with one. Only when the next word is not
    an option of the command given (so ``--name --plain``, a forgotten name, still says what is
    missing) and not ``--`` (argparse's end of options, never a value)."""
    flags = (argparse._StoreConstAction, argparse._StoreTrueAction, argparse._StoreFalseAction,
             argparse._CountAction, argparse._HelpAction, argparse._VersionAction)
    options: set[str] = set()
    takes_value: set[str] = set()
    commands: dict[str, argparse.ArgumentParser] = {}

    def learn(p: argparse.ArgumentParser) -> None:
        # (argparse's internals: a test in tests/test_cli_exits.py fails if they move)
        for action in p._actions:
            options.update(action.option_strings)
            if action.option_strings and action.nargs is None and not isinstance(action, flags):
                takes_value.update(o for o in action.option_strings if o.startswith("--"))
            if isinstance(action, argparse._SubParsersAction):
                commands.clear()
                commands.update(action.choices)

    learn(parser)
    out, i = [], 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return out + argv[i:]
        if word in commands:  # a command (or a command's action): its options from here on
            sub = commands[word]
            commands.clear()
            learn(sub)
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if word in takes_value and nxt is not None and nxt.startswith("-") and nxt != "--" \
                and nxt.split("=")[0] not in options:
            out.append(f"{word}={nxt}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


def _unrecognized(parser: argparse.ArgumentParser, args, extra: list[str]) -> None:
    """argparse's error for words no option takes (exit 2), with a hint where one helps: ono99 host
    has no -v (its screen cannot show a log), and serve and web do."""
    message = f"unrecognized arguments: {' '.join(extra)}"
    chosen = _chosen_parser(parser, _WORDS)  # (its usage, not the top one's: `saves list extra`)
    verbose = [w for w in extra if w == "-v" or len(w) > 2 and "--verbose".startswith(w.split("=")[0])]
    if getattr(args, "func", None) is cmd_host and verbose:
        chosen.error(f"{message} (ono99 host has no -v: ono99 serve -v or ono99 web -v show the server's log)")
    chosen.error(message)


def _chosen_parser(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    """The (sub)command's parser the command words chose (argparse's internals, as _dash_values
    reads them): ono99, ono99 saves, ono99 saves list, ..."""
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs and word in subs[0].choices:
            parser = subs[0].choices[word]
    return parser


def main(argv: list[str] | None = None) -> int:
    if sys.stdout is None:  # (started with >&-: Python gives None, and every line said was a traceback)
        if sys.stderr is not None:
            print("ono99: standard output is closed; run ono99 with it open (> /dev/null drops what it says)",
                  file=sys.stderr)
        return EXIT_USAGE
    _escape_what_cannot_be_printed()
    parser = build_parser()
    _WORDS[:] = sys.argv[1:] if argv is None else list(argv)
    args, extra = parser.parse_known_args(_dash_values(parser, list(_WORDS)))
    if extra:
        _unrecognized(parser, args, extra)
    _options_before(parser, args)
    try:
        status = args.func(args)
        try:
            sys.stdout.flush()  # (what is still buffered: a full disk says so here, not at exit)
        except BrokenPipeError:
            _stop_writing()
        except OSError as exc:
            _stop_writing()
            raise UserError(f"cannot write to standard output: {exc.strerror or exc}") from None
        return status
    except UserError as exc:
        try:
            _err(f"ono99: {exc}")
        except BrokenPipeError:  # (2>&1 | head: stderr's reader gone too)
            pass
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ono99: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # (written past _out: the reader has gone; what was asked was done)
        _stop_writing()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
