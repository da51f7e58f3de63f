"""The stub log's jobs, owned by the submission screen: one at a time, each in a worker thread with its
own event loop (the UI never waits), the jobs themselves in `services.runs`. Every event, the
progress and the results are posted to the stub log as its messages; results bubble on to the screen."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from functools import partial

from textual.app import App
from textual.screen import Screen
from textual.worker import get_current_worker

from review import gitsafe
from review.core.text import safe_line
from review.harness import process, runner, sandbox, scenarios, timeline
from review.services import runs
from review.services.runs import Run, Target
from review.tui.widgets.stub_log.log import StubLog

Job = Callable[[Run], Awaitable[None]]


class Runs:
    def __init__(self, screen: Screen, log: StubLog) -> None:
        self.screen = screen
        self.log = log
        self.repo: gitsafe.SafeRepo | None = None
        self.head: Target | None = None
        # The model draft: the default "before".
        self.draft: Target | None = None
        # Read by the job's own stop check too: a cancel is never lost.
        self.cancel_requested = False
        self.started = 0.0

    @property
    def target(self) -> Target | None:
        """What `r` runs: the commit the diff shows."""
        return self.log.target

    @target.setter
    def target(self, target: Target | None) -> None:
        self.log.target = target

    def asked(self, message: StubLog.Asked) -> None:
        """A key in the stub log asked for a job."""
        if message.job == "suite":
            self.suite(None)
        elif message.job == "scenario" and message.scenario:
            self.suite([message.scenario])
        elif message.job == "before-after":
            self.model_draft_and_head()
        elif message.job == "coverage" and message.scenario:
            self.coverage(message.scenario)
        elif message.job == "write":
            self.write_log()
        elif message.job == "cancel":
            self.cancel()

    # ----------------------------------------------------------------- the jobs

    def suite(self, names: list[str] | None) -> None:
        target, repo = self.target, self.repo
        if target is None or repo is None:
            return

        async def job(run: Run) -> None:
            self.log.post_message(StubLog.SuiteDone(await runs.suite(repo, target, names, run)))

        what = f"scenario {names[0]}" if names else "suite"
        self.start(f"{what} on {target.label}", len(names or scenarios.SCENARIOS), job)

    def model_draft_and_head(self) -> None:
        if self.head is None:
            return
        if self.draft is None:
            self.screen.app.notify(
                "No commit's metadata names an assistant, so there is no model draft: in "
                "the Commits pane (3), b compares the highlighted commit with HEAD.",
                markup=False,
                timeout=8,
            )
            return
        self.before_after(self.draft, self.head)

    def before_after(self, before: Target, after: Target) -> bool:
        repo = self.repo
        if repo is None:
            return False

        async def job(run: Run) -> None:
            self.log.post_message(StubLog.CompareDone(await runs.before_after(repo, before, after, run)))

        return self.start(f"before/after: {before.label} → {after.label}", 0, job)

    def coverage(self, name: str) -> None:
        target, repo = self.target, self.repo
        if target is None or repo is None:
            return

        async def job(run: Run) -> None:
            self.log.post_message(StubLog.CoverageDone(target, await runs.coverage(repo, target, name, run)))

        self.start(f"coverage of {name} on {target.label}", 1, job)

    def timeline(self, commits: list[Target]) -> None:
        repo = self.repo
        if repo is None:
            return

        def entry(found: timeline.Entry, index: int, total: int) -> None:
            self.log.post_message(StubLog.TimelineEntry(found, index, total))

        async def job(run: Run) -> None:
            await runs.commit_timeline(repo, commits, run, entry)

        self.start(
            f"timeline of {len(commits)} commits (suite + the candidate's own tests)",
            0,
            job,
            commits_done=f" · 0/{len(commits)} commits done",
        )

    # ----------------------------------------------------------------- running one

    def start(self, job: str, total: int, make: Job, commits_done: str = "") -> bool:
        app = self.screen.app
        if self.repo is None:
            app.notify("Still reading the submission.", markup=False)
            return False
        if self.log.running:
            app.notify(f"A run is going ({self.log.job}): escape cancels it first.", markup=False)
            return False
        self.cancel_requested = False
        self.started = time.monotonic()
        run = Run(job, total, self.streamed, self.progressed, commits_done)
        self.log.begin(job, run.progress)
        # The app is read here, on the UI thread: the job's stop check asks it whether it still runs.
        self.screen.run_worker(
            partial(self.run_job, job, make, run, app),
            thread=True,
            exclusive=True,
            group="stub-log",
            name="stub-log-job",
        )
        return True

    def streamed(self, event: runner.HarnessEvent, side: str) -> None:
        self.log.post_message(StubLog.Streamed(event, side))

    def progressed(self, progress: runs.Progress) -> None:
        self.log.post_message(StubLog.Progressed(progress))

    def run_job(self, job: str, make: Job, run: Run, app: App) -> None:
        """In the worker: the job in an event loop of its own, stopped (its processes killed) when it is
        cancelled (escape, a new run, the screen closed) or the console quits."""
        worker = get_current_worker()
        problem, cancelled = None, False
        try:

            def stopped() -> bool:
                return worker.is_cancelled or self.cancel_requested or not app.is_running

            process.run_until_stopped(lambda: make(run), stopped)
        except asyncio.CancelledError:
            cancelled = True
        except (sandbox.SandboxError, gitsafe.GitSafeError, OSError) as error:
            problem = str(error)
        # A bug must end the run visibly, not leave it "running".
        except Exception as error:
            problem = f"{type(error).__name__}: {error}"
        self.log.post_message(StubLog.JobEnded(job, problem, cancelled, time.monotonic() - self.started))

    def cancel(self) -> None:
        self.cancel_requested = True
        self.screen.workers.cancel_group(self.screen, "stub-log")

    # ----------------------------------------------------------------- writing the log

    def write_log(self) -> None:
        log, repo = self.log, self.repo
        if not log.raw_lines or repo is None:
            self.screen.app.notify("Nothing to write yet: r runs the suite.", markup=False)
            return
        commit = self.target.commit if self.target else repo.head
        self.screen.run_worker(
            partial(self.write_file, self.screen.app, repo.source.name, commit, list(log.raw_lines), log.comparison),
            thread=True,
            exclusive=True,
            group="log-write",
            name="stub-log-write",
        )

    def write_file(
        self, app: App, submission: str, commit: str, lines: list[str], comparison: runs.Comparison | None
    ) -> None:
        try:
            path = runs.write_log(submission, commit, lines, comparison)
        except OSError as error:
            app.call_from_thread(
                app.notify, safe_line(f"log not written: {error}", 300), severity="error", markup=False
            )
            return
        app.call_from_thread(app.notify, safe_line(f"log written to {path}"), markup=False)
