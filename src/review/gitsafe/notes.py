"""The git notes and git-ai refs a plain clone leaves behind, fetched into the sanitised copy (by the
clone, and again when the source's notes refs change)."""

from __future__ import annotations

import os
from pathlib import Path

from review.gitsafe import objects_held
from review.gitsafe.env import SHA_RE, GitSafeError, _run, git_env
from review.gitsafe.head import check_repository, find_git_dir
from review.support import files


def safe_dirs(source: Path) -> tuple[str, ...]:
    """The source folder and its git dir, for git's safe.directory: none when the reviewer owns both
    (git asks only about a repository another user owns); refused when git config cannot quote them."""
    git_dir = find_git_dir(source)
    dirs = {str(source), str(git_dir)}
    try:
        if all(os.lstat(directory).st_uid == os.geteuid() for directory in dirs):
            return ()
    except OSError:
        pass
    for directory in dirs:
        if any(ch in directory for ch in '\n\r"\\\0'):
            raise GitSafeError(
                "the folder belongs to another user and its path holds a line break, quote or "
                "backslash, which git's safe.directory cannot carry: rename the folder to review it"
            )
    return tuple(sorted(dirs))


NOTES_REFSPECS = ("+refs/notes/*:refs/notes/*", "+refs/ai/*:refs/ai/*")


def fetch_notes(clone_dir: Path, source: Path) -> str | None:
    """git notes (git-ai's refs/notes/ai and refs/notes/ai-remote/*) and git-ai's legacy
    refs/ai/authorship/* do not travel with a plain clone: fetch them, dropping any the source no
    longer has. Returns why they could not be fetched (None: fetched, or there are none)."""
    try:
        _run(
            [
                "--git-dir",
                str(clone_dir),
                "fetch",
                "--quiet",
                "--prune",
                "--no-tags",
                "--",
                str(find_git_dir(source)),
                *NOTES_REFSPECS,
            ],
            env=git_env(safe_dirs(source)),
        )
    except GitSafeError as error:
        return str(error)
    return None


# Commits no ref reaches that a note describes, once copied, are kept under these refs of the copy.
NOTED_PREFIX = "refs/review/noted/"
MAX_FETCHED = 1000
# Asked of the submission's own upload-pack: a commit no ref names may be sent (git before 2.26 speaks
# protocol 0, which refuses that unless told; protocol 2 sends any commit it holds).
_UPLOAD_PACK = "git -c uploadpack.allowAnySHA1InWant=true upload-pack"


def fetch_commits(clone_dir: Path, source: Path, shas: list[str]) -> tuple[set[str], str | None]:
    """Copy into the clone the commits among `shas` that the submission holds but no ref reaches (a
    note's commit a squash, rebase or amend replaced, still kept by the reflog), each kept under
    refs/review/noted/<id>. Returns (the ids the submission holds, why they could not be copied)."""
    wanted = [sha for sha in dict.fromkeys(shas) if SHA_RE.match(sha)]
    if not wanted:
        return set(), None
    try:
        git_dir = find_git_dir(source)
        check_repository(git_dir)  # the source may have changed since it was copied
    except GitSafeError as error:
        return set(), str(error)
    held = objects_held.held(git_dir, wanted)
    present = wanted if held is None else [sha for sha in wanted if sha in held]
    if not present:
        return set(), None
    problem = None
    if len(present) > MAX_FETCHED:
        problem = f"{len(present) - MAX_FETCHED} of {len(present)} commits not copied (the first {MAX_FETCHED} were)"
        present = present[:MAX_FETCHED]
    # One copy at a time per clone (threads, a second console), as for the notes themselves.
    with files.exclusive(clone_dir / "review-notes.lock"):
        try:
            _run(
                [
                    "--git-dir",
                    str(clone_dir),
                    "fetch",
                    "--quiet",
                    "--no-tags",
                    f"--upload-pack={_UPLOAD_PACK}",
                    "--",
                    str(git_dir),
                    *(f"+{sha}:{NOTED_PREFIX}{sha}" for sha in present),
                ],
                env=git_env(safe_dirs(source)),
            )
        except GitSafeError as error:
            return set(present) if held is not None else set(), str(error)
    return set(present), problem
