"""Saved sessions as a user meets them: `ono99 saves/resume/stats` and Continue, Load, Save as, undo."""

from contextlib import asynccontextmanager

from textual.widgets import Input

from ono99_tui.store.files import load_record
from ono99_tui.engine.record import Record, SeatSpec
from ono99_tui.store.saves import SaveStore
from ono99_tui.store.stats import load_stats
from ono99_tui.tui.app import Ono99App
from ono99_tui.tui.screens.game import GameScreen
from ono99_tui.tui.screens.load import LoadScreen
from ono99_tui.tui.screens.modals import GameOverScreen, OutScreen, PassScreen, RoundEndScreen
from ono99_tui.tui.widgets.card import CardWidget
from tests.test_saves import damaged_variants, save
from tests.cli import ono99
from tests.waits import load_screen, settle, until_my_turn, until_resumed




def test_saves_cli_list_delete_export_import(private_dirs):
    assert "No saved games" in ono99("saves", "list").stdout
    store = SaveStore()
    save(store, "friday")
    store.path("broken").write_text("not a save")
    out = ono99("saves", "list")
    assert out.returncode == 0
    assert "friday" in out.stdout and "You, Bo (easy), Cy (medium)" in out.stdout and "round" in out.stdout
    assert "broken  [damaged]" in out.stdout
    target = private_dirs / "out.toml"
    assert ono99("saves", "export", "friday", str(target)).returncode == 0
    again = ono99("saves", "export", "friday", str(target))
    assert again.returncode == 2 and "already exists" in again.stderr
    assert ono99("replay", str(target)).returncode == 0
    imported = ono99("saves", "import", str(target))
    assert imported.returncode == 0 and "as 'friday 2'" in imported.stdout
    bad = private_dirs / "bad.toml"
    bad.write_text(damaged_variants(target.read_text())["tampered"])
    refused = ono99("saves", "import", str(bad))
    assert refused.returncode == 2 and "bad.toml" in refused.stderr
    assert ono99("saves", "delete", "broken").returncode == 0
    missing = ono99("saves", "delete", "broken")
    # which folder it looked in: a stranger with ONO99_DATA_DIR set elsewhere sees why
    folder = private_dirs / "data" / "saves"
    assert missing.returncode == 2 and f"no save named 'broken' in {folder}" in missing.stderr
    traversal = ono99("saves", "delete", "../config")
    assert traversal.returncode == 2 and "save name" in traversal.stderr


def test_a_save_file_whose_name_is_no_save_name_is_listed_with_what_to_do_and_can_be_renamed(private_dirs):
    # a copy "mygame (1).toml" (or a sync tool's conflict file, or "Zoé" written by macOS in NFD)
    # made `saves list` crash with a traceback; such a save could be neither opened nor deleted
    import shutil
    import unicodedata

    store = SaveStore()
    save(store, "friday")
    for name in ("mygame (1)", unicodedata.normalize("NFD", "Zoé")):
        shutil.copy(store.path("friday"), store.folder / f"{name}.toml")
    out = ono99("saves", "list")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert (f"mygame (1)  [cannot open] its file name is not a save name: rename it with r in Load, or rename "
            f"the file, e.g. mv '{store.folder}/mygame (1).toml' '{store.folder}/mygame 1.toml'") in out.stdout
    assert "(it is written in another Unicode form, as macOS writes names)" in out.stdout
    assert "friday  " in out.stdout and "rules: standard" in out.stdout  # the others listed as ever
    check = ono99("saves", "check")
    assert check.returncode == 2 and "mygame (1): cannot open: its file name" in check.stdout
    assert check.stdout.splitlines()[-1] == "3 saves replayed in full: 1 ok, 0 damaged, 2 under a file name that is no save name."
    store.rename("mygame (1)", "mygame 1")  # what r in Load does: it opens under its new name
    assert store.load("mygame 1").names == store.load("friday").names
    assert ono99("saves", "delete", unicodedata.normalize("NFD", "Zoé")).returncode == 0
    assert sorted(store.names()) == ["friday", "mygame 1"]
    assert ono99("saves", "delete", "../friday").returncode == 2  # never a way out of the folder
    shutil.copy(store.path("friday"), store.folder / "friday .toml")  # read as "friday", yet not its file
    store.delete("friday ")
    assert sorted(store.names()) == ["friday", "mygame 1"]  # the copy went, the save it looks like stayed


