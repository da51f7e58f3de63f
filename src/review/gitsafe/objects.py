"""Objects of a clean clone through one persistent ``git cat-file --batch-command``: contents, sizes,
and the files a tree lists, all from the one process a submission's reading keeps open."""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from review.gitsafe.env import GitSafeError

if TYPE_CHECKING:
    # Imported where it is used: gitdb is 10 ms of imports, which a warm triage never needs.
    from review.gitsafe.packs import LocalObjects


@dataclass
class FileEntry:
    path: str
    mode: str
    kind: str  # blob, tree, commit (submodule)
    size: int | None
    oid: str = ""  # the object id: equal ids, equal contents


# A tree lists more than this, all folders counted: refused with the reason (a few identical
# folders nested in each other name millions of files from a few kilobytes of objects).
MAX_TREE_ENTRIES = 200_000


def _write_all(stream, data: bytes) -> None:
    try:
        stream.write(data)
        stream.flush()
    except (OSError, ValueError):
        pass  # git ended: the reader says why


class ObjectReader:
    """One persistent ``git cat-file --batch-command`` on a clean clone: many objects, one process.

    Objects are named ``<commit>:<path>`` or by id. A name with a line break cannot be asked for
    (the protocol is line-based), so it reads as missing. Each answer is read to its end even past
    `limit` (what is past it is discarded), so the stream stays in step; a lock makes it safe to
    share between threads; the process ends with the repository object or with ``close()``.
    """

    def __init__(self, git_dir: Path, env: dict[str, str], timeout_s: float = 30.0) -> None:
        self.git_dir, self.env, self.timeout_s = git_dir, env, timeout_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        # git's answers read and not yet taken: from `_at` on (an offset, so taking an answer never
        # copies what follows it: 4,000 notes in one 64 KB read were 4,000 copies of the rest).
        self._buffer = b""
        self._at = 0
        # Read objects from the clone's own files first, in this process (`local_first`): for many
        # clones each read for a few objects, where a process each costs more than the reading. Off
        # by default: git's batch keeps the delta bases it resolved, which a long history's many
        # reads need. `_local`: None not tried yet, False git reads them.
        self.local_first = False
        self._local: LocalObjects | Literal[False] | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                ["git", "--git-dir", str(self.git_dir), "cat-file", "--batch-command"],
                env=self.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            self._buffer, self._at = b"", 0
            weakref.finalize(self, _end_process, self._proc)
        return self._proc

    def close(self) -> None:
        with self._lock:
            if self._local:  # a LocalObjects (False: git reads them; None: not tried)
                self._local.close()
            self._local = None
            if self._proc is not None:
                _end_process(self._proc)
                self._proc = None

    def _fill(self, proc: subprocess.Popen[bytes], deadline: float) -> None:
        assert proc.stdout is not None
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(remaining, 0))
        if not ready:
            raise GitSafeError(f"git took longer than {self.timeout_s:g} s to read an object")
        chunk = os.read(proc.stdout.fileno(), 1 << 16)
        if not chunk:
            raise GitSafeError("git stopped while reading objects")
        self._buffer, self._at = self._buffer[self._at :] + chunk, 0

    def read(self, name: str, limit: int | None = None) -> tuple[str, bytes, int] | None:
        """(type, data up to `limit`, full size) of an object, or None when there is no such object."""
        return self.read_many([name], limit)[0]

    def read_many(self, names: list[str], limit: int | None = None) -> list[tuple[str, bytes, int] | None]:
        """Each object's (type, data, size) or None, in order; the names are written while the answers
        are read (one round trip per object made 5,000 notes cost 0.4 s; a batch costs what git does)."""
        return self._ask(b"contents ", names, limit)

    def info_many(self, names: list[str]) -> list[tuple[str, bytes, int] | None]:
        """Each object's (type, b"", size) or None, in order: what it is, none of its bytes read."""
        return self._ask(b"info ", names, None)

    def _ask(self, command: bytes, names: list[str], limit: int | None) -> list[tuple[str, bytes, int] | None]:
        # A name with a line break cannot be asked for (the protocol is line-based): it reads as missing.
        asked = [index for index, name in enumerate(names) if not any(c in name for c in "\n\r\0")]
        results: list[tuple[str, bytes, int] | None] = [None] * len(names)
        if not asked:
            return results
        with_contents = command == b"contents "
        with self._lock:
            asked = self._read_here(names, asked, results, limit, with_contents)
            if not asked:
                return results
            proc = self._start()
            assert proc.stdin is not None
            request = b"".join(command + names[index].encode("utf-8", "surrogateescape") + b"\n" for index in asked)
            writer = None
            if len(request) <= select.PIPE_BUF:  # fits in the pipe at once (one object, most reads)
                _write_all(proc.stdin, request)
            else:  # a thread: git stops reading names while its answers wait in a full pipe
                writer = threading.Thread(
                    target=_write_all, args=(proc.stdin, request), daemon=True, name="cat-file-requests"
                )
                writer.start()
            try:
                for index in asked:
                    results[index] = self._answer(proc, limit, with_contents)
            except (OSError, GitSafeError):
                _end_process(proc)  # out of step or gone: the next read starts a fresh one
                self._proc = None
                raise
            finally:
                if writer is not None:
                    writer.join(timeout=self.timeout_s)
        return results

    def _read_here(
        self, names: list[str], asked: list[int], results: list, limit: int | None, with_contents: bool
    ) -> list[int]:
        """Answer what the clone's own files hold (an object id, or `<commit>^{tree}`) in this process;
        what is left, for git."""
        if not self.local_first:
            return asked
        if self._local is None:
            from review.gitsafe.packs import LocalObjects

            self._local = LocalObjects.open(self.git_dir) or False
        local = self._local
        if not local:
            return asked
        left = []
        for index in asked:
            name = names[index]
            found = local.read(name[:-7]) if name.endswith("^{tree}") else local.read(name)
            if found is not None and name.endswith("^{tree}"):
                tree = found[1][5:45].decode("ascii", "replace") if found[0] == "commit" else ""
                found = local.read(tree) if found[1].startswith(b"tree ") else None
            if found is None:
                left.append(index)
            else:
                kind, data = found
                kept = data if limit is None else data[:limit]
                results[index] = (kind, kept if with_contents else b"", len(data))
        return left

    def _answer(
        self, proc: subprocess.Popen[bytes], limit: int | None, with_contents: bool
    ) -> tuple[str, bytes, int] | None:
        deadline = time.monotonic() + self.timeout_s  # per object, as when they were asked one by one
        newline = self._buffer.find(b"\n", self._at)
        while newline < 0:
            self._fill(proc, deadline)
            newline = self._buffer.find(b"\n", self._at)
        header, self._at = self._buffer[self._at : newline], newline + 1
        parts = header.split()
        if len(parts) != 3 or not parts[2].isdigit():
            return None  # "<name> missing" or "ambiguous"
        kind, size = parts[1].decode(), int(parts[2])
        if not with_contents:
            return kind, b"", size
        keep = size if limit is None else min(size, limit)
        left = size + 1  # the content, then a line feed
        if len(self._buffer) - self._at >= left:  # all read already (most notes): one copy
            data = self._buffer[self._at : self._at + keep]
            self._at += left
            return kind, data, size
        pieces = bytearray()
        while left:
            if self._at >= len(self._buffer):
                self._fill(proc, deadline)
            end = min(len(self._buffer), self._at + left)
            if len(pieces) < keep:
                pieces += self._buffer[self._at : min(end, self._at + keep - len(pieces))]
            left -= end - self._at
            self._at = end
        return kind, bytes(pieces), size

    def files(self, tree: str, width: int) -> list[FileEntry]:
        """Every file under `tree` (a tree-ish: ``<commit>^{tree}``), in the order and with the modes,
        kinds and sizes ``git ls-tree -r --long`` gives, read through this process: its folders a level
        at a time, the files' sizes in one batch. `width`: an object id's bytes (20, or 32 for SHA-256)."""
        root = self.read(tree)
        if root is None or root[0] != "tree":
            raise GitSafeError(f"no tree at {tree.split('^')[0][:12]}")
        # Each folder's entries by its id (the top one by ""), read a level at a time.
        listed = {"": tree_entries(root[1], width)}
        level = [""]
        while level:
            wanted = sorted(
                {oid for folder in level for mode, _, oid in listed[folder] if _is_folder(mode) and oid not in listed}
            )
            for oid, found in zip(wanted, self.read_many(wanted), strict=True):
                if found is None or found[0] != "tree":
                    raise GitSafeError(f"a folder's tree {oid[:12]} is missing from the copy or is no tree")
                listed[oid] = tree_entries(found[1], width)
            level = wanted
        # Depth first, a folder's files where the folder stands, as git lists them. One folder can
        # stand in many places: what is counted is what is listed.
        rows: list[tuple[str, str, str]] = []
        stack = [("", iter(listed[""]))]
        while stack:
            prefix, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                continue
            mode, name, oid = entry
            if len(rows) + len(stack) > MAX_TREE_ENTRIES:
                raise GitSafeError(f"refused: the tree lists more than {MAX_TREE_ENTRIES:,} files and folders")
            if _is_folder(mode):
                stack.append((f"{prefix}{_shown(name)}/", iter(listed[oid])))
            else:
                rows.append((prefix + _shown(name), mode, oid))
        blobs = sorted({oid for _, mode, oid in rows if not _is_submodule(mode)})
        sizes = {oid: found[2] for oid, found in zip(blobs, self.info_many(blobs), strict=True) if found is not None}
        return [
            FileEntry(
                path,
                f"{_canonical(mode):06o}",
                "commit" if _is_submodule(mode) else "blob",
                None if _is_submodule(mode) else sizes.get(oid),
                oid,
            )
            for path, mode, oid in rows
        ]


