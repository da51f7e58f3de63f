"""Which diffs of a submission the diff pane can show: the whole submission (starter → HEAD), each
commit's own change after the starter, the model draft → HEAD, and what changed since the reviewer's
last review; and the stepping from one commit's diff to the next (`<` / `>`)."""

from __future__ import annotations

from dataclasses import dataclass

from review.core.text import safe_line
from review.services.analysis import Analysis


@dataclass(frozen=True)
class DiffRange:
    base: str
    target: str
    label: str


def submission_ranges(analysis: Analysis) -> list[DiffRange]:
    """The whole submission first, then each commit's own diff after the starter, oldest first
    (merges have none of their own here)."""
    ranges = [DiffRange(analysis.base, analysis.head, "whole submission (starter → HEAD)")]
    after_base = False
    own = []
    for commit in analysis.commits:
        if after_base and commit.parents:
            own.append(commit)
        after_base = after_base or commit.sha == analysis.base
    for number, commit in enumerate(own, start=1):
        ranges.append(
            DiffRange(
                commit.parents[0],
                commit.sha,
                f"commit {number} of {len(own)}: {commit.short} “{safe_line(commit.subject, 60)}”",
            )
        )
    return ranges


def draft_range(analysis: Analysis) -> DiffRange | None:
    """The model draft → HEAD (what the candidate changed after it); None without a draft."""
    if not analysis.draft:
        return None
    label = f"model draft {analysis.draft[:7]} → HEAD (what the candidate changed after it)"
    return DiffRange(analysis.draft, analysis.head, label)


def since_review(analysis: Analysis, reviewed: str | None) -> DiffRange | None:
    """What changed since the commit this reviewer scored; None when HEAD has not moved since."""
    if reviewed is None or reviewed == analysis.head:
        return None
    label = f"since your review at {reviewed[:7]} → HEAD {analysis.head[:7]} (d: whole submission)"
    return DiffRange(reviewed, analysis.head, label)


def step_from(position: int, delta: int, count: int) -> int | None:
    """The range `delta` commits on from `position` among `count` ranges (0: the whole submission,
    from which `<` goes to the last commit's; below 0: a range outside the list, stepped as from the
    whole); None past the last commit's."""
    last = count - 1
    position = max(0, position)
    if position == 0 and delta < 0:
        return last
    if position == last and delta > 0:
        return None
    return min(last, max(0, position + delta))
