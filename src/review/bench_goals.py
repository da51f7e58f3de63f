"""``review bench goals``: every benchmark with a goal in issue #19, run one after another, and one
table of what was measured, against what, the ratio and whether the goal is met (``--json`` too)."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Goal:
    name: str
    measured: str
    against: str  # the baseline measured in the same run, or the fixed target
    ratio: float
    goal: float  # the ratio must stay at or under this

    @property
    def met(self) -> bool:
        return self.ratio <= self.goal


STEPS = ("bench.triage_benchmark(300, None, goals)",
         "bench_repo.repo_benchmark(5000, 100_000, None, False, goals)",
         "bench_diff.diff_benchmark(130_000, None, goals)")
MARK = "REVIEW-BENCH-GOALS "


def run(as_json: bool) -> int:
    """Each benchmark in a process of its own: one's leftovers (a heap of 300 analyses) would cost
    the next one garbage-collection pauses that are not its own."""
    import subprocess
    import sys

    goals: list[Goal] = []
    for step in STEPS:
        code = ("import json, sys\nfrom review import bench, bench_diff, bench_repo\ngoals = []\n"
                f"{step}\nprint({MARK!r} + json.dumps([g.__dict__ for g in goals]))\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith(MARK):
                goals += [Goal(**entry) for entry in json.loads(line[len(MARK):])]
            elif not as_json:
                print(line)
    if as_json:
        print(json.dumps([{**goal.__dict__, "met": goal.met} for goal in goals], indent=2))
        return 0
    print("\nissue #19's goals, measured now (ratio to the baseline of the same run, or to the target):")
    for goal in goals:
        print(f"  {'met   ' if goal.met else 'MISSED'} {goal.name:<62} {goal.measured:>10}  vs {goal.against:<34} "
              f"ratio {goal.ratio:5.2f} (goal ≤ {goal.goal:g})")
    return 0
