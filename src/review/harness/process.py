"""Supervising candidate processes: kill a run's whole process group and session, read capped
output, and run a coroutine in a worker thread that stops when asked."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path


def kill_group(pid: int) -> None:
    """SIGKILL the run's process group, then anything left in its session (the run was started with
    start_new_session, so the session id is `pid`): bwrap's inner process, forked while the group
    signal lands, can miss it (seen in CI), and the PID namespace it heads dies only with it."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for other in session_members(pid):
        try:
            os.kill(other, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def session_members(sid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()  # after "pid (comm)": state ppid pgrp session …
        if len(fields) > 3 and fields[3] == str(sid) and fields[0] != "Z":
            found.append(int(entry))
    return found


NODE_NOTICE = re.compile(r"^\(node:\d+\) ExperimentalWarning|^\(Use `node --trace-warnings")


async def capped_lines(stream: asyncio.StreamReader | None, cap: int):
    """A child's output as decoded lines, up to `cap` bytes, then None once where it was cut.
    Node's own notice about its experimental permission model is left out."""
    seen = 0
    while stream is not None:
        line = await stream.readline()
        if not line:
            return
        seen += len(line)
        if seen > cap:
            if seen - len(line) <= cap:
                yield None
            continue
        text = line.decode("utf-8", "replace").rstrip("\n")
        if not NODE_NOTICE.match(text):
            yield text


def run_until_stopped(make, should_stop: Callable[[], bool], poll_s: float = 0.1):
    """Run the coroutine `make()` in a new event loop (a worker thread's), cancelling it as soon as
    `should_stop()` says so: a cancelled run kills its process groups before this returns."""

    async def main():
        task = asyncio.create_task(make())
        while not task.done():
            if should_stop():
                task.cancel()
                break
            await asyncio.wait({task}, timeout=poll_s)
        return await task

    return asyncio.run(main())
