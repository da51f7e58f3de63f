"""``review bench goals``: every benchmark that has a goal, run one after another, and one table of
what was measured, against what, the ratio and whether the goal is met (``--json`` too)."""

from __future__ import annotations

import json
import subprocess
import sys

from review.devtools.bench.common import Goal

# The benchmarks with goals, by the name ``python -m review.devtools.bench goals NAME`` runs, in the
# order they run: the quick ones first, the 1,000-submission cold triage last.
STEPS = ("startup", "repo", "diff", "memory", "triage", "cold")
MARK = "REVIEW-BENCH-GOALS "


def run(as_json: bool, quick: bool = False, only: list[str] | None = None, as_markdown: bool = False) -> int:
    """Each benchmark in a process of its own: one's leftovers (a heap of 300 analyses) would cost
    the next one garbage-collection pauses that are not its own. Exits 1 when a goal is missed or a
    benchmark failed. `as_markdown`: only the table, as docs/benchmarks.md holds it."""
    unknown = sorted(set(only or ()) - set(STEPS))
    if unknown:
        print(f"review bench goals: no benchmark {', '.join(unknown)} (there are: {', '.join(STEPS)})", file=sys.stderr)
        return 2
    steps = [step for step in STEPS if (only is None or step in only) and not (quick and step == "cold" and not only)]
    goals: list[Goal] = []
    failed: list[str] = []
    quiet = as_json or as_markdown
    for step in steps:
        if not quiet:
            print(f"\n== {step} ==", flush=True)
        child = [sys.executable, "-m", "review.devtools.bench", "goals", step, *(["--quick"] if quick else [])]
        done = subprocess.run(child, capture_output=True, text=True)
        for line in done.stdout.splitlines():
            if line.startswith(MARK):
                goals += [Goal(**entry) for entry in json.loads(line[len(MARK) :])]
            elif not quiet:
                print(line)
        if done.returncode != 0:
            failed.append(step)
            said = [line for line in done.stdout.splitlines() if not line.startswith(MARK)][-5:]
            print(
                f"review bench goals: the {step} benchmark FAILED (exit {done.returncode}); what it said last:\n"
                + "\n".join(said + done.stderr.splitlines()[-15:]),
                file=sys.stderr,
            )
    skipped = [step for step in STEPS if step not in steps]
    if as_json:
        print(
            json.dumps(
                {
                    "quick": quick,
                    "goals": [{**goal.__dict__, "met": goal.met} for goal in goals],
                    "failed": failed,
                    "not_run": skipped,
                },
                indent=2,
            )
        )
    elif as_markdown:
        print(markdown_table(goals, failed, skipped, quick))
    else:
        print(
            f"\nthe goals, measured now{' (--quick: smaller sizes than the goals are set for)' if quick else ''}"
            " (ratio to the baseline of the same run, or to the target):"
        )
        for goal in goals:
            print(
                f"  {'met   ' if goal.met else 'MISSED'} {goal.name:<66} {goal.measured:>9}  vs "
                f"{goal.against:<40} ratio {_ratio(goal)} (goal ≤ {goal.goal:g})"
            )
        for step in failed:
            print(f"  FAILED {step}: its goals were not measured (its error is above, on stderr)")
        for step in skipped:
            print(
                f"  not run: {step}"
                + (
                    " (--quick leaves out the 1,000-submission cold triage)"
                    if quick and step == "cold" and not only
                    else ""
                )
            )
        missed = sum(not goal.met for goal in goals)
        print(
            f"{len(goals) - missed} of {len(goals)} goals met"
            + (f", {missed} MISSED" if missed else "")
            + (f", {len(failed)} benchmark(s) FAILED" if failed else "")
        )
    return 1 if failed or any(not goal.met for goal in goals) else 0


def markdown_table(goals: list[Goal], failed: list[str], skipped: list[str], quick: bool) -> str:
    """The goals as one Markdown table, under a line saying where and when they were measured."""
    import datetime
    import os
    import platform

    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    machine = f"{os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"
    lines = [
        f"Measured {when} on {machine}{' (--quick: smaller sizes than the goals are set for)' if quick else ''}.",
        "",
        "| figure | measured | against | ratio | goal | |",
        "|---|---|---|---|---|---|",
    ]
    for goal in goals:
        cells = (goal.name, goal.measured, goal.against, _ratio(goal).strip(), f"≤ {goal.goal:g}")
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + f" | {_verdict(goal)} |")
    lines += [f"| {step} | FAILED | | | | |" for step in failed]
    lines += [f"| {step} | not run | | | | |" for step in skipped]
    return "\n".join(lines)


def _verdict(goal: Goal) -> str:
    return "met" if goal.met else "**MISSED**"


def _ratio(goal: Goal) -> str:
    # A miss never reads as the goal itself (4.0007 against 4 is "4.001", not "4.00").
    shown = f"{goal.ratio:5.2f}"
    return f"{goal.ratio:5.3f}" if not goal.met and float(shown) <= goal.goal else shown


def measure(step: str, quick: bool = False) -> list[Goal]:
    """One step's benchmark, run here at the goals' sizes (smaller with `quick`), with the goals it
    reports."""
    from review.devtools.bench import diff, memory, repo, startup, triage

    goals: list[Goal] = []
    if step == "startup":
        code = startup.startup_benchmark(None, goals=goals)
    elif step == "repo":
        code = repo.repo_benchmark(1000 if quick else 5000, 20_000 if quick else 100_000, None, False, goals)
    elif step == "diff":
        code = diff.diff_benchmark(30_000 if quick else 130_000, None, goals)
    elif step == "memory":
        sizes = (100, 15, 5, 50_000) if quick else (300, 60, 15, 130_000)
        code = memory.memory_benchmark(*sizes, None, goals)
    elif step == "triage":
        code = triage.triage_benchmark(100 if quick else 300, None, goals)
    elif step == "cold":
        code = triage.cold_cohort_benchmark(200 if quick else 1000, None, goals)
    else:
        raise ValueError(f"no benchmark step {step!r}")
    if code != 0:
        # What it said is above; the goals it did measure are kept, and `review bench goals` reports
        # the step as failed.
        print(MARK + json.dumps([goal.__dict__ for goal in goals]))
        raise SystemExit(code)
    return goals
