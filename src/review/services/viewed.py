"""Files a reviewer has read in the diff ("viewed"), kept in the submission's score file beside the
reviews, one sealed entry per reviewer (or pair):

    [[viewed]]
    reviewers = ["ana"]
    updated = "2026-12-02T19:55:01Z"
    seal = "<key id>:<HMAC-SHA256>"      # as a review's (services/seal.py)
    [viewed.files]
    "checkout.mjs" = "<blob id at the reviewed commit>"

A file counts as viewed while its blob at HEAD is the one recorded: a commit that changes the file
resets the mark (read it again), one that leaves it alone keeps it. Marks are no review: they never
make a row "in review", and a save of the reviews keeps them as they are on disk (an unknown
top-level field to the store). An entry whose seal does not verify is not counted (a planted mark
could hide a file from the reviewer) and is kept on disk as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from review.services import seal, store
from review.services.score_lock import StoreError, locked

FIELD = "viewed"


@dataclass
class ViewedFiles:
    """The files this reviewer viewed: path -> the blob id it was read at ("" for a file deleted at HEAD); and
    how many entries of the file were not counted, and why."""

    files: dict[str, str] = field(default_factory=dict)
    unsealed: int = 0
    problem: str | None = None


def _who(entry: dict) -> tuple[str, ...] | None:
    reviewers = entry.get("reviewers")
    if not isinstance(reviewers, list) or not all(isinstance(name, str) for name in reviewers):
        return None
    return tuple(sorted(reviewers))


def _entries(scores: store.ScoreFile) -> list[dict]:
    value = scores.extra.get(FIELD)
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def read(scores: store.ScoreFile, reviewers: list[str]) -> ViewedFiles:
    """The sealed viewed files of `reviewers` in a score file as read (no I/O past the seal key)."""
    found = ViewedFiles(problem=scores.problem)
    people = tuple(sorted(reviewers))
    try:
        secret = seal.key()
    except seal.SealError as error:
        found.problem = str(error)
        return found
    for entry in _entries(scores):
        if _who(entry) != people:
            continue
        files = entry.get("files")
        if not isinstance(files, dict) or seal.check(entry, secret) is not None:
            found.unsealed += 1
            continue
        found.files = {str(path): blob for path, blob in files.items() if isinstance(blob, str)}
    return found


def save(submission: Path, reviewers: list[str], changes: dict[str, str | None]) -> ViewedFiles:
    """Record `changes` (path -> blob id now viewed, or None: no longer viewed) in this reviewer's
    entry, merged with what is on disk (another console's marks on other files stay), sealed; the
    marks after it. Under the score file's lock, written as a review's save is (atomic, fsynced)."""
    path = store.score_path(submission)
    people = sorted(reviewers)
    try:
        secret = seal.key(create=True)
    except seal.SealError as error:
        raise StoreError(f"{error}; the mark was not kept") from None
    assert secret is not None
    with locked(path):
        current = store.read_scores(submission)
        if current.problem:
            raise StoreError(f"{current.problem}; it was not overwritten, and the mark was not kept")
        if current.schema > store.SCHEMA:
            raise StoreError(
                f"{path.name} was written by a newer version of review (schema {current.schema}); the mark was not kept"
            )
        entries = _entries(current)
        mine = read(current, people).files
        for file_path, blob in changes.items():
            if blob is None:
                mine.pop(file_path, None)
            else:
                mine[file_path] = blob
        entry: dict = {"reviewers": people, "updated": store.now(), "files": dict(sorted(mine.items()))}
        entry["seal"] = seal.sign(entry, secret)
        # Other reviewers' entries (and unsealed ones in this name) stay as they were; ours is replaced.
        others = [each for each in entries if _who(each) != tuple(people) or seal.check(each, secret) is not None]
        document = {
            **current.extra,
            "schema": store.SCHEMA,
            "submission": submission.name,
            "reviews": [review.raw if review.raw is not None else review.to_toml() for review in current.reviews]
            + [raw for raw, _why in current.unsealed],
            FIELD: [*others, entry],
        }
        store.replace_file(path, document)
    return ViewedFiles(mine)
