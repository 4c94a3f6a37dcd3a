"""House-rule TOML: partial files, every problem reported clearly, round trips, presets."""

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.store.files import load_rules_file
from tests.cli import ono99
from ono99_tui.store.presets import load_preset, preset_names, resolve_rules
from ono99_tui.engine.rules import (
    DEFAULT, KEYS, Rules, RulesError, commented_toml, load_rules_text, rules_from_dict,
)


def problems(text):
    with pytest.raises(RulesError) as info:
        load_rules_text(text, "house.toml")
    return [str(p) for p in info.value.problems]


def test_a_file_names_only_the_keys_it_changes():
    rules = load_rules_text("target = 120\n[scoring]\nmode = 'points'\n")
    assert rules == DEFAULT.replace(target=120, scoring_mode="points")


def test_unknown_key_suggests_the_nearest():
    assert problems("[scoring]\nmod = 'points'\n") == [
        'house.toml: scoring.mod: unknown key (did you mean "scoring.mode"?)']
    assert problems("hand_sise = 5\n") == ['house.toml: hand_sise: unknown key (did you mean "hand_size"?)']


def test_unknown_key_with_nothing_close_says_what_its_table_allows():
    # "deck.zzzz" had been matched to "deck.ten" by the "deck." the two share
    assert problems("[deck]\nzzzz = 3\ntne = 3\n") == [
        "house.toml: deck.zzzz: unknown key; allowed in [deck]: number_each, ten, minus_ten, hold, reverse, "
        "double_play, ninety_nine",
        'house.toml: deck.tne: unknown key (did you mean "deck.ten"?)']
    assert problems("qwertyuiop = 3\n") == [
        "house.toml: qwertyuiop: unknown key; allowed at the top level: target, hand_size, "
        "forced_bust_plays_lowest, and the tables [deck], [dealer], [double_play], [ninety_nine_card], [scoring]"]


def test_unknown_table_says_the_tables_allowed():
    assert problems("[house]\nx = 1\n[scorng]\nmode = 'points'\n") == [
        "house.toml: house: unknown table; allowed tables: [deck], [dealer], [double_play], [ninety_nine_card], "
        "[scoring]",
        'house.toml: scorng: unknown table (did you mean "scoring"?)']


def test_wrong_types_out_of_range_and_bad_choices_are_all_collected():
    found = problems(
        "target = '99'\nhand_size = 0\n[deck]\nten = true\n[scoring]\nmode = 'chips'\nextra_life = 1\n"
    )
    assert found == [
        'house.toml: target: must be a whole number, not "99" (a string); allowed: a whole number from 10 to 999',
        "house.toml: hand_size: 0 is out of range; allowed: a whole number from 1 to 10",
        "house.toml: deck.ten: must be a whole number, not true (a boolean); allowed: a whole number from 0 to 40",
        'house.toml: scoring.mode: "chips" is not allowed; allowed: one of "tokens", "points"',
        "house.toml: scoring.extra_life: must be true or false, not 1 (a whole number)",
    ]


def test_toml_dates_and_times_are_named_in_toml_words():
    """A play-tester's target = 1979-05-27 read "not datetime.date(1979, 5, 27) (date)"."""
    found = problems("target = 1979-05-27\nhand_size = 07:32:00\n[scoring]\nmode = 1979-05-27T07:32:00\n")
    assert found == [
        "house.toml: target: must be a whole number, not 1979-05-27 (a date); allowed: a whole number from 10 to 999",
        "house.toml: hand_size: must be a whole number, not 07:32:00 (a time); allowed: a whole number from 1 to 10",
        'house.toml: scoring.mode: must be a string, not 1979-05-27T07:32:00 (a date and time); allowed: one of '
        '"tokens", "points"',
    ]


def test_negative_count_and_section_not_a_table():
    assert problems("deck = 5\n") == ["house.toml: deck: must be a table ([deck]), not 5 (a whole number)"]
    assert "deck.hold: -1 is out of range" in problems("[deck]\nhold = -1\n")[0]


def test_deck_too_small_to_deal():
    text = "hand_size = 10\n[deck]\nnumber_each = 0\nten = 19\nminus_ten = 0\nhold = 0\nreverse = 0\n"
    text += "double_play = 0\nninety_nine = 0\n[dealer]\nfirst = 'random'\n"
    assert problems(text) == [
        "house.toml: deck: a 19-card deck is too small to deal 10 cards to 2 players "
        "(needs at least 20 cards; raise deck.* or lower hand_size)"]


def test_a_deck_that_takes_away_more_than_it_adds_is_rejected():
    found = problems("[deck]\nnumber_each = 0\nten = 9\nminus_ten = 10\n[dealer]\nfirst = 'random'\n")
    assert found == ["house.toml: deck: the deck's cards add up to -10: with Minus Tens outweighing the rest "
                     "a round may never end; the cards must add up to more than 0 (fewer deck.minus_ten, "
                     "or more numbers/Tens)"]


