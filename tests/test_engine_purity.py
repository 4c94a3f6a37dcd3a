"""Layering: the UI-free packages load neither Textual nor Rich, and nothing imports in a cycle."""

import subprocess
import sys

import pytest

UI_FREE = ("engine", "bots", "store", "lab", "table")


@pytest.mark.parametrize("package", UI_FREE)
def test_ui_free_package_imports_no_ui_library(package):
    code = (
        "import sys, pkgutil, importlib\n"
        f"p = importlib.import_module('ono99_tui.{package}')\n"
        f"mods = [m.name for m in pkgutil.walk_packages(p.__path__, 'ono99_tui.{package}.')]\n"
        "for m in mods: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(len(mods), bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) >= 2  # the package's modules were imported
    assert out[1:] == ["[]"]


def test_no_import_cycle_between_the_command_line_and_the_app():
    """cli.py starts the app; the app must not import cli.py back (at any level)."""
    import ast
    from pathlib import Path

    import ono99_tui

    root = Path(ono99_tui.__file__).parent
    for path in root.rglob("*.py"):
        if path.name in ("cli.py", "__main__.py") and path.parent == root:  # the entry points
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = (node.module or "").split(".")[-1]
                assert not (node.level and target == "cli" or node.module == "ono99_tui.cli"), \
                    f"{path.relative_to(root)} imports the command line"


def test_the_engine_imports_no_layer_above_it():
    """The engine is the bottom layer: the seat checks it needs (bot levels) live in it, so it
    never reaches up into the bots, the table, the lab, the network or the UI."""
    code = (
        "import sys, pkgutil, importlib\n"
        "p = importlib.import_module('ono99_tui.engine')\n"
        "for m in pkgutil.walk_packages(p.__path__, 'ono99_tui.engine.'): importlib.import_module(m.name)\n"
        "from ono99_tui.engine.record import Record, player_problem\n"
        "player_problem('bot:hard'); player_problem('bot:wizard')\n"
        "up = ('bots', 'table', 'lab', 'net', 'tui')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[:2][-1] in up and m.startswith('ono99_tui.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_the_engine_reads_no_disk():
    """The engine parses text it is handed (issue 20, structure): it imports nothing from store/
    (file reading, saves), and no engine module opens, lists or reads a file itself."""
    import ast
    from pathlib import Path

    import ono99_tui.engine as engine

    code = (
        "import sys, pkgutil, importlib\n"
        "p = importlib.import_module('ono99_tui.engine')\n"
        "for m in pkgutil.walk_packages(p.__path__, 'ono99_tui.engine.'): importlib.import_module(m.name)\n"
        "print(sorted(m for m in sys.modules if m.startswith('ono99_tui.store')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
    disk = {"open", "read_text", "read_bytes", "write_text", "iterdir", "glob", "scandir", "listdir", "stat",
            "files", "exists", "is_file"}
    for path in Path(engine.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                    [a.name for a in node.names]
                assert not any(n.split(".")[0] in ("os", "pathlib", "io", "shutil", "tempfile") or "resources" in n
                               for n in names), \
                    f"{path.name} imports {names}"
                assert not (isinstance(node, ast.ImportFrom) and node.module and "store" in node.module.split(".")), \
                    f"{path.name} imports from store"
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                assert name not in disk, f"{path.name}:{node.lineno} calls {name}()"


def test_no_two_modules_import_each_other_at_any_level():
    """No import cycle anywhere in the package, counting imports inside functions too (issue 19:
    screens/modals.py and screens/reference.py imported each other)."""
    import ast
    from pathlib import Path

    import ono99_tui

    root = Path(ono99_tui.__file__).parent
    files = {}
    for path in root.rglob("*.py"):
        parts = ["ono99_tui", *path.relative_to(root).with_suffix("").parts]
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def imported(module: str, node) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name for a in node.names if a.name in files}
        package = module.split(".") if files[module].name == "__init__.py" else module.split(".")[:-1]
        base = ".".join((package[:len(package) - node.level + 1] if node.level else [])
                        + ([node.module] if node.module else []))
        return {f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names} & files.keys()

    graph = {m: set().union(*(imported(m, n) for n in ast.walk(ast.parse(p.read_text()))
                              if isinstance(n, (ast.Import, ast.ImportFrom)))) - {m}
             for m, p in files.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            if m == goal:
                return True
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return False

    cycles = sorted((a, b) for a in graph for b in graph[a] if a < b and reaches(b, a))
    assert not cycles, f"modules that import each other (directly or round about): {cycles}"
