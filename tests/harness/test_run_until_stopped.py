"""A stopped run gives its worker's thread back: a task left over that swallows its cancellation (as
Python 3.11's wait_for can) is cancelled again on every poll, then given up on, never waited for
without end (it held the console's harness thread, and its quit, after a quick double reload)."""

from __future__ import annotations

import asyncio
import threading

from review.harness import process


def test_a_stopped_run_returns_though_a_left_over_task_swallows_its_cancellations(monkeypatch):
    monkeypatch.setattr(process, "LEFTOVER_S", 1.0, raising=False)
    swallowed = []
    running = threading.Event()

    async def stubborn() -> None:
        never = asyncio.Event()  # nothing sets it: the task waits until cancelled, and swallows that
        running.set()
        while True:
            try:
                await never.wait()
            except asyncio.CancelledError:
                swallowed.append(True)

    async def run() -> None:
        asyncio.get_running_loop().create_task(stubborn())  # not awaited: left over when the run ends
        await asyncio.Event().wait()  # until stopped

    stop = threading.Event()
    ended: list[BaseException] = []

    def worker() -> None:
        try:
            process.run_until_stopped(run, stop.is_set, poll_s=0.05)
        except BaseException as error:
            ended.append(error)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    assert running.wait(timeout=60)  # the left-over task is there before the run is stopped
    stop.set()
    thread.join(timeout=20)
    assert not thread.is_alive(), "the stopped run still holds its thread"
    assert isinstance(ended[0], asyncio.CancelledError)
    assert len(swallowed) >= 2  # cancelled again, not once and waited for


def test_a_run_left_alone_returns_its_result():
    async def run() -> int:
        return 7

    assert process.run_until_stopped(run, lambda: False) == 7