def test_a_deck_of_only_99s_or_without_numbers_says_so_not_that_minus_tens_outweigh():
    """Play-tester: a deck of forty 99s was refused as "with Minus Tens outweighing the rest" and
    told to use "fewer deck.minus_ten", with no Minus Ten in it. R7.1, R5.2: nobody can play a 99,
    so every round is lost at its deal; without number cards or Tens the total never rises (R4.6)."""
    none = "[deck]\nnumber_each = 0\nten = 0\nminus_ten = 0\nhold = 0\nreverse = 0\ndouble_play = 0\n"
    random_dealer = "[dealer]\nfirst = 'random'\n"
    assert problems(none + "ninety_nine = 40\n" + random_dealer) == [
        "house.toml: deck: the deck holds only 99s, which cannot be played (R7.1): every round would be "
        "lost at once by its first player, who has no card to play (R5.2); add number cards or Tens "
        "(deck.number_each, deck.ten)"]
    helpers = none.replace("minus_ten = 0", "minus_ten = 2").replace("hold = 0", "hold = 8")
    for text in (helpers + "ninety_nine = 4\n" + random_dealer,
                 none + "ninety_nine = 40\n" + random_dealer + "[ninety_nine_card]\nplayable_on_tens = true\n"):
        assert problems(text) == [
            "house.toml: deck: the deck has no number cards or Tens: no card adds to the total, so it never "
            "reaches 99 and a round may never end; add number cards or Tens (deck.number_each, deck.ten)"]
    # (an empty deck: too small to deal, and nothing said of cards it does not hold)
    assert problems(none + "ninety_nine = 0\n" + random_dealer) == [
        "house.toml: deck: a 0-card deck is too small to deal 4 cards to 2 players "
        "(needs at least 8 cards; raise deck.* or lower hand_size)"]


def test_high_card_needs_number_cards_to_draw():
    found = problems("[deck]\nnumber_each = 0\nten = 5\n")
    assert found and "dealer.first" in found[0] and '"random"' in found[0]


def test_a_rules_spec_kept_for_later_is_a_preset_name_or_an_absolute_file(tmp_path, monkeypatch):
    from ono99_tui.store.presets import lasting_spec

    mine = tmp_path / "rules"
    mine.mkdir()
    (mine / "family.toml").write_text("target = 120\n")
    monkeypatch.chdir(tmp_path)
    assert lasting_spec("points", mine) == "points" and lasting_spec("family", mine) == "family"
    assert lasting_spec("house.toml", mine) == str(tmp_path / "house.toml")
    assert lasting_spec("sub/house.toml", mine) == str(tmp_path / "sub" / "house.toml")
    assert lasting_spec("/etc/house.toml", mine) == "/etc/house.toml"


def test_not_toml_and_unreadable_files(tmp_path):
    assert problems("target = = 3") == [
        "house.toml, line 1: the rules file is not valid TOML: Invalid value (column 10)"]
    assert problems("target = [1,") == [
        "house.toml: the rules file is not valid TOML: Invalid value (at the end of the file)"]
    with pytest.raises(RulesError, match="cannot read the rules file: no such file"):
        load_rules_file(tmp_path / "missing.toml")
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RulesError, match="not a UTF-8 text file"):
        load_rules_file(binary)


@pytest.mark.parametrize("text, said", [
    ("[scoring]\nmode = 'points'\n\n[scoring]\nlimit = 300\n",
     "house.toml, line 4: the rules file is not valid TOML: [scoring] appears twice (first on line 1); "
     "merge its keys into one [scoring] table"),
    ("target = 90\nhand_size = 5\ntarget = 80",
     "house.toml, line 3: the rules file is not valid TOML: target is given twice (first on line 1); keep one"),
    ("[scoring]\nmode = 'points'\nlimit = 300\n\"mode\" = 'tokens'  # again\n",
     "house.toml, line 4: the rules file is not valid TOML: scoring.mode is given twice (first on line 2); keep one"),
    ("deck.ten = 5\n[deck]\nhold = 2\n",
     "house.toml, line 2: the rules file is not valid TOML: [deck] is declared, but deck was already set on "
     "line 1; set its keys in one place"),
    ("deck = 5\n[deck]\nhold = 2\n",
     "house.toml, line 2: the rules file is not valid TOML: [deck] is declared, but a value was already set "
     "there on line 1; keep one of them"),
])
def test_a_table_or_key_given_twice_is_said_with_its_line_and_name(text, said):
    """tomllib says "Cannot declare ('scoring',) twice (at line 4, column 9)"."""
    assert problems(text) == [said]


