"""A small UI fuzz in the suite: 300 seeded random keys, clicks and resizes; no crash.
(benchmarks/fuzz_ui.py runs the long version, one process per session, counting hangs.)"""

from tests.ui_fuzz import fuzz, make_saves


async def test_random_keys_clicks_and_resizes_never_crash_the_app(private_dirs):
    make_saves()
    out = await fuzz(300, seed=15)
    assert out.crashes == []
    assert out.events >= 300 and len(out.screens) >= 3  # it got about: more than the menu


async def test_page_down_in_a_list_not_laid_out_yet_is_dropped_not_a_crash(private_dirs):
    """Found by the fuzz (seed 104): ctrl+p then pagedown at once raised KeyError in Textual's
    OptionList (the command palette's list had options but no lines yet); the app stopped."""
    from tests.ui_fuzz import _send_key

    from ono99_tui.tui.app import Ono99App

    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(5):
            _send_key(app, "ctrl+p")
            _send_key(app, "pagedown")
            _send_key(app, "pageup")
            await pilot.pause()
            _send_key(app, "escape")
            await pilot.pause()
    assert app.return_code in (None, 0)
