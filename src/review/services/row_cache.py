"""Triage rows kept on disk between sessions, per (submission, HEAD, base, notes refs, code): a warm
row costs reading a few files of the submission's .git — no clone, no git process.

What depends only on the commits (history counts, assistants, attribution, the share) is kept;
what can change without a commit (scores, the harness cache) is read again every time.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import review
from review import gitsafe
from review.gitsafe.head import check_repository
from review.harness import cache
from review.support import paths

CACHED_FIELDS = (
    "head",
    "commits",
    "last_commit",
    "assistants",
    "ai_share",
    "person_share",
    "unknown_share",
    "attribution",
    "disclosure",
)


@functools.cache
def code_version() -> str:
    """A digest of the code that computes a row: a change to it is a new key, never a stale row."""
    digest = hashlib.sha256(review.__version__.encode())
    root = Path(review.__file__).parent
    for folder in ("core", "gitsafe"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.read_bytes())
    for name in ("services/analysis.py", "services/line_sources.py", "services/cohort.py", "services/row_cache.py"):
        digest.update((root / name).read_bytes())
    return digest.hexdigest()[:16]


def key(path: Path, base: str | None) -> str | None:
    """The row's key from the submission's own files; None when it cannot be told (then: compute)."""
    try:
        head = gitsafe.read_head(path)
        # The clone's refusals (alternates, linked or special git internals, config includes), but not
        # the walk over every object: a warm row was made from a clone that passed it, and runs no git.
        check_repository(head.git_dir, deep=False)
    except gitsafe.GitSafeError:
        return None
    if head.sha is None:
        return None
    notes = gitsafe.refs_fingerprint(head.git_dir)
    if notes is None:
        return None
    raw = json.dumps([str(path.resolve()), head.sha, base, notes, code_version()])
    return hashlib.sha256(raw.encode()).hexdigest()


def _file(row_key: str, part: str = "") -> Path:
    return paths.cache_dir() / "rows" / f"{row_key}{part}.json"


# The attribution's spans are kept in a file of their own: a warm triage reads only the lean row
# (a 100k-line diff's spans are 600 KB of JSON that a triage table never shows).
SPANS = ".spans"


def get(row_key: str, spans: bool = False) -> dict | None:
    """The row kept under `row_key`; with `spans`, its attribution's spans too (None when either file
    is missing or unreadable: the row is computed again)."""
    try:
        data = json.loads(_file(row_key).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not set(CACHED_FIELDS) <= set(data):
            return None
        if spans and isinstance(data["attribution"], dict):
            kept = json.loads(_file(row_key, SPANS).read_text(encoding="utf-8"))
            if not isinstance(kept, list):
                return None
            data["attribution"] = {**data["attribution"], "spans": kept}
    except (OSError, ValueError):
        return None
    return data


def put(row_key: str, row: object) -> None:
    lean = {name: getattr(row, name) for name in CACHED_FIELDS}
    attribution = lean["attribution"]
    try:
        if isinstance(attribution, dict) and "spans" in attribution:
            # The spans first: a lean row on disk always has its spans beside it.
            cache.write_json_atomic(_file(row_key, SPANS), attribution["spans"])
            lean["attribution"] = {name: value for name, value in attribution.items() if name != "spans"}
        cache.write_json_atomic(_file(row_key), lean)
    except OSError:
        pass  # a cache that cannot be written is only slower


def fill(row: object, data: dict) -> None:
    """`get` made sure every cached field is there."""
    for name in CACHED_FIELDS:
        setattr(row, name, data[name])
