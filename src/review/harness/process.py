"""Supervising candidate processes: kill a run's whole process group and session, read capped
output, and run a coroutine in a worker thread that stops when asked."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from review.support import trees


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


def live_processes() -> Iterator[tuple[int, list[str]]]:
    """(pid, the fields of /proc/pid/stat after "pid (comm)": state ppid pgrp session …) of every live,
    non-zombie process."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if len(fields) > 3 and fields[0] != "Z":
            yield int(entry), fields


def session_members(sid: int) -> list[int]:
    found = [pid for pid, fields in live_processes() if fields[3] == str(sid)]
    return found


def descendants(pid: int) -> list[int]:
    """Every live process under `pid` (through bwrap's own new sessions and PID namespace: the host
    sees them all, parent by parent)."""
    children: dict[int, list[int]] = {}
    for child, fields in live_processes():
        children.setdefault(int(fields[1]), []).append(child)
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total


def folder_bytes(folder: Path, cap: int) -> int:
    """Bytes in `folder`, counted until past `cap` (the walk stops there: a million files cost no more)."""
    total = 0
    # Not os.walk: it recurses once per level, and the candidate's code chooses how deep the tree is.
    for _folder, _name, info in trees.walk(folder):
        if info is not None:
            total += info.st_blocks * 512
            if total > cap:
                return total
    return total


@dataclass(frozen=True)
class Limits:
    memory: int = 1 << 30  # resident bytes of every process of the run together
    processes: int = 64
    disk: int = 100 << 20  # bytes written into the run's folder
    output: int = 16 << 20  # bytes written to stdout and stderr together (64 KiB are shown, the rest drained)


async def watch_resources(
    pid: int, work: Path, limits: Limits, every: float = 0.2, output: list[int] | None = None
) -> str:
    """Returns (ends) when the run under `pid` passes a limit, saying which and by how much: what the
    runner itself measured, never what the candidate's process reports. `output`: the byte count
    capped_lines keeps of the run's stdout and stderr."""
    while True:
        await asyncio.sleep(every)
        if output is not None and output[0] > limits.output:
            return f"over {output[0] >> 20} MiB written to stdout and stderr (the limit is {limits.output >> 20} MiB)"
        under = [pid, *descendants(pid)]
        if len(under) > limits.processes:
            return f"{len(under)} processes at once (the limit is {limits.processes})"
        rss = resident_bytes(under)
        if rss > limits.memory:
            return f"{rss >> 20} MiB of memory in use (the limit is {limits.memory >> 20} MiB)"
        used = await asyncio.to_thread(folder_bytes, work, limits.disk)
        if used > limits.disk:
            return f"over {limits.disk >> 20} MiB written to disk (the limit is {limits.disk >> 20} MiB)"


# Node's own notice, exactly (the program could print look-alikes: those are shown).
NODE_NOTICE = re.compile(
    r"^\(node:\d+\) ExperimentalWarning: Permission is an experimental feature and might change at any time$|"
    r"^\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)$"
)


LINE_CAP = 2000  # characters of one line shown; the rest is counted, not kept


async def capped_lines(
    stream: asyncio.StreamReader | None, cap: int, notice_once: bool = False, counted: list[int] | None = None
):
    """A child's output as decoded lines, up to `cap` bytes in all, then None once where it was cut.
    Read in chunks, so a line of any length (no newline for megabytes) neither fails the read nor
    fills memory: a line past LINE_CAP characters is cut, saying by how much. With `notice_once`
    (stderr), Node's own one-time notice about its permission model is left out the first time only:
    a second copy is the program's own output and is shown. `counted[0]` grows by every byte read,
    shown or drained (the runner's output limit reads it)."""
    seen = 0
    pending = b""
    cut = False
    in_long_line = False  # the start of an over-long line was shown: the rest of it is dropped
    notices_left = 2 if notice_once else 0  # the notice and its "(Use `node --trace-warnings" line
    while stream is not None:
        chunk = await stream.read(1 << 16)
        if counted is not None:
            counted[0] += len(chunk)
        if not chunk:
            if pending and not cut and not in_long_line:
                yield _line(pending)
            return
        if cut:
            continue  # drain, so the child never blocks on a full pipe
        seen += len(chunk)
        pending += chunk
        if seen > cap:
            pending = pending[: max(0, len(pending) - (seen - cap))]
        *lines, pending = pending.split(b"\n")
        for index, raw in enumerate(lines):
            if index == 0 and in_long_line:
                in_long_line = False  # its tail, up to the newline
                continue
            text = _line(raw)
            if notices_left and NODE_NOTICE.match(text):
                notices_left -= 1
                continue
            yield text
        if in_long_line:
            pending = b""
        elif len(pending) > 4 * LINE_CAP:  # one very long line: show its start now, drop the rest of it
            yield _line(pending) + " (the line goes on)"
            in_long_line, pending = True, b""
        if seen > cap:
            cut = True
            yield None


def _line(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").rstrip("\r")
    if len(text) > LINE_CAP:
        return text[:LINE_CAP] + f"… [{len(text) - LINE_CAP} more characters]"
    return text


def run_until_stopped(make, should_stop: Callable[[], bool], poll_s: float = 0.1):
    """Run the coroutine `make()` in a new event loop (a worker thread's), cancelling it as soon as
    `should_stop()` says so: a cancelled run kills its process groups before this returns."""

    async def main():
        task = asyncio.create_task(make())
        stopped = False
        while not task.done():
            if should_stop():
                # Again on every poll until it ends: Python 3.11's wait_for can swallow a cancellation
                # that lands as its inner future completes, and the run would go on to its end.
                stopped = True
                task.cancel()
            await asyncio.wait({task}, timeout=poll_s)
        if stopped and not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" warning
            raise asyncio.CancelledError  # asked to stop: a run that ended anyway is still a cancelled one
        return await task

    # Not asyncio.run: it waits without end for every task left over to take its cancellation, and one
    # that swallowed it held the worker's thread (and the console's quit) for good after a quick
    # double reload. Left-overs get LEFTOVER_S, cancelled again on every poll, then are given up.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # as asyncio.run does, for code that asks for the thread's loop
    try:
        return loop.run_until_complete(main())
    finally:
        try:
            loop.run_until_complete(_cancel_leftovers(poll_s))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


LEFTOVER_S = 5.0  # how long a stopped run's left-over tasks get to end once cancelled


async def _cancel_leftovers(poll_s: float) -> None:
    deadline = asyncio.get_running_loop().time() + LEFTOVER_S
    while True:
        left = [task for task in asyncio.all_tasks() if task is not asyncio.current_task() and not task.done()]
        if not left:
            return
        if asyncio.get_running_loop().time() >= deadline:
            for task in left:
                task._log_destroy_pending = False  # type: ignore[attr-defined]  # given up on knowingly: no warning
            return
        for task in left:
            task.cancel()
        await asyncio.wait(left, timeout=poll_s)