def _shown(name: bytes) -> str:
    # As the ls-tree reading did: a name that is not UTF-8 keeps its place, its odd bytes replaced.
    return name.decode("utf-8", "replace")


def _canonical(mode: str) -> int:
    """The mode as git reads a tree entry (and ls-tree prints it): a file 100644 or 100755 by its
    owner's execute bit (old repositories hold 100664), a link, a folder; anything else a submodule."""
    value = int(mode, 8)
    kind = value & 0o170000
    if kind == 0o100000:
        return 0o100755 if value & 0o100 else 0o100644
    if kind in (0o120000, 0o040000):
        return kind
    return 0o160000


def _is_folder(mode: str) -> bool:
    return _canonical(mode) == 0o040000


def _is_submodule(mode: str) -> bool:
    return _canonical(mode) == 0o160000


def tree_entries(data: bytes, width: int) -> list[tuple[str, bytes, str]]:
    """A tree object's (mode, name as stored, id) entries: "<mode> <name>\\0<binary id>" one after another."""
    entries = []
    at, end = 0, len(data)
    while at < end:
        space = data.find(b" ", at)
        nul = data.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 1 + width > end:
            raise GitSafeError("a tree object of the copy cannot be read")
        mode = data[at:space].decode("ascii", "replace")
        if not mode or len(mode) > 7 or any(c not in "01234567" for c in mode):
            raise GitSafeError("a tree object of the copy cannot be read")
        entries.append((mode, data[space + 1 : nul], data[nul + 1 : nul + 1 + width].hex()))
        at = nul + 1 + width
    return entries


def _end_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()
