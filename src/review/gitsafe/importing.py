"""Copying a candidate's repository into a cohort (``review import``): the same sanitised clone
as the cache's, into a folder of the cohort, with a work tree a reviewer can browse.

The source is a folder (checked like any submission: no alternates, no linked git internals, no
config includes), a git bundle, or a URL (file:// or https://). The clone is made under the
private environment of ``env.git_env`` — no hooks, no fsmonitor, symbolic links checked out as
plain files — into a temporary folder that is renamed into place only once it is whole.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

from review.gitsafe.clone import seed_from_copy
from review.gitsafe.env import GitSafeError, _run, git_env
from review.gitsafe.head import check_repository, find_git_dir, read_head, unborn_reason
from review.gitsafe.notes import safe_dirs

IMPORT_TIMEOUT_S = 600.0  # a clone over the network may take a while; never forever
BUNDLE_SIGNATURES = (b"# v2 git bundle\n", b"# v3 git bundle\n")


def is_bundle(path: Path) -> bool:
    try:
        with open(path, "rb", buffering=0) as handle:
            start = handle.read(16)
    except OSError:
        return False
    return start in BUNDLE_SIGNATURES


def local_path_of(url: str) -> Path | None:
    """The folder a file:// URL names (None for any other URL)."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    if parts.netloc not in ("", "localhost"):
        raise GitSafeError(f"a file:// URL on another host ({parts.netloc}) is not supported")
    return Path(unquote(parts.path))


def clone_into(target: Path, *, folder: Path | None = None, bundle: Path | None = None, url: str | None = None) -> str:
    """Clone one source into `target` (which must not exist); returns the HEAD commit id.
    Nothing is left at `target` when this raises."""
    if target.exists() or target.is_symlink():
        raise GitSafeError(f"{target} already exists: not overwritten")
    if folder is not None:
        head = read_head(folder)
        if head.sha is None:
            raise GitSafeError(unborn_reason(head))
        git_dir = find_git_dir(folder)
        check_repository(git_dir)  # only its own objects and refs, nothing that could hang git
        source, env = str(git_dir), git_env(safe_dirs(folder))
    elif bundle is not None:
        if not is_bundle(bundle):
            raise GitSafeError("not a git bundle (no '# v2 git bundle' or '# v3 git bundle' line)")
        source, env = str(bundle), git_env()
    elif url is not None:
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.netloc:
            raise GitSafeError(f"only file:// and https:// URLs are cloned, not {parts.scheme or 'a bare word'}:")
        if parts.username or parts.password:
            raise GitSafeError("a URL with credentials in it is refused (they would be kept in the clone's config)")
        source, env = url, {**git_env(), "GIT_ALLOW_PROTOCOL": "https"}
    else:
        raise ValueError("one of folder, bundle or url")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".import-{target.name[:40]}-", dir=target.parent))
    try:
        repo = partial / "repo"
        protocol = ["-c", "protocol.https.allow=always"] if url is not None else []
        try:
            _run(
                [*protocol, "clone", "--quiet", "--no-local", "--no-hardlinks", "--template=", "--", source, str(repo)],
                env=env,
                timeout_s=IMPORT_TIMEOUT_S,
            )
        except GitSafeError as error:
            raise GitSafeError(f"the repository cannot be copied: {error}") from None
        git = ["--git-dir", str(repo / ".git"), "--work-tree", str(repo)]
        try:
            # Notes (git-ai) and git-ai's own refs do not travel with a clone: fetch them too.
            _run(
                [
                    *protocol,
                    *git,
                    "fetch",
                    "--quiet",
                    "--no-tags",
                    "--",
                    source,
                    "+refs/notes/*:refs/notes/*",
                    "+refs/ai/*:refs/ai/*",
                ],
                env=env,
                timeout_s=IMPORT_TIMEOUT_S,
            )
        except GitSafeError:
            pass  # none is the common case
        try:
            head_sha = (
                _run([*git, "rev-parse", "--verify", "--end-of-options", "HEAD^{commit}"], env=git_env())
                .decode()
                .strip()
            )
        except GitSafeError:
            raise GitSafeError("the copy has no HEAD commit (an empty repository or bundle)") from None
        _run([*git, "remote", "remove", "origin"], env=git_env())  # the cohort keeps no link to where it came from
        try:
            # The cache's copy from this one, sharing its objects: triage does not copy it again.
            seed_from_copy(repo / ".git", target, head_sha)
        except GitSafeError:
            pass  # the first triage makes its own copy, as for any submission
        os.rename(repo, target)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return head_sha
