"""A submission's HEAD, read from its files: no git process ever runs in a submitted folder. And the
shape checks that keep the sanitised clone to the submission's own objects: no alternates (which
would pull in another repository's objects — another candidate's code under this name), no
redirection to a common or other git directory, no symbolic links among the git internals, no
FIFO or device where git expects a file (it would hang), no config that includes other files."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from review.gitsafe.env import _REF_NAME_RE, SHA_RE, GitSafeError
from review.support import files

REF_FILE_LIMIT = 4096
PACKED_REFS_LIMIT = 8 << 20
CONFIG_LIMIT = 64 * 1024
MAX_SCANNED = 200_000  # entries looked at under objects/ and refs/ before giving up with a reason
_INCLUDE = re.compile(rb"^\s*\[\s*include(?:if)?\b", re.I | re.M)


@dataclass(frozen=True)
class HeadInfo:
    git_dir: Path
    sha: str | None  # None: a repository with no commits yet
    branch: str | None


def find_git_dir(folder: Path) -> Path:
    """The git directory of a submission folder, or a GitSafeError saying why there is none."""
    dot_git = folder / ".git"
    try:
        mode = os.lstat(dot_git).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise GitSafeError(f"`.git` cannot be read: {error.strerror}") from None
    if mode is not None:
        if stat.S_ISLNK(mode):
            raise GitSafeError("`.git` is a symbolic link; refusing to follow it")
        if stat.S_ISREG(mode):
            raise GitSafeError("`.git` is a file (a worktree or submodule link), not a repository")
        if stat.S_ISDIR(mode):
            return dot_git
        raise GitSafeError(f"`.git` is {files.kind_of(mode)}, not a repository")
    if _is_dir(folder / "objects") and _is_dir(folder / "refs") and (folder / "HEAD").exists():
        return folder  # a bare repository handed in as is
    raise GitSafeError("not a git repository (no .git folder)")


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _read_small(path: Path, limit: int = REF_FILE_LIMIT) -> str:
    try:
        data, cut = files.read_regular(path, limit)
    except files.NotRegular as error:
        raise GitSafeError(f"HEAD cannot be read: {error}") from None
    if cut:
        raise GitSafeError(f"HEAD cannot be read: {path.name} is larger than {limit} bytes")
    return data.decode("utf-8", "replace")


def _no_links_below(git_dir: Path, relative: str) -> None:
    """Every component of `relative` under the git directory is itself, not a link elsewhere."""
    # Joined as strings: a warm cohort of 1,000 reads 1,000 HEADs, and Path's joins were most of it.
    here = str(git_dir)
    for part in Path(relative).parts[:-1]:
        here = os.path.join(here, part)
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            below = os.path.relpath(here, git_dir)
            raise GitSafeError(f"HEAD cannot be read: {below} is a symbolic link; not followed")


def read_head(folder: Path) -> HeadInfo:
    """Read HEAD from the submission's files. No git process runs in the submission."""
    git_dir = find_git_dir(folder)
    try:
        head = _read_small(git_dir / "HEAD").strip()
    except FileNotFoundError:
        raise GitSafeError("HEAD is missing from the repository") from None
    except OSError as error:
        raise GitSafeError(f"HEAD cannot be read: {error.strerror or error}") from None
    if SHA_RE.match(head):
        return HeadInfo(git_dir, head, None)
    if not head.startswith("ref: "):
        raise GitSafeError("HEAD cannot be read: it is neither a commit id nor a ref")
    ref = head[5:].strip()
    if not _REF_NAME_RE.match(ref) or ".." in ref:
        raise GitSafeError("HEAD cannot be read: it names a malformed ref")
    branch = ref.removeprefix("refs/heads/")
    _no_links_below(git_dir, ref)
    try:
        sha = _read_small(git_dir / ref).strip()
        if not SHA_RE.match(sha):
            raise GitSafeError(f"HEAD cannot be read: {ref} does not hold a commit id")
        return HeadInfo(git_dir, sha, branch)
    except FileNotFoundError:
        pass
    except OSError as error:  # a folder in its place (EISDIR), a path through a file (ENOTDIR), …
        raise GitSafeError(f"HEAD cannot be read: {ref}: {error.strerror or error}") from None
    try:
        packed = _read_small(git_dir / "packed-refs", PACKED_REFS_LIMIT)
    except FileNotFoundError:
        packed = ""
    except OSError as error:
        raise GitSafeError(f"HEAD cannot be read: packed-refs: {error.strerror or error}") from None
    for line in packed.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1] == ref and SHA_RE.match(parts[0]):
            return HeadInfo(git_dir, parts[0], branch)
    return HeadInfo(git_dir, None, branch)  # unborn branch: an empty repository


