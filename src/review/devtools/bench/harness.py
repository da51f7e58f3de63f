"""``review bench harness``: each sample submission's suite against its floor (node's start-up in
the sandbox per process, the client's own waits, the limit a hung client costs), one at a time and
N at once."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from review.services import samples


def _startup_ms(info, runs: int = 5) -> float:
    """node's start-up in the sandbox, driver included: the fixed cost every process pays."""
    from review.harness import run_dirs, sandbox

    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(dir=run_dirs.runs_root()) as scratch:
            work, gw = Path(scratch) / "work", Path(scratch) / "gw"
            work.mkdir()
            gw.mkdir()
            (work / "checkout.mjs").write_text("export async function chargeWithRetry() { return 1; }\n")
            entry, sock = sandbox.paths_for(info, work, gw)
            env = sandbox.clean_env(
                info,
                work,
                {"REVIEW_GATEWAY_SOCKET": sock, "REVIEW_TOKEN": "x", "REVIEW_ENTRY": entry, "REVIEW_CALLS": "[1]"},
            )
            start = time.perf_counter()
            subprocess.run(sandbox.node_command(info, work, gw, 10), env=env, cwd=work, capture_output=True)
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return times[len(times) // 2]


def _floor_ms(result, scenario, startup_ms: float) -> float:
    """What no harness could beat: start-up per process, the client's own waits, and the limit a hung
    client costs."""
    waits = sum(result.gaps_ms)
    hung = any(o["kind"] == "hung" for o in result.outcomes)
    return startup_ms * scenario.processes + waits + (scenario.limit_s * 1000 if hung else 0)


def harness_benchmark(into: Path | None) -> int:
    from review import gitsafe
    from review.harness import runner, sandbox, scenarios
    from review.services.cohort import harness_concurrency

    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-"))
    os.environ["REVIEW_CACHE_DIR"] = str(scratch / "cache")
    cohort = samples.build_demo(scratch / "cohort")
    info = sandbox.detect()
    startup = _startup_ms(info)
    print(
        f"sandbox {info.kind}, node {info.node_version_text}; start-up in the sandbox (median of 5): {startup:.0f} ms"
    )
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

    print("\nthe whole cohort with N suites at once (each suite's ratio to its floor, while the others run):")
    # The console's own cap among them, whatever the machine.
    for concurrency in sorted({harness_concurrency(), 2, 4, 8}):
        start = time.perf_counter()
        walls = asyncio.run(_run_many(repos, concurrency, info))
        wall = time.perf_counter() - start
        each = sorted(
            suite_wall / (sum(_floor_ms(r, scenarios.BY_NAME[r.name], startup) for r in suite.scenarios) / 1000)
            for suite, suite_wall in walls
        )
        default = "  ← the console's" if concurrency == harness_concurrency() else ""
        print(
            f"  N={concurrency}: {wall:6.2f} s   speed-up over one at a time {sequential_total / wall:4.2f}"
            f" (ideal {min(concurrency, len(repos))})   per suite: median {each[len(each) // 2]:.2f}, "
            f"worst {each[-1]:.2f} (target ≤ 1.3){default}"
        )
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


async def _run_many(repos, concurrency: int, info) -> list:
    """Every suite, `concurrency` at a time: (suite, its own wall time) each."""
    from review.harness import runner

    gate = asyncio.Semaphore(concurrency)

    async def one(repo):
        async with gate:
            start = time.perf_counter()
            suite = await runner.run_suite(repo, info=info)
            return suite, time.perf_counter() - start

    return list(await asyncio.gather(*(one(repo) for repo in repos)))
