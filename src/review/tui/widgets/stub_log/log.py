"""The stub log pane: harness runs streamed as the gateway sees them, one colour per idempotency key
(so a second key jumps out), the client's own output interleaved and marked as the client's.

Every run of the submission screen goes through here, one at a time, in a thread worker with its
own event loop, so the UI never waits: the suite (`r`), one scenario (`s`), before/after on two
commits (`b`), a coverage run (`c`) and the commit timeline (started from the Commits pane).
Results leave as messages; the screen hands them to the rubric's evidence, the diff and the
commit table.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import ContentSwitcher, Static
from textual.worker import get_current_worker

from review import gitsafe
from review.core.text import safe_line
from review.harness import compare, process, runner, sandbox, scenarios, timeline
from review.support import paths
from review.tui import palette
from review.tui.widgets.stub_log.comparison import Comparison
from review.tui.widgets.stub_log.lines import LogLines
from review.tui.widgets.stub_log.scenario_picker import ScenarioPicker

Emit = Callable[[runner.HarnessEvent], None]


@dataclass(frozen=True)
class Target:
    """The commit a run is for, and how to name it to the reviewer."""

    commit: str
    label: str


class StubLog(Vertical):

    HELP_GROUP = "Stub log"
    BINDINGS = [
        Binding("r", "run", "Run suite", id="log.run"),
        Binding("s", "pick_scenario", "One scenario", id="log.scenario"),
        Binding("b", "before_after", "Before/after", id="log.before-after"),
        Binding("c", "coverage", "Coverage", id="log.coverage"),
        Binding("v", "toggle_view", "Log/compare", id="log.view"),
        Binding("w", "write", "Write log", id="log.write"),
        Binding("escape", "cancel", "Cancel run", id="log.cancel"),
    ]
    DEFAULT_CSS = """
    StubLog { height: 1fr; }
    StubLog #log-status { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    StubLog #log-views { height: 1fr; }
    StubLog LogLines { height: 1fr; }
    """

    @dataclass
    class Streamed(Message):
        """One harness event, from the worker thread; `side` is before/after/coverage/timeline or ""."""

        event: runner.HarnessEvent
        side: str

    @dataclass
    class JobEnded(Message):
        job: str
        problem: str | None
        cancelled: bool

    @dataclass
    class SuiteDone(Message):
        suite: runner.SuiteResult

    @dataclass
    class CompareDone(Message):
        before: Target
        after: Target
        before_suite: runner.SuiteResult
        after_suite: runner.SuiteResult
        changes: list[compare.Change]

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
        self.repo: gitsafe.SafeRepo | None = None
        self.target: Target | None = None  # the commit the diff pane shows: `r` runs it
        self.head: Target | None = None
        self.draft: Target | None = None  # the model draft: the default "before"
        self.raw_lines: list[str] = []
        self.running = False
        self.cancel_requested = False
        self.job = ""
        self.started = 0.0
        self.scenarios_started = 0
        self.scenarios_total = 0
        self.current_scenario = ""
        self.commits_done = ""  # the timeline's progress
        self.last_verdicts: dict[str, str] = {}
        self.comparison: StubLog.CompareDone | None = None
        self.status_text = ""
        self.unlogged = 0  # lines on screen that are not in raw_lines (the key help before the first run)

    def compose(self) -> ComposeResult:
        yield Static(id="log-status")
        with ContentSwitcher(initial="log-lines", id="log-views"):
            yield LogLines(id="log-lines", max_lines=20_000, auto_scroll=True)
            yield Comparison(id="log-compare")

    def on_mount(self) -> None:
        for line in ("r  runs the eight fault scenarios on the commit the diff shows,",
                     "   against the pinned gateway, in the sandbox; escape cancels",
                     "s  runs one scenario · b  the model draft and HEAD side by side",
                     "c  coverage: which lines ran, marked in the diff · w  writes the log",
                     "The timeline (suite + the candidate's own tests per commit): t in Commits (3)"):
            self.lines.write(Text(line, style="dim"))
            self.unlogged += 1
        self.set_interval(0.5, self.update_status)
        self.update_status()

    @property
    def lines(self) -> LogLines:
        return self.query_one("#log-lines", LogLines)

    def focus_log(self) -> None:
        switcher = self.query_one(ContentSwitcher)
        (self.query_one("#compare-table") if switcher.current == "log-compare" else self.lines).focus()

    def show_view(self, name: str) -> None:
        """log-lines or log-compare; focus follows when it was in this pane (a hidden widget loses it)."""
        had_focus = self.has_focus_within
        self.query_one(ContentSwitcher).current = name
        if had_focus:
            self.focus_log()

    # ----------------------------------------------------------------- status

    def update_status(self) -> None:
        if self.running:
            elapsed = time.monotonic() - self.started
            where = f" · {self.current_scenario}" if self.current_scenario else ""
            count = f" ({self.scenarios_started}/{self.scenarios_total})" if self.scenarios_total else \
                (f" ({self.scenarios_started} so far)" if self.scenarios_started else "")
            text = f"▶ {self.job}{self.commits_done}{where}{count} · {elapsed:.1f} s · escape cancels"
        else:
            target = self.target.label if self.target else "…"
            text = self.status_text or f"r runs the suite on {target} · s one scenario · b before/after · c coverage"
        status = self.query_one("#log-status", Static)
        status.update(Content(safe_line(text, 300)))

    # ----------------------------------------------------------------- lines

    def add(self, text: str, kind: str = "info", side: str = "") -> None:
        if not text:
            return
        shown = f"{side:<8}│ {text}" if side else text
        self.raw_lines.append(shown)
        self.lines.add(shown, kind)

    @on(Streamed)
    def streamed(self, message: Streamed) -> None:
        message.stop()
        event = message.event
        if event.kind == "scenario-start":
            self.scenarios_started += 1
            self.current_scenario = f"{message.side + ' ' if message.side else ''}{event.scenario}"
        elif event.kind == "scenario-done":
            self.last_verdicts[event.scenario] = event.data.get("verdict", "")
        self.add(event.text, event.kind, message.side)

    # ----------------------------------------------------------------- jobs

    def start(self, job: str, total: int, make: Callable[[Callable[[str], Emit]], Awaitable[None]],
              clear: bool = True, progress: str = "") -> bool:
        if self.repo is None:
            self.app.notify("Still reading the submission.", markup=False)
            return False
        if self.running:
            self.app.notify(f"A run is going ({self.job}): escape cancels it first.", markup=False)
            return False
        if clear:
            self.lines.clear()
            self.raw_lines, self.unlogged = [], 0
            self.lines.forget_keys()
        self.running, self.job, self.started = True, job, time.monotonic()
        self.cancel_requested = False
        self.owner_app = self.app
        self.scenarios_started, self.scenarios_total, self.current_scenario = 0, total, ""
        self.commits_done = progress
        self.status_text = ""
        self.show_view("log-lines")
        self.add(f"── {job} ──", "info")
        self.update_status()
        self.run_job(job, make)
        return True

    def emitter(self, side: str) -> Emit:
        def emit(event: runner.HarnessEvent) -> None:
            self.post_message(self.Streamed(event, side))

        return emit

    @work(thread=True, exclusive=True, group="stub-log", name="stub-log-job")
    def run_job(self, job: str, make: Callable[[Callable[[str], Emit]], Awaitable[None]]) -> None:
        worker = get_current_worker()
        app = self.owner_app  # read on the UI thread, in start()
        try:
            # Cancelled (escape, a new run, the screen closed), or the console quitting: stop and kill.
            process.run_until_stopped(lambda: make(self.emitter),
                                      lambda: worker.is_cancelled or self.cancel_requested or not app.is_running)
        except asyncio.CancelledError:
            self.post_message(self.JobEnded(job, None, True))
        except (sandbox.SandboxError, gitsafe.GitSafeError, OSError) as error:
            self.post_message(self.JobEnded(job, str(error), False))
        except Exception as error:  # a bug must end the run visibly, not leave it "running"
            self.post_message(self.JobEnded(job, f"{type(error).__name__}: {error}", False))
        else:
            self.post_message(self.JobEnded(job, None, False))

    @on(JobEnded)
    def job_ended(self, message: JobEnded) -> None:
        message.stop()
        self.running = False
        elapsed = time.monotonic() - self.started
        if message.cancelled:
            text, style = (f"{message.job}: cancelled after {elapsed:.1f} s; every process of it was killed",
                           palette.style(self.app, "warn", bold=True))
        elif message.problem:
            text, style = f"{message.job}: not run — {message.problem}", palette.style(self.app, "bad", bold=True)
            self.app.notify(safe_line(f"{message.job}: {message.problem}", 300), severity="error", markup=False)
        else:
            text, style = f"{message.job}: done in {elapsed:.1f} s", Style(bold=True)
        self.raw_lines.append(text)
        self.lines.write(Text(safe_line(text, 400), style=style))
        if not self.status_text:
            self.status_text = text
        self.update_status()

    def action_run(self) -> None:
        self.run_suite(None)

    def run_suite(self, names: list[str] | None) -> None:
        target, repo = self.target, self.repo
        if target is None or repo is None:
            return

        async def job(emitter: Callable[[str], Emit]) -> None:
            emit = emitter("")
            suite = await runner.run_suite(repo, target.commit, names, listener=emit)
            # Which pinned box gave these verdicts: a pair compares theirs only when this matches.
            emit(runner.HarnessEvent("environment", "", 0.0, suite.environment, suite.environment_text))
            self.post_message(self.SuiteDone(suite))

        what = f"scenario {names[0]}" if names else "suite"
        self.start(f"{what} on {target.label}", len(names or scenarios.SCENARIOS), job)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running  # otherwise escape goes back, as everywhere else
        if action == "toggle_view":
            return self.comparison is not None
        return True

    def action_cancel(self) -> None:
        self.cancel_requested = True  # read by the run's own stop check too: a cancel is never lost
        self.workers.cancel_group(self, "stub-log")

    def action_pick_scenario(self) -> None:
        def chosen(name: str | None) -> None:
            if name:
                self.run_suite([name])

        self.app.push_screen(ScenarioPicker("Run one scenario", self.last_verdicts, "first-503"), chosen)

    # ----------------------------------------------------------------- before / after

    def action_before_after(self) -> None:
        if self.head is None:
            return
        if self.draft is None:
            self.app.notify("No commit's metadata names an assistant, so there is no model draft: in the Commits "
                            "pane (3), b compares the highlighted commit with HEAD.", markup=False, timeout=8)
            return
        self.before_after(self.draft, self.head)

    def before_after(self, before: Target, after: Target) -> bool:
        repo = self.repo
        if repo is None:
            return False

        earlier = {target.commit: runner.cached_suite(target.commit) for target in (before, after)}

        async def job(emitter: Callable[[str], Emit]) -> None:
            suites = {}
            for side, target in (("before", before), ("after", after)):
                suite = earlier[target.commit]
                if suite is None:
                    suite = await runner.run_suite(repo, target.commit, listener=emitter(side))
                else:  # the raw lines of the earlier run, so the log holds both sides either way
                    emit = emitter(side)
                    emit(runner.HarnessEvent("info", "", 0.0, {}, f"{target.label}: result of an earlier run"))
                    for line in suite.log_lines():
                        emit(runner.HarnessEvent("cached", "", 0.0, {}, line))
                suites[side] = suite
            changes = compare.compare(suites["before"].scenarios, suites["after"].scenarios)
            self.post_message(self.CompareDone(before, after, suites["before"], suites["after"], changes))

        total = sum(suite is None for suite in earlier.values()) * len(scenarios.SCENARIOS)
        return self.start(f"before/after: {before.label} → {after.label}", total, job)

    @on(CompareDone)
    def compare_done(self, message: CompareDone) -> None:
        self.comparison = message
        self.query_one(Comparison).show((message.before.label, message.after.label),
                                        (message.before_suite, message.after_suite), message.changes)
        self.status_text = f"before/after {message.before.label} → {message.after.label}: " \
                           f"{compare.headline(message.changes)} · v switches log/comparison"
        self.show_view("log-compare")
        self.refresh_bindings()

    def action_toggle_view(self) -> None:
        self.show_view("log-lines" if self.query_one(ContentSwitcher).current == "log-compare" else "log-compare")

    # ----------------------------------------------------------------- coverage and timeline

    def action_coverage(self) -> None:
        preferred = next((name for name, verdict in self.last_verdicts.items() if verdict != "ok"), "first-503")

        def chosen(name: str | None) -> None:
            if name:
                self.run_coverage(name)

        self.app.push_screen(ScenarioPicker("Coverage: which lines run in which scenario", self.last_verdicts,
                                            preferred), chosen)

    def run_coverage(self, name: str) -> None:
        target, repo = self.target, self.repo
        if target is None or repo is None:
            return

        async def job(emitter: Callable[[str], Emit]) -> None:
            result = await runner.run_scenario(repo, target.commit, scenarios.BY_NAME[name], emitter("coverage"),
                                               coverage=True)
            self.post_message(self.CoverageDone(target, result))

        self.start(f"coverage of {name} on {target.label}", 1, job)

    def run_timeline(self, commits: list[Target]) -> None:
        repo = self.repo
        if repo is None:
            return

        async def job(emitter: Callable[[str], Emit]) -> None:
            index = 0

            def on_entry(entry: timeline.Entry) -> None:
                nonlocal index
                index += 1
                self.post_message(self.TimelineEntry(entry, index, len(commits)))

            await timeline.run_timeline(repo, [c.commit for c in commits], on_entry, emitter("timeline"))

        self.start(f"timeline of {len(commits)} commits (suite + the candidate's own tests)", 0, job,
                   progress=f" · 0/{len(commits)} commits done")

    @on(TimelineEntry)
    def timeline_entry(self, message: TimelineEntry) -> None:
        entry = message.entry
        self.commits_done = f" · {message.index}/{message.total} commits done"
        tests = entry.tests
        parts = [f"timeline {message.index}/{message.total}: {entry.commit[:7]}"]
        if entry.same_code_as:
            parts.append(f"same code as {entry.same_code_as[:7]}")
        if entry.suite:
            parts.append(f"suite {entry.suite.summary}")
        if tests:
            state = "RED" if tests.state == "red" else tests.state  # the one word that must jump out
            parts.append(f"own tests {state}" + (f" ({tests.summary})" if tests.summary else "") +
                         (f" — {tests.reason}" if tests.state not in ("green", "red") else ""))
        if entry.problem:
            parts.append(entry.problem)
        self.add(safe_line(" · ".join(parts), 400), "timeline")
        if tests and tests.state in ("red", "hung"):
            for line in tests.output[-12:]:
                self.add(f"    {line}", "stdout")

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
        self.lines.auto_scroll = False
        self.call_after_refresh(self.lines.scroll_to, y=index + self.unlogged, animate=False)
        self.call_after_refresh(setattr, self.lines, "auto_scroll", True)
        return True

    # ----------------------------------------------------------------- writing

    def action_write(self) -> None:
        if not self.raw_lines or self.repo is None:
            self.app.notify("Nothing to write yet: r runs the suite.", markup=False)
            return
        folder = paths.logs_dir()
        folder.mkdir(parents=True, exist_ok=True)
        commit = self.target.commit[:12] if self.target else self.repo.head[:12]
        path = folder / f"{self.repo.source.name}-{commit}-{time.strftime('%Y%m%d-%H%M%S')}.log"
        lines = list(self.raw_lines)
        if self.comparison is not None:
            data = self.comparison
            lines += ["", f"before/after: {data.before.label} → {data.after.label}"]
            lines += [f"  {c.scenario:14} {c.before or '—':16} {c.after or '—':16} {c.text}" for c in data.changes]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.app.notify(safe_line(f"log written to {path}"), markup=False)
