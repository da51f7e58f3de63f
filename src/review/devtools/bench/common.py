"""What the benchmarks share: a goal measured against its baseline, and the time a program takes
to paint its first screen in a real terminal (tmux)."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass


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
    base = ["tmux", "-L", server, "-f", "/dev/null"]
    subprocess.run([*base, "kill-server"], capture_output=True)
    args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    start = time.perf_counter()
    subprocess.run([*base, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", *args, command], check=True)
    try:
        while time.perf_counter() - start < timeout:
            shown = subprocess.run([*base, "capture-pane", "-p", "-t", "bench"], capture_output=True, text=True).stdout
            if ready in shown:
                return time.perf_counter() - start
            time.sleep(0.005)
        raise RuntimeError(f"{ready!r} did not appear within {timeout:g} s")
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