@pytest.mark.parametrize("name", preset_names())
def test_presets_load_and_show_output_loads_back_equal(name):
    rules = load_preset(name)
    text = commented_toml(rules, f"preset {name}")
    assert load_rules_text(text) == rules
    assert load_rules_text(rules.to_toml()) == rules
    assert load_rules_text(rules.to_toml(only_changed=True)) == rules
    keys = {line.split(" = ")[0] for line in text.splitlines() if " = " in line}
    assert len(keys) >= len(KEYS) - 1  # every key written (sections share leaf names)


def test_required_presets_exist():
    assert {"standard", "points", "first-to-500", "ninety-nine-option"} <= set(preset_names())
    assert load_preset("points").scoring_mode == "points"
    assert load_preset("first-to-500").scoring_end == "first-to-limit"
    assert load_preset("ninety-nine-option").ninety_nine_card_playable_on_tens


def test_resolve_unknown_name_lists_presets():
    with pytest.raises(RulesError, match="no preset or file named 'nope' \\(presets: standard"):
        resolve_rules("nope")


def valid_rules():
    def one(spec):
        if spec.kind is bool:
            return st.booleans()
        if spec.choices:
            return st.sampled_from(spec.choices)
        return st.integers(spec.low, min(spec.high, 30 if spec.path.startswith("deck") else spec.high))

    return st.fixed_dictionaries({k.field: one(k) for k in KEYS}).map(lambda d: Rules(**d))


@settings(max_examples=150, deadline=None)
@given(valid_rules())
def test_any_rules_value_round_trips_through_toml_or_is_rejected_as_a_whole(rules):
    try:
        loaded = load_rules_text(rules.to_toml())
    except RulesError as exc:
        # each key is in range, so only the whole-deck checks can fail
        assert {p.key for p in exc.problems} <= {"deck", "dealer.first"}
    else:
        assert loaded == rules
        assert load_rules_text(commented_toml(rules)) == rules


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_rules_or_a_clear_error_never_a_traceback(text):
    try:
        load_rules_text(text, "fuzz.toml")
    except RulesError as exc:
        assert exc.problems and all(str(p).startswith("fuzz.toml") for p in exc.problems)


def test_a_rules_file_typed_with_a_tilde_is_in_the_home_folder_and_a_name_too_long_is_no_preset(
        private_dirs, tmp_path, monkeypatch):
    """"~/house.toml" typed at New game's "or file", at --plain's rules question or quoted on a
    command line was "no such file" while it was there; a 300-letter name ended `ono99 rules
    show` and `ono99 --rules` in a traceback (File name too long)."""
    from ono99_tui.store.presets import lasting_spec
    from ono99_tui.store.rule_presets import resolve

    home = tmp_path / "home"
    home.mkdir()
    (home / "house.toml").write_text("target = 50\n")
    monkeypatch.setenv("HOME", str(home))
    rules, label = resolve("~/house.toml")
    assert rules.target == 50 and label == str(home / "house.toml")
    assert lasting_spec("~/house.toml") == str(home / "house.toml")
    proc = ono99("rules", "show", "a" * 300)
    assert proc.returncode == 2 and "no preset or file named 'aaa" in proc.stderr, proc.stderr
    proc = ono99("--rules", "a" * 300, "--plain", input="")
    assert proc.returncode == 2 and "--rules: no preset or file named 'aaa" in proc.stderr, proc.stderr


def test_a_rules_file_name_with_a_nul_pasted_in_is_no_file_and_no_bare_error(private_dirs):
    # pasted into New game's "or file", "a\0b.toml" was told Python's "embedded null byte"
    from ono99_tui.engine.rules import RulesError
    from ono99_tui.store.rule_presets import resolve

    for spec in ("a\0b.toml", "/tmp/a\0b"):
        with pytest.raises(RulesError) as said:
            resolve(spec)
        assert str(said.value).startswith(f"no preset or file named {spec!r}"), str(said.value)


@pytest.mark.parametrize("number", ["9" * 5000, "0x" + "f" * 5000, "0o" + "7" * 5000, "-" + "9" * 5000])
def test_a_number_of_thousands_of_digits_is_one_plain_message_never_a_traceback(tmp_path, number):
    """target = 0xfff... (5,000 digits: int()'s digit limit is for decimal only) was read, then
    shown in "is out of range", and Python's decimal conversion raised ValueError: a traceback
    from `ono99 rules check`. 5,000 decimal digits said "use sys.set_int_max_str_digits()"."""
    path = tmp_path / "big.toml"
    path.write_text(f"target = {number}\n")
    proc = ono99("rules", "check", str(path))
    assert proc.returncode == 2 and proc.stderr == (
        f"{path}: the rules file holds a number too big for any ono99 file (more than 38 digits)\n"), proc.stderr
    path.write_text(f"target = {'0x' + 'f' * 32}\n")  # (2**128 - 1: still a number, out of range)
    proc = ono99("rules", "check", str(path))
    assert proc.returncode == 2 and "340282366920938463463374607431768211455 is out of range" in proc.stderr
