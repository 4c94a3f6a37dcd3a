"""net/ knows no screen: no module under ono99_tui.net imports Textual, Rich or the TUI package
(the join screen lives in tui/join.py; net/ keeps the lobby, client, server and gateways)."""

import ast
import pathlib
import subprocess
import sys

import ono99_tui.net

NET = pathlib.Path(ono99_tui.net.__file__).parent
UI = ("textual", "rich")


def _imports(path: pathlib.Path) -> list[str]:
    """Every module a file imports, relative ones made absolute (function-level imports too)."""
    package = "ono99_tui.net"
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            names += [mod] + [f"{mod}.{a.name}" for a in node.names]
    return names


def test_no_net_source_imports_a_screen_library_or_the_tui():
    files = sorted(NET.glob("*.py"))
    assert len(files) >= 10  # client, lobby, protocol, server, ssh, web, child, ...: the walk really ran
    bad = {f.name: m for f in files for m in _imports(f)
           if m.split(".")[0] in UI or m.startswith("ono99_tui.tui")}
    assert bad == {}, f"net/ imports UI modules: {bad}"


def test_importing_all_of_net_loads_no_textual_and_no_tui():
    """At run time too (an import inside another package can pull them in). textual-serve, which the
    web gateway is built on, logs through Rich: Rich is allowed with net.web only."""
    code = (
        "import sys, pkgutil, importlib\n"
        "p = importlib.import_module('ono99_tui.net')\n"
        "mods = [m.name for m in pkgutil.walk_packages(p.__path__, 'ono99_tui.net.')]\n"
        "for m in sorted(mods, key=lambda m: m.endswith('.web')):\n"
        "    if m.endswith('.web'):\n"
        "        print(' '.join(sorted(x for x in sys.modules if x.split('.')[0] == 'rich')) or '-')\n"
        "    importlib.import_module(m)\n"
        "print(' '.join(sorted(x for x in sys.modules if x.split('.')[0] == 'textual'"
        " or x.startswith('ono99_tui.tui'))) or '-')\n"
    )
    rich_before_web, ui = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                         check=True).stdout.split("\n")[:2]
    assert rich_before_web == "-", rich_before_web
    assert ui == "-", ui


def test_the_lobby_and_the_join_screen_are_where_the_split_put_them():
    import ono99_tui.net.lobby as lobby
    import ono99_tui.tui.join as join

    assert join.JoinPlan is lobby.JoinPlan and join.choose_table is lobby.choose_table
    assert not hasattr(lobby, "JoinApp")
