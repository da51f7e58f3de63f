"""The diff view: a ScrollView that renders only the rows on screen (Line API), as Toolong does.

A 100,000-line diff is a flat list of small rows; each visible row becomes a Strip on demand,
kept in an LRU cache that is dropped when the rows or the theme change. AI-attributed lines
get the theme's `ai-hunk-background` and the tool's tag in the gutter; each hunk header names
the tools of its lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.highlight import HighlightTheme
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from review.core import diff
from review.core.text import clip, safe_text
from review.tui import palette
from review.tui.widgets.diff.rows import MAX_SHOWN, DiffRows, Row

GUTTER = 15  # "old_ new_ TG│"
COVERAGE_GUTTER = 4  # "ran " between the line numbers and the tag, while a coverage overlay is on
HIGHLIGHT_BLOCK = 64
LANGUAGES = {".mjs": "javascript", ".js": "javascript", ".cjs": "javascript", ".ts": "typescript",
             ".json": "json", ".md": "markdown", ".py": "python", ".sh": "bash", ".toml": "toml"}


@lru_cache(maxsize=16)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=False)


def language_for(path: str) -> str | None:
    return next((language for suffix, language in LANGUAGES.items() if path.endswith(suffix)), None)


def load_lexers(the_diff: diff.Diff) -> None:
    """Load the lexers a diff will need (the first JavaScript one costs 30 ms of imports), so a
    worker pays for them and not the first frame."""
    for language in {language_for(file_diff.path) for file_diff in the_diff.files[:200]}:
        if language is not None:
            _lexer(language)


def _token_style(token_type) -> str | None:
    while token_type:
        style = HighlightTheme.STYLES.get(token_type)
        if style:
            return style
        token_type = token_type.parent
    return None


def tokenize(texts: list[str], language: str) -> list[list[tuple[str, str | None]]]:
    """(text, Textual style) runs for each line, with Textual's own highlight theme."""
    lines: list[list[tuple[str, str | None]]] = [[]]
    for token_type, value in _lexer(language).get_tokens("\n".join(texts)):
        parts = value.split("\n")
        style = _token_style(token_type)
        for number, part in enumerate(parts):
            if number:
                lines.append([])
            if part:
                lines[-1].append((part, style))
    while len(lines) < len(texts):
        lines.append([])
    return lines[: len(texts)]


def _shown(text: str) -> str:
    shown = safe_text(text).expandtabs(4)
    return clip(shown, MAX_SHOWN) if len(shown) > MAX_SHOWN else shown


def tool_tag(tool: str) -> str:
    """Two letters for the gutter: Claude Code → CC, GitHub Copilot → GC, Aider → Ai."""
    words = [w for w in tool.replace("(", " ").split() if w[:1].isalnum()]
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    return (tool[:2] or "AI").title()


