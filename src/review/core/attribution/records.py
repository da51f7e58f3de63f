"""Line-level authorship records (git-ai notes, Agent Trace): lines of a file as of a commit. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class LineRecord:
    """A line-level authorship record: lines of `path` as of `commit` (None: HEAD)."""

    path: str
    commit: str | None
    ranges: list[tuple[int, int]]
    tool: str | None  # None: a person
    source: str
    # The author's name as the record gives it, when the record names people and tools alike (git-ai's
    # legacy authorship): one that is the commit's own author or committer is that person.
    author: str | None = None


def parse_ranges(text: str) -> list[tuple[int, int]]:
    ranges = []
    for part in text.split(","):
        part = part.strip()
        if re.fullmatch(r"\d+", part):
            ranges.append((int(part), int(part)))
        elif re.fullmatch(r"\d+-\d+", part):
            a, b = (int(x) for x in part.split("-"))
            ranges.append((min(a, b), max(a, b)))
    return ranges
