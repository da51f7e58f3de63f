"""Garbage collection tuned for a console that holds analyses of a million objects."""

from __future__ import annotations

import gc
import threading

_timer: threading.Timer | None = None


def tune() -> None:
    """Collect garbage less often. With Python's default thresholds a full collection (85–250 ms, a
    visible pause) ran about five times per submission opened; with these, about once. Young objects
    wait longer: a few MB more at most. Called once, by the command line, for every command."""
    gc.set_threshold(50_000, 20, 20)


def before_exit() -> None:
    """The `review` program is done and its process ends (the console closed: other commands end
    their process at once): Python's last act would be one full collection over everything still
    held (tens of ms after a day of analyses), all of it about to be dropped anyway. Frozen, those
    objects are left out of it."""
    gc.freeze()


def hold(at_most: float = 3.0) -> None:
    """No automatic collection until `release`, or `at_most` seconds: opening a submission allocates
    in a burst, and a full collection over the analyses the console holds (35–250 ms) landing there
    delayed its first frame by as much. The submission screen releases it once that frame is drawn."""
    global _timer
    gc.disable()
    if _timer is not None:
        _timer.cancel()
    _timer = threading.Timer(at_most, gc.enable)
    _timer.daemon = True
    _timer.start()


def release() -> None:
    gc.enable()


def collect() -> None:
    """Everything unreachable, collected now. A submission screen left is thousands of widgets, styles
    and rendered lines in reference cycles: with `tune`'s thresholds they waited for the next full
    collection (young objects: up to 20 × 50,000 before one), so each screen opened added megabytes
    that stayed. The console calls this once per screen left, after triage is painted again."""
    gc.collect()
