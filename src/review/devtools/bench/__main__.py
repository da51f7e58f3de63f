"""The parts of the benchmarks measured in a process of their own, so that one measurement's heap,
caches and imports are not the next one's:

    python -m review.devtools.bench console COHORT     the console on COHORT: painted, complete (s)
    python -m review.devtools.bench triage-json COHORT [--no-moves] [--blame]
                                        `review triage COHORT --json`: s, peak RSS KiB, exit code
                                        (--no-moves: the history replay without move detection;
                                        --blame: line origins from blame per file, the fallback)
    python -m review.devtools.bench clone SUBMISSION    the sanitised clone alone: s
    python -m review.devtools.bench memory-console COHORT DISTINCT REOPEN
                                        the console on COHORT driven through a day's work: RSS per step
    python -m review.devtools.bench goals STEP [--quick]
                                        one benchmark of `review bench goals`, its goals as JSON
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import resource
import runpy
import sys
import time
from pathlib import Path

from review.support import gc


def _peak_rss_kib() -> int:
    # /proc's VmHWM is this process's own: getrusage's ru_maxrss keeps the high-water mark of the
    # process that forked it (Linux carries it across exec), so it read the benchmark's own size.
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _triage_json(cohort: str, *options: str) -> None:
    # What `review triage` imports, loaded before the clock starts, as the command line had been.
    import review.harness.scenarios
    import review.services.cohort
    import review.services.samples  # noqa: F401

    if "--no-moves" in options:
        from review.core import line_origins

        line_origins.DETECT_MOVES = False
    if "--blame" in options:  # the replay gives way at once: blame per file, the fallback, is timed
        from review.core import line_origins

        line_origins.MAX_TRACKED_LINES = 0

    sys.argv = ["review", "triage", cohort, "--json"]
    start = time.perf_counter()
    code = 0
    with contextlib.redirect_stdout(io.StringIO()):
        # The program itself, as `python -m review` runs it, in this process: this module stays the
        # process's main one (alter_sys off), so the program returns here instead of ending it.
        try:
            runpy.run_module("review", run_name="__main__")
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
    print(time.perf_counter() - start, _peak_rss_kib(), code)


def main(argv: list[str]) -> int:
    what, arg, *options = argv
    gc.tune()
    if what == "console":
        from review.devtools.bench.triage import time_console

        print(*asyncio.run(time_console(Path(arg))))
    elif what == "triage-json":
        _triage_json(arg, *options)
    elif what == "clone":
        from review import gitsafe

        start = time.perf_counter()
        gitsafe.open_submission(Path(arg))
        print(time.perf_counter() - start)
    elif what == "memory-console":
        from review.devtools.bench.memory import drive_console

        asyncio.run(drive_console(Path(arg), int(options[0]), int(options[1])))
    elif what == "goals":
        from review.devtools.bench import goals

        measured = goals.measure(arg, quick="--quick" in options)
        print(goals.MARK + json.dumps([goal.__dict__ for goal in measured]))
    else:
        print(f"unknown part {what!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
