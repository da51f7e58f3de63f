"""Line-level authorship records (git-ai notes, Agent Trace): lines of a file as of a commit. Pure."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass
class LineRecord:
    """A line-level authorship record: lines of `path` as of `commit` (None: HEAD)."""

    path: str
    commit: str | None
    ranges: list[tuple[int, int]]
    tool: str | None  # None: a person
    source: str
    # Records of one family (one trace file, one store of notes) settle the lines they share among
    # themselves: the highest `order` wins, with no conflict (a later edit, a range's own contributor
    # over its conversation's). Records with no family each stand alone.
    family: str = ""
    order: int = 0
    claims: bool = True  # False: the record says the lines' origin is unknown: it claims nothing
    # The author's name as the record gives it, when the record names people and tools alike (git-ai's
    # legacy authorship): one that is the commit's own author or committer is that person.
    author: str | None = None


@dataclass(frozen=True)
class Notice:
    """What a line-level source said that is no claim on a line (a range of unknown origin, a record
    that cannot be placed, a note on a commit no longer in the history): listed, never dropped."""

    source: str
    message: str
    unplaced: bool = False  # it names lines it could not place (the row's disclosure reads "unmapped")

    def to_json(self) -> dict:
        return {"source": self.source, "message": self.message}


class Ranges:
    """Line ranges as merged, sorted intervals: membership by bisection, memory by interval count."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(ranges):
            if merged and start <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self.starts = [start for start, _ in merged]
        self.ends = [end for _, end in merged]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.starts, self.ends)

    def __contains__(self, line: object) -> bool:
        if not isinstance(line, int):
            return False
        at = bisect.bisect_right(self.starts, line) - 1
        return at >= 0 and line <= self.ends[at]


Runs = dict[str, list[tuple[int, list[bytes]]]]  # path -> runs of consecutive added lines: (first line, texts)


def added_runs(added: dict[str, list[tuple[int, str]]]) -> Runs:
    """Runs of consecutive added lines per path (their UTF-8 bytes), from (line number, text) pairs in order."""
    runs: Runs = {}
    for path, lines in added.items():
        found = runs.setdefault(path, [])
        for number, text in lines:
            data = text.encode("utf-8", "surrogateescape")
            if found and found[-1][0] + len(found[-1][1]) == number:
                found[-1][1].append(data)
            else:
                found.append((number, [data]))
    return runs


# A line number, or two with a hyphen between: compiled once (5,000 notes read a range or more each).
_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


def parse_ranges(text: str) -> list[tuple[int, int]]:
    ranges = []
    for part in text.split(","):
        part = part.strip()
        if part.isdecimal():  # one line (most ranges): a number alone, as the pattern reads it
            ranges.append((int(part), int(part)))
            continue
        found = _RANGE.fullmatch(part)
        if found:
            a, b = int(found[1]), int(found[2] or found[1])
            ranges.append((min(a, b), max(a, b)))
    return ranges


def line_runs(numbers: list[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as runs: [1, 2, 3, 7] → [(1, 3), (7, 7)]."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs
