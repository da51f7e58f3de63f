"""Score files: ``COHORT/<name>.review.toml`` next to each submission's folder.

This module reads them for the triage table; saving (sidecar lock, merge, atomic replace)
lives here too once the rubric form lands.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = 1
SUFFIX = ".review.toml"


@dataclass
class ReviewEntry:
    reviewers: list[str]
    state: str  # draft | final
    commit: str


@dataclass
class ScoreFile:
    path: Path
    reviews: list[ReviewEntry] = field(default_factory=list)
    problem: str | None = None  # unreadable file: said, never silently treated as empty


def score_path(submission: Path) -> Path:
    return submission.parent / f"{submission.name}{SUFFIX}"


def read_scores(submission: Path) -> ScoreFile:
    path = score_path(submission)
    result = ScoreFile(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return result
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        result.problem = f"{path.name} cannot be read: {error}"
        return result
    for entry in data.get("reviews", []):
        if not isinstance(entry, dict):
            continue
        reviewers = entry.get("reviewers", [])
        result.reviews.append(ReviewEntry(
            reviewers=[str(r) for r in reviewers] if isinstance(reviewers, list) else [str(reviewers)],
            state=str(entry.get("state", "draft")),
            commit=str(entry.get("commit", "")),
        ))
    return result


def review_state(scores: ScoreFile, head: str | None) -> str:
    """new / in review / scored / stale (scored, but HEAD moved since)."""
    if not scores.reviews:
        return "new"
    finals = [r for r in scores.reviews if r.state == "final"]
    if any(r.commit == head for r in finals):
        return "scored"
    if finals:
        return "stale"
    return "in review"
