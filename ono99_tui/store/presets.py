"""Rules presets shipped inside the package (ono99_tui/presets/*.toml), read from there; and
resolving a rules spec (a preset name or a file). Moved out of the engine, which reads no disk."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from ..engine.rules import Problem, Rules, RulesError, load_rules_text
from .files import load_preset_file, load_rules_file

_PACKAGE = "ono99_tui.presets"


def _files() -> dict[str, object]:
    root = resources.files(_PACKAGE)
    return {p.name[:-5]: p for p in root.iterdir() if p.name.endswith(".toml")}


def preset_names() -> list[str]:
    names = sorted(_files())
    names.remove("standard")
    return ["standard", *names]  # the default first


def preset_text(name: str) -> str:
    return _files()[name].read_text(encoding="utf-8")


def preset_description(name: str) -> str:
    lines = preset_text(name).splitlines()
    return lines[0].lstrip("# ").strip() if lines else ""


def load_preset(name: str) -> Rules:
    return load_rules_text(preset_text(name), f"preset {name}")


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file, False where it cannot be looked at: a name too long for the
    file system (`ono99 rules show` of 300 letters ended in a traceback: File name too long)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _typed_path(spec: str) -> Path:
    """A rules file's path as typed: a leading ~ is the home folder (typed at New game's "or file",
    in --plain's question, or quoted on a command line: "~/house.toml" was "no such file")."""
    return Path(os.path.expanduser(spec)) if spec.startswith("~") else Path(spec)


def lasting_spec(spec: str, user_dir: Path | None = None) -> str:
    """``spec`` as it resolves the same from any folder later: a preset name as it is, a rules
    file as an absolute path (a relative one names a file in the folder ono99 runs in now)."""
    if not spec or spec in _files():
        return spec
    if user_dir is not None and "/" not in spec and _is_file(Path(user_dir) / f"{spec}.toml"):
        return spec
    return os.path.abspath(_typed_path(spec))


def resolve_rules(spec: str | None, user_dir: Path | None = None) -> tuple[Rules, str]:
    """Rules from a preset name (shipped, or the player's own in ``user_dir``) or a TOML file
    path; returns (rules, label)."""
    if spec is None or spec == "":
        return load_preset("standard"), "standard"
    if spec in _files():
        return load_preset(spec), spec
    if user_dir is not None and "/" not in spec and _is_file(Path(user_dir) / f"{spec}.toml"):
        return load_preset_file(Path(user_dir) / f"{spec}.toml"), spec
    path = _typed_path(spec)
    if "\0" not in spec and (path.suffix == ".toml" or _exists(path) or "/" in spec):  # (a NUL pasted: no file)
        return load_rules_file(path), str(path)
    raise RulesError(
        [Problem("", "", f"no preset or file named {spec!r} (presets: {', '.join(preset_names())}"
                 + (", and yours in " + str(user_dir) if user_dir is not None else "") + ")")]
    )
