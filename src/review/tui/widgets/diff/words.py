"""The words a changed line changed, for the diff view: found in a worker, a batch of hunks at a time
as they come on screen, and kept per hunk (side by side pairs lines otherwise, so it is part of the
key). A line whose words are not found yet is drawn plain, then redrawn."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.cache import LRUCache
from textual.widget import Widget

from review.core import diff
from review.core.word_diff import Span, hunk_words
from review.services import failures
from review.tui.lifetimes import empty
from review.tui.widgets.diff.code import shown

# (hunk's id, side by side) -> (the hunk, line index -> changed spans).
WordsKey = tuple[int, bool]
Found = dict[WordsKey, tuple[diff.Hunk, dict[int, list[Span]]]]


class ChangedWords:
    """Owned by the view: asks its worker for the hunks drawn, hands the results to `deliver` (which
    posts them to the view, on the UI thread), and keeps them."""

    def __init__(self, view: Widget, deliver: Callable[[Found], object]) -> None:
        self.view, self.deliver = view, deliver
        self._found: LRUCache[WordsKey, tuple[diff.Hunk, dict[int, list[Span]]]] = LRUCache(4096)
        self._wanted: dict[WordsKey, diff.Hunk] = {}
        self._running = False

    def spans(self, hunk: diff.Hunk, line_index: int, paired: bool) -> list[Span] | None:
        """A line's changed words; a hunk not yet read is asked of the worker (None meanwhile)."""
        if not hunk.removed or not hunk.added:
            return None
        key = (id(hunk), paired)
        found = self._found.get(key)
        if found is not None and found[0] is hunk:
            return found[1].get(line_index)
        if key not in self._wanted:
            self._wanted[key] = hunk
            if not self._running:
                self._running = True
                self.view.call_after_refresh(self._ask)
        return None

    def clear(self) -> None:
        """Forget what was found (a benchmark times finding them again)."""
        empty(self._found)

    def found(self, found: Found) -> None:
        """The worker's answer, on the UI thread: kept, and the next batch asked for."""
        for key, value in found.items():
            self._found[key] = value
        self._ask()

    def _ask(self) -> None:
        wanted, self._wanted = self._wanted, {}
        if not wanted:
            self._running = False
            return
        self.view.run_worker(partial(self._find, wanted), thread=True, group="diff-words", name="diff-words")

    def _find(self, wanted: dict[WordsKey, diff.Hunk]) -> None:
        """In a thread: each hunk's changed words, on its lines as drawn."""
        found: Found = {}
        for key, hunk in wanted.items():
            lines = hunk.lines
            try:
                words = hunk_words([line.kind for line in lines], [shown(line.text) for line in lines], in_order=key[1])
            # The submission's text, however odd, costs its marks at most, never the console.
            except Exception as error:
                failures.record("changed words of a hunk", error)
                words = {}
            found[key] = (hunk, words)
        self.deliver(found)
