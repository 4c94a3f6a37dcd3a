"""Every test runs with its own empty config and data folders: the user's are never touched."""

import pytest


@pytest.fixture(autouse=True)
def private_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("ONO99_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("ONO99_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ONO99_BOT_DELAY", raising=False)
    return tmp_path
