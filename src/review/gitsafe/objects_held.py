"""Which objects a submitted repository holds, read from its object files: no git runs in it.

A commit that no ref reaches (the one a squash or an amend replaced, kept by the reflog) is not copied
by the clone. Before asking the submission's git for such commits, we look for them in its own files
(a loose object, or a pack's index, version 1 or 2), so the one request names only commits it holds
(git refuses a whole request for one it lacks). Every file is read without following links, with a
bound on how many are looked at; anything odd reads as "not held".
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

from review.gitsafe.env import SHA_RE

MAX_PACKS = 1000  # pack indexes looked at; past this, the answer is None (cannot be told)
_V2 = b"\377tOc"


def _open_regular(path: Path) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _read_exact(fd: int, size: int, offset: int) -> bytes | None:
    data = os.pread(fd, size, offset)
    return data if len(data) == size else None


class _PackIndex:
    """One pack's .idx: the fan-out table, and where the sorted object ids start."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.valid = False
        header = _read_exact(fd, 8, 0)
        if header is None:
            return
        if header[:4] == _V2:
            if struct.unpack(">I", header[4:])[0] != 2:
                return
            self.fanout_at, self.ids_at, self.entry, self.id_offset = 8, 8 + 1024, 20, 0
        else:
            self.fanout_at, self.ids_at, self.entry, self.id_offset = 0, 1024, 24, 4
        raw = _read_exact(fd, 1024, self.fanout_at)
        if raw is None:
            return
        self.fanout = struct.unpack(">256I", raw)
        size = os.fstat(fd).st_size
        if (
            any(a > b for a, b in zip(self.fanout, self.fanout[1:]))
            or self.ids_at + self.fanout[255] * self.entry > size
        ):
            return
        self.valid = True

    def holds(self, sha: bytes) -> bool:
        """A binary search among the ids that share its first byte: a few 20-byte reads."""
        first = sha[0]
        low = self.fanout[first - 1] if first else 0
        high = self.fanout[first]
        while low < high:
            middle = (low + high) // 2
            found = _read_exact(self.fd, 20, self.ids_at + middle * self.entry + self.id_offset)
            if found is None:
                return False
            if found == sha:
                return True
            if found < sha:
                low = middle + 1
            else:
                high = middle
        return False


def held(git_dir: Path, shas: list[str]) -> set[str] | None:
    """The ids among `shas` (full hex ids) whose objects the repository at `git_dir` holds; None when
    that cannot be told (more pack indexes than MAX_PACKS)."""
    wanted = [sha for sha in dict.fromkeys(shas) if SHA_RE.match(sha)]
    found: set[str] = set()
    objects = git_dir / "objects"
    for sha in wanted:
        try:
            if stat.S_ISREG(os.lstat(objects / sha[:2] / sha[2:]).st_mode):
                found.add(sha)
        except OSError:
            continue
    left = [sha for sha in wanted if sha not in found]
    if not left:
        return found
    try:
        names = sorted(entry.name for entry in os.scandir(objects / "pack") if entry.name.endswith(".idx"))
    except OSError:
        return found
    if len(names) > MAX_PACKS:
        return None
    for name in names:
        fd = _open_regular(objects / "pack" / name)
        if fd is None:
            continue
        try:
            index = _PackIndex(fd)
            if index.valid:
                for sha in left:
                    if index.holds(bytes.fromhex(sha)):
                        found.add(sha)
        except OSError:
            pass
        finally:
            os.close(fd)
        left = [sha for sha in left if sha not in found]
        if not left:
            break
    return found
