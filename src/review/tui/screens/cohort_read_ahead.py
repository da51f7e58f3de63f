"""The triage's read-ahead: when the cursor rests on a row for a moment, that submission is analysed
in a worker, so Enter finds it read (a warm triage row came from the row cache and has no analysis
yet). Owned by the triage screen, as CohortWatch and SimilarityWatch are."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from textual.timer import Timer

from review.services import cohort
from review.tui.screens.cohort_watch import Triage

# Seconds the cursor rests on a row before it is read ahead.
READ_AHEAD_AFTER = 0.3


class ReadAhead:
    def __init__(self, screen: Triage, current: Callable[[], cohort.Row | None], loading: Callable[[], bool]) -> None:
        self.screen = screen
        self.current = current
        self.loading = loading
        self.timer: Timer | None = None

    def rested(self) -> None:
        """The cursor moved: the row it rests on is read once it has rested there READ_AHEAD_AFTER."""
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.screen.set_timer(READ_AHEAD_AFTER, self.now)

    def now(self) -> None:
        """Not while the rows load: its imports and reading took the GIL from the load (the load's end
        reads the cursor's row)."""
        row = self.current()
        if row is not None and row.complete and row.head is not None and not self.loading():
            work = partial(self.read, Path(row.path))
            self.screen.run_worker(work, thread=True, exclusive=True, group="prefetch", name="prefetch")

    def read(self, path: Path) -> None:
        try:
            # Imported here, in the worker: start-up stays lean, and Enter does not pay 60 ms of imports.
            import review.tui.screens.submission.screen  # noqa: F401
            from review.tui.widgets.diff.code import load_lexers

            analysis = self.screen.session.open(path)
            analysis.sites  # noqa: B018 — the code sites too, as the submission screen needs them
            load_lexers(analysis.diff)
        # A read ahead only: opening the submission reads it again and says what failed.
        except Exception:
            pass
