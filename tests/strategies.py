"""Hypothesis strategies shared by the property tests."""

from hypothesis import strategies as st

from ono99_tui.engine.cards import EFFECT
from ono99_tui.engine.rules import KEYS, Rules, RulesError, rules_from_dict

# Keep games short enough to play hundreds of them.
_CAPS = {"target": (10, 200), "scoring.limit": (1, 400), "scoring.tokens": (1, 4)}


def _value(spec):
    if spec.kind is bool:
        return st.booleans()
    if spec.choices:
        return st.sampled_from(spec.choices)
    low, high = _CAPS.get(spec.path, (spec.low, min(spec.high, 12)))
    return st.integers(low, high)


def _valid(rules: Rules) -> bool:
    # Decks that barely add up are valid but make rounds thousands of plays long: too slow here.
    if sum(EFFECT[c] for c in rules.deck) < 2 * len(rules.deck):
        return False
    try:
        rules_from_dict(rules.to_dict())
    except RulesError:
        return False
    return True


house_rules = st.fixed_dictionaries({k.field: _value(k) for k in KEYS}).map(lambda d: Rules(**d)).filter(_valid)


@st.composite
def tables(draw, rules=house_rules):
    """(rules, names, seed, first dealer or None)."""
    r = draw(rules)
    n = draw(st.integers(2, max(2, r.max_players())))
    names = [f"P{i}" for i in range(n)]
    named = draw(st.integers(0, n - 1)) if r.dealer_first == "agree" else None
    return r, names, draw(st.integers(0, 2**32)), named
