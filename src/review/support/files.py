"""Reading files a candidate may have shaped: regular files only, never through a symbolic link,
never blocking, never more than asked for.

A FIFO or a terminal in place of HEAD, a ref or a score file would block a plain ``open().read()``
forever; a symbolic link could point at another candidate's data; a huge file would fill memory.
Here the file is opened non-blocking without following a final link, checked with ``fstat`` to be a
regular file, and read up to `limit` bytes.
"""

from __future__ import annotations

import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class NotRegular(OSError):
    """The path is something other than a regular file: its message says what."""


class TooLarge(OSError):
    """A file larger than the reader accepts."""


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def read_regular(path: Path, limit: int) -> tuple[bytes, bool]:
    """(up to `limit` bytes, whether the file was longer). FileNotFoundError when absent; NotRegular
    for a link, FIFO, device, socket or folder; other OSErrors as they come."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == 40:  # ELOOP: the final component is a symbolic link (O_NOFOLLOW)
            raise NotRegular(f"{path.name} is a symbolic link; not followed") from None
        if error.errno == 6:  # ENXIO: a FIFO with no writer (non-blocking open) or a socket
            raise NotRegular(f"{path.name} is a FIFO or socket, not a file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(f"{path.name} is {kind_of(info.st_mode)}, not a file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return data[:limit], len(data) > limit
    finally:
        os.close(fd)


def read_text(path: Path, limit: int) -> str:
    """A small regular file as text (invalid UTF-8 replaced); TooLarge past `limit` bytes."""
    data, cut = read_regular(path, limit)
    if cut:
        raise TooLarge(f"{path.name} is larger than {limit} bytes")
    return data.decode("utf-8", "replace")


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """`data` at `path`, whole or not at all: written into a temp file in the same folder with `mode`,
    then renamed over it. A failed write (a full disk) leaves no temp file behind."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)  # mkstemp makes 0600 whatever the caller wants
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def exclusive(lock_path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on `lock_path` (made if missing, with its folder), held while the block
    runs: threads and processes alike wait their turn (each takes its own open of the file)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
