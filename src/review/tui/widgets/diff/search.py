"""Search in the diff, as less and tig do: `/` then a text, `n`/`N` through the matches, every match
marked, the count said in the pane's header. Matched against the rows as drawn (every file, the
hunk and file headers too), in a worker: a 130,000-line diff is searched without the view waiting.
A query all in lower case ignores case; one with a capital letter matches it exactly (smart case)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from textual.worker import get_current_worker

from review.core.text import safe_text
from review.tui.widgets.diff.code import shown
from review.tui.widgets.diff.rows import DiffRows, Row
from review.tui.worker_host import WorkerHost

# Matches found at most: past it the count says "or more" (never a silent cap).
MAX_MATCHES = 100_000


@dataclass(frozen=True, slots=True)
class Match:
    row: int
    # "" on a unified row or a note; side by side, the side the text is on ("-" old, "+" new).
    side: str
    start: int
    end: int


@dataclass(frozen=True)
class Results:
    """A search's result for one set of rows (stale once the rows are rebuilt)."""

    rows: DiffRows
    query: str
    matches: list[Match]
    capped: bool


def row_texts(row: Row) -> list[tuple[str, str]]:
    """(side, text as drawn) of a row: its line's code, or a note's text."""
    if row.kind == "line":
        return [("", shown(row.line.text))] if row.line is not None and row.line.kind != "\\" else []
    if row.kind == "pair":
        return [(side, shown(line.text)) for side, line in (("-", row.line), ("+", row.right)) if line is not None]
    return [("", safe_text(row.text))]


def find(rows: DiffRows, query: str, cancelled: Callable[[], bool] = lambda: False) -> tuple[list[Match], bool]:
    """Every match of `query` in `rows`, in order (and whether MAX_MATCHES cut the list)."""
    folded = query.islower() or not any(c.isalpha() for c in query)
    wanted = query.lower() if folded else query
    matches: list[Match] = []
    for index, row in enumerate(rows):
        if index % 4096 == 0 and cancelled():
            break
        for side, text in row_texts(row):
            haystack = text.lower() if folded else text
            at = haystack.find(wanted)
            while at >= 0:
                matches.append(Match(index, side, at, at + len(wanted)))
                if len(matches) >= MAX_MATCHES:
                    return matches, True
                at = haystack.find(wanted, at + max(1, len(wanted)))
    return matches, False


class SearchedView(WorkerHost, Protocol):
    """What the search needs of its view (the DiffView)."""

    rows: DiffRows

    @property
    def scroll_y(self) -> float: ...

    def search_found(self, found: Results) -> None: ...

    def go_to_match(self, match: Match) -> None: ...

    def repaint(self) -> None: ...


class DiffSearch:
    """The view's search: the query, the matches of the rows shown, the current one."""

    def __init__(self, view: SearchedView) -> None:
        self.view = view
        self.query = ""
        self.matches: list[Match] = []
        self.capped = False
        self.current = -1
        self.searching = False
        self._spans: dict[tuple[int, str], list[tuple[int, int]]] = {}

    @property
    def active(self) -> bool:
        return bool(self.query)

    @property
    def steppable(self) -> bool:
        """Whether n/N go through matches (there are some, or there may be: still searching)."""
        return bool(self.matches) or self.searching

    def start(self, query: str) -> None:
        """Search the rows shown for `query` ("" clears the search)."""
        self.query = query
        self._set([], False)
        self.searching = bool(query)
        self.view.repaint()
        if query:
            self._run()

    def rows_changed(self) -> None:
        """The rows were rebuilt (AI only, side by side, another range): found again in the new ones."""
        if self.query:
            self.start(self.query)

    def _run(self) -> None:
        rows, query, view = self.view.rows, self.query, self.view

        def work() -> None:
            worker = get_current_worker()
            matches, capped = find(rows, query, lambda: worker.is_cancelled)
            if not worker.is_cancelled:
                view.search_found(Results(rows, query, matches, capped))

        view.run_worker(work, thread=True, exclusive=True, group="diff-search", name="diff-search")

    def found(self, found: Results) -> bool:
        """The worker's result (False when it is for rows or a query no longer shown)."""
        if found.rows is not self.view.rows or found.query != self.query:
            return False
        self.searching = False
        self._set(found.matches, found.capped)
        if self.matches:
            # The first match from where the reviewer is reading.
            top = int(self.view.scroll_y)
            self.current = next((i for i, m in enumerate(self.matches) if m.row >= top), 0)
            self.view.go_to_match(self.matches[self.current])
        self.view.repaint()
        return True

    def _set(self, matches: list[Match], capped: bool) -> None:
        self.matches, self.capped, self.current = matches, capped, -1
        self._spans = {}
        for match in matches:
            self._spans.setdefault((match.row, match.side), []).append((match.start, match.end))

    def step(self, delta: int) -> None:
        """n / N: the next or previous match, round from the last to the first."""
        if not self.matches:
            return
        self.current = (self.current + delta) % len(self.matches)
        self.view.go_to_match(self.matches[self.current])
        self.view.repaint()

    def spans(self, row: int, side: str) -> tuple[list[tuple[int, int]], tuple[int, int] | None]:
        """The matches on a row's side, and the current one if it is among them."""
        found = self._spans.get((row, side), [])
        current = None
        if found and 0 <= self.current < len(self.matches):
            match = self.matches[self.current]
            if (match.row, match.side) == (row, side):
                current = (match.start, match.end)
        return found, current

    def text(self) -> str:
        """The search, said in the pane's header."""
        if not self.query:
            return ""
        said = f"/{self.query}: "
        if self.searching:
            return said + "searching…"
        if not self.matches:
            return said + "not found (/ searches again; escape clears)"
        count = f"{len(self.matches)}{' or more' if self.capped else ''}"
        return said + f"{self.current + 1} of {count} (n/N; escape clears)"
