"""``review bench startup``: the console started for real in tmux (as over SSH), beside a bare
Textual app started the same way."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from review.devtools.bench.common import tmux_first_paint
from review.services import samples


def startup_benchmark(into: Path | None, runs: int = 5) -> int:
    """The console started for real in tmux (as over SSH) on the sample cohort: time to the first
    painted triage table, beside a bare Textual app started the same way (the floor)."""
    import statistics
    import sys

    if shutil.which("tmux") is None:
        print("review bench startup needs tmux (apt-get install tmux)")
        return 2
    folder = into or Path(tempfile.mkdtemp(prefix="review-bench-startup-"))
    cohort = samples.build_demo(folder / "cohort")
    env = {key: os.environ[key] for key in ("PATH", "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "REVIEW_CACHE_DIR")
           if key in os.environ}
    server = f"review-bench-{os.getpid()}"
    floor_file = Path(__file__).with_name("floor_app.py")
    console = f"{sys.executable} -m review {cohort} --no-harness"
    first = [tmux_first_paint(server, console, "ada-okafor", env) for _ in range(runs)]
    floors = [tmux_first_paint(server, f"{sys.executable} -P {floor_file}", "floor-ready", env) for _ in range(runs)]
    console_s, floor_s = statistics.median(first), statistics.median(floors)
    print(f"sample cohort ({len(list(cohort.iterdir()))} entries) in tmux 120×40, median of {runs}:")
    print(f"  review: triage table painted        {console_s * 1000:7.0f} ms   (runs: "
          + ", ".join(f"{s * 1000:.0f}" for s in first) + ")")
    print(f"  bare Textual app painted (floor)    {floor_s * 1000:7.0f} ms")
    print(f"  ratio to the floor                  {console_s / floor_s:7.2f}   (target: well under 1 s in all)")
    return 0
