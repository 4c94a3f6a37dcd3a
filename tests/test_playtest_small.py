"""Play-testers' finds at 80x24 and on small terminals (40x12): what the player must see is on
screen, and every button and menu entry can be reached and seen. Pilot, waiting on the app's own
signals (its idle message queue), never on a clock."""

import html
import re
from collections import defaultdict

from textual.widgets import Input

from ono99_tui.tui.app import Ono99App


def screen_lines(app) -> list[str]:
    """What the terminal shows, line by line (from the app's own screenshot: each run of text
    where it stands, a cell being 12.2 pixels wide)."""
    svg = app.export_screenshot()
    rows: dict[int, list[str]] = defaultdict(lambda: [" "] * app.size.width)
    pattern = r'<text[^>]*x="([\d.]+)"[^>]*clip-path="url\(#terminal-(?:[\w-]*-)?line-(\d+)\)">([^<]*)</text>'
    for x, n, text in re.findall(pattern, svg):
        start = round(float(x) / 12.2)
        for i, ch in enumerate(html.unescape(text).replace("\xa0", " ")):
            if start + i < app.size.width:
                rows[int(n)][start + i] = ch
    return ["".join(rows[n]).rstrip() for n in range(app.size.height)]


def shown(app) -> str:
    return "\n".join(screen_lines(app))


async def test_settings_not_saved_says_why_in_sight_at_80x24():
    """Bot delay 99, Ctrl+S: nothing seemed to happen, the reason was below the visible part of the form."""
    app = Ono99App(bot_delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.menu_choice("settings")
        await pilot.pause()
        form = app.screen
        field = form.query_one("#bot_delay", Input)
        field.focus()
        field.value = ""
        await pilot.press("9", "9", "ctrl+s")
        await pilot.pause()
        assert app.screen is form  # not saved: still here
        assert "Not saved: bot_delay: must be a number of seconds from 0 to 5" in shown(app)
        box = form.query_one("#settings")
        assert box.scrollable_content_region.contains_region(form.query_one("#form-error").region)
        assert box.scrollable_content_region.contains_region(form.query_one("#save").region)
