"""A progress line on stderr for commands that read many submissions: counts and rate, rewritten in
place, only where a person watches (stderr is a terminal); never in a pipe or a log file."""

from __future__ import annotations

import sys
import time


class Progress:
    # Redrawn at most this often: a warm row takes a millisecond, and a terminal is slower than that.
    INTERVAL = 0.1

    def __init__(self, what: str, total: int, shown: bool = True) -> None:
        self.what = what
        self.total = total
        self.count = 0
        self.started = time.monotonic()
        self._drawn = 0.0
        self.shown = shown and total > 0 and sys.stderr.isatty()

    def step(self) -> None:
        self.count += 1
        if not self.shown:
            return
        now = time.monotonic()
        if now - self._drawn >= self.INTERVAL or self.count == self.total:
            self._drawn = now
            elapsed = now - self.started
            rate = self.count / elapsed if elapsed > 0 else 0.0
            sys.stderr.write(
                f"\r{self.what}: {self.count}/{self.total} submissions · {rate:.0f}/s · {elapsed:.0f} s\x1b[K"
            )
            sys.stderr.flush()

    def done(self) -> None:
        """The line erased: what follows starts on a clean line."""
        if self.shown and self._drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self._drawn = 0.0
