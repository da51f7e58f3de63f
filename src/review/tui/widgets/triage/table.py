"""The triage DataTable: its columns (cells.COLUMNS) as wide as what they show from the moment rows
are added, the sorted column's header marked and brought into view, enter named for what it does."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from review.tui.widgets.triage.cells import COLUMNS


class TriageTable(DataTable):
    BINDINGS = [
        Binding("enter", "select_cursor", "Open", id="triage.open"),
        Binding("j", "cursor_down", "Down", show=False, id="triage.down"),
        Binding("k", "cursor_up", "Up", show=False, id="triage.up"),
        # The first row and the last, as in tig and lazygit (DataTable's own home/end scroll sideways,
        # and the Candidate column left the screen at 80 columns).
        Binding("g,home", "first_row", "First row", show=False, id="triage.first"),
        Binding("G,end", "last_row", "Last row", show=False, id="triage.last"),
        # A column at a time: at 80 columns the later ones (Agree, Similar) are a few presses away.
        Binding("right,l", "columns(1)", "Next column", show=False, id="triage.column-right"),
        Binding("left,h", "columns(-1)", "Previous column", show=False, id="triage.column-left"),
    ]
    # The pinned Candidate column reads as the rows' labels, in the header's colour (Textual's own
    # colour for a fixed column is the theme's secondary, which reads as a selection).
    DEFAULT_CSS = """
    TriageTable > .datatable--fixed { background: $panel; color: $foreground; }
    """
    sorted_by = 0  # the column the rows are in the order of (show_rows)

    def on_mount(self) -> None:
        # The Candidate column stays on screen while the table scrolls sideways: at 80 columns the
        # later columns are reached with l, and a row without its name cannot be told from another.
        self.fixed_columns = 1
        self.add_columns_once()

    def add_columns_once(self) -> None:
        # Rows can arrive before the table's own mount handler has run.
        if not self.columns:
            for column in COLUMNS:
                self.add_column(column.label, key=column.key)

    def show_rows(self, rows: list[tuple[str, list[Text]]], sort: tuple[int, bool]) -> None:
        """The rows (key, cells) in this order, each header marked ▲ or ▼ when the table is sorted by it."""
        self.add_columns_once()
        self.clear()
        for key, shown in rows:
            self.add_row(*shown, key=key)
        sorted_by, backwards = sort
        self.sorted_by = sorted_by
        for index, column in enumerate(COLUMNS):
            arrow = (" ▼" if backwards else " ▲") if index == sorted_by else ""
            self.columns[ColumnKey(column.key)].label = Text(column.label + arrow)
        self.fit_columns([shown for _, shown in rows])
        self.refresh()

    def fit_columns(self, rows: list[list[Text]]) -> None:
        """Each column as wide as its label (sort mark included) or its widest cell, set as the rows
        are added. DataTable measures new cells only once it is idle, and caches the lines it paints
        by a count that measuring does not change: a frame painted in between (a busy or slow
        terminal) showed every cell cut to its header's width, and kept it so."""
        for index, column in enumerate(COLUMNS):
            fitted = self.columns[ColumnKey(column.key)]
            fitted.content_width = max([fitted.label.cell_len, *(row[index].cell_len for row in rows)])

    def _update_dimensions(self, new_rows: object) -> None:
        """DataTable's own pass, when the table is next idle, measures every cell of the new rows again:
        100 ms of a warm triage of 300 (each measure asks the terminal its size). The columns are fitted
        as the rows are added (fit_columns, update_cells), every row is one line with no label, so what
        is left is the scrollable size. A test checks this against DataTable's own pass."""
        header = self.header_height if self.show_header else 0
        width = sum(column.get_render_width(self) for column in self.columns.values())
        self.virtual_size = Size(width + self._row_label_column_width, self._total_row_height + header)

    def update_cells(self, key: str, cells: list[Text]) -> bool:
        """Grow a column when a cell needs it, never re-measure it: DataTable measures the whole column
        when a cell gets narrower, which made filling 300 rows quadratic (show_rows re-fits them all).
        The column grows here and now, not when the table is next idle (see fit_columns). True when the
        sorted column's cell changed: the row may belong elsewhere in the order."""
        if key not in self.rows:
            return False
        moved = str(self.get_cell(key, COLUMNS[self.sorted_by].key)) != str(cells[self.sorted_by])
        for column, cell in zip(COLUMNS, cells):
            shown = self.columns[ColumnKey(column.key)]
            wider = cell.cell_len > shown.content_width
            if wider:
                shown.content_width = cell.cell_len
            self.update_cell(key, column.key, cell, update_width=wider)
        return moved

    def column_starts(self) -> tuple[list[int], int]:
        """Where each column after the pinned Candidate starts in scroll_x terms, and the width left for
        them: the pinned column stays at the left edge, so column 1 shows at scroll_x 0."""
        widths = [self.columns[ColumnKey(column.key)].get_render_width(self) for column in COLUMNS]
        pinned = sum(widths[: self.fixed_columns])
        starts = [sum(widths[self.fixed_columns : index]) for index in range(len(widths))]
        return starts, self.scrollable_content_region.width - pinned

    def action_columns(self, step: int) -> None:
        """Scroll sideways to the start of the next (or previous) column."""
        starts, _ = self.column_starts()
        x = self.scroll_x
        starts = starts[self.fixed_columns :]
        later = [start for start in starts if start > x] if step > 0 else [start for start in starts if start < x]
        if later:
            target = later[0] if step > 0 else later[-1]
            self.scroll_to(x=min(target, self.max_scroll_x), animate=False, immediate=True)

    def show_column(self, index: int) -> None:
        """Column `index` on screen, its header with it: a narrow terminal scrolls sideways to it."""
        if index < self.fixed_columns:
            return
        starts, visible = self.column_starts()
        start = starts[index]
        end = start + self.columns[ColumnKey(COLUMNS[index].key)].get_render_width(self)
        if start < self.scroll_x:
            self.scroll_to(x=start, animate=False, immediate=True)
        elif end > self.scroll_x + visible:
            self.scroll_to(x=min(start, end - visible), animate=False, immediate=True)

    def action_first_row(self) -> None:
        self.move_cursor(row=0)
        self.scroll_to(x=0, animate=False)

    def action_last_row(self) -> None:
        self.move_cursor(row=self.row_count - 1)
        self.scroll_to(x=0, animate=False)
