"""Rules files and game records read from disk: the engine parses text (engine/rules.py,
engine/record.py) and reads no file; reading one safely (store/readfile.py: regular files
only, size-limited) is done here."""

from __future__ import annotations

from pathlib import Path

from typing import TYPE_CHECKING

from ..engine.rules import Problem, Rules, RulesError, load_rules_text
from ..text import visible
from .readfile import RECORD_LIMIT, ReadError, read_text

if TYPE_CHECKING:
    from ..engine.record import Record


def load_rules_file(path: str | Path) -> Rules:
    """Rules from a file, or RulesError naming the file and what is wrong."""
    try:
        text = read_text(path, "rules file")
    except ReadError as exc:
        raise RulesError([Problem(exc.where, "", exc.reason)]) from None
    return load_rules_text(text, str(path))


# a preset or theme in the config folder that is a link: said, never read
IS_A_LINK = ("is a link; ono99 follows no link inside its config folder: put the file itself there, "
             "or link the whole config folder")


def link_in_the_way(path: str | Path) -> Path | None:
    """The link ``path`` would be reached through inside the config or data folder: the file
    itself, or a folder such as rules/ or themes/ that is a link; None when there is none."""
    from .atomic import is_link, linked_folder

    return Path(path) if is_link(path) else linked_folder(path)


def load_preset_file(path: str | Path) -> Rules:
    """One of the player's presets, in the config folder's rules/: never read through a link
    there (the file, or the rules folder; inside its folders ono99 follows no link), a
    message naming it instead."""
    if (link := link_in_the_way(path)) is not None:
        raise RulesError([Problem(str(link), "", IS_A_LINK)])
    return load_rules_file(path)


def load_record(path: str | Path) -> Record:
    """A game record from a file, or RecordError naming the file and what is wrong."""
    # imported here: the rules presets load this module before the main menu's first frame,
    # and the record's module (with its writers and hashes) is not needed until a record is read
    from ..engine.record import Record, RecordError

    try:
        text = read_text(path, "record", RECORD_LIMIT)
    except ReadError as exc:
        raise RecordError(visible(exc)) from None
    return Record.loads(text, str(path))
