"""The sanitised clone: ``git clone --bare --no-local`` of a submission into a private cache,
re-made when its HEAD moves."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from pathlib import Path

from review.gitsafe.env import GitSafeError, _run, cache_path_for, git_env
from review.gitsafe.head import check_repository, find_git_dir, read_head, refs_fingerprint, unborn_reason
from review.gitsafe.notes import NOTES_REFSPECS, fetch_notes, safe_dirs
from review.gitsafe.repo import SafeRepo
from review.support import files


def open_submission(folder: Path) -> SafeRepo:
    """A clean clone of the submission at its current HEAD, made or refreshed as needed; its notes
    are fetched again when the source's notes refs changed (git-ai pushes notes after commits)."""
    folder = folder.resolve()
    target = cache_path_for(folder)
    head = read_head(folder)
    if head.sha is None:
        raise GitSafeError(unborn_reason(head))
    repo = _made_copy(folder, target, head.sha, head.git_dir)
    if repo is not None:
        return repo
    # One copy at a time per submission, across threads and consoles (two reviewers in tmux, two
    # browser tabs): a second copy swapped in would pull the first from under the one reading it.
    with files.exclusive(target.with_name(target.name + ".lock")):
        repo = _made_copy(folder, target, head.sha, head.git_dir)
        if repo is not None:
            return repo  # made by whoever held the lock before us
        return _fresh_clone(folder, head.sha, target)


def _made_copy(folder: Path, target: Path, head_sha: str, git_dir: Path) -> SafeRepo | None:
    """The cache's copy when it stands at this HEAD, its notes fetched again if the source's notes
    refs changed; None when a copy has to be made."""
    marker = target / "review-source.json"
    recorded = _read_marker(marker)
    if recorded.get("head") != head_sha:
        return None
    notes = refs_fingerprint(git_dir)
    if notes is None or notes != recorded.get("notes"):
        # One refresh at a time per copy (threads, a second console): the one that waited finds it done.
        with files.exclusive(target / "review-notes.lock"):
            recorded = _read_marker(marker)
            if recorded.get("head") != head_sha:  # copied again meanwhile, at another HEAD
                return None
            if notes is None or notes != recorded.get("notes"):
                try:
                    check_repository(git_dir)  # the source may have changed since it was copied
                    recorded["notes_problem"] = fetch_notes(target, folder)
                except GitSafeError as error:
                    recorded["notes_problem"] = str(error)
                _write_marker(target, folder, head_sha, notes, recorded["notes_problem"])
    return SafeRepo(folder, target, head_sha, notes_problem=recorded.get("notes_problem"))


