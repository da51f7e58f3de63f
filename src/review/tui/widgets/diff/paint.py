"""How a row of the diff is drawn: the gutter (line numbers, coverage counts, the tool's tag, `↕` for a
moved block, the sign), the code with its syntax colours and changed words, a file's, hunk's or moved
block's note; side by side, two halves with a divider. Owned by the DiffView, which caches the strips."""

from __future__ import annotations

from typing import Protocol

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.app import App
from textual.cache import LRUCache
from textual.geometry import Size
from textual.strip import Strip

from review.core import diff
from review.core.text import safe_text
from review.core.word_diff import Span
from review.tui import palette
from review.tui.lifetimes import empty
from review.tui.widgets.diff.code import language_for, shown, style_words, tokenize, tool_tag
from review.tui.widgets.diff.rows import DiffRows, Row
from review.tui.widgets.diff.search import DiffSearch

SIDE_GUTTER = 10  # side by side, each side: "line_ TG│" and the +/- sign
COVERAGE_GUTTER = 4  # "ran " between the line numbers and the tag, while a coverage overlay is on
HIGHLIGHT_BLOCK = 64
MOVED_MARK = "↕"
# In the tag's place, for an added line no source speaks for, and for one from the base (the starter's
# code moved or copied here): glyphs, so they read the same under NO_COLOR.
UNKNOWN_TAG, BASE_TAG = "? ", "⌂ "
# At a pane's right edge: this line goes on past it (scroll right, or z for a wider pane).
CUT_MARK = "›"


class PaintedView(Protocol):
    """What the painter reads of its view (the DiffView)."""

    diff: diff.Diff
    rows: DiffRows
    coverage: dict[str, dict[int, int]] | None
    line_width: int
    words: bool

    @property
    def app(self) -> App: ...

    @property
    def size(self) -> Size: ...

    @property
    def rich_style(self) -> RichStyle: ...

    @property
    def gutter_width(self) -> int: ...

    @property
    def visible_width(self) -> int: ...

    @property
    def paired(self) -> bool: ...

    def get_component_rich_style(self, *names: str, partial: bool = False) -> RichStyle: ...

    def word_spans(self, row: Row, line_index: int) -> list[Span] | None: ...

    @property
    def search(self) -> DiffSearch: ...


