"""A stopped run gives its worker's thread back: a task left over that swallows its cancellation (as
Python 3.11's wait_for can) is cancelled again on every poll, then given up on, never waited for
without end (it held the console's harness thread, and its quit, after a quick double reload)."""

from __future__ import annotations

import asyncio
import threading
import time

from review.harness import process


def test_a_stopped_run_returns_though_a_left_over_task_swallows_its_cancellations(monkeypatch):
    monkeypatch.setattr(process, "LEFTOVER_S", 1.0, raising=False)
    swallowed = []

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed.append(time.monotonic())

    running = threading.Event()

    async def run() -> None:
        asyncio.get_running_loop().create_task(stubborn())  # not awaited: left over when the run ends
        await asyncio.sleep(0)  # the stubborn task starts
        running.set()
        await asyncio.sleep(3600)

    stop = threading.Event()
    ended: list[BaseException] = []

    def worker() -> None:
        try:
            process.run_until_stopped(run, stop.is_set, poll_s=0.05)
        except BaseException as error:
            ended.append(error)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    assert running.wait(timeout=60)
    stop.set()
    thread.join(timeout=20)
    assert not thread.is_alive(), "the stopped run still holds its thread"
    assert isinstance(ended[0], asyncio.CancelledError)
    assert len(swallowed) >= 2  # cancelled again, not once and waited for


def test_a_run_left_alone_returns_its_result():
    async def run() -> int:
        await asyncio.sleep(0.01)
        return 7

    assert process.run_until_stopped(run, lambda: False) == 7
