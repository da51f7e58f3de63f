"""The triage table: one row per submission, filled in as each clone completes."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from review.core import triage
from review.core.rubric import ARTICLE
from review.core.text import masking, safe_line, safe_text
from review.services import cohort, store
from review.services.blind_order import blind_order_key
from review.services.scoring import RubricChoice, read_rubric
from review.support import gc
from review.tui.context import ConsoleContext
from review.tui.screens.cohort_read_ahead import ReadAhead
from review.tui.screens.cohort_similar import SimilarityWatch
from review.tui.screens.cohort_watch import CohortWatch
from review.tui.widgets.footer import KeysFooter
from review.tui.widgets.parts_line import PartsLine
from review.tui.widgets.text_box import TextBox
from review.tui.widgets.triage.cells import COLUMNS, LEGEND, as_seen, cells, detail, filter_fields, no_row_text
from review.tui.widgets.triage.order import table_order
from review.tui.widgets.triage.table import TriageTable

if TYPE_CHECKING:
    from review.tui.screens.submission.screen import Closed

# `n` and the title count this reviewer's own state.
MINE_TO_SCORE = ("new", "draft", "stale")
BATCH_SECONDS = 0.5


class CohortScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Triage"
    # Said in the help above the keys.
    HELP_NOTES = (triage.filter_help(),)
    AUTO_FOCUS = "#triage-table"
    # The cohort folder is looked at as often as the score files are (a listing and a few stats).
    WATCH_SECONDS = 1.0
    BINDINGS = [
        Binding("n", "next_unscored", "Next unscored", id="triage.next-unscored"),
        # Off the footer: the title names it (+, a) once something has arrived.
        Binding("a", "next_arrival", "Next arrival", show=False, id="triage.next-arrival"),
        # Priority: acted on as the key is read, so the keys that follow it in the same burst are sent
        # to the box and not queued for the table (where "s" sorts). Inside the box a slash is text.
        Binding("slash", "filter", "Filter", priority=True, id="triage.filter"),
        Binding("m", "similar", "Similar code", id="triage.similar"),
        Binding("s", "sort_next", "Sort column", id="triage.sort"),
        Binding("S", "sort_reverse", "Reverse sort", id="triage.sort-reverse"),
        Binding("R", "refresh", "Reload", id="triage.reload"),
        Binding("A", "reveal", "Show names (A twice)", id="triage.reveal"),
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
        # What an empty cohort is told (read in the worker: it looks for a .git in the folder).
        empty_text: str = ""
        # The key candidates are numbered by in a candidate-blind session (read, or made, in the worker).
        blind_key: bytes = b""

    @dataclass
    class RowsLoaded(Message):
        """A batch of finished rows: every table update re-renders the visible cells, so batch them."""

        rows: list[cohort.Row]
        # Loaded follows at once, and rebuilds the whole table anyway.
        last_batch: bool = False

    @dataclass
    class Loaded(Message):
        count: int

    def __init__(self, context: ConsoleContext) -> None:
        super().__init__()
        self.context = context
        self.cohort_dir = context.cohort_dir
        self.session = context.session
        self.me = context.me
        self.rows: dict[str, cohort.Row] = {}
        # Listed, and no batch of rows painted since (show_placeholders).
        self.awaiting_rows = False
        self.empty_text = ""
        # The cohort's rubric, read with its folders: handed to each submission opened.
        self.rubric = RubricChoice(ARTICLE)
        self.read_ahead = ReadAhead(self, self.current_row, lambda: self.cohort_watch.loading)
        # When A was first pressed (A twice lifts candidate-blind review).
        self.reveal_asked = float("-inf")
        # The background harness and the arrivals.
        self.cohort_watch = CohortWatch(self)
        self.similar = SimilarityWatch(self)
        self.title_bar = PartsLine(one_row=True, id="triage-title")
        self.filter_box = TextBox(
            # Whole at 80 columns; every field is in the help (f1: ? would be typed into the box).
            placeholder="filter: a name, or field:value (tool:claude ai:>50) · f1 lists the fields",
            id="triage-filter",
            classes="hidden",
        )
        self.filter_problem = Static(id="triage-filter-problem")
        self.filter_problem.display = False
        self.table = TriageTable(cursor_type="row", zebra_stripes=True, id="triage-table")
        self.detail = Static(id="triage-detail")
        # More than its rows shows a scrollbar (the mouse wheel scrolls it): never cut without a sign.
        self.detail_box = VerticalScroll(self.detail, id="triage-detail-box", can_focus=False)
        self.legend = Static(Content(LEGEND), id="triage-legend")

    def compose(self) -> ComposeResult:
        yield self.title_bar
        yield self.filter_box
        yield self.filter_problem
        yield self.table
        yield self.detail_box
        yield self.legend
        yield KeysFooter()

    def on_mount(self) -> None:
        self.context.subscribe_to_scores(self, self.scores_changed)
        self.reload()
        # A submission copied or imported into the cohort meanwhile appears on its own.
        self.set_interval(self.WATCH_SECONDS, self.cohort_watch.look)

    def reload(self, asked: bool = False) -> None:
        self.cohort_watch.loading, self.cohort_watch.reload_asked = True, asked
        self.load_rows()

    @work(thread=True, exclusive=True, group="triage", name="triage-rows")
    def load_rows(self) -> None:
        try:
            paths, problem = cohort.list_submissions(self.cohort_dir), None
        except cohort.CohortError as error:
            paths, problem = [], str(error)
        empty = cohort.empty_cohort_text(self.cohort_dir) if not paths and not problem else ""
        blind_key = blind_order_key(self.cohort_dir) if self.context.anonymous and paths else b""
        self.post_message(self.Listed(paths, problem, read_rubric(self.cohort_dir), empty, blind_key))
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
        self.empty_text = message.empty_text
        # Candidate-blind: set before the first row is drawn.
        self.context.start_masking((path.name for path in message.paths), message.blind_key)
        self.cohort_watch.listed([path.name for path in message.paths])
        self.refresh_bindings()
        self.rows = {path.name: cohort.placeholder(path) for path in message.paths}
        # The table is first painted with the first batch of rows: a warm cohort's rows follow within a
        # moment, and every paint of a refilled table renders each cell on screen again (a third of a
        # warm triage, painted twice). Rows slow to read show as placeholders after the batch time.
        self.awaiting_rows = True
        self.set_timer(BATCH_SECONDS, self.show_placeholders)
        self.update_title()
        self.update_detail()

    def show_placeholders(self) -> None:
        if self.awaiting_rows:
            self.rebuild()

    @on(RowsLoaded)
    def rows_loaded(self, message: RowsLoaded) -> None:
        shown = self.table.rows
        needs_rebuild = self.awaiting_rows
        self.awaiting_rows = False
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
        self.awaiting_rows = False
        # Apply the sort now that every value is known.
        self.rebuild()
        # The row under the cursor is complete now: read it ahead.
        self.highlighted()
        self.cohort_watch.loaded(self.rows)
        # Once the complete table is painted: the index's thread took the GIL from that paint.
        self.call_after_refresh(self.similar.start, [Path(row.path) for row in self.rows.values()], whole=True)

    @on(CohortWatch.Looked)
    def looked(self, message: CohortWatch.Looked) -> None:
        arrived = self.cohort_watch.looked(message.rows, message.moved, message.suites)
        for row in arrived:
            self.rows[row.name] = row
        if arrived:
            self.refresh_bindings()
            self.rebuild()
            self.cohort_watch.run_harness([row for row in arrived if cohort.needs_suite(row)], "harness-arrivals")
            self.similar.start([Path(row.path) for row in arrived])

    @on(CohortWatch.HeadsMoved)
    def heads_moved(self, message: CohortWatch.HeadsMoved) -> None:
        self.context.head_updates.publish(message.heads)

    @on(SimilarityWatch.Computed)
    def similar_computed(self, message: SimilarityWatch.Computed) -> None:
        self.similar.computed(message)
        self.rebuild()

    @on(CohortWatch.HarnessStarted)
    def harness_started(self, message: CohortWatch.HarnessStarted) -> None:
        self.cohort_watch.harness_started(message.row)
        self.update_current_row(message.row)
        self.update_title()

    @on(CohortWatch.HarnessDone)
    def harness_done(self, message: CohortWatch.HarnessDone) -> None:
        self.cohort_watch.harness_done(message.row)
        self.update_current_row(message.row)
        self.update_title()
        self.update_detail()

    def update_current_row(self, row: cohort.Row) -> None:
        """A suite's row redrawn, unless a resubmission replaced it meanwhile (an old HEAD's run)."""
        if self.rows.get(row.name) is row:
            self.update_row(row)

    # ----------------------------------------------------------------- table contents

    def row_cells(self, row: cohort.Row) -> list[Text]:
        self.similar.fill_similar(row)
        watch = self.cohort_watch
        return cells(
            self.app,
            as_seen(row, self.me, self.context.blind),
            self.me,
            arrived=row.name in watch.arrived,
            resubmitted=row.name in watch.resubmitted,
        )

    def update_row(self, row: cohort.Row) -> None:
        """The row's cells redrawn, and the detail with them when it is the highlighted row: the detail
        says what that row holds whenever it changes, not only when the cursor moves."""
        # A value in the sorted column changed after the load (a suite's result): the row finds its place.
        if self.table.update_cells(row.name, self.row_cells(row)) and not self.cohort_watch.loading:
            self.call_after_refresh(self.rebuild)
        if row.name == self.current_name():
            self.update_detail()

    def matches(self, row: cohort.Row) -> bool:
        terms, _ = triage.parse_filter(self.filter_text)
        # No filter: every row, without making its fields (a row's similar partners are dozens).
        return not terms or triage.matches(
            terms, filter_fields(row, self.me, arrived=self.cohort_watch.is_new(row.name))
        )

    def watch_sort(self) -> None:
        self.rebuild()
        # The sorted column's header, with its mark, on screen.
        self.call_after_refresh(lambda: self.table.show_column(self.sort[0]))

    def watch_filter_text(self) -> None:
        self.rebuild()

    def visible_rows(self) -> list[cohort.Row]:
        index, backwards = self.sort
        for row in self.rows.values():
            self.similar.fill_similar(row)
        return table_order(
            (as_seen(row, self.me, self.context.blind) for row in self.rows.values() if self.matches(row)),
            COLUMNS[index],
            backwards,
            self.me,
            self.context.blind_numbers(),
        )

    def rebuild(self) -> None:
        table = self.table
        current = self.current_name()
        table.show_rows([(row.name, self.row_cells(row)) for row in self.visible_rows()], self.sort)
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
        # Until every row is read, how many are left to score is not known: the load's progress instead.
        first = f"{sum(map(self.to_score, self.rows.values()))} for {self.me} to score"
        parts = [first if done == total else f"loading {done}/{total}", f"{total} submissions"]
        parts += self.cohort_watch.title_parts()
        problems: list[str] = []
        if masking():
            # First: at 80 columns the title's end is cut, and a blind session must say so.
            parts.insert(0, "candidate-blind")
        if self.filter_text:
            terms, problems = triage.parse_filter(self.filter_text)
            # Blind: a name typed is echoed as a name, never as the alias it would be masked to.
            masker = self.context.masker
            typed = masker.redact(self.filter_text) if masker is not None else self.filter_text
            # In the place of the count, in few words: the sort and the cohort after it stay whole at 80 columns.
            parts[parts.index(f"{total} submissions")] = f"{shown} of {total} match {typed!r}"
        # Under the filter box, wrapped: on the one-row title it was cut at 80 columns.
        self.filter_problem.update(
            Content(
                safe_text(
                    f"not understood: {' '.join(problems)} (fields: {', '.join(triage.FILTER_FIELDS)})"
                    if problems
                    else ""
                )
            )
        )
        self.filter_problem.display = bool(problems)
        # The cohort by its folder's name: its whole path left the title cut at 80 columns.
        parts += [f"sorted by {COLUMNS[self.sort[0]].label}", self.cohort_dir.name]
        self.title_bar.set_parts(parts)

    def update_detail(self) -> None:
        name = self.current_name()
        row = self.rows.get(name) if name else None
        panel = self.detail
        if row is None:
            panel.update(Content(no_row_text(len(self.rows), self.empty_text, self.awaiting_rows)))
            return
        lines = [safe_line(line, 400) for line in detail(row).splitlines()]
        if (seen := self.cohort_watch.seen_line(name)) is not None:
            lines.insert(1, seen)
        panel.update(Content("\n".join(lines)))

    def current_row(self) -> cohort.Row | None:
        name = self.current_name()
        return self.rows.get(name) if name else None

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
        self.read_ahead.rested()

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
            self.app.notify(safe_line(f"{row.name} cannot be opened: {row.problem}"), severity="warning", markup=False)
            return
        from review.tui.screens.submission.screen import SubmissionScreen

        screen = SubmissionScreen(self.context, row, self.rubric, self.similar)
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
                self.update_row(row)
            if result.scores is not None:
                self.refresh_row(row, result.scores)
        # The next to score, opened only when there is one (never the same one again, silently).
        if result is not None and result.open_next and self.go_to_next_unscored():
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
                self.app.notify(
                    safe_line(f"{who} saved their review of {row.name}: {triage.state_word(state)}", 200),
                    markup=False,
                    timeout=4,
                )

    def action_next_unscored(self) -> None:
        self.go_to_next_unscored()

    def go_to_next_unscored(self) -> bool:
        """The next row shown that this reviewer has not scored finally at HEAD (another's final does
        not count); False, said, when there is none other than the one at the cursor."""
        table = self.table
        names = [key.value for key in table.rows if key.value is not None]
        start = table.cursor_row
        found = triage.next_to_score([self.to_score(self.rows[name]) for name in names], start)
        if found is not None:
            table.move_cursor(row=found)
            return True
        shown = set(names)
        outside = sum(self.to_score(row) for name, row in self.rows.items() if name not in shown)
        here = names[start] if 0 <= start < len(names) and self.to_score(self.rows[names[start]]) else None
        self.app.notify(triage.none_left_text(self.me, here, outside), markup=False)
        return False

    def action_next_arrival(self) -> None:
        """The next row that arrived since the console opened, after the cursor (round to the first)."""
        table = self.table
        shown = [key.value for key in table.rows if key.value is not None]
        if not (self.cohort_watch.arrived or self.cohort_watch.resubmitted):
            self.app.notify(
                "Nothing has arrived since the console opened (new submissions copied into the "
                "cohort appear here, marked +; a new commit on a listed one, marked ↻).",
                markup=False,
            )
            return
        found = self.cohort_watch.next_arrival(shown, table.cursor_row)
        if found is not None:
            table.move_cursor(row=found)
        else:
            self.app.notify("The submissions that arrived are filtered out (escape clears the filter).", markup=False)

    def action_similar(self) -> None:
        """The highlighted submission beside the ones it shares most code with."""
        self.similar.open_pair(self.current_name())

    def action_filter(self) -> None:
        box = self.filter_box
        box.remove_class("hidden")
        # Focus now, not on a later turn of the queue: the keys read in the same burst as the slash
        # (a browser tab, SSH) must land in the box.
        self.set_focus(box)

    @on(Input.Changed, "#triage-filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value.strip()

    @on(Input.Submitted, "#triage-filter")
    def filter_done(self) -> None:
        self.table.focus()

    def action_clear_filter(self) -> None:
        """One escape, in the box or in the table: the filter cleared and the box closed."""
        box = self.filter_box
        was_typing = box.has_focus
        if was_typing or self.filter_text:
            box.value = ""
            box.add_class("hidden")
        if was_typing:
            self.table.focus()

    def action_sort_next(self) -> None:
        self.sort = ((self.sort[0] + 1) % len(COLUMNS), False)

    def action_sort_reverse(self) -> None:
        self.sort = (self.sort[0], not self.sort[1])

    def action_refresh(self) -> None:
        self.reload(asked=True)

    # Seconds within which the second A lifts candidate-blind review.
    REVEAL_WINDOW = 3.0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reveal":
            # The key exists only in a candidate-blind session.
            return masking()
        if action == "filter":
            return not self.filter_box.has_focus
        return True

    def action_reveal(self) -> None:
        """Lift candidate-blind review for the rest of this session: asked twice, never by accident."""
        now = time.monotonic()
        if now - self.reveal_asked > self.REVEAL_WINDOW:
            self.reveal_asked = now
            self.app.notify(
                "Press A again to show the candidates' names for the rest of this session.",
                markup=False,
                timeout=self.REVEAL_WINDOW,
            )
            return
        self.context.reveal_names()
        self.refresh_bindings()
        self.rebuild()
        self.app.notify("Names shown from now on (a submission already open shows them once reopened).", markup=False)
