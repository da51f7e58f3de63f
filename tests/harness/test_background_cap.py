"""The background harness does not make the load that would make its own verdicts false: with a
cohort of more submissions than the cap, no more than `harness_concurrency()` suites (half the cores,
at least one) run at once, counted from the real node processes the suites start; the rest wait as
queued and all are filled in the end."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from helpers import _own_descendants, submission
from review.harness import sandbox
from review.services import cohort

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("bwrap") is None, reason="needs node and bubblewrap"
)

# Fails at once: each scenario is over as soon as node has started, so the suites stay short.
FAILING = "export async function chargeWithRetry() { throw new Error('not written yet'); }\n"


def _drivers_running() -> int:
    """Node processes running the harness's driver below this test: one per running suite (a
    suite's scenarios, and a scenario's processes, run one after another)."""
    count = 0
    for pid in _own_descendants():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == b"node" and any(b"driver.mjs" in arg for arg in argv):
            count += 1
    return count


def test_no_more_than_half_the_cores_of_suites_run_at_once_across_both_workers(tmp_path):
    if sandbox.detect().kind != "bwrap":
        pytest.skip("the background harness runs only in bubblewrap")
    cap = max(1, len(os.sched_getaffinity(0)) // 2)
    rows = []
    for index in range(cap + 3):
        repo = submission(tmp_path / f"cand-{index}", {"checkout.mjs": FAILING})
        rows.append(cohort.Row(name=f"cand-{index}", path=str(tmp_path / f"cand-{index}"), head=repo.head))
    started: list[str] = []

    def run(part: list[cohort.Row]) -> None:
        asyncio.run(cohort.fill_harness(part, on_start=lambda row: started.append(row.name)))

    # As the console does: the cohort's suites in one worker, the arrivals' in another, each its own loop.
    threads = [threading.Thread(target=run, args=(part,)) for part in (rows[:-2], rows[-2:])]
    for thread in threads:
        thread.start()
    most = 0
    deadline = time.monotonic() + 600
    while any(thread.is_alive() for thread in threads) and time.monotonic() < deadline:
        most = max(most, _drivers_running())
        time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "the suites did not finish"
    assert 1 <= most <= cap, f"{most} suites at once on {len(os.sched_getaffinity(0))} cores"
    assert cohort.harness_concurrency() == cap
    assert sorted(started) == sorted(row.name for row in rows)
    assert all(row.harness and not row.harness.startswith("not run") for row in rows), [r.harness for r in rows]
