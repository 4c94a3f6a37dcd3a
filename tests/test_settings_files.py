"""config.toml and theme files: any text gives settings or a clear message, never a traceback."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ono99_tui.store.settings import Settings, load_settings, parse_settings, save_settings
from ono99_tui.tui.themes import ThemeError, parse_theme
from tests.cli import ono99

KEYS = st.sampled_from(["theme", "ascii", "bot_delay", "player_name", "rules", "undo", "colour", "name"])
VALUES = st.one_of(st.booleans(), st.integers(-10, 10), st.floats(-1, 9, allow_nan=False),
                   st.text(max_size=30).map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(KEYS, VALUES), max_size=6), st.text(max_size=40))
def test_any_settings_text_gives_settings_and_messages(pairs, noise):
    text = "".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}\n" for k, v in pairs) + noise
    got, problems = parse_settings(text, "config.toml")
    assert isinstance(got, Settings)
    assert all(p.startswith("config.toml") for p in problems)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_theme_text_is_a_theme_or_a_theme_error(text):
    try:
        parse_theme(text, "mine.toml")
    except ThemeError as exc:
        assert str(exc).startswith("mine.toml")


def test_settings_round_trip_and_unreadable_file(private_dirs):
    path = save_settings(Settings(theme="ono99-light", bot_delay=1.5, player_name="Ana", undo=False))
    assert load_settings() == (Settings(theme="ono99-light", bot_delay=1.5, player_name="Ana", undo=False), [])
    path.write_bytes(b"\xff\xfe not utf-8")
    got, problems = load_settings()
    assert got == Settings() and problems and str(path) in problems[0]


def test_a_setting_given_twice_is_a_notice_with_its_line_and_the_defaults_are_used():
    got, problems = parse_settings("theme = 'ono99-light'\nundo = false\ntheme = 'ono99-ansi'\n", "config.toml")
    assert got == Settings()
    assert problems == ["config.toml, line 3: the settings file is not valid TOML: theme is given twice "
                        "(first on line 1); keep one; using the default settings"]


def test_a_misspelt_setting_is_a_notice_with_did_you_mean_else_what_is_allowed(private_dirs):
    path = private_dirs / "config" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('them = "ono99-light"\nzzz = 1\nbot_delay = 1\n[ui]\nx = 1\n')
    allowed = "allowed: ascii, bot_delay, confirm_bust, player_name, rules, theme, turn_alert, undo"
    said = [f'{path}, line 1: them: unknown setting (did you mean "theme"?)',
            f"{path}, line 2: zzz: unknown setting; {allowed}",
            f"{path}, line 4: ui: unknown setting; {allowed}"]
    assert load_settings() == (Settings(bot_delay=1.0), said)
    # a notice, as a user meets it: the game still opens, with the settings it could read
    proc = ono99("--plain", input="q\n")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[:3] == said and lines[3].startswith("O'NO 99, in plain text.")
