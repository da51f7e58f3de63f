"""The only module that runs git.

A submission is an untrusted repository: its ``.git/config`` may set ``core.fsmonitor``,
``diff.external`` or hooks, its ``.gitattributes`` may pick a textconv driver, and it may be
owned by another user. So git never runs inside the submitted folder. Instead:

1. the submission's HEAD is read from its files, without git (``read_head``);
2. it is cloned with ``git clone --no-local --bare`` into a private per-user cache, under an
   environment that ignores system config and uses a private global config
   (``core.hooksPath=/dev/null``, ``core.fsmonitor=false``, ``safe.directory`` for just
   this source) — a no-local clone copies objects and refs, never config or hooks;
3. every later read (log, diff, show) runs in that clean clone with ``--no-ext-diff
   --no-textconv``, and revisions and paths are passed after ``--`` or validated as hex ids,
   so nothing the candidate chose is ever read by git as an option.

The cache is re-cloned when the submission's HEAD moves. See
``shared/reference/security-and-gateway.md`` §2 for the reasons behind each flag.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from review import paths

SHA_RE = re.compile(r"^[0-9a-f]{40}$")
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's id for the tree with nothing in it
_REF_NAME_RE = re.compile(r"^refs/[A-Za-z0-9._/+-]+$")
_BLAME_HEADER = re.compile(rb"^[0-9a-f]{40} \d+ \d+")
FIELD_SEP = "\x1f"
RECORD_SEP = "\x1e"


class GitSafeError(Exception):
    """A submission could not be read; the message says why, in words for the reviewer."""


# --------------------------------------------------------------------------- environment


def cache_root() -> Path:
    return paths.cache_dir()


def _private_config(safe_dirs: tuple[str, ...] = ()) -> Path:
    """A global git config of our own: no hooks, no fsmonitor, nothing from the user's."""
    lines = [
        "[core]",
        "\thooksPath = /dev/null",
        "\tfsmonitor = false",
        "\tsymlinks = false",
        "\tpager = cat",
        "\tquotePath = true",
        "[protocol]",
        "\tallow = never",
        '[protocol "file"]',
        "\tallow = always",
        "[init]",
        "\tdefaultBranch = main",
        "[commit]",
        "\tgpgSign = false",
        "[advice]",
        "\tdetachedHead = false",
    ]
    for directory in safe_dirs:
        # A value with a newline or quote could inject config: such folders are refused earlier.
        lines += ["[safe]", f"\tdirectory = {directory}"]
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    path = cache_root() / "gitconfig" / f"{digest}.gitconfig"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")  # threads race here: one temp file each
        with os.fdopen(fd, "w") as handle:
            handle.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
    return path


def git_env(safe_dirs: tuple[str, ...] = ()) -> dict[str, str]:
    """The whole environment git runs with: nothing inherited but PATH."""
    home = cache_root() / "home"
    home.mkdir(exist_ok=True, mode=0o700)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(_private_config(safe_dirs)),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ALLOW_PROTOCOL": "file",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "GIT_ATTR_NOSYSTEM": "1",
    }


def _run(args: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
         input_bytes: bytes | None = None) -> bytes:
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=env or git_env(), input=input_bytes, capture_output=True,
        stdin=None if input_bytes is not None else subprocess.DEVNULL,
    )
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitSafeError(message[-1] if message else f"git {args[0]} failed")
    return result.stdout


# --------------------------------------------------------------------------- reading HEAD without git


@dataclass(frozen=True)
class HeadInfo:
    git_dir: Path
    sha: str | None  # None: a repository with no commits yet
    branch: str | None


