"""Objects of a clean clone read in this process by gitdb (GitPython's object database: loose objects,
packs and their deltas): a cohort read for its fingerprints asks for about ten objects of each of a
thousand clones, and a `git cat-file` started for each cost more than the reading. Only for the clones
git made (never a submitted folder's files). Anything not found, large or odd here is None: the caller
asks git."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

from gitdb import GitDB
from gitdb.exc import ODBError
from gitdb.util import mman

# Past this size an object is git's to read (gitdb holds a delta's result whole in memory).
MAX_SIZE = 16 << 20
# What gitdb raises on files it cannot read (a short index, a bad delta): the object is git's to read.
UNREADABLE = (OSError, ValueError, ODBError, struct.error, zlib.error, IndexError, KeyError, AssertionError, TypeError)
# More packs than this: a clone git did not make (ours are repacked once), left to git.
MAX_PACKS = 16


class LocalObjects:
    """Read objects by id from a clone's files. `read` gives (type, data) or None."""

    def __init__(self, git_dir: Path) -> None:
        packs = [name for name in os.listdir(git_dir / "objects" / "pack") if name.endswith(".idx")]
        if len(packs) > MAX_PACKS:
            raise ValueError("packs")
        self.db = GitDB(str(git_dir / "objects"))

    @classmethod
    def open(cls, git_dir: Path) -> LocalObjects | None:
        try:
            return cls(git_dir)
        except (OSError, ValueError, ODBError):
            return None

    def close(self) -> None:
        self.db = None
        # gitdb's files stay mapped in one manager for the process: free what no reader holds now.
        mman.collect()

    def read(self, oid: str) -> tuple[str, bytes] | None:
        """(type, data) of the object with this full id, None when not read here."""
        if self.db is None:
            return None
        try:
            binsha = bytes.fromhex(oid)
            if len(binsha) != 20 or self.db.info(binsha).size > MAX_SIZE:
                return None
            stream = self.db.stream(binsha)
            return stream.type.decode("ascii"), stream.read()
        except UNREADABLE:
            return None
