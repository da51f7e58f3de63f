"""``review bench triage --submissions 300``: a generated cohort, the console run headless,
the time until the triage table is painted and until every row is complete, beside a plain
shell loop of ``git -C SUB log -1`` over the same folders.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from review.services import samples


def make_cohort(folder: Path, count: int) -> Path:
    seeds = samples.build_demo(folder / ".seeds")
    names = sorted(p.name for p in seeds.iterdir() if p.is_dir())
    cohort = folder / "cohort"
    cohort.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        name = names[index % len(names)]
        target = cohort / f"{index:03d}-{name}"
        if not target.exists():
            shutil.copytree(seeds / name, target, symlinks=True)
    return cohort


async def time_console(cohort: Path) -> tuple[float, float, int]:
    from review.tui.app import ReviewApp
    from review.tui.screens.cohort import CohortScreen

    start = time.perf_counter()
    app = ReviewApp(cohort, run_harness=False)  # triage alone: suites would compete for the cores
    painted = complete = None
    async with app.run_test(size=(120, 40)):
        while complete is None:
            # Not pilot.pause(): it forces a full repaint each call, which would be measuring itself.
            await asyncio.sleep(0.005)
            screen = app.screen
            if not isinstance(screen, CohortScreen):
                continue
            if painted is None and screen.table.row_count:
                painted = time.perf_counter() - start
            rows = screen.rows.values()
            if (
                rows
                and all(row.complete for row in rows)
                and not any(w.is_running for w in app.workers if w.group == "triage")
            ):
                complete = time.perf_counter() - start
        total = len(screen.rows)  # type: ignore[attr-defined]
    return painted or complete, complete, total


def _shell_loop(cohort: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        ["bash", "-c", 'for d in "$1"/*/; do git -C "$d" log -1 >/dev/null; done', "_", str(cohort)], check=True
    )
    return time.perf_counter() - start


def triage_benchmark(count: int, into: Path | None, goals: list | None = None) -> int:
    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-"))
    os.environ["REVIEW_CACHE_DIR"] = str(scratch / "cache")
    shutil.rmtree(scratch / "cache", ignore_errors=True)
    t0 = time.perf_counter()
    cohort = make_cohort(scratch, count)
    print(f"cohort: {count} submissions in {cohort} (generated in {time.perf_counter() - t0:.1f} s)")
    shell = _shell_loop(cohort)
    cold_paint, cold_done, total = asyncio.run(time_console(cohort))
    # Warm as a reviewer meets it: the console started again, in a new process (the cold run's 300
    # clones and readers are not still being torn down around it); the median of three.
    import statistics
    import sys

    child = [sys.executable, "-m", "review.devtools.bench", "console", str(cohort)]
    runs = [
        tuple(map(float, subprocess.run(child, capture_output=True, text=True, check=True).stdout.split()[:2]))
        for _ in range(3)
    ]
    warm_paint, warm_done = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    print(f"plain shell loop `git -C SUB log -1`:  {shell:7.2f} s")
    print(
        f"console, cold cache: table painted    {cold_paint:7.2f} s   every row complete {cold_done:7.2f} s"
        f"   ratio to shell loop {cold_done / shell:5.2f}"
    )
    print(
        f"console, warm cache: table painted    {warm_paint:7.2f} s   every row complete {warm_done:7.2f} s"
        f"   ratio to shell loop {warm_done / shell:5.2f}"
    )
    print(
        f"rows: {total}; cold work per submission {1000 * cold_done / max(total, 1):.1f} ms "
        f"(a sanitised no-local clone each, on {os.cpu_count()} cores)"
    )
    if goals is not None:
        from review.devtools.bench.common import Goal

        goals.append(
            Goal(
                f"warm triage of {count} submissions (console)",
                f"{warm_done:.2f} s",
                f"git log -1 loop {shell:.2f} s",
                warm_done / shell,
                1.0,
            )
        )
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


_COPY = (
    'git clone --quiet --bare --no-local --no-hardlinks --no-tags --template= -- "$1/.git" "$0/$(basename "$1").git"'
)
# The least a submission's cold reading can cost in git under the copy rule, as `bench repo` takes
# its floor: the copy with its notes, the one `git log -p` the line origins come from, the notes
# listed and read.
_FLOOR = (
    _COPY.replace("git clone", 'git -c "remote.origin.fetch=+refs/notes/*:refs/notes/*" clone')
    + ' && copy="$0/$(basename "$1").git"'
    ' && git --git-dir "$copy" log -p --format=%H HEAD >/dev/null'
    ' && { git --git-dir "$copy" notes --ref=ai list 2>/dev/null'
    ' | git --git-dir "$copy" cat-file --batch="%(objectname) %(objecttype) %(objectsize) %(rest)" >/dev/null; }'
)


def _copies_loop(cohort: Path, into: Path, script: str = _COPY) -> float:
    """The safe copy of every submission and nothing else: `git clone --bare --no-local` of each, as
    many at once as there are cores (seconds); with `_FLOOR`, each copy's floor reading after it."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    folders = "".join(f"{path}\0" for path in sorted(cohort.iterdir()) if path.is_dir())
    start = time.perf_counter()
    subprocess.run(
        ["xargs", "-0", "-P", str(os.cpu_count() or 1), "-n", "1", "sh", "-c", script, str(into)],
        input=folders.encode(),
        check=True,
    )
    spent = time.perf_counter() - start
    shutil.rmtree(into, ignore_errors=True)
    return spent


def cold_cohort_benchmark(count: int, into: Path | None, goals: list | None = None) -> int:
    """`review triage COHORT --json` on `count` submissions with an empty cache, a whole process timed
    from outside, beside the safe copies alone made on the same cores (the goal is 1.3× those) and
    beside the safe floor of each submission (copy, `git log -p`, notes) made the same way; each the
    best of three."""
    import sys

    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-cold-"))
    start = time.perf_counter()
    cohort = make_cohort(scratch, count)
    print(f"cohort: {count} submissions in {cohort} (generated in {time.perf_counter() - start:.1f} s)")
    env = {**os.environ, "REVIEW_CACHE_DIR": str(scratch / "cache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Each side the best of three, taken in turns: on a shared machine one slow run makes neither side
    # of the ratio (as `bench repo` does).
    copies = floor = cold = float("inf")
    for _ in range(3):
        copies = min(copies, _copies_loop(cohort, scratch / "copies"))
        floor = min(floor, _copies_loop(cohort, scratch / "copies", _FLOOR))
        shutil.rmtree(scratch / "cache", ignore_errors=True)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "review", "triage", str(cohort), "--json"],
            stdout=subprocess.DEVNULL,
            check=True,
            env=env,
        )
        cold = min(cold, time.perf_counter() - start)
    print(f"  the safe copies alone, {os.cpu_count()} at once {copies:7.2f} s   ({copies * 1000 / count:.1f} ms each)")
    print(f"  the safe floor (copy, log -p, notes) {floor:7.2f} s   ratio to the copies alone {floor / copies:5.2f}")
    print(
        f"  review triage --json, cold cache  {cold:7.2f} s   ratio {cold / copies:5.2f} (goal ≤ 1.3) "
        f"{'met' if cold / copies <= 1.3 else 'MISSED'}; to the safe floor {cold / floor:5.2f}"
    )
    if goals is not None:
        from review.devtools.bench.common import Goal

        goals.append(
            Goal(
                f"cold triage of {count} submissions, review triage --json",
                f"{cold:.1f} s",
                f"safe copies loop {copies:.1f} s (safe floor loop {floor:.1f} s)",
                cold / copies,
                1.3,
            )
        )
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0