def find_git_dir(folder: Path) -> Path:
    """The git directory of a submission folder, or a GitSafeError saying why there is none."""
    dot_git = folder / ".git"
    if dot_git.is_symlink():
        raise GitSafeError("`.git` is a symbolic link; refusing to follow it")
    if dot_git.is_file():
        raise GitSafeError("`.git` is a file (a worktree or submodule link), not a repository")
    if dot_git.is_dir():
        return dot_git
    if (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
        return folder  # a bare repository handed in as is
    raise GitSafeError("not a git repository (no .git folder)")


def _read_small(path: Path, limit: int = 4096) -> str:
    if path.is_symlink():
        raise GitSafeError(f"{path.name} is a symbolic link")
    with open(path, "rb") as handle:
        return handle.read(limit).decode("utf-8", "replace")


def read_head(folder: Path) -> HeadInfo:
    """Read HEAD from the submission's files. No git process runs in the submission."""
    git_dir = find_git_dir(folder)
    try:
        head = _read_small(git_dir / "HEAD").strip()
    except FileNotFoundError:
        raise GitSafeError("HEAD is missing from the repository") from None
    except OSError as error:
        raise GitSafeError(f"HEAD cannot be read: {error.strerror}") from None
    if SHA_RE.match(head):
        return HeadInfo(git_dir, head, None)
    if not head.startswith("ref: "):
        raise GitSafeError("HEAD cannot be read: it is neither a commit id nor a ref")
    ref = head[5:].strip()
    if not _REF_NAME_RE.match(ref) or ".." in ref:
        raise GitSafeError("HEAD cannot be read: it names a malformed ref")
    branch = ref.removeprefix("refs/heads/")
    loose = git_dir / ref
    try:
        sha = _read_small(loose).strip()
        if not SHA_RE.match(sha):
            raise GitSafeError(f"HEAD cannot be read: {ref} does not hold a commit id")
        return HeadInfo(git_dir, sha, branch)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise GitSafeError(f"HEAD cannot be read: {ref} is a folder") from None
    packed = git_dir / "packed-refs"
    if packed.is_file():
        for line in _read_small(packed, 4 << 20).splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1] == ref and SHA_RE.match(parts[0]):
                return HeadInfo(git_dir, parts[0], branch)
    return HeadInfo(git_dir, None, branch)  # unborn branch: an empty repository


# --------------------------------------------------------------------------- the clean clone


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
        if "\n" in name or "\r" in name or "\0" in name:
            return None
        with self._lock:
            proc = self._start()
            assert proc.stdin is not None
            deadline = time.monotonic() + self.timeout_s
            try:
                proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
                proc.stdin.flush()
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
            except (OSError, GitSafeError):
                _end_process(proc)  # out of step or gone: the next read starts a fresh one
                self._proc = None
                raise


def _end_process(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


@dataclass
class SafeRepo:
    """A clean bare clone of a submission, with read-only operations on it."""

    source: Path
    path: Path
    head: str
    _env: dict[str, str] = field(default_factory=git_env, repr=False)
    _objects: ObjectReader | None = field(default=None, repr=False)

    def git(self, *args: str) -> bytes:
        return _run(["--git-dir", str(self.path), *args], env=self._env)

    @property
    def objects(self) -> ObjectReader:
        if self._objects is None:
            self._objects = ObjectReader(self.path, self._env)
        return self._objects

    @staticmethod
    def check_rev(rev: str) -> str:
        """Accept a full commit id, or a ref name we made; never anything option-like."""
        if SHA_RE.match(rev) or rev == "HEAD":
            return rev
        raise GitSafeError(f"not a commit id: {rev[:60]!r}")

    def resolve(self, rev: str) -> str:
        """A full commit id from a (possibly short) hex id or HEAD."""
        if rev == "HEAD":
            return self.head
        if not re.fullmatch(r"[0-9a-fA-F]{4,40}", rev):
            raise GitSafeError(f"not a commit id: {rev[:60]!r}")
        out = self.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev.lower()}^{{commit}}")
        return out.decode().strip()

    def commits(self, rev: str = "HEAD", limit: int = 5000) -> list[Commit]:
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

    def diff(self, base: str, target: str = "HEAD", context: int = 3) -> bytes:
        """A unified patch base..target, with no external diff, textconv or colour."""
        base, target = self.check_rev(base), self.check_rev(target)
        return self.git("diff", "--no-ext-diff", "--no-textconv", "--no-color", "--full-index",
                        "--binary", "-M", f"-U{context}", "--end-of-options", base, target, "--")

    def blame(self, rev: str, path: str) -> list[tuple[str, int]]:
        """For each line of `path` at `rev`: the commit that introduced it and its line number there."""
        rev = self.check_rev(rev)
        # blame's own option parser knows no --end-of-options; rev is a validated id, path follows "--".
        raw = self.git("blame", "--porcelain", "--no-textconv", rev, "--", path)
        origins = []
        for line in raw.split(b"\n"):
            # Header lines are "<sha> <orig> <final>[ <count>]"; content lines start with a tab.
            if len(line) > 41 and line[40:41] == b" " and _BLAME_HEADER.match(line):
                sha, orig, _final = line.split(b" ", 3)[:3]
                origins.append((sha.decode(), int(orig)))
        return origins

    def added_lines(self, base: str, target: str) -> int:
        """Lines added base..target, from --numstat (binary files count 0): no patch to parse."""
        out = self.git("diff", "--numstat", "--no-ext-diff", "--no-textconv", "--end-of-options",
                       self.check_rev(base), self.check_rev(target), "--")
        return sum(int(part.split(b"\t", 1)[0]) for part in out.splitlines() if part[:1].isdigit())

    def root_commit(self) -> str:
        out = self.git("rev-list", "--max-parents=0", "--end-of-options", self.head, "--").decode().split()
        return out[-1]

    def fetch_notes(self) -> None:
        """Fetch the source's git notes again (the clone already did once)."""
        _fetch_notes(self.path, self.source)

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

    def notes(self, ref: str, sha: str, limit: int = 4 << 20) -> bytes | None:
        """The note on one commit; many notes: `notes_list` then `objects.read` by blob id."""
        blob = self.notes_list(ref).get(self.check_rev(sha))
        found = self.objects.read(blob, limit) if blob else None
        return found[1] if found else None


