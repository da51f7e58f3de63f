"""The first copies of a cohort, begun before the rest of `review triage` loads: git copies while
Python imports. Apart from the copying itself (gitsafe.clone), so a cohort whose copies are made
already, a warm triage's, loads none of it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from review.gitsafe.env import cache_path_for


def start_copies(folders: list[Path], at_most: int) -> None:
    """Begin, each in a thread of its own, the copies of the first `at_most` of these folders that
    have none in the cache yet: `review triage` calls it before it loads the rest of itself, so git
    copies while Python imports (30 ms of a cold triage). open_submission waits, on the copy's lock,
    for a copy under way; what fails here is met again there, and said. Links and hidden folders are
    left to the caller."""
    for folder in folders:
        if at_most <= 0:
            return
        if cache_path_for(folder).exists():
            continue
        at_most -= 1
        # Loaded here, on the caller's thread, never in the copy's: two threads importing at once see
        # each other's modules half made (dataclasses read a half-made typing).
        from review.gitsafe.clone import open_submission

        threading.Thread(target=_copy_quietly, args=(open_submission, folder), name="early-copy", daemon=True).start()


def _copy_quietly(open_submission: Callable[[Path], object], folder: Path) -> None:
    try:
        open_submission(folder)
    # Met again, and said, when the row is read.
    except Exception:
        pass
