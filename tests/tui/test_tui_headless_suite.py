"""A suite `review harness` ran headless in another terminal, for a HEAD an open console lists, shows
in that console's Runs column: the console looks at the harness cache with the cohort folder, once a
second. The real app, a real `review harness` process, real node and the real gateway."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from helpers import open_submission, settle, wait_until
from review.harness import runner
from review.tui.app import ReviewApp


async def test_a_suite_run_headless_in_another_terminal_shows_in_the_open_console(sample_cohort, tmp_path):
    cohort_dir = tmp_path / "one"
    cohort_dir.mkdir()
    shutil.copytree(sample_cohort / "chen-wei", cohort_dir / "chen-wei", symlinks=True)
    # The console runs no suite itself (--no-harness): only the other terminal's run can fill the row.
    app = ReviewApp(cohort_dir, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await wait_until(pilot, lambda: screen.rows["chen-wei"].head is not None)
        head = screen.rows["chen-wei"].head
        assert runner.cached_suite(head) is None
        assert str(screen.table.get_cell("chen-wei", "runs")) == "—"
        # Another terminal, the same machine (and so the same cache folder).
        other = subprocess.Popen(
            [sys.executable, "-m", "review", "harness", str(cohort_dir / "chen-wei")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=os.environ.copy(),
        )
        try:
            await wait_until(pilot, lambda: other.poll() is not None, timeout=600)
        finally:
            if other.poll() is None:
                other.kill()
        assert other.returncode == 0, other.stderr.read() if other.stderr else ""
        suite = runner.cached_suite(head)
        assert suite is not None and suite.is_full
        await wait_until(pilot, lambda: screen.rows["chen-wei"].scenarios == suite.verdicts, timeout=90)
        await wait_until(pilot, lambda: str(screen.table.get_cell("chen-wei", "runs")) != "—", timeout=30)
        assert screen.rows["chen-wei"].harness == suite.summary


async def test_an_open_submission_shows_a_suite_run_headless_for_its_head(sample_cohort, tmp_path):
    cohort_dir = tmp_path / "one"
    cohort_dir.mkdir()
    shutil.copytree(sample_cohort / "chen-wei", cohort_dir / "chen-wei", symlinks=True)
    app = ReviewApp(cohort_dir, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        await pilot.press("5")
        await settle(app, pilot)
        log = screen.stub_log
        assert not any("result of an earlier run" in line for line in log.raw_lines)
        assert run_headless(cohort_dir / "chen-wei") == 0
        await wait_until(pilot, lambda: any("result of an earlier run" in line for line in log.raw_lines), timeout=90)
        suite = runner.cached_suite(screen.analysis.head)
        assert suite is not None and screen.suite is not None and screen.suite.verdicts == suite.verdicts
        assert any(f"suite done: {suite.summary}" in line for line in log.raw_lines)


def run_headless(path) -> int:
    """`review harness PATH` in another process (another terminal), to its end."""
    done = subprocess.run(
        [sys.executable, "-m", "review", "harness", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.returncode