def _safe_dirs(source: Path) -> tuple[str, ...]:
    git_dir = find_git_dir(source)
    dirs = {str(source), str(git_dir)}
    for directory in dirs:
        if any(ch in directory for ch in '\n\r"\\\0'):
            raise GitSafeError("the folder's path holds characters git config cannot quote safely")
    return tuple(sorted(dirs))


def _fetch_notes(clone_dir: Path, source: Path) -> None:
    """git notes (git-ai's refs/notes/ai) do not travel with a clone: fetch them explicitly."""
    try:
        _run(["--git-dir", str(clone_dir), "fetch", "--quiet", "--no-tags", "--", str(find_git_dir(source)),
              "+refs/notes/*:refs/notes/*"], env=git_env(_safe_dirs(source)))
    except GitSafeError:
        pass  # no notes is the common case


def cache_path_for(source: Path) -> Path:
    key = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:24]
    return cache_root() / "repos" / f"{key}.git"


def open_submission(folder: Path) -> SafeRepo:
    """A clean clone of the submission at its current HEAD, made or refreshed as needed."""
    folder = folder.resolve()
    head = read_head(folder)
    if head.sha is None:
        raise GitSafeError("empty repository (no commits yet)")
    target = cache_path_for(folder)
    marker = target / "review-source.json"
    if marker.is_file():
        try:
            recorded = json.loads(marker.read_text())
            if recorded.get("head") == head.sha:
                return SafeRepo(folder, target, head.sha)
        except (OSError, ValueError):
            pass
    return _fresh_clone(folder, head.sha, target)


def _fresh_clone(folder: Path, head_sha: str, target: Path) -> SafeRepo:
    env = git_env(_safe_dirs(folder))
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=target.parent))
    try:
        clone_dir = tmp / "repo.git"
        # The source is a local path we control the spelling of; "--" keeps it from being an option.
        try:
            _run(["clone", "--quiet", "--bare", "--no-local", "--no-hardlinks", "--no-tags",
                  "--template=", "--", str(find_git_dir(folder)), str(clone_dir)], env=env)
        except GitSafeError as error:
            text = str(error)
            if any(sign in text for sign in ("not our ref", "bad object", "did not send all", "corrupt")):
                raise GitSafeError(f"HEAD cannot be read: the commit it names is missing or corrupt ({text})") from None
            raise GitSafeError(f"the repository cannot be copied: {text}") from None
        env_clean = git_env()
        # The clone's HEAD follows the source's branch; pin what we saw, whatever it pointed at.
        try:
            _run(["--git-dir", str(clone_dir), "cat-file", "-e", f"{head_sha}^{{commit}}"], env=env_clean)
        except GitSafeError:
            raise GitSafeError("HEAD cannot be read: the commit it names is missing or corrupt") from None
        _run(["--git-dir", str(clone_dir), "update-ref", "--no-deref", "HEAD", head_sha], env=env_clean)
        _fetch_notes(clone_dir, folder)
        (clone_dir / "review-source.json").write_text(json.dumps({"source": str(folder), "head": head_sha}))
        # Swap in atomically; a concurrent console may have done the same, which is fine.
        old = target.with_name(target.name + f".old-{os.getpid()}")
        if target.exists():
            os.rename(target, old)
        try:
            os.rename(clone_dir, target)
        except OSError:
            pass  # another process won the race with an equivalent clone
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return SafeRepo(folder, target, head_sha)


