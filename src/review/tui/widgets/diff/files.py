"""The diff's file list: one row per file — viewed or not, its path, what it adds and removes, and
how many of its added lines are AI-attributed — under a title that counts the files viewed.

A row is made to the list's width: the counts always fit, and a long path gives way from its
start (`…/checkout.mjs`), so a narrow list never hides the AI column."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import DataTable

from review.core import diff
from review.core.text import safe_line

VIEWED_MARK = "✓"
# Until the list is laid out: its width in the stylesheet.
DEFAULT_WIDTH = 30


def counts_text(file_diff: diff.FileDiff) -> str:
    text = f"+{file_diff.added} −{file_diff.removed}"
    return text + (f" AI {file_diff.ai_added}" if file_diff.ai_added else "")


def row_text(file_diff: diff.FileDiff, viewed: bool, width: int) -> Text:
    """`✓ path  +12 −3 AI 9` in `width` cells; the path cut at its start when it must give way."""
    counts = counts_text(file_diff)
    room = max(1, width - 2 - len(counts) - 1)
    path = safe_line(file_diff.path, 300)
    if len(path) > room:
        tail = path[len(path) - room + 1 :]
        # At a folder's edge where one falls in what is kept: `…/adapters/card.mjs`, not `…ters/card.mjs`.
        slash = tail.find("/")
        path = "…" + (tail[slash:] if slash > 0 else tail)
    text = Text(f"{VIEWED_MARK if viewed else ' '} ")
    text.append(path)
    text.append(" " * max(1, width - 2 - len(path) - len(counts)))
    text.append(counts)
    return text


class FileList(DataTable):
    """The files of the diff shown, one column made to fit; `fill` again when the diff changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", id=id)
        self.files: list[diff.FileDiff] = []
        self.viewed: set[int] = set()
        self._made_for = 0

    def on_mount(self) -> None:
        # `fill` may have come first, with a column made to fit.
        if not self.columns:
            self.add_column("Files", key="file")

    def _row_width(self) -> int:
        width = self.size.width or DEFAULT_WIDTH
        # The cell's padding, and the scroll bar a long list gets.
        scrollbar = self.styles.scrollbar_size_vertical if len(self.files) > max(1, self.size.height - 1) else 0
        return max(12, width - 2 * self.cell_padding - scrollbar)

    def fill(self, files: list[diff.FileDiff], viewed: set[int]) -> None:
        self.files, self.viewed = files, set(viewed)
        cursor = self.cursor_row
        width = self._made_for = self._row_width()
        self.clear(columns=True)
        self.add_column("Files", width=width, key="file")
        for index, file_diff in enumerate(files):
            self.add_row(row_text(file_diff, index in self.viewed, width), key=str(index))
        if 0 < cursor < len(files):
            self.move_cursor(row=cursor, animate=False)

    def set_viewed(self, index: int, viewed: bool) -> None:
        """One file's mark changed: its row, not the whole list."""
        if viewed:
            self.viewed.add(index)
        else:
            self.viewed.discard(index)
        if 0 <= index < len(self.files) and str(index) in self.rows:
            self.update_cell(str(index), "file", row_text(self.files[index], viewed, self._made_for))

    def on_resize(self, event: events.Resize) -> None:
        if self.files and self._row_width() != self._made_for:
            self.fill(self.files, self.viewed)