def test_resume_and_stats_cli_errors(private_dirs):
    out = ono99("resume")
    assert out.returncode == 2 and "no unfinished game to resume" in out.stderr
    out = ono99("resume", "nonesuch")
    assert out.returncode == 2 and "no save named 'nonesuch'" in out.stderr
    assert ono99("stats").stdout.strip() == "No finished games yet."


async def test_continue_resumes_the_latest_unfinished_game(private_dirs):
    store = SaveStore()
    g = save(store, "older", plays=5)
    g2 = save(store, "newer", plays=12, seed=9)
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.game.plays == g2.plays and screen.table.save.name == "newer"
        assert g.plays != g2.plays


def _kept_by_a_stopped_server(name: str) -> None:
    """The manifest `ono99 serve` leaves when it stops with ``name``'s table going on (it resumes it)."""
    from ono99_tui.net.manifest import SeatEntry, TableEntry, manifest_path, write_manifest

    seats = [SeatEntry("You", "human", "t" * 30), SeatEntry("Bo", "bot:easy", None), SeatEntry("Cy", "bot:medium", None)]
    write_manifest(manifest_path(), [TableEntry(1, "Table 1", "standard", name, seats)], 2)


async def test_continue_passes_over_a_game_a_network_server_keeps_and_opens_the_latest_local_one(private_dirs):
    """A play-tester's find: once `ono99 serve` (same data folder) kept a save newer than the games
    played here, Continue, plain's c and `ono99 resume` only said "'game 14-07-23' is being played at
    a network table ... It is not opened here", even after the server stopped: no local game could
    be continued that way. They now open the latest game played here; the server's save, named,
    is still refused."""
    import os

    from tests.test_plain import plain

    store = SaveStore()
    local = save(store, "mine", plays=5)
    save(store, "game 14-07-23", plays=12, seed=9)
    os.utime(store.path("mine"), (1_000_000, 1_000_000))  # the server's save is the newest
    _kept_by_a_stopped_server("game 14-07-23")
    resumed = ono99("resume", "--plain", input="q\n")
    assert resumed.returncode == 0 and "Resuming mine." in resumed.stdout, resumed.stderr
    rc, menu = plain("--plain", lines="c\nq\n")
    assert rc == 0 and any("c continue mine;" in line for line in menu) and "Resuming mine." in menu
    assert not any("game 14-07-23" in line for line in menu)
    named = ono99("resume", "game 14-07-23")
    assert named.returncode == 2 and "'game 14-07-23' is being played at a network table that ono99 serve keeps" \
        in named.stderr
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen) and app.screen.table.save.name == "mine"
        assert app.screen.table.game.plays == local.plays
        assert app.screen.table.game_id == store.load("mine").game_id  # the same game: counted once
    store.delete("mine")  # only the server's game is left unfinished: nothing to continue here
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        assert "continue" not in app.menu_available()
    assert not any("c continue" in line for line in plain("--plain", lines="q\n")[1])
    nothing = ono99("resume")
    assert nothing.returncode == 2 and nothing.stderr == (
        f"ono99: no unfinished game to resume in {store.folder}; 'game 14-07-23' goes on at a network table "
        "(ono99 saves list shows them all)\n")


async def test_load_lists_a_damaged_save_explains_it_and_deletes_it(private_dirs):
    store = SaveStore()
    save(store, "good")
    store.path("zz broken").write_text("")
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await load_screen(pilot)
        assert isinstance(screen, LoadScreen)
        broken = next(i for i, info in enumerate(screen.infos) if info.name == "zz broken")
        screen.query_one("#saves").highlighted = broken
        await pilot.press("enter")
        assert isinstance(app.screen, LoadScreen)
        assert "cannot be opened" in str(screen.query_one("#load-note").render())
        await pilot.press("d")
        await pilot.pause()
        await pilot.click("#btn-delete")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [i.name for i in screen.infos] == ["good"]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)


