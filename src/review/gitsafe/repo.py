"""The clean clone's read-only operations: log, diff, blame, notes, and objects through one
persistent ``cat-file --batch``. Revisions are validated ids and options end before anything the
candidate chose."""

from __future__ import annotations

import os
import re
import select
import subprocess
import threading
import time
import weakref
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path

from review.core.git_paths import unquote_path
from review.core.text import safe_line
from review.gitsafe import notes
from review.gitsafe.env import (
    _BLAME_HEADER,
    _REF_NAME_RE,
    EMPTY_TREE,
    EMPTY_TREE_SHA256,
    FIELD_SEP,
    RECORD_SEP,
    SHA_RE,
    GitSafeError,
    _run,
    git_env,
    run_capped,
    stream_lines,
)


@dataclass
class Commit:
    sha: str
    parents: tuple[str, ...]
    author_name: str
    author_email: str
    author_date: str  # ISO 8601 strict, as git prints it
    committer_name: str
    committer_email: str
    message: str  # raw and untrusted: sanitise before display

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


@dataclass
class FileEntry:
    path: str  # raw and untrusted
    mode: str
    kind: str  # blob, tree, commit (submodule)
    size: int | None
    oid: str = ""  # the object id: equal ids, equal contents


def _write_all(stream, data: bytes) -> None:
    try:
        stream.write(data)
        stream.flush()
    except (OSError, ValueError):
        pass  # git ended: the reader says why


class ObjectReader:
    """One persistent ``git cat-file --batch`` on a clean clone: many objects, one process.

    Objects are named ``<commit>:<path>`` or by id. A name with a line break cannot be asked for
    (the protocol is line-based), so it reads as missing. Each answer is read to its end even past
    `limit` (what is past it is discarded), so the stream stays in step; a lock makes it safe to
    share between threads; the process ends with the repository object or with ``close()``.
    """

    def __init__(self, git_dir: Path, env: dict[str, str], timeout_s: float = 30.0) -> None:
        self.git_dir, self.env, self.timeout_s = git_dir, env, timeout_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._buffer = b""

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(["git", "--git-dir", str(self.git_dir), "cat-file", "--batch"],
                                          env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL)
            self._buffer = b""
            weakref.finalize(self, _end_process, self._proc)
        return self._proc

    def close(self) -> None:
        with self._lock:
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
        self._buffer += chunk

    def read(self, name: str, limit: int | None = None) -> tuple[str, bytes, int] | None:
        """(type, data up to `limit`, full size) of an object, or None when there is no such object."""
        return self.read_many([name], limit)[0]

    def read_many(self, names: list[str], limit: int | None = None) -> list[tuple[str, bytes, int] | None]:
        """Each object's (type, data, size) or None, in order; the names are written while the answers
        are read (one round trip per object made 5,000 notes cost 0.4 s; a batch costs what git does)."""
        # A name with a line break cannot be asked for (the protocol is line-based): it reads as missing.
        asked = [index for index, name in enumerate(names) if not any(c in name for c in "\n\r\0")]
        results: list[tuple[str, bytes, int] | None] = [None] * len(names)
        if not asked:
            return results
        with self._lock:
            proc = self._start()
            assert proc.stdin is not None
            request = b"".join(names[index].encode("utf-8", "surrogateescape") + b"\n" for index in asked)
            writer = None
            if len(request) <= select.PIPE_BUF:  # fits in the pipe at once (one object, most reads)
                _write_all(proc.stdin, request)
            else:  # a thread: git stops reading names while its answers wait in a full pipe
                writer = threading.Thread(target=_write_all, args=(proc.stdin, request), daemon=True,
                                          name="cat-file-requests")
                writer.start()
            try:
                for index in asked:
                    results[index] = self._answer(proc, limit)
            except (OSError, GitSafeError):
                _end_process(proc)  # out of step or gone: the next read starts a fresh one
                self._proc = None
                raise
            finally:
                if writer is not None:
                    writer.join(timeout=self.timeout_s)
        return results

    def _answer(self, proc: subprocess.Popen[bytes], limit: int | None) -> tuple[str, bytes, int] | None:
        deadline = time.monotonic() + self.timeout_s  # per object, as when they were asked one by one
        while b"\n" not in self._buffer:
            self._fill(proc, deadline)
        header, _, self._buffer = self._buffer.partition(b"\n")
        parts = header.split()
        if len(parts) != 3 or not parts[2].isdigit():
            return None  # "<name> missing" or "ambiguous"
        kind, size = parts[1].decode(), int(parts[2])
        keep = size if limit is None else min(size, limit)
        data = bytearray()
        left = size + 1  # the content, then a line feed
        while left:
            if not self._buffer:
                self._fill(proc, deadline)
            piece, self._buffer = self._buffer[:left], self._buffer[left:]
            left -= len(piece)
            if len(data) < keep:
                data += piece[:keep - len(data)]
        return kind, bytes(data), size


