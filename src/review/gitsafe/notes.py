"""The git notes and git-ai refs a plain clone leaves behind, fetched into the sanitised copy (by the
clone, and again when the source's notes refs change)."""

from __future__ import annotations

from pathlib import Path

from review.gitsafe.env import GitSafeError, _run, git_env
from review.gitsafe.head import find_git_dir


def safe_dirs(source: Path) -> tuple[str, ...]:
    """The source folder and its git dir, for git's safe.directory (refused when git config cannot quote them)."""
    git_dir = find_git_dir(source)
    dirs = {str(source), str(git_dir)}
    for directory in dirs:
        if any(ch in directory for ch in '\n\r"\\\0'):
            raise GitSafeError("the folder's path holds characters git config cannot quote safely")
    return tuple(sorted(dirs))


NOTES_REFSPECS = ("+refs/notes/*:refs/notes/*", "+refs/ai/*:refs/ai/*")


def fetch_notes(clone_dir: Path, source: Path) -> str | None:
    """git notes (git-ai's refs/notes/ai and refs/notes/ai-remote/*) and git-ai's legacy
    refs/ai/authorship/* do not travel with a plain clone: fetch them, dropping any the source no
    longer has. Returns why they could not be fetched (None: fetched, or there are none)."""
    try:
        _run(["--git-dir", str(clone_dir), "fetch", "--quiet", "--prune", "--no-tags", "--",
              str(find_git_dir(source)), *NOTES_REFSPECS], env=git_env(safe_dirs(source)))
    except GitSafeError as error:
        return str(error)
    return None
