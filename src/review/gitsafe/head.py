"""A submission's HEAD, read from its files: no git process ever runs in a submitted folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from review.gitsafe.env import _REF_NAME_RE, SHA_RE, GitSafeError


@dataclass(frozen=True)
class HeadInfo:
    git_dir: Path
    sha: str | None  # None: a repository with no commits yet
    branch: str | None


def find_git_dir(folder: Path) -> Path:
    """The git directory of a submission folder, or a GitSafeError saying why there is none."""
    dot_git = folder / ".git"
    if dot_git.is_symlink():
        raise GitSafeError("`.git` is a symbolic link; refusing to follow it")
    if dot_git.is_file():
        raise GitSafeError("`.git` is a file (a worktree or submodule link), not a repository")
    if dot_git.is_dir():
        return dot_git
    if (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
        return folder  # a bare repository handed in as is
    raise GitSafeError("not a git repository (no .git folder)")


def _read_small(path: Path, limit: int = 4096) -> str:
    if path.is_symlink():
        raise GitSafeError(f"{path.name} is a symbolic link")
    with open(path, "rb") as handle:
        return handle.read(limit).decode("utf-8", "replace")


def read_head(folder: Path) -> HeadInfo:
    """Read HEAD from the submission's files. No git process runs in the submission."""
    git_dir = find_git_dir(folder)
    try:
        head = _read_small(git_dir / "HEAD").strip()
    except FileNotFoundError:
        raise GitSafeError("HEAD is missing from the repository") from None
    except OSError as error:
        raise GitSafeError(f"HEAD cannot be read: {error.strerror}") from None
    if SHA_RE.match(head):
        return HeadInfo(git_dir, head, None)
    if not head.startswith("ref: "):
        raise GitSafeError("HEAD cannot be read: it is neither a commit id nor a ref")
    ref = head[5:].strip()
    if not _REF_NAME_RE.match(ref) or ".." in ref:
        raise GitSafeError("HEAD cannot be read: it names a malformed ref")
    branch = ref.removeprefix("refs/heads/")
    loose = git_dir / ref
    try:
        sha = _read_small(loose).strip()
        if not SHA_RE.match(sha):
            raise GitSafeError(f"HEAD cannot be read: {ref} does not hold a commit id")
        return HeadInfo(git_dir, sha, branch)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise GitSafeError(f"HEAD cannot be read: {ref} is a folder") from None
    packed = git_dir / "packed-refs"
    if packed.is_file():
        for line in _read_small(packed, 4 << 20).splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1] == ref and SHA_RE.match(parts[0]):
                return HeadInfo(git_dir, parts[0], branch)
    return HeadInfo(git_dir, None, branch)  # unborn branch: an empty repository
