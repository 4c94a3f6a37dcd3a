"""House rules in the app (editor, user presets) and the house-rule lab (`ono99 rules compare`)."""

import json
from dataclasses import replace as dataclasses_replace

import pytest
from textual.widgets import Input, Select

from ono99_tui.store.files import load_rules_file
from ono99_tui.store import rule_presets as rp
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.rules_view import RulesViewScreen
from tests.cli import ono99
from tests.waits import settle




def test_rules_compare_side_by_side_and_json():
    out = ono99("rules", "compare", "standard", "ninety-nine-option", "--games", "20", "--bots", "medium,easy,easy")
    assert out.returncode == 0, out.stderr
    for needle in ("standard", "ninety-nine-option", "rounds per game", "plays per round",
                   "first player of the game wins", "99 cards played per game", "Double Play", "Hold"):
        assert needle in out.stdout
    doc = json.loads(ono99("rules", "compare", "standard", "ninety-nine-option", "--games", "21",
                           "--bots", "medium,easy,easy", "--json").stdout)
    assert doc["a"]["rules"] == "standard" and doc["b"]["rules"] == "ninety-nine-option"
    assert doc["a"]["games"] == doc["b"]["games"] == 21
    assert doc["a"]["ninety_nines_played_per_game"] == 0 < doc["b"]["ninety_nines_played_per_game"]
    assert sum(doc["a"]["deciding_cards"].values()) == round(doc["a"]["rounds_per_game"] * 21)


def test_rules_compare_same_rules_gives_the_same_numbers(tmp_path):
    copy = tmp_path / "same.toml"
    copy.write_text("target = 99\n")
    doc = json.loads(ono99("rules", "compare", "standard", str(copy), "--games", "12", "--json").stdout)
    for key in ("rounds_per_game", "plays_per_round", "deciding_cards", "first_seat_win_rate"):
        assert doc["a"][key] == doc["b"][key]


def test_rules_compare_bad_arguments():
    out = ono99("rules", "compare", "standard", "nonesuch")
    assert out.returncode == 2 and "no preset or file named 'nonesuch'" in out.stderr
    out = ono99("rules", "compare", "standard", "points", "--bots", "easy")
    assert out.returncode == 2 and "2 to 8 seats" in out.stderr
    # an empty name (a shell variable not set) is refused, not read as standard (a play-tester's find)
    for args in (["compare", "", "points"], ["compare", "standard", ""], ["show", ""], ["check", ""]):
        out = ono99("rules", *args)
        assert out.returncode == 2 and "an empty name names nothing" in out.stderr and out.stdout == "", args


def key(screen, path):
    return screen.query_one("#key-" + path.replace(".", "--").replace("_", "-"))


async def test_edit_invalid_then_valid_save_and_use_in_a_new_game(private_dirs):
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("rules")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RulesViewScreen)
        assert screen.query_one("#save").disabled  # standard is shipped: read-only
        await pilot.press("ctrl+s")
        await pilot.pause()
        app.screen.query_one(Input).value = "family"
        await pilot.press("enter")
        await pilot.pause()
        path = private_dirs / "config" / "rules" / "family.toml"
        assert path.exists() and path.read_text().startswith("# House rules: family")
        assert screen.preset.name == "family" and screen.preset.mine
        key(screen, "target").value = "5"
        await pilot.pause()
        help_text = str(key(screen, "target").parent.parent.query_one("#key-target-help").render())
        assert "invalid" in help_text and "5 is out of range" in help_text
        before = path.read_text()
        screen.action_save()
        assert path.read_text() == before  # nothing invalid is saved
        key(screen, "target").value = "150"
        key(screen, "scoring--mode").value = "points"
        await pilot.pause()
        screen.action_save()
        text = path.read_text()
        assert "target = 150" in text and 'mode = "points"' in text and "hand_size" not in text
        rules = load_rules_file(path)
        assert rules.target == 150 and rules.scoring_mode == "points"
        await pilot.press("escape")
        await pilot.press("n")
        await pilot.pause()
        form = app.screen
        form.query_one("#preset", Select).value = "family"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table.game.rules.target == 150 and app.screen.setup.rules_label == "family"


