"""The folders a run works in, under the cache's runs/: made fresh for each run (the code exported
into one, the gateway's socket in another, V8's coverage in a third), and swept when a console died
without removing its own."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from review import gitsafe
from review.harness import sandbox
from review.support import trees

_swept: set[str] = set()


@dataclass(frozen=True)
class RunDirs:
    root: Path
    work: Path
    socket_dir: Path
    coverage: Path | None


def runs_root() -> Path:
    root = gitsafe.cache_root() / "runs"
    root.mkdir(exist_ok=True, mode=0o700)
    _sweep_stale_runs(root)
    return root


def run_prefix(kind: str) -> str:
    """Run folders carry the console's pid, so a later start can tell a dead console's leftovers."""
    return f"{kind}-{os.getpid()}-"


def make_run_dirs(coverage: bool) -> RunDirs:
    """A fresh run's folders. A full disk or a read-only cache is the machine's problem, said as such
    (SandboxError), never a traceback."""
    try:
        root = Path(tempfile.mkdtemp(prefix=run_prefix("run"), dir=runs_root()))
        work, socket_dir = root / "work", root / "gw"
        work.mkdir()
        socket_dir.mkdir(mode=0o700)
        coverage_dir = root / "cov" if coverage else None
        if coverage_dir is not None:
            coverage_dir.mkdir()
    except OSError as error:
        problem = f"cannot prepare the run folder in {runs_root()}: {error.strerror}"
        raise sandbox.SandboxError(problem) from None
    return RunDirs(root, work, socket_dir, coverage_dir)


def _sweep_stale_runs(root: Path) -> None:
    """Once per process: remove run folders left by consoles that died (killed, an SSH drop) — never
    those of a console still running (two reviewers share the cache)."""
    if str(root) in _swept:
        return
    _swept.add(str(root))
    for entry in root.iterdir():
        parts = entry.name.split("-")
        if len(parts) < 3 or not parts[1].isdigit():
            continue
        try:
            os.kill(int(parts[1]), 0)
            # Alive (or not ours to signal): leave it.
            continue
        except ProcessLookupError:
            trees.remove(entry)
        except PermissionError:
            continue
