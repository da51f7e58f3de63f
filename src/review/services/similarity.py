"""A cohort's fingerprint index: each submission's code files at HEAD that the candidate changed,
read through the sanitised copy and fingerprinted (review.core.similarity), kept on disk per HEAD as
the triage rows are; the starter's and the model draft's fingerprints beside them. A submission that
arrives is fingerprinted alone and compared against the index as it stands."""

from __future__ import annotations

import array
import base64
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


# A file's fingerprints by its object id and grammar, for this process: most of a cohort keeps the
# same draft file (one object id), read once instead of once per submission. Emptied when full.
_by_object: dict[tuple[str, str], tuple[int, list[tuple[int, int, int, int]]]] = {}
BY_OBJECT_MAX = 4096


def fingerprint_blob(path: str, data: bytes, oid: str = "") -> similarity.FilePrints | str:
    """A file's fingerprints, or why it is not compared. `oid`: its object id (equal ids, equal bytes)."""
    language = similarity.language_of(path)
    if language is None:
        return "not code"
    if len(data) > MAX_FILE_BYTES:
        return f"too large ({len(data) // 1024} KiB; compared up to {MAX_FILE_BYTES // 1024} KiB)"
    if b"\0" in data[:8192]:
        return "binary"
    known = _by_object.get((oid, language)) if oid else None
    if known is not None:
        return similarity.FilePrints(path, known[0], known[1])
    ids, lines = similarity.tokenize(data, language)
    made = similarity.fingerprint(path, ids, lines)
    if oid:
        if len(_by_object) >= BY_OBJECT_MAX:
            _by_object.clear()
        _by_object[(oid, language)] = (made.tokens, made.prints)
    return made


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
        made = fingerprint_blob(entry.path, found[1], entry.oid) if found else "cannot be read from the copy"
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
        made = fingerprint_blob(entry.path, blob[1], entry.oid) if blob else None
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
    # Read from the cohort's pack: the files' prints are read when a pair's fragments are asked for.
    lean: bool = False
    key: str | None = None


def _from_data(path: Path, data: dict, key: str | None) -> Entry:
    """An entry from a submission's cached (or just read) document: every file's prints with places."""
    prints = similarity.Prints(
        path.name,
        [similarity.FilePrints.from_json(f) for f in data["files"]],
        [(str(p), str(why)) for p, why in data["skipped"]],
    )
    entry = Entry(path.name, path, prints, data["head"], data["base"], list(data.get("starter", [])))
    entry.unchanged, entry.key = int(data["unchanged"]), key
    return entry


def read_entry(path: Path, base: str | None, cached_ok: bool = True) -> Entry:
    """A submission's fingerprints, from the cache when its HEAD was read before (`cached_ok`); any
    failure is the entry's problem, never the cohort's end."""
    try:
        key = submission_key(path, base) if not path.is_symlink() else None
        cached = _read_cached(key) if key and cached_ok else None
        if cached is not None:
            return _from_data(path, cached, key)
        if path.is_symlink():
            raise gitsafe.GitSafeError("a symbolic link; not followed")
        if cohorts.is_archive(path):
            raise gitsafe.GitSafeError("an archive, not a submission folder (`review import` unpacks it)")
        repo = gitsafe.open_submission(path)
        # A few objects of each of many clones: read from the clone's files, no git process each.
        repo.objects.local_first = True
        try:
            starter = _base_of(repo, base)
            data = _read_files(repo, starter)
            data["starter"] = _starter_prints(repo, starter) if starter else []
        finally:
            repo.objects.close()
        if key:
            _write_cached(key, data)
        return _from_data(path, data, key)
    # The boundary: one hostile submission cannot take the others down.
    except Exception as error:
        return Entry(path.name, path, problem=failures.record(f"similarity {path}", error))


def _packed(numbers: Iterable[int]) -> str:
    """Fingerprints (64-bit) as base64 of their bytes: a cohort's quarter of a million read at once."""
    return base64.b64encode(array.array("q", numbers).tobytes()).decode("ascii")


def _unpacked(text: str) -> array.array:
    found = array.array("q")
    found.frombytes(base64.b64decode(text))
    return found


