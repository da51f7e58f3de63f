"""The candidate's code, exported from git objects (never the work tree) into a run's folder."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from review import gitsafe
from review.core.text import safe_line
from review.harness.sandbox import SandboxError

CODE_SUFFIXES = (".mjs", ".js", ".cjs", ".json")
SKIPPED_NAMES = frozenset({"package.json", "package-lock.json"})  # "type"/"imports" would change how code resolves
MAX_FILE = 1 << 20
MAX_TOTAL = 8 << 20


class ExportError(SandboxError):
    """The run folder cannot take the code (a full disk): the run does not happen, and says why."""


def export_code(
    repo: gitsafe.SafeRepo, commit: str, dest: Path, skipped: frozenset[str] = SKIPPED_NAMES
) -> dict[str, bytes]:
    """Write the commit's JavaScript files (from git objects: symlinks are never followed) into `dest`;
    returns path -> the bytes written. The harness leaves package.json out (see SKIPPED_NAMES); the
    candidate's own tests need it."""
    written: dict[str, bytes] = {}
    total = 0
    for entry in repo.files(commit):
        parts = PurePosixPath(entry.path).parts
        if entry.kind != "blob" or entry.mode not in ("100644", "100755"):
            continue  # symlinks (120000) and submodules stay out
        if not entry.path.endswith(CODE_SUFFIXES) or parts[-1] in skipped or "node_modules" in parts:
            continue
        if entry.path.startswith("/") or any(p in ("..", ".git", "") for p in parts):
            continue
        if entry.size is None or entry.size > MAX_FILE or total + entry.size > MAX_TOTAL:
            continue
        found = repo.objects.read(entry.oid, MAX_FILE)  # by object id: one batch reader, no path lookup
        if found is None or found[0] != "blob":
            continue
        data = found[1]
        target = dest.joinpath(*parts)
        try:
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            except (FileExistsError, NotADirectoryError, IsADirectoryError):
                continue  # a tree naming one path twice (or a file where a folder is): the first one stands
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError as error:  # ENOSPC, EDQUOT: the machine's problem, said as such
            raise ExportError(
                f"cannot write the candidate's code for the run ({entry.path}): {error.strerror}"
            ) from None
        written[entry.path] = data
        total += entry.size
    return written


def why_left_out(repo: gitsafe.SafeRepo, commit: str, path: str) -> str:
    """Why export_code wrote no `path` from `commit`, in the reviewer's words."""
    entry = next((e for e in repo.files(commit) if e.path == path), None)
    if entry is None:
        return f"{path} is not in commit {commit[:12]}"
    if entry.mode == "120000":
        # Its blob is where it points; shown, never followed.
        target = repo.show(commit, path, limit=4096) or b""
        return (
            f"{path} is a symbolic link (to {safe_line(target.decode('utf-8', 'replace'), 200)}) in commit "
            f"{commit[:12]}; the harness runs files only and never follows a link"
        )
    if entry.kind != "blob":
        return f"{path} is a submodule in commit {commit[:12]}, not a file"
    if entry.size is not None and entry.size > MAX_FILE:
        return f"{path} is {entry.size / (1 << 20):.1f} MiB; the harness runs files of at most {MAX_FILE >> 20} MiB"
    return (
        f"{path} was left out: the commit's code files together pass the {MAX_TOTAL >> 20} MiB the "
        "harness copies for a run"
    )
