"""``review bench startup``: ``review --version`` and ``review --help`` as a shell runs them, beside
the interpreter doing nothing (``python3 -I -c pass``); and the console started for real in tmux (as
over SSH), beside a bare Textual app started the same way."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from review.devtools.bench.common import tmux_first_paint
from review.services import samples


def review_command() -> list[str]:
    """`review` as pipx or pip installs it: the console script beside this interpreter (python -m
    review where there is none, which the figures then say)."""
    script = Path(sys.executable).with_name("review")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "review"]


def _process_s(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=_command_env())
    return time.perf_counter() - start


def _command_env() -> dict[str, str]:
    # As an installed command runs: its bytecode cached (a test run may have turned that off).
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def command_startup(runs: int = 15, goals: list | None = None) -> None:
    """`review --version` and `review --help`, whole processes timed from outside, in turns with
    `python3 -I -c pass` (the same interpreter), median of `runs` each; the goal is 4× that."""
    review = review_command()
    # Once each first: the bytecode written, the files in the page cache.
    for args in (review + ["--version"], review + ["--help"], [sys.executable, "-I", "-c", "pass"]):
        _process_s(args)
    times: dict[str, list[float]] = {"--version": [], "--help": [], "pass": []}
    for _ in range(runs):
        times["--version"].append(_process_s(review + ["--version"]))
        times["--help"].append(_process_s(review + ["--help"]))
        times["pass"].append(_process_s([sys.executable, "-I", "-c", "pass"]))
    floor = statistics.median(times["pass"])
    shown = " ".join(review[-2:]) if len(review) > 1 else "review"
    print(f"commands as a shell runs them (whole processes, median of {runs}, in turns):")
    print(f"  python3 -I -c pass (the floor)      {floor * 1000:7.1f} ms")
    for option in ("--version", "--help"):
        spent = statistics.median(times[option])
        print(f"  {shown + ' ' + option:<36}{spent * 1000:7.1f} ms   ratio {spent / floor:5.2f} (goal ≤ 4)")
        if goals is not None:
            from review.devtools.bench.common import Goal

            goals.append(
                Goal(
                    f"start-up: review {option}",
                    f"{spent * 1000:.0f} ms",
                    f"python3 -I -c pass {floor * 1000:.0f} ms",
                    spent / floor,
                    4.0,
                )
            )


def startup_benchmark(into: Path | None, runs: int = 5, goals: list | None = None) -> int:
    """`review --version` and `--help` beside the bare interpreter; then the console started for real
    in tmux (as over SSH) on the sample cohort: time to the first painted triage table, beside a bare
    Textual app started the same way (the floor)."""
    command_startup(goals=goals)
    if shutil.which("tmux") is None:
        print("the console in a terminal is NOT measured: it needs tmux (apt-get install tmux)")
        return 0 if goals is not None else 2
    folder = into or Path(tempfile.mkdtemp(prefix="review-bench-startup-"))
    cohort = samples.build_demo(folder / "cohort")
    entries = len(list(cohort.iterdir()))
    env = {
        key: os.environ[key]
        for key in ("PATH", "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "REVIEW_CACHE_DIR")
        if key in os.environ
    }
    floor_file = Path(__file__).with_name("floor_app.py")
    console = f"{sys.executable} -m review {cohort} --no-harness"
    try:
        first = [tmux_first_paint(console, "ada-okafor", env) for _ in range(runs)]
        floors = [tmux_first_paint(f"{sys.executable} -P {floor_file}", "floor-ready", env) for _ in range(runs)]
    except RuntimeError as error:
        print(f"the console in a terminal is NOT measured: {error}")
        return 1
    finally:
        if not into:
            shutil.rmtree(folder, ignore_errors=True)
    console_s, floor_s = statistics.median(first), statistics.median(floors)
    print(f"sample cohort ({entries} entries) in tmux 120×40, median of {runs}:")
    print(
        f"  review: triage table painted        {console_s * 1000:7.0f} ms   (runs: "
        + ", ".join(f"{s * 1000:.0f}" for s in first)
        + ")"
    )
    print(f"  bare Textual app painted (floor)    {floor_s * 1000:7.0f} ms")
    print(f"  ratio to the floor                  {console_s / floor_s:7.2f}   (target: well under 1 s in all)")
    return 0
