"""Turn alerts at a network table: the terminal bell, and a desktop notification escape where the
terminal is known to show one.

Conservative on purpose: an OSC a terminal does not know may be drawn as junk or swallowed by a
multiplexer, so the notification is only sent to terminals that say who they are (TERM_PROGRAM,
TERM) and are known to turn it into a notification, or when ONO99_NOTIFY asks for it.
"""

from __future__ import annotations

import os
from typing import Mapping

# OSC 9 (iTerm2's "growl" message) and OSC 777 (rxvt-unicode's notify, also foot and others)
OSC9 = "osc9"
OSC777 = "osc777"
KNOWN = {"iTerm.app": OSC9, "WezTerm": OSC777, "ghostty": OSC777}  # TERM_PROGRAM -> the escape it shows
KNOWN_TERM = {"foot": OSC777, "foot-extra": OSC777, "xterm-ghostty": OSC777}  # TERM -> ...
NOTIFY_ENV = "ONO99_NOTIFY"  # osc9, osc777 or off: overrides the guess


def notify_kind(env: Mapping[str, str]) -> str | None:
    """Which desktop-notification escape this terminal shows, or None (then only the bell)."""
    forced = env.get(NOTIFY_ENV, "").strip().lower()
    if forced in (OSC9, OSC777):
        return forced
    if forced in ("off", "no", "none", "0", "bell"):
        return None
    if env.get("TMUX") or env.get("STY") or env.get("TERM", "").startswith(("screen", "tmux")):
        return None  # a multiplexer would need the escape wrapped, and may be viewed from another terminal
    return KNOWN.get(env.get("TERM_PROGRAM", "")) or KNOWN_TERM.get(env.get("TERM", ""))


def _clean(text: str) -> str:
    """Printable text with no field separator: never a control byte or a way out of the escape."""
    return "".join(c if c.isprintable() and c != ";" else " " for c in text)[:200]


def notification(kind: str | None, title: str, body: str) -> str:
    """The escape that asks the terminal for a desktop notification ("" for none)."""
    if kind == OSC9:
        return f"\x1b]9;{_clean(title)}: {_clean(body)}\x1b\\"
    if kind == OSC777:
        return f"\x1b]777;notify;{_clean(title)};{_clean(body)}\x1b\\"
    return ""


def turn_alert(app, title: str, body: str, env: Mapping[str, str] | None = None) -> None:
    """Ring the bell and, where the terminal shows them, send a desktop notification."""
    app.bell()
    escape = notification(notify_kind(os.environ if env is None else env), title, body)
    # App.bell writes through the same (private) driver; tests/test_turn_alerts.py fails if it moves
    driver = getattr(app, "_driver", None)
    if escape and not app.is_headless and driver is not None:
        driver.write(escape)
