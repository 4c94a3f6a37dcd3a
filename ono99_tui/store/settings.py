"""config.toml: the player's settings. Read leniently, written only when asked.

A broken file never stops the app: every problem is reported (file, line or
key, what is allowed) and defaults are used for what could not be read. The
file is only written when the player saves settings from the app, and then only
the settings that changed, each on its own line: the player's comments, order
and keys ono99 does not know stay as they wrote them. Only a file that cannot
be read, or a line that cannot be edited alone, is rewritten whole (its .bak
keeps the version before).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

import tomllib

import tomli_w

from ..engine.game import NAME_RULE, GameSetupError, normalise_name
from ..text import shorten, visible
from .atomic import write_atomic, write_protected
from .toml_edit import edit_toml, toml_value
from .paths import settings_file
from .readfile import ReadError, parse_toml, read_text


@dataclass(frozen=True)
class Settings:
    theme: str = "ono99-dark"
    ascii: bool = False
    bot_delay: float = 0.6
    player_name: str = "You"
    rules: str = "standard"
    undo: bool = True
    confirm_bust: bool = True
    turn_alert: bool = True


HELP = {
    "theme": "colour theme name (ono99 themes or your own in the themes folder)",
    "ascii": "true to draw with ASCII characters only",
    "bot_delay": "seconds a bot waits before its play, 0 to 5",
    "player_name": f"your name at the table, {NAME_RULE}",
    "rules": "house rules for a new game: a preset name or a rules file",
    "undo": "allow taking back a play when every other seat is a bot",
    "confirm_bust": "true: a card that would lose the round asks for a second press while a safe card exists",
    "turn_alert": "true: at a network table, the bell (and a desktop notification where the terminal shows one) "
                  "when your turn comes",
}


def _check(key: str, value):
    """The value if it is allowed for ``key``, else a ValueError saying what is allowed."""
    if key in ("ascii", "undo", "confirm_bust", "turn_alert"):
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, got {shorten(repr(value))}")
    elif key == "bot_delay":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 5:
            raise ValueError(f"must be a number of seconds from 0 to 5, got {shorten(repr(value))}")
        value = float(value)
    elif key == "player_name":
        try:
            # the one place names are normalised; NFC, so "Zoë" typed either way is one name
            value = unicodedata.normalize("NFC", normalise_name(value))
        except GameSetupError as exc:
            raise ValueError(f"{exc} ({NAME_RULE})") from None
    elif not isinstance(value, str) or not value.strip():
        raise ValueError(f"must be a non-empty string, got {shorten(repr(value))}")
    return value


BOT_DELAY_ENV = "ONO99_BOT_DELAY"


def bot_delay_from_env(environ) -> float | None:
    """The bots' pause from ONO99_BOT_DELAY (None: not set), checked as the setting is: seconds
    from 0 to 5. A ValueError names the variable and what it allows (a stranger's 99999 was cut
    to 5 s in silence, "nan" and "-5" taken as numbers)."""
    text = environ.get(BOT_DELAY_ENV)
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 5:  # (also false for nan)
        raise ValueError(f"{BOT_DELAY_ENV} must be a number of seconds from 0 to 5, not {shorten(repr(text))}")
    return value


MAX_UNKNOWN = 10  # unknown settings named one by one; the rest are counted


def parse_settings(text: str, source: str) -> tuple[Settings, list[str]]:
    try:
        doc = parse_toml(text.removeprefix("\ufeff"), source, "settings file")
    except ReadError as exc:
        return Settings(), [f"{visible(exc)}; using the default settings"]
    known = {f.name for f in fields(Settings)}
    values, problems, unknown = {}, [], 0
    for key, value in doc.items():
        if key not in known:
            unknown += 1
            if unknown <= MAX_UNKNOWN:
                line = line_of(text, key)
                where = f"{visible(source)}, line {line}" if line else visible(source)
                problems.append(f"{where}: {shorten(key, 40)}: unknown setting{_nearest(key, known)}")
            continue
        line = line_of(text, key)
        where = f"{visible(source)}, line {line}" if line else visible(source)
        try:
            values[key] = _check(key, value)
        except ValueError as exc:
            problems.append(f"{where}: {key}: {exc}; using {_as_toml(getattr(Settings(), key))}")
    if unknown > MAX_UNKNOWN:
        problems.append(f"{visible(source)}: and {unknown - MAX_UNKNOWN:,} more unknown settings")
    return replace(Settings(), **values), problems


def _nearest(key: str, known: set[str]) -> str:
    """A "did you mean" for a misspelt setting (them, Theme), else every setting there is."""
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6) if len(key) <= 40 else []
    return f' (did you mean "{close[0]}"?)' if close else f"; allowed: {', '.join(sorted(known))}"


_as_toml = toml_value  # (a default as the file would spell it: true, not Python's True)


def load_settings(path: Path | None = None) -> tuple[Settings, list[str]]:
    path = path or settings_file()
    try:
        text = read_text(path, "settings file")
    except ReadError as exc:
        return Settings(), [] if exc.missing else [f"{visible(exc)}; using the default settings"]
    return parse_settings(text, str(path))


def to_toml(settings: Settings) -> str:
    header = "# ono99 settings. Written by ono99 when you save settings; you may edit it by hand.\n"
    lines = "".join(f"# {k}: {HELP[k]}\n" for k in HELP)
    return header + lines + "\n" + tomli_w.dumps(asdict(settings))


def save_settings(settings: Settings, path: Path | None = None, changed=None) -> Path:
    """Write ``settings`` to the settings file. ``changed``: the keys the player changed (None:
    every key). An existing file keeps everything else as it is: only keys in ``changed`` whose
    value in the file differs, or that the file sets to a value not allowed (the app was using
    its own there), are written, each in place on its line (a trailing comment kept) or added.
    Nothing to write: the file is not touched. Whole-file rewrite only when that cannot be done.
    A write-protected file (chmod a-w) is never written: OSError saying so."""
    path = path or settings_file()
    if write_protected(path):  # (a rename over it would ignore the mode: kept as it is, on purpose)
        raise OSError(0, "it is write-protected (chmod a-w), so ono99 leaves it as it is; "
                         "chmod u+w it to save settings from ono99")
    try:
        text = read_text(path, "settings file")
    except ReadError:  # missing, or not readable as text: written whole (a damaged one kept as .bak)
        write_atomic(path, to_toml(settings))
        return path
    edited = edit_settings_text(text, settings, changed)
    if edited is None:  # (the file cannot be read as TOML, or a line cannot be edited alone)
        write_atomic(path, to_toml(settings))
    elif edited != text:
        write_atomic(path, edited)
    return path


def edit_settings_text(text: str, settings: Settings, changed=None) -> str | None:
    """``text`` (a settings file) with the settings in ``changed`` (None: all) set as in
    ``settings`` where the file differs, every other line as it was (``toml_edit.edit_toml``);
    None when that cannot be done safely, for a whole rewrite."""
    try:
        doc = tomllib.loads(text.removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    want = {}
    for f in fields(Settings):
        value = getattr(settings, f.name)
        try:
            allowed = f.name in doc and _check(f.name, doc[f.name]) == doc[f.name]
        except ValueError:
            allowed = False
        if f.name in doc and not allowed:
            want[(f.name,)] = value  # not allowed in the file: the app used its own, which is written
        elif (changed is None or f.name in changed) and doc.get(f.name, getattr(Settings(), f.name)) != value:
            want[(f.name,)] = value
    return edit_toml(text, want)  # (nothing wanted: the text as it is)


def follow_preset(old: str, new: str, path: Path | None = None) -> Path | None:
    """The player's preset ``old`` is now ``new`` (renamed; "standard" when it was deleted): a
    settings file whose rules name ``old`` names ``new``, written whole and atomically as Settings
    saves it (they named nothing after a rename, and the next start fell back to standard with
    a warning). Its path, or None when it names other rules (or cannot be read: left as it is)."""
    path = path or settings_file()
    settings, _ = load_settings(path)
    if settings.rules != old:
        return None
    return save_settings(replace(settings, rules=new), path, changed={"rules"})


def line_of(text: str, key: str) -> int | None:
    """The line a top-level key is set on (key = ..., or a table [key]), for messages."""
    for i, line in enumerate(text.splitlines(), start=1):
        if re.match(rf"\s*(?:{re.escape(key)}\s*=|\[\s*{re.escape(key)}\s*\])", line):
            return i
    return None