async def test_a_deck_too_small_is_invalid_as_a_whole(private_dirs):
    rp.save_preset("tiny", rp.resolve("standard")[0])
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RulesViewScreen("tiny"))
        await pilot.pause()
        screen = app.screen
        key(screen, "deck.number_each").value = "0"
        key(screen, "deck.ten").value = "0"  # nothing left that adds: a round could never end
        await pilot.pause()
        assert not screen.valid
        said = str(screen.query_one("#rules-error").render())
        assert "Not valid, not saved" in said and "deck" in said
        before = (private_dirs / "config" / "rules" / "tiny.toml").read_text()
        screen.action_save()
        assert (private_dirs / "config" / "rules" / "tiny.toml").read_text() == before


def test_a_preset_named_like_another_but_for_case_is_refused_and_a_case_rename_is_not(private_dirs):
    """A play-tester's find: "Mine" was saved beside "mine". On a disk that ignores case (macOS,
    Windows) they are one file: the second save overwrote the first."""
    rules = rp.resolve("points")[0]
    first = rp.save_preset("mine", rules, "the first")
    for make in (lambda: rp.save_preset("Mine", rules), lambda: rp.save_preset("MINE", rules, overwrite=True)):
        with pytest.raises(ValueError, match="a preset named 'mine' already exists; names that differ only in case"):
            make()
    rp.save_preset("other", rules)
    with pytest.raises(ValueError, match="a preset named 'mine' already exists"):
        rp.rename_preset("other", "MINE")
    assert "the first" in first.read_text() and {p.name for p in rp.all_presets() if p.mine} == {"mine", "other"}
    rp.rename_preset("mine", "Mine")  # its own name in other case: a rename, not a clash
    assert {p.name for p in rp.all_presets() if p.mine} == {"Mine", "other"}


def test_user_presets_are_listed_and_shipped_names_refused(private_dirs):
    rules = rp.resolve("points")[0]
    path = rp.save_preset("club", rules, "Our club rules")
    assert [p.name for p in rp.all_presets() if p.mine] == ["club"]
    assert rp.resolve("club")[0] == rules
    assert "Our club rules" in ono99("rules", "list").stdout
    for bad in ("standard", "../x", ".hidden", "Points", "STANDARD"):  # ("Points" listed beside "points")
        try:
            rp.save_preset(bad, rules)
        except ValueError:
            pass
        else:
            raise AssertionError(bad)
    with pytest.raises(ValueError, match="'Points' is the shipped preset 'points'; choose another name"):
        rp.save_preset("Points", rules)
    rp.rename_preset("club", "club two")
    rp.delete_preset("club two")
    assert not path.exists() and not [p for p in rp.all_presets() if p.mine]


def test_help_says_command_line_wins_over_the_settings_file():
    out = ono99("--help")
    text = " ".join(out.stdout.split())
    assert out.returncode == 0
    assert "--theme, --ascii and --rules" in text and "win over the file" in text and "config.toml" in text


def _notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_save_and_delete_on_an_unwritable_folder_say_why_and_lose_nothing(private_dirs, monkeypatch):
    """House rules Save and Delete on a folder that refuses writes: a notice naming the file and the
    OS error, the edits still on screen, the preset still there (it used to crash the app)."""
    import pathlib

    path = rp.save_preset("mine", rp.resolve("standard")[0])
    before = path.read_text()

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RulesViewScreen("mine"))
        await pilot.pause()
        screen = app.screen
        assert screen.preset.mine
        key(screen, "target").value = "150"
        await pilot.pause()
        monkeypatch.setattr(rp, "write_atomic", refuse)
        screen.query_one("#save").press()
        await pilot.pause()
        said = _notices(app)[-1]
        assert "Not saved" in said and str(path) in said and "Permission denied" in said
        assert app.screen is screen and key(screen, "target").value == "150"  # the edit is kept
        assert path.read_text() == before

        monkeypatch.setattr(pathlib.Path, "unlink", refuse)
        screen.action_delete()
        await pilot.pause()
        await pilot.click("#btn-delete")
        await pilot.pause()
        said = _notices(app)[-1]
        assert "Not deleted" in said and str(path) in said and "Permission denied" in said
        assert app.screen is screen and screen.preset.name == "mine"
    assert app.return_code in (None, 0)
    assert path.read_text() == before


