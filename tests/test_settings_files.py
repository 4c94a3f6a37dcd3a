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


# -- saving keeps what the player wrote ----------------------------------------------------------

HAND_WRITTEN = (
    "# my ono99 settings\n"
    "\n"
    'player_name = "Zoë"   # the name my friends know\n'
    "bot_delay = 0.2\n"
    "colour_blind = true  # a key of a later ono99\n"
    'theme = "ono99-dark" # dark at night\n'
    "\n"
    "[server]\n"
    'host = "example.org"\n'
)


def test_saving_one_setting_changes_its_line_only(private_dirs):
    """A stranger: saving the theme from the app rewrote config.toml whole: their comments, their
    order and a key it did not know were gone (only the .bak kept them)."""
    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN)
    settings, _ = load_settings()
    save_settings(settings.__class__(**{**settings.__dict__, "theme": "ono99-light"}), changed={"theme"})
    assert path.read_text() == HAND_WRITTEN.replace('"ono99-dark" # dark', '"ono99-light" # dark')
    assert path.with_name("config.toml.bak").read_text() == HAND_WRITTEN
    assert load_settings()[0].theme == "ono99-light"


def test_a_setting_not_in_the_file_is_added_before_its_tables(private_dirs):
    from dataclasses import replace

    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN)
    save_settings(replace(load_settings()[0], undo=False), changed={"undo"})
    text = path.read_text()
    assert text == HAND_WRITTEN.replace("night\n", "night\nundo = false\n", 1)
    assert load_settings()[0].undo is False


def test_nothing_changed_leaves_the_file_untouched_and_other_keys_are_not_reset(private_dirs):
    """The app started with one name; the player then changed it by hand; saving another setting
    from the app kept the name they typed in the file (before: the app's old name overwrote it)."""
    from dataclasses import replace

    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN)
    started, _ = load_settings()
    path.write_text(HAND_WRITTEN.replace("Zoë", "Zed"))  # by hand, while the app runs
    stamp = path.stat().st_mtime_ns
    save_settings(started, changed=set())
    assert path.stat().st_mtime_ns == stamp and not path.with_name("config.toml.bak").exists()
    save_settings(replace(started, bot_delay=1.0), changed={"bot_delay"})
    assert load_settings()[0].player_name == "Zed" and load_settings()[0].bot_delay == 1.0


def test_a_value_not_allowed_in_the_file_is_written_as_the_app_used_it(private_dirs):
    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("bot_delay = 99  # too slow\nundo = false\n")
    settings, problems = load_settings()
    assert problems and settings.bot_delay == 0.6
    save_settings(settings, changed=set())
    assert path.read_text() == "bot_delay = 0.6  # too slow\nundo = false\n"
    assert load_settings() == (settings, [])


def test_a_line_that_cannot_be_edited_alone_gives_a_whole_rewrite(private_dirs):
    from dataclasses import replace

    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    odd = 'player_name = """Ann"""\n"theme" = "ono99-dark"\n'  # a quoted key: not edited in place
    path.write_text(odd)
    save_settings(replace(load_settings()[0], theme="ono99-light"), changed={"theme"})
    assert load_settings() == (Settings(theme="ono99-light", player_name="Ann"), [])
    assert path.with_name("config.toml.bak").read_text() == odd


SAFE_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(
    lambda t: t.strip() and t == t.strip())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["# c\n", "\n", "  \n", "x_later = 1 # k\n", "[t]\nk = 1\n"]), max_size=5, unique=True),
       st.lists(st.sampled_from(["theme", "player_name", "bot_delay", "undo", "rules"]), unique=True),
       st.sampled_from(["", "  # note", "#", " # a # b"]), SAFE_TEXT, SAFE_TEXT,
       st.floats(0, 5, allow_nan=False), st.booleans())
def test_any_edit_keeps_every_other_line_and_reads_back_as_saved(extras, present, comment, name, theme,
                                                                  delay, undo):
    from ono99_tui.store.settings import _as_toml, edit_settings_text

    old = Settings(player_name="Old", theme="old-theme", bot_delay=0.5, undo=True, rules="standard")
    lines = [f"{k} = {_as_toml(getattr(old, k))}{comment}\n" for k in present]
    text = "".join(lines[:1] + [e for e in extras if not e.startswith("[")] + lines[1:]
                   + [e for e in extras if e.startswith("[")])
    import unicodedata

    from ono99_tui.engine.game import GameSetupError, normalise_name
    try:
        name = unicodedata.normalize("NFC", normalise_name(name))
    except GameSetupError:
        name = "Ann"
    new = Settings(player_name=name, theme=theme, bot_delay=delay, undo=undo, rules="standard")
    out = edit_settings_text(text, new)
    assert out is not None
    got, problems = parse_settings(out, "config.toml")
    assert got == new, out
    kept = [line for line in text.splitlines() if not any(line.startswith(f"{k} =") for k in present)]
    assert [line for line in out.splitlines() if line in kept] == kept  # every other line, in order


