"""Wrong passwords counted per address, for the table server's hello and the web page's login."""

from __future__ import annotations

import time


class Guesses:
    """Wrong passwords per address in the last ``window`` seconds: past ``most`` of them, that
    address waits out the window (a play-tester's script tried 2,700 passwords a second)."""

    def __init__(self, most: int = 5, window: float = 60.0):
        self.most, self.window = most, window
        self._wrong: dict[str, list[float]] = {}

    def _recent(self, address: str, now: float) -> list[float]:
        times = [t for t in self._wrong.get(address, ()) if now - t < self.window]
        if times:
            self._wrong[address] = times
        else:
            self._wrong.pop(address, None)
        return times

    def wait(self, address: str) -> int:
        """Seconds ``address`` must wait before its next password is checked (0: none)."""
        now = time.monotonic()
        times = self._recent(address, now)
        return 0 if len(times) < self.most else max(1, int(times[0] + self.window - now + 0.999))

    def wrong(self, address: str) -> None:
        now = time.monotonic()
        if len(self._wrong) > 10_000:  # (many addresses, each a little: forget the expired ones)
            for old in list(self._wrong):
                self._recent(old, now)
        times = self._recent(address, now)
        times.append(now)
        self._wrong[address] = times
