"""SVG snapshots of the screens at 80x24 (pytest-textual-snapshot)."""

from ono99_tui.tui.app import Ono99App


def app(**kw):
    return Ono99App(bot_delay=600, seed=7, **kw)  # bots wait: the picture cannot change under us


def test_menu(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24))


def test_table(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24), press=["n"])


def test_table_ascii(snap_compare):
    assert snap_compare(app(ascii=True), terminal_size=(80, 24), press=["n"])


def test_help(snap_compare):
    assert snap_compare(app(), terminal_size=(80, 24), press=["n", "question_mark"])


def test_too_small(snap_compare):
    assert snap_compare(app(), terminal_size=(60, 20), press=["n"])
