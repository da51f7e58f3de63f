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
            if rows and all(row.complete for row in rows) and not any(
                    w.is_running for w in app.workers if w.group == "triage"):
                complete = time.perf_counter() - start
        total = len(screen.rows)  # type: ignore[attr-defined]
    return painted or complete, complete, total


def _shell_loop(cohort: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["bash", "-c", 'for d in "$1"/*/; do git -C "$d" log -1 >/dev/null; done', "_", str(cohort)],
                   check=True)
    return time.perf_counter() - start


def triage_benchmark(count: int, into: Path | None, goals: list | None = None) -> int:
    scratch = Path(into) if into else Path(tempfile.mkdtemp(prefix="review-bench-"))
    os.environ["REVIEW_CACHE_DIR"] = str(scratch / "cache")
    shutil.rmtree(scratch / "cache", ignore_errors=True)
    t0 = time.perf_counter()
    cohort = make_cohort(scratch, count)
    print(f"cohort: {count} submissions in {cohort} (generated in {time.perf_counter() - t0:.1f} s)")
    shell = _shell_loop(cohort)
    cold_paint, cold_done, total = asyncio.run(_time_console(cohort))
    # Warm as a reviewer meets it: the console started again, in a new process (the cold run's 300
    # clones and readers are not still being torn down around it); the median of three.
    import statistics
    import sys

    code = ("import asyncio, sys\nfrom pathlib import Path\nfrom review import bench\n"
            "print(*asyncio.run(bench._time_console(Path(sys.argv[1]))))\n")
    runs = [tuple(map(float, subprocess.run([sys.executable, "-c", code, str(cohort)], capture_output=True, text=True,
                                            check=True).stdout.split()[:2])) for _ in range(3)]
    warm_paint, warm_done = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    print(f"plain shell loop `git -C SUB log -1`:  {shell:7.2f} s")
    print(f"console, cold cache: table painted    {cold_paint:7.2f} s   every row complete {cold_done:7.2f} s"
          f"   ratio to shell loop {cold_done / shell:5.2f}")
    print(f"console, warm cache: table painted    {warm_paint:7.2f} s   every row complete {warm_done:7.2f} s"
          f"   ratio to shell loop {warm_done / shell:5.2f}")
    print(f"rows: {total}; cold work per submission {1000 * cold_done / max(total, 1):.1f} ms "
          f"(a sanitised no-local clone each, on {os.cpu_count()} cores)")
    if goals is not None:
        from review.bench_goals import Goal

        goals.append(Goal(f"warm triage of {count} submissions (console)", f"{warm_done:.2f} s",
                          f"git log -1 loop {shell:.2f} s", warm_done / shell, 1.0))
    if not into:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _startup_ms(info, samples: int = 5) -> float:
    """node's start-up in the sandbox, driver included: the fixed cost every process pays."""
    from review.harness import runner, sandbox

    times = []
    for _ in range(samples):
        with tempfile.TemporaryDirectory(dir=runner.runs_root()) as scratch:
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


def _floor_ms(result, scenario, startup_ms: float) -> float:
    """What no harness could beat: start-up per process, the client's own waits, and the limit a hung client costs."""
    waits = sum(result.gaps_ms)
    hung = any(o["kind"] == "hung" for o in result.outcomes)
    return startup_ms * scenario.processes + waits + (scenario.limit_s * 1000 if hung else 0)


def harness_benchmark(into: Path | None) -> int:
    from review import gitsafe
    from review.harness import runner, sandbox, scenarios
    from review.services import cohort as cohort_module

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

    print("\nthe whole cohort with N suites at once (each suite's ratio to its floor, while the others run):")
    for concurrency in (2, 4, 8):
        start = time.perf_counter()
        walls = asyncio.run(_run_many(repos, concurrency, info))
        wall = time.perf_counter() - start
        each = sorted(suite_wall / (sum(_floor_ms(r, scenarios.BY_NAME[r.name], startup) for r in suite.scenarios) / 1000)
                      for suite, suite_wall in walls)
        default = "  ← the console's" if concurrency == cohort_module.harness_concurrency() else ""
        print(f"  N={concurrency}: {wall:6.2f} s   speed-up over one at a time {sequential_total / wall:4.2f}"
              f" (ideal {min(concurrency, len(repos))})   per suite: median {each[len(each) // 2]:.2f}, "
              f"worst {each[-1]:.2f} (target ≤ 1.3){default}")
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


# ----------------------------------------------------------------------------- start-up in a real terminal

_FLOOR_APP = """
from textual.app import App
from textual.widgets import Static
class Floor(App):
    def compose(self):
        yield Static("floor-ready")
Floor().run()
"""


