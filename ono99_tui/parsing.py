"""Parsing text ono99 is given -- rules, records, saves, settings, themes -- safely, without
reading any file: the engine parses the text it is handed, store/readfile.py reads the files.

- UTF-8, with a leading byte-order mark accepted and dropped (``decode``);
- TOML nested at most ``MAX_DEPTH`` levels, measured before parsing, because
  deep nesting costs tomllib a RecursionError or quadratic time.

Every refusal is one ``ReadError`` whose message names the source, what it was
meant to be and what is wrong. Standard library only.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

#: Default size limit: far above any real rules, settings, theme or stats file.
LIMIT = 1024 * 1024
#: For game records and saves: a very long points game stays well under this.
RECORD_LIMIT = 8 * 1024 * 1024
#: Deepest TOML nesting accepted (tables, arrays and dotted keys together);
#: ono99's own files never go past 4.
MAX_DEPTH = 32


class ReadError(ValueError):
    """A file that cannot be read as the text it should be: ``str()`` is "SOURCE: REASON".

    ``source`` names the file, ``reason`` says what is wrong and what is allowed;
    ``missing`` is true when the file does not exist, for readers that treat that as
    "nothing saved yet" rather than as an error.
    """

    def __init__(self, source: str | Path, reason: str, missing: bool = False):
        self.source, self.reason, self.missing = str(source), reason, missing
        super().__init__(f"{self.source}: {reason}")


def decode(raw: bytes, source: str, what: str) -> str:
    """UTF-8 text, a leading byte-order mark dropped, or ReadError."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError(source, f"the {what} is not a UTF-8 text file (bad byte at offset {exc.start})") from None


# -- TOML --------------------------------------------------------------------------------

# Where a string or comment starts, or a character that nests (or ends a dotted key run).
_SPECIAL = re.compile(r"\"\"\"|'''|[\"'#\[\]{}.=,\n]")
_STRING_END = {
    '"""': re.compile(r'(?:[^\\]|\\.)*?"""', re.S),
    "'''": re.compile(r".*?'''", re.S),
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"'),
    "'": re.compile(r"[^'\n]*'"),
}
_LINE_END = re.compile(r"[^\n]*")


def toml_depth(text: str) -> int:
    """An upper bound on the nesting of a TOML document: brackets and braces open at a
    point plus the dots of the key (or number) being read there, skipping strings and
    comments. It may overcount by one for a decimal; never undercounts."""
    depth = deepest = dots = 0
    pos, end = 0, len(text)
    while pos < end:
        m = _SPECIAL.search(text, pos)
        if m is None:
            break
        tok, pos = m.group(), m.end()
        if tok in _STRING_END:
            closing = _STRING_END[tok].match(text, pos)
            if closing is None:
                break  # unterminated: tomllib will say where
            pos = closing.end()
        elif tok == "#":
            pos = _LINE_END.match(text, pos).end()
        elif tok in "[{":
            depth += 1
            dots = 0
        elif tok in "]}":
            depth = max(0, depth - 1)
            dots = 0
        elif tok == ".":
            dots += 1
        else:  # = , newline: a new key or value starts
            dots = 0
        deepest = max(deepest, depth + dots + 1)
    return deepest


def parse_toml(text: str, source: str, what: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """A TOML document as a dict, or ReadError (invalid TOML, or nested too deep)."""
    depth = toml_depth(text)
    if depth > max_depth:
        raise ReadError(source, f"the {what} is nested too deeply (about {depth} levels; at most {max_depth})")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ReadError(source, f"the {what} is not valid TOML: {exc}") from None
    except RecursionError:  # belt and braces: toml_depth should have caught it
        raise ReadError(source, f"the {what} is nested too deeply") from None
    except ValueError as exc:  # tomllib lets int()'s own limit through (over 4300 digits)
        raise ReadError(source, f"the {what} is not valid TOML: {exc}"[:200]) from None
