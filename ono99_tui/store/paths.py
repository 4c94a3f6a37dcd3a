"""Where ono99 keeps things: platformdirs, overridable for tests and portable installs.

ONO99_CONFIG_DIR (settings, themes, rules presets) and ONO99_DATA_DIR (saves,
statistics) win over the platform's usual places.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_path, user_data_path

APP = "ono99"


def config_dir() -> Path:
    return Path(os.environ.get("ONO99_CONFIG_DIR") or user_config_path(APP))


def data_dir() -> Path:
    return Path(os.environ.get("ONO99_DATA_DIR") or user_data_path(APP))


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def user_rules_dir() -> Path:
    return config_dir() / "rules"


def settings_file() -> Path:
    return config_dir() / "config.toml"


def saves_dir() -> Path:
    return data_dir() / "saves"
