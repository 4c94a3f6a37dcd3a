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
