"""Files a person wrote, edited by ono99 line by line (store/toml_edit.py): the keys set, every
other line, comment and table as it was; given up (None) rather than guessed."""

from __future__ import annotations

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.store.toml_edit import edit_toml

HOUSE = (
    "# Our club's rules (Ann, 2026)\n"
    "target = 150   # longer rounds\n"
    "\n"
    "[deck]\n"
    "ten = 6 # fewer tens\n"
    "\n"
    "# scoring: points, as at the club\n"
    "[scoring]\n"
    'mode = "points"\n'
)


def test_a_key_in_a_table_is_set_on_its_line():
    assert edit_toml(HOUSE, {("deck", "ten"): 8}) == HOUSE.replace("ten = 6", "ten = 8")
    assert edit_toml(HOUSE, {("target",): 120}) == HOUSE.replace("150", "120")


def test_a_key_missing_from_a_table_goes_at_the_end_of_that_table_above_the_next_ones_comments():
    got = edit_toml(HOUSE, {("deck", "hold"): 2})
    assert got == HOUSE.replace("ten = 6 # fewer tens\n", "ten = 6 # fewer tens\nhold = 2\n")


def test_a_missing_table_is_added_at_the_end_and_a_missing_top_key_above_the_first_table():
    got = edit_toml(HOUSE, {("dealer", "first"): "random", ("hand_size",): 5})
    assert got == (HOUSE.replace("longer rounds\n", "longer rounds\nhand_size = 5\n")
                   + '\n[dealer]\nfirst = "random"\n')
    assert edit_toml("", {("deck", "ten"): 1}) == "[deck]\nten = 1\n"
    assert edit_toml("# only a comment", {("deck", "ten"): 1}) == "# only a comment\n\n[deck]\nten = 1\n"


def test_keys_written_another_way_give_up_rather_than_guess():
    for text in ("deck.ten = 6\n", "deck = {ten = 6}\n", '[deck]\n"ten" = 6\n', "[[deck]]\nten = 6\n",
                 'target = """\n1"""\n'):
        assert edit_toml(text, {("deck", "ten"): 8, ("target",): 1}) is None, text
    assert edit_toml("not = toml = at all", {("target",): 1}) is None


def test_a_line_inside_a_multiline_string_that_looks_like_a_key_is_never_edited():
    text = 'motto = """\n[deck]\nten = 1\n"""\n[deck]\nten = 2\n'
    assert edit_toml(text, {("deck", "ten"): 3}) is None  # (two [deck] headers as lines: not guessed)
    text = 'motto = """\ntarget = 1\n"""\ntarget = 2\n'
    assert edit_toml(text, {("target",): 3}) is None


NAMES = st.sampled_from(["a", "b", "c"])
VALUES = st.one_of(st.booleans(), st.integers(-5, 500), st.text(max_size=6).filter(lambda t: "\r" not in t))
NOTES = st.sampled_from(["", "# note", "  # indented", "\t"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([None, "t", "u"]), st.dictionaries(NAMES, VALUES, max_size=3), max_size=3),
       st.lists(NOTES, max_size=4), st.sampled_from(["\n", "\r\n"]),
       st.dictionaries(st.tuples(st.sampled_from([None, "t", "u", "v"]), NAMES), VALUES, min_size=1, max_size=4))
def test_any_edit_reads_back_as_the_old_document_with_the_keys_set(tables, notes, newline, updates):
    from ono99_tui.store.toml_edit import toml_value

    parts = []
    for table in sorted(tables, key=lambda t: t is not None):
        if table is not None:
            parts.append(f"[{table}]")
        for i, (key, value) in enumerate(tables[table].items()):
            parts.append(f"{key} = {toml_value(value)}" + (f"  {notes[i % len(notes)]}" if notes and notes[i % len(notes)].startswith("#") else ""))
            if notes:
                parts.append(notes[i % len(notes)])
    text = newline.join(parts) + (newline if parts else "")
    paths = {((k,) if t is None else (t, k)): v for (t, k), v in updates.items()}
    got = edit_toml(text, paths)
    assert got is not None, text
    want = tomllib.loads(text)
    for path, value in paths.items():
        node = want
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    assert tomllib.loads(got) == want
    old = [line for line in text.split(newline) if line and not any(line.split(" = ")[0] == p[-1] for p in paths)]
    rest = iter(got.split(newline))  # (TOML's lines: splitlines would also cut at a NEL in a value)
    assert all(any(line == other for other in rest) for line in old)  # every other line, in order


def test_a_subtable_does_not_stop_its_table_from_being_edited():
    text = "[deck]\nten = 6\n[deck.x]\ny = 1\n"
    assert edit_toml(text, {("deck", "ten"): 8}) == text.replace("6", "8")


def test_values_are_spelled_as_toml_reads_them():
    from ono99_tui.store.toml_edit import toml_value

    for value in (True, False, 0, -3, 1.5, "", 'a "b" \\ c', "tab\there", "del\x7f", "nul\x00", "é\u2028"):
        assert tomllib.loads(f"k = {toml_value(value)}") == {"k": value}, repr(value)


def test_a_key_absent_but_for_a_look_alike_line_in_a_string_is_added_and_odd_paths_refused():
    text = 'motto = """\ntarget = 1\n"""\n'
    assert edit_toml(text, {("target",): 3}) == text + "target = 3\n"
    assert edit_toml("[a]\nb = 1\n", {("a", "b", "c"): 1}) is None  # (two levels at most)
    assert edit_toml("x = 1\n", {}) == "x = 1\n"


def test_a_value_with_no_toml_spelling_is_refused_by_name():
    import pytest

    from ono99_tui.store.toml_edit import toml_value

    with pytest.raises(TypeError, match="no TOML spelling here for list"):
        toml_value([1])


def test_only_newlines_end_lines_as_in_toml():
    """Python's splitlines also cuts at NEL, U+2028 and form feeds, which TOML keeps inside a string
    or a comment: such a line was given up (the file written whole, its comments lost)."""
    text = 'name = "a\x85b"  # x\u2028y\ntarget = 1 # c\u2029 target = 2\n'
    assert edit_toml(text, {("target",): 5}) == text.replace("target = 1", "target = 5")


def test_a_table_name_that_is_a_value_is_given_up_not_searched():
    """`deck = "ten"`: asking for deck.ten looked for "ten" inside the string."""
    assert edit_toml('deck = "ten"\n', {("deck", "ten"): 1}) is None
    assert edit_toml("deck = 5\n", {("deck", "ten"): 1}) is None
