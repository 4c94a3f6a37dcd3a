"""Saved games: one game record (docs/record-format.md) per file in the saves folder.

A save is a plain record whose seats say who is human and which bot level each
bot is, plus a few [meta] keys (name, saved_at, finished, undo_used). Writes
are atomic with a .bak of the previous version; a save is opened under a lock
so a second ono99 cannot write over it; names typed by players are checked so
nothing can land outside the folder. Nothing read from disk is ever executed:
a save is TOML, checked play by play by the engine.
"""

from __future__ import annotations

import os
import re
import socket
import time
import tomllib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..engine.record import Record, RecordError
from .atomic import write_atomic
from .paths import saves_dir

SUFFIX = ".toml"
MAX_NAME = 40
_NAME_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _\-]*$")


class SaveError(Exception):
    """A save cannot be read, written, named or opened; the message says which and why."""


def check_name(name: str) -> str:
    """A save name as typed by a player, or SaveError saying what is allowed."""
    name = (name or "").strip()
    if name.lower().endswith(SUFFIX):
        name = name[: -len(SUFFIX)].strip()
    if not name:
        raise SaveError("a save needs a name")
    if len(name) > MAX_NAME:
        raise SaveError(f"save names are at most {MAX_NAME} characters ({len(name)} given)")
    if not _NAME_OK.match(name):
        raise SaveError(f"save name {name!r}: use letters, digits, spaces, '-' and '_', starting with a letter "
                        "or digit (no '/', '\\', '..' or leading '.')")
    return name


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


@dataclass
class SaveInfo:
    name: str
    path: Path
    modified: float
    players: str = ""
    rules: str = ""
    round: int = 0
    scores: str = ""
    finished: bool = False
    undo_used: bool = False
    damaged: str | None = None  # the reason, when it cannot be played

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.modified))


