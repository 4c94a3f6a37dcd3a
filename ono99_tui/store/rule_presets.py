"""Rules presets: the shipped ones (read-only) and the player's own TOML files.

The player's presets live in the rules folder of the config directory, one
file each. A preset made in the app holds only the keys that differ from the
defaults under a header comment saying what it is; one saved again keeps its
own lines (a player's comments and order), only the changed keys set in place.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..engine.rules import KEYS, Rules, RulesError
from . import presets as shipped
from .files import IS_A_LINK, link_in_the_way, load_preset_file
from .atomic import is_link, write_atomic, write_protected
from .readfile import ReadError, read_text
from .toml_edit import edit_toml
from .paths import user_rules_dir
from .saves import SaveError, check_name


@dataclass(frozen=True)
class Preset:
    name: str
    mine: bool  # the player's own (editable); False for shipped
    description: str
    path: Path | None = None


def _description(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    return first.lstrip("# ").strip() if first.startswith("#") else ""


def user_presets(folder: Path | None = None) -> list[Preset]:
    folder = folder or user_rules_dir()
    try:
        files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
    except OSError:
        return []
    found = []
    for path in files:
        if path.stem in shipped.preset_names() or path.name.startswith("."):
            continue
        try:  # (safe: a FIFO or /dev/zero here never hangs the list; a link is not read)
            text = "" if link_in_the_way(path) else read_text(path, "rules file")
        except ReadError:
            text = ""
        found.append(Preset(path.stem, True, _description(text) or "your preset", path))
    return found


def all_presets(folder: Path | None = None) -> list[Preset]:
    ours = [Preset(n, False, shipped.preset_description(n)) for n in shipped.preset_names()]
    return ours + user_presets(folder)


def resolve(spec: str | None) -> tuple[Rules, str]:
    return shipped.resolve_rules(spec, user_rules_dir())


def load(preset: Preset) -> Rules:
    if preset.mine:
        return load_preset_file(preset.path)
    return shipped.load_preset(preset.name)


def check_preset_name(name: str) -> str:
    try:
        name = check_name(name)
    except SaveError as exc:
        raise ValueError(str(exc).replace("save", "preset")) from None
    shipped_as = next((n for n in shipped.preset_names() if n.casefold() == name.casefold()), None)
    if shipped_as is not None:  # ("Points" beside the shipped "points": two presets one name apart by case)
        raise ValueError(f"{name!r} is the shipped preset {shipped_as!r}; choose another name")
    return name


def _misnamed(stem: str) -> bool:
    """Whether a file name (without .toml) in the rules folder is not the file of any preset name
    ("[bold]x", "Points" beside the shipped "points", a name that is not UTF-8): such a preset is
    listed as the player's own, and can be played, saved, renamed and deleted by that name, as a
    save's misnamed file can. Path tricks are never "misnamed"."""
    if not stem or "/" in stem or "\\" in stem or stem.startswith(".") or "\0" in stem:
        return False
    try:
        return check_preset_name(stem) != stem
    except ValueError:
        return True


def _file_of(folder: Path, name: str) -> Path:
    """The file of the player's preset ``name``: NAME.toml for a preset name, or, for a file
    already in the folder whose name is none (``_misnamed``), that file; else the ValueError
    saying what a preset name may be."""
    raw = folder / f"{name}.toml"
    if _misnamed(name) and os.path.lexists(raw):
        return raw
    return folder / f"{check_preset_name(name)}.toml"


def _named_alike(folder: Path, name: str, but: str | None = None) -> str | None:
    """A preset of the user's whose name is ``name`` but for case ("Mine" beside "mine"), other
    than ``but``: on a disk that ignores case (macOS, Windows) the two are one file, and saving
    one would overwrite the other."""
    try:
        names = [p.stem for p in folder.glob("*.toml")]
    except OSError:
        return None
    return next((n for n in names if n.casefold() == name.casefold() and n != name and n != but), None)


def save_preset(name: str, rules: Rules, description: str = "", folder: Path | None = None,
                overwrite: bool = False) -> Path:
    folder = folder or user_rules_dir()
    # (saved in place, a preset of the player's whose file name is no preset name: it is theirs)
    path = _file_of(folder, name) if overwrite else folder / f"{check_preset_name(name)}.toml"
    name = path.name[: -len(".toml")]
    if path.exists() and not overwrite:
        raise ValueError(f"a preset named {name!r} already exists")
    if write_protected(path):  # (a rename over it would ignore the mode: kept as it is, on purpose)
        raise OSError(0, "it is write-protected (chmod a-w), so ono99 leaves it as it is; "
                         "chmod u+w it to save it from ono99, or use Save as")
    if not _misnamed(name) and (alike := _named_alike(folder, name)) is not None:
        raise ValueError(f"a preset named {alike!r} already exists; names that differ only in case are one "
                         "file on some disks: choose another name")
    if overwrite and (edited := _edited_in_place(path, rules)) is not None:
        if edited[1] != edited[0]:  # (nothing changed: the file is not touched)
            write_atomic(path, edited[1])
        return path
    body = rules.to_toml(only_changed=True)
    head = f"# {description or 'House rules: ' + name}\n# ono99 rules preset; only the keys that differ from the standard rules.\n"
    write_atomic(path, head + ("\n" + body if body.strip() else "# (the standard rules)\n"))
    return path