async def test_save_as_a_refused_name_keeps_the_dialog_open_and_the_keys_in_it(private_dirs):
    """A play-tester saved as "points" (a shipped preset's name): the dialog closed on the
    refusal and the name typed next went into the rules behind it, wiping a value. Now the
    reason is in the dialog, which stays open, and the next name goes into it."""
    from ono99_tui.tui.screens.save_as import NameScreen

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("rules")
        await pilot.pause()
        screen = app.screen
        key(screen, "target").value = "50"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one(Input).value = "points"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and isinstance(dialog, NameScreen)
        assert "shipped preset" in str(dialog.query_one("#name-error").render())
        await pilot.press("ctrl+u", *"mine", "enter")
        await pilot.pause()
        assert app.screen is screen and screen.preset.name == "mine"
        assert key(screen, "target").value == "50"
    path = private_dirs / "config" / "rules" / "mine.toml"
    assert load_rules_file(path).target == 50


async def test_an_unreadable_preset_shows_why_and_save_cannot_write_over_it(private_dirs):
    """A play-tester's broken preset showed its error above the previous preset's keys, and
    Save (it is yours) would have written those over the file its owner may mean to fix. Now
    its keys and buttons are hidden, Save and Save as refuse, and the file is left as it was."""
    from ono99_tui.engine.rules import DEFAULT

    rp.save_preset("mine", dataclasses_replace(DEFAULT, target=50))
    broken = private_dirs / "config" / "rules" / "broken.toml"
    broken.write_text("target = [oops\n")
    before = broken.read_text()
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RulesViewScreen("mine"))
        await pilot.pause()
        screen = app.screen
        assert key(screen, "target").value == "50" and key(screen, "target").display
        screen.reload("broken")
        await pilot.pause()
        assert screen.preset.name == "broken"
        text = str(screen.query_one("#rules-text").render())
        assert "broken cannot be read" in text and "Fix the file" in text
        shown = [w for w in screen.query(".rule-row, .rule-help, #rules-buttons") if w.display
                 and w.styles.display != "none" and w.region.area]
        assert shown == []
        screen.action_save()
        await pilot.pause()
        assert broken.read_text() == before
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and broken.read_text() == before
        screen.reload("mine")
        await pilot.pause()
        assert key(screen, "target").value == "50" and key(screen, "target").region.area


def test_rules_list_says_which_of_your_presets_cannot_be_read_or_are_not_used(private_dirs):
    """A play-tester's damaged, empty-named and folder presets were listed as "your preset", and
    a rules/points.toml was ignored in silence (a shipped preset has that name)."""
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.toml").write_text("target = [oops\n")
    (folder / "folder.toml").mkdir()
    (folder / "points.toml").write_text("target = 50\n")
    (folder / "fast.toml").write_text("# Fast games\ntarget = 50\n")
    out = ono99("rules", "list")
    assert out.returncode == 0 and out.stderr == ""
    lines = {line.split()[0]: line for line in out.stdout.splitlines()}
    assert lines["fast"].split(None, 1)[1] == f"Fast games  (yours: {folder / 'fast.toml'})"
    assert lines["broken"].split(None, 1)[1].startswith(f"cannot be read: {folder / 'broken.toml'}, line 1")
    assert "cannot be read" in lines["folder"] and "a folder" in lines["folder"]
    assert lines["(not"] == (f"(not used: {folder / 'points.toml'}: a shipped preset has the name 'points'; "
                             "rename the file to use it)")
    assert not lines["points"].count("yours")


async def test_unsaved_edits_are_not_lost_by_escape_or_by_showing_another_preset(private_dirs):
    # a play-tester changed a key of her preset, pressed Escape, and the change was gone unasked
    from ono99_tui.tui.screens.menu import MenuScreen
    from ono99_tui.tui.screens.notice import _Notice
    from textual.widgets import OptionList

    path = rp.save_preset("mine", rp.resolve("standard")[0])
    before = path.read_text()
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RulesViewScreen("mine"))
        await pilot.pause()
        screen = app.screen
        await pilot.press("escape")  # nothing edited: straight back
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        key(screen, "target").value = "150"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, _Notice) and app.screen.title_text == "Unsaved changes to mine"
        await pilot.press("enter")  # Keep editing (the first button, and Escape's answer)
        await pilot.pause()
        assert app.screen is screen and key(screen, "target").value == "150"
        screen.query_one("#presets", OptionList).focus()
        await pilot.press("up")  # another preset, with the edit unsaved: asked too
        await pilot.pause()
        assert isinstance(app.screen, _Notice)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.preset.name == "mine" and key(screen, "target").value == "150"
        screen.query_one("#save").press()  # saved: leaving asks nothing
        await pilot.pause()
        assert "target = 150" in path.read_text()
        key(screen, "target").value = "120"
        await pilot.pause()
        await pilot.press("ctrl+r")  # rename, with an edit unsaved: asked; Discard puts the file's value back
        await pilot.pause()
        await pilot.click("#btn-discard")
        await pilot.pause()
        await pilot.press("escape")  # (out of the Rename box)
        await pilot.pause()
        assert app.screen is screen and key(screen, "target").value == "150" and not screen.edited
        key(screen, "target").value = "120"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.click("#btn-discard")
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        app.push_screen(screen := RulesViewScreen("standard"))  # shipped: Ctrl+R says no, asks nothing
        await pilot.pause()
        key(screen, "target").value = "60"
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen is screen and key(screen, "target").value == "60" and screen.edited
    assert "target = 150" in path.read_text() and path.read_text() != before


