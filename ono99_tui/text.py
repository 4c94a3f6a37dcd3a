"""Text from files and players, made safe to show on a terminal.

A name, a rules value, a stats key or a file name may hold control characters:
an escape sequence (ESC ] 0 ; ... retitles the window, ESC [ 31 m recolours it,
worse on some terminals) or bidirectional overrides that make text read other
than it is. ``visible`` shows each such character as a ``\\x1b``-style escape,
so the text is seen, never obeyed. Every CLI output and every screen that shows
such text passes it through here. No UI imports: the engine and store use it.
"""

from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls, DEL, bidi embeddings/overrides/isolates, line/paragraph separators, and lone
# surrogates: a file name's bytes that are not UTF-8, as Python reads them (os.fsdecode)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff\ud800-\udfff]")
_UNSAFE_KEEP_LINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff"
                                "\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # the byte it stands for ("\xff", not "\udcff")
        code -= 0xDC00
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shell_word(text: str) -> str:
    """``text`` (a path) as one word a POSIX shell reads back as exactly that name: quoted as
    shlex does, or, when it holds control characters or bytes that are not UTF-8, as bash's
    $'...' with those written as \\xNN (a command to copy: shlex's quotes would carry a raw
    newline or escape, or a "\\udcff" naming no file)."""
    import os
    import shlex

    if not _UNSAFE.search(text):
        return shlex.quote(text)
    out = []
    for ch in text:
        if ch in "\\'":
            out.append("\\" + ch)
        elif _UNSAFE.match(ch):
            out.extend(f"\\x{b:02x}" for b in os.fsencode(ch))
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def counted(n: int, noun: str) -> str:
    """"1 round", "3 rounds": a count and its noun (a regular plural), as a message says it."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def visible(text: object, keep_newlines: bool = False) -> str:
    """``text`` with every control character shown as an escape (newlines kept if asked)."""
    text = str(text)
    pattern = _UNSAFE_KEEP_LINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def shorten(text: object, limit: int = 60) -> str:
    """``visible(text)``, cut to about ``limit`` characters for echoing a value in a message."""
    text = visible(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def quoted(text: object, limit: int = 60) -> str:
    """A value from a file, shown in double quotes, made visible and cut to size."""
    return f'"{shorten(text, limit)}"'


def for_markup(text: object) -> str:
    """Text to put inside a Textual markup string: shown exactly as it is. Every "[" is
    escaped, not only tag-like ones: rich's and Textual's own ``escape`` leave an unclosed
    "[" (a name "[Ana", a value "\\x1b[31m") that swallows the rest of the markup and
    crashes the widget. Control characters are made visible too."""
    return visible(text, keep_newlines=True).replace("[", "\\[")


def sentence(reason: str) -> str:
    """A one-line reason (lower case, no stop, as the table gives it) as a sentence to show."""
    reason = reason.strip()
    if not reason:
        return reason
    return reason[0].upper() + reason[1:] + ("" if reason.endswith((".", "!", "?")) else ".")


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide (East Asian) characters two, combining
    marks and zero-width characters none. A small stand-in for wcwidth, so the UI-free
    packages need neither Rich nor another dependency."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\u2060\ufeff" or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def fit(text: str, width: int) -> str:
    """``text`` padded with spaces (or cut, ending in "~") to exactly ``width`` columns."""
    if display_width(text) > width:
        out, used = [], 0
        for ch in text:
            w = display_width(ch)
            if used + w > width - 1:
                break
            out.append(ch)
            used += w
        text = "".join(out) + "~"
    return text + " " * (width - display_width(text))


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns (display width: a wide character takes two),
    broken at spaces; a word wider than a line is cut. Lines after the first start with ``indent``."""
    lines: list[str] = []
    line, used = "", 0
    for word in text.split(" "):
        w = display_width(word)
        gap = 1 if line.strip() else 0
        if line.strip() and used + gap + w > width:
            lines.append(line)
            line, used, gap = indent, display_width(indent), 0
        if used + gap + w <= width:
            line += " " * gap + word
            used += gap + w
            continue
        for ch in word:  # a word wider than a whole line
            cw = display_width(ch)
            if used + cw > width and line.strip():
                lines.append(line)
                line, used = indent, display_width(indent)
            line += ch
            used += cw
    if line.strip() or not lines:
        lines.append(line)
    return lines