class DiffView(ScrollView, can_focus=True):
    """Unified diff, virtualised. Posts HunkChanged as the current hunk moves."""

    HELP_GROUP = "Diff"

    COMPONENT_CLASSES = {"diff-view--file", "diff-view--hunk", "diff-view--current", "diff-view--added",
                         "diff-view--removed", "diff-view--context", "diff-view--ai", "diff-view--gutter",
                         "diff-view--ai-tag", "diff-view--info", "diff-view--ran", "diff-view--not-ran"}
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
    DiffView > .diff-view--info { color: $text-muted; text-style: italic; }
    DiffView > .diff-view--ran { color: $text-success; text-style: bold; }
    DiffView > .diff-view--not-ran { color: $text-error; }
    """
    BINDINGS = [
        Binding("n,right_square_bracket", "next_hunk", "Next hunk", id="diff.next-hunk"),
        Binding("N,left_square_bracket", "previous_hunk", "Prev hunk", id="diff.previous-hunk"),
        Binding("J,right_curly_bracket", "next_file", "Next file", show=False, id="diff.next-file"),
        Binding("K,left_curly_bracket", "previous_file", "Prev file", show=False, id="diff.previous-file"),
        Binding("a", "toggle_ai_only", "AI only", id="diff.ai-only"),
        Binding("j,down", "scroll_down", "Down", show=False, id="diff.down"),
        Binding("k,up", "scroll_up", "Up", show=False, id="diff.up"),
        Binding("space,pagedown", "page_down", "Page down", show=False, id="diff.page-down"),
        Binding("b,pageup", "page_up", "Page up", show=False, id="diff.page-up"),
        Binding("g,home", "scroll_home", "Top", show=False, id="diff.top"),
        Binding("G,end", "scroll_end", "Bottom", show=False, id="diff.bottom"),
        Binding("h,left", "scroll_left", "Left", show=False, id="diff.left"),
        Binding("l,right", "scroll_right", "Right", show=False, id="diff.right"),
    ]

    ai_only: reactive[bool] = reactive(False)
    current_hunk: reactive[int] = reactive(-1)  # an index into self.hunk_rows

    @dataclass
    class HunkChanged(Message):
        view: DiffView
        file: diff.FileDiff | None
        hunk: diff.Hunk | None

        @property
        def control(self) -> DiffView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: diff.Diff = diff.Diff("", "")
        self.rows = DiffRows(self.diff)
        self.hunk_rows: list[int] = []
        self.file_rows: list[int] = []
        self._cache: LRUCache[tuple, Strip] = LRUCache(2048)
        self._highlight: LRUCache[int, list[tuple[str, str | None]]] = LRUCache(8192)
        self._styles: dict[object, RichStyle] = {}
        self._width = 0
        self.coverage: dict[str, dict[int, int]] | None = None  # path -> HEAD-side line -> times it ran

    @property
    def gutter_width(self) -> int:
        return GUTTER + (COVERAGE_GUTTER if self.coverage is not None else 0)

    def set_coverage(self, coverage: dict[str, dict[int, int]] | None) -> None:
        """Counts for the new side of the diff shown (the pane checks that the commits match)."""
        if coverage == self.coverage:
            return
        self.coverage = coverage
        offset = self.scroll_offset
        self._rebuild()
        self.scroll_to(offset.x, offset.y, animate=False)

    # ----------------------------------------------------------------- content

    def show(self, the_diff: diff.Diff) -> None:
        self.diff = the_diff
        self._rebuild_from_top()

    def _rebuild_from_top(self) -> None:
        self._rebuild()
        self.scroll_to(0, 0, animate=False)
        self.set_reactive(DiffView.current_hunk, 0 if self.hunk_rows else -1)
        self.post_message(self.HunkChanged(self, *self.current()))  # even when the index stays the same

    def _rebuild(self) -> None:
        self.rows = DiffRows(self.diff, self.ai_only)  # made as they are read: nothing waits for 130k rows
        self.hunk_rows = self.rows.hunk_rows
        self.file_rows = self.rows.file_rows
        self._width = self.gutter_width + min(self.rows.widest, MAX_SHOWN) + 2
        self.virtual_size = Size(self._width, len(self.rows))
        self._cache.clear()
        self._highlight.clear()
        self.refresh()

    def watch_ai_only(self) -> None:
        self._rebuild_from_top()  # the hunk line below the diff follows, even when the index stays 0

    def watch_current_hunk(self, old: int, new: int) -> None:
        self._cache.clear()
        self.refresh()
        self.post_message(self.HunkChanged(self, *self.current()))

    def current(self) -> tuple[diff.FileDiff | None, diff.Hunk | None]:
        if not (0 <= self.current_hunk < len(self.hunk_rows)):
            return None, None
        row = self.rows[self.hunk_rows[self.current_hunk]]
        file_diff = self.diff.files[row.file]
        return file_diff, file_diff.hunks[row.hunk]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()  # a theme change repaints every cached strip
        self._styles.clear()

    # ----------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self.rows):
            return Strip.blank(width, base)
        current = bool(self.hunk_rows) and 0 <= self.current_hunk < len(self.hunk_rows) and \
            self.hunk_rows[self.current_hunk] == index
        key = (index, current)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_row(index, self.rows[index], current)
            self._cache[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _style(self, name: str) -> RichStyle:
        cached = self._styles.get(name)
        if cached is None:
            cached = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return cached

    @property
    def _base_style(self) -> RichStyle:
        cached = self._styles.get("base")
        if cached is None:
            cached = self._styles["base"] = self.rich_style
        return cached

    def _render_row(self, index: int, row: Row, current: bool) -> Strip:
        full = max(self._width, self.size.width)
        if row.kind != "line" or row.line is None:
            name = {"file": "diff-view--file", "hunk": "diff-view--hunk", "info": "diff-view--info"}[row.kind]
            style = self._base_style + self._style(name)
            if current:
                style += self._style("diff-view--current")
            text = safe_text(row.text)
            prefix = "▶ " if current else ("━ " if row.kind == "file" else "  ")
            return Strip([Segment(prefix + text, style)]).extend_cell_length(full, style)
        line = row.line
        kind_style = {"+": "diff-view--added", "-": "diff-view--removed"}.get(line.kind, "diff-view--context")
        line_style = self._base_style + self._style(kind_style)
        if line.tool:
            line_style += self._style("diff-view--ai")
        gutter_style = line_style + self._style("diff-view--gutter")
        old = f"{line.old_no:>5}" if line.old_no is not None else "     "
        new = f"{line.new_no:>5}" if line.new_no is not None else "     "
        # A person's line moved from elsewhere says so in the gutter (an assistant's keeps its tag).
        tag = tool_tag(line.tool) if line.tool else ("mv" if line.moved else "  ")
        segments = [Segment(f"{old} {new} ", gutter_style)]
        if self.coverage is not None:
            segments.append(self._coverage_segment(row, line, gutter_style))
        segments += [
                    Segment(tag, line_style + self._style("diff-view--ai-tag") if line.tool else gutter_style),
                    Segment("│", gutter_style),
                    Segment(line.kind if line.kind != "\\" else " ", line_style)]
        if line.kind == "\\":
            segments.append(Segment(" no newline at end of file", line_style + self._style("diff-view--info")))
        else:
            segments += self._code_segments(index, row, line_style)
        segments = [Segment(s.text, self._readable(s.style)) if s.style else s for s in segments]
        return Strip(segments).extend_cell_length(full, line_style)

    def _coverage_segment(self, row: Row, line: diff.DiffLine, gutter_style: RichStyle) -> Segment:
        """How many times the line ran ("  2"), "  0" when it never did, blank when V8 counts nothing
        there (blank lines, comments, other files, removed lines)."""
        path = self.diff.files[row.file].path if 0 <= row.file < len(self.diff.files) else ""
        counts = (self.coverage or {}).get(path)
        count = counts.get(line.new_no) if counts and line.new_no is not None and line.kind != "-" else None
        if count is None:
            return Segment(" " * COVERAGE_GUTTER, gutter_style)
        text = f"{count:>3} " if count < 1000 else "999+"
        return Segment(text, gutter_style + self._style("diff-view--ran" if count else "diff-view--not-ran"))

    def _code_segments(self, row_index: int, row: Row, line_style: RichStyle) -> list[Segment]:
        path = self.diff.files[row.file].path if 0 <= row.file < len(self.diff.files) else ""
        language = language_for(path)
        if language is None:
            return [Segment(_shown(row.line.text if row.line else ""), line_style)]
        return [Segment(text, line_style + self._token_style(style) if style else line_style)
                for text, style in self._highlighted(row_index, language)]

    def _readable(self, style: RichStyle) -> RichStyle:
        """A token or tag coloured like its line's background gets black or white instead (ANSI
        themes, 16-colour terminals); memoised, since a screen has few distinct pairs."""
        key = ("readable", style)
        cached = self._styles.get(key)
        if cached is None:
            cached = self._styles[key] = palette.readable(style, palette.color_system(self.app))
        return cached

    def _highlighted(self, row_index: int, language: str) -> list[tuple[str, str | None]]:
        """Tokens for a row; a block of neighbouring rows is lexed in one call (one per line is slow)."""
        cached = self._highlight.get(row_index)
        if cached is not None:
            return cached
        start = row_index - row_index % HIGHLIGHT_BLOCK
        block = [i for i in range(start, min(start + HIGHLIGHT_BLOCK, len(self.rows)))
                 if self.rows[i].kind == "line" and self.rows[i].line is not None]
        texts = [_shown(self.rows[i].line.text) for i in block]  # type: ignore[union-attr]
        for index, tokens in zip(block, tokenize(texts, language)):
            self._highlight[index] = tokens
        return self._highlight.get(row_index) or [(_shown(self.rows[row_index].line.text), None)]  # type: ignore[union-attr]

    def _token_style(self, style: str) -> RichStyle:
        cached = self._styles.get(("token", style))
        if cached is None:
            rich = self.app.stylesheet.parse_style(style).rich_style
            # Only the token's colour and weight: the row keeps its own background (added, AI…).
            cached = self._styles[("token", style)] = RichStyle(color=rich.color, bold=rich.bold, italic=rich.italic)
        return cached

    # ----------------------------------------------------------------- navigation

    def _go_to_row(self, row: int) -> None:
        self.scroll_to(y=max(0, row - 1), animate=False)

    def action_next_hunk(self) -> None:
        if self.hunk_rows and self.current_hunk < len(self.hunk_rows) - 1:
            self.current_hunk += 1
        self._go_to_row(self.hunk_rows[self.current_hunk] if self.hunk_rows else 0)

    def action_previous_hunk(self) -> None:
        if self.hunk_rows and self.current_hunk > 0:
            self.current_hunk -= 1
        self._go_to_row(self.hunk_rows[self.current_hunk] if self.hunk_rows else 0)

    def go_to_file(self, file_index: int) -> None:
        for position, row in enumerate(self.hunk_rows):
            if self.rows[row].file == file_index:
                self.current_hunk = position
                break
        row = next((i for i in self.file_rows if self.rows[i].file == file_index), 0)
        self._go_to_row(row + 1)

    def go_to_line(self, path: str, line: int) -> bool:
        """Scroll to `path`'s HEAD line `line` (False when the diff does not show that line)."""
        files = {f.path: i for i, f in enumerate(self.diff.files)}
        file_index = files.get(path)
        for index, row in enumerate(self.rows):
            if row.file == file_index and row.line is not None and row.line.new_no == line and row.line.kind != "-":
                hunks_before = [p for p, r in enumerate(self.hunk_rows) if r < index]
                if hunks_before:
                    self.current_hunk = hunks_before[-1]
                self.scroll_to(y=max(0, index - self.size.height // 3), animate=False)
                return True
        return False

    def _current_file_row(self) -> int:
        top = self.scroll_offset.y + 1
        return max([i for i, r in enumerate(self.file_rows) if r <= top] or [0])

    def action_next_file(self) -> None:
        position = self._current_file_row()
        if position + 1 < len(self.file_rows):
            self.go_to_file(self.rows[self.file_rows[position + 1]].file)

    def action_previous_file(self) -> None:
        position = self._current_file_row()
        if position > 0:
            self.go_to_file(self.rows[self.file_rows[position - 1]].file)

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