async def test_after_a_rename_or_a_delete_the_highlight_stays_where_the_player_was(private_dirs):
    # a play-tester renamed the third save; the highlight jumped to the first, and the next d
    # asked to delete that one
    import os

    store = SaveStore()
    for n, name in enumerate(("a", "b", "c", "d")):
        save(store, name, seed=n + 1)
        os.utime(store.path(name), (1_000_000 + n, 1_000_000 + n))  # listed newest first: d c b a
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("load")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        listed = lambda: [i.name for i in screen.infos]  # noqa: E731
        highlighted = lambda: screen._current().name  # noqa: E731
        assert listed() == ["d", "c", "b", "a"]
        await pilot.press("down", "down", "r")  # the third: b
        await pilot.pause()
        screen_input = app.screen.query_one(Input)
        screen_input.value = ""
        await pilot.press(*"bee", "enter")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is screen and "bee" in listed() and highlighted() == "bee"
        await pilot.press("d")
        await pilot.pause()
        assert app.screen.title_text == "Delete bee?"
        await pilot.click("#btn-delete")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "bee" not in listed() and highlighted() == listed()[2]  # the one that took its place
        assert sorted(store.names()) == ["a", "c", "d"]


async def wait_for_my_turn(pilot, screen):
    await until_my_turn(pilot, screen)


@asynccontextmanager
async def at_my_turn(seed: int):
    """A quick game against three bots that play at once, 80x24, at this player's first turn."""
    app = Ono99App(bot_delay=0, seed=seed)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        await wait_for_my_turn(pilot, screen)
        yield app, pilot, screen


async def test_save_as_writes_a_copy_to_return_to_and_the_autosave_goes_on_under_its_own_name(private_dirs):
    """Issue 19: Save as moved the running save (and kept recording into it), so "my save" was
    not where the player saved it. Now it is a copy of the game as it stood."""
    async with at_my_turn(5) as (app, pilot, screen):
        autosave = screen.table.save.name
        assert SaveStore().path(autosave).exists() and screen.table.can_save_as
        await pilot.press("ctrl+s")
        await pilot.pause()
        field = app.screen.query_one(Input)
        field.value = "../escape"
        await pilot.pause()
        assert "save name" in str(app.screen.query_one("#name-error").render())
        field.value = "Friday night"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        path = SaveStore().path("Friday night")
        assert path.exists()
        at_save = len(screen.table.game.plays)
        playable = [c.index for c in screen.query(CardWidget) if c.reason is None]
        await pilot.press(str(playable[0]))
        await pilot.pause()
        await until_my_turn(pilot, screen)
        assert len(screen.table.game.plays) > at_save
        screen.table.flush()
        # the copy holds the game as it was saved; the autosave holds every play since
        assert SaveStore().load("Friday night").play_count == at_save
        assert SaveStore().load(autosave).play_count == len(screen.table.game.plays)
        assert screen.table.save.name == autosave
        assert sorted(SaveStore().names()) == sorted(["Friday night", autosave])


async def test_undo_takes_back_my_last_play_and_marks_the_save(private_dirs):
    async with at_my_turn(8) as (app, pilot, screen):
        before = list(screen.table.game.plays)
        playable = [c.index for c in screen.query(CardWidget) if c.reason is None]
        await pilot.press(str(playable[0]))
        await wait_for_my_turn(pilot, screen)
        assert len(screen.table.game.plays) > len(before)
        await pilot.press("u")
        await pilot.pause()
        await wait_for_my_turn(pilot, screen)
        assert screen.table.game.plays == before
        record = load_record(SaveStore().path(screen.table.save.name))
        assert record.meta["undo_used"] is True and record.play_count == len(before)


async def test_undo_pressed_again_and_again_while_the_bots_play_says_so_once(private_dirs):
    """A play-tester's "u u u" while the bots played stacked three copies of the same toast over
    the log and the hand. Once, until the turn comes back."""
    async with at_my_turn(8) as (app, pilot, screen):
        app.bot_delay = 600  # from here the bots wait: the turn stays theirs
        playable = [c.index for c in screen.query(CardWidget) if c.reason is None]
        await pilot.press(str(playable[0]), "u", "u", "u")
        await pilot.pause()
        assert not screen._human_may_play()
        told = [n for n in app._notifications if "undo when it is your turn" in str(n.message)]
        assert len(told) == 1


