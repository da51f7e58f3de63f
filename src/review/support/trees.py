"""Folder trees a candidate's code shaped (a run's folder): walked and removed without recursion and
without following a link.

shutil.rmtree and os.walk recurse once per level on Python 3.11: folders nested past the recursion
limit (1,500 `mkdir`s, a second of work for the candidate) raise RecursionError, which neither
`ignore_errors` nor `onerror` catches. Here one folder is open at a time, reached from its parent by
file descriptor (a path longer than PATH_MAX is walked as any other), and the way back up is checked
to be the folder the walk came from.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Generator
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _open_folder(name: str | Path, dir_fd: int | None, unlock: bool) -> int | None:
    """The folder opened, or None when it is gone or no folder any more. `unlock`: one whose mode
    keeps its owner out (chmod 000 by the candidate's code) is given back rwx first."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        if not unlock:
            return None
    except OSError:
        return None
    try:
        # Checked just before: chmod follows a link, and only a folder is given its mode back.
        if not stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            return None
        os.chmod(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None


def _listing(fd: int, unlock: bool) -> Generator[tuple[int, str, os.stat_result | None], None, list[str]]:
    """Yields the folder's entries that are not folders; returns the names of those that are."""
    if unlock:
        try:
            os.fchmod(fd, 0o700)
        except OSError:
            pass
    try:
        with os.scandir(fd) as found:
            entries = list(found)
    except OSError:
        return []
    folders = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
                continue
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        yield fd, entry.name, info
    return folders


def walk(root: Path, unlock: bool = False) -> Generator[tuple[int, str, os.stat_result | None], None, None]:
    """Every entry below `root`, depth first: (its folder's file descriptor, its name, its lstat) for
    an entry that is not a folder, and (its parent's descriptor, its name, None) for a folder once
    everything below it was yielded. Use the descriptor before asking for the next entry. Nothing
    when `root` is no folder; entries that change meanwhile are passed over, and a walk whose way
    back up no longer leads where it came from stops there."""
    fd = _open_folder(root, None, unlock)
    if fd is None:
        return
    try:
        # The names and identities of the folders from `root` down to the one open, and for each
        # level the subfolders still to walk.
        names: list[str] = []
        identities = [_identity(fd)]
        pending = [(yield from _listing(fd, unlock))]
        while pending:
            if pending[-1]:
                name = pending[-1].pop()
                child = _open_folder(name, fd, unlock)
                if child is None:
                    continue
                os.close(fd)
                fd = child
                names.append(name)
                identities.append(_identity(fd))
                pending.append((yield from _listing(fd, unlock)))
                continue
            pending.pop()
            if not names:
                return
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            identities.pop()
            if _identity(fd) != identities[-1]:
                return
            yield fd, names.pop(), None
    finally:
        os.close(fd)


def remove(root: Path) -> None:
    """`root` and everything below it, as far as it can be removed (shutil.rmtree with ignore_errors,
    for trees of any depth and folders the candidate locked): links are removed, never followed."""
    try:
        if stat.S_ISLNK(os.lstat(root).st_mode):
            os.unlink(root)
            return
    except OSError:
        return
    try:
        for fd, name, info in walk(root, unlock=True):
            try:
                if info is None:
                    os.rmdir(name, dir_fd=fd)
                else:
                    os.unlink(name, dir_fd=fd)
            except OSError:
                continue
        os.rmdir(root)
    except OSError:
        pass
