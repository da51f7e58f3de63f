"""Nothing blocks the UI thread: a scripted session on the real app (triage, filter, sort, open a
submission, every pane, score and save, a scenario run, the log written, help, zoom, back, reload)
with an audit hook that records every file the app opens, folder it lists and process it starts on
the main thread while it runs. Python's own reading of modules (a lazy import) is not the app's I/O
and is left out; everything else must happen in a worker."""

from __future__ import annotations

import asyncio
import shutil
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers import open_submission, settle, wait_until
from review.tui.app import ReviewApp

WATCHED = {
    "open",
    "os.listdir",
    "os.scandir",
    "glob.glob",
    "os.mkdir",
    "os.rename",
    "os.remove",
    "os.rmdir",
    "shutil.rmtree",
    "subprocess.Popen",
    "os.posix_spawn",
    "os.exec",
    "os.fork",
    "os.system",
}
IMPORTING = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>", "<frozen zipimport>")

_recorded: list[str] | None = None
_hooked = False


def _hook(event: str, args: tuple) -> None:
    if _recorded is None or event not in WATCHED or threading.current_thread() is not threading.main_thread():
        return
    frame = sys._getframe(1)
    caller = None
    while frame is not None:
        if frame.f_code.co_filename in IMPORTING:
            return
        if caller is None and "/review/" in frame.f_code.co_filename:
            caller = f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}"
        frame = frame.f_back
    _recorded.append(f"{event} {args[0] if args else ''!s} (from {caller or 'a library'})")


@contextmanager
def main_thread_io() -> Iterator[list[str]]:
    """What was opened, listed or started on the main thread meanwhile. An audit hook cannot be
    removed: it is installed once and records only inside this block."""
    global _recorded, _hooked
    if not _hooked:
        sys.addaudithook(_hook)
        _hooked = True
    _recorded = found = []
    try:
        yield found
    finally:
        _recorded = None


async def test_a_scripted_session_does_no_file_or_process_work_on_the_ui_thread(sample_cohort, tmp_path, monkeypatch):
    from review.tui.screens.cohort import CohortScreen

    monkeypatch.setattr(CohortScreen, "WATCH_SECONDS", 0.1)
    # Copied into the cohort during the session: the folder is watched from a worker.
    shutil.move(sample_cohort / "hal-kim", tmp_path / "hal-kim")
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        with main_thread_io() as found:
            await settle(app, pilot)
            # The test's own copy, off the main thread (the recorder would count it).
            await asyncio.to_thread(shutil.copytree, tmp_path / "hal-kim", sample_cohort / "hal-kim", symlinks=True)
            await wait_until(
                pilot,
                lambda: app.screen.rows.get("hal-kim") is not None and app.screen.rows["hal-kim"].complete,
                timeout=30,
            )
            await pilot.press("slash", *"ben", "enter", "s", "S", "escape")
            await settle(app, pilot)
            screen = await open_submission(app, pilot, "ben-larsen")
            # The diff read as a reviewer does: words, whitespace, moved blocks, viewed files, side by side.
            await pilot.press("2", "3", "1", "w", "W", "M", "v", "u", "S", "W", "w")
            await settle(app, pilot)
            await pilot.press("z", "z", "4", "s", "down", "a", "ctrl+s")
            await wait_until(pilot, lambda: (sample_cohort / "ben-larsen.review.toml").exists(), timeout=30)
            await settle(app, pilot)
            await pilot.press("question_mark")
            await settle(app, pilot)
            await pilot.press("escape", "5")
            if shutil.which("node"):
                log = screen.stub_log
                await pilot.press("s", "enter")
                await wait_until(pilot, lambda: not log.running and bool(log.last_verdicts), timeout=60)
                await pilot.press("w")
                await settle(app, pilot)
            await pilot.press("escape")
            await settle(app, pilot)
            await pilot.press("R")
            await settle(app, pilot)
    assert found == []


async def test_the_recorder_sees_a_file_read_on_the_ui_thread_and_not_in_a_worker(tmp_path):
    planted = tmp_path / "planted.txt"
    planted.write_text("x")
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test() as pilot:
        with main_thread_io() as found:
            app.call_later(planted.read_text)
            await pilot.pause()
            app.run_worker(planted.read_text, thread=True)
            await app.workers.wait_for_complete()
            await pilot.pause()
    assert len(found) == 1 and found[0].startswith(f"open {planted}")


@pytest.fixture(autouse=True)
def _stop_recording():
    yield
    global _recorded
    _recorded = None
