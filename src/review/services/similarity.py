"""A cohort's fingerprint index: each submission's code files at HEAD that the candidate changed,
read through the sanitised copy and fingerprinted (review.core.similarity), kept on disk per HEAD as
the triage rows are; the starter's and the model draft's fingerprints beside them. A submission that
arrives is fingerprinted alone and compared against the index as it stands."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import review
from review import gitsafe
from review.core import similarity
from review.harness import cache
from review.services import cohort as cohorts
from review.services import failures
from review.support import paths

# A code file past this is listed as too large, not compared (a bundled or generated file).
MAX_FILE_BYTES = 256 << 10
STARTER = "the starter"
DRAFT = "the model draft"


@functools.cache
def code_version() -> str:
    """What computes the fingerprints, digested: a change to it is a new key, never a stale index."""
    import importlib.metadata

    digest = hashlib.sha256(f"{review.__version__} {sys.version_info[:2]}".encode())
    for package in ("tree-sitter", "tree-sitter-javascript", "tree-sitter-typescript"):
        try:
            digest.update(importlib.metadata.version(package).encode())
        except importlib.metadata.PackageNotFoundError:
            pass
    root = Path(review.__file__).parent
    # What makes the fingerprints (not what compares them: a change there keeps the index).
    for name in ("tokens.py", "winnow.py"):
        digest.update((root / "core" / "similarity" / name).read_bytes())
    digest.update((root / "services" / "similarity.py").read_bytes())
    return digest.hexdigest()[:16]


def _cache_file(key: str) -> Path:
    return _cache_folder(paths.cache_dir()) / f"{key}.json"


@functools.cache
def _cache_folder(cache: Path) -> Path:
    folder = cache / "similarity"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def _read_cached(key: str) -> dict | None:
    try:
        data = json.loads(_cache_file(key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == code_version() else None


def _write_cached(key: str, data: dict) -> None:
    try:
        cache.write_json_atomic(_cache_file(key), {**data, "version": code_version()})
    except OSError:
        pass  # a cache that cannot be written is only slower


def submission_key(path: Path, base: str | None) -> str | None:
    """The key of a submission's fingerprints, from its own files (no git): its HEAD and the cohort's
    base. None when HEAD cannot be read so (then: read it through the copy)."""
    try:
        head = gitsafe.read_head(path).sha
    except gitsafe.GitSafeError:
        return None
    if head is None:
        return None
    return hashlib.sha256(json.dumps(["submission", head, base]).encode()).hexdigest()


def fingerprint_blob(path: str, data: bytes) -> similarity.FilePrints | str:
    """A file's fingerprints, or why it is not compared."""
    language = similarity.language_of(path)
    if language is None:
        return "not code"
    if len(data) > MAX_FILE_BYTES:
        return f"too large ({len(data) // 1024} KiB; compared up to {MAX_FILE_BYTES // 1024} KiB)"
    if b"\0" in data[:8192]:
        return "binary"
    ids, lines = similarity.tokenize(data, language)
    return similarity.fingerprint(path, ids, lines)


def _base_of(repo: gitsafe.SafeRepo, wanted: str | None) -> str | None:
    """The starter commit: the cohort's base when this history holds it, else the root commit (None
    with a history of one commit: every file is the candidate's)."""
    if wanted:
        try:
            sha = repo.resolve(wanted)
            if repo.is_ancestor(sha):
                return sha
        except gitsafe.GitSafeError:
            pass
    root = _first_root(repo)
    return None if root == repo.head else root


# Commits walked through the copy's object reader to its root before asking git (a process) instead.
ROOT_WALK = 64


def _first_root(repo: gitsafe.SafeRepo) -> str:
    """The root commit up HEAD's first parents, read through the object reader the files are read
    with (a short history costs no process of its own); a long one asks git."""
    sha = repo.head
    for _ in range(ROOT_WALK):
        found = repo.objects.read(sha)
        if found is None or found[0] != "commit":
            break
        header = found[1].split(b"\n\n", 1)[0]
        parents = [line[7:].decode() for line in header.split(b"\n") if line.startswith(b"parent ")]
        if not parents:
            return sha
        sha = parents[0]
    return repo.root_commit()


