"""One console per browser tab: the `review open` process that textual-serve's AppService talks to,
started without a shell in a session of its own, and ended — with what it started — when the tab
goes, the reviewer quits it, or the server stops."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from review.harness import process as processes

# How long a console has to quit by itself (it saves and cancels its runs) before it is killed.
QUIT_GRACE = 5.0


class ConsoleProcess(AppService):
    """textual-serve's AppService, with the console started from an argument list: no shell reads the
    reviewer's name, and the console heads its own session, so a Ctrl-C typed at the server reaches
    the server alone, which then ends every console in order."""

    def __init__(
        self,
        argv: list[str],
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        download_manager: DownloadManager,
    ) -> None:
        super().__init__(
            shlex.join(argv),
            write_bytes=write_bytes,
            write_str=write_str,
            close=close,
            download_manager=download_manager,
        )
        self.argv = argv
        self._ending: asyncio.Future[None] | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        environment = self._build_environment(width=width, height=height)
        self._process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
        assert self._process.stdin is not None
        self._stdin = self._process.stdin
        return self._process

    async def exited(self) -> None:
        """Returns once the console's process has ended (quit in its tab, or killed)."""
        if self._process is not None:
            await self._process.wait()

    async def stop(self) -> None:
        """Asks the console to quit (as closing its window would), waits QUIT_GRACE seconds, then kills
        it and everything it started: its process group and session, and every process below it (the
        harness starts each run in a session of its own). Its tab and the server's Ctrl-C may both ask:
        it ends once, and both wait for that, even when the one asking is cancelled."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end())
        await asyncio.shield(self._ending)

    async def _end(self) -> None:
        process = self._process
        if process is None:
            return
        running = process.returncode is None
        under = [(pid, _started(pid)) for pid in processes.descendants(process.pid)] if running else []
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        if process.returncode is None:
            await self.send_meta({"type": "quit"})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), QUIT_GRACE)
        if process.returncode is None:
            processes.kill_group(process.pid)
            await process.wait()
        # What it started and left behind (a run it was too stuck to cancel).
        for pid, started in under:
            if started is not None and _started(pid) == started:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        if self._task is not None:
            # Its output ends with it; a grandchild still holding the pipe is not waited for.
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(self._task, 2.0)
            self._task = None


def _started(pid: int) -> str | None:
    """When `pid` started (in clock ticks since boot), to tell it from a later process given the same
    number."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return fields[19] if len(fields) > 19 else None
