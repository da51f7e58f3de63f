"""Build one-commit submissions around a given checkout.mjs, with the real (trusted) builder."""

from __future__ import annotations

import os
from pathlib import Path

from review import demo, gitsafe


def submission(folder: Path, files: dict[str, str | bytes]) -> gitsafe.SafeRepo:
    data = {path: text.encode() if isinstance(text, str) else text for path, text in files.items()}
    demo.build_repo(folder, [demo.CommitSpec(data, "candidate code", "Cand", "c@example.com",
                                                   "2026-11-01T10:00:00+00:00")])
    return gitsafe.open_submission(folder)


def _own_descendants() -> list[int]:
    """Live processes below this test process. conftest makes it a child subreaper, so a process
    whose parent died (a leaked grandchild) is re-parented here rather than to init: it still counts."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()  # after "pid (comm)": state ppid …
        if len(fields) > 1 and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def leftover_processes(marker: str) -> list[str]:
    """Command lines of live processes this test process started (directly or not) that mention
    `marker`. Never the machine's other processes: an unrelated driver.mjs elsewhere is not ours."""
    found = []
    for pid in _own_descendants():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found
