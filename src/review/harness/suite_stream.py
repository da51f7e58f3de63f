"""The suite as an async iterator of its events, as they happen (for a caller that reads a run as a
stream rather than handing over a listener)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from review import gitsafe
from review.harness import sandbox
from review.harness.results import HarnessEvent
from review.harness.runner import run_suite


async def stream_suite(
    repo: gitsafe.SafeRepo,
    commit: str | None = None,
    names: list[str] | None = None,
    info: sandbox.SandboxInfo | None = None,
) -> AsyncIterator[HarnessEvent]:
    """The suite as an async iterator of events, as they happen; the last is "suite-done" with the result."""
    queue: asyncio.Queue[HarnessEvent] = asyncio.Queue()
    task = asyncio.create_task(run_suite(repo, commit, names, queue.put_nowait, info))
    try:
        while not (task.done() and queue.empty()):
            getter = asyncio.create_task(queue.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield getter.result()
            else:
                getter.cancel()
        suite = task.result()
        yield HarnessEvent("suite-done", "", 0.0, {"result": suite}, f"suite done: {suite.summary}")
    finally:
        if not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
