"""``review bench goals``: every benchmark that has a goal, run one after another, and one table of
what was measured, against what, the ratio and whether the goal is met (``--json`` too)."""

from __future__ import annotations

import json
import subprocess
import sys

from review.devtools.bench.common import Goal

# The benchmarks with goals, by the name ``python -m review.devtools.bench goals NAME`` runs.
STEPS = ("triage", "repo", "diff")
MARK = "REVIEW-BENCH-GOALS "


def run(as_json: bool) -> int:
    """Each benchmark in a process of its own: one's leftovers (a heap of 300 analyses) would cost
    the next one garbage-collection pauses that are not its own."""
    goals: list[Goal] = []
    for step in STEPS:
        child = [sys.executable, "-m", "review.devtools.bench", "goals", step]
        out = subprocess.run(child, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith(MARK):
                goals += [Goal(**entry) for entry in json.loads(line[len(MARK):])]
            elif not as_json:
                print(line)
    if as_json:
        print(json.dumps([{**goal.__dict__, "met": goal.met} for goal in goals], indent=2))
        return 0
    print("\nthe goals, measured now (ratio to the baseline of the same run, or to the target):")
    for goal in goals:
        print(f"  {'met   ' if goal.met else 'MISSED'} {goal.name:<62} {goal.measured:>10}  vs {goal.against:<34} "
              f"ratio {goal.ratio:5.2f} (goal ≤ {goal.goal:g})")
    return 0


def measure(step: str) -> list[Goal]:
    """One step's benchmark, run here, with the goals it reports."""
    from review.devtools.bench import diff, repo, triage

    goals: list[Goal] = []
    if step == "triage":
        triage.triage_benchmark(300, None, goals)
    elif step == "repo":
        repo.repo_benchmark(5000, 100_000, None, False, goals)
    elif step == "diff":
        diff.diff_benchmark(130_000, None, goals)
    else:
        raise ValueError(f"no benchmark step {step!r}")
    return goals