def _read_files(repo: gitsafe.SafeRepo, base: str | None) -> dict:
    """The submission's fingerprints: every file at HEAD that differs from the starter's, compared
    or listed with why not; and the starter's own code files' fingerprints, by its commit."""
    head_files = [f for f in repo.files("HEAD") if f.kind == "blob"]
    base_files = {f.path: f.oid for f in repo.files(base) if f.kind == "blob"} if base else {}
    changed = [f for f in head_files if base_files.get(f.path) != f.oid]
    files, skipped = [], []
    readable = []
    for entry in changed:
        if entry.mode == "120000":
            skipped.append([entry.path, "a symbolic link"])
        elif similarity.language_of(entry.path) is None:
            skipped.append([entry.path, "not code"])
        elif (entry.size or 0) > MAX_FILE_BYTES:
            skipped.append([entry.path, f"too large ({(entry.size or 0) // 1024} KiB)"])
        else:
            readable.append(entry)
    blobs = repo.objects.read_many([e.oid for e in readable], MAX_FILE_BYTES + 1)
    for entry, found in zip(readable, blobs, strict=True):
        made = fingerprint_blob(entry.path, found[1]) if found else "cannot be read from the copy"
        if isinstance(made, str):
            skipped.append([entry.path, made])
        else:
            files.append(made.to_json())
    return {
        "head": repo.head,
        "base": base,
        "files": files,
        "skipped": skipped,
        "unchanged": len(head_files) - len(changed),
    }


# Starter commit -> its fingerprints, for this process: a cohort's submissions mostly share one.
_starters: dict[str, list[int]] = {}


def _starter_prints(repo: gitsafe.SafeRepo, base: str) -> list[int]:
    """Every fingerprint of the starter's code files, kept by its commit id."""
    if base in _starters:
        return _starters[base]
    key = hashlib.sha256(json.dumps(["starter", base]).encode()).hexdigest()
    cached = _read_cached(key)
    if cached is not None and isinstance(cached.get("hashes"), list):
        _starters[base] = cached["hashes"]
        return cached["hashes"]
    entries = [f for f in repo.files(base) if f.kind == "blob" and similarity.language_of(f.path)]
    found = repo.objects.read_many([e.oid for e in entries], MAX_FILE_BYTES + 1)
    hashes: set[int] = set()
    for entry, blob in zip(entries, found, strict=True):
        made = fingerprint_blob(entry.path, blob[1]) if blob else None
        if isinstance(made, similarity.FilePrints):
            hashes.update(p[0] for p in made.prints)
    kept = _starters[base] = sorted(hashes)
    _write_cached(key, {"hashes": kept})
    return kept


@functools.cache
def draft_prints() -> frozenset[int]:
    """The model draft the task's candidates start from (the bundled sample's): every candidate may
    keep it, so what they share of it says nothing about each other."""
    found = fingerprint_blob("checkout.mjs", (paths.samples_dir() / "_draft" / "checkout.mjs").read_bytes())
    return frozenset(p[0] for p in found.prints) if isinstance(found, similarity.FilePrints) else frozenset()


@dataclass
class Entry:
    """One submission in the index: its fingerprints, or why it could not be read."""

    name: str
    path: Path
    prints: similarity.Prints | None = None
    head: str | None = None
    base: str | None = None
    starter: list[int] = field(default_factory=list, repr=False)
    unchanged: int = 0
    problem: str | None = None
    # Read from the cache's lean entry: the files' prints are read when a pair's fragments are asked for.
    lean: bool = False


# Beside each submission's lean entry (its distinct fingerprints, what a comparison needs), the
# files' prints with their places (what a pair's fragments need), read only then.
FULL = ".prints"


def _write_entry(key: str, data: dict) -> None:
    _write_cached(key + FULL, {"files": data["files"]})
    lean = {name: value for name, value in data.items() if name != "files"}
    lean["files"] = [{"path": f["path"], "tokens": f["tokens"], "prints": []} for f in data["files"]]
    lean["hashes"] = sorted({p[0] for f in data["files"] for p in f["prints"]})
    _write_cached(key, lean)


def _from_data(path: Path, data: dict) -> Entry:
    hashes = data.get("hashes")
    prints = similarity.Prints(
        path.name,
        [similarity.FilePrints.from_json(f) for f in data["files"]],
        [(str(p), str(why)) for p, why in data["skipped"]],
        set(hashes) if isinstance(hashes, list) else None,
    )
    return Entry(
        path.name,
        path,
        prints,
        data["head"],
        data["base"],
        list(data.get("starter", [])),
        int(data["unchanged"]),
        lean=isinstance(hashes, list),
    )