async def test_unsaved_changes_to_your_own_preset_offer_save_and_ctrl_o_saves(private_dirs):
    """A play-tester: "Unsaved changes" said "Save (or Save as) keeps them" and offered only Keep
    editing and Discard changes; Save was a button at the very end of the keys, in no footer."""
    from textual.widgets import OptionList

    from ono99_tui.tui.screens.menu import MenuScreen
    from ono99_tui.tui.screens.notice import _Notice
    from tests.test_playtest_small import shown

    path = rp.save_preset("mine", rp.resolve("standard")[0])
    other = rp.save_preset("other", rp.resolve("standard")[0])
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        assert "^o Save" in shown(app)  # the key, in the footer
        key(screen, "target").value = "150"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, _Notice)
        assert [str(b.label) for b in dialog.query("Button")] == ["Keep editing", "Save", "Discard changes"]
        assert app.focused.id == "btn-stay"  # the safe answer first, and Escape's
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and key(screen, "target").value == "150" and "target = 150" not in path.read_text()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("right", "enter")  # Save: saved, then left as asked
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)
        assert "target = 150" in path.read_text() and "Saved mine" in _notices(app)

        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        key(screen, "target").value = "120"
        await pilot.pause()
        await pilot.press("ctrl+o")  # Save by its key, from a key's field
        await pilot.pause()
        assert "target = 120" in path.read_text() and not screen.edited
        await pilot.press("escape")  # saved: leaving asks nothing
        await pilot.pause()
        assert isinstance(app.screen, MenuScreen)

        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        key(screen, "target").value = "110"
        await pilot.pause()
        presets = screen.query_one("#presets", OptionList)
        presets.focus()
        await pilot.press("down")  # another preset, "mine" edited: Save saves "mine", then shows the other
        await pilot.pause()
        assert isinstance(app.screen, _Notice)
        await pilot.click("#btn-save")
        await pilot.pause()
        assert app.screen is screen and screen.preset.name == "other" and not screen.edited
        assert "target = 110" in path.read_text() and "target = 110" not in other.read_text()


async def test_unsaved_changes_offer_save_only_where_it_can_save(private_dirs):
    """A shipped preset (read-only), or keys not valid: no Save in the dialog; Ctrl+O on a
    shipped preset says why it does not save."""
    from ono99_tui.tui.screens.notice import _Notice

    rp.save_preset("mine", rp.resolve("standard")[0])
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        for name, value, says in (("standard", "150", "Save as keeps them as your own"),
                                  ("mine", "0", "not valid yet")):
            app.push_screen(screen := RulesViewScreen(name))
            await pilot.pause()
            key(screen, "target").value = value
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, _Notice), name
            assert [str(b.label) for b in app.screen.query("Button")] == ["Keep editing", "Discard changes"], name
            assert says in app.screen.body, (name, app.screen.body)
            await pilot.press("escape")  # Keep editing
            await pilot.pause()
            if name == "standard":
                await pilot.press("ctrl+o")
                await pilot.pause()
                assert any("read-only" in n for n in _notices(app)) and app.screen is screen
            await pilot.press("escape", "right", "enter")  # Discard changes
            await pilot.pause()


