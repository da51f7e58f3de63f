"""What the benchmarks share: a goal measured against its baseline, the time a program takes to
paint its first screen in a real terminal (tmux), and the time from a key pressed in that terminal
until what it asked for is painted."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Goal:
    name: str
    measured: str
    # The baseline measured in the same run, or the fixed target.
    against: str
    ratio: float
    # The ratio must stay at or under this.
    goal: float

    @property
    def met(self) -> bool:
        return self.ratio <= self.goal


class TmuxServer:
    """A tmux server of its own, on a socket path of its own given to every call (-S): with -L, or the
    default, each call finds the socket through TMUX_TMPDIR, so a call made with another environment
    than the one that started the server (a trimmed one, for the program measured) talks to another
    server or none, and the one started is never killed. Use it in a `with`: killed on the way out."""

    def __init__(self) -> None:
        # A short path (a socket's is limited to about 100 bytes), private to this server.
        self.folder = Path(tempfile.mkdtemp(prefix="review-tmux-"))
        self.base = ["tmux", "-S", str(self.folder / "socket"), "-f", "/dev/null"]

    def run(self, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
        return subprocess.run([*self.base, *args], check=check, capture_output=True, text=True, env=env).stdout

    def screen(self, target: str) -> str:
        return self.run("capture-pane", "-p", "-t", target, check=False)

    def kill(self) -> None:
        self.run("kill-server", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> TmuxServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


def tmux_first_paint(command: str, ready: str, env: dict[str, str], timeout: float = 20.0) -> float:
    """Seconds from starting `command` in a fresh tmux window until `ready` is on its screen."""
    args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    with TmuxServer() as tmux:
        start = time.perf_counter()
        # The server's environment is the one given, not this process's (PYTHONDONTWRITEBYTECODE and all).
        tmux.run("new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", *args, command, env=env)
        _wait_for(tmux, ready, start, timeout)
        return time.perf_counter() - start


def _wait_for(tmux: TmuxServer, ready: str, start: float, timeout: float) -> None:
    while time.perf_counter() - start < timeout:
        if ready in tmux.screen("bench"):
            return
        time.sleep(0.005)
    raise RuntimeError(f"{ready!r} did not appear within {timeout:g} s")


@dataclass(frozen=True)
class KeyInTmux:
    """A program in a tmux window, and a key pressed there: `command` runs in `folder`; once `waiting`
    is on the screen (and `typed`, typed at the shell, is too) and `rest` seconds more have passed,
    `key` is sent; the time runs until `ready` is on the screen."""

    command: str
    folder: str
    waiting: str
    ready: str
    key: str = "Enter"
    typed: str | None = None
    rest: float = 0.0


def tmux_key_to_paint(run: KeyInTmux, env: dict[str, str], timeout: float = 120.0) -> float:
    """Seconds from `run.key` sent to a tmux window 120×40 until `run.ready` is on its screen: the way a
    reviewer's keystroke takes through the terminal, the program and back, the same for any program."""
    args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    with TmuxServer() as tmux:
        tmux.run(
            "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", run.folder, *args, run.command, env=env
        )
        _wait_for(tmux, run.waiting, time.perf_counter(), timeout)
        if run.typed is not None:
            tmux.run("send-keys", "-t", "bench", "-l", run.typed)
            _wait_for(tmux, run.typed, time.perf_counter(), timeout)
        time.sleep(run.rest)
        start = time.perf_counter()
        tmux.run("send-keys", "-t", "bench", run.key)
        _wait_for(tmux, run.ready, start, timeout)
        return time.perf_counter() - start