def _end_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


MAX_COMMITS = 100_000  # read whole histories; past this, the analysis says how many were left out
# A revision typed on the command line (`HEAD~1`, a branch); past this it is no revision of ours.
MAX_REVISION = 256


@dataclass
class SafeRepo:
    """A clean bare clone of a submission, with read-only operations on it."""

    source: Path
    path: Path
    head: str
    notes_problem: str | None = None  # why the source's notes could not be fetched: said on the row
    _env: dict[str, str] = field(default_factory=git_env, repr=False)
    _objects: ObjectReader | None = field(default=None, repr=False)

    def git(self, *args: str) -> bytes:
        return _run(["--git-dir", str(self.path), *args], env=self._env)

    def shallow_roots(self) -> list[str]:
        """The commits whose parents the submission does not hold (it was a `git clone --depth`): its
        history stops there. Read from the clone's own `shallow` file, which git copied over."""
        try:
            text = (self.path / "shallow").read_text(encoding="ascii", errors="replace")
        except FileNotFoundError:
            return []
        return [line.strip() for line in text.splitlines() if SHA_RE.match(line.strip())]

    def object_count(self) -> int:
        """About how many objects the copy holds, from its pack indexes' sizes (28 bytes an object in
        an index of version 2, past its 1 KiB fan-out table): no git process. Loose objects, which a
        fresh copy has none of, are not counted."""
        try:
            indexes = [entry.stat().st_size for entry in os.scandir(self.path / "objects" / "pack")
                       if entry.name.endswith(".idx") and entry.is_file(follow_symlinks=False)]
        except OSError:
            return 0
        return sum(max(0, size - 1072) // 28 for size in indexes)

    @property
    def objects(self) -> ObjectReader:
        if self._objects is None:
            self._objects = ObjectReader(self.path, self._env)
        return self._objects

    @property
    def empty_tree(self) -> str:
        """The id of the empty tree in this repository's object format (SHA-1 or SHA-256)."""
        return EMPTY_TREE_SHA256 if len(self.head) == 64 else EMPTY_TREE

    @staticmethod
    def check_rev(rev: str) -> str:
        """Accept a full commit id, or a ref name we made; never anything option-like."""
        if SHA_RE.match(rev) or rev == "HEAD":
            return rev
        raise GitSafeError(f"not a commit id: {rev[:60]!r}")

    def resolve(self, rev: str) -> str:
        """The full commit id of any revision git accepts (`HEAD~1`, a branch, a tag, a short id),
        resolved in the sanitised clone, whose HEAD is the submission's. A revision that names no
        commit is said as such, with the revision."""
        if rev == "HEAD":
            return self.head
        shown = safe_line(rev, MAX_REVISION)
        if not rev or len(rev) > MAX_REVISION or rev.startswith("-") or shown != rev or " " in rev:
            raise GitSafeError(f"not a revision: {safe_line(rev, 80)!r}")
        # git reads short ids in lower case only.
        if re.fullmatch(r"[0-9A-F]{4,64}", rev, re.I):
            rev = rev.lower()
        try:
            out = self.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        except GitSafeError:
            raise GitSafeError(f"no such revision: {shown}") from None
        sha = out.decode().strip()
        if not SHA_RE.match(sha):
            raise GitSafeError(f"no such revision: {shown}")
        return sha

    def commits(self, rev: str = "HEAD", limit: int = MAX_COMMITS) -> list[Commit]:
        """Commits reachable from `rev`, oldest first."""
        rev = self.check_rev(rev)
        fmt = FIELD_SEP.join(["%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%B"]) + RECORD_SEP
        raw = self.git("log", f"--format={fmt}", "--no-color", f"--max-count={limit}", "--reverse",
                       "--end-of-options", rev, "--")
        commits = []
        for record in raw.decode("utf-8", "replace").split(RECORD_SEP):
            record = record.lstrip("\n")
            if not record:
                continue
            parts = record.split(FIELD_SEP, 7)
            if len(parts) < 8:
                continue
            sha, parents, an, ae, ad, cn, ce, body = parts
            commits.append(Commit(sha, tuple(parents.split()), an, ae, ad, cn, ce, body.rstrip("\n")))
        return commits

    def changed_paths(self, rev: str = "HEAD") -> dict[str, list[str]]:
        """For each commit reachable from `rev`: the paths it changed (one git call)."""
        rev = self.check_rev(rev)
        raw = self.git("log", "--format=%x1e%H", "--name-only", "-z", "--no-renames", "--end-of-options", rev, "--")
        changed: dict[str, list[str]] = {}
        for record in raw.split(b"\x1e"):
            if not record.strip(b"\0\n"):
                continue
            head, _, rest = record.partition(b"\n")
            paths = [p.decode("utf-8", "replace") for p in rest.split(b"\0") if p.strip(b"\n")]
            changed[head.decode().strip("\0 \n")] = [p.strip("\n") for p in paths]
        return changed

    def files(self, rev: str = "HEAD") -> list[FileEntry]:
        rev = self.check_rev(rev)
        raw = self.git("ls-tree", "-r", "-z", "--long", "--full-tree", "--end-of-options", rev)
        entries = []
        for item in raw.split(b"\0"):
            if not item:
                continue
            meta, _, path = item.partition(b"\t")
            mode, kind, oid, size = meta.decode().split(maxsplit=3)
            entries.append(FileEntry(path.decode("utf-8", "replace"), mode, kind,
                                     None if size.strip() == "-" else int(size), oid))
        return entries

    def show(self, rev: str, path: str, limit: int = 8 << 20) -> bytes | None:
        """A file's bytes at `rev` from git objects (symlinks are not followed), or None."""
        rev = self.check_rev(rev)
        if rev == "HEAD":
            rev = self.head
        found = self.objects.read(f"{rev}:{path}", limit)
        if found is None or found[0] != "blob":
            return None
        return found[1]

    def mode(self, rev: str, path: str) -> str | None:
        """`path`'s mode at `rev` as its folder's tree records it (100644, 100755, 120000 a symbolic
        link, 160000 a submodule, 40000 a folder), None when absent. What `show` cannot tell: a
        symbolic link's blob holds the path it points to, which reads like a file's text."""
        rev = self.check_rev(rev)
        if rev == "HEAD":
            rev = self.head
        folder, _, name = path.rpartition("/")
        found = self.objects.read(f"{rev}:{folder}")
        if found is None or found[0] != "tree":
            return None
        # A tree is entries of "<mode> <name>\0<binary id>", the id 20 bytes (SHA-1) or 32 (SHA-256).
        data, wanted, width = found[1], name.encode("utf-8", "surrogateescape"), len(self.head) // 2
        at = 0
        while at < len(data):
            space = data.find(b" ", at)
            end = data.find(b"\0", space + 1)
            if space < 0 or end < 0:
                return None
            if data[space + 1:end] == wanted:
                return data[at:space].decode("ascii", "replace")
            at = end + 1 + width
        return None

    def diff(self, base: str, target: str = "HEAD", context: int = 3, max_bytes: int = 64 << 20) -> bytes:
        """A unified patch base..target, with no external diff, textconv or colour. Binary files are
        named, not encoded; past `max_bytes` the patch is cut (one byte more is returned, so the
        parser can say so) and git is stopped: memory stays bounded whatever the submission holds."""
        base, target = self.check_rev(base), self.check_rev(target)
        return run_capped(["--git-dir", str(self.path), "diff", "--no-ext-diff", "--no-textconv", "--no-color",
                           "--full-index", "-M", f"-U{context}", "--end-of-options", base, target, "--"],
                          self._env, max_bytes)

    def blame(self, rev: str, path: str) -> list[tuple[str, int, str, str]]:
        """For each line of `path` at `rev`: the commit that introduced it, its line number and path
        there, and "" (blame does not say which commit moved a line). Moves and copies are followed as
        the history replay follows them (-M -C -C: within the file, from files the same commit changed,
        from any file for a file the commit created)."""
        rev = self.check_rev(rev)
        # blame's own option parser knows no --end-of-options; rev is a validated id, path follows "--".
        raw = self.git("blame", "--porcelain", "--no-textconv", "-M", "-C", "-C", rev, "--", path)
        origins: list[tuple[str, int, str, str]] = []
        names: dict[bytes, str] = {}  # commit -> the path its last group named (porcelain names it once)
        pending: list[int] = []  # lines of the group being read, whose "filename" follows the header
        sha = b""
        for line in raw.split(b"\n"):
            # Header lines are "<sha> <orig> <final>[ <count>]"; content lines start with a tab.
            if (line[40:41] == b" " or line[64:65] == b" ") and _BLAME_HEADER.match(line):
                sha, orig, _final = line.split(b" ", 3)[:3]
                pending.append(len(origins))
                origins.append((sha.decode(), int(orig), names.get(sha, path), ""))
            elif line.startswith(b"filename ") and pending:
                name = line[len(b"filename "):].decode("utf-8", "surrogateescape")
                if name.startswith('"') and name.endswith('"'):
                    name = unquote_path(name[1:-1])
                names[sha] = name
                for index in pending:
                    commit, orig_no, _, moved = origins[index]
                    origins[index] = (commit, orig_no, name, moved)
                pending = []
            elif line.startswith(b"\t"):
                pending = []
        return origins

    def history_patches(self, rev: str = "HEAD") -> Generator[list[bytes], None, None]:
        """Every commit's patch, oldest first, in batches of lines: a ``\\0commit <id>`` line, then its -U0 hunks
        (renames detected, no textconv or external diff). One git process for the whole history."""
        rev = self.check_rev(rev)
        return stream_lines(["--git-dir", str(self.path), "log", "--reverse", "--first-parent", "-p", "-U0", "-M",
                             "--no-color", "--no-ext-diff", "--no-textconv", "--format=%x00commit %H",
                             "--end-of-options", rev, "--"], self._env)

    def added_lines(self, base: str, target: str) -> int:
        """Lines added base..target, from --numstat (binary files count 0): no patch to parse."""
        out = self.git("diff", "--numstat", "--no-ext-diff", "--no-textconv", "--end-of-options",
                       self.check_rev(base), self.check_rev(target), "--")
        return sum(int(part.split(b"\t", 1)[0]) for part in out.splitlines() if part[:1].isdigit())

    def count_commits(self, rev: str = "HEAD") -> int:
        rev = self.check_rev(rev)
        return int(self.git("rev-list", "--count", "--end-of-options", rev, "--").decode().strip() or 0)

    def is_ancestor(self, ancestor: str, rev: str = "HEAD") -> bool:
        """Whether commit id `ancestor` is reachable from `rev` (both validated: no option can hide)."""
        ancestor, rev = self.check_rev(ancestor), self.check_rev(rev)
        try:
            return self.git("merge-base", ancestor, rev).decode().strip() == self.resolve(ancestor)
        except GitSafeError:
            return False  # unrelated histories: no merge base

    def root_commit(self) -> str:
        out = self.git("rev-list", "--max-parents=0", "--end-of-options", self.head, "--").decode().split()
        return out[-1]

    def fetch_notes(self) -> None:
        """Fetch the source's git notes again (the clone already did once)."""
        self.notes_problem = notes.fetch_notes(self.path, self.source)

    def fetch_commits(self, shas: list[str]) -> tuple[set[str], str | None]:
        """Copy from the submission commits no ref reaches (a note's commit a squash replaced): (the ids
        the submission holds, why they could not be copied); see ``notes.fetch_commits``."""
        return notes.fetch_commits(self.path, self.source, shas)

    def outside_history(self, tips: list[str], max_bytes: int = 16 << 20) -> tuple[dict[str, tuple[str, ...]], bool]:
        """Every commit reachable from `tips` (commit ids the clone holds) but not from HEAD, with its
        parents (one git call), and whether that is all of them (False: past `max_bytes` of output)."""
        tips = [self.check_rev(tip) for tip in tips if tip != "HEAD"]
        if not tips:
            return {}, True
        out = run_capped(["--git-dir", str(self.path), "rev-list", "--parents", "--end-of-options", *tips,
                          f"^{self.head}", "--"], self._env, max_bytes)
        complete = len(out) <= max_bytes
        found: dict[str, tuple[str, ...]] = {}
        for line in out[:max_bytes].decode("ascii", "replace").splitlines():
            parts = line.split()
            if parts and all(SHA_RE.match(part) for part in parts):
                found[parts[0]] = tuple(parts[1:])
        return found, complete

    def notes_list(self, ref: str) -> dict[str, str]:
        """Commit id -> the id of its note's blob under `ref` (one git call, not one per commit)."""
        if not _REF_NAME_RE.match(ref):
            raise GitSafeError("bad notes ref")
        try:
            out = self.git("notes", f"--ref={ref}", "list").decode()
        except GitSafeError:
            return {}
        return {parts[1]: parts[0] for parts in (line.split() for line in out.splitlines())
                if len(parts) == 2 and SHA_RE.match(parts[0]) and SHA_RE.match(parts[1])}

    def refs_under(self, *prefixes: str) -> dict[str, str]:
        """Ref name -> the object it names, for every ref under any of `prefixes` (one git call)."""
        if not prefixes or not all(_REF_NAME_RE.match(prefix.rstrip("/")) for prefix in prefixes):
            raise GitSafeError("bad ref prefix")
        out = self.git("for-each-ref", "--format=%(objectname) %(refname)", "--", *prefixes).decode("utf-8", "replace")
        return {parts[1]: parts[0] for parts in (line.split(" ", 1) for line in out.splitlines())
                if len(parts) == 2 and SHA_RE.match(parts[0])}

    def notes(self, ref: str, sha: str, limit: int = 4 << 20) -> bytes | None:
        """The note on one commit; many notes: `notes_list` then `objects.read` by blob id."""
        blob = self.notes_list(ref).get(self.check_rev(sha))
        found = self.objects.read(blob, limit) if blob else None
        return found[1] if found else None
