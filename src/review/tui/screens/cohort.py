"""The triage table: one row per submission, filled in as each clone completes."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey
from textual.worker import get_current_worker

from review.core import triage
from review.core.rubric import ARTICLE
from review.core.text import masking, safe_line
from review.harness import process
from review.services import arrivals, cohort, store
from review.services.scoring import RubricChoice, read_rubric
from review.support import gc
from review.tui.context import ConsoleContext
from review.tui.widgets.footer import KeysFooter
from review.tui.widgets.triage.cells import COLUMNS, LEGEND, cells, detail, filter_fields

if TYPE_CHECKING:
    from review.tui.screens.submission.screen import Closed

# `n` and the title count this reviewer's own state.
MINE_TO_SCORE = ("new", "draft", "stale")
BATCH_SECONDS = 0.5
# Seconds the cursor rests on a row before its submission is read ahead.
PREFETCH_AFTER = 0.3


class TriageTable(DataTable):
    """The triage DataTable, with its enter key named for what it does here."""

    BINDINGS = [Binding("enter", "select_cursor", "Open", id="triage.open"),
                Binding("j", "cursor_down", "Down", show=False, id="triage.down"),
                Binding("k", "cursor_up", "Up", show=False, id="triage.up")]


class CohortScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Triage"
    AUTO_FOCUS = "#triage-table"
    # The cohort folder is looked at as often as the score files are (a listing and a few stats).
    WATCH_SECONDS = 1.0
    BINDINGS = [
        Binding("n", "next_unscored", "Next unscored", id="triage.next-unscored"),
        Binding("a", "next_arrival", "Next arrival", id="triage.next-arrival"),
        Binding("slash", "filter", "Filter", id="triage.filter"),
        Binding("s", "sort_next", "Sort column", id="triage.sort"),
        Binding("S", "sort_reverse", "Reverse sort", id="triage.sort-reverse"),
        Binding("R", "refresh", "Reload", id="triage.reload"),
        Binding("A", "reveal", "Show names", id="triage.reveal"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="triage.clear-filter"),
    ]

    # (column index, reversed): the table follows it.
    sort: reactive[tuple[int, bool]] = reactive((0, False), init=False)
    filter_text: reactive[str] = reactive("", init=False)

    @dataclass
    class Listed(Message):
        """The cohort's folders, listed (or why not), and its rubric, read in the rows' worker."""

        paths: list[Path]
        problem: str | None
        rubric: RubricChoice

    @dataclass
    class RowsLoaded(Message):
        """A batch of finished rows: every table update re-renders the visible cells, so batch them."""

        rows: list[cohort.Row]
        # Loaded follows at once, and rebuilds the whole table anyway.
        last_batch: bool = False

    @dataclass
    class Loaded(Message):
        count: int

    @dataclass
    class Looked(Message):
        """The cohort folder looked at again (the watcher's worker): rows of submissions that arrived."""

        rows: list[cohort.Row]

    @dataclass
    class HarnessStarted(Message):
        row: cohort.Row

    @dataclass
    class HarnessDone(Message):
        row: cohort.Row

    def __init__(self, context: ConsoleContext) -> None:
        super().__init__()
        self.context = context
        self.cohort_dir = context.cohort_dir
        self.session = context.session
        self.me = context.me
        self.harness_running: set[str] = set()
        self.harness_queue = 0
        self.rows: dict[str, cohort.Row] = {}
        # The cohort's rubric, read with its folders: handed to each submission opened.
        self.rubric = RubricChoice(ARTICLE)
        self.prefetch_timer: Timer | None = None
        # When A was first pressed (A twice lifts candidate-blind review).
        self.reveal_asked = float("-inf")
        # The folders the console opened with; any other is an arrival, marked for the session.
        self.opened_with: set[str] | None = None
        self.arrived: dict[str, str] = {}
        # Looking for arrivals starts once the rows are loaded, one look at a time.
        self.arrivals: arrivals.Arrivals | None = None
        self.loading = False
        self.looking = False
        self.title_bar = Static(id="triage-title")
        self.filter_box = Input(placeholder="filter: name, or state: tool: scope: disclosure: verdict: "
                                            "reviewer: (e.g. scope:per-call)", id="triage-filter",
                                            classes="hidden")
        self.table = TriageTable(cursor_type="row", zebra_stripes=True, id="triage-table")
        self.detail = Static(id="triage-detail")

    def compose(self) -> ComposeResult:
        yield self.title_bar
        yield self.filter_box
        for column in COLUMNS:
            self.table.add_column(column.label, key=column.key)
        yield self.table
        yield self.detail
        yield KeysFooter(self.context.keymap.get("app.help"))

    def on_mount(self) -> None:
        self.context.subscribe_to_scores(self, self.scores_changed)
        self.reload()
        # A submission copied or imported into the cohort meanwhile appears on its own.
        self.set_interval(self.WATCH_SECONDS, self.watch_folder)

    def reload(self) -> None:
        self.loading = True
        self.load_rows()

    @work(thread=True, exclusive=True, group="triage", name="triage-rows")
    def load_rows(self) -> None:
        try:
            paths, problem = cohort.list_submissions(self.cohort_dir), None
        except cohort.CohortError as error:
            paths, problem = [], str(error)
        self.post_message(self.Listed(paths, problem, read_rubric(self.cohort_dir)))
        count = 0
        batch: list[cohort.Row] = []
        last = time.monotonic()
        for row in self.session.rows(paths):
            batch.append(row)
            count += 1
            if time.monotonic() - last >= BATCH_SECONDS:
                self.post_message(self.RowsLoaded(batch))
                batch, last = [], time.monotonic()
        if batch:
            self.post_message(self.RowsLoaded(batch, last_batch=True))
        self.post_message(self.Loaded(count))

    @on(Listed)
    def listed(self, message: Listed) -> None:
        if message.problem:
            self.app.notify(message.problem, severity="error", markup=False)
        self.rubric = message.rubric
        # Candidate-blind: set before the first row is drawn.
        self.context.start_masking(path.name for path in message.paths)
        names = [path.name for path in message.paths]
        if self.opened_with is None:
            self.opened_with = set(names)
        # R found folders that came after the console opened: arrivals too.
        self.mark_arrived(name for name in names if name not in self.opened_with)
        self.rows = {path.name: cohort.placeholder(path) for path in message.paths}
        self.rebuild()

    @on(RowsLoaded)
    def rows_loaded(self, message: RowsLoaded) -> None:
        shown = self.table.rows
        needs_rebuild = False
        for row in message.rows:
            self.rows[row.name] = row
            if not self.matches(row) or row.name not in shown:
                needs_rebuild = True
        if message.last_batch:
            # all_loaded rebuilds once, right after (a warm cohort arrives in one batch)
            return
        if needs_rebuild:
            self.rebuild()
            return
        for row in message.rows:
            self.update_row(row)
        self.update_title()
        self.update_detail()

    @on(Loaded)
    def all_loaded(self, message: Loaded) -> None:
        # Apply the sort now that every value is known.
        self.rebuild()
        # The row under the cursor is complete now: read it ahead.
        self.highlighted()
        self.loading = False
        self.arrivals = arrivals.Arrivals(self.cohort_dir, self.rows)
        if self.context.run_harness:
            waiting = [row for row in self.rows.values() if cohort.needs_suite(row)]
            self.queue_harness(waiting)
            self.fill_harness(waiting)

    def queue_harness(self, rows: list[cohort.Row]) -> None:
        for row in rows:
            row.harness = cohort.QUEUED
            self.update_row(row)
        self.harness_queue += len(rows)
        self.update_title()

    @work(thread=True, exclusive=True, group="harness", name="triage-harness")
    def fill_harness(self, rows: list[cohort.Row]) -> None:
        """Suites run in their own event loop in this thread, two per core; the UI never waits."""
        self.run_suites(rows)

    @work(thread=True, group="harness-arrivals", name="triage-harness-arrivals")
    def fill_harness_of_arrivals(self, rows: list[cohort.Row]) -> None:
        """The same for submissions that arrived, beside the cohort's own runs (never cancelling them)."""
        self.run_suites(rows)

    def run_suites(self, rows: list[cohort.Row]) -> None:
        import asyncio

        worker = get_current_worker()
        try:
            process.run_until_stopped(
                lambda: cohort.fill_harness(rows,
                                            on_start=lambda row: self.post_message(self.HarnessStarted(row)),
                                            on_done=lambda row: self.post_message(self.HarnessDone(row))),
                lambda: worker.is_cancelled)
        except asyncio.CancelledError:
            # The console is quitting: the runs were stopped and their processes killed.
            pass

    @on(HarnessStarted)
    def harness_started(self, message: HarnessStarted) -> None:
        self.harness_running.add(message.row.name)
        message.row.harness = "running…"
        self.update_row(message.row)
        self.update_title()

    @on(HarnessDone)
    def harness_done(self, message: HarnessDone) -> None:
        self.harness_running.discard(message.row.name)
        self.harness_queue = max(0, self.harness_queue - 1)
        self.update_row(message.row)
        self.update_title()
        self.update_detail()

    # ----------------------------------------------------------------- arrivals

    def watch_folder(self) -> None:
        """Once a second: look at the cohort folder in a worker, unless a load or a look is under way."""
        if self.arrivals is None or self.loading or self.looking:
            return
        self.looking = True
        self.look_for_arrivals(self.arrivals)

    @work(thread=True, exclusive=True, group="cohort-watch", name="cohort-watch")
    def look_for_arrivals(self, watch: arrivals.Arrivals) -> None:
        rows: list[cohort.Row] = []
        try:
            paths = watch.look()
            if paths:
                rows = list(self.session.rows(paths))
                watch.read(rows)
        finally:
            self.post_message(self.Looked(rows))

    @on(Looked)
    def looked(self, message: Looked) -> None:
        self.looking = False
        if not message.rows or self.loading:
            return
        names = [row.name for row in message.rows]
        self.context.mask_arrivals(names)
        self.mark_arrived(names)
        for row in message.rows:
            self.rows[row.name] = row
        self.rebuild()
        if self.context.run_harness:
            waiting = [row for row in message.rows if cohort.needs_suite(row)]
            if waiting:
                self.queue_harness(waiting)
                self.fill_harness_of_arrivals(waiting)

    def mark_arrived(self, names: Iterable[str]) -> None:
        for name in names:
            self.arrived.setdefault(name, time.strftime("%H:%M"))

    # ----------------------------------------------------------------- table contents

    def update_row(self, row: cohort.Row) -> None:
        """Grow a column when a cell needs it, never re-measure it: DataTable measures the whole column
        when a cell gets narrower, which made filling 300 rows quadratic (rebuild() re-fits them all).
        The column grows here and now, not when the table is next idle (see fit_columns)."""
        table = self.table
        if row.name not in table.rows:
            return
        for column, cell in zip(COLUMNS, cells(self.app, row, self.me, arrived=row.name in self.arrived)):
            shown = table.columns[ColumnKey(column.key)]
            wider = cell.cell_len > shown.content_width
            if wider:
                shown.content_width = cell.cell_len
            table.update_cell(row.name, column.key, cell, update_width=wider)

    def fit_columns(self, shown: list[list[Text]]) -> None:
        """Each column as wide as its label (sort mark included) or its widest cell, set as the rows
        are added. DataTable measures new cells only once it is idle, and caches the lines it paints
        by a count that measuring does not change: a frame painted in between (a busy or slow
        terminal) showed every cell cut to its header's width, and kept it so."""
        table = self.table
        for index, column in enumerate(COLUMNS):
            fitted = table.columns[ColumnKey(column.key)]
            fitted.content_width = max([fitted.label.cell_len, *(row[index].cell_len for row in shown)])

    def matches(self, row: cohort.Row) -> bool:
        terms, _ = triage.parse_filter(self.filter_text)
        return triage.matches(terms, filter_fields(row, self.me, arrived=row.name in self.arrived))

    def watch_sort(self) -> None:
        self.rebuild()
        self.call_after_refresh(self.show_sorted_column)

    def show_sorted_column(self) -> None:
        """The sorted column's header, with its mark, on screen: a narrow terminal scrolls sideways to it."""
        table = self.table
        widths = [table.columns[ColumnKey(column.key)].get_render_width(table) for column in COLUMNS]
        start = sum(widths[:self.sort[0]])
        end = start + widths[self.sort[0]]
        visible = table.scrollable_content_region.width
        if start < table.scroll_x:
            table.scroll_to(x=start, animate=False, immediate=True)
        elif end > table.scroll_x + visible:
            table.scroll_to(x=min(start, end - visible), animate=False, immediate=True)

    def watch_filter_text(self) -> None:
        self.rebuild()

    def visible_rows(self) -> list[cohort.Row]:
        index, backwards = self.sort
        column = COLUMNS[index]

        def order(row: cohort.Row):
            return column.sort_key(row, self.me)

        rows = [row for row in self.rows.values() if self.matches(row)]
        present = sorted((r for r in rows if order(r)[0] is False), key=order, reverse=backwards)
        missing = sorted((r for r in rows if order(r)[0] is True), key=lambda r: r.name)
        return present + missing

    def rebuild(self) -> None:
        table = self.table
        current = self.current_name()
        table.clear()
        shown = []
        for row in self.visible_rows():
            shown.append(cells(self.app, row, self.me, arrived=row.name in self.arrived))
            table.add_row(*shown[-1], key=row.name)
        sorted_by, backwards = self.sort
        for index, column in enumerate(COLUMNS):
            arrow = (" ▼" if backwards else " ▲") if index == sorted_by else ""
            table.columns[ColumnKey(column.key)].label = Text(column.label + arrow)
        self.fit_columns(shown)
        table.refresh()
        if current and current in table.rows:
            table.move_cursor(row=table.get_row_index(current))
        self.update_title()
        self.update_detail()

    def to_score(self, row: cohort.Row) -> bool:
        """Still to score by this reviewer (another reviewer's final does not count)."""
        return row.complete and row.head is not None and row.states.get(self.me, "new") in MINE_TO_SCORE

    def update_title(self) -> None:
        total = len(self.rows)
        done = sum(row.complete for row in self.rows.values())
        shown = self.table.row_count
        parts = [f"{sum(map(self.to_score, self.rows.values()))} for {self.me} to score", f"{total} "
                                                                                          "submissions"]
        if done < total:
            parts.append(f"loading {done}/{total}")
        if self.arrived:
            parts.append(f"{len(self.arrived)} arrived since the console opened (+, a goes to the next)")
        if self.harness_queue:
            running = ", ".join(sorted(self.harness_running)) or "starting"
            parts.append(f"harness: {self.harness_queue} to run ({running})")
        if self.filter_text:
            terms, problems = triage.parse_filter(self.filter_text)
            parts.append(f"filter {self.filter_text!r}: {shown} shown")
            if problems:
                parts.append(f"not understood: {' '.join(problems)} (fields: "
                             f"{', '.join(triage.FILTER_FIELDS)})")
        if masking():
            parts.append("candidate-blind (A twice shows names)")
        parts += [f"sorted by {COLUMNS[self.sort[0]].label}", str(self.cohort_dir)]
        self.title_bar.update(Content(safe_line(" · ".join(parts), 400)))

    def update_detail(self) -> None:
        name = self.current_name()
        row = self.rows.get(name) if name else None
        panel = self.detail
        if row is None:
            panel.update(Content("No submissions." if not self.rows else "No row matches the filter."))
            return
        lines = [safe_line(line, 400) for line in detail(row).splitlines()]
        if name in self.arrived:
            lines.insert(1, f"+ arrived at {self.arrived[name]}, after the console opened")
        panel.update(Content("\n".join(lines + [LEGEND])))

    def current_name(self) -> str | None:
        table = self.table
        if table.row_count == 0:
            return None
        try:
            key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        except Exception:
            return None
        return key.value

    @on(DataTable.RowHighlighted, "#triage-table")
    def highlighted(self) -> None:
        self.update_detail()
        if self.prefetch_timer is not None:
            self.prefetch_timer.stop()
        self.prefetch_timer = self.set_timer(PREFETCH_AFTER, self.prefetch_highlighted)

    def prefetch_highlighted(self) -> None:
        """The cursor rests on a row: read that submission now, so Enter finds it read (a warm triage
        row came from the row cache and has no analysis yet)."""
        name = self.current_name()
        row = self.rows.get(name) if name else None
        if row is not None and row.complete and row.head is not None:
            self.prefetch(Path(row.path))

    @work(thread=True, exclusive=True, group="prefetch", name="prefetch")
    def prefetch(self, path: Path) -> None:
        try:
            # Imported here, in the worker: start-up stays lean, and Enter does not pay 60 ms of imports.
            import review.tui.screens.submission.screen  # noqa: F401
            from review.tui.widgets.diff.code import load_lexers

            analysis = self.session.open(path)
            analysis.sites  # noqa: B018 — the code sites too, as the submission screen needs them
            load_lexers(analysis.diff)
        # a read ahead only: opening the submission reads it again and says what failed.
        except Exception:
            pass

    @on(DataTable.RowSelected, "#triage-table")
    def selected(self) -> None:
        self.action_open()

    @on(DataTable.HeaderSelected, "#triage-table")
    def header_clicked(self, event: DataTable.HeaderSelected) -> None:
        index = next(i for i, c in enumerate(COLUMNS) if c.key == event.column_key.value)
        sorted_by, backwards = self.sort
        self.sort = (index, not backwards if index == sorted_by else False)

    # ----------------------------------------------------------------- actions

    def action_open(self) -> None:
        name = self.current_name()
        if name is None:
            return
        row = self.rows[name]
        if row.problem and row.head is None:
            self.app.notify(safe_line(f"{row.name} cannot be opened: {row.problem}"), severity="warning",
                            markup=False)
            return
        from review.tui.screens.submission.screen import SubmissionScreen

        screen = SubmissionScreen(self.context, row, self.rubric)
        # Until its first frame is drawn: the screen releases it.
        gc.hold()
        self.app.push_screen(screen, self.submission_closed)

    def submission_closed(self, result: Closed | None) -> None:
        """Back from a submission: its row follows (its state, and its harness column if a suite ran
        there), from what the screen last read or wrote; open the next if asked."""
        name = self.current_name()
        if name and result is not None:
            row = self.rows[name]
            if result.suite is not None:
                cohort.apply_suite(row, result.suite)
            if result.scores is not None:
                self.refresh_row(row, result.scores)
        if result is not None and result.open_next:
            self.action_next_unscored()
            self.action_open()

    def scores_changed(self, files: dict[str, store.ScoreFile]) -> None:
        """A score file changed on disk (a save here or in another console): its row follows."""
        for name, scores in files.items():
            row = self.rows.get(name)
            if row is not None and row.complete:
                self.refresh_row(row, scores)

    def refresh_row(self, row: cohort.Row, scores: store.ScoreFile) -> None:
        before = dict(row.states)
        cohort.apply_scores(row, scores)
        self.update_row(row)
        self.update_title()
        for who, state in row.states.items():
            if who != self.me and before.get(who) != state and self.is_current:
                self.app.notify(safe_line(f"{who} saved {row.name}: {state}", 200), markup=False, timeout=4)

    def action_next_unscored(self) -> None:
        """The next row this reviewer has not scored finally at HEAD (another's final does not count)."""
        table = self.table
        names = [key.value for key in table.rows if key.value is not None]
        if not names:
            return
        start = table.cursor_row
        for step in range(1, len(names) + 1):
            if self.to_score(self.rows[names[(start + step) % len(names)]]):
                table.move_cursor(row=(start + step) % len(names))
                return
        self.app.notify(f"Every submission is scored by {self.me}.", markup=False)

    def action_next_arrival(self) -> None:
        """The next row that arrived since the console opened, after the cursor (round to the first)."""
        table = self.table
        names = [key.value for key in table.rows if key.value is not None]
        start = table.cursor_row
        for step in range(1, len(names) + 1):
            if names[(start + step) % len(names)] in self.arrived:
                table.move_cursor(row=(start + step) % len(names))
                return
        said = "Nothing has arrived since the console opened." if not self.arrived else \
            "The submissions that arrived are filtered out (escape clears the filter)."
        self.app.notify(said, markup=False, timeout=3)

    def action_filter(self) -> None:
        box = self.filter_box
        box.remove_class("hidden")
        box.focus()
        # A box just shown takes focus once laid out: keys typed at once land in it.
        self.call_after_refresh(box.focus)

    @on(Input.Changed, "#triage-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()

    @on(Input.Submitted, "#triage-filter")
    def filter_done(self) -> None:
        self.table.focus()

    def action_clear_filter(self) -> None:
        box = self.filter_box
        if box.has_focus and box.value:
            box.value = ""
        elif box.has_focus:
            box.add_class("hidden")
            self.table.focus()
        elif self.filter_text:
            box.value = ""
            box.add_class("hidden")

    def action_sort_next(self) -> None:
        self.sort = ((self.sort[0] + 1) % len(COLUMNS), False)

    def action_sort_reverse(self) -> None:
        self.sort = (self.sort[0], not self.sort[1])

    def action_refresh(self) -> None:
        self.reload()

    # Seconds within which the second A lifts candidate-blind review.
    REVEAL_WINDOW = 3.0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reveal":
            # The key exists only in a candidate-blind session.
            return masking()
        return True

    def action_reveal(self) -> None:
        """Lift candidate-blind review for the rest of this session: asked twice, never by accident."""
        now = time.monotonic()
        if now - self.reveal_asked > self.REVEAL_WINDOW:
            self.reveal_asked = now
            self.app.notify("Press A again to show the candidates' names for the rest of this session.",
                            markup=False, timeout=self.REVEAL_WINDOW)
            return
        self.context.reveal_names()
        self.refresh_bindings()
        self.rebuild()
        self.app.notify("Names shown from now on (a submission already open shows them once reopened).",
                        markup=False)