class Pack:
    """The cohort's index in one cache file: each submission's distinct fingerprints, what its files
    are and are not, by the key of its HEAD; each starter's fingerprints once. A warm load reads this
    one file instead of a file per submission (the files' prints with places stay in those, read
    when a pair's fragments are asked for)."""

    def __init__(self, key: str, data: dict) -> None:
        self.key = key
        self.entries: dict[str, dict] = data.get("entries", {})
        self.starters: dict[str, str] = data.get("starters", {})

    @classmethod
    def read(cls, cohort: Path, base: str | None) -> Pack:
        key = hashlib.sha256(json.dumps(["cohort", str(cohort.resolve()), base]).encode()).hexdigest()
        return cls(key, _read_cached(key) or {})

    def entry(self, path: Path, key: str | None) -> Entry | None:
        """The submission's entry when its HEAD is the one packed, else None (read it again)."""
        data = self.entries.get(path.name)
        if key is None or data is None or data.get("key") != key:
            return None
        try:
            files = [similarity.FilePrints(str(p), int(tokens), []) for p, tokens in data["files"]]
            hashes = set(_unpacked(data["hashes"]))
            prints = similarity.Prints(path.name, files, [(str(p), str(why)) for p, why in data["skipped"]], hashes)
            base = data["base"]
            starter = list(_unpacked(self.starters[base])) if base else []
            entry = Entry(path.name, path, prints, data["head"], base, starter, int(data["unchanged"]), lean=True)
        # A pack that cannot be read so is only slower: the submission is read again.
        except Exception:
            return None
        entry.key = key
        return entry

    def write(self, entries: Iterable[Entry]) -> None:
        """The pack with these entries (the ones read without failure, by a key) beside the others it held."""
        for entry in entries:
            if entry.key is None or entry.prints is None or entry.problem:
                continue
            prints = entry.prints
            self.entries[entry.name] = {
                "key": entry.key,
                "head": entry.head,
                "base": entry.base,
                "files": [[f.path, f.tokens] for f in prints.files],
                "skipped": [list(pair) for pair in prints.skipped],
                "unchanged": entry.unchanged,
                "hashes": _packed(sorted(prints.hashes())),
            }
            if entry.base and entry.base not in self.starters:
                self.starters[entry.base] = _packed(entry.starter)
        _write_cached(self.key, {"entries": self.entries, "starters": self.starters})


class Index:
    """The cohort's entries by name; `add` reads one more (an arrival) without reading the others."""

    def __init__(self, cohort: Path) -> None:
        self.cohort = cohort
        self.base = cohorts.cohort_base(cohort)
        self.entries: dict[str, Entry] = {}

    def load(self, paths_: Iterable[Path], workers: int = 4) -> Index:
        """Entries from the cohort's pack when their HEAD is the one packed, then the rest on a few
        threads (which overlap their waiting on git), the pack written again with them."""
        packed = Pack.read(self.cohort, self.base)
        todo = []
        for path in paths_:
            entry = packed.entry(path, submission_key(path, self.base) if not path.is_symlink() else None)
            if entry is None:
                todo.append(path)
            else:
                self.entries[entry.name] = entry
        if todo:
            with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
                read = list(pool.map(lambda p: read_entry(p, self.base), todo))
            for entry in read:
                self.entries[entry.name] = entry
            # Written again only for something new to keep (an unreadable submission is read each time).
            if any(entry.key and not entry.problem for entry in read):
                packed.write(self.entries.values())
        return self

    def keep_only(self, names: set[str]) -> None:
        """Forget the submissions no longer in the cohort (a folder removed, then the cohort read again)."""
        self.entries = {name: entry for name, entry in self.entries.items() if name in names}

    def add(self, path: Path) -> Entry:
        entry = read_entry(path, self.base)
        self.entries[entry.name] = entry
        return entry

    def full(self, name: str) -> similarity.Prints | None:
        """The submission's prints with their places: from its own cached document, else read again."""
        entry = self.entries[name]
        if not entry.lean or entry.prints is None:
            return entry.prints
        again = read_entry(entry.path, self.base).prints
        entry.prints = similarity.Prints(entry.prints.name, again.files if again else [], entry.prints.skipped)
        entry.lean = False
        return entry.prints

    def excluded(self) -> dict[str, set[int]]:
        # Most submissions share one starter (one list, by its commit): each counted once.
        starter: set[int] = set().union(*{e.base: e.starter for e in self.entries.values()}.values())
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