class SaveStore:
    def __init__(self, folder: Path | None = None):
        self.folder = Path(folder) if folder is not None else saves_dir()

    def path(self, name: str) -> Path:
        return self.folder / (check_name(name) + SUFFIX)

    # -- writing -------------------------------------------------------------------------
    def write(self, name: str, record: Record) -> Path:
        path = self.path(name)
        meta = dict(record.meta)
        meta["name"] = check_name(name)
        meta["saved_at"] = now_iso()
        record.meta = meta
        try:
            write_atomic(path, record.to_toml())
        except OSError as exc:
            raise SaveError(f"cannot save to {path}: {exc.strerror or exc}") from None
        return path

    def new_name(self, prefix: str = "game") -> str:
        stamp = time.strftime("%Y-%m-%d %H-%M-%S")
        name, k = f"{prefix} {stamp}", 2
        while self.path(name).exists():
            name, k = f"{prefix} {stamp} {k}", k + 1
        return name

    # -- reading -------------------------------------------------------------------------
    def load(self, name: str) -> Record:
        path = self.path(name)
        if not path.exists():
            raise SaveError(f"no save named {name!r} in {self.folder}")
        try:
            record = Record.load(path)
            record.replay(record_events=False)  # every play checked by the rules
        except RecordError as exc:
            raise SaveError(f"damaged save: {_with_source(exc, path)}") from None
        return record

    def names(self) -> list[str]:
        try:
            files = [p for p in self.folder.glob("*" + SUFFIX) if not p.name.startswith(".")]
        except OSError:
            return []
        return [p.stem for p in sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)]

    def info(self, name: str) -> SaveInfo:
        path = self.folder / (name + SUFFIX)
        try:
            modified = path.stat().st_mtime
        except OSError as exc:
            return SaveInfo(name, path, 0.0, damaged=f"cannot read: {exc.strerror}")
        info = SaveInfo(name, path, modified)
        try:
            record = Record.load(path)
            game = record.replay(record_events=False)
        except RecordError as exc:
            info.damaged = str(exc).replace(str(path) + ": ", "")
            return info
        except Exception as exc:  # noqa: BLE001 - a save must never crash the list
            info.damaged = f"unreadable ({type(exc).__name__})"
            return info
        info.players = ", ".join(f"{s.name}{'' if not s.is_bot else ' (' + s.bot_level + ')'}" for s in record.seats)
        info.rules = str(record.meta.get("rules", "")) or "custom"
        info.round = game.round_no
        info.finished = game.over
        info.undo_used = bool(record.meta.get("undo_used", False))
        if game.rules.scoring_mode == "tokens":
            info.scores = " ".join(f"{n} {'out' if game.out[i] else game.tokens[i]}" for i, n in enumerate(game.names))
        else:
            info.scores = " ".join(f"{n} {game.points[i]}" for i, n in enumerate(game.names))
        return info

    def peek_unfinished(self, name: str) -> bool:
        """Cheap check for the menu: the save's own 'finished' mark, without replaying it.
        (Opening it still checks every play.)"""
        try:
            doc = tomllib.loads((self.folder / (name + SUFFIX)).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return False
        meta = doc.get("meta")
        if isinstance(meta, dict) and isinstance(meta.get("finished"), bool):
            return not meta["finished"]
        info = self.info(name)  # not marked (an imported record): replay it to know
        return not info.damaged and not info.finished

    def listing(self) -> list[SaveInfo]:
        return [self.info(n) for n in self.names()]

    def latest_unfinished(self) -> SaveInfo | None:
        for info in self.listing():
            if not info.damaged and not info.finished:
                return info
        return None

    # -- managing ------------------------------------------------------------------------
    def delete(self, name: str) -> None:
        path = self.path(name)
        if not path.exists():
            raise SaveError(f"no save named {name!r}")
        lock = Lock(path)
        if lock.held_by_other():
            raise SaveError(f"{name!r} is open in another ono99 ({lock.owner()}); close it there first")
        path.unlink()
        for extra in (path.with_name(path.name + ".bak"),):
            extra.unlink(missing_ok=True)

    def rename(self, old: str, new: str) -> None:
        src, dst = self.path(old), self.path(new)
        if not src.exists():
            raise SaveError(f"no save named {old!r}")
        if dst.exists():
            raise SaveError(f"a save named {check_name(new)!r} already exists; choose another name")
        if Lock(src).held_by_other():
            raise SaveError(f"{old!r} is open in another ono99; close it there first")
        os.replace(src, dst)

    def export(self, name: str, target: Path) -> Path:
        target = Path(target)
        if target.exists():
            raise SaveError(f"{target} already exists; ono99 does not overwrite files (choose a new name)")
        record = self.load(name)
        try:
            write_atomic(target, record.to_toml(), backup=False)
        except OSError as exc:
            raise SaveError(f"cannot write {target}: {exc.strerror or exc}") from None
        return target

    def import_file(self, source: Path) -> str:
        source = Path(source)
        try:
            record = Record.load(source)
            record.replay(record_events=False)
        except RecordError as exc:
            raise SaveError(_with_source(exc, source)) from None
        try:
            wanted = check_name(str(record.meta.get("name") or source.stem))
        except SaveError:
            wanted = "imported"
        name, k = wanted, 2
        while self.path(name).exists():
            name, k = f"{wanted[: MAX_NAME - 4]} {k}", k + 1
        self.write(name, record)
        return name


def _with_source(exc: Exception, path: Path) -> str:
    text = str(exc)
    return text if text.startswith(str(path)) else f"{path}: {text}"


class Lock:
    """NAME.toml.lock holding "pid@host"; a lock whose process is gone is stale and taken over."""

    def __init__(self, save_path: Path):
        self.path = Path(save_path).with_name(Path(save_path).name + ".lock")
        self.mine = False

    def owner(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8").strip() or "unknown"
        except OSError:
            return "unknown"

    def held_by_other(self) -> bool:
        if self.mine or not self.path.exists():
            return False
        pid_s, _, host = self.owner().partition("@")
        if host == socket.gethostname() and pid_s.isdigit():
            try:
                os.kill(int(pid_s), 0)
            except ProcessLookupError:
                return False  # stale: that process is gone
            except PermissionError:
                return True
            return int(pid_s) != os.getpid()
        return True

    def acquire(self) -> bool:
        if self.held_by_other():
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)  # stale or ours
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{os.getpid()}@{socket.gethostname()}\n")
        self.mine = True
        return True

    def release(self) -> None:
        if self.mine:
            self.path.unlink(missing_ok=True)
            self.mine = False
