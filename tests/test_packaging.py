"""What `pip install .` (the README's install-and-play command) puts on a user's machine.

The test suite runs on an editable install (`pip install -e`), which reads the source tree: a
package left out of pyproject.toml's list works there and is missing for every user. A stranger
found `ono99 --plain` failing after the README's install ("No module named 'ono99_tui.plain'"),
over SSH with the traceback sent to the player. So this installs the package as a user does,
into a folder of its own, and runs it from there."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    # from a copy without build/: setuptools reuses build/lib, so a module missing from the list
    # would still be installed from an earlier build on a developer's machine
    source = tmp_path_factory.mktemp("source") / "ono99"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache", "tests", "benchmarks"))
    target = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(source)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def _source_files() -> set[str]:
    """Every file the package is made of, as installed paths: the package's own, and themes/
    (which installs as ono99_tui/themes)."""
    files = set()
    for base, prefix in ((ROOT / "ono99_tui", "ono99_tui"), (ROOT / "themes", "ono99_tui/themes")):
        for path in base.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".toml", ".tcss"):
                files.add(f"{prefix}/{path.relative_to(base).as_posix()}")
    return files


def test_every_module_and_data_file_is_installed(installed):
    shipped = {p.relative_to(installed).as_posix() for p in (installed / "ono99_tui").rglob("*") if p.is_file()}
    missing = sorted(_source_files() - shipped)
    assert not missing, f"not installed by `pip install .` (pyproject.toml's packages / package-data): {missing}"


def test_the_installed_game_plays_in_lines(installed, tmp_path):
    """The plain front end, from the installed copy alone (run outside the source tree)."""
    # -S: no .pth files, so not the editable install's hook into the source tree (the tests'
    # own install); the dependencies from site-packages, the game from the installed copy only
    path = os.pathsep.join([str(installed), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    env = dict(os.environ, PYTHONPATH=path, ONO99_DATA_DIR=str(tmp_path / "data"),
               ONO99_CONFIG_DIR=str(tmp_path / "config"), NO_COLOR="1")
    where = subprocess.run([sys.executable, "-S", "-c", "import ono99_tui; print(ono99_tui.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
    assert where.stdout.startswith(str(installed)), where.stdout + where.stderr
    proc = subprocess.run([sys.executable, "-S", "-m", "ono99_tui", "--plain"], input="q\n", capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=env)
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stdout + proc.stderr
    assert "O'NO 99" in proc.stdout, proc.stdout
