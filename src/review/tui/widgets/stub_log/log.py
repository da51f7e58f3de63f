"""The stub log pane: harness runs streamed as the gateway sees them, one colour per idempotency key
(so a second key jumps out), the client's own output interleaved and marked as the client's.

The pane shows; it runs nothing. Its keys ask for a job (`Asked`: the suite `r`, one scenario `s`,
before/after `b`, coverage `c`, writing the log `w`, escape to cancel); the submission screen runs
it in a worker (`tui.screens.submission.runs`) and streams its events, progress and results back as
this pane's messages. The results bubble on to the screen, which hands them to the rubric's
evidence, the diff and the commit table."""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import ContentSwitcher, Static

from review.core.text import safe_line
from review.harness import compare, runner, timeline
from review.services.runs import Comparison, Progress, Target
from review.tui import palette
from review.tui.widgets.stub_log.comparison import ComparisonView
from review.tui.widgets.stub_log.lines import LogLines
from review.tui.widgets.stub_log.scenario_picker import ScenarioPicker

KEY_HELP = (
    "r  runs the eight fault scenarios on the commit the diff shows,",
    "   against the pinned gateway, in the sandbox; escape cancels",
    "s  runs one scenario · b  the model draft and HEAD side by side",
    "c  coverage: which lines ran, marked in the diff · w  writes the log",
    "The timeline (suite + the candidate's own tests per commit): t in Commits (3)",
)


