"""Characters used on screen, with ASCII stand-ins for `--ascii`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Glyphs:
    left: str
    right: str
    turn: str
    dealer: str
    token: str
    life: str
    arrow: str
    dash: str
    out: str
    icon: str


UNICODE = Glyphs(left="↻ left", right="↺ right", turn="▶", dealer="(D)", token="●", life="○",
                 arrow="→", dash="—", out="✗", icon="⭘")
ASCII = Glyphs(left="left", right="right", turn=">", dealer="(D)", token="o",
               life="+", arrow="->", dash="-", out="x", icon="*")


# Terminals whose fonts lack the characters above (the Linux console's fonts have no ⭘ ▶ ↻ ●,
# nor the rounded box corners): ASCII is chosen for them unless the player asks otherwise.
ASCII_TERMS = frozenset({"linux", "dumb", "ansi", "cons25", "pcansi", "sun", "unknown"})
GLYPHS_ENV = "ONO99_GLYPHS"


def unicode_ok(env) -> bool:
    """Whether the terminal described by ``env`` (TERM and the locale) can draw the Unicode set."""
    term = env.get("TERM", "").lower()
    if term in ASCII_TERMS or term.startswith(("vt", "linux-")):  # vt100, vt220, ...
        return False
    # the locale that decides the character set: the first of these that is set
    charset = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    return not charset or "utf-8" in charset.lower().replace("utf8", "utf-8")


def choose_ascii(flag: str | None, env, setting: bool) -> bool:
    """ASCII or not: the command line, then ONO99_GLYPHS, then the ASCII setting, then the terminal.

    ``flag`` is "ascii" or "unicode" from --ascii/--unicode. Raises ValueError for a
    ONO99_GLYPHS value that is not one of auto, ascii, unicode.
    """
    if flag:
        return flag == "ascii"
    wanted = env.get(GLYPHS_ENV, "").strip().lower()
    if wanted not in ("", "auto", "ascii", "unicode"):
        raise ValueError(f"{GLYPHS_ENV} must be ascii, unicode or auto, not {env[GLYPHS_ENV]!r}")
    if wanted in ("ascii", "unicode"):
        return wanted == "ascii"
    return setting or not unicode_ok(env)
