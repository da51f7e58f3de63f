"""One console's working set for a cohort: every submission read and understood once.

Triage rows and the submission screen both ask the session, so opening a submission that triage
has analysed reuses that analysis instead of reading its history, diff and blame again. Analyses
are kept per (submission, HEAD, base) — a new commit is a new key — in an LRU bounded twice: at most
`MAX_ANALYSES` analyses, and at most `MAX_LINES` diff lines in all (an analysis costs about 270 bytes
per diff line: 300,000 lines is about 80 MB), the one used last kept whatever its size. A key being
computed by one thread is waited for by the others, never computed twice. Screens call these
methods from worker threads, never from the UI thread.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from review import gitsafe
from review.harness import candidate_tests, runner
from review.services import cohort, store

if TYPE_CHECKING:
    # Loaded by the first analysis, not at start: a warm triage reads rows from the cache and never
    # needs the diff parser, the attribution or Markdown (a fifth of the console's start).
    from review.core import diff
    from review.services import analysis

Key = tuple[str, str, str | None]  # (submission folder, HEAD, base asked for)
DiffListener = Callable[["diff.Diff"], object]


def diff_lines(result: analysis.Analysis) -> int:
    """What an analysis weighs in the session's bound: the lines of its diff (its parsed lines, their
    claims and the display rows made from them all grow with it)."""
    return sum(len(hunk.lines) for file_diff in result.diff.files for hunk in file_diff.hunks)


class Session:
    # A few screens' worth; a cohort of hundreds is re-read on demand, not held.
    MAX_ANALYSES = 32
    # Diff lines held in all: a 130,000-line submission and a few dozen ordinary ones.
    MAX_LINES = 300_000
    # The rows last read ahead or opened: what Enter is likely to open next.
    OPENED_KEPT = 4

    def __init__(self, cohort_dir: Path, max_analyses: int = MAX_ANALYSES, max_lines: int = MAX_LINES) -> None:
        self.cohort_dir = cohort_dir
        self.max_analyses = max_analyses
        self.max_lines = max_lines
        self._analyses: OrderedDict[Key, analysis.Analysis] = OrderedDict()
        self._weights: dict[Key, int] = {}
        self._busy: dict[Key, threading.Lock] = {}
        self._lock = threading.Lock()
        self._early: dict[Key, diff.Diff] = {}  # the diff of an analysis under way, parsed already
        self._listeners: dict[Key, list[DiffListener]] = {}  # who wants that diff as soon as it is parsed
        # Folder as asked -> the key of its last analysis (held, like every other, in `_analyses`).
        self._opened: dict[str, Key] = {}
        self.analyses_made: Counter[tuple[str, str]] = Counter()  # (name, HEAD) -> times analysed: tests, bench

    # ----------------------------------------------------------------- reading submissions

    def base(self) -> str | None:
        return cohort.cohort_base(self.cohort_dir)

    def analyse(
        self, repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit] | None = None, on_diff: DiffListener | None = None
    ) -> analysis.Analysis:
        """The submission at its HEAD, understood; computed once per (submission, HEAD, base).
        `on_diff` gets the diff's first lines and then the whole diff, each as soon as it is parsed
        by whichever thread is computing it (a late listener may get the first lines after the whole:
        `Diff.partial` tells them apart)."""
        base = self.base()
        return self._analyse((str(repo.source), repo.head, base), repo, commits, on_diff)

    def _analyse(
        self, key: Key, repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit] | None, on_diff: DiffListener | None
    ) -> analysis.Analysis:
        base = key[2]
        early = None
        with self._lock:
            found = self._analyses.get(key)
            if found is not None:
                self._analyses.move_to_end(key)
                return found
            gate = self._busy.setdefault(key, threading.Lock())
            if on_diff is not None:
                early = self._early.get(key)
                self._listeners.setdefault(key, []).append(on_diff)
        if early is not None and on_diff is not None:
            on_diff(early)  # another thread is past (part of) the diff already; the rest follows
        with gate:  # a second thread asking for the same key waits here for the first one's result
            with self._lock:
                found = self._analyses.get(key)
                if found is not None:
                    return found

            def diff_parsed(diff: diff.Diff) -> None:  # its first lines, then the whole
                with self._lock:
                    self._early[key] = diff
                    waiting = list(self._listeners.get(key, []))
                for listener in waiting:
                    listener(diff)

            from review.services import analysis

            result = None
            try:
                result = analysis.analyse(repo, base=base, commits=commits, on_diff=diff_parsed)
            finally:
                with self._lock:  # one step: whoever looks finds either the diff under way or the result
                    self._early.pop(key, None)
                    self._listeners.pop(key, None)
                    if result is not None:
                        self.analyses_made[(repo.source.name, repo.head)] += 1
                        self._keep(key, result)
                        self._busy.pop(key, None)
            return result

    def _keep(self, key: Key, result: analysis.Analysis) -> None:
        """Hold `result` as the newest; let the oldest go past either bound (called under the lock)."""
        self._analyses[key] = result
        self._weights[key] = diff_lines(result)
        while len(self._analyses) > 1 and (
            len(self._analyses) > self.max_analyses or sum(self._weights.values()) > self.max_lines
        ):
            oldest, _ = self._analyses.popitem(last=False)
            del self._weights[oldest]

    def held(self) -> tuple[int, int]:
        """How many analyses the session holds, and their diff lines: what its bounds count."""
        with self._lock:
            return len(self._analyses), sum(self._weights.values())

    def open(self, path: Path, on_diff: DiffListener | None = None) -> analysis.Analysis:
        """A submission folder → its analysis at its current HEAD (re-cloned if HEAD moved)."""
        repo = gitsafe.open_submission(path)
        key: Key = (str(repo.source), repo.head, self.base())
        result = self._analyse(key, repo, None, on_diff)
        with self._lock:
            self._opened.pop(str(path), None)
            # Newest last.
            self._opened[str(path)] = key
            if len(self._opened) > self.OPENED_KEPT:
                self._opened.pop(next(iter(self._opened)))
        return result

    def last_opened(self, path: Path, head: str | None) -> analysis.Analysis | None:
        """The analysis `open(path)` last returned, if it was at `head` and is still held: no I/O, so
        the UI thread may ask (a screen paints it at once, while a worker checks that HEAD has not
        moved since)."""
        with self._lock:
            key = self._opened.get(str(path))
            found = self._analyses.get(key) if key is not None else None
        return found if found is not None and head is not None and found.head == head else None

    def row(self, path: Path) -> cohort.Row:
        return cohort.load_row(path, analyse=self.analyse)

    def rows(self, paths: list[Path], workers: int = 4):
        return cohort.load_rows(paths, workers, analyse=self.analyse)

    # ----------------------------------------------------------------- what ran before

    @staticmethod
    def earlier_runs(
        commits: list[gitsafe.Commit],
    ) -> tuple[dict[str, runner.SuiteResult], dict[str, candidate_tests.TestRun]]:
        """Suites and the candidate's own test runs already cached for these commits."""
        suites = {c.sha: s for c in commits for s in [runner.cached_suite(c.sha)] if s is not None}
        tests = {c.sha: t for c in commits for t in [candidate_tests.cached_tests(c.sha)] if t is not None}
        return suites, tests

    # ----------------------------------------------------------------- scores

    @staticmethod
    def scores(path: Path) -> store.ScoreFile:
        return store.read_scores(path)
