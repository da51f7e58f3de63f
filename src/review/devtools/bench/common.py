"""What the benchmarks share: a goal measured against its baseline, the time a program takes to
paint its first screen in a real terminal (tmux), and the time from a key pressed in that terminal
until what it asked for is painted."""

from __future__ import annotations

import itertools
import subprocess
import time
from dataclasses import dataclass

_servers = itertools.count()


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


def tmux_first_paint(server: str, command: str, ready: str, env: dict[str, str], timeout: float = 20.0) -> float:
    """Seconds from starting `command` in a fresh tmux window until `ready` is on its screen."""
    # A server of its own each time: one just killed may still hold its socket ("server exited
    # unexpectedly" for the next one of that name).
    base = ["tmux", "-L", f"{server}-{next(_servers)}", "-f", "/dev/null"]
    subprocess.run([*base, "kill-server"], capture_output=True)
    args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    start = time.perf_counter()
    # The server's environment is the one given, not this process's (PYTHONDONTWRITEBYTECODE and all).
    subprocess.run(
        [*base, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", *args, command], check=True, env=env
    )
    try:
        _wait_for(base, ready, start, timeout)
        return time.perf_counter() - start
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)


def _wait_for(base: list[str], ready: str, start: float, timeout: float) -> None:
    while time.perf_counter() - start < timeout:
        shown = subprocess.run([*base, "capture-pane", "-p", "-t", "bench"], capture_output=True, text=True).stdout
        if ready in shown:
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


def tmux_key_to_paint(server: str, run: KeyInTmux, env: dict[str, str], timeout: float = 120.0) -> float:
    """Seconds from `run.key` sent to a tmux window 120×40 until `run.ready` is on its screen: the way a
    reviewer's keystroke takes through the terminal, the program and back, the same for any program."""
    # A server of its own each time: one just killed may still hold its socket ("server exited
    # unexpectedly" for the next one of that name).
    base = ["tmux", "-L", f"{server}-{next(_servers)}", "-f", "/dev/null"]
    subprocess.run([*base, "kill-server"], capture_output=True)
    args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    subprocess.run(
        [*base, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", run.folder, *args, run.command],
        check=True,
        env=env,
    )
    try:
        _wait_for(base, run.waiting, time.perf_counter(), timeout)
        if run.typed is not None:
            subprocess.run([*base, "send-keys", "-t", "bench", "-l", run.typed], check=True)
            _wait_for(base, run.typed, time.perf_counter(), timeout)
        time.sleep(run.rest)
        start = time.perf_counter()
        subprocess.run([*base, "send-keys", "-t", "bench", run.key], check=True)
        _wait_for(base, run.ready, start, timeout)
        return time.perf_counter() - start
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
