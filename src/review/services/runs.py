"""The harness jobs a reviewer starts on one submission, with their cache lookups: the suite (or one
scenario), before/after on two commits, a coverage run, the commit timeline; and writing what the log
showed to a file.

No Textual: each job is an async function that hands every harness event, with the side it belongs
to, to a `Run`, which also keeps the job's progress; the submission screen runs the jobs in a worker
thread with their own event loop and posts what the `Run` hands over as messages."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from review import gitsafe
from review.harness import compare, runner, scenarios, timeline
from review.support import paths


@dataclass(frozen=True)
class Target:
    """The commit a run is for, and how to name it to the reviewer."""

    commit: str
    label: str


@dataclass(frozen=True)
class Progress:
    """How far a job has come: the stub log's status line while it runs."""

    job: str
    started: float
    scenarios_started: int = 0
    scenarios_total: int = 0
    current: str = ""
    # The timeline's progress, e.g. " · 2/5 commits done".
    commits_done: str = ""

    def text(self, now: float) -> str:
        where = f" · {self.current}" if self.current else ""
        if self.scenarios_total:
            count = f" ({self.scenarios_started}/{self.scenarios_total})"
        else:
            count = f" ({self.scenarios_started} so far)" if self.scenarios_started else ""
        elapsed = f"{now - self.started:.1f} s"
        return f"▶ {self.job}{self.commits_done}{where}{count} · {elapsed} · escape cancels"


@dataclass(frozen=True)
class Comparison:
    """Before/after: both suites and what changed between them, scenario by scenario."""

    before: Target
    after: Target
    before_suite: runner.SuiteResult
    after_suite: runner.SuiteResult
    changes: list[compare.Change]

    def log_lines(self) -> list[str]:
        lines = ["", f"before/after: {self.before.label} → {self.after.label}"]
        return lines + [f"  {c.scenario:14} {c.before or '—':16} {c.after or '—':16} {c.text}" for c in self.changes]


class Run:
    """One job under way: every event goes to `on_event` with its side (before, after, coverage,
    timeline or ""), and the progress, as it changes, to `on_progress`. Called from the job's thread."""

    def __init__(
        self,
        job: str,
        scenarios_total: int,
        on_event: Callable[[runner.HarnessEvent, str], None],
        on_progress: Callable[[Progress], None],
        commits_done: str = "",
    ) -> None:
        self.progress = Progress(job, time.monotonic(), scenarios_total=scenarios_total, commits_done=commits_done)
        self.on_event = on_event
        self.on_progress = on_progress

    def listener(self, side: str = "") -> runner.Listener:
        def listen(event: runner.HarnessEvent) -> None:
            if event.kind == "scenario-start":
                current = f"{side + ' ' if side else ''}{event.scenario}"
                self.advance(scenarios_started=self.progress.scenarios_started + 1, current=current)
            self.on_event(event, side)

        return listen

    def advance(self, **changes: object) -> None:
        self.progress = replace(self.progress, **changes)  # type: ignore[arg-type]
        self.on_progress(self.progress)

    def said(self, text: str, side: str = "", kind: str = "info") -> None:
        """A line of the job's own (not the harness's): an earlier run's result, shown as it was logged."""
        self.on_event(runner.HarnessEvent(kind, "", 0.0, {}, text), side)


async def suite(repo: gitsafe.SafeRepo, target: Target, names: list[str] | None, run: Run) -> runner.SuiteResult:
    """The suite (or the scenarios `names`) on the target commit; the last line says which pinned
    environment gave the verdicts (a pair compares theirs only when it matches)."""
    result = await runner.run_suite(repo, target.commit, names, listener=run.listener())
    run.on_event(runner.HarnessEvent("environment", "", 0.0, result.environment, result.environment_text), "")
    return result


async def before_after(repo: gitsafe.SafeRepo, before: Target, after: Target, run: Run) -> Comparison:
    """Both commits' suites, an earlier run's result where the cache has one (its raw lines shown, so
    the log holds both sides either way), and what changed."""
    earlier = {target.commit: runner.cached_suite(target.commit) for target in (before, after)}
    run.advance(scenarios_total=sum(found is None for found in earlier.values()) * len(scenarios.SCENARIOS))
    suites = {}
    for side, target in (("before", before), ("after", after)):
        found = earlier[target.commit]
        if found is None:
            found = await runner.run_suite(repo, target.commit, listener=run.listener(side))
        else:
            run.said(f"{target.label}: result of an earlier run", side)
            for line in found.log_lines():
                run.said(line, side, "cached")
        suites[side] = found
    changes = compare.compare(suites["before"].scenarios, suites["after"].scenarios)
    return Comparison(before, after, suites["before"], suites["after"], changes)


async def coverage(repo: gitsafe.SafeRepo, target: Target, name: str, run: Run) -> runner.ScenarioResult:
    """One scenario with V8's coverage on: which lines ran (bubblewrap only)."""
    return await runner.run_scenario(
        repo, target.commit, scenarios.BY_NAME[name], run.listener("coverage"), coverage=True
    )


async def commit_timeline(
    repo: gitsafe.SafeRepo, targets: list[Target], run: Run, on_entry: Callable[[timeline.Entry, int, int], None]
) -> None:
    """Every commit, oldest first: the suite and the candidate's own tests; each entry handed to
    `on_entry(entry, its number, how many)` as it is known."""
    done = 0

    def entry_known(entry: timeline.Entry) -> None:
        nonlocal done
        done += 1
        run.advance(commits_done=f" · {done}/{len(targets)} commits done")
        on_entry(entry, done, len(targets))

    await timeline.run_timeline(repo, [t.commit for t in targets], entry_known, run.listener("timeline"))


def write_log(submission: str, commit: str, lines: list[str], comparison: Comparison | None) -> Path:
    """The log's lines (and the before/after table, when there is one) in a file of their own in the
    logs folder; returns where."""
    folder = paths.logs_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{submission}-{commit[:12]}-{time.strftime('%Y%m%d-%H%M%S')}.log"
    written = list(lines) + (comparison.log_lines() if comparison is not None else [])
    path.write_text("\n".join(written) + "\n", encoding="utf-8")
    return path
