"""What keeps the triage rows current while the console is open, owned by the triage screen: the
background harness filling the Runs column (suites in a worker thread, half the cores at once), and the cohort
folder looked at once a second for submissions that arrive meanwhile and listed ones given a new
commit (`services.arrivals`). Workers post the screen's messages; the screen hands them back here and
redraws."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from textual.app import App
from textual.message import Message
from textual.timer import Timer
from textual.worker import get_current_worker

from review.harness import process
from review.harness.results import SuiteResult
from review.services import arrivals, cohort
from review.services.session import Session
from review.tui.context import ConsoleContext
from review.tui.worker_host import WorkerHost


class Triage(WorkerHost, Protocol):
    """What the watch needs of the triage screen."""

    cohort_dir: Path
    session: Session
    context: ConsoleContext
    rows: dict[str, cohort.Row]

    @property
    def app(self) -> App[Any]: ...

    def post_message(self, message: Message) -> bool: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer: ...

    def update_row(self, row: cohort.Row) -> None: ...

    def update_title(self) -> None: ...

    def update_detail(self) -> None: ...


class CohortWatch:
    @dataclass
    class Looked(Message):
        """The cohort folder looked at again: rows of submissions that arrived, and of listed ones whose
        HEAD moved (none, mostly)."""

        rows: list[cohort.Row]
        moved: list[cohort.Row]
        # Full suites another process wrote for a listed HEAD (`review harness` in another terminal).
        suites: dict[str, SuiteResult]

    @dataclass
    class HeadsMoved(Message):
        """Listed submissions whose HEAD moved (name -> the new HEAD, read from their files), said before
        their rows are read again (a clone may take a while): an open one must know at once."""

        # To the submission screen open on one of them (the rows are redrawn once read again).
        heads: dict[str, str]

    @dataclass
    class HarnessStarted(Message):
        row: cohort.Row

    @dataclass
    class HarnessDone(Message):
        row: cohort.Row

    def __init__(self, screen: Triage) -> None:
        self.screen = screen
        # Group -> the rows its worker has still to run. A reload's worker replaces the one before (an
        # exclusive group): that one's rows are dropped, never counted twice or left "to run".
        self.harness_pending: dict[str, dict[str, cohort.Row]] = {}
        self.harness_running: set[str] = set()
        # The folders the console opened with; any other is an arrival, marked for the session.
        self.opened_with: set[str] | None = None
        # Arrival -> when it arrived (HH:MM).
        self.arrived: dict[str, str] = {}
        # Listed submission given a new commit since opening -> when it was seen (HH:MM).
        self.resubmitted: dict[str, str] = {}
        # Looked for once the rows are loaded, one look at a time.
        self.arrivals: arrivals.Arrivals | None = None
        self.loading = False
        self.looking = False
        # R was pressed: said once the rows are read again (a warm cohort's look the same).
        self.reload_asked = False

    # ----------------------------------------------------------------- the rows' load

    def listed(self, names: list[str]) -> None:
        if self.opened_with is None:
            self.opened_with = set(names)
        # R found folders that came after the console opened: arrivals too; one gone since is no arrival.
        self.arrived = {name: when for name, when in self.arrived.items() if name in names}
        self.record_arrivals(name for name in names if name not in self.opened_with)

    def loaded(self, rows: dict[str, cohort.Row]) -> None:
        self.loading = False
        if self.reload_asked:
            self.reload_asked = False
            self.screen.app.notify(f"Read again: {len(rows)} submission{'' if len(rows) == 1 else 's'}", markup=False)
        heads = {name: row.head for name, row in rows.items() if row.head}
        without_suite = [name for name, row in rows.items() if not row.scenarios]
        self.arrivals = arrivals.Arrivals(self.screen.cohort_dir, rows, heads, without_suite)
        self.run_harness([row for row in rows.values() if cohort.needs_suite(row)], "harness")

    # ----------------------------------------------------------------- arrivals

    def look(self) -> None:
        """Once a second: the cohort folder looked at in a worker, unless a load or a look is under way."""
        if self.arrivals is None or self.loading or self.looking:
            return
        self.looking = True
        self.screen.run_worker(
            partial(self.look_for_arrivals, self.arrivals),
            thread=True,
            exclusive=True,
            group="cohort-watch",
            name="cohort-watch",
        )

    def look_for_arrivals(self, watch: arrivals.Arrivals) -> None:
        rows: list[cohort.Row] = []
        moved: list[cohort.Row] = []
        suites: dict[str, SuiteResult] = {}
        try:
            paths = watch.look()
            if paths:
                rows = list(self.screen.session.rows(paths))
                watch.read(rows)
            changed = watch.moved()
            if changed:
                self.screen.post_message(self.HeadsMoved({path.name: watch.heads[path.name] for path in changed}))
                moved = list(self.screen.session.rows(changed))
                watch.read(moved)
            suites = watch.suites()
        finally:
            self.screen.post_message(self.Looked(rows, moved, suites))

    def looked(
        self, rows: list[cohort.Row], moved: list[cohort.Row], suites: dict[str, SuiteResult]
    ) -> list[cohort.Row]:
        """The rows that arrived or were resubmitted, to put in the table (none while a reload is under
        way: it lists them); suites written elsewhere fill their rows' Runs now, and reach an open
        submission of that HEAD."""
        self.looking = False
        for name, suite in suites.items():
            # For the HEAD the row shows (a resubmission's row is a new one).
            row = self.screen.rows.get(name)
            if row is not None and row.head == suite.commit:
                cohort.apply_suite(row, suite)
                self.screen.update_row(row)
            self.screen.context.suite_updates.publish(suite)
        if suites:
            self.screen.update_detail()
        if not (rows or moved) or self.loading:
            return []
        names = [row.name for row in rows]
        self.screen.context.mask_arrivals(names)
        self.record_arrivals(names)
        for row in moved:
            # The newest commit's time: a second resubmission moves it.
            self.resubmitted[row.name] = time.strftime("%H:%M")
        return rows + moved

    def record_arrivals(self, names: Iterable[str]) -> None:
        for name in names:
            self.arrived.setdefault(name, time.strftime("%H:%M"))

    def is_new(self, name: str) -> bool:
        """Arrived or resubmitted since the console opened: what `a` reaches."""
        return name in self.arrived or name in self.resubmitted

    def seen_line(self, name: str | None) -> str | None:
        """The detail's line for a row that arrived or was resubmitted since the console opened."""
        if name in self.arrived:
            return f"+ arrived at {self.arrived[name]}, after the console opened"
        if name in self.resubmitted:
            return f"↻ a new commit seen at {self.resubmitted[name]}, after the console opened"
        return None

    def next_arrival(self, names: list[str], start: int) -> int | None:
        """The index of the next arrival or resubmission among `names` after `start`, round to the first."""
        for step in range(1, len(names) + 1):
            if self.is_new(names[(start + step) % len(names)]):
                return (start + step) % len(names)
        return None

    # ----------------------------------------------------------------- the background harness

    def run_harness(self, rows: list[cohort.Row], group: str) -> None:
        """Suites for `rows` in a worker of `group`: the cohort's own in "harness", arrivals' beside
        them (a second worker of the same group would cancel the first's runs)."""
        if not self.screen.context.run_harness or not rows:
            return
        if group == "harness":  # the worker started below cancels this group's worker before it
            self.harness_running.difference_update(self.harness_pending.pop(group, {}))
        pending = self.harness_pending.setdefault(group, {})
        for row in rows:
            row.harness = cohort.QUEUED
            pending[row.name] = row
            self.screen.update_row(row)
        self.screen.update_title()
        self.screen.run_worker(
            partial(self.run_suites, rows),
            thread=True,
            exclusive=group == "harness",
            group=group,
            name=f"triage-{group}",
        )

    def run_suites(self, rows: list[cohort.Row]) -> None:
        """In the worker: the suites in their own event loop, half the cores' worth at once; the UI never waits."""
        import asyncio

        screen = self.screen
        worker = get_current_worker()
        try:
            process.run_until_stopped(
                lambda: cohort.fill_harness(
                    rows,
                    on_start=lambda row: screen.post_message(self.HarnessStarted(row)),
                    on_done=lambda row: screen.post_message(self.HarnessDone(row)),
                ),
                lambda: worker.is_cancelled,
            )
        except asyncio.CancelledError:
            # The console is quitting: the runs were stopped and their processes killed.
            pass

    @property
    def harness_queue(self) -> int:
        """Suites queued or running, each once."""
        return sum(len(pending) for pending in self.harness_pending.values())

    def _pending(self, row: cohort.Row) -> dict[str, cohort.Row] | None:
        """The pending rows `row` is among (this very row: a cancelled worker's messages may still come)."""
        return next((pending for pending in self.harness_pending.values() if pending.get(row.name) is row), None)

    def harness_started(self, row: cohort.Row) -> None:
        if self._pending(row) is not None:
            self.harness_running.add(row.name)
        row.harness = "running…"

    def harness_done(self, row: cohort.Row) -> None:
        pending = self._pending(row)
        if pending is not None:
            del pending[row.name]
            self.harness_running.discard(row.name)

    def title_parts(self) -> list[str]:
        parts = []
        if self.arrived:
            parts.append(f"{len(self.arrived)} arrived since opening (+, a)")
        if self.resubmitted:
            parts.append(f"{len(self.resubmitted)} with a new commit (↻, a)")
        if self.harness_queue:
            running = ", ".join(sorted(self.harness_running)) or "starting"
            parts.append(f"harness: {self.harness_queue} to run ({running})")
        return parts
