"""Build one-commit submissions around a given checkout.mjs, with the real (trusted) builder."""

from __future__ import annotations

import os
from pathlib import Path

from review import gitsafe


def submission(folder: Path, files: dict[str, str | bytes]) -> gitsafe.SafeRepo:
    data = {path: text.encode() if isinstance(text, str) else text for path, text in files.items()}
    gitsafe.build_repo(folder, [gitsafe.CommitSpec(data, "candidate code", "Cand", "c@example.com",
                                                   "2026-11-01T10:00:00+00:00")])
    return gitsafe.open_submission(folder)


def leftover_processes(marker: str) -> list[str]:
    """Command lines of live processes that mention `marker` (a run's folder or the driver)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if marker in cmdline and "State:\tZ" not in status:
            found.append(f"{pid}: {cmdline}")
    return found
