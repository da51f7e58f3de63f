"""The diff view: a ScrollView that renders only the rows on screen (Line API), as Toolong does.

A 100,000-line diff is a flat list of small rows; each visible row becomes a Strip on demand,
kept in an LRU cache that is dropped when the rows or the theme change. AI-attributed lines
get the theme's `ai-hunk-background` and the tool's tag in the gutter; each hunk header names
the tools of its lines. The words a changed line changed are marked (bold, underlined, on a
stronger background), found in a worker per hunk as hunks come on screen; a moved block says
where it went or came from, with `↕` in the gutter at both ends; side by side, removed lines
face the lines that replace them. `/` searches the rows (search.py), n/N then go through the matches.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from textual import events, on
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from review.core import diff
from review.core.word_diff import Span
from review.tui.keymap import reading_bindings
from review.tui.lifetimes import empty
from review.tui.widgets.diff.paint import COVERAGE_GUTTER, RowPainter
from review.tui.widgets.diff.rows import MAX_SHOWN, DiffRows, Row
from review.tui.widgets.diff.search import DiffSearch, Match, Results
from review.tui.widgets.diff.words import ChangedWords, Found

GUTTER = 15  # "old_ new_ TG│"
# Side by side needs this many columns in the view itself (each side then shows about 70 of code).
SIDE_BY_SIDE_MIN = 150


class DiffView(ScrollView, can_focus=True):
    """Unified or side-by-side diff, virtualised. Posts HunkChanged as the current hunk moves."""

    HELP_GROUP = "Diff"

    COMPONENT_CLASSES = {
        "diff-view--file",
        "diff-view--hunk",
        "diff-view--current",
        "diff-view--added",
        "diff-view--removed",
        "diff-view--context",
        "diff-view--ai",
        "diff-view--gutter",
        "diff-view--ai-tag",
        "diff-view--unknown-tag",
        "diff-view--base-tag",
        "diff-view--info",
        "diff-view--ran",
        "diff-view--not-ran",
        "diff-view--word-added",
        "diff-view--word-removed",
        "diff-view--moved",
        "diff-view--moved-note",
        "diff-view--blank",
        "diff-view--match",
        "diff-view--match-current",
    }
    DEFAULT_CSS = """
    DiffView { background: $surface; }
    DiffView > .diff-view--file { background: $panel; color: $text; text-style: bold; }
    DiffView > .diff-view--hunk { color: $text-secondary; }
    DiffView > .diff-view--current { background: $primary 30%; color: $text; text-style: bold; }
    DiffView > .diff-view--added { background: $diff-added-background; }
    DiffView > .diff-view--removed { background: $diff-removed-background; }
    DiffView > .diff-view--context { }
    DiffView > .diff-view--ai { background: $ai-hunk-background; }
    DiffView > .diff-view--gutter { color: $text-muted; }
    DiffView > .diff-view--ai-tag { color: $ai-gutter; text-style: bold; }
    DiffView > .diff-view--unknown-tag { color: $warning; text-style: bold; }
    DiffView > .diff-view--base-tag { color: $text-muted; }
    DiffView > .diff-view--info { color: $text-muted; text-style: italic; }
    DiffView > .diff-view--ran { color: $text-success; text-style: bold; }
    DiffView > .diff-view--not-ran { color: $text-error; }
    DiffView > .diff-view--word-added { background: $diff-added-word-background; text-style: bold underline; }
    DiffView > .diff-view--word-removed { background: $diff-removed-word-background; text-style: bold underline; }
    DiffView > .diff-view--moved { color: $text-accent; text-style: bold; }
    DiffView > .diff-view--moved-note { color: $text-accent; text-style: italic; }
    DiffView > .diff-view--blank { background: $panel; }
    DiffView > .diff-view--match { background: $warning 40%; text-style: bold underline; }
    DiffView > .diff-view--match-current { text-style: bold reverse; }
    """
    BINDINGS = [
        # While a search has matches n/N go through them, as in less and tig; ] and [ still go by hunk.
        Binding("n", "search_step(1)", "Next match", id="diff.next-match"),
        Binding("N", "search_step(-1)", "Prev match", id="diff.previous-match"),
        Binding("escape", "clear_search", "Clear search", show=False, id="diff.clear-search"),
        Binding("n,right_square_bracket", "next_hunk", "Next hunk", id="diff.next-hunk"),
        Binding("N,left_square_bracket", "previous_hunk", "Prev hunk", id="diff.previous-hunk"),
        Binding("J,right_curly_bracket", "next_file", "Next file", show=False, id="diff.next-file"),
        Binding("K,left_curly_bracket", "previous_file", "Prev file", show=False, id="diff.previous-file"),
        Binding("a", "toggle_ai_only", "AI only", id="diff.ai-only"),
        Binding("w", "toggle_words", "Word marks", show=False, id="diff.words"),
        Binding("M", "jump_moved", "Moved: other end", show=False, id="diff.moved-jump"),
        Binding("S", "toggle_side_by_side", "Side by side", show=False, id="diff.side-by-side"),
        *reading_bindings("diff", top="g,home", bottom="G,end"),
        Binding("h,left", "scroll_left", "Left", show=False, id="diff.left"),
        Binding("l,right", "scroll_right", "Right", show=False, id="diff.right"),
    ]

    # Listed in help though they act only while a search is on, with when they act (n/N go by hunk and
    # escape goes back otherwise: help says both on the key's one row).
    HELP_LISTED = {"search_step": "while a search has matches", "clear_search": "while a search is on"}

    ai_only: reactive[bool] = reactive(False)
    current_hunk: reactive[int] = reactive(-1)  # an index into self.hunk_rows
    # The changed words of a changed line marked (w).
    words: reactive[bool] = reactive(True, init=False)
    # The reviewer's choice (S); drawn side by side while the view is SIDE_BY_SIDE_MIN wide.
    side_by_side: reactive[bool] = reactive(False, init=False)

    @dataclass
    class HunkChanged(Message):
        view: DiffView
        file: diff.FileDiff | None
        hunk: diff.Hunk | None

        @property
        def control(self) -> DiffView:
            return self.view

    @dataclass
    class OptionsChanged(Message):
        """Word marks or side by side switched, or side by side no longer fits: the header says so."""

        view: DiffView

        @property
        def control(self) -> DiffView:
            return self.view

    @dataclass
    class SearchFound(Message):
        """The search worker's matches."""

        found: Results

    @dataclass
    class WordsFound(Message):
        """The worker's changed words, per hunk."""

        found: Found

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: diff.Diff = diff.Diff("", "")
        self.rows = DiffRows(self.diff)
        self.hunk_rows: list[int] = []
        self.file_rows: list[int] = []
        # Each row drawn: its strip, and the column its own text ends at.
        self._cache: LRUCache[tuple, tuple[Strip, int]] = LRUCache(2048)
        self.painter = RowPainter(self)
        self.line_width = 0
        self.coverage: dict[str, dict[int, int]] | None = None  # path -> HEAD-side line -> times it ran
        self.changed_words = ChangedWords(self, lambda found: self.post_message(self.WordsFound(found)))
        # The moved block's end last jumped to (M again goes back).
        self._moved_at: diff.MoveEnd | None = None
        # The file last gone to (J, u, n, M…) and where the view was then: the file at hand until it scrolls.
        self._at_hand: tuple[int, int] | None = None
        self.search = DiffSearch(self)

    @property
    def gutter_width(self) -> int:
        return GUTTER + (COVERAGE_GUTTER if self.coverage is not None else 0)

    @property
    def visible_width(self) -> int:
        """The columns drawn text is seen in: the view's width less its vertical scrollbar (drawn
        over the last columns of every line)."""
        return self.scrollable_content_region.width or self.size.width

    @property
    def paired(self) -> bool:
        """Drawn side by side now: chosen, and the view is wide enough."""
        return self.rows.side_by_side

    def _fits_side_by_side(self) -> bool:
        return self.size.width >= SIDE_BY_SIDE_MIN

    def set_coverage(self, coverage: dict[str, dict[int, int]] | None) -> None:
        """Counts for the new side of the diff shown (the pane checks that the commits match)."""
        if coverage == self.coverage:
            return
        self.coverage = coverage
        offset = self.scroll_offset
        self._rebuild()
        self.scroll_to(offset.x, offset.y, animate=False)

    # ----------------------------------------------------------------- content

    def show(self, diff: diff.Diff, keep_place: bool = False) -> None:
        """`keep_place`: the same range in another form (whitespace hidden or shown): the line at the
        top stays at the top where it is still shown."""
        place = self._place() if keep_place else None
        self.diff = diff
        if place is None:
            self._rebuild_from_top()
            return
        self._rebuild()
        self._go_to_place(place)
        self.post_message(self.HunkChanged(self, *self.current()))

    def _rebuild_from_top(self) -> None:
        self._rebuild()
        self.scroll_to(0, 0, animate=False)
        self.set_reactive(DiffView.current_hunk, 0 if self.hunk_rows else -1)
        self.post_message(self.HunkChanged(self, *self.current()))  # even when the index stays the same

    def _rebuild(self) -> None:
        paired = self.side_by_side and self._fits_side_by_side()
        # Made as they are read: nothing waits for 130k rows.
        self.rows = DiffRows(self.diff, self.ai_only, paired)
        self.hunk_rows = self.rows.hunk_rows
        self.file_rows = self.rows.file_rows
        self.line_width = self.gutter_width + min(self.rows.widest, MAX_SHOWN) + 2
        if paired:
            # Each side scrolls its code by the same columns.
            widest = min(self.rows.widest_code, MAX_SHOWN)
            self.line_width = self.visible_width + max(0, widest - self.painter.side_code_width())
        self.virtual_size = Size(self.line_width, len(self.rows))
        empty(self._cache)
        self.painter.clear_tokens()
        self.refresh()
        self.search.rows_changed()

    def _place(self) -> tuple[str, int] | tuple[str, None] | None:
        """(path, HEAD line) of the first line row at the top, or (path, None) for a file's header."""
        top = self.scroll_offset.y
        for index in range(top, min(top + self.size.height, len(self.rows))):
            row = self.rows[index]
            if row.file < 0:
                continue
            path = self.diff.files[row.file].path
            line = row.right if row.kind == "pair" else row.line
            if line is not None and line.new_no is not None:
                return path, line.new_no
            if row.kind == "file":
                return path, None
        return None

    def _go_to_place(self, place: tuple[str, int] | tuple[str, None]) -> None:
        path, line = place
        if line is not None and self.go_to_line(path, line, at_top=True):
            return
        index = next((i for i, f in enumerate(self.diff.files) if f.path == path), None)
        if index is not None:
            self.go_to_file(index)

    def watch_ai_only(self) -> None:
        self._rebuild_from_top()  # the hunk line below the diff follows, even when the index stays 0

    def watch_current_hunk(self, old: int, new: int) -> None:
        empty(self._cache)
        self.refresh()
        self.post_message(self.HunkChanged(self, *self.current()))

    def watch_words(self) -> None:
        empty(self._cache)
        self.refresh()
        self.post_message(self.OptionsChanged(self))

    def watch_side_by_side(self) -> None:
        self._relayout()
        self.post_message(self.OptionsChanged(self))

    def on_resize(self, event: events.Resize) -> None:
        if self.side_by_side and self.paired != self._fits_side_by_side():
            self._relayout()
            self.post_message(self.OptionsChanged(self))
        elif self.paired:
            self._rebuild()

    def _relayout(self) -> None:
        """Unified ↔ side by side, the line at the top kept at the top."""
        place = self._place()
        hunk = self.current_hunk
        self._rebuild()
        if place is not None:
            self._go_to_place(place)
        if 0 <= hunk < len(self.hunk_rows):
            self.set_reactive(DiffView.current_hunk, hunk)

    def current(self) -> tuple[diff.FileDiff | None, diff.Hunk | None]:
        if not (0 <= self.current_hunk < len(self.hunk_rows)):
            return None, None
        row = self.rows[self.hunk_rows[self.current_hunk]]
        file_diff = self.diff.files[row.file]
        return file_diff, file_diff.hunks[row.hunk]

    def file_at_hand(self) -> int | None:
        """The file last gone to, while the view has not scrolled since (a short file at the end may
        never reach the top); else the file at the top."""
        held = self._at_hand
        if held is not None and held[1] == self.scroll_offset.y:
            return held[0]
        return self.top_file()

    def _hold(self, file_index: int | None) -> None:
        self._at_hand = (file_index, self.scroll_offset.y) if file_index is not None else None

    def _hold_current(self) -> None:
        if 0 <= self.current_hunk < len(self.hunk_rows):
            self._hold(self.rows[self.hunk_rows[self.current_hunk]].file)

    def top_file(self) -> int | None:
        """The file whose rows are at the top of the view (its index in the diff), or None."""
        if not self.file_rows:
            return None
        position = self._current_file_row()
        return self.rows[self.file_rows[position]].file

    def notify_style_update(self) -> None:
        super().notify_style_update()
        empty(self._cache)  # a theme change repaints every cached strip
        self.painter.clear_styles()

    # ----------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.painter.base_style  # kept until the styles change: the DOM's walk is 2 ms a page
        if index >= len(self.rows):
            return Strip.blank(width, base)
        current = (
            bool(self.hunk_rows)
            and 0 <= self.current_hunk < len(self.hunk_rows)
            and self.hunk_rows[self.current_hunk] == index
        )
        # Side by side, each side scrolls its own code: a strip is kept as drawn at its offset.
        paired = self.rows.side_by_side
        key = (index, current, scroll_x if paired else 0)
        cached = self._cache.get(key)
        if cached is None:
            row = self.rows[index]
            if row.kind == "pair":
                # Each side marks its own cut (the painter's).
                cached = self.painter.pair(index, row, scroll_x), 0
            else:
                strip, end = self.painter.drawn(index, row, current)
                cached = (strip.crop_extend(scroll_x, scroll_x + width, base), 0) if paired else (strip, end)
            self._cache[key] = cached
        strip, end = cached
        if paired:
            return strip.crop_extend(0, width, base)
        visible = min(width, self.visible_width)
        if self.rows[index].kind == "line":
            # The gutter (numbers, the AI tag) and the sign stay put; only the code scrolls sideways.
            gutter = self.gutter_width + 1
            code = strip.crop_extend(gutter + scroll_x, scroll_x + width, base)
            cropped = Strip.join([strip.crop(0, gutter), code])
        else:
            # A header scrolls only as far as its own end needs.
            scroll_x = min(scroll_x, max(0, end - visible))
            cropped = strip.crop_extend(scroll_x, scroll_x + width, base)
        if end > scroll_x + visible:
            # The row's text goes on past what is seen: the mark in the last column seen, not under the scrollbar.
            cropped = self.painter.cut_mark(cropped.crop(0, visible), base).extend_cell_length(width, base)
        return cropped

    # ----------------------------------------------------------------- changed words

    def word_spans(self, row: Row, line_index: int) -> list[Span] | None:
        """The changed words of a hunk's line (None: drawn plain until the worker has found them)."""
        return self.changed_words.spans(self.diff.files[row.file].hunks[row.hunk], line_index, self.paired)

    @on(WordsFound)
    def words_found(self, message: WordsFound) -> None:
        self.changed_words.found(message.found)
        empty(self._cache)
        self.refresh()

    def action_toggle_words(self) -> None:
        self.words = not self.words

    # ----------------------------------------------------------------- search

    def search_found(self, found: Results) -> None:
        """From the search worker's thread."""
        self.post_message(self.SearchFound(found))

    @on(SearchFound)
    def _search_found(self, message: SearchFound) -> None:
        self.search.found(message.found)

    def repaint(self) -> None:
        """The matches changed: drawn again, the header's count follows, and the footer says what n does."""
        empty(self._cache)
        self.refresh()
        self.post_message(self.OptionsChanged(self))
        self.refresh_bindings()

    def go_to_match(self, match: Match) -> None:
        position = bisect.bisect_right(self.hunk_rows, match.row) - 1
        if position >= 0:
            self.current_hunk = position
        top = self.scroll_offset.y
        if not top <= match.row < top + self.size.height:
            self.scroll_to(y=max(0, match.row - self.size.height // 3), animate=False)
        if not self.paired:
            # Sideways too, so the match is in the code columns seen (the gutter stays put, the last
            # column may hold the cut mark); unscrolled whenever the match fits so.
            seen = self.visible_width - (self.gutter_width + 1) - 1
            x = 0 if match.end <= seen else max(0, match.start - 8)
            if x == 0 or not self.scroll_x <= match.start <= match.end <= self.scroll_x + seen:
                self.scroll_to(x=x, animate=False)
        self._hold_current()

    def action_search_step(self, delta: int) -> None:
        self.search.step(delta)

    def action_clear_search(self) -> None:
        self.search.start("")

    # ----------------------------------------------------------------- side by side, moved blocks

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "search_step":
            # A search that found nothing leaves n/N on the hunks (and the footer saying so).
            return self.search.steppable
        if action == "clear_search":
            # Otherwise escape goes back to triage.
            return self.search.active
        return True

    def action_toggle_side_by_side(self) -> None:
        if not self.side_by_side and self.app.size.width < 160:
            self.app.notify(
                f"Side by side needs a terminal of 160 columns or more (this one has "
                f"{self.app.size.width}); the unified diff stays.",
                markup=False,
            )
            return
        self.side_by_side = not self.side_by_side

    def action_jump_moved(self) -> None:
        """The other end of the moved block in the current hunk (again: back); from a hunk without
        one, the next hunk that has one."""
        file_diff, hunk = self.current()
        if hunk is not None and hunk.moves:
            ends = [end for _index, end in hunk.moves]
            here = self._moved_at if self._moved_at in ends else ends[0]
            target = here.other
            if target is None or not self._go_to_move(target):
                self.app.notify("The other end of this moved block is not shown (a shows every hunk).", markup=False)
            return
        for position in range(self.current_hunk + 1, len(self.hunk_rows)):
            row = self.rows[self.hunk_rows[position]]
            if self.diff.files[row.file].hunks[row.hunk].moves:
                self.current_hunk = position
                self._go_to_row(self.hunk_rows[position])
                self._hold_current()
                return
        self.app.notify("No moved block after this hunk (N goes back).", markup=False)

    def _go_to_move(self, end: diff.MoveEnd) -> bool:
        row = self.rows.row_of_move(end)
        if row is None:
            return False
        self._moved_at = end
        position = bisect.bisect_right(self.hunk_rows, row) - 1
        if position >= 0:
            self.current_hunk = position
        self.scroll_to(y=max(0, row - self.size.height // 3), animate=False)
        self._hold_current()
        return True

    # ----------------------------------------------------------------- navigation

    def _go_to_row(self, row: int) -> None:
        self.scroll_to(y=max(0, row - 1), animate=False)

    def action_next_hunk(self) -> None:
        if self.hunk_rows and self.current_hunk < len(self.hunk_rows) - 1:
            self.current_hunk += 1
        self._go_to_row(self.hunk_rows[self.current_hunk] if self.hunk_rows else 0)
        self._hold_current()

    def action_previous_hunk(self) -> None:
        if self.hunk_rows and self.current_hunk > 0:
            self.current_hunk -= 1
        self._go_to_row(self.hunk_rows[self.current_hunk] if self.hunk_rows else 0)
        self._hold_current()

    def go_to_file(self, file_index: int) -> None:
        for position, row in enumerate(self.hunk_rows):
            if self.rows[row].file == file_index:
                self.current_hunk = position
                break
        row = next((i for i in self.file_rows if self.rows[i].file == file_index), 0)
        self._go_to_row(row + 1)
        self._hold(file_index)

    def go_to_line(self, path: str, line: int, at_top: bool = False) -> bool:
        """Scroll to `path`'s HEAD line `line` (False when the diff does not show that line)."""
        files = {f.path: i for i, f in enumerate(self.diff.files)}
        file_index = files.get(path)
        for index, row in enumerate(self.rows):
            shown_line = row.right if row.kind == "pair" else row.line
            if (
                row.file == file_index
                and shown_line is not None
                and shown_line.new_no == line
                and shown_line.kind != "-"
            ):
                position = bisect.bisect_right(self.hunk_rows, index) - 1
                if position >= 0:
                    self.current_hunk = position
                self.scroll_to(y=index if at_top else max(0, index - self.size.height // 3), animate=False)
                return True
        return False

    def _current_file_row(self) -> int:
        top = self.scroll_offset.y + 1
        return max(bisect.bisect_right(self.file_rows, top) - 1, 0)

    def _file_position(self) -> int:
        """Which of the file rows is the file at hand: the one last gone to while the view has not
        scrolled (a diff that fits on screen never scrolls), else the one at the top."""
        at_hand = self.file_at_hand()
        files = [self.rows[row].file for row in self.file_rows]
        return files.index(at_hand) if at_hand in files else self._current_file_row()

    def action_next_file(self) -> None:
        position = self._file_position()
        if position + 1 < len(self.file_rows):
            self.go_to_file(self.rows[self.file_rows[position + 1]].file)

    def action_previous_file(self) -> None:
        position = self._file_position()
        if position > 0:
            self.go_to_file(self.rows[self.file_rows[position - 1]].file)

    # Columns per h/l: a column a press made a 100-character line take 25 presses to read.
    SIDEWAYS_STEP = 8

    def action_scroll_left(self) -> None:
        self.scroll_to(x=max(0, self.scroll_x - self.SIDEWAYS_STEP), animate=False)

    def action_scroll_right(self) -> None:
        self.scroll_to(x=min(self.max_scroll_x, self.scroll_x + self.SIDEWAYS_STEP), animate=False)

    def action_toggle_ai_only(self) -> None:
        self.ai_only = not self.ai_only

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def on_click(self, event: events.Click) -> None:
        index = self.scroll_offset.y + event.y
        if 0 <= index < len(self.rows) and index in self.hunk_rows:
            self.current_hunk = self.hunk_rows.index(index)