def same_name(name: str) -> str:
    """The form two names are compared in: NFC, so "Zoë" typed either way is one player."""
    return unicodedata.normalize("NFC", name)


# Cyrillic and Greek letters drawn like Latin ones (as casefold leaves them: an upper-case
# Cyrillic "В" folds to "в" and is drawn like "B"), and the dotless i. Not Unicode's whole
# confusables table: the look-alikes of the letters names are written in, so a stranger cannot
# sit as a Cyrillic "Аnn" beside Ann.
_LOOK_ALIKE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "һ": "h", "ӏ": "l", "ү": "y", "α": "a", "β": "b", "ε": "e", "ζ": "z", "η": "h", "ι": "i",
    "κ": "k", "μ": "m", "ν": "n", "ο": "o", "ρ": "p", "τ": "t", "υ": "y", "χ": "x", "ı": "i",
})


def alike(name: str) -> str:
    """The form in which names at one network table must differ: case, Unicode compatibility
    forms and look-alike letters aside ("ann" beside "Ann", a full-width "Ａnn", or "Аnn" with a
    Cyrillic "А": read as one person by everyone else)."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_LOOK_ALIKE)


def _cut(text: str, width: int, tail: int) -> str:
    """``text`` in ``width`` columns: its start, "~", and its last ``tail`` characters."""
    end = text[len(text) - tail:] if tail else ""
    room = width - 1 - display_width(end)
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out) + "~" + end


def short_names(names, width: int) -> list[str]:
    """Each name in at most ``width`` columns (display width), and told apart: names cut to
    fit that would then look the same (eight 24-character names differing only at the end)
    keep as much of their ends as it takes to differ ("Player from the n~1", "...~2")."""
    names = [visible(n) for n in names]
    if all(display_width(n) <= width for n in names):
        return names
    distinct = len(set(names))
    for tail in range(0, max(1, width - 1)):
        shown = [n if display_width(n) <= width else _cut(n, width, tail) for n in names]
        if len(set(shown)) == distinct:
            return shown
    # Names alike at both ends, differing only in the middle ("Player number 1 of table" and
    # "... 2 ...": both "P~f table" on the scoreboard): those still alike show, after their
    # first character, the part from where they differ on ("P~1 of t~", "P~2 of t~").
    shown = _apart(names, shown, lambda i, others: _middle(names[i], width, max(
        1, max(_common_prefix(names[i], names[j]) for j in others))))
    # whatever is still alike (it takes odd names in few columns) is numbered: "Pla~1", "Pla~2"
    return _apart(names, shown, lambda i, others: _numbered(names[i], width, i, others))


def _apart(names, shown, mend) -> list[str]:
    """``shown`` with each name that looks like another name there replaced by ``mend(i, others)``
    (``others``: the indices of the different names it looks like)."""
    out = list(shown)
    for i, name in enumerate(names):
        others = [j for j in range(len(names)) if shown[j] == shown[i] and names[j] != name]
        if others:
            out[i] = mend(i, others)
    return out


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _take(text: str, columns: int) -> str:
    """The start of ``text`` that fits in ``columns``."""
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > columns:
            break
        out.append(ch)
        used += w
    return "".join(out)


def _middle(text: str, width: int, start: int) -> str:
    """``text``'s first character, "~", and ``text`` from ``start`` on, in ``width`` columns
    (ending in "~" where it is cut)."""
    head = _take(text, 2)[:1] or text[:1]
    rest = text[start:]
    room = width - display_width(head) - 1
    if display_width(rest) > room:
        rest = _take(rest, room - 1) + "~"
    return head + "~" + rest


def _numbered(text: str, width: int, index: int, others) -> str:
    """``text``'s start, "~" and its place among the names it looks like (1, 2, ...)."""
    number = str(1 + sum(1 for j in others if j < index))
    return _take(text, width - 1 - len(number)) + "~" + number