def cached_entry(path: Path, base: str | None) -> Entry | None:
    """The submission's entry when its HEAD was fingerprinted before, else None."""
    try:
        key = submission_key(path, base) if not path.is_symlink() else None
        cached = _read_cached(key) if key else None
        return _from_data(path, cached) if cached is not None else None
    # Read again the long way, where any failure is the entry's own.
    except Exception:
        return None


def read_entry(path: Path, base: str | None, cached_ok: bool = True) -> Entry:
    """A submission's fingerprints, from the cache when its HEAD was read before (`cached_ok`); any
    failure is the entry's problem, never the cohort's end."""
    try:
        key = submission_key(path, base) if not path.is_symlink() else None
        cached = _read_cached(key) if key and cached_ok else None
        if cached is not None:
            return _from_data(path, cached)
        if path.is_symlink():
            raise gitsafe.GitSafeError("a symbolic link; not followed")
        if cohorts.is_archive(path):
            raise gitsafe.GitSafeError("an archive, not a submission folder (`review import` unpacks it)")
        repo = gitsafe.open_submission(path)
        try:
            starter = _base_of(repo, base)
            data = _read_files(repo, starter)
            data["starter"] = _starter_prints(repo, starter) if starter else []
        finally:
            repo.objects.close()
        if key:
            _write_entry(key, data)
        return _from_data(path, data)
    # The boundary: one hostile submission cannot take the others down.
    except Exception as error:
        return Entry(path.name, path, problem=failures.record(f"similarity {path}", error))


class Index:
    """The cohort's entries by name; `add` reads one more (an arrival) without reading the others."""

    def __init__(self, cohort: Path) -> None:
        self.cohort = cohort
        self.base = cohorts.cohort_base(cohort)
        self.entries: dict[str, Entry] = {}

    def load(self, paths_: Iterable[Path], workers: int = 4) -> Index:
        """Entries from the cache in this thread (CPU-bound: threads would only wait on each other),
        then the rest on a few threads, which overlap their waiting on git."""
        todo = []
        for path in paths_:
            cached = cached_entry(path, self.base)
            if cached is None:
                todo.append(path)
            else:
                self.entries[cached.name] = cached
        if todo:
            with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
                for entry in pool.map(lambda p: read_entry(p, self.base), todo):
                    self.entries[entry.name] = entry
        return self

    def add(self, path: Path) -> Entry:
        entry = read_entry(path, self.base)
        self.entries[entry.name] = entry
        return entry

    def full(self, name: str) -> similarity.Prints | None:
        """The submission's prints with their places: from the cache's full entry, else read again."""
        entry = self.entries[name]
        if not entry.lean or entry.prints is None:
            return entry.prints
        key = submission_key(entry.path, self.base)
        data = _read_cached(key + FULL) if key else None
        if data is not None and isinstance(data.get("files"), list):
            files = [similarity.FilePrints.from_json(f) for f in data["files"]]
        else:
            again = read_entry(entry.path, self.base, cached_ok=False).prints
            files = again.files if again is not None else []
        entry.prints = similarity.Prints(entry.prints.name, files, entry.prints.skipped)
        entry.lean = False
        return entry.prints

    def excluded(self) -> dict[str, set[int]]:
        starter: set[int] = set()
        for entry in self.entries.values():
            starter.update(entry.starter)
        return {STARTER: starter, DRAFT: set(draft_prints())}

    def compare(self, everything: bool = False) -> similarity.Comparison:
        readable = [e.prints for e in sorted(self.entries.values(), key=lambda e: e.name) if e.prints is not None]
        return similarity.compare(readable, self.excluded(), everything=everything)


def build(cohort: Path, workers: int = 4) -> Index:
    return Index(cohort).load(cohorts.list_submissions(cohort), workers)


def pair_fragments(index: Index, comparison: similarity.Comparison, a: str, b: str) -> list[similarity.Fragment]:
    """The fragments `a` and `b` share of their own code, longest first (file and lines in each)."""
    first, second = index.full(a), index.full(b)
    if first is None or second is None:
        return []
    wanted = comparison.own_hashes.get(a, set()) & comparison.own_hashes.get(b, set())
    return similarity.fragments(first, second, wanted)


def file_texts(entry: Entry, files: Iterable[str]) -> dict[str, str]:
    """The files' text at the submission's HEAD as it was fingerprinted, read from the sanitised copy."""
    repo = gitsafe.open_submission(entry.path)
    try:
        found = {}
        for path in files:
            data = repo.show(entry.head or "HEAD", path, MAX_FILE_BYTES)
            found[path] = data.decode("utf-8", "replace") if data is not None else ""
        return found
    finally:
        repo.objects.close()
