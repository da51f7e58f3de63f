"""The sanitised clone: ``git clone --bare --no-local`` of a submission into a private cache,
re-made when its HEAD moves."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from review.gitsafe.env import GitSafeError, _run, cache_root, git_env
from review.gitsafe.head import check_repository, find_git_dir, read_head
from review.gitsafe.repo import SafeRepo


def _safe_dirs(source: Path) -> tuple[str, ...]:
    git_dir = find_git_dir(source)
    dirs = {str(source), str(git_dir)}
    for directory in dirs:
        if any(ch in directory for ch in '\n\r"\\\0'):
            raise GitSafeError("the folder's path holds characters git config cannot quote safely")
    return tuple(sorted(dirs))


def fetch_notes(clone_dir: Path, source: Path) -> None:
    """git notes (git-ai's refs/notes/ai and refs/notes/ai-remote/*) and git-ai's legacy
    refs/ai/authorship/* do not travel with a clone: fetch them explicitly."""
    try:
        _run(["--git-dir", str(clone_dir), "fetch", "--quiet", "--no-tags", "--", str(find_git_dir(source)),
              "+refs/notes/*:refs/notes/*", "+refs/ai/*:refs/ai/*"], env=git_env(_safe_dirs(source)))
    except GitSafeError:
        pass  # no notes is the common case


def cache_path_for(source: Path) -> Path:
    key = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:24]
    return cache_root() / "repos" / f"{key}.git"


def open_submission(folder: Path) -> SafeRepo:
    """A clean clone of the submission at its current HEAD, made or refreshed as needed."""
    folder = folder.resolve()
    head = read_head(folder)
    if head.sha is None:
        raise GitSafeError("empty repository (no commits yet)")
    target = cache_path_for(folder)
    marker = target / "review-source.json"
    if marker.is_file():
        try:
            recorded = json.loads(marker.read_text())
            if recorded.get("head") == head.sha:
                return SafeRepo(folder, target, head.sha)
        except (OSError, ValueError):
            pass
    return _fresh_clone(folder, head.sha, target)


def _fresh_clone(folder: Path, head_sha: str, target: Path) -> SafeRepo:
    check_repository(find_git_dir(folder))  # only its own objects and refs, nothing that could hang git
    env = git_env(_safe_dirs(folder))
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=target.parent))
    try:
        clone_dir = tmp / "repo.git"
        # The source is a local path we control the spelling of; "--" keeps it from being an option.
        try:
            _run(["clone", "--quiet", "--bare", "--no-local", "--no-hardlinks", "--no-tags",
                  "--template=", "--", str(find_git_dir(folder)), str(clone_dir)], env=env)
        except GitSafeError as error:
            text = str(error)
            if any(sign in text for sign in ("not our ref", "bad object", "did not send all", "corrupt")):
                raise GitSafeError(f"HEAD cannot be read: the commit it names is missing or corrupt ({text})") from None
            raise GitSafeError(f"the repository cannot be copied: {text}") from None
        env_clean = git_env()
        # The clone's HEAD follows the source's branch; pin what we saw, whatever it pointed at.
        try:
            _run(["--git-dir", str(clone_dir), "cat-file", "-e", f"{head_sha}^{{commit}}"], env=env_clean)
        except GitSafeError:
            raise GitSafeError("HEAD cannot be read: the commit it names is missing or corrupt") from None
        _run(["--git-dir", str(clone_dir), "update-ref", "--no-deref", "HEAD", head_sha], env=env_clean)
        fetch_notes(clone_dir, folder)
        (clone_dir / "review-source.json").write_text(json.dumps({"source": str(folder), "head": head_sha}))
        # Swap in atomically; a concurrent console may have done the same, which is fine.
        old = target.with_name(target.name + f".old-{os.getpid()}")
        if target.exists():
            os.rename(target, old)
        try:
            os.rename(clone_dir, target)
        except OSError:
            pass  # another process won the race with an equivalent clone
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return SafeRepo(folder, target, head_sha)