def _edited_in_place(path: Path, rules: Rules) -> tuple[str, str] | None:
    """(the preset's text, that text with the keys whose values change set in place): its
    comments, order and layout kept (store/toml_edit.py); None when it cannot be read or edited
    so, for a whole rewrite (its .bak keeps the old one)."""
    try:
        text = read_text(path, "rules file")
        doc = tomllib.loads(text.removeprefix("\ufeff"))
    except (ReadError, tomllib.TOMLDecodeError, ValueError):
        return None
    updates = {}
    for spec in KEYS:
        parts = tuple(spec.path.split("."))
        node = doc
        for part in parts:
            node = node.get(part, _ABSENT) if isinstance(node, dict) else _ABSENT
        value = getattr(rules, spec.field)
        if (spec.default if node is _ABSENT else node) != value:
            updates[parts] = value
    edited = edit_toml(text, updates) if updates else text
    return None if edited is None else (text, edited)


_ABSENT = object()


def _refuse_link(path: Path) -> None:
    """ValueError naming the link: a preset (or the rules folder) that is a link is never
    deleted or renamed through (its target could be any file of the user's)."""
    if (link := link_in_the_way(path)) is not None:
        raise ValueError(f"{link} {IS_A_LINK}")


def delete_preset(name: str, folder: Path | None = None) -> None:
    path = _file_of(folder or user_rules_dir(), name)
    _refuse_link(path)
    if not path.exists():
        raise ValueError(f"no preset of yours named {name!r}")
    path.unlink()
    if (bak := _backup_of(path)) is not None:  # (the player asked for it gone, backup and all)
        bak.unlink(missing_ok=True)


def rename_preset(old: str, new: str, folder: Path | None = None) -> None:
    folder = folder or user_rules_dir()
    src, dst = _file_of(folder, old), folder / f"{check_preset_name(new)}.toml"
    _refuse_link(src)
    if not src.exists():
        raise ValueError(f"no preset of yours named {old!r}")
    if dst.exists() and not (src.name != dst.name and src.samefile(dst)):  # (but "mine" to "Mine" where case is ignored)
        raise ValueError(f"a preset named {new!r} already exists")
    if (alike := _named_alike(folder, check_preset_name(new), but=src.name[: -len(".toml")])) is not None:
        raise ValueError(f"a preset named {alike!r} already exists; names that differ only in case are one "
                         "file on some disks: choose another name")
    os.replace(src, dst)
    _carry_backup(src, dst)
    _follow_name(dst, old, new)


def _backup_of(path: Path) -> Path | None:
    """NAME.toml.bak, the version before the last save (store/atomic.py), if it is a plain file."""
    bak = path.with_name(path.name + ".bak")
    return bak if bak.is_file() and not bak.is_symlink() else None


def _carry_backup(src: Path, dst: Path) -> None:
    """A renamed preset's backup goes with it: left under the old name, it was a file nothing in
    ono99 shows, and the old name's next save would have replaced it."""
    bak, new = _backup_of(src), dst.with_name(dst.name + ".bak")
    if bak is not None and not os.path.lexists(new):
        try:
            os.replace(bak, new)
        except OSError:
            pass


def _follow_name(path: Path, old: str, new: str) -> None:
    """The description ono99 wrote for a preset ("House rules: OLD", "House rules: OLD (from
    standard)") follows its new name; one the player typed is theirs and stays. Only the first
    line is changed; if the file cannot be read or written now, the preset is renamed all the same."""
    try:
        text = read_text(path, "rules file")
    except ReadError:
        return
    first, sep, rest = text.partition("\n")
    made = f"# House rules: {old}"
    if first != made and not (first.startswith(made + " (from ") and first.endswith(")")):
        return
    try:  # (no .bak: the file was only renamed, nothing of the player's is replaced)
        write_atomic(path, f"# House rules: {new}{first[len(made):]}{sep}{rest}", backup=False)
    except (OSError, ValueError):
        pass


__all__ = ["Preset", "RulesError", "all_presets", "delete_preset", "load", "rename_preset", "resolve",
           "save_preset", "user_presets"]
