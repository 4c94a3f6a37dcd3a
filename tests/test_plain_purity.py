"""The plain front end is lines of text: it loads neither Textual nor Rich, not even to start."""

import subprocess
import sys


def test_plain_modules_import_no_ui_library():
    code = (
        "import sys, pkgutil, importlib\n"
        "p = importlib.import_module('ono99_tui.plain')\n"
        "mods = [m.name for m in pkgutil.walk_packages(p.__path__, 'ono99_tui.plain.')]\n"
        "for m in mods: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(len(mods), bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) >= 4  # console, menu, table, words
    assert out[1:] == ["[]"]


def test_a_whole_plain_session_runs_without_textual_or_rich():
    """The command itself, from the menu through a table and back: still no UI library loaded."""
    code = (
        "import sys, io\n"
        "from ono99_tui.cli import main\n"
        "rc = main(['--plain'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print('RESULT', rc, bad, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], input="g\n1\n1\nq\n" + "s\n?\nq\n", capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "RESULT 0 []" in proc.stderr
    assert "You left the table." in proc.stdout and "Goodbye." in proc.stdout


def test_a_plain_network_table_runs_without_textual_or_rich():
    code = (
        "import sys\n"
        "from ono99_tui.cli import main\n"
        "rc = main(['host', '--plain', '--port', '0', '--bot-delay', '0', '--seats', '2', '--no-save'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print('RESULT', rc, bad, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], input="b\ns\n1\n1\nq\n", capture_output=True,
                          text=True, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "RESULT 0 []" in proc.stderr
    assert "You left the table. The table closes: you were its host." in proc.stdout
