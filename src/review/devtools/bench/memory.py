"""``review bench memory``: a day's work in one console, and its resident memory at every step.

A generated cohort of N ordinary submissions and one huge one (a 130,000-line diff in 2,000 files,
the shape of ``review bench diff``). Its rows are read once first (a cold triage in a process of its
own), so the console measured starts on the row cache, as a reviewer's console does the second time.
Then, in one console driven by Pilot in a process of its own: the reviewer opens the submissions one
after another — Enter, Escape, Down, a moment's rest on the row (the read-ahead) — then goes to the
huge one, opens it, and opens it again and again. The console's RSS is printed after each step, with
the goals: each distinct submission adds ≤ 1 MB on average, the huge one reopened adds ≤ 20 MB in
all, and the console's peak RSS stays ≤ 300 MB.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HUGE = "zz-huge"
# The console's own lines on stdout start with this; the rest is the console's business.
MARK = "REVIEW-BENCH-MEMORY "
REST = 0.4  # seconds on a row after Down: the read-ahead starts after 0.3 s, as a reviewer reads it


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


def _report(step: str, **extra: object) -> None:
    print(MARK + json.dumps({"step": step, "rss_kib": _status_kib("VmRSS"), **extra}), flush=True)


async def drive_console(cohort: Path, distinct: int, reopen: int) -> None:
    """The console on `cohort`, driven as a reviewer does; one JSON line per step on stdout."""
    from review.support import gc
    from review.tui.app import ReviewApp
    from review.tui.screens.cohort import CohortScreen
    from review.tui.screens.submission.screen import SubmissionScreen

    # Instrumentation, not behaviour: how long each collection the console makes as a screen is left.
    pauses: list[float] = []
    collect = gc.collect

    def timed_collect() -> None:
        start = time.perf_counter()
        collect()
        pauses.append(time.perf_counter() - start)

    gc.collect = timed_collect
    app = ReviewApp(cohort, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:

        async def until(predicate, timeout: float = 120.0) -> None:
            deadline = time.monotonic() + timeout
            while not predicate():
                if time.monotonic() > deadline:
                    raise RuntimeError("the console did not get there in two minutes")
                await asyncio.sleep(0.01)

        def triage() -> CohortScreen | None:
            return app.screen if isinstance(app.screen, CohortScreen) else None

        def opened() -> bool:
            screen = app.screen
            return isinstance(screen, SubmissionScreen) and screen.analysis is not None and screen.panes_ready

        async def open_and_leave() -> float:
            start = time.perf_counter()
            await pilot.press("enter")
            await until(opened)
            spent = time.perf_counter() - start
            await pilot.pause()
            await pilot.press("escape")
            await until(lambda: triage() is not None)
            # The collection that follows a screen left runs once triage is painted again.
            await pilot.pause()
            return spent

        await until(
            lambda: (
                (screen := triage()) is not None
                and bool(screen.rows)
                and all(row.complete for row in screen.rows.values())
                # The cohort's similarity index too: built once after the load, it belongs to the triage,
                # not to the first submissions opened while it is being built.
                and screen.similar.comparison is not None
                and not any(worker.is_running for worker in app.workers if worker.group in ("triage", "similarity"))
            )
        )
        await asyncio.sleep(1.0)
        _report("triaged", rows=len(triage().rows))  # type: ignore[union-attr]
        for index in range(distinct):
            name = triage().current_name()  # type: ignore[union-attr]
            spent = await open_and_leave()
            await pilot.press("down")
            await asyncio.sleep(REST)
            _report(f"distinct {index + 1}", name=name, open_s=round(spent, 3))
        screen = triage()
        assert screen is not None
        screen.table.move_cursor(row=screen.table.get_row_index(HUGE))
        row = screen.rows[HUGE]
        # Resting on its row until it is read ahead, as the reviewer reads the row.
        await until(lambda: app.session.last_opened(Path(row.path), row.head) is not None, timeout=300)
        _report("huge read ahead")
        for index in range(reopen + 1):
            spent = await open_and_leave()
            _report("huge opened" if index == 0 else f"huge reopened {index}", open_s=round(spent, 3))
        held, lines = app.session.held()
        _report(
            "end",
            peak_kib=_status_kib("VmHWM"),
            held=held,
            held_lines=lines,
            pauses_ms=[round(pause * 1000, 1) for pause in pauses],
        )


def _make_cohort(scratch: Path, count: int, lines: int) -> Path:
    from review.devtools.bench.diff import make_huge_submission
    from review.devtools.bench.triage import make_cohort

    cohort = make_cohort(scratch, count)
    make_huge_submission(cohort / HUGE, lines)
    return cohort


def memory_benchmark(
    count: int, distinct: int, reopen: int, lines: int, into: Path | None, goals: list | None = None
) -> int:
    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-memory-"))
    env = {**os.environ, "REVIEW_CACHE_DIR": str(scratch / "cache")}
    start = time.perf_counter()
    cohort = _make_cohort(scratch, count, lines)
    print(
        f"cohort: {count} submissions and {HUGE} ({lines} added lines in {lines // 65 + 1} files) in {cohort} "
        f"(made in {time.perf_counter() - start:.1f} s)"
    )
    # The rows read once, cold, in a process of their own: the console measured starts on the row cache.
    child = [sys.executable, "-m", "review.devtools.bench"]
    start = time.perf_counter()
    subprocess.run([*child, "console", str(cohort)], env=env, check=True, capture_output=True)
    print(f"rows read cold in a process of their own: {time.perf_counter() - start:.1f} s")
    done = subprocess.run(
        [*child, "memory-console", str(cohort), str(distinct), str(reopen)], env=env, capture_output=True, text=True
    )
    steps = [json.loads(line[len(MARK) :]) for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not steps or steps[-1]["step"] != "end":
        print(done.stderr[-4000:], file=sys.stderr)
        print("the console did not get through the day's work (above: what it said)")
        return 1
    by_step = {step["step"]: step for step in steps}
    for step in steps:
        extra = ", ".join(
            f"{key} {value}" for key, value in step.items() if key not in ("step", "rss_kib", "pauses_ms")
        )
        print(f"  {step['step']:<20} RSS {step['rss_kib'] / 1024:7.1f} MB   {extra}")
    mib = 1024
    triaged = by_step["triaged"]["rss_kib"] / mib
    after = by_step[f"distinct {distinct}"]["rss_kib"] / mib
    per_submission = (after - triaged) / distinct
    first_huge = by_step["huge opened"]["rss_kib"] / mib
    last_huge = by_step[f"huge reopened {reopen}"]["rss_kib"] / mib
    end = by_step["end"]
    peak = end["peak_kib"] / mib
    pauses = end["pauses_ms"]
    print(
        f"{distinct} distinct submissions: {triaged:.0f} → {after:.0f} MB, {per_submission:+.2f} MB each (goal ≤ 1 MB)"
    )
    print(
        f"{HUGE} opened once: {first_huge:.0f} MB; reopened {reopen} times: {last_huge:.0f} MB, "
        f"{last_huge - first_huge:+.1f} MB in all (goal ≤ 20 MB)"
    )
    print(
        f"peak RSS of the console: {peak:.0f} MB (goal ≤ 300 MB); the session holds {end['held']} analyses, "
        f"{end['held_lines']} diff lines"
    )
    if pauses:
        print(
            f"garbage collection as each screen is left: median {statistics.median(pauses):.0f} ms, "
            f"longest {max(pauses):.0f} ms ({len(pauses)} screens left)"
        )
    if goals is not None:
        from review.devtools.bench.common import Goal

        goals += [
            Goal(
                f"memory: {distinct} distinct submissions opened, RSS added each",
                f"{per_submission:.2f} MB",
                "1 MB",
                per_submission / 1.0,
                1.0,
            ),
            Goal(
                f"memory: the {lines}-line submission reopened {reopen} times, RSS added",
                f"{last_huge - first_huge:.1f} MB",
                "20 MB",
                (last_huge - first_huge) / 20,
                1.0,
            ),
            Goal("memory: the console's peak RSS over that day", f"{peak:.0f} MB", "300 MB", peak / 300, 1.0),
        ]
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0
