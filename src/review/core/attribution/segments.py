"""Claims as runs of HEAD lines instead of one list per line: blame's lines grouped into blocks (the
same commit's consecutive lines, with the same layer-1 claim), each source's claim an interval of
HEAD lines, and a sweep that hands out each stretch of lines where the same claims hold (a 100k-line
history with a note on every commit: a few thousand stretches, not 100k lists). Pure."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from review.core.attribution.records import LineRecord, Ranges

# Per HEAD line of a file (1-based index - 1): the commit that wrote it, its line number and path in
# that commit, and the commit that moved or copied it to where it is ("" when it never moved).
Origins = list[tuple[str, int, str, str]]
# path -> each HEAD line's origin.
Blame = dict[str, Origins]

# What a claim interval is, in the order its claims come in a line's list (merge.settle reads the list
# in this order: commit metadata, records standing alone in their order, records of a family, the note).
COMMIT, RECORD, FAMILY, NOTE = 0, 1, 2, 3


@dataclass(slots=True)
class Block:
    """HEAD lines start..end of one path: one commit's consecutive lines of one file there, moved
    there by one commit (`mover`, "" when they never moved); `claim` is what commit metadata says of
    them (merge sets it; None: no commit known)."""

    start: int
    end: int
    sha: str
    there: str
    orig_start: int
    mover: str
    claim: Any = None


@dataclass(slots=True)
class Interval:
    """HEAD lines start..end of one path, claimed by one source. `seq` orders claims of one kind
    (a record's or a note entry's index); `claim` is the claim, or for a family record (its family,
    its order, its claim or None)."""

    start: int
    end: int
    kind: int
    seq: int
    claim: Any


def blocks(origins: Origins) -> list[Block]:
    """A path's lines as blocks: a block ends where the commit, the file there or the mover changes,
    or the line there is not the next one."""
    found: list[Block] = []
    # The open block's commit, file there, mover, and the line there its next line would have.
    sha = there = mover = None
    expected = -1
    for index, origin in enumerate(origins, start=1):
        if origin[1] == expected and origin[0] == sha and origin[2] == there and origin[3] == mover:
            expected += 1
            continue
        if found:
            found[-1].end = index - 1
        sha, orig, there, mover = origin
        expected = orig + 1
        found.append(Block(index, index, sha, there, orig, mover))
    if found:
        found[-1].end = len(origins)
    return found


class Introduced:
    """Which HEAD blocks each commit introduced into each of its paths: a record about commit C's file
    P looks only at the blocks that came from C's P, in whatever file they are now."""

    def __init__(self, by_path: dict[str, list[Block]]) -> None:
        # (commit, path there) -> [(path at HEAD, block)]
        self.blocks: dict[tuple[str, str], list[tuple[str, Block]]] = {}
        # path there -> the commits that introduced lines to it, for a commit named by a short id.
        self.commits: dict[str, list[str]] = {}
        for at_head, path_blocks in by_path.items():
            for block in path_blocks:
                key = (block.sha, block.there)
                found = self.blocks.get(key)
                if found is None:
                    found = self.blocks[key] = []
                    self.commits.setdefault(block.there, []).append(block.sha)
                found.append((at_head, block))

    def by(self, commit: str, path: str) -> Iterator[tuple[str, Block]]:
        exact = self.blocks.get((commit, path))
        if exact is not None:
            yield from exact
            return
        # A legacy note may name its commit by a short id.
        for sha in self.commits.get(path, []):
            if commit and sha.startswith(commit):
                yield from self.blocks[(sha, path)]


def record_lines(
    record: LineRecord, wanted: Ranges, head: str, by_path: dict[str, list[Block]], introduced: Introduced
) -> Iterator[tuple[str, int, int]]:
    """The HEAD lines a record names (`wanted`: its ranges), as (path, first, last) runs: about HEAD,
    its own ranges within the traced file; about an older commit, the lines of that commit's file that
    survive, mapped through the blocks."""
    if record.commit in (None, head):
        path_blocks = by_path.get(record.path)
        length = path_blocks[-1].end if path_blocks else 0
        for start, end in wanted:
            if max(1, start) <= min(end, length):
                yield record.path, max(1, start), min(end, length)
        return
    for at_head, block in introduced.by(record.commit or "", record.path):
        first, last = block.orig_start, block.orig_start + (block.end - block.start)
        # The first range that ends at or after the block's first line there, and on while they overlap.
        at = bisect.bisect_left(wanted.ends, first)
        while at < len(wanted.starts) and wanted.starts[at] <= last:
            low, high = max(wanted.starts[at], first), min(wanted.ends[at], last)
            yield at_head, block.start + (low - first), block.start + (high - first)
            at += 1


def sweep(intervals: list[Interval]) -> Iterator[tuple[int, int, list[Interval]]]:
    """The stretches of lines where the same intervals hold: (first line, last line, those intervals in
    the order they were given), in line order; stretches no interval covers are skipped."""
    if not intervals:
        return
    # Most often the intervals that overlap cover the same lines (a record names what one commit
    # wrote): each such range is a stretch of its own, no sweep needed.
    by_range: dict[tuple[int, int], list[int]] = {}
    for index, interval in enumerate(intervals):
        by_range.setdefault((interval.start, interval.end), []).append(index)
    ranges = sorted(by_range)
    if all(ranges[at][0] > ranges[at - 1][1] for at in range(1, len(ranges))):
        for first, last in ranges:
            yield first, last, [intervals[i] for i in by_range[(first, last)]]
        return
    ordered = sorted(range(len(intervals)), key=lambda i: intervals[i].start)
    bounds = sorted({iv.start for iv in intervals} | {iv.end + 1 for iv in intervals})
    active: list[int] = []
    taken = 0
    for at in range(len(bounds) - 1):
        first, last = bounds[at], bounds[at + 1] - 1
        while taken < len(ordered) and intervals[ordered[taken]].start <= first:
            active.append(ordered[taken])
            taken += 1
        active = [i for i in active if intervals[i].end >= first]
        if active:
            yield first, last, [intervals[i] for i in sorted(active)]
