"""The score file's lock: an exclusive ``flock`` on the sidecar ``<file>.lock``.

The sidecar is never replaced (locking the data file itself loses updates once it is replaced),
never followed through a link, and created so the pair's other reviewer can lock it too.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_TIMEOUT = 30.0  # a save waits this long for others (each takes milliseconds)
FILE_MODE = 0o664


class StoreError(Exception):
    """Saving failed; the message says why, and the review is still in the form (the store's
    error, defined here because taking the lock is the first way a save can fail)."""


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT, on_wait: Callable[[float], None] | None = None) -> Iterator[None]:
    """An exclusive lock on the sidecar `<path>.lock` (never replaced, so the lock means something).

    The wait is the kernel's blocking flock, not a polling loop: writers are served as the lock
    frees, none starves. `on_wait(seconds)` is called once a second while waiting (a progress
    message); past `timeout` the save is refused with the reason."""
    lock_path = path.with_name(path.name + ".lock")
    fd = _open_lock(path, lock_path)
    acquired = threading.Event()
    failure: list[OSError] = []
    # Whoever comes second closes the descriptor — the waiting thread once it has the lock, or this
    # side once it gives up — decided under one mutex, so it is closed exactly once and never leaks.
    decided = threading.Lock()
    given_up = False

    def wait() -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as error:
            failure.append(error)
        with decided:
            acquired.set()
            if given_up:
                os.close(fd)  # given up on: the lock (if taken) is released at once

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        threading.Thread(target=wait, name="score-lock", daemon=True).start()
        started = time.monotonic()
        while not acquired.wait(1.0):
            waited = time.monotonic() - started
            if waited > timeout:
                with decided:
                    given_up = not acquired.is_set()
                if given_up:
                    raise StoreError(
                        f"{path.name} is locked by another save for over {timeout:g} s "
                        "(your review is still in the form)"
                    ) from None
                break  # it was taken just now: go on with it
            if on_wait:
                on_wait(waited)
        if failure:
            os.close(fd)
            raise StoreError(f"{lock_path.name} cannot be locked: {failure[0].strerror}") from None
    try:
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _open_lock(path: Path, lock_path: Path) -> int:
    """The lock file, opened without following links; created readable and writable by the group
    (a pair shares a setgid folder: the second reviewer must be able to lock it too)."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
    except PermissionError:
        raise StoreError(_permission_problem(path, lock_path)) from None
    except OSError as error:
        if error.errno == errno.ELOOP:  # a symbolic link in the lock's place
            raise StoreError(
                f"{lock_path.name} is a symbolic link; not followed (your review is still in the form)"
            ) from None
        raise StoreError(
            f"cannot write in {path.parent}: {error.strerror} (cannot create {lock_path.name}); "
            "your review is still in the form"
        ) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise StoreError(f"{lock_path.name} is not a regular file; not locking through it")
    if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) != FILE_MODE:
        try:
            os.fchmod(fd, FILE_MODE)  # the umask took the group's write bit: give it back
        except OSError:
            pass
    return fd


def _permission_problem(path: Path, lock_path: Path) -> str:
    """Why the lock cannot be opened, named: the folder, or a lock file another reviewer made."""
    try:
        info = os.stat(lock_path, follow_symlinks=False)
    except OSError:
        return (
            f"cannot write in {path.parent}: permission denied (the folder is read-only for you); "
            "your review is still in the form"
        )
    return (
        f"{lock_path.name} belongs to user {info.st_uid} with mode {stat.S_IMODE(info.st_mode):04o}, which you "
        f"cannot write: ask its owner to run `chmod g+w {lock_path}` (pair review needs a shared group and a "
        "setgid folder; see pair review in docs/scoring.md); your review is still in the form"
    )