def _in_sight(screen, widget) -> bool:
    """Whether ``widget`` is on screen inside the Keys box (not scrolled out of it)."""
    keys = screen.query_one("#rules-keys")
    return bool(widget.region.area) and keys.content_region.contains_region(widget.region)


async def test_save_and_save_as_with_keys_not_valid_say_why_and_show_the_first_problem(private_dirs):
    """A play-tester's Ctrl+O on a deck too small only rang the bell: at 80x24 nothing changed on
    screen and the reason was at the bottom of the keys, a dozen Tabs away; Ctrl+S (Save as) with
    a key marked invalid far up was as silent. Now a notice says why, naming the key or the deck,
    and the focus goes to the first problem, in sight."""
    path = rp.save_preset("mine", rp.resolve("standard")[0])
    before = path.read_text()
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        for path_, value in (("hand_size", "10"), ("deck.number_each", "0"), ("deck.minus_ten", "0"),
                             ("deck.hold", "0"), ("deck.reverse", "0"), ("deck.double_play", "0"),
                             ("deck.ninety_nine", "0")):
            key(screen, path_).value = value
        key(screen, "target").focus()  # (the keys scrolled to the top, as a player typing them)
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        said = _notices(app)
        assert said and said[-1].startswith("Not valid, not saved: a 10-card deck is too small"), said
        assert path.read_text() == before
        assert app.focused is key(screen, "deck.number_each") and _in_sight(screen, app.focused)

        key(screen, "target").value = "-5"
        key(screen, "deck.ninety_nine").focus()  # (the keys scrolled well below target)
        await pilot.pause()
        assert not _in_sight(screen, key(screen, "target"))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen  # no name asked for rules that cannot be saved
        assert _notices(app)[-1] == "Not valid, not saved: target: -5 is out of range; allowed: a whole number from 10 to 999"
        assert app.focused is key(screen, "target") and _in_sight(screen, app.focused)
        assert _in_sight(screen, screen.query_one("#key-target-help"))  # the reason under it too
    assert path.read_text() == before and sorted(p.name for p in path.parent.iterdir()) == ["mine.toml"]


async def test_renaming_the_preset_settings_use_renames_it_in_settings_too(private_dirs):
    """A play-tester renamed the preset Settings use (rules = "mine"): quick games went on under
    the old name, and the next start said "Settings: rules: no preset or file named 'mine'" and
    used standard. Now Settings (this run's and config.toml) name the new name; the description
    ono99 wrote ("House rules: mine (from standard)") follows it, one the player typed stays."""
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.store.settings import Settings, load_settings, save_settings

    rp.save_preset("mine", dataclasses_replace(DEFAULT, target=50), "House rules: mine (from standard)")
    rp.save_preset("club", DEFAULT, "Our club rules: mine")
    config = save_settings(Settings(rules="mine", player_name="Ann"))
    from ono99_tui.store.last_setup import LastSetup, load_last_setup, save_last_setup

    save_last_setup(LastSetup((("Ann", "human"), ("Bo", "bot:easy")), "mine", "rules"))  # New game's memory
    app = Ono99App(bot_delay=600, settings=load_settings()[0])
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("ctrl+u", *"ours", "enter")
        await pilot.pause()
        assert app.screen is screen and screen.preset.name == "ours"
        assert screen.preset.description == "House rules: ours (from standard)"
        assert _notices(app)[-1] == "Renamed mine to ours. Settings now use ours for new games (saved)."
        settings, problems = load_settings()
        assert settings == Settings(rules="ours", player_name="Ann") and problems == []
        assert app.settings.rules == "ours"
        assert load_last_setup()[0].rules == "ours"  # (New game had offered "mine" as a file of that name)
        screen.reload("club")  # one Settings do not use: renamed, its own words kept, Settings as they were
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("ctrl+u", *"club two", "enter")
        await pilot.pause()
        assert screen.preset.name == "club two" and screen.preset.description == "Our club rules: mine"
        assert _notices(app)[-1] == "Renamed club to club two."
        assert load_settings()[0].rules == "ours"
        await pilot.press("escape")
        await pilot.pause()
        app.menu_choice("quick")  # this run's quick game: the renamed rules, by their new name
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.setup.rules_label == "ours" and app.screen.table.game.rules.target == 50
    assert not (config.parent / "rules" / "mine.toml").exists()
    again = Ono99App(bot_delay=600, settings=load_settings()[0])  # the next start: no warning, the same rules
    assert again.notices == [] and again.rules_label == "ours" and again.rules.target == 50