class RowPainter:
    """Rows as strips, for one view: its styles (cleared when the theme changes) and each line's
    syntax tokens (cleared when the rows change)."""

    def __init__(self, view: PaintedView) -> None:
        self.view = view
        self._styles: dict[object, RichStyle] = {}
        # id of a line -> its syntax tokens (lines of the diff shown live as long as it does).
        self._highlight: LRUCache[int, list[tuple[str, str | None]]] = LRUCache(8192)

    def clear_styles(self) -> None:
        self._styles.clear()

    def clear_tokens(self) -> None:
        empty(self._highlight)

    def _style(self, name: str) -> RichStyle:
        cached = self._styles.get(name)
        if cached is None:
            cached = self._styles[name] = self.view.get_component_rich_style(name, partial=True)
        return cached

    @property
    def base_style(self) -> RichStyle:
        cached = self._styles.get("base")
        if cached is None:
            cached = self._styles["base"] = self.view.rich_style
        return cached

    def row(self, index: int, row: Row, current: bool) -> Strip:
        return self.drawn(index, row, current)[0]

    def drawn(self, index: int, row: Row, current: bool) -> tuple[Strip, int]:
        """The row as a strip as wide as the view's lines, and the column its own text ends at (where
        the view marks a row that goes on past what is seen)."""
        full = max(self.view.line_width, self.view.size.width)
        if row.kind != "line" or row.line is None:
            return self._render_note(index, row, current, full)
        line = row.line
        line_style = self._line_style(line)
        gutter_style = line_style + self._style("diff-view--gutter")
        old = f"{line.old_no:>5}" if line.old_no is not None else "     "
        new = f"{line.new_no:>5}" if line.new_no is not None else "     "
        segments = [Segment(f"{old} {new} ", gutter_style)]
        if self.view.coverage is not None:
            segments.append(self._coverage_segment(row.file, line, gutter_style))
        segments += self._mark_and_sign(line, line_style, gutter_style)
        segments += self._line_text(index, row, line, row.index, line_style)
        segments = [Segment(s.text, self._readable(s.style)) if s.style else s for s in segments]
        content = Strip(segments)
        return content.extend_cell_length(full, line_style), content.cell_length

    def _render_note(self, index: int, row: Row, current: bool, width: int) -> tuple[Strip, int]:
        name = {
            "file": "diff-view--file",
            "hunk": "diff-view--hunk",
            "info": "diff-view--info",
            "moved": "diff-view--moved-note",
        }[row.kind]
        style = self.base_style + self._style(name)
        if current:
            style += self._style("diff-view--current")
        prefix = "▶ " if current else ("━ " if row.kind == "file" else "  ")
        if row.kind == "moved":
            # As far right as the lines' own text (side by side: on the side of the block).
            prefix = " " * (self.view.gutter_width - 1)
            if self.view.paired:
                left = self.side_widths()[0] + 1 if all(end.side == "+" for end in row.moves) else 0
                prefix = " " * (left + SIDE_GUTTER - 2)
        pieces = self._matches(index, "", [Segment(safe_text(row.text), style)])
        content = Strip([Segment(prefix, style), *pieces])
        return content.extend_cell_length(width, style), content.cell_length

    def _line_style(self, line: diff.DiffLine) -> RichStyle:
        kind_style = {"+": "diff-view--added", "-": "diff-view--removed"}.get(line.kind, "diff-view--context")
        line_style = self.base_style + self._style(kind_style)
        if line.tool:
            line_style += self._style("diff-view--ai")
        return line_style

    def _mark_and_sign(self, line: diff.DiffLine, line_style: RichStyle, gutter_style: RichStyle) -> list[Segment]:
        """The tag (the tool's two letters; `⌂` from the base; `?` for an added line no source speaks
        for; `mv` for a person's line moved by a commit), the column that says the line is part of a
        block this diff moves (`↕`), and the line's sign."""
        tag_style = gutter_style
        if line.tool:
            tag, tag_style = tool_tag(line.tool), line_style + self._style("diff-view--ai-tag")
        elif line.kind == "+" and line.state == diff.BASE:
            tag, tag_style = BASE_TAG, gutter_style + self._style("diff-view--base-tag")
        elif line.kind == "+" and not line.state and self.view.diff.claimed:
            tag, tag_style = UNKNOWN_TAG, gutter_style + self._style("diff-view--unknown-tag")
        else:
            tag = "mv" if line.moved else "  "
        moved = line.move is not None
        return [
            Segment(tag, tag_style),
            Segment(
                MOVED_MARK if moved else "│", gutter_style + self._style("diff-view--moved") if moved else gutter_style
            ),
            Segment(line.kind if line.kind != "\\" else " ", line_style),
        ]

    def _line_text(
        self, index: int, row: Row, line: diff.DiffLine, line_index: int, line_style: RichStyle
    ) -> list[Segment]:
        if line.kind == "\\":
            return [Segment(" no newline at end of file", line_style + self._style("diff-view--info"))]
        pieces = self._code_segments(index, row, line, line_style)
        side = "" if row.kind == "line" else ("-" if line is row.line else "+")
        spans = self.view.word_spans(row, line_index) if self.view.words and line.kind in "+-" else None
        if spans:
            word = self._style("diff-view--word-added" if line.kind == "+" else "diff-view--word-removed")
            pieces = style_words(pieces, spans, word)
        return self._matches(index, side, pieces)

    def _matches(self, index: int, side: str, pieces: list[Segment]) -> list[Segment]:
        """The search's matches on this row's side marked, the current one more strongly."""
        found, current = self.view.search.spans(index, side)
        if not found:
            return pieces
        pieces = style_words(pieces, found, self._style("diff-view--match"))
        if current is not None:
            pieces = style_words(pieces, [current], self._style("diff-view--match-current"))
        return pieces

    def pair(self, index: int, row: Row, scroll_x: int) -> Strip:
        """Side by side: the old side's line on the left, the new side's on the right."""
        left_width, right_width = self.side_widths()
        left = self._side(index, row, row.line, row.index, "-", scroll_x, left_width)
        right = self._side(index, row, row.right, row.right_index, "+", scroll_x, right_width)
        divider = Segment("┃", self.base_style + self._style("diff-view--gutter"))
        segments = [Segment(s.text, self._readable(s.style)) if s.style else s for s in [*left, divider, *right]]
        return Strip(segments)

    def _side_gutter(self, side: str) -> int:
        return SIDE_GUTTER + (COVERAGE_GUTTER if self.view.coverage is not None and side == "+" else 0)

    def side_widths(self) -> tuple[int, int]:
        """The columns of each side (a divider between them)."""
        width = self.view.visible_width
        left = (width - 1) // 2
        return left, width - 1 - left

    def side_code_width(self) -> int:
        left, right = self.side_widths()
        return max(1, min(left - self._side_gutter("-"), right - self._side_gutter("+")))

    def _side(
        self, index: int, row: Row, line: diff.DiffLine | None, line_index: int, side: str, scroll_x: int, width: int
    ) -> list[Segment]:
        if line is None:
            return [Segment(" " * width, self.base_style + self._style("diff-view--blank"))]
        gutter = self._side_gutter(side)
        line_style = self._line_style(line)
        gutter_style = line_style + self._style("diff-view--gutter")
        number = line.old_no if side == "-" else line.new_no
        segments = [Segment(f"{number:>5} " if number is not None else "      ", gutter_style)]
        if gutter > SIDE_GUTTER:
            segments.append(self._coverage_segment(row.file, line, gutter_style))
        segments += self._mark_and_sign(line, line_style, gutter_style)
        code = Strip(self._line_text(index, row, line, line_index, line_style))
        right = scroll_x + max(0, width - gutter)
        cropped = code.crop_extend(scroll_x, right, line_style)
        if code.cell_length > right:
            cropped = self.cut_mark(cropped, line_style)
        return segments + list(cropped)

    def cut_mark(self, strip: Strip, style: RichStyle) -> Strip:
        """`strip` with its last cell saying the line goes on past the edge."""
        if strip.cell_length < 2:
            return strip
        mark = Strip([Segment(CUT_MARK, style + self._style("diff-view--info"))])
        return Strip.join([strip.crop(0, strip.cell_length - 1), mark])

    def _coverage_segment(self, file: int, line: diff.DiffLine, gutter_style: RichStyle) -> Segment:
        """How many times the line ran ("  2"), "  0" when it never did, blank when V8 counts nothing
        there (blank lines, comments, other files, removed lines)."""
        path = self.view.diff.files[file].path if 0 <= file < len(self.view.diff.files) else ""
        counts = (self.view.coverage or {}).get(path)
        count = counts.get(line.new_no) if counts and line.new_no is not None and line.kind != "-" else None
        if count is None:
            return Segment(" " * COVERAGE_GUTTER, gutter_style)
        text = f"{count:>3} " if count < 1000 else "999+"
        return Segment(text, gutter_style + self._style("diff-view--ran" if count else "diff-view--not-ran"))

    def _code_segments(self, row_index: int, row: Row, line: diff.DiffLine, line_style: RichStyle) -> list[Segment]:
        path = self.view.diff.files[row.file].path if 0 <= row.file < len(self.view.diff.files) else ""
        language = language_for(path)
        if language is None:
            return [Segment(shown(line.text), line_style)]
        return [
            Segment(text, line_style + self._token_style(style) if style else line_style)
            for text, style in self._highlighted(row_index, line, language)
        ]

    def _readable(self, style: RichStyle) -> RichStyle:
        """A token or tag coloured like its line's background gets black or white instead (ANSI
        themes, 16-colour terminals); memoised, since a screen has few distinct pairs."""
        key = ("readable", style)
        cached = self._styles.get(key)
        if cached is None:
            cached = self._styles[key] = palette.readable(style, palette.color_system(self.view.app))
        return cached

    def _highlighted(self, row_index: int, line: diff.DiffLine, language: str) -> list[tuple[str, str | None]]:
        """Tokens for a line; the lines of a block of neighbouring rows are lexed in one call (one
        per line is slow), each side's on its own side by side."""
        cached = self._highlight.get(id(line))
        if cached is not None:
            return cached
        start = row_index - row_index % HIGHLIGHT_BLOCK
        rows = [self.view.rows[i] for i in range(start, min(start + HIGHLIGHT_BLOCK, len(self.view.rows)))]
        sides = [
            [r.line for r in rows if r.kind in ("line", "pair") and r.line is not None],
            [r.right for r in rows if r.kind == "pair" and r.right is not None],
        ]
        for lines in sides:
            if lines:
                for each, tokens in zip(lines, tokenize([shown(each.text) for each in lines], language)):
                    self._highlight[id(each)] = tokens
        return self._highlight.get(id(line)) or [(shown(line.text), None)]

    def _token_style(self, style: str) -> RichStyle:
        cached = self._styles.get(("token", style))
        if cached is None:
            rich = self.view.app.stylesheet.parse_style(style).rich_style
            # Only the token's colour and weight: the row keeps its own background (added, AI…).
            cached = self._styles[("token", style)] = RichStyle(color=rich.color, bold=rich.bold, italic=rich.italic)
        return cached
