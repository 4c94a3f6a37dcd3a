"""The engine is UI-free: importing all of it loads neither Textual nor Rich."""

import subprocess
import sys


def test_engine_imports_no_ui_library():
    code = (
        "import sys, pkgutil, importlib, ono99_tui.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'ono99_tui.engine.'): importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(len(list(pkgutil.walk_packages(e.__path__))), bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) >= 8  # every engine module was imported
    assert out[1:] == ["[]"]