async def test_deleting_the_preset_settings_use_says_so_and_settings_go_back_to_standard(private_dirs):
    """A play-tester deleted the preset Settings use: nothing said so, this run's quick games went
    on with it, and the next start warned and fell back to standard. Now the Delete question says
    Settings go back to standard, and on Delete they do (saved); deleting another preset leaves
    Settings alone and says nothing of them."""
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.tui.screens.notice import _Notice
    from ono99_tui.store.settings import Settings, load_settings, save_settings

    rp.save_preset("mine", dataclasses_replace(DEFAULT, target=50))
    rp.save_preset("other", DEFAULT)
    save_settings(Settings(rules="mine"))
    app = Ono99App(bot_delay=600, settings=load_settings()[0])
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.quick_setup().rules.target == 50
        app.push_screen(screen := RulesViewScreen("other"))
        await pilot.pause()
        await pilot.press("delete")
        await pilot.pause()
        assert isinstance(app.screen, _Notice) and "Settings" not in app.screen.body
        await pilot.click("#btn-delete")
        await pilot.pause()
        assert load_settings()[0].rules == "mine" and app.settings.rules == "mine"
        screen.reload("mine")
        await pilot.pause()
        await pilot.press("delete")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, _Notice) and dialog.title_text == "Delete mine?"
        assert "Settings use mine as the rules for new games: they go back to standard." in dialog.body
        await pilot.click("#btn-delete")
        await pilot.pause()
        assert app.screen is screen and [p.name for p in rp.all_presets() if p.mine] == []
        assert _notices(app)[-1] == "Deleted mine. Settings now use standard for new games (saved)."
        settings, problems = load_settings()
        assert settings == Settings(rules="standard") and problems == []
        assert app.settings.rules == "standard"
        assert app.quick_setup().rules_label == "standard" and app.quick_setup().rules.target == 99
    assert Ono99App(bot_delay=600, settings=load_settings()[0]).notices == []


async def test_saving_the_preset_settings_use_is_what_this_runs_quick_games_play(private_dirs):
    """A play-tester's find: the preset Settings use, edited and saved, was not what the next quick
    game of the same run played: it kept the rules read at start until ono99 was started again."""
    from ono99_tui.engine.rules import DEFAULT
    from ono99_tui.store.settings import Settings, load_settings, save_settings

    rp.save_preset("mine", dataclasses_replace(DEFAULT, target=50), "House rules: mine (from standard)")
    save_settings(Settings(rules="mine", player_name="Ann"))
    app = Ono99App(bot_delay=600, settings=load_settings()[0])
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("mine"))
        await pilot.pause()
        key(screen, "target").value = "60"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert _notices(app)[-1] == "Saved mine"
        await pilot.press("escape")
        await pilot.pause()
        app.menu_choice("quick")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.setup.rules_label == "mine" and app.screen.table.game.rules.target == 60


async def test_settings_refuse_rules_that_cannot_be_read(private_dirs):
    """A play-tester's find: Settings offered a preset that cannot be read, saved it as the rules
    to play, and only then warned and played standard. Now it is not saved, and says why."""
    from textual.widgets import Select

    from ono99_tui.store.settings import load_settings

    (private_dirs / "config" / "rules").mkdir(parents=True, exist_ok=True)
    (private_dirs / "config" / "rules" / "broken.toml").write_text("target = [oops\n")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("settings")
        await pilot.pause()
        form = app.screen
        form.query_one("#rules", Select).value = "broken"
        form.action_save()
        await pilot.pause()
        assert app.screen is form  # not saved: still here
        error = str(form.query_one("#form-error").render())
        assert "Not saved: rules:" in error and "broken" in error and "choose other rules" in error, error
    assert load_settings()[0].rules != "broken"


