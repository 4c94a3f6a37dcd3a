"""The zygote leans on two things of Textual's that are not its public API (Textual is pinned
exactly; these tests fail the day an upgrade moves them, instead of sessions quietly slowing down
or web tabs opening on the wrong driver):

- tui/warm.py keeps Stylesheet._parse_rules's parsed rule sets for the process;
- a web tab's child re-reads textual.constants once its environment is set (cli.session_zygote),
  because App.get_driver_class reads constants.DRIVER when an app is made."""

import inspect
import subprocess
import sys


def test_stylesheet_parse_rules_is_where_the_warm_up_shares_it_and_takes_what_it_passes():
    from textual.css.stylesheet import Stylesheet

    params = list(inspect.signature(Stylesheet._parse_rules).parameters)
    assert params == ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"], params
    assert "_variables" in inspect.getsource(Stylesheet.__init__)  # (part of the cache key)


def test_the_shared_cache_parses_each_stylesheet_once_and_an_app_still_styles_from_it():
    code = (
        "import asyncio\n"
        "from textual.app import App\n"
        "from textual.widgets import Static\n"
        "from ono99_tui.tui import warm\n"
        "warm._share_parsed_css()\n"
        "class A(App):\n"
        "    CSS = 'Static { color: red; }'\n"
        "    def compose(self):\n"
        "        yield Static('x')\n"
        "async def run():\n"
        "    for _ in range(2):\n"
        "        async with A().run_test() as pilot:\n"
        "            colour = pilot.app.query_one(Static).styles.color\n"
        "            print(colour.rgb, len(warm._PARSED))\n"
        "asyncio.run(run())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (rgb1, n1), (rgb2, n2) = (line.split(") ") for line in out.stdout.strip().splitlines())
    assert rgb1 == rgb2 == "(255, 0, 0" and int(n1) > 0 and int(n1) == int(n2)  # the second app parsed nothing new


def test_rereading_textual_constants_after_import_picks_the_driver_from_the_environment():
    code = (
        "import importlib, os\n"
        "import textual.constants, textual.app\n"
        "os.environ['TEXTUAL_DRIVER'] = 'textual.drivers.web_driver:WebDriver'\n"
        "print(textual.app.App().get_driver_class().__name__)\n"
        "importlib.reload(textual.constants)\n"
        "print(textual.app.App().get_driver_class().__name__)\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("TEXTUAL")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["LinuxDriver", "WebDriver"]
