"""The warm-up a session zygote runs once before it forks (net/zygote.py; cli.py names it).

Forked children start from the zygote's memory, so whatever the first screen of `ono99 join`
computes the same way every time is done once here instead of once per session:

- the lobby is drawn once, headless, at a table server that is not there (the app ends when it
  cannot connect): Textual's and Rich's caches are filled and the widgets it imports lazily are
  imported;
- Textual parses every stylesheet (each widget's DEFAULT_CSS and the app's) on each app's
  start, twice (once more for the theme's variables), in a cache that lives with one Stylesheet.
  In the zygote, parsed rule sets are also kept in one cache for the process, keyed by the CSS,
  where it came from and the variables it was parsed with, so each child finds them parsed.
  Rule sets are read, never changed, once parsed. Only the zygote (and its children) use this
  cache; `ono99` run any other way parses as Textual does.
"""

from __future__ import annotations

_PARSED: dict = {}
_MAX_PARSED = 1024


def _share_parsed_css() -> None:
    from textual.css.stylesheet import Stylesheet

    parse_rules = getattr(Stylesheet, "_parse_rules", None)
    if parse_rules is None or getattr(parse_rules, "_ono99_shared", False):
        return  # (a Textual without it: each child parses as usual)

    def _parse_rules(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
        try:
            key = (css, read_from, is_default_rules, tie_breaker, scope,
                   tuple(sorted(self._variables.items())))
            rules = _PARSED.get(key)
        except TypeError:  # (something unhashable: no sharing)
            return parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            if len(_PARSED) < _MAX_PARSED:
                _PARSED[key] = rules
        return rules

    _parse_rules._ono99_shared = True
    Stylesheet._parse_rules = _parse_rules


def warm() -> None:
    import socket
    from types import SimpleNamespace

    from ..net.lobby import JoinPlan
    from .join import build_app

    _share_parsed_css()
    with socket.socket() as nowhere:  # bound, never listening: connecting to it is refused at once
        nowhere.bind(("127.0.0.1", 0))
        plan = JoinPlan("127.0.0.1", nowhere.getsockname()[1], "warm-up", redial=False)
        app = build_app(SimpleNamespace(ascii=False), plan)
        app.run(headless=True, size=(80, 24))
