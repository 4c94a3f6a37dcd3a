"""Play many bot-only games and add up what happened.

Duplicate style: the seat assignment is rotated through every seating, and the
same deal seed is replayed once per seating, so luck of the deal cancels out
between the bots being compared and every bot sits in every seat equally.
"""

from __future__ import annotations

import random
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..engine import Game
from ..engine.record import SeatSpec
from ..engine.rules import Rules
from ..table import TableSession
from ..table.seats import SeatError, bot_names, parse_levels


class SimulationError(SeatError):
    """Arguments that cannot make a simulation; the message says which and why."""


def parse_bots(text: str, allow_oracle: bool = False) -> list[str]:
    try:
        return parse_levels(text, allow_oracle)
    except SeatError as exc:
        raise SimulationError(str(exc)) from None


seat_names = bot_names  # the simulator names its seats after their levels


@dataclass
class GameResult:
    index: int
    levels: list[str]        # level at each seat, this seating
    winner: int
    rounds: int
    plays: int
    round_ends: Counter = field(default_factory=Counter)
    first_player_lost: int = 0  # rounds lost by the seat that played first in them
    first_seat_won: bool = False  # the seat that played first in round 1 won the game
    deciders: Counter = field(default_factory=Counter)  # card played just before each round's loss
    ninety_nines: int = 0  # 99 cards played (the 99-card option)
    record_toml: str | None = None
    rounds_in: Counter = field(default_factory=Counter)  # level -> rounds its seats played in
    rounds_lost: Counter = field(default_factory=Counter)  # level -> rounds its seats lost
    rounds_fair: Counter = field(default_factory=Counter)  # level -> sum of 1/players over those rounds


#: Who deals first under dealer.first = "agree", where no table is there to agree: the first
#: seat, which every bot takes equally often as the seatings rotate (AGREED_NOTE says so).
AGREED_DEALER = 0
AGREED_NOTE = ('dealer.first = "agree": with no table to agree, the first seat deals first '
               "(every bot sits there equally often).")


def deal_seed(seed: int, deal: int) -> int:
    return random.Random(f"ono99-sim/{seed}/{deal}").getrandbits(32)


def play_game(levels: list[str], rules: Rules, seed: int, index: int, keep_record: bool = False) -> GameResult:
    """Game `index`: deal index // n, seating index % n (levels rotated by that much)."""
    n = len(levels)
    deal, turn = divmod(index, n)
    seated = levels[turn:] + levels[:turn]
    names = seat_names(seated)
    game_seed = deal_seed(seed, deal)
    seats = [SeatSpec(name, f"bot:{lv}") for name, lv in zip(names, seated)]
    table = TableSession(seats, rules, game_seed, record_events=False, allow_oracle=True,
                         first_dealer=AGREED_DEALER if rules.dealer_first == "agree" else None)
    game = table.game
    table.play_bots()
    # from the rounds' summaries, not play by play: rounds can end at their deals (R5.2), with
    # no play, several at once (a hand of only 99s); they were missed or counted as one
    rounds_in: Counter = Counter()
    rounds_lost: Counter = Counter()
    rounds_fair: Counter = Counter()
    for r in game.round_log:
        for s in r["seats"]:  # round-level rates: who played this round, who lost it
            rounds_in[seated[s]] += 1
            rounds_fair[seated[s]] += 1 / len(r["seats"])
        rounds_lost[seated[r["loser"]]] += 1
    first_lost = sum(r["loser"] == r["leader"] for r in game.round_log)
    first_of_game = game.round_log[0]["leader"] if game.round_log else None
    result = GameResult(
        index=index, levels=seated, winner=game.winner, rounds=len(game.round_log),
        plays=len(game.plays), round_ends=Counter(r["reason"] for r in game.round_log),
        first_player_lost=first_lost, first_seat_won=game.winner == first_of_game,
        deciders=deciders(game), ninety_nines=sum(1 for _, c in game.plays if c == "99"),
        rounds_in=rounds_in, rounds_lost=rounds_lost, rounds_fair=rounds_fair,
    )
    if keep_record:
        from ..engine.record import Record

        meta = {"made_by": "ono99 simulate", "game": index + 1, "sim_seed": seed}
        result.record_toml = Record.from_game(game, seats, meta).to_toml()
    return result


def deciders(game: Game) -> Counter:
    """For each finished round, the card played just before the losing play (or the stuck turn)."""
    found: Counter = Counter()
    for summary, plays in zip(game.round_log, game.round_plays):
        before = plays[:-1] if summary["reason"] == "bust" else plays
        found[before[-1][1] if before else "none"] += 1
    return found


MAX_GAMES = 10_000_000  # days of bots on a laptop: a bigger number is a typo, not a plan


