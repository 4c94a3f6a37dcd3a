"""A non-editable install must carry the themes, presets and stylesheet (themes/ lives at the repo root)."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_themes_presets_and_stylesheet(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                          "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    wheel = next(tmp_path.glob("ono99_tui-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for theme in sorted((ROOT / "themes").glob("*.toml")):
        assert f"ono99_tui/themes/{theme.name}" in names
    assert {"ono99_tui/presets/standard.toml", "ono99_tui/tui/ono99.tcss"} <= names
    assert len([n for n in names if n.startswith("ono99_tui/themes/") and n.endswith(".toml")]) >= 4