def _read_marker(marker: Path) -> dict:
    try:
        recorded = json.loads(marker.read_text())
    except (OSError, ValueError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def _write_marker(clone_dir: Path, folder: Path, head_sha: str, notes: str | None, problem: str | None) -> None:
    if problem is not None:
        notes = None  # fetched in vain: try again next time
    marker = clone_dir / "review-source.json"
    tmp = marker.with_name(f"{marker.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps({"source": str(folder), "head": head_sha, "notes": notes, "notes_problem": problem}))
    os.replace(tmp, marker)


def _clone(folder: Path, clone_dir: Path, with_notes: bool) -> None:
    # The source is a local path we control the spelling of; "--" keeps it from being an option. The
    # notes refspecs make the notes travel in the same transfer (one upload-pack, not two).
    notes = [arg for spec in NOTES_REFSPECS for arg in ("-c", f"remote.origin.fetch={spec}")] if with_notes else []
    _run(
        [
            "clone",
            "--quiet",
            "--bare",
            "--no-local",
            "--no-hardlinks",
            "--no-tags",
            "--template=",
            *notes,
            "--",
            str(find_git_dir(folder)),
            str(clone_dir),
        ],
        env=git_env(safe_dirs(folder)),
    )


def seed_from_copy(copy_git_dir: Path, folder: Path, head_sha: str) -> None:
    """The cache's copy of the submission that will stand at `folder`, made from `copy_git_dir`: a
    copy `review import` has just made itself (clone --no-local, no hooks, no template), trusted as
    the cache's own clone is. Its object files are shared by hard links (git copies them where the
    cache is on another file system), so an imported cohort is not copied a second time when it is
    triaged. Call it once the copy is final (nothing will change its refs), before it is moved to
    `folder`; the marker records what `open_submission` checks, so the first triage finds it made."""
    target = cache_path_for(folder)
    notes = refs_fingerprint(copy_git_dir)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=target.parent))
    try:
        clone_dir = tmp / "repo.git"
        fetch = [arg for spec in NOTES_REFSPECS for arg in ("-c", f"remote.origin.fetch={spec}")]
        _run(
            [
                "clone",
                "--quiet",
                "--bare",
                "--local",
                "--no-tags",
                "--template=",
                *fetch,
                "--",
                str(copy_git_dir),
                str(clone_dir),
            ],
            env=git_env(),
        )
        _run(["--git-dir", str(clone_dir), "update-ref", "--no-deref", "HEAD", head_sha], env=git_env())
        _write_marker(clone_dir, folder.resolve(), head_sha, notes, None)
        with files.exclusive(target.with_name(target.name + ".lock")):
            _swap_in(clone_dir, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _fresh_clone(folder: Path, head_sha: str, target: Path) -> SafeRepo:
    check_repository(find_git_dir(folder))  # only its own objects and refs, nothing that could hang git
    notes = refs_fingerprint(find_git_dir(folder))
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=target.parent))
    try:
        clone_dir = tmp / "repo.git"
        problem = None
        try:
            _clone(folder, clone_dir, with_notes=True)
        except GitSafeError:
            # A broken notes ref must not cost the whole submission: clone without, fetch them alone.
            shutil.rmtree(clone_dir, ignore_errors=True)
            try:
                _clone(folder, clone_dir, with_notes=False)
            except GitSafeError as error:
                text = str(error)
                if "not our ref" in text:
                    raise GitSafeError(
                        f"HEAD cannot be read: the commit it names is missing or corrupt ({text})"
                    ) from None
                if any(sign in text for sign in ("bad object", "bad tree", "did not send all", "corrupt")):
                    raise GitSafeError(
                        f"the repository is missing objects or holds corrupt ones, so it cannot be copied ({text})"
                    ) from None
                raise GitSafeError(f"the repository cannot be copied: {text}") from None
            problem = fetch_notes(clone_dir, folder)
        # The clone's HEAD follows the source's branch; pin what we saw, whatever it pointed at: a
        # detached HEAD is its id in the HEAD file (written here, as git would: no process for it).
        (clone_dir / "HEAD").write_text(head_sha + "\n", encoding="ascii")
        _write_marker(clone_dir, folder, head_sha, notes, problem)
        _swap_in(clone_dir, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    repo = SafeRepo(folder, target, head_sha, notes_problem=problem)
    # What HEAD names is asked of the process that will read the copy's objects anyway; a copy whose
    # HEAD is no commit is taken out of the cache before it is said.
    found = repo.objects.info_many([head_sha])[0]
    if found is None or found[0] != "commit":
        repo.objects.close()
        shutil.rmtree(target, ignore_errors=True)
        kind = found[0] if found else None
        raise GitSafeError(
            "HEAD cannot be read: "
            + (
                f"it names a {kind}, not a commit"
                if kind in ("blob", "tree", "tag")
                else "the commit it names is missing or corrupt"
            )
        )
    return repo


def _swap_in(clone_dir: Path, target: Path) -> None:
    """Put the finished copy in the cache's place, the copy of an older HEAD out of it. The caller
    holds the place's lock, so no other copy is swapped in meanwhile."""
    old = target.with_name(target.name + f".old-{os.getpid()}-{threading.get_ident()}")
    if target.exists():
        os.rename(target, old)
    os.rename(clone_dir, target)
    shutil.rmtree(old, ignore_errors=True)