def games_needed(requested: int, seats: int) -> int:
    """Round up so every seating is played equally often (never past MAX_GAMES)."""
    games = -(-requested // seats) * seats
    if not 1 <= requested or games > MAX_GAMES:
        most = MAX_GAMES // seats * seats
        raise SimulationError(f"--games must be from 1 to {most:,} (a multiple of the {seats} seats at most "
                              f"{MAX_GAMES:,}), got {requested:,}")
    return games


def _run_chunk(args) -> list[GameResult]:
    levels, rules, seed, indices, keep = args
    return [play_game(levels, rules, seed, i, keep) for i in indices]


def _worker_start() -> None:
    """A worker leaves Ctrl+C to the parent, which ends the pool and says "interrupted" once:
    otherwise every worker prints a KeyboardInterrupt traceback of its own. (It was born with
    SIGINT blocked, ``_pool``: a Ctrl+C that came before this line is dropped with the block.)"""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _die_with_the_parent()


def _die_with_the_parent() -> None:
    """On Linux, a worker is killed when its parent dies, however it dies (kill -9 included): an
    orphaned worker would play on at full speed until its batches were done."""
    import os
    import sys

    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # (it died before the line above: nothing will send the signal)
        os._exit(1)


@contextmanager
def _pool(ctx, jobs: int):
    """A pool whose workers cannot be interrupted before they ignore Ctrl+C, ended (terminated)
    however the caller leaves it. A Ctrl+C between a worker's fork and ``_worker_start`` used to
    kill it mid-start, with a traceback, or while it held the task queue's lock, and then the
    parent's ``terminate`` waited for that lock for ever (10 of 20 tries interrupted at once).
    SIGINT is blocked while the workers are forked, which they inherit; the parent's own Ctrl+C
    waits the few milliseconds and lands once the pool is in hand, so it is always terminated."""
    import signal

    block = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
    try:
        pool = ctx.Pool(jobs, initializer=_worker_start)
    except BaseException:
        if block:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        raise
    ending = {}
    try:
        if block:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a pending Ctrl+C lands here, or later
        ending = _ended_by_signals()
        yield pool
    finally:
        try:
            _terminate(pool, ctx)
        finally:
            for signum, handler in ending.items():
                signal.signal(signum, handler)


def _ended_by_signals() -> dict:
    """SIGTERM or SIGHUP (kill, a closed terminal) ends the parent through its ``finally``, so the
    pool is ended with it: by default the parent died at once and its workers played on, orphans
    at full speed, until every game asked for was played. Returns the handlers replaced."""
    import signal

    def end(signum, frame):
        raise SystemExit(128 + signum)

    replaced = {}
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is None:
            continue
        try:
            replaced[signum] = signal.signal(signum, end)
        except (ValueError, OSError):  # (not the main thread: its caller's own way out stands)
            pass
    return replaced


TERMINATE_WAIT = 5.0  # seconds Pool.terminate may take before the workers are killed and it is left


def _terminate(pool, ctx) -> None:
    """``pool.terminate()``, which CPython can leave waiting for ever: its task feeder blocked on
    the task queue's lock while the pool is ended early (a --records write that failed on a full
    disk, under load: 1 run in 25 hung). Given TERMINATE_WAIT, the workers are killed and the
    stuck thread (a daemon) is left behind, so the command still ends with its one message."""
    import threading

    ending = threading.Thread(target=pool.terminate, name="ono99-pool-end", daemon=True)
    ending.start()
    ending.join(TERMINATE_WAIT)
    if ending.is_alive():
        for child in ctx.active_children():
            child.kill()


def batch_count(games: int, jobs: int = 1, chunk: int = 0) -> int:
    chunk = chunk or _chunk(games, jobs)
    return -(-games // chunk)


def _chunk(games: int, jobs: int) -> int:
    return max(1, min(25, games // (jobs * 8) or 1))


def run_games(levels: list[str], rules: Rules, seed: int, games: int, jobs: int = 1,
              keep_records: bool = False, chunk: int = 0, start: int = 0) -> Iterator[GameResult]:
    """Yield results as games finish (in any order when jobs > 1).

    The batches are made as they are handed out, never all at once, and at most a few per
    process are out at a time: memory stays flat however many games are asked for
    (``--games 100000000000`` runs until stopped instead of filling the memory first).
    ``start``: the index of the first game, so a long run can be played in parts (seed ranges)."""
    chunk = chunk or _chunk(games, jobs)
    end = start + games
    batches = ((levels, rules, seed, range(i, min(i + chunk, end)), keep_records)
               for i in range(start, end, chunk))
    if jobs <= 1:
        for batch in batches:
            yield from _run_chunk(batch)
        return
    import multiprocessing as mp
    from collections import deque

    # fork where there is one: no re-import of the caller's __main__, and quick to start
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    with _pool(mp.get_context(method), jobs) as pool:
        pending: deque = deque()
        window = 4 * jobs  # batches out at once: enough to keep every process busy
        for batch in batches:
            pending.append(pool.apply_async(_run_chunk, (batch,)))
            while len(pending) >= window or (pending and pending[0].ready()):
                yield from pending.popleft().get()
        while pending:
            yield from pending.popleft().get()


@dataclass
class Tally:
    """Everything `simulate` reports, added up one game at a time."""

    levels: list[str]
    games: int = 0
    rounds: int = 0
    plays: int = 0
    level_wins: Counter = field(default_factory=Counter)
    seat_wins: Counter = field(default_factory=Counter)
    round_ends: Counter = field(default_factory=Counter)
    first_player_lost: int = 0
    first_seat_wins: int = 0
    deciders: Counter = field(default_factory=Counter)
    ninety_nines: int = 0
    rounds_in: Counter = field(default_factory=Counter)
    rounds_lost: Counter = field(default_factory=Counter)
    rounds_fair: Counter = field(default_factory=Counter)

    def add(self, r: GameResult) -> None:
        self.games += 1
        self.rounds += r.rounds
        self.plays += r.plays
        self.level_wins[r.levels[r.winner]] += 1
        self.seat_wins[r.winner] += 1
        self.round_ends.update(r.round_ends)
        self.first_player_lost += r.first_player_lost
        self.first_seat_wins += r.first_seat_won
        self.deciders.update(r.deciders)
        self.ninety_nines += r.ninety_nines
        self.rounds_in.update(r.rounds_in)
        self.rounds_lost.update(r.rounds_lost)
        self.rounds_fair.update(r.rounds_fair)

    def summary(self) -> dict:
        from .stats import ci95

        n = self.games
        count = Counter(self.levels)
        levels = []
        for level in dict.fromkeys(self.levels):
            wins = self.level_wins[level]
            levels.append({
                "level": level, "seats": count[level], "wins": wins,
                "win_rate": wins / n if n else 0.0, "ci95": ci95(wins, n),
                "fair_share": count[level] / len(self.levels),
                **round_rates(self.rounds_in[level], self.rounds_lost[level], self.rounds_fair[level]),
            })
        seats = []
        for s in range(len(self.levels)):
            wins = self.seat_wins[s]
            seats.append({"seat": s + 1, "wins": wins, "win_rate": wins / n if n else 0.0, "ci95": ci95(wins, n)})
        summary = {
            "games": n,
            "seats": len(self.levels),
            "levels": levels,
            "by_seat": seats,
            "rounds_per_game": self.rounds / n if n else 0.0,
            "plays_per_round": self.plays / self.rounds if self.rounds else 0.0,
            "round_ends": dict(sorted(self.round_ends.items())),
            "first_player_lost_share": self.first_player_lost / self.rounds if self.rounds else 0.0,
            "first_seat_win_rate": self.first_seat_wins / n if n else 0.0,
            "deciding_cards": dict(self.deciders.most_common()),
            "ninety_nines_played_per_game": self.ninety_nines / n if n else 0.0,
        }
        summary["cannot_tell_apart"] = [list(pair) for pair in indistinct(summary)]
        return summary


def round_rates(played: int, lost: int, fair: float) -> dict:
    """Round-level figures for one level: rounds its seats played and lost, the share lost
    (95% Wilson interval; rounds of one game are not independent, so it is a little narrow),
    and the share an equal player would lose (1/players in each of those rounds)."""
    from .stats import ci95

    return {"rounds_played": played, "rounds_lost": lost,
            "round_loss_rate": lost / played if played else 0.0, "round_loss_ci95": ci95(lost, played),
            "round_loss_fair": fair / played if played else 0.0, "rounds_fair_sum": fair}


def indistinct(summary: dict) -> list[tuple[str, str]]:
    """Pairs of levels whose 95% intervals (per seat, so 3 mediums and 1 hard compare fairly)
    overlap: this many games cannot tell them apart."""
    rows = summary["levels"]
    found = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            (alo, ahi), (blo, bhi) = [x / a["seats"] for x in a["ci95"]], [x / b["seats"] for x in b["ci95"]]
            if alo <= bhi and blo <= ahi:
                found.append((a["level"], b["level"]))
    return found


def check_records_dir(path: str) -> Path:
    """A directory for the records that will not overwrite anything already there."""
    target = Path(path)
    try:  # (a name too long for the file system, a folder it may not look in: one line, not a traceback)
        is_dir = target.is_dir()
        if not is_dir and target.exists():
            raise SimulationError(f"--records: {path} exists and is not a directory")
        clash = sorted(target.glob("game-*.toml")) if is_dir else []
    except OSError as exc:
        raise SimulationError(f"--records: cannot use {path}: {(exc.strerror or str(exc)).lower()}") from None
    if clash:
        raise SimulationError(
            f"--records: {path} already holds game records ({clash[0].name}, ...); "
            "choose an empty or new directory so nothing is overwritten"
        )
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimulationError(f"--records: cannot create {path}: {exc.strerror}") from None
    return target


def record_name(index: int, total: int) -> str:
    return f"game-{index + 1:0{max(5, len(str(total)))}d}.toml"
