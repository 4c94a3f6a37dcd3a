"""saves/.index.json: what each save's listing line says, so a listing costs a directory scan.

Only a cache: each entry carries the save file's (mtime_ns, size) and is used only
while the file still has them; anything missing or stale is read again from the save
(its [summary], or a full replay) and the index rewritten. Deleting it loses nothing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .atomic import is_link, write_atomic

NAME = ".index.json"
FORMAT = "ono99-saves-index"
MAX_BYTES = 16 * 1024 * 1024


class SaveIndex:
    def __init__(self, folder: Path):
        self.path = Path(folder) / NAME
        self.entries: dict[str, dict[str, Any]] = {}
        self.changed = False
        self._read()

    def _read(self) -> None:
        try:
            if is_link(self.path):  # never read through a link: its lines could be anyone's
                return
            if os.stat(self.path).st_size > MAX_BYTES or not self.path.is_file():
                return
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return  # missing or broken: rebuilt from the saves
        if isinstance(doc, dict) and doc.get("format") == FORMAT and isinstance(doc.get("saves"), dict):
            self.entries = {k: v for k, v in doc["saves"].items()
                            if isinstance(v, dict) and isinstance(v.get("info"), dict)}

    def get(self, name: str, stamp: tuple[int, int], partial: bool = False) -> dict[str, Any] | None:
        """The entry while the file is unchanged. A partial entry (what the menu learned from a save
        without a trusted summary: its players and whether it is finished, nothing else) is only
        returned when ``partial`` is allowed; a full listing reads that save again and replaces it."""
        entry = self.entries.get(name)
        if entry is not None and entry.get("stamp") == list(stamp) and (partial or not entry.get("partial")):
            return entry["info"]
        return None

    def put(self, name: str, stamp: tuple[int, int], info: dict[str, Any], partial: bool = False) -> None:
        self.entries[name] = {"stamp": list(stamp), "info": info, **({"partial": True} if partial else {})}
        self.changed = True

    def keep_only(self, names: set[str]) -> None:
        gone = set(self.entries) - names
        for name in gone:
            del self.entries[name]
        self.changed = self.changed or bool(gone)

    def flush(self) -> None:
        if not self.changed:
            return
        self.changed = False
        try:
            text = json.dumps({"format": FORMAT, "version": 1, "saves": self.entries}, ensure_ascii=False)
            if is_link(self.path):
                self.path.unlink()  # the link itself (a cache keeps no .bak): what it points at is untouched
            write_atomic(self.path, text, backup=False, durable=False)
        except OSError:
            pass  # a read-only folder: listings just read the saves again next time