class StubLog(Vertical):
    HELP_GROUP = "Stub log"
    # Listed by `?` even while they do nothing, with when they act.
    HELP_LISTED = {"ask('cancel')": "while a run is on", "toggle_view": "once a before/after run has finished"}
    BINDINGS = [
        Binding("r", "ask('suite')", "Run suite", id="log.run"),
        Binding("s", "pick_scenario", "One scenario", id="log.scenario"),
        Binding("b", "ask('before-after')", "Before/after", id="log.before-after"),
        Binding("c", "coverage", "Coverage", id="log.coverage"),
        Binding("v", "toggle_view", "Log/compare", id="log.view"),
        Binding("w", "ask('write')", "Write log", id="log.write"),
        Binding("escape", "ask('cancel')", "Cancel run", id="log.cancel"),
    ]
    DEFAULT_CSS = """
    StubLog { height: 1fr; }
    StubLog #log-status { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    StubLog #log-views { height: 1fr; }
    StubLog LogLines { height: 1fr; }
    StubLog #log-detail { height: auto; max-height: 3; padding: 0 1; background: $panel; display: none; }
    StubLog #log-detail.-shown { display: block; }
    """

    # A job is under way (escape cancels it rather than leaving the screen).
    running: reactive[bool] = reactive(False, init=False)
    # Where the job under way has come, as the runs last said.
    progress: reactive[Progress | None] = reactive(None, init=False)
    # What `r` runs: the commit the diff shows.
    target: reactive[Target | None] = reactive(None, init=False)
    # The last job's outcome, shown once it ends.
    outcome: reactive[str] = reactive("", init=False)

    @dataclass
    class Asked(Message):
        """A job the reviewer asked for: suite, scenario, before-after, coverage, write or cancel."""

        job: str
        scenario: str | None = None

    @dataclass
    class Streamed(Message):
        """One harness event, from the job's thread; `side` is before/after/coverage/timeline or ""."""

        event: runner.HarnessEvent
        side: str

    @dataclass
    class Progressed(Message):
        progress: Progress

        def can_replace(self, message: Message) -> bool:
            # Only the latest progress is shown: one waiting can go.
            return isinstance(message, StubLog.Progressed)

    @dataclass
    class JobEnded(Message):
        job: str
        problem: str | None
        cancelled: bool
        elapsed: float

    @dataclass
    class SuiteDone(Message):
        suite: runner.SuiteResult

    @dataclass
    class CompareDone(Message):
        comparison: Comparison

    @dataclass
    class CoverageDone(Message):
        target: Target
        result: runner.ScenarioResult

    @dataclass
    class TimelineEntry(Message):
        entry: timeline.Entry
        index: int
        total: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.raw_lines: list[str] = []
        self.job = ""
        self.last_verdicts: dict[str, str] = {}
        self.comparison: Comparison | None = None
        # Lines on screen that are not in raw_lines (the key help before the first run).
        self.unlogged = 0
        self.clock: Timer | None = None
        self.status = Static(id="log-status")
        self.views = ContentSwitcher(initial="log-lines", id="log-views")
        self.lines = LogLines(id="log-lines", max_lines=20_000, auto_scroll=True)
        self.compared = ComparisonView(id="log-compare")
        # The selected line's key in full (the log folds a long one).
        self.detail = Static(id="log-detail")

    def compose(self) -> ComposeResult:
        yield self.status
        with self.views:
            yield self.lines
            yield self.compared
        yield self.detail

    def on_mount(self) -> None:
        for line in KEY_HELP:
            self.lines.write(Text(line, style="dim"))
            self.unlogged += 1
        self.show_status()

    def focus_log(self) -> None:
        (self.compared.table if self.views.current == "log-compare" else self.lines).focus()

    def show_view(self, name: str) -> None:
        """log-lines or log-compare; focus follows when it was in this pane (a hidden widget loses it)."""
        had_focus = self.has_focus_within
        self.views.current = name
        if had_focus:
            self.focus_log()
        self.detail.set_class(False, "-shown")

    @on(LogLines.Selected)
    def line_selected(self, message: LogLines.Selected) -> None:
        """Under the log: the selected line's key in full, and how to follow the log again."""
        message.stop()
        entry = message.entry
        if entry is None:
            self.detail.set_class(False, "-shown")
            return
        said = (
            f"[k{entry.number}] {entry.key}: the key in full" if entry.key and entry.number else "no key on this line"
        )
        self.detail.update(Content(safe_line(f"{said} · ↑↓ select a line · end follows the log", 300)))
        self.detail.set_class(True, "-shown")

    def top_index(self) -> int | None:
        """The raw line the reviewer is at: the selected one, else the one at the top of the log."""
        lines = self.lines
        index = lines.selected if lines.selected is not None else lines.top_entry()
        if index is None or not self.raw_lines:
            return None
        return max(0, min(len(self.raw_lines) - 1, index - self.unlogged))

    # ----------------------------------------------------------------- status

    def watch_running(self, running: bool) -> None:
        # While a job runs its status line counts the seconds.
        if running and self.clock is None:
            self.clock = self.set_interval(0.5, self.show_status)
        elif not running and self.clock is not None:
            self.clock.stop()
            self.clock = None
        self.show_status()

    def watch_progress(self) -> None:
        self.show_status()

    def watch_target(self) -> None:
        self.show_status()

    def watch_outcome(self) -> None:
        self.show_status()

    def show_status(self) -> None:
        if self.running and self.progress is not None:
            text = self.progress.text(time.monotonic())
        else:
            target = self.target.label if self.target else "…"
            text = self.outcome or f"r runs the suite on {target} · s one scenario · b before/after · c coverage"
        self.status.update(Content(safe_line(text, 300)))

    # ----------------------------------------------------------------- lines

    def add(self, text: str, kind: str = "info", side: str = "") -> None:
        if not text:
            return
        shown = f"{side:<8}│ {text}" if side else text
        self.raw_lines.append(shown)
        self.lines.add(shown, kind)

    def begin(self, job: str, progress: Progress) -> None:
        """A job starts: the log is cleared for it."""
        self.lines.clear()
        self.raw_lines, self.unlogged = [], 0
        self.lines.forget_keys()
        self.job = job
        self.outcome = ""
        self.progress = progress
        self.running = True
        self.show_view("log-lines")
        self.add(f"── {job} ──", "info")

    @on(Streamed)
    def streamed(self, message: Streamed) -> None:
        message.stop()
        event = message.event
        # The pickers' "last" verdicts are those of the commit a run uses: not the draft's side of a
        # before/after, nor the timeline's older commits.
        if event.kind == "scenario-done" and message.side not in ("before", "timeline"):
            self.last_verdicts[event.scenario] = event.data.get("verdict", "")
        self.add(event.text, event.kind, message.side)

    @on(Progressed)
    def progressed(self, message: Progressed) -> None:
        message.stop()
        self.progress = message.progress

    @on(JobEnded)
    def job_ended(self, message: JobEnded) -> None:
        message.stop()
        self.running = False
        if message.cancelled:
            text = f"{message.job}: cancelled after {message.elapsed:.1f} s; every process of it was killed"
            style = palette.style(self.app, "warn", bold=True)
        elif message.problem:
            text = f"{message.job}: not run — {message.problem}"
            style = palette.style(self.app, "bad", bold=True)
            self.app.notify(safe_line(f"{message.job}: {message.problem}", 300), severity="error", markup=False)
        else:
            text, style = f"{message.job}: done in {message.elapsed:.1f} s", Style(bold=True)
        self.raw_lines.append(text)
        self.lines.write(Text(safe_line(text, 400), style=style))
        if not self.outcome:
            self.outcome = text

    @on(CompareDone)
    def compare_done(self, message: CompareDone) -> None:
        data = self.comparison = message.comparison
        # HEAD's side may come from the cache, with no scenario streamed.
        self.last_verdicts.update(data.after_suite.verdicts_said())
        self.compared.show((data.before.label, data.after.label), (data.before_suite, data.after_suite), data.changes)
        self.outcome = (
            f"before/after {data.before.label} → {data.after.label}: "
            f"{compare.headline(data.changes)} · v switches log/comparison"
        )
        self.show_view("log-compare")
        self.refresh_bindings()

    @on(TimelineEntry)
    def timeline_entry(self, message: TimelineEntry) -> None:
        lines = timeline.describe(message.entry, message.index, message.total)
        self.add(f"timeline {lines[0]}", "timeline")
        for line in lines[1:]:
            self.add(line, "stdout")

    def show_earlier(self, suite: runner.SuiteResult) -> None:
        """An earlier run's raw lines, as they were logged (the cache keeps them): the pane opens with
        what is already known, and `r` runs it again."""
        self.add(f"── result of an earlier run on {suite.commit[:7]} (r runs it again) ──")
        for line in suite.log_lines():
            self.add(line, "cached")
        self.add(f"suite done: {suite.summary}", "cached")
        self.add(suite.environment_text)

    def scroll_to_scenario(self, name: str, earlier: runner.SuiteResult | None = None) -> bool:
        """Bring the first line of scenario `name` to the top (an evidence hint links here). With no
        run in the log yet, `earlier` (a cached suite) is written into it first."""
        if self.running:
            return False
        marker = f"] {name}: "
        index = next((i for i, line in enumerate(self.raw_lines) if marker in line), None)
        if index is None and earlier is not None:
            self.show_earlier(earlier)
            index = next((i for i, line in enumerate(self.raw_lines) if marker in line), None)
        if index is None:
            return False
        self.show_view("log-lines")
        # Selected, so the log stays there (it follows its end only with nothing selected).
        self.lines.selected = index + self.unlogged
        self.call_after_refresh(self.lines.scroll_to_entry, index + self.unlogged)
        return True

    # ----------------------------------------------------------------- keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "ask" and parameters == ("cancel",):
            # Otherwise escape goes back, as everywhere else.
            return self.running
        if action == "toggle_view":
            return self.comparison is not None
        return True

    def action_ask(self, job: str) -> None:
        self.post_message(self.Asked(job))

    def action_pick_scenario(self) -> None:
        def chosen(name: str | None) -> None:
            if name:
                self.post_message(self.Asked("scenario", name))

        # The first fault, not the happy path: what a scenario is run alone for.
        self.app.push_screen(ScenarioPicker("Run one scenario", self.last_verdicts, "first-503"), chosen)

    def action_coverage(self) -> None:
        preferred = next((name for name, verdict in self.last_verdicts.items() if verdict != "ok"), "first-503")

        def chosen(name: str | None) -> None:
            if name:
                self.post_message(self.Asked("coverage", name))

        self.app.push_screen(
            ScenarioPicker("Coverage: which lines run in which scenario", self.last_verdicts, preferred), chosen
        )

    def action_toggle_view(self) -> None:
        self.show_view("log-lines" if self.views.current == "log-compare" else "log-compare")