# --------------------------------------------------------------------------- building trusted repos


@dataclass
class CommitSpec:
    """One commit to create in a repository we build ourselves (the demo cohort, tests)."""

    files: dict[str, bytes]  # path -> content, overlaid on the previous tree
    message: str
    author_name: str
    author_email: str
    date: str  # ISO 8601
    committer_name: str | None = None
    committer_email: str | None = None
    delete: tuple[str, ...] = ()
    executable: tuple[str, ...] = ()


def build_repo(folder: Path, commits: list[CommitSpec], branch: str = "main") -> str:
    """Create a git repository at `folder` from `commits`; returns HEAD's id.

    Commit ids are deterministic: the trees, authors, dates and messages are all given.
    Uses plumbing only (hash-object, mktree, commit-tree), so no work tree is needed.
    """
    env = git_env()
    folder.mkdir(parents=True, exist_ok=True)
    _run(["init", "--quiet", f"--initial-branch={branch}", "--template=", "--", str(folder)], env=env)
    git_dir = folder / ".git"
    tree: dict[str, tuple[str, str]] = {}  # path -> (mode, blob sha)
    parent: str | None = None
    for spec in commits:
        for path in spec.delete:
            tree.pop(path, None)
        for path, data in spec.files.items():
            sha = _run(["--git-dir", str(git_dir), "hash-object", "-w", "--stdin"], env=env,
                       input_bytes=data).decode().strip()
            tree[path] = ("100755" if path in spec.executable else "100644", sha)
        tree_sha = _write_tree(git_dir, tree, env)
        commit_env = dict(env)
        commit_env.update({
            "GIT_AUTHOR_NAME": spec.author_name, "GIT_AUTHOR_EMAIL": spec.author_email,
            "GIT_AUTHOR_DATE": spec.date,
            "GIT_COMMITTER_NAME": spec.committer_name or spec.author_name,
            "GIT_COMMITTER_EMAIL": spec.committer_email or spec.author_email,
            "GIT_COMMITTER_DATE": spec.date,
        })
        args = ["--git-dir", str(git_dir), "commit-tree", tree_sha]
        if parent:
            args += ["-p", parent]
        message = spec.message if spec.message.endswith("\n") else spec.message + "\n"
        parent = _run(args, env=commit_env, input_bytes=message.encode()).decode().strip()
    if parent:
        _run(["--git-dir", str(git_dir), "update-ref", f"refs/heads/{branch}", parent], env=env)
    return parent or ""


def _write_tree(git_dir: Path, tree: dict[str, tuple[str, str]], env: dict[str, str]) -> str:
    """Write nested trees bottom-up with mktree."""
    children: dict[str, dict[str, tuple[str, str, str]]] = {"": {}}
    for path in sorted(tree):
        mode, sha = tree[path]
        parts = path.split("/")
        for depth in range(1, len(parts)):
            children.setdefault("/".join(parts[:depth]), {})
        children.setdefault("/".join(parts[:-1]), {})[parts[-1]] = (mode, "blob", sha)
    written: dict[str, str] = {}
    # Deepest folders first, so each parent can name its children's tree ids.
    for directory in sorted(children, key=lambda d: (d.count("/") + (1 if d else 0)), reverse=True):
        entries = dict(children[directory])
        for sub, sub_sha in written.items():
            parent_dir, _, name = sub.rpartition("/")
            if sub and parent_dir == directory and sub != directory:
                entries[name] = ("040000", "tree", sub_sha)
        listing = "".join(f"{mode} {kind} {sha}\t{name}\0" for name, (mode, kind, sha) in sorted(entries.items()))
        written[directory] = _run(["--git-dir", str(git_dir), "mktree", "-z"], env=env,
                                  input_bytes=listing.encode()).decode().strip()
    return written[""]
