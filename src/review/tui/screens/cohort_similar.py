"""The triage table's Similar column, kept current: the cohort's fingerprint index built in a worker
once the rows are loaded (each submission's fingerprints from the cache when its HEAD was read before),
an arrival fingerprinted alone and compared against it. Owned by the triage screen, as CohortWatch is."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual.message import Message

from review.core import similarity as core
from review.services import cohort, similarity
from review.tui.screens.cohort_watch import Triage


class SimilarityWatch:
    @dataclass
    class Computed(Message):
        """The cohort compared again: name -> (the other holding most of its own code, that share)."""

        index: similarity.Index
        comparison: core.Comparison
        best: dict[str, tuple[str, float]]
        # name -> every other it shares own code with (`similar:NAME` matches each).
        partners: dict[str, list[str]]

    def __init__(self, screen: Triage) -> None:
        self.screen = screen
        self.index: similarity.Index | None = None
        self.comparison: core.Comparison | None = None
        self.best: dict[str, tuple[str, float]] = {}
        self.partners: dict[str, list[str]] = {}
        # One computation at a time: an arrival waits for the cohort's own.
        self.lock = threading.Lock()

    def start(self, paths: list[Path], whole: bool = False) -> None:
        """`paths` read (again) into the index in a worker, then the cohort compared; `whole`: they are
        the whole cohort (listed again by R), so a submission not among them is gone from the index."""
        work = partial(self.compute, paths, whole)
        self.screen.run_worker(work, thread=True, group="similarity", name="triage-similarity")

    def compute(self, paths: list[Path], whole: bool = False) -> None:
        with self.lock:
            try:
                if self.index is None:
                    self.index = similarity.Index(self.screen.cohort_dir)
            except cohort.CohortError:
                return  # the cohort file cannot be read: the rows' load says why; the column stays empty
            if whole:
                self.index.keep_only({path.name for path in paths})
            self.index.load(paths)
            comparison = self.index.compare()
        self.screen.post_message(self.Computed(self.index, comparison, comparison.best(), comparison.partners()))

    def computed(self, message: Computed) -> None:
        self.comparison = message.comparison
        self.best = message.best
        self.partners = message.partners

    def fill_similar(self, row: cohort.Row) -> None:
        """The row's Similar value from the last comparison (rows are replaced as they are read again):
        None until compared; then its top pair (none: it shares nothing), its own fingerprints (the
        share's base) and every submission it shares own code with."""
        comparison = self.comparison
        if comparison is None or row.name not in comparison.own:
            row.similar = None
            return
        found = self.best.get(row.name)
        row.similar = {
            "with": found[0] if found else None,
            "share": found[1] if found else None,
            "own": comparison.own[row.name],
            "partners": self.partners.get(row.name, []),
        }

    def open_pair(self, name: str | None) -> None:
        """The submission beside the ones it shares most code with (`m` on its triage row, or from
        its own screen); until the cohort is compared, said so."""
        index, comparison = self.index, self.comparison
        app = self.screen.app
        if name is None or index is None or comparison is None or name not in index.entries:
            app.notify("The cohort's code is still being compared.", markup=False)
            return
        if name not in comparison.own:
            # Never "0 own fingerprints" for code that was not compared: why it was not, or that it is not yet.
            problem = index.entries[name].problem
            said = (
                f"{name} could not be read for comparing: {problem}" if problem else f"{name} is still being compared."
            )
            app.notify(said, markup=False, severity="warning" if problem else "information")
            return
        from review.tui.screens.similar_pair import SimilarPairScreen

        app.push_screen(SimilarPairScreen(self.screen.context, index, comparison, name))
