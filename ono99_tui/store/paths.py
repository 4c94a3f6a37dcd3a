"""Where ono99 keeps things: platformdirs, overridable for tests and portable installs.

ONO99_CONFIG_DIR (settings, themes, rules presets) and ONO99_DATA_DIR (saves,
statistics) win over the platform's usual places.

The config and data folders are resolved (links followed) here, once: a folder the
player linked on purpose -- a dotfile manager's, a synced folder -- keeps working.
Inside them nothing is followed: every writer refuses a link (store/atomic.py),
and the saves folder must be a real folder (SaveStore says so when it is a link:
one planted by an archive or a shared folder could point anywhere, /etc included;
to keep saves elsewhere, link or move the data folder itself).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from platformdirs import user_config_path, user_data_path

APP = "ono99"


@lru_cache(maxsize=8)
def _resolved(raw: str) -> Path:
    # once per value (tests change the environment between cases): the folder as it is now; a "~"
    # the shell left unexpanded (quoted: ONO99_DATA_DIR='~/games') is the home folder, not a
    # folder named "~" made in the current one (which a later `rm -rf ~` would take for home)
    return Path(os.path.realpath(os.path.expanduser(raw)))


def config_dir() -> Path:
    return _resolved(os.environ.get("ONO99_CONFIG_DIR") or str(user_config_path(APP)))


def data_dir() -> Path:
    return _resolved(os.environ.get("ONO99_DATA_DIR") or str(user_data_path(APP)))


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def user_rules_dir() -> Path:
    return config_dir() / "rules"


def settings_file() -> Path:
    return config_dir() / "config.toml"


def saves_dir() -> Path:
    return data_dir() / "saves"
