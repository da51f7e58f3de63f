"""Turn the plain-text sample series in ``sample_submissions/`` into real git repositories.

Each candidate folder holds one folder per commit (``commit.toml`` + ``tree/``); every
candidate starts from the shared ``_starter`` commit. Authors and dates are fixed, so the
commit ids come out the same on every machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from review import gitsafe
from review.support import paths

_IDENT = re.compile(r"^\s*(?P<name>[^<>]+?)\s*<(?P<email>[^<>]*)>\s*$")


class SampleError(Exception):
    pass


def samples_dir() -> Path:
    return paths.samples_dir()


def default_demo_dir() -> Path:
    return paths.demo_dir()


def _ident(value: str, where: Path) -> tuple[str, str]:
    match = _IDENT.match(value)
    if not match:
        raise SampleError(f"{where}: expected 'Name <email>', got {value!r}")
    return match["name"], match["email"]


def load_commit(folder: Path, root: Path) -> CommitSpec:
    meta_path = folder / "commit.toml"
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SampleError(f"{meta_path}: {error}") from None
    for key in ("author", "date", "message"):
        if key not in meta:
            raise SampleError(f"{meta_path}: missing field {key!r}")
    author = _ident(meta["author"], meta_path)
    committer = _ident(meta["committer"], meta_path) if "committer" in meta else author
    files: dict[str, bytes] = {}
    for path, shared in meta.get("shared", {}).items():
        files[path] = (root / shared).read_bytes()
    tree = folder / "tree"
    if tree.is_dir():
        for file in sorted(tree.rglob("*")):
            if file.is_file():
                files[file.relative_to(tree).as_posix()] = file.read_bytes()
    return CommitSpec(
        files=files,
        message=meta["message"],
        author_name=author[0],
        author_email=author[1],
        date=meta["date"],
        committer_name=committer[0],
        committer_email=committer[1],
        delete=tuple(meta.get("delete", ())),
    )


@dataclass
class Series:
    name: str
    commits: list[CommitSpec]


def load_series(root: Path | None = None) -> list[Series]:
    root = root or samples_dir()
    if not root.is_dir():
        raise SampleError(f"no sample submissions at {root}")
    starter = load_commit(root / "_starter", root)
    series = []
    for candidate in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        steps = sorted(p for p in candidate.iterdir() if p.is_dir())
        if not steps:
            raise SampleError(f"{candidate}: no commit folders")
        series.append(Series(candidate.name, [starter, *(load_commit(step, root) for step in steps)]))
    return series


# What `review demo` built in a folder, so that a rebuild replaces only its own, unchanged work.
MANIFEST = ".review-demo.json"


@dataclass
class Built:
    """What `review demo` made: the folder, and each sample folder it left as it was, with why."""

    folder: Path
    kept: list[str]


def build_demo(into: Path | None = None, root: Path | None = None) -> Path:
    return build_sample_cohort(into, root).folder


def build_sample_cohort(into: Path | None = None, root: Path | None = None) -> Built:
    """Build (or refresh) one repository per sample candidate under `into`.

    Nothing the builder did not make is ever deleted: a candidate's folder is replaced only when an
    earlier build made it and nothing in it has changed since (the folder's manifest says which). A
    folder in the way — one the builder did not make, or one changed since (a reviewer's commit) — is
    left as it is, and `kept` says which and why; the rest is built. Score files
    (``<name>.review.toml``) and every other file in the folder are left as they are.
    """
    into = (into or default_demo_dir()).resolve()
    into.mkdir(parents=True, exist_ok=True)
    built = _read_manifest(into)
    kept: list[str] = []
    # Every repository is built beside its target first: what needs replacing is known before anything is.
    scratches: dict[str, Path] = {}
    try:
        for item in load_series(root):
            # A fresh scratch folder of our own: never one that happens to exist with that name.
            scratch = Path(tempfile.mkdtemp(prefix=f".{item.name}.building-", dir=into))
            scratches[item.name] = scratch
            if _head_of(into / item.name) == build_repo(scratch, item.commits):
                shutil.rmtree(scratches.pop(item.name))
        for name in [name for name in scratches if _in_the_way(into / name, built.get(name))]:
            kept.append(f"{into / name}: {_why_kept(into / name, name in built)}; left as it is")
            shutil.rmtree(scratches.pop(name))
        for name, scratch in list(scratches.items()):
            target = into / name
            if target.exists():
                # Ours and unchanged (checked above): the samples moved on since it was built.
                shutil.rmtree(target)
            os.rename(scratch, target)
            del scratches[name]
            built[name] = _fingerprint(target)
            _write_manifest(into, built)
    finally:
        for scratch in scratches.values():
            shutil.rmtree(scratch, ignore_errors=True)
    return Built(into, kept)


def _why_kept(target: Path, ours: bool) -> str:
    if not ours or target.is_symlink() or not target.is_dir():
        return "not made by `review demo`"
    head = _head_of(target)
    at = f" (HEAD now {head[:12]})" if head else ""
    return f"changed since `review demo` built it{at}"


def _head_of(folder: Path) -> str | None:
    if not folder.exists():
        return None
    try:
        return gitsafe.read_head(folder).sha
    except gitsafe.GitSafeError:
        return None


def _in_the_way(target: Path, recorded: str | None) -> bool:
    """Whether `target` holds something a rebuild must not replace: a folder (or file) the builder did
    not make, or one it made that has changed since. Nothing there is never in the way."""
    if not target.exists() and not target.is_symlink():
        return False
    return target.is_symlink() or not target.is_dir() or recorded != _fingerprint(target)


def _fingerprint(folder: Path) -> str:
    """Every entry under `folder` with its kind, size and modification time: a file added, removed,
    edited or touched changes it. Not git's index: `git status` rewrites it to cache what it read
    (a reviewer looking is no change), and what `git add` stages is a new object, which counts."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path == folder / ".git" / "index":
            continue
        info = path.lstat()
        # A folder by its name and kind: its times move with any file written in it (the index's
        # lock), and what it holds is counted file by file.
        size, mtime = (0, 0) if stat.S_ISDIR(info.st_mode) else (info.st_size, info.st_mtime_ns)
        digest.update(
            f"{path.relative_to(folder).as_posix()}\0{info.st_mode}\0{size}\0{mtime}\n".encode(
                "utf-8", "surrogateescape"
            )
        )
    return digest.hexdigest()


def _read_manifest(into: Path) -> dict[str, str]:
    try:
        data = json.loads((into / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    built = data.get("built") if isinstance(data, dict) else None
    if not isinstance(built, dict):
        return {}
    return {name: value for name, value in built.items() if isinstance(name, str) and isinstance(value, str)}


def _write_manifest(into: Path, built: dict[str, str]) -> None:
    partial = into / f"{MANIFEST}.partial"
    partial.write_text(json.dumps({"built": built}, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(partial, into / MANIFEST)


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
    Made with plumbing (hash-object, mktree, commit-tree), then HEAD's files checked out.
    """
    env = gitsafe.git_env()
    folder.mkdir(parents=True, exist_ok=True)
    gitsafe.run_trusted(["init", "--quiet", f"--initial-branch={branch}", "--template=", "--", str(folder)], env=env)
    git_dir = folder / ".git"
    tree: dict[str, tuple[str, str]] = {}  # path -> (mode, blob sha)
    parent: str | None = None
    for spec in commits:
        for path in spec.delete:
            tree.pop(path, None)
        for path, data in spec.files.items():
            sha = (
                gitsafe.run_trusted(
                    ["--git-dir", str(git_dir), "hash-object", "-w", "--stdin"], env=env, input_bytes=data
                )
                .decode()
                .strip()
            )
            tree[path] = ("100755" if path in spec.executable else "100644", sha)
        tree_sha = _write_tree(git_dir, tree, env)
        commit_env = dict(env)
        commit_env.update(
            {
                "GIT_AUTHOR_NAME": spec.author_name,
                "GIT_AUTHOR_EMAIL": spec.author_email,
                "GIT_AUTHOR_DATE": spec.date,
                "GIT_COMMITTER_NAME": spec.committer_name or spec.author_name,
                "GIT_COMMITTER_EMAIL": spec.committer_email or spec.author_email,
                "GIT_COMMITTER_DATE": spec.date,
            }
        )
        args = ["--git-dir", str(git_dir), "commit-tree", tree_sha]
        if parent:
            args += ["-p", parent]
        message = spec.message if spec.message.endswith("\n") else spec.message + "\n"
        parent = gitsafe.run_trusted(args, env=commit_env, input_bytes=message.encode()).decode().strip()
    if parent:
        gitsafe.run_trusted(["--git-dir", str(git_dir), "update-ref", f"refs/heads/{branch}", parent], env=env)
        # HEAD's files in the folder too: a reviewer who looks there sees the submission, `git status` clean.
        gitsafe.run_trusted(
            ["--git-dir", str(git_dir), "--work-tree", str(folder), "read-tree", "--reset", "-u", "HEAD"], env=env
        )
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
    for directory in sorted(children, key=lambda d: d.count("/") + (1 if d else 0), reverse=True):
        entries = dict(children[directory])
        for sub, sub_sha in written.items():
            parent_dir, _, name = sub.rpartition("/")
            if sub and parent_dir == directory and sub != directory:
                entries[name] = ("040000", "tree", sub_sha)
        listing = "".join(f"{mode} {kind} {sha}\t{name}\0" for name, (mode, kind, sha) in sorted(entries.items()))
        written[directory] = (
            gitsafe.run_trusted(["--git-dir", str(git_dir), "mktree", "-z"], env=env, input_bytes=listing.encode())
            .decode()
            .strip()
        )
    return written[""]
