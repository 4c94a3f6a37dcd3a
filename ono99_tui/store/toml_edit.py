"""Edit a TOML file a person wrote, line by line: set a few keys, keep everything else.

config.toml and rules presets are the player's files too: they add comments, order keys their
way, keep keys of a later ono99. Rewriting such a file whole from the app's values lost all
that. ``edit_toml`` changes only the lines of the keys it sets (a value replaced in place, its
trailing comment kept) and adds the missing ones where they belong. It gives up (None) rather
than guess when a key is written another way (quoted, dotted, an inline table, a value over
several lines): the caller then writes the file whole, its .bak keeping the old one. The result
is checked: read back, it must be the old document with exactly those keys set.
"""

from __future__ import annotations

import json
import re
import tomllib

_ASSIGN = re.compile(r"(?P<lead>\s*)(?P<key>[A-Za-z0-9_-]+)(?P<eq>\s*=\s*)(?P<rest>.*?)(?P<end>\r?\n?)$", re.S)
_HEADER = re.compile(r"\s*\[\s*(?P<name>[A-Za-z0-9_-]+)\s*\]\s*(#.*)?\r?\n?$", re.S)


def toml_value(value) -> str:
    """A value as TOML spells it (true, not Python's True; strings in double quotes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # (JSON's escapes are TOML's; TOML also wants DEL escaped, which JSON leaves as it is)
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (int, float)):
        return repr(value)
    raise TypeError(f"no TOML spelling here for {type(value).__name__}")


def _split_comment(rest: str):
    """(value, trailing comment with its spaces) of the text after ``key =`` on one line, or None
    when the value does not end on that line."""
    for i in [j for j, ch in enumerate(rest) if ch == "#"] + [len(rest)]:
        try:
            tomllib.loads(f"k = {rest[:i]}")
        except tomllib.TOMLDecodeError:
            continue
        value = rest[:i].rstrip()
        return value, rest[len(value):]
    return None


def _is_note(line: str) -> bool:
    """A blank line or a comment: what stays with the table below it."""
    return not line.strip() or line.lstrip().startswith("#")


def edit_toml(text: str, updates: dict[tuple[str, ...], object]) -> str | None:
    """``text`` with each key path of ``updates`` (``("key",)`` at the top, ``("table", "key")``
    in a table) set to its value, every other line as it was; None when that cannot be done
    safely (see the module's docstring)."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""  # (kept as it was: edits are made after it)
    body = text[len(bom):]
    try:
        doc = tomllib.loads(body)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    # (TOML ends a line at "\n" only: splitlines would also cut at a NEL or a U+2028 in a string)
    lines = [line + "\n" for line in body.split("\n")]
    lines[-1] = lines[-1][:-1]
    if not lines[-1]:
        lines.pop()
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    # sections: (table name or None at the top; "" for a header of another form), first line, end
    starts = [(None, 0)] + [(m["name"] if (m := _HEADER.match(line)) else "", i)
                            for i, line in enumerate(lines) if line.lstrip().startswith("[")]
    sections = [(name, start, starts[k + 1][1] if k + 1 < len(starts) else len(lines))
                for k, (name, start) in enumerate(starts)]
    replaced: dict[int, str] = {}
    added: dict[str | None, list[str]] = {}
    for path, value in updates.items():
        if len(path) > 2:
            return None
        table, key = (None, path[0]) if len(path) == 1 else path
        found = [s for s in sections if s[0] == table]  # (one at most: a table twice is not TOML)
        holder = doc if table is None else doc.get(table, {})
        present = isinstance(holder, dict) and key in holder  # (a table's name on a value: not one)
        at = [i for _, lo, hi in found for i in range(lo + (table is not None), hi)
              if (m := _ASSIGN.match(lines[i])) and m["key"] == key]
        if present:
            if len(at) != 1:
                return None  # (written some other way: quoted, dotted, in an inline table)
            m = _ASSIGN.match(lines[at[0]])
            split = _split_comment(m["rest"])
            if split is None:
                return None
            replaced[at[0]] = f"{m['lead']}{key}{m['eq']}{toml_value(value)}{split[1]}{m['end']}"
        else:  # (a table written another way, dotted keys or inline, fails the check below)
            added.setdefault(table, []).append(f"{key} = {toml_value(value)}{newline}")
    for i, line in replaced.items():
        lines[i] = line
    inserts: dict[int, list[str]] = {}
    for name, lo, hi in sections:
        if name not in added:
            continue
        at = hi
        if hi < len(lines):  # above the blank lines and comments over the next table
            while at > lo and _is_note(lines[at - 1]):  # (never above its header: not a note)
                at -= 1
        inserts[at] = added.pop(name)  # (one section's place: sections do not overlap)
    out: list[str] = []
    for i, line in enumerate(lines + [""]):
        if i in inserts:
            if out and not out[-1].endswith("\n"):
                out[-1] += newline
            out.extend(inserts[i])
        out.append(line)
    for table, new in added.items():  # tables the file does not have yet, at its end
        so_far = "".join(out)
        if so_far and not so_far.endswith("\n"):
            out.append(newline)
        if so_far.strip():
            out.append(newline)  # (a blank line before it)
        out.extend([f"[{table}]{newline}"] + new)
    result = "".join(out)
    expected = doc  # (read for this call alone: set in place)
    for path, value in updates.items():
        node = expected
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                return None  # (an array of tables, a value: not a table to set a key in)
        node[path[-1]] = value
    try:  # checked: the old document with exactly these keys set, nothing else changed
        if tomllib.loads(result) != expected:
            return None
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    return bom + result