def _tmux_first_paint(server: str, command: str, ready: str, env: dict[str, str], timeout: float = 20.0) -> float:
    """Seconds from starting `command` in a fresh tmux window until `ready` is on its screen."""
    base = ["tmux", "-L", server, "-f", "/dev/null"]
    subprocess.run([*base, "kill-server"], capture_output=True)
    args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    start = time.perf_counter()
    subprocess.run([*base, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", *args, command], check=True)
    try:
        while time.perf_counter() - start < timeout:
            shown = subprocess.run([*base, "capture-pane", "-p", "-t", "bench"], capture_output=True, text=True).stdout
            if ready in shown:
                return time.perf_counter() - start
            time.sleep(0.005)
        raise RuntimeError(f"{ready!r} did not appear within {timeout:g} s")
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)


def startup_benchmark(into: Path | None, samples: int = 5) -> int:
    """The console started for real in tmux (as over SSH) on the sample cohort: time to the first
    painted triage table, beside a bare Textual app started the same way (the floor)."""
    import statistics
    import sys

    if shutil.which("tmux") is None:
        print("review bench startup needs tmux (apt-get install tmux)")
        return 2
    folder = into or Path(tempfile.mkdtemp(prefix="review-bench-startup-"))
    cohort = demo.build_demo(folder / "cohort")
    env = {key: os.environ[key] for key in ("PATH", "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "REVIEW_CACHE_DIR")
           if key in os.environ}
    server = f"review-bench-{os.getpid()}"
    floor_file = folder / "floor.py"
    floor_file.write_text(_FLOOR_APP)
    console = f"{sys.executable} -m review {cohort} --no-harness"
    first = [_tmux_first_paint(server, console, "ada-okafor", env) for _ in range(samples)]
    floors = [_tmux_first_paint(server, f"{sys.executable} {floor_file}", "floor-ready", env) for _ in range(samples)]
    console_s, floor_s = statistics.median(first), statistics.median(floors)
    print(f"sample cohort ({len(list(cohort.iterdir()))} entries) in tmux 120×40, median of {samples}:")
    print(f"  review: triage table painted        {console_s * 1000:7.0f} ms   (runs: "
          + ", ".join(f"{s * 1000:.0f}" for s in first) + ")")
    print(f"  bare Textual app painted (floor)    {floor_s * 1000:7.0f} ms")
    print(f"  ratio to the floor                  {console_s / floor_s:7.2f}   (target: well under 1 s in all)")
    return 0


# ----------------------------------------------------------------------------- the score store under load

def _store_writer(job: tuple[str, str, int]) -> tuple[str, int, list[str], float]:
    """One console saving `saves` times in a row, each save based on its last (what autosave does)."""
    from review.services import store

    folder, who, saves = job
    submission = Path(folder) / "shared"
    revision, saved, refused, longest = None, 0, [], 0.0
    for number in range(saves):
        review = store.Review([who], "a" * 40, tiers={"evidence": ("weak", "acceptable", "strong")[number % 3]},
                              comment=f"{who} save {number + 1}")
        started = time.perf_counter()
        try:
            revision = store.save(submission, review, base_revision=revision).revision
            saved += 1
        except store.StoreError as error:
            refused.append(str(error))
        longest = max(longest, time.perf_counter() - started)
    return who, saved, refused, longest


def store_benchmark(writers: int, saves: int, into: Path | None) -> int:
    """`writers` processes (each one console) save into one score file at once: saves per second,
    saves refused (goal 0) and saves lost — on disk less than was acknowledged (goal 0)."""
    import multiprocessing

    from review.services import seal, store

    folder = into or Path(tempfile.mkdtemp(prefix="review-bench-store-"))
    (folder / "shared").mkdir(parents=True, exist_ok=True)
    os.environ[seal.KEY_ENV] = str(folder / "seal.key")  # the benchmark's own key, never the reviewer's
    seal.key(create=True)
    jobs = [(str(folder), f"reviewer-{index:02d}", saves) for index in range(writers)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(writers) as pool:
        results = pool.map(_store_writer, jobs)
    elapsed = time.perf_counter() - started
    on_disk = {r.who: r for r in store.read_scores(folder / "shared").reviews}
    acknowledged = sum(saved for _who, saved, _refused, _longest in results)
    lost = sum(saved - (on_disk[who].revision if who in on_disk else 0) for who, saved, _r, _l in results)
    refused = [reason for _who, _saved, reasons, _longest in results for reason in reasons]
    print(f"{writers} writer processes × {saves} saves into one score file ({folder / 'shared.review.toml'}):")
    print(f"  acknowledged saves   {acknowledged:6d} in {elapsed:.2f} s = {acknowledged / elapsed:.0f} saves/s "
          "(process start-up included)")
    print(f"  longest single save  {max(r[3] for r in results) * 1000:6.0f} ms (waiting for the lock included)")
    print(f"  refused saves        {len(refused):6d}   (goal 0)" + (f": {refused[0]}" if refused else ""))
    print(f"  lost saves           {lost:6d}   (goal 0: on disk, each writer's entry is at the revision it was told)")
    return 0 if not refused and not lost else 1