def test_a_presets_backup_follows_its_rename_and_goes_with_its_delete(private_dirs):
    """A play-tester's find: saving a preset twice, then renaming it, left 'NAME.toml.bak' under
    the old name in rules/, a file nothing in ono99 shows."""
    from ono99_tui.engine.rules import DEFAULT

    folder = private_dirs / "config" / "rules"
    rp.save_preset("Extreme 1", dataclasses_replace(DEFAULT, target=50))
    rp.save_preset("Extreme 1", dataclasses_replace(DEFAULT, target=60), overwrite=True)
    assert (folder / "Extreme 1.toml.bak").is_file()
    rp.rename_preset("Extreme 1", "Extreme 2")
    assert sorted(p.name for p in folder.iterdir()) == ["Extreme 2.toml", "Extreme 2.toml.bak"]
    assert "target = 50" in (folder / "Extreme 2.toml.bak").read_text()
    rp.delete_preset("Extreme 2")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("kind", ["link", "folder"])
async def test_a_preset_that_is_a_link_or_a_folder_is_not_offered_to_delete_here(private_dirs, tmp_path, kind):
    """A play-tester's rules/[x].toml, a link (to a file of theirs elsewhere) or a folder: the
    screen said "Fix the file in an editor, or Delete it here"; Delete asked "Delete x?" and then
    answered "Not deleted" (ono99 acts on no link inside its folders; a folder is no file). Now the
    screen says what to do instead, Delete says so at once, and nothing is touched."""
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    target = tmp_path / "elsewhere.toml"
    target.write_text("target = 77\n")
    path = folder / "[x].toml"
    if kind == "link":
        path.symlink_to(target)
    else:
        path.mkdir()
        (path / "keep.txt").write_text("kept")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("standard"))
        await pilot.pause()
        screen.reload("[x]")
        await pilot.pause()
        text = str(screen.query_one("#rules-text").render())
        assert "[x] cannot be read" in text and "Delete it here" not in text
        assert ("is a link" if kind == "link" else "is a folder") in text
        screen.action_delete()
        await pilot.pause()
        assert app.screen is screen  # no "Delete [x]?" to answer
        assert _notices(app)[-1].startswith(f"Not deleted: {path} is a")
    assert target.read_text() == "target = 77\n"
    assert path.is_symlink() if kind == "link" else (path / "keep.txt").read_text() == "kept"


def _misnamed_presets(private_dirs):
    """Files in rules/ that ono99 lists as presets but whose names it would not give one: a
    markup-like name, and one a shipped preset's but for case."""
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "[bold]x.toml").write_text("# my odd one\ntarget = 50\n")
    (folder / "Points.toml").write_text("target = 60\n")
    return folder


def test_a_preset_whose_file_name_is_no_preset_name_can_be_renamed_saved_and_deleted(private_dirs):
    """A play-tester's rules/[bold]x.toml (written by hand, or copied in): listed as "yours" and
    playable (--rules "[bold]x"), but Save, Rename and Delete all refused it, each only after the
    edit or the "Delete?" question, with "preset name '[bold]x': use letters, digits...": a file
    the game shows as the player's own that nothing in the game could fix or remove. Now, as a
    save's misnamed file, it can be renamed to a preset name, saved in place and deleted."""
    from ono99_tui.engine.rules import DEFAULT

    folder = _misnamed_presets(private_dirs)
    assert {p.name for p in rp.user_presets()} == {"[bold]x", "Points"}
    rp.save_preset("[bold]x", dataclasses_replace(DEFAULT, target=55), "my odd one", overwrite=True)
    assert load_rules_file(folder / "[bold]x.toml").target == 55
    rp.rename_preset("[bold]x", "odd")
    assert load_rules_file(folder / "odd.toml").target == 55 and not (folder / "[bold]x.toml").exists()
    rp.delete_preset("Points")
    assert sorted(p.name for p in folder.iterdir()) == ["odd.toml", "odd.toml.bak"]
    with pytest.raises(ValueError, match="preset name"):  # a new name is still a preset name
        rp.save_preset("[bold]y", DEFAULT)
    with pytest.raises(ValueError, match="preset name"):  # (and one that is no file here)
        rp.delete_preset("[bold]y")


