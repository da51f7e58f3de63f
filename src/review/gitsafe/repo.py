"""The clean clone's read-only operations: log, diff, blame, notes, and objects through one
persistent ``cat-file --batch-command`` (gitsafe.objects). Revisions are validated ids and options
end before anything the candidate chose."""

from __future__ import annotations

import dataclasses
import os
import re
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
from review.gitsafe.head import refs_from_files
from review.gitsafe.objects import FileEntry, ObjectReader, tree_entries


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
            indexes = [
                entry.stat().st_size
                for entry in os.scandir(self.path / "objects" / "pack")
                if entry.name.endswith(".idx") and entry.is_file(follow_symlinks=False)
            ]
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

    def check_rev(self, rev: str) -> str:
        """Accept a full commit id, or HEAD (this repository's `head`); never anything option-like."""
        if rev == "HEAD":
            return self.head
        if SHA_RE.match(rev):
            return rev
        raise GitSafeError(f"not a commit id: {rev[:60]!r}")

    def at(self, commit: str) -> SafeRepo:
        """The same clone read as if its HEAD were `commit` (a full id this clone holds): every read of
        "HEAD" reads that commit. The clone itself is not changed; its object reader is shared."""
        return dataclasses.replace(self, head=self.check_rev(commit))

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
        raw = self.git(
            "log", f"--format={fmt}", "--no-color", f"--max-count={limit}", "--reverse", "--end-of-options", rev, "--"
        )
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
        """Every file at `rev`, as `git ls-tree -r --long` lists them, read through the batch process."""
        rev = self.check_rev(rev)
        return self.objects.files(f"{self.head if rev == 'HEAD' else rev}^{{tree}}", len(self.head) // 2)

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
        wanted = name.encode("utf-8", "surrogateescape")
        try:
            entries = tree_entries(found[1], len(self.head) // 2)
        except GitSafeError:
            return None
        return next((mode for mode, entry_name, _ in entries if entry_name == wanted), None)

    def diff(self, base: str, target: str = "HEAD", context: int = 3, max_bytes: int = 64 << 20) -> bytes:
        """A unified patch base..target, with no external diff, textconv or colour. Binary files are
        named, not encoded; past `max_bytes` the patch is cut (one byte more is returned, so the
        parser can say so) and git is stopped: memory stays bounded whatever the submission holds."""
        base, target = self.check_rev(base), self.check_rev(target)
        return run_capped(
            [
                "--git-dir",
                str(self.path),
                "diff",
                "--no-ext-diff",
                "--no-textconv",
                "--no-color",
                "--full-index",
                "-M",
                f"-U{context}",
                "--end-of-options",
                base,
                target,
                "--",
            ],
            self._env,
            max_bytes,
        )

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
                name = line[len(b"filename ") :].decode("utf-8", "surrogateescape")
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
        """Every commit and its children first (``\\0children <id> <child>…``, one git call), then every
        commit's patch, parents before children, in batches of lines: a ``\\0commit <id> <tree>
        <parents…>`` line, then its -U0 hunks (renames detected, no textconv or external diff); a merge
        has one patch per parent whose tree differs (``-m``), in the parents' order: what blame compares
        it with. One git process for the whole history's patches."""
        rev = self.check_rev(rev)
        # Counted while git log walks the history before its first patch (--reverse waits for the walk).
        stream = self._log_patches(rev)
        try:
            # Here, not at the top: a warm triage (the row from its cache) loads no thread pool.
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1) as pool:
                counted = pool.submit(self.git, "rev-list", "--children", "--end-of-options", rev, "--")
                first = next(stream, None)
                yield [b"\0children " + line for line in counted.result().splitlines()]
            if first is not None:
                yield first
                yield from stream
        finally:
            stream.close()  # stopped early, or failed: git is stopped

    def _log_patches(self, rev: str) -> Generator[list[bytes], None, None]:
        return stream_lines(
            [
                "--git-dir",
                str(self.path),
                "log",
                "--reverse",
                "--topo-order",
                "-m",
                "-p",
                "-U0",
                "-M",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--format=%x00commit %H %T %P",
                "--end-of-options",
                rev,
                "--",
            ],
            self._env,
        )

    def added_lines(self, base: str, target: str) -> int:
        """Lines added base..target, from --numstat (binary files count 0): no patch to parse."""
        out = self.git(
            "diff",
            "--numstat",
            "--no-ext-diff",
            "--no-textconv",
            "--end-of-options",
            self.check_rev(base),
            self.check_rev(target),
            "--",
        )
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
        out = run_capped(
            ["--git-dir", str(self.path), "rev-list", "--parents", "--end-of-options", *tips, f"^{self.head}", "--"],
            self._env,
            max_bytes,
        )
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
        return {
            parts[1]: parts[0]
            for parts in (line.split() for line in out.splitlines())
            if len(parts) == 2 and SHA_RE.match(parts[0]) and SHA_RE.match(parts[1])
        }

    def refs_under(self, *prefixes: str) -> dict[str, str]:
        """Ref name -> the object it names, for every ref under any of `prefixes`."""
        if not prefixes or not all(_REF_NAME_RE.match(prefix.rstrip("/")) for prefix in prefixes):
            raise GitSafeError("bad ref prefix")
        # Read from the copy's files: one git process less for every submission triaged.
        found = refs_from_files(self.path, prefixes)
        if found is not None:
            return found
        out = self.git("for-each-ref", "--format=%(objectname) %(refname)", "--", *prefixes).decode("utf-8", "replace")
        return {
            parts[1]: parts[0]
            for parts in (line.split(" ", 1) for line in out.splitlines())
            if len(parts) == 2 and SHA_RE.match(parts[0])
        }

    def notes(self, ref: str, sha: str, limit: int = 4 << 20) -> bytes | None:
        """The note on one commit; many notes: `notes_list` then `objects.read` by blob id."""
        blob = self.notes_list(ref).get(self.check_rev(sha))
        found = self.objects.read(blob, limit) if blob else None
        return found[1] if found else None