def walk(
    top: Path,
    on_error: Callable[[str, OSError], None] | None = None,
) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk(top) as it walks by default (top down, a link to a folder listed but not entered, a
    folder that cannot be listed handed to `on_error` — one that is gone, passed over), with a
    stack instead of recursion: the candidate chooses how deep the folders under objects/ and refs/
    go, and os.walk recurses once per level on Python 3.11 (RecursionError past 1,000). Sorting
    `dirs` in place orders the walk, as there."""
    stack = [str(top)]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as found:
                entries = list(found)
        except FileNotFoundError:
            continue
        except OSError as error:
            if on_error is not None:
                on_error(root, error)
            continue
        dirs: list[str] = []
        names: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else names).append(entry.name)
        yield root, dirs, names
        stack.extend(
            os.path.join(root, name) for name in reversed(dirs) if not os.path.islink(os.path.join(root, name))
        )


def _unreadable(name: str, error: OSError) -> str:
    return f"{name} cannot be read ({error.strerror or error}), so the repository cannot be checked or copied"


def unborn_reason(head: HeadInfo) -> str:
    """Why a HEAD that names no commit has nothing to read: an empty repository, or a branch that
    does not exist while others do (HEAD left on a branch never made, the work pushed elsewhere)."""
    names = branch_names(head.git_dir)
    if not names or head.branch is None:
        return "empty repository (no commits yet)"
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"HEAD names the branch {head.branch}, which does not exist (the repository's branches: {shown}); "
        "nothing to read at HEAD"
    )


def branch_names(git_dir: Path, limit: int = 1000) -> list[str]:
    """The branches under refs/heads (loose ref files, no link followed) and in packed-refs, by name;
    at most `limit` looked at."""
    found: set[str] = set()
    heads = git_dir / "refs" / "heads"
    for root, _dirs, names in [] if os.path.islink(heads) else walk(heads):
        for name in names:
            ref = Path(root, name).relative_to(git_dir).as_posix()
            if _REF_NAME_RE.match(ref) and stat.S_ISREG(os.lstat(Path(root, name)).st_mode):
                found.add(ref.removeprefix("refs/heads/"))
        if len(found) >= limit:
            break
    try:
        packed = _read_small(git_dir / "packed-refs", PACKED_REFS_LIMIT)
    except (OSError, GitSafeError):
        packed = ""
    for line in packed.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1].startswith("refs/heads/") and _REF_NAME_RE.match(parts[1]):
            found.add(parts[1].removeprefix("refs/heads/"))
    return sorted(found)[:limit]


def refs_from_files(git_dir: Path, prefixes: tuple[str, ...]) -> dict[str, str] | None:
    """Ref name -> object id for the refs under `prefixes` ("refs/notes/"), read from the loose ref
    files and packed-refs of a copy git made (no git process; a loose ref wins over its packed line,
    as in git). None on anything a plain reading cannot settle (a symbolic ref, an odd file, a
    packed-refs past its limit): the caller asks git."""
    found: dict[str, str] = {}
    try:
        packed = _read_small(git_dir / "packed-refs", PACKED_REFS_LIMIT)
    except FileNotFoundError:
        packed = ""
    except (OSError, GitSafeError):
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name.startswith(prefixes) and SHA_RE.match(sha):
            found[name] = sha
    for prefix in prefixes:
        top = git_dir / prefix.rstrip("/")
        if os.path.islink(top):
            return None
        for root, _dirs, names in walk(top):
            for name in names:
                ref = Path(root, name).relative_to(git_dir).as_posix()
                try:
                    data, cut = files.read_regular(Path(root, name), REF_FILE_LIMIT)
                except (OSError, files.NotRegular):
                    return None
                sha = data.decode("ascii", "replace").strip()
                if cut or not SHA_RE.match(sha) or not _REF_NAME_RE.match(ref) or ref.endswith(".lock"):
                    return None
                found[ref] = sha
    return found


def check_repository(git_dir: Path, deep: bool = True) -> None:
    """Refuse, with the reason, a repository whose objects or refs could come from elsewhere or whose
    files could hang git. Run before every clone. `deep=False` leaves out the walk over every object
    file (the warm triage row, which runs no git: the walk was 75% of its cost)."""
    _check_named_files(git_dir)
    if deep:
        _check_every_object_file(git_dir)


def _check_named_files(git_dir: Path) -> None:
    """The files and folders git reads by name: none pointing elsewhere, each of its own kind, and a
    config that includes no other file."""
    base = os.fspath(git_dir)  # joined as strings: a warm triage checks 16 names for each row
    for name in ("objects/info/alternates", "objects/info/http-alternates", "commondir", "gitdir"):
        if os.path.lexists(os.path.join(base, name)):
            raise GitSafeError(
                f"refused: the repository has {name}, which would read objects or refs from "
                "another repository (another candidate's code could show under this name)"
            )
    for name in ("objects", "refs", "objects/pack", "objects/info", "refs/heads", "refs/tags", "refs/notes"):
        try:
            mode = os.lstat(os.path.join(base, name)).st_mode
        except FileNotFoundError:
            continue
        except OSError as error:
            raise GitSafeError(_unreadable(name, error)) from None
        if not stat.S_ISDIR(mode):
            raise GitSafeError(f"refused: {name} is {files.kind_of(mode)}, not the repository's own folder")
    for name in ("HEAD", "config", "packed-refs", "shallow", "info/grafts"):
        try:
            mode = os.lstat(os.path.join(base, name)).st_mode
        except FileNotFoundError:
            continue
        except OSError as error:
            raise GitSafeError(_unreadable(name, error)) from None
        if not stat.S_ISREG(mode):
            raise GitSafeError(f"refused: {name} is {files.kind_of(mode)}, not a file (git would follow it or hang)")
    try:
        config, _ = files.read_regular(git_dir / "config", CONFIG_LIMIT)
    except FileNotFoundError:
        config = b""
    except OSError as error:
        raise GitSafeError(_unreadable("config", error)) from None
    if _INCLUDE.search(config):
        raise GitSafeError(
            "refused: the repository's config includes other files ([include]/[includeIf]), "
            "which git would read while copying it"
        )


def _check_every_object_file(git_dir: Path) -> None:
    """Every entry under objects/ and refs/ a folder or a plain file: no link into another repository,
    no fifo or device git would hang on."""

    def unlisted(path: str, error: OSError) -> None:
        # A folder git may still pass through (mode 711) while what it holds cannot be checked.
        raise GitSafeError(_unreadable(Path(path).relative_to(git_dir).as_posix(), error))

    seen = 0
    for top in ("objects", "refs"):
        for root, dirs, names in walk(git_dir / top, on_error=unlisted):
            for entry in (*dirs, *names):
                seen += 1
                if seen > MAX_SCANNED:
                    raise GitSafeError(f"refused: more than {MAX_SCANNED} entries under objects/ and refs/")
                try:
                    mode = os.lstat(os.path.join(root, entry)).st_mode
                except FileNotFoundError:
                    continue
                except OSError as error:
                    unlisted(os.path.join(root, entry), error)
                if stat.S_ISLNK(mode):
                    where = Path(root, entry).relative_to(git_dir)
                    raise GitSafeError(f"refused: {where} is a symbolic link (it could point into another repository)")
                if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                    where = Path(root, entry).relative_to(git_dir)
                    raise GitSafeError(f"refused: {where} is {files.kind_of(mode)} (git would hang on it)")


MAX_FINGERPRINT_REFS = 20_000


def refs_fingerprint(git_dir: Path, prefixes: tuple[str, ...] = ("refs/notes", "refs/ai")) -> str | None:
    """A digest of the refs under `prefixes` (loose ref files, read without following links) and of
    packed-refs' size and time: what git-ai's notes are, read from files, no git process. None when it
    cannot be told (too many refs, an odd file): the caller then computes afresh."""
    import hashlib

    digest = hashlib.sha256()
    try:
        info = os.lstat(git_dir / "packed-refs")
        digest.update(f"packed {info.st_size} {info.st_mtime_ns}\n".encode())
    except FileNotFoundError:
        pass
    except OSError:
        return None
    count = 0
    for prefix in prefixes:
        top = git_dir / prefix
        if os.path.islink(top):
            return None
        for root, dirs, names in walk(top):
            dirs.sort()
            for name in sorted(names):
                count += 1
                if count > MAX_FINGERPRINT_REFS:
                    return None
                path = Path(root) / name
                try:
                    data, cut = files.read_regular(path, 256)
                except (OSError, files.NotRegular):
                    return None
                if cut:
                    return None
                digest.update(f"{path.relative_to(git_dir)} ".encode() + data.strip() + b"\n")
    return digest.hexdigest()