async def _save_bot_delay_in_settings(while_the_app_runs=None) -> tuple[bool, str]:
    """Open Settings in the app, set the bots' pause to 1 and save: (the form still shown, the
    error line under it). ``while_the_app_runs``: done after the app read the settings file."""
    from textual.widgets import Input, Static

    from ono99_tui.tui.app import Ono99App
    from ono99_tui.tui.screens.settings import SettingsScreen

    app = Ono99App()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        if while_the_app_runs is not None:
            while_the_app_runs()
        screen = SettingsScreen(app.settings)
        app.push_screen(screen)
        await pilot.pause()
        screen.query_one("#bot_delay", Input).value = "1"
        screen.action_save()
        await pilot.pause()
        stayed = app.screen is screen
        return stayed, str(screen.query_one("#form-error", Static).render()) if stayed else ""


async def test_the_settings_screen_writes_only_what_was_changed_there(private_dirs):
    """Saved from Settings: the bots' pause changed there is written on its line; the comments, a
    key of a later ono99, and a name the player changed by hand after the app started stay."""
    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN)
    await _save_bot_delay_in_settings(lambda: path.write_text(HAND_WRITTEN.replace("Zoë", "Zed")))  # by hand
    assert path.read_text() == HAND_WRITTEN.replace("Zoë", "Zed").replace("bot_delay = 0.2", "bot_delay = 1.0")


def _edited(text: str, changed, **values) -> str | None:
    from ono99_tui.store.settings import edit_settings_text

    settings, _ = parse_settings(text, "config.toml")
    from dataclasses import replace
    return edit_settings_text(text, replace(settings, **values), changed)


def test_edits_in_place_keep_a_byte_order_mark_crlf_and_a_hash_inside_a_value():
    """Files from other editors: a BOM (Windows Notepad), CRLF line ends, a "#" inside a quoted
    name; each edited on its own line, nothing else touched (no whole rewrite)."""
    text = '\ufeffplayer_name = "A#1" # me\r\nundo = true\r\n'
    assert _edited(text, {"undo"}, undo=False) == '\ufeffplayer_name = "A#1" # me\r\nundo = false\r\n'
    assert _edited(text, {"player_name"}, player_name="B#2") == '\ufeffplayer_name = "B#2" # me\r\nundo = true\r\n'
    assert _edited(text, {"ascii"}, ascii=True) == text + "ascii = true\r\n"


def test_an_added_setting_goes_above_the_comments_over_the_first_table_even_indented():
    text = 'theme = "x"\n\n# where I play\n  [server]\nhost = "h"\n'
    assert _edited(text, {"undo"}, undo=False) == 'theme = "x"\nundo = false\n\n# where I play\n  [server]\nhost = "h"\n'
    assert _edited('theme = "x"', {"undo"}, undo=False) == 'theme = "x"\nundo = false\n'  # (no last newline)


def test_a_setting_left_at_its_default_and_absent_from_the_file_is_not_added():
    text = "undo = false\n"
    assert _edited(text, {"theme", "bot_delay"}, theme=Settings().theme, bot_delay=Settings().bot_delay) == text


def test_values_written_another_way_but_allowed_are_left_as_written():
    """`bot_delay = 1` is the app's 1.0 and `player_name = 'Ann'` its "Ann": saving another setting
    leaves them as the player wrote them."""
    text = "bot_delay = 1\nplayer_name = 'Ann'\nascii = false\n"
    assert _edited(text, {"ascii"}, ascii=True) == "bot_delay = 1\nplayer_name = 'Ann'\nascii = true\n"


def test_an_added_setting_goes_at_the_end_of_a_file_without_tables_and_at_the_top_over_a_first_table():
    assert _edited('theme = "x"\n# the end\n\n', {"undo"}, undo=False) == 'theme = "x"\n# the end\n\nundo = false\n'
    text = "# mine\n    # indented\n[server]\nhost = 'h'\n# end\n"
    assert _edited(text, {"undo"}, undo=False) == "undo = false\n" + text


def test_a_changed_setting_the_file_sets_otherwise_is_written_even_back_to_its_default():
    assert _edited("undo = false # off\n", {"undo"}, undo=True) == "undo = true # off\n"


async def test_a_write_protected_settings_file_is_not_saved_over(private_dirs):
    """chmod a-w config.toml: Save in Settings replaced it all the same (a rename ignores the
    mode). Now it says why it was not saved, and the file and its mode stay."""
    import os
    import stat

    from ono99_tui.store.paths import settings_file

    path = settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN)
    path.chmod(0o444)
    stayed, error = await _save_bot_delay_in_settings()
    assert stayed  # not saved: the form stays, saying why
    assert error == (f"Not saved: cannot write {path}: it is write-protected (chmod a-w), so ono99 leaves it "
                     "as it is; chmod u+w it to save settings from ono99")
    assert path.read_text() == HAND_WRITTEN and not path.stat().st_mode & stat.S_IWUSR
    assert not os.path.exists(str(path) + ".bak")
