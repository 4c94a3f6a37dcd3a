"""Themes from TOML files: the shipped ones (ono99_tui.themes) and the user's own.

Textual has no theme file format, so this reads one: a name, a description,
dark or light, [colors] for the Theme's colour slots and optional [variables].
A broken file is reported (file, key, problem) and skipped; it never stops the
app, and the shipped default is always there to fall back on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.css.stylesheet import Stylesheet
from textual.theme import Theme

from ..store.atomic import is_link
from ..store.files import IS_A_LINK, link_in_the_way
from ..store.paths import user_themes_dir
from ..store.readfile import ReadError, parse_toml, read_text
from ..text import quoted, shorten, visible

DEFAULT_THEME = "ono99-dark"
COLOR_KEYS = ("primary", "secondary", "accent", "warning", "error", "success", "foreground",
              "background", "surface", "panel", "boost")
TOP_KEYS = ("name", "description", "dark", "ansi", "colors", "variables")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
VARIABLE = re.compile(r"^[a-z][a-z0-9-]{0,59}$")
# A variable's value is pasted into the app's CSS: no ; { } $ or newlines that could end
# the declaration and start another, and it must parse where Textual uses it.
VALUE = re.compile(r"^[A-Za-z0-9#%.,() _-]{1,80}$")


class ThemeError(ValueError):
    """What is wrong with a theme file; ``theme_name``: the name the file gives its theme, when
    it got as far as one (a file may hold any name: c.toml may say name = "badc")."""

    theme_name: str | None = None


class Skipped(str):
    """A theme file that was skipped: why (the text), and ``names``, what it may have been asked
    for by (its file name, and the name in it), so a --theme of either is told why it is not there."""

    names: frozenset[str] = frozenset()
    stem: str = ""  # its file's name without .toml


def _skipped(why: str, path: Path, name: str | None = None) -> Skipped:
    problem = Skipped(why)
    problem.names = frozenset(n for n in (path.stem, name) if n)
    problem.stem = path.stem
    return problem


SKIPPED_SHOWN = 2  # start notices are toasts, of which about three fit at 80x24
NAMED_AT_MOST = 8  # files named in the one notice for many (a toast of a few lines)


def skipped_notices(problems: list[str]) -> list[str]:
    """The start notices for the theme files skipped: each in full when there are few, else one
    naming them all (six in full pushed the rest off an 80x24 screen), with how to see why."""
    if len(problems) <= SKIPPED_SHOWN:
        return [f"Theme skipped: {p}" for p in problems]
    stems = [getattr(p, "stem", "") for p in problems]
    if not all(stems):  # (a folder that cannot be read is one problem alone: never here)
        return [f"Theme skipped: {p}" for p in problems]
    named = ", ".join(shorten(s, 30) for s in stems[:NAMED_AT_MOST])
    more = f" and {len(stems) - NAMED_AT_MOST} more" if len(stems) > NAMED_AT_MOST else ""
    return [f"{len(problems)} theme files skipped: {named}{more}. ono99 --theme NAME says what is wrong with one."]


@dataclass(frozen=True)
class ThemeFile:
    theme: Theme
    description: str
    source: str  # "shipped" or the user's file path


def _color(value, where: str) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{where}: must be a colour in quotes, like \"#3FA66B\" or \"ansi_blue\"")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{where}: {shorten(repr(value), 40)} is not a colour (use \"#rrggbb\", a colour name or \"ansi_*\")") from None
    return value


def _parses(prop: str, value: str) -> bool:
    sheet = Stylesheet()
    sheet.add_source(f"Widget {{ {prop}: {value}; }}", read_from=("theme", ""))
    try:
        sheet.parse()
    except Exception:  # noqa: BLE001 - any parse failure means the value is no good here
        return False
    return True


def _variable(key, value, source: str) -> str:
    where = f"{source}: variables.{visible(key)[:60]}"
    if not isinstance(key, str) or not VARIABLE.match(key):
        raise ThemeError(f"{where}: a variable name is lower-case letters, digits and dashes")
    if not isinstance(value, str):
        raise ThemeError(f"{where}: must be a string")
    # text styles ("bold", "b reverse") for *-style variables, colours ("#3FA66B", "auto 87%") otherwise
    prop = "text-style" if key.endswith("style") else "color"
    if not VALUE.match(value) or not _parses(prop, value):
        kind = 'a text style such as "bold"' if prop == "text-style" else 'a colour such as "#3FA66B" or "auto 87%"'
        raise ThemeError(f"{where}: {quoted(value, 40)} is not {kind}")
    return value


def parse_theme(text: str, source: str) -> ThemeFile:
    source = visible(source)
    try:
        doc = parse_toml(text.removeprefix("\ufeff"), source, "theme")
    except ReadError as exc:
        raise ThemeError(visible(exc)) from None
    try:
        return _theme_file(doc, source)
    except ThemeError as exc:
        name = doc.get("name")
        exc.theme_name = name if isinstance(name, str) else None
        raise


def _theme_file(doc: dict, source: str) -> ThemeFile:
    unknown = sorted(set(doc) - set(TOP_KEYS))
    if unknown:
        raise ThemeError(f"{source}: unknown key {shorten(repr(unknown[0]), 40)} (allowed: {', '.join(TOP_KEYS)})")
    name = doc.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ThemeError(f"{source}: name: must be 1-40 lower-case letters, digits and dashes, got {visible(repr(name))[:60]}")
    for flag in ("dark", "ansi"):
        if flag in doc and not isinstance(doc[flag], bool):
            raise ThemeError(f"{source}: {flag}: must be true or false, got {visible(repr(doc[flag]))[:60]}")
    colors = doc.get("colors")
    if not isinstance(colors, dict) or "primary" not in colors:
        raise ThemeError(f"{source}: [colors] with at least primary = \"#rrggbb\" is required")
    bad = sorted(set(colors) - set(COLOR_KEYS))
    if bad:
        raise ThemeError(f"{source}: colors.{visible(bad[0])[:40]}: unknown colour slot (allowed: {', '.join(COLOR_KEYS)})")
    slots = {k: _color(v, f"{source}: colors.{k}") for k, v in colors.items()}
    variables = doc.get("variables", {})
    if not isinstance(variables, dict):
        raise ThemeError(f"{source}: [variables] must be a table of name = \"colour\"")
    variables = {key: _variable(key, value, source) for key, value in variables.items()}
    theme = Theme(name=name, dark=doc.get("dark", True), ansi=doc.get("ansi", False),
                  variables=dict(variables), **slots)
    try:
        theme.to_color_system().generate()
    except Exception as exc:  # noqa: BLE001 - any failure here is the file's fault; report it
        raise ThemeError(f"{source}: the colours do not make a theme: {exc}") from None
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise ThemeError(f"{source}: description: must be a string")
    return ThemeFile(theme, description or name, source)


def shipped_themes() -> dict[str, ThemeFile]:
    found = {}
    for entry in sorted(resources.files("ono99_tui.themes").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            tf = parse_theme(entry.read_text(encoding="utf-8"), f"shipped theme {entry.name}")
            found[tf.theme.name] = ThemeFile(tf.theme, tf.description, "shipped")
    return found


def load_themes(user_dir: Path | None = None) -> tuple[dict[str, ThemeFile], list[str]]:
    """Every theme, shipped first, and a message for each user file that was skipped (a Skipped,
    naming the names it may have been asked for by) or for the folder that could not be read."""
    themes = shipped_themes()
    problems: list[str] = []
    folder = user_dir if user_dir is not None else user_themes_dir()
    try:
        files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
    except OSError as exc:
        return themes, [f"{visible(folder)}: cannot list themes: {exc.strerror}"]
    if files and (link := link_in_the_way(files[0])) is not None and link != files[0]:
        return themes, [f"{visible(link)}: {IS_A_LINK}"]  # the themes folder itself: none read through it
    for path in files:
        if is_link(path):  # (inside its folders ono99 follows no link, as with presets and saves)
            problems.append(_skipped(f"{visible(path)}: {IS_A_LINK}", path))
            continue
        try:
            tf = parse_theme(read_text(path, "theme"), str(path))
        except ReadError as exc:
            problems.append(_skipped(visible(exc), path))
            continue
        except ThemeError as exc:
            problems.append(_skipped(str(exc), path, exc.theme_name))
            continue
        if tf.theme.name in themes and themes[tf.theme.name].source == "shipped":
            problems.append(_skipped(f"{visible(path)}: name: {tf.theme.name!r} is a shipped theme; give yours another name",
                                     path, tf.theme.name))
            continue
        if tf.theme.name in themes:  # (two files of one name: the later one won, and nothing was said)
            first = Path(themes[tf.theme.name].source).name
            problems.append(_skipped(f"{visible(path)}: name: {tf.theme.name!r} is the name of your theme in "
                                     f"{visible(first)} too; give this one another name", path, tf.theme.name))
            continue
        themes[tf.theme.name] = tf
    return themes, problems
