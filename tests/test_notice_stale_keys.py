"""A notice is answered only by keys typed after it came up: an Enter meant for the screen before
(the last notice, bunched over SSH, or typed just as the game ended) must not answer the next one
(at a network table that Enter used to answer "Game over" and leave the table unseen)."""

from textual import events
from textual.app import App

from ono99_tui.tui.screens.notice import _Notice


class Host(App):
    answers: list[str]

    def on_mount(self) -> None:
        self.answers = []


async def test_a_key_typed_before_a_notice_came_up_does_not_answer_it():
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        stale = events.Key("enter", "\r")  # read from the terminal now...
        await pilot.pause()
        app.push_screen(_Notice("Game over", "Medium wins.", (("menu", "Main menu"), ("again", "Play again"))),
                        app.answers.append)  # ...handled once the notice is up
        await pilot.pause()
        app.post_message(stale)
        await pilot.pause()
        assert app.answers == [] and isinstance(app.screen, _Notice), "a stale Enter answered the notice"
        stale_escape = events.Key("escape", None)
        notice = _Notice("Round 1 over", "Ann busts.")
        app.push_screen(notice, app.answers.append)
        await pilot.pause()
        app.post_message(stale_escape)
        await pilot.pause()
        assert app.screen is notice and app.answers == []
        await pilot.press("enter")  # typed now: it answers
        assert app.answers == ["ok"]
        await pilot.press("right", "enter")  # the second button of the first notice
        assert app.answers == ["ok", "again"]


async def test_a_notice_dismissed_before_it_was_mounted_does_not_crash_the_app():
    """The table may close a notice in the same tick it pushed it (a round end with the bots going
    on): its mount then found no button to focus and the app died (seen as a 1-in-20 failure of
    the quit-mid-game test under load)."""
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(5):
            notice = _Notice("Round 1 over", "Ann busts.")
            app.push_screen(notice, app.answers.append)
            notice.dismiss("gone")  # before its compose and mount have run
            await pilot.pause()
        assert not isinstance(app.screen, _Notice) and app.answers == ["gone"] * 5
        assert app.is_running


async def test_arrows_and_enter_typed_together_press_the_button_they_point_at():
    """A play-tester's find: on "Out of the game" (Watch | Watch fast | Skip to the end | Main
    menu), Right Right Enter in one read watched fast: one arrow was lost to the focus lag."""
    from tests.test_keys_in_order import together

    buttons = (("watch", "Watch"), ("fast", "Watch fast"), ("skip", "Skip to the end"), ("menu", "Main menu"))
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        for keys, want in [(("right", "right", "enter"), "skip"), (("right", "enter"), "fast"),
                           (("left", "enter"), "menu"), (("right", "right", "right", "right", "enter"), "watch"),
                           (("right", "left", "right", "right", "enter"), "skip")]:
            app.push_screen(_Notice("Out of the game", "You are out.", buttons), app.answers.append)
            await pilot.pause()
            await pilot.pause()
            together(pilot, *keys)
            for _ in range(20):
                await pilot.pause()
                if len(app.answers) and not isinstance(app.screen, _Notice):
                    break
            assert app.answers[-1] == want, (keys, app.answers)