async def test_undo_refused_is_said_again_once_its_toast_has_gone(private_dirs):
    """A play-tester in hot seat: the first u said why, every later u said nothing. Said once
    while its toast is up (the test above); after that, again."""
    from ono99_tui.tui.screens import game

    async with at_my_turn(8) as (app, pilot, screen):
        await pilot.press("u")  # nothing played this round yet
        await pilot.pause()
        why, when = screen._undo_refused
        screen._undo_refused = (why, when - game.UNDO_TOAST_S)  # said that long ago: its toast has gone
        await pilot.press("u")
        await pilot.pause()
        told = [str(n.message) for n in app._notifications]
        assert len(told) == 2 and told[0] == told[1] and told[0].startswith("Nothing to undo: you have not "
                                                                             "played in this round yet"), told


async def test_an_undo_that_could_not_hide_the_next_draw_is_not_offered_and_u_says_why(private_dirs):
    """A play-tester's crash: with one card left to draw, undo is refused (docs/rules.md U3), and
    the table's refusal went up through the key as a traceback (the hand already rearranged).
    Now the footer does not offer Undo, and u says why in one toast; nothing changes."""
    from ono99_tui.engine.rules import rules_from_dict
    from ono99_tui.table import TableSession

    tiny = rules_from_dict({"deck": {"number_each": 1, "ten": 1, "minus_ten": 0, "hold": 0, "reverse": 0,
                                     "double_play": 0, "ninety_nine": 0}})
    for seed in range(40):
        table = TableSession([SeatSpec("Ann"), SeatSpec("Bo", "bot:easy")], tiny, seed=seed)
        table.play_bots()
        if table.over or table.current != 0:
            continue
        table.submit(0, table.game.legal_plays()[0])
        table.play_bots()
        if not table.over and (table.undo_refused(0) or "").startswith("cannot undo: the draw pile"):
            break
    else:
        raise AssertionError("no seed left too few cards to hide an undo")
    SaveStore().write("tiny", Record.from_game(table.game, table.seats, {"rules": "tiny"}))
    app = Ono99App(bot_delay=0, resume_name="tiny")
    async with app.run_test(size=(80, 24)) as pilot:
        await until_resumed(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await wait_for_my_turn(pilot, screen)
        plays = list(screen.table.game.plays)
        hand = [c.card for c in screen.query(CardWidget)]
        assert app.screen.active_bindings["u"].binding.action == "undo_refused"  # not shown in the footer
        await pilot.press("u", "u")
        await pilot.pause()
        assert app.is_running and app.screen is screen
        assert screen.table.game.plays == plays and [c.card for c in screen.query(CardWidget)] == hand
        told = [str(n.message) for n in app._notifications]
        assert told == ["Cannot undo: the draw pile would hold 1 card, too few to shuffle the cards drawn "
                        "since back in unseen."], told


async def play_on(pilot, screen, until=lambda: False) -> None:
    """Play the first playable card at each of our turns and go on after every notice, until the
    game is over (its notice up) or ``until()`` holds."""
    app = pilot.app
    for _ in range(3000):
        if isinstance(app.screen, GameOverScreen) or until():
            return
        if isinstance(app.screen, (RoundEndScreen, PassScreen, OutScreen)):
            await pilot.press("enter")
        elif screen._human_may_play():
            await pilot.press(str([c.index for c in screen.query(CardWidget) if c.reason is None][0]))
        else:
            await settle(pilot)


async def test_a_bot_delay_too_short_for_a_timer_still_lets_the_bots_play(private_dirs):
    # ONO99_BOT_DELAY=0.000001 (or Settings' 1e-07): "Waiting for Di..." for good, every launch
    app = Ono99App(bot_delay=1e-6, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        await wait_for_my_turn(pilot, screen)  # the bots before this seat played
        plays = len(screen.table.game.plays)
        await pilot.press(str([c.index for c in screen.query(CardWidget) if c.reason is None][0]))
        await wait_for_my_turn(pilot, screen)  # and after it, round to this seat again
        assert len(screen.table.game.plays) > plays + 1


def _short_game_app(tmp_path) -> Ono99App:
    """The app set for a short game: one token each, no extra life (a quick game ends soon)."""
    rules = tmp_path / "short.toml"
    rules.write_text("[scoring]\ntokens = 1\nextra_life = false\n")
    return Ono99App(bot_delay=0, seed=11, rules_spec=str(rules))


async def test_leaving_a_finished_game_that_could_not_be_saved_asks_first(private_dirs, tmp_path):
    # a play-tester's full disk: a whole game to "Game over" and back to the menu without a word
    # that its end was saved nowhere (leaving mid-game asked; leaving a finished one did not)
    from ono99_tui.store.paths import data_dir
    from ono99_tui.tui.screens.notice import _Notice

    data_dir().mkdir(parents=True, exist_ok=True)
    (data_dir() / "saves").write_text("not a folder\n")
    app = _short_game_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        await play_on(pilot, screen)
        assert isinstance(app.screen, GameOverScreen) and screen.table.over
        await pilot.click("#btn-menu")
        await settle(pilot)
        assert isinstance(app.screen, _Notice)
        assert "This game could not be saved" in str(app.screen.query_one(".dialog-body").render())


async def test_a_finished_game_counts_in_the_statistics(private_dirs, tmp_path):
    app = _short_game_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        await play_on(pilot, screen)
        game = screen.table.game
        assert game.over
    players, problem = load_stats()
    assert problem is None and players["You"]["games"] == 1
    assert players["You"]["wins"] == (game.winner == 0)
    assert players["You"]["faced"]["medium"]["games"] == 1
    assert players["You"]["rounds_lost"] == sum(1 for r in game.round_log if r["loser"] == 0)
    out = ono99("stats")
    assert out.returncode == 0
    row = next(line for line in out.stdout.splitlines() if line.startswith("You "))
    assert f"medium {int(game.winner == 0)}/1" in row


async def test_a_game_over_at_its_deal_counts_in_the_statistics(private_dirs):
    """R5.2 with a deck of 99s: a game whose every round was lost before anyone played (its record
    has plays = 0) was never counted; it is, once, as the table screen shows its end."""
    from ono99_tui.tui.setup import TableSetup
    from tests.test_table_session import ALL_AT_THE_DEAL, ended_at_the_deal

    app = Ono99App(bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_game(TableSetup([SeatSpec("You"), SeatSpec("Bo", "bot:random")], ALL_AT_THE_DEAL, "tiny",
                                  seed=ended_at_the_deal()))
        await pilot.pause()
        screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))  # (its rounds' notices over it)
        await play_on(pilot, screen)
        assert isinstance(app.screen, GameOverScreen) and screen.table.game.plays == []
    players, problem = load_stats()
    assert problem is None and players["You"]["games"] == 1 and players["You"]["faced"]["random"]["games"] == 1


def test_a_game_is_counted_once_whatever_copies_of_it_are_finished(private_dirs):
    """A play-tester's find: `ono99 saves restore NAME` of a finished game, finished again, counted
    the same game twice in `ono99 stats`; importing one unfinished export twice and finishing each
    copy did the same. The statistics remember which games (meta.game) they have counted."""
    import re

    from tests.test_plain import plain, saved_name

    short = private_dirs / "short.toml"
    short.write_text("[scoring]\ntokens = 1\nextra_life = false\n")
    to_the_end = "1\n1\n\n" * 400 + "\nq\n"  # (the play again question: Enter, then q at the menu)

    def games() -> int:
        row = re.search(r"^You\s+(\d+)\s", ono99("stats").stdout, re.M)
        return int(row.group(1)) if row else 0

    plain("--plain", "--rules", str(short), lines="g\n" + to_the_end)
    (name,) = SaveStore().names()
    assert SaveStore().load(name).replay().over and games() == 1
    assert ono99("saves", "restore", name).returncode == 0
    assert not SaveStore().load(name).replay().over  # the .bak: the game before its end
    rc, lines = plain("resume", "--plain", name, lines=to_the_end)
    assert rc == 0 and any(line.startswith("Game over after") for line in lines)
    assert SaveStore().load(name).replay().over and games() == 1

    _, lines = plain("--plain", "--rules", str(short), lines="g\n1\n")  # one play, then left
    unfinished = saved_name(lines)
    export = private_dirs / "export.toml"
    assert ono99("saves", "export", unfinished, str(export)).returncode == 0
    copies = [re.search(r"as '(.+?)'", ono99("saves", "import", str(export)).stdout).group(1) for _ in range(2)]
    for copy in [unfinished, *copies]:
        rc, lines = plain("resume", "--plain", copy, lines=to_the_end)
        assert rc == 0 and any(line.startswith("Game over after") for line in lines)
    assert games() == 2  # the first game, and this one once


async def test_save_as_offers_a_free_name_and_a_taken_one_keeps_the_dialog_open(private_dirs):
    """A play-tester pressed Enter on what Save as suggested, this game's own name: always taken,
    so it was refused and the dialog closed. Now it suggests a copy's name, and a taken name
    is refused in the dialog, which stays open for another."""
    from ono99_tui.tui.screens.save_as import SaveAsScreen

    async with at_my_turn(5) as (app, pilot, screen):
        own = screen.table.save.name
        await pilot.press("ctrl+s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SaveAsScreen) and dialog.query_one(Input).value == f"{own} copy"
        dialog.query_one(Input).value = own
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog and "already exists" in str(dialog.query_one("#name-error").render())
        await pilot.press("ctrl+u", *"kept", "enter")
        await pilot.pause()
        assert app.screen is screen and SaveStore().path("kept").exists()
        await pilot.press("ctrl+s", "enter")
        await pilot.pause()
        assert app.screen is screen and SaveStore().path(f"{own} copy").exists()


async def test_leaving_a_game_that_could_not_be_saved_asks_first(private_dirs):
    """A stranger's find: with a file where the saves folder should be, the game said "Not
    saving" once, and Escape (the footer's "Menu") then left at once, every play of it lost."""
    from ono99_tui.store.paths import data_dir
    from ono99_tui.tui.screens.notice import _Notice

    data_dir().mkdir(parents=True, exist_ok=True)
    (data_dir() / "saves").write_text("not a folder\n")
    async with at_my_turn(5) as (app, pilot, screen):
        assert screen.table.save is not None and "it is a file, not a folder" in screen.table.save.failed
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, _Notice)
        assert "This game could not be saved" in str(app.screen.query_one(".dialog-body").render())
        await pilot.press("escape")  # Stay (first)
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("right", "enter")  # Leave anyway
        await settle(pilot)
        assert not isinstance(app.screen, (GameScreen, _Notice))


async def test_a_write_protected_game_asks_before_its_plays_are_lost_and_save_as_offers_a_free_name(private_dirs):
    """A stranger's find: a write-protected save (chmod a-w) opened read-only, as it should; but
    Escape then left at once with every play made since lost, and Ctrl+S suggested the save's own
    name, which Save as refused ("already exists"). Leaving now asks, and Save as offers a copy's
    name that is free."""
    import os

    from ono99_tui.tui.screens.notice import _Notice

    store = SaveStore()
    save(store, "friday")
    save(store, "friday copy")  # (taken: the next free name is offered)
    path = store.path("friday")
    os.chmod(path, 0o444)
    before = path.read_bytes()
    app = Ono99App(bot_delay=0, resume_name="friday")
    async with app.run_test(size=(80, 24)) as pilot:
        await until_resumed(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.table.save.read_only
        from textual.widgets import Log

        # why it is read-only stays in the log, under the game so far (its toast goes)
        logged = " ".join(str(line) for line in screen.query_one("#log", Log).lines)
        assert "▸ 'friday' is write-protected (chmod a-w)" in logged, logged
        await wait_for_my_turn(pilot, screen)
        playable = [c.index for c in screen.query(CardWidget) if c.reason is None]
        await pilot.press(str(playable[0]))
        await wait_for_my_turn(pilot, screen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, _Notice)
        body = str(app.screen.query_one(".dialog-body").render())
        assert "opened read-only" in body and "saved nowhere" in body and "Ctrl+S" in body
        await pilot.press("escape")  # Stay
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("ctrl+s")
        await pilot.pause()
        field = app.screen.query_one(Input)
        assert field.value == "friday copy 2"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and not screen.table.save.read_only
        assert store.path("friday copy 2").exists()
        await pilot.press("escape")  # saving now: leaves without a question
        await settle(pilot)
        assert not isinstance(app.screen, (GameScreen, _Notice))
    assert path.read_bytes() == before
    assert load_record(store.path("friday copy 2")).play_count > load_record(path).play_count


async def test_the_tables_news_stays_in_the_log_after_its_toast_has_gone(private_dirs):
    """A stranger's find: a move timer's "a bot plays this card for them" (or who left, or a save
    that failed) was a toast only, gone after 12 s, so the log read that card as the player's.
    Every notice is written in the log too, as text (never markup or a control character)."""
    from textual.widgets import Log

    async with at_my_turn(5) as (app, pilot, screen):
        screen.table.tell(["Bo did not play within 120 s: a bot plays this card for them.", "[b]x[/b]\x1b[31m"])
        await settle(pilot)
        lines = [str(line) for line in screen.query_one("#log", Log).lines]
        assert lines[-2] == "▸ Bo did not play within 120 s: a bot plays this card for them."
        assert lines[-1] == "▸ [b]x[/b]\\x1b[31m"


async def test_a_write_protected_game_asks_at_ctrl_q_and_at_its_end_before_its_plays_are_lost(private_dirs, tmp_path):
    """A stranger's finds: in a game opened read-only, Ctrl+Q quit at once, and playing it to
    the end then choosing the menu lost the whole game, both without a word (Escape asked).
    Both ask now; a second Ctrl+Q at the question quits."""
    import os

    from ono99_tui.tui.screens.notice import _Notice

    app = _short_game_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        screen = app.screen
        await wait_for_my_turn(pilot, screen)
        name = screen.table.save.name
        await pilot.press("escape")
        await settle(pilot)
    path = SaveStore().path(name)
    os.chmod(path, 0o444)
    before = path.read_bytes()
    app = Ono99App(bot_delay=0, resume_name=name)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_resumed(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.table.save.read_only
        await play_on(pilot, screen, lambda: screen.table.unsaved_plays and screen._human_may_play())
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, _Notice) and app.is_running
        assert "saved nowhere" in str(app.screen.query_one(".dialog-body").render())
        await pilot.press("escape")  # Stay
        await settle(pilot)
        assert app.screen is screen
        await play_on(pilot, screen)
        await pilot.press("right", "enter")  # Main menu
        await settle(pilot)
        assert isinstance(app.screen, _Notice)
        body = str(app.screen.query_one(".dialog-body").render())
        assert "its end and the " in body and "nor counted in the statistics" in body
        await pilot.press("escape")  # Stay: the finished table, where Ctrl+S saves a copy
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, _Notice)
        await pilot.press("ctrl+q")  # asked already: a second Ctrl+Q quits
        await settle(pilot)
        assert not app.is_running
    assert path.read_bytes() == before


async def test_continue_finds_a_game_another_ono99_saved_while_the_menu_was_up(private_dirs):
    """A play-tester had two ono99s on one data folder: the second's menu, drawn before the first
    saved its game, said "Continue (no unfinished game)" and c did nothing at all, however often
    pressed. c looks at the saves again: it opens the game, or says there is none."""
    from textual.widgets import OptionList

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        menu = app.screen.query_one("#menu", OptionList)
        assert menu.get_option("continue").disabled
        await pilot.press("c")
        await pilot.pause()
        assert [str(n.message) for n in app._notifications][-1] == "No unfinished game to continue."
        g = save(SaveStore(), "elsewhere", plays=7)  # what the other ono99 does meanwhile
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.table.save.name == "elsewhere"
        assert screen.table.game.plays == g.plays
