"""One process of the trusted driver, supervised: node started in the sandbox with the scenario's
calls, its output read (capped, marked as the client's, never believed), its resources watched, and
the whole process group killed when it ends, hangs past the scenario's limit, is killed for the
restart, or the run is cancelled."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from review.core.scenarios import Fault
from review.core.text import safe_line
from review.harness import process, sandbox, scenarios
from review.harness.gateway import Gateway
from review.harness.process import capped_lines, kill_group

# emit(kind, data, text): one event of the scenario, as the runner logs it.
Emit = Callable[[str, dict, str], None]

STREAM_CAP = 64 * 1024
# Per run: memory, processes, disk; past one, the verdict is resource-limit.
LIMITS = process.Limits()
ENDINGS = {"killed-for-restart": "killed (SIGKILL) as its first request arrived: the restart"}


def driver_env(
    info: sandbox.SandboxInfo, work: Path, socket_dir: Path, scenario: scenarios.Scenario, coverage_dir: Path | None
) -> dict[str, str]:
    entry, sock = sandbox.paths_for(info, work, socket_dir)
    extra = {"REVIEW_GATEWAY_SOCKET": sock, "REVIEW_ENTRY": entry, "REVIEW_CALLS": json.dumps(list(scenario.calls))}
    if coverage_dir is not None:
        extra["NODE_V8_COVERAGE"] = sandbox.INSIDE_COVERAGE
        # Written before the limit's kill.
        extra["REVIEW_COVERAGE_AT_MS"] = str(int(scenario.limit_s * 1000) - 800)
    return sandbox.clean_env(info, work, extra)


async def run_driver(
    info: sandbox.SandboxInfo,
    work: Path,
    socket_dir: Path,
    scenario: scenarios.Scenario,
    process_no: int,
    gateway: Gateway,
    emit: Emit,
    coverage_dir: Path | None = None,
) -> tuple[str, list[str]]:
    """Run the driver once; returns (how it ended: exited:N | killed-for-restart | limit | resource:WHAT,
    the tail of its stderr)."""
    argv = sandbox.node_command(
        info, work, socket_dir, cpu_seconds=int(scenario.limit_s) + 2, coverage_dir=coverage_dir
    )
    gateway.kill_requested.clear()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        env=driver_env(info, work, socket_dir, scenario, coverage_dir),
        cwd=work,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    emit(
        "process-start",
        {"process": process_no, "sandbox": info.kind},
        f"process {process_no} started ({info.kind} sandbox, node {info.node_version_text})",
    )
    stderr_tail: list[str] = []
    # Stdout and stderr bytes together, for the output limit.
    written = [0]
    readers = [
        asyncio.create_task(read_stream(proc.stdout, "stdout", process_no, emit, None, written)),
        asyncio.create_task(read_stream(proc.stderr, "stderr", process_no, emit, stderr_tail, written)),
    ]
    exit_task = asyncio.create_task(proc.wait())
    watchdog = asyncio.create_task(process.watch_resources(proc.pid, work, LIMITS, output=written))
    kill_task = (
        asyncio.create_task(gateway.kill_requested.wait())
        if scenario.plan.first == Fault.KILL_AFTER_CHARGE and process_no == 1
        else None
    )
    waits = {exit_task, watchdog, *([kill_task] if kill_task else [])}
    try:
        done, _ = await asyncio.wait(waits, timeout=scenario.limit_s, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _stop_cancelled(proc, exit_task, [*readers, kill_task, watchdog])
        raise
    # Whatever ended the wait (the end, the limit, the restart, a resource cap), the whole group dies here.
    kill_group(proc.pid)
    for task in (kill_task, watchdog):
        if task is not None:
            task.cancel()
    ending = _ending(done, exit_task, watchdog, kill_task, proc.returncode)
    if ending.startswith("resource:"):
        emit(
            "info", {"process": process_no}, f"[runner] process {process_no} killed: {ending.removeprefix('resource:')}"
        )
    await proc.wait()
    try:
        await asyncio.wait_for(asyncio.gather(*readers), timeout=2)
    except TimeoutError:
        for reader in readers:
            reader.cancel()
    words = {**ENDINGS, "limit": f"killed at the {scenario.limit_s:g} s limit"}
    emit(
        "process-end",
        {"process": process_no, "ending": ending},
        f"process {process_no} {words.get(ending, 'exited with code ' + ending.split(':')[-1])}",
    )
    return ending, stderr_tail


def _ending(
    done: set, exit_task: asyncio.Task, watchdog: asyncio.Task, kill_task: asyncio.Task | None, returncode: int | None
) -> str:
    if watchdog in done and not watchdog.cancelled() and watchdog.exception() is None:
        return f"resource:{watchdog.result()}"
    if exit_task in done:
        return f"exited:{returncode}"
    if kill_task is not None and kill_task in done:
        return "killed-for-restart"
    return "limit"


async def _stop_cancelled(
    proc: asyncio.subprocess.Process, exit_task: asyncio.Task, tasks: list[asyncio.Task | None]
) -> None:
    """A cancelled run (the console quits, the reviewer presses escape): kill, reap, then give up."""
    kill_group(proc.pid)
    for task in tasks:
        if task is not None:
            task.cancel()
    try:
        await asyncio.wait_for(exit_task, timeout=2)
    except (TimeoutError, asyncio.CancelledError):
        pass
    # Close the pipes now, on this loop: left to the garbage collector they would be closed after the
    # loop is gone, with a traceback on the reviewer's terminal.
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


async def read_stream(
    stream: asyncio.StreamReader | None,
    name: str,
    process_no: int,
    emit: Emit,
    tail: list[str] | None,
    written: list[int] | None = None,
) -> None:
    """Client output is shown (sanitised, capped, marked as the client's) but never believed."""
    async for text in capped_lines(stream, STREAM_CAP, notice_once=name == "stderr", counted=written):
        if text is None:
            cut = f"client {name} (p{process_no}): … output cut at {STREAM_CAP} bytes"
            emit(name, {"process": process_no}, cut)
            continue
        if tail is not None:
            tail.append(text)
            del tail[:-50]
        emit(
            name,
            {"process": process_no, "line": safe_line(text, 400)},
            safe_line(f"client {name} (p{process_no}): {text}", 400),
        )
