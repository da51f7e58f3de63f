"""A status line of parts (`8 submissions · sorted by AI · …`) that re-joins them for its width, so a
line never ends in a dangling "·"."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from review.core.text import safe_line
from review.tui.display import join_parts


class PartsLine(Static):
    """A status line of parts, re-joined for its width whenever that changes."""

    def __init__(self, text: str = "", *, one_row: bool = False, max_rows: int = 0, id: str | None = None) -> None:
        super().__init__(Content(safe_line(text, 500)), id=id)
        self.one_row = one_row
        # 0: as many rows as it takes.
        self.max_rows = max_rows
        self.parts: list[str] = [text] if text else []

    def set_parts(self, parts: list[str]) -> None:
        self.parts = [safe_line(part, 500) for part in parts]
        self.show_parts()

    def on_resize(self) -> None:
        self.show_parts()

    def show_parts(self) -> None:
        shown = join_parts(self.parts, self.content_region.width, self.one_row, self.max_rows)
        self.update(Content(shown))
        # What "…" left out, whole, under the mouse (z widens a pane for the keyboard).
        self.tooltip = Content(" · ".join(self.parts)) if shown.endswith(" …") else None
