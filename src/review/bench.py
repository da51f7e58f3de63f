"""Benchmarks that print figures and ratios (never timed tests: these machines are noisy).

``review bench triage --submissions 300``: a generated cohort, the console run headless,
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

from review import demo


def make_cohort(folder: Path, count: int) -> Path:
    seeds = demo.build_demo(folder / ".seeds")
    names = sorted(p.name for p in seeds.iterdir() if p.is_dir())
    cohort = folder / "cohort"
    cohort.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        name = names[index % len(names)]
        target = cohort / f"{index:03d}-{name}"
        if not target.exists():
            shutil.copytree(seeds / name, target, symlinks=True)
    return cohort


async def _time_console(cohort: Path) -> tuple[float, float, int]:
    from review.tui.app import ReviewApp
    from review.tui.cohort_screen import CohortScreen

    start = time.perf_counter()
    app = ReviewApp(cohort)
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
            if rows and all(row.complete for row in rows) and not any(
                    w.is_running for w in app.workers if w.group == "triage"):
                complete = time.perf_counter() - start
        total = len(screen.rows)
    return painted or complete, complete, total


def _shell_loop(cohort: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["bash", "-c", 'for d in "$1"/*/; do git -C "$d" log -1 >/dev/null; done', "_", str(cohort)],
                   check=True)
    return time.perf_counter() - start


def triage_benchmark(count: int, into: Path | None) -> int:
    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-"))
    os.environ["REVIEW_CACHE_DIR"] = str(scratch / "cache")
    shutil.rmtree(scratch / "cache", ignore_errors=True)
    t0 = time.perf_counter()
    cohort = make_cohort(scratch, count)
    print(f"cohort: {count} submissions in {cohort} (generated in {time.perf_counter() - t0:.1f} s)")
    shell = _shell_loop(cohort)
    cold_paint, cold_done, total = asyncio.run(_time_console(cohort))
    warm_paint, warm_done, _ = asyncio.run(_time_console(cohort))
    print(f"plain shell loop `git -C SUB log -1`:  {shell:7.2f} s")
    print(f"console, cold cache: table painted    {cold_paint:7.2f} s   every row complete {cold_done:7.2f} s"
          f"   ratio to shell loop {cold_done / shell:5.2f}")
    print(f"console, warm cache: table painted    {warm_paint:7.2f} s   every row complete {warm_done:7.2f} s"
          f"   ratio to shell loop {warm_done / shell:5.2f}")
    print(f"rows: {total}; cold work per submission {1000 * cold_done / max(total, 1):.1f} ms "
          f"(a sanitised no-local clone each, on {os.cpu_count()} cores)")
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _startup_ms(info, samples: int = 5) -> float:
    """node's start-up in the sandbox, driver included: the fixed cost every process pays."""
    from review.harness import sandbox

    times = []
    for _ in range(samples):
        with tempfile.TemporaryDirectory(dir=_runs_dir()) as scratch:
            work, gw = Path(scratch) / "work", Path(scratch) / "gw"
            work.mkdir()
            gw.mkdir()
            (work / "checkout.mjs").write_text("export async function chargeWithRetry() { return 1; }\n")
            entry, sock = sandbox.paths_for(info, work, gw)
            env = sandbox.clean_env(info, work, {"REVIEW_GATEWAY_SOCKET": sock, "REVIEW_TOKEN": "x",
                                                 "REVIEW_ENTRY": entry, "REVIEW_CALLS": "[1]"})
            start = time.perf_counter()
            subprocess.run(sandbox.node_command(info, work, gw, 10), env=env, cwd=work, capture_output=True)
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return times[len(times) // 2]


def _runs_dir() -> Path:
    from review import gitsafe

    folder = gitsafe.cache_root() / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _floor_ms(result, scenario, startup_ms: float) -> float:
    """What no harness could beat: start-up per process, the client's own waits, and the limit a hung client costs."""
    waits = sum(result.gaps_ms)
    hung = any(o["kind"] == "hung" for o in result.outcomes)
    return startup_ms * scenario.processes + waits + (scenario.limit_s * 1000 if hung else 0)


def harness_benchmark(into: Path | None) -> int:
    from review import gitsafe
    from review.harness import runner, sandbox, scenarios

    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-"))
    os.environ["REVIEW_CACHE_DIR"] = str(scratch / "cache")
    cohort = demo.build_demo(scratch / "cohort")
    info = sandbox.detect()
    startup = _startup_ms(info)
    print(f"sandbox {info.kind}, node {info.node_version_text}; start-up in the sandbox (median of 5): {startup:.0f} ms")
    repos = [gitsafe.open_submission(p) for p in sorted(cohort.iterdir()) if p.is_dir()]

    print("\none submission at a time (each suite runs its 8 scenarios in order):")
    print(f"  {'submission':14} {'wall s':>7} {'floor s':>8} {'ratio':>6}")
    sequential_total = 0.0
    ratios = []
    for repo in repos:
        start = time.perf_counter()
        suite = asyncio.run(runner.run_suite(repo, info=info))
        wall = time.perf_counter() - start
        floor = sum(_floor_ms(r, scenarios.BY_NAME[r.name], startup) for r in suite.scenarios) / 1000
        sequential_total += wall
        ratios.append(wall / floor)
        print(f"  {repo.source.name:14} {wall:7.2f} {floor:8.2f} {wall / floor:6.2f}")
    print(f"  median ratio {sorted(ratios)[len(ratios) // 2]:.2f} (target ≤ 1.3)")

    print("\nthe whole cohort with N suites at once:")
    for concurrency in (2, 4, 8):
        start = time.perf_counter()
        asyncio.run(_run_many(repos, concurrency, info))
        wall = time.perf_counter() - start
        print(f"  N={concurrency}: {wall:6.2f} s   speed-up over one at a time {sequential_total / wall:4.2f}"
              f" (ideal {min(concurrency, len(repos))})")
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


async def _run_many(repos, concurrency: int, info) -> None:
    from review.harness import runner

    gate = asyncio.Semaphore(concurrency)

    async def one(repo):
        async with gate:
            await runner.run_suite(repo, info=info)

    await asyncio.gather(*(one(repo) for repo in repos))