async def test_the_rules_screen_deletes_a_preset_whose_file_name_is_no_preset_name(private_dirs):
    from ono99_tui.tui.screens.notice import _Notice

    folder = _misnamed_presets(private_dirs)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("[bold]x"))
        await pilot.pause()
        await pilot.press("delete")
        await pilot.pause()
        assert isinstance(app.screen, _Notice) and app.screen.title_text == "Delete [bold]x?"
        await pilot.click("#btn-delete")
        await pilot.pause()
        assert app.screen is screen and not (folder / "[bold]x.toml").exists()
        assert not any(n.startswith("Not deleted") for n in _notices(app)), _notices(app)
        assert "[bold]x" not in [p.name for p in screen.presets]


@pytest.mark.parametrize("typed, said", [("\u00b2", ""), ("9" * 5000, "(5000 characters)")])
async def test_a_number_int_cannot_read_typed_as_a_rule_value_is_invalid_not_a_traceback(private_dirs, typed, said):
    # "²" (a digit to str.isdigit, not to int) typed as the target stopped the app with ValueError;
    # so did 5,000 digits pasted (int() refuses past 4,300 digits)
    rp.save_preset("mine", rp.resolve("standard")[0])
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen := RulesViewScreen("mine"))
        await settle(pilot)
        key(screen, "target").value = typed
        await settle(pilot)
        help_text = str(key(screen, "target").parent.parent.query_one("#key-target-help").render())
        assert "invalid" in help_text and said in help_text, help_text
        screen.action_save()
        await settle(pilot)
    assert rp.resolve("mine")[0].target == 99  # nothing invalid saved


async def test_a_write_protected_preset_is_not_saved_over_and_the_edits_stay(private_dirs):
    """chmod a-w on a preset of one's own: Save in the House rules editor replaced it all the same
    (a rename ignores the mode). Now it says why, keeps the edits on screen, and the file stays."""
    import stat

    from ono99_tui.engine.rules import DEFAULT

    path = rp.save_preset("mine", dataclasses_replace(DEFAULT, target=50))
    before = path.read_text()
    path.chmod(0o444)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RulesViewScreen("mine"))
        await pilot.pause()
        screen = app.screen
        key(screen, "target").value = "60"
        await pilot.pause()
        screen.action_save()
        await pilot.pause()
        said = " ".join(str(n.message) for n in app._notifications)
        assert "Not saved" in said and "write-protected" in said and "Save as" in said
        assert key(screen, "target").value == "60"
    assert path.read_text() == before and not path.stat().st_mode & stat.S_IWUSR


async def test_saving_a_hand_written_preset_keeps_its_comments_and_changes_one_line(private_dirs):
    """A house-rule tinkerer's preset, written by hand with comments: Save in the editor rewrote it
    from the rules (only the keys that differ, under a new header), every comment gone."""
    folder = private_dirs / "config" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "club.toml"
    text = ("# Our club's rules (Ann, 2026)\ntarget = 150   # longer rounds\n\n[deck]\nten = 6 # fewer tens\n\n"
            "# points, as at the club\n[scoring]\nmode = \"points\"\n")
    path.write_text(text)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RulesViewScreen("club"))
        await pilot.pause()
        screen = app.screen
        key(screen, "deck.ten").value = "8"
        key(screen, "deck.hold").value = "2"
        await pilot.pause()
        screen.action_save()
        await pilot.pause()
    assert path.read_text() == text.replace("ten = 6 # fewer tens\n", "ten = 8 # fewer tens\nhold = 2\n")
    assert path.with_name("club.toml.bak").read_text() == text
    rules = load_rules_file(path)
    assert (rules.deck_ten, rules.deck_hold, rules.target, rules.scoring_mode) == (8, 2, 150, "points")
