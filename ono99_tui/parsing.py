"""Parsing text ono99 is given -- rules, records, saves, settings, themes -- safely, without
reading any file: the engine parses the text it is handed, store/readfile.py reads the files.

- UTF-8, with a leading byte-order mark accepted and dropped (``decode``);
- TOML nested at most ``MAX_DEPTH`` levels, measured before parsing, because
  deep nesting costs tomllib a RecursionError or quadratic time.

Every refusal is one ``ReadError`` whose message names the source, what it was
meant to be and what is wrong. Standard library only.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

from .text import shorten

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
    ``line`` is where in the file, when known (then ``str()`` is "SOURCE, line N: REASON",
    as ``where`` is "SOURCE, line N"); ``missing`` is true when the file does not exist,
    for readers that treat that as "nothing saved yet" rather than as an error.
    """

    def __init__(self, source: str | Path, reason: str, missing: bool = False, line: int | None = None):
        self.source, self.reason, self.missing, self.line = str(source), reason, missing, line
        super().__init__(f"{self.where}: {reason}")

    @property
    def where(self) -> str:
        return f"{self.source}, line {self.line}" if self.line else self.source


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
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, detail = _toml_problem(text, str(exc))
        raise ReadError(source, f"the {what} is not valid TOML: {detail}", line=line) from None
    except RecursionError:  # belt and braces: toml_depth should have caught it
        raise ReadError(source, f"the {what} is nested too deeply") from None
    except ValueError:  # tomllib lets int()'s own limit through (over 4300 digits), in Python's words
        raise ReadError(source, f"the {what} holds {TOO_BIG}") from None
    if _has_huge_int(doc):
        raise ReadError(source, f"the {what} holds {TOO_BIG}")
    return doc


MOST_BITS = 128  # no ono99 file holds a bigger number (seeds are below 2**63)
TOO_BIG = f"a number too big for any ono99 file (more than {len(str(2 ** MOST_BITS)) - 1} digits)"


def _has_huge_int(value) -> bool:
    """Whether a number past MOST_BITS is in ``value``: a hexadecimal one of thousands of digits
    (0xfff...: int()'s digit limit is for decimal only) was read, then shown in a message, and
    Python's decimal conversion raised ValueError: a traceback from `ono99 rules check`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() > MOST_BITS
    if isinstance(value, dict):
        return any(_has_huge_int(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_huge_int(v) for v in value)
    return False


# -- tomllib's messages, said for a person -----------------------------------------------

_AT = re.compile(r"^(?P<msg>.*) \(at (?:line (?P<line>\d+), column (?P<col>\d+)|end of document)\)$", re.S)
_DECLARED = re.compile(r"^Cannot declare (?P<key>\(.*\)) twice$", re.S)
_HEADER = re.compile(r"^\s*\[\[?(?P<key>[^\[\]]+)\]\]?\s*(?:#.*)?$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*$")
_KEY_LINE = re.compile(r"^\s*(?P<key>[^\s#\[=][^=]*?)\s*=")


def _toml_problem(text: str, message: str) -> tuple[int | None, str]:
    """(line, what is wrong) for tomllib's ``message``: the line moves to the front, as
    every ono99 message puts it, and the two mistakes people make by hand -- a [table]
    declared twice, a key given twice -- are said in words, not as tomllib's tuples."""
    m = _AT.match(message)
    if m is None:
        return None, message
    msg, line = m["msg"], int(m["line"]) if m["line"] else None
    if line is None and msg == "Cannot overwrite a value":
        line = len(text.rstrip().split("\n")) if text.strip() else None  # the last statement, which ended the file
    try:
        said = _said(text, msg, line)
    except Exception:  # noqa: BLE001 -- a guess gone wrong must never hide the error itself
        said = None
    if said:
        return line, said
    where = f" (column {m['col']})" if m["col"] else (" (at the end of the file)" if line is None else "")
    return line, msg + where


def _key_parts(key: str) -> tuple[str, ...] | None:
    """A TOML key as written (a.b, "a b".c) as its parts, or None if it is not a key."""
    if _BARE_KEY.match(key):  # most keys: no parse (a 1 MB file has many lines to look at)
        return tuple(part.strip() for part in key.split("."))
    try:
        node: Any = tomllib.loads(f"{key} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        name, node = next(iter(node.items()))
        parts.append(name)
    return tuple(parts) if node == 0 else None


def _statements(lines: list[str]):
    """(line number, "table" or "key", full key parts) of each statement, by a look at each
    line: enough to find the first of two, not a parser (a multi-line string can fool it)."""
    table: tuple[str, ...] = ()
    for number, text in enumerate(lines, start=1):
        header = _HEADER.match(text)
        if header and (parts := _key_parts(header["key"].strip())):
            table = parts
            yield number, "table", parts
            continue
        key = _KEY_LINE.match(text)
        if key and (parts := _key_parts(key["key"])):
            yield number, "key", table + parts


def _said(text: str, msg: str, line: int | None) -> str | None:
    if line is None:
        return None
    found = list(_statements(text.split("\n")[:line]))  # tomllib counts "\n" only
    earlier = found[:-1]
    declared = _DECLARED.match(msg)
    if declared:
        parts = tuple(ast.literal_eval(declared["key"]))
        name = shorten(".".join(parts), 40)
        first = next((n for n, kind, p in earlier if kind == "table" and p == parts), None)
        if first:
            return f"[{name}] appears twice (first on line {first}); merge its keys into one [{name}] table"
        # made already by a dotted key (deck.ten = 1) or an inline table (deck = {...})
        first = next((n for n, kind, p in earlier if kind == "key" and p[: len(parts)] == parts), None)
        on = f"on line {first}" if first else "above"
        return f"[{name}] is declared, but {name} was already set {on}; set its keys in one place"
    if msg == "Cannot overwrite a value" and found:
        number, kind, parts = found[-1]
        name = shorten(".".join(parts), 40)
        if kind == "table":  # [deck] after deck = 5
            first = next((n for n, k, p in earlier if k == "key" and parts[: len(p)] == p), None)
            on = f"on line {first}" if first else "above"
            return f"[{name}] is declared, but a value was already set there {on}; keep one of them"
        first = next((n for n, k, p in earlier if k == "key" and p == parts), None)
        if first:
            return f"{name} is given twice (first on line {first}); keep one"
        # deck.ten.x = 2 after deck.ten = 1: a key under a value
        under = next(((n, p) for n, k, p in earlier if k == "key" and parts[: len(p)] == p), None)
        if under:
            return f"{name} cannot be set: {shorten('.'.join(under[1]), 40)} is a value (line {under[0]}), not a table"
        return f"{name} is already set above; set it once"
    return None
