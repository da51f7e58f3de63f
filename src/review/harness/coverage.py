"""V8 coverage (what NODE_V8_COVERAGE writes) → how many times each line of a file ran. Pure: no I/O.

V8 reports, per function, ranges of UTF-16 offsets with a count; a nested range overrides the
one around it (a branch that never ran inside a function that did). A line's count is the count
at its first non-blank character, so `if (x) {` counts the condition, and the `}` closing a
block that never ran counts 0. Blank and comment-only lines have no count.

The files come out of the sandbox, written by the same process as the candidate's code, so they
are parsed defensively and shown as an overlay, never used for a verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote

from review.core import jsondata

MAX_REPORT = 16 << 20
Counts = dict[int, int]  # line number (1-based) -> times it ran


def _line_starts(source: str) -> list[tuple[int, str]]:
    """(UTF-16 offset of the line's first non-blank character, the stripped line) for each line."""
    starts, offset = [], 0
    for line in source.split("\n"):
        stripped = line.lstrip(" \t\r")
        indent = len(line) - len(stripped)
        starts.append((offset + _utf16_len(line[:indent]), stripped))
        offset += _utf16_len(line) + 1
    return starts


def _utf16_len(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _is_code(stripped: str) -> bool:
    return bool(stripped) and not stripped.startswith(("//", "/*", "*"))


def line_counts(source: str, functions: list[dict]) -> Counts:
    ranges: list[tuple[int, int, int]] = []
    for function in functions:
        for item in function.get("ranges", []) if isinstance(function, dict) else []:
            try:
                start, end, count = int(item["startOffset"]), int(item["endOffset"]), int(item["count"])
            except (KeyError, TypeError, ValueError):
                continue
            if 0 <= start < end:
                ranges.append((start, end, max(0, count)))
    ranges.sort(key=lambda r: (r[0], -r[1]))  # outer before inner: inner ranges win
    counts: Counts = {}
    for number, (offset, stripped) in enumerate(_line_starts(source), start=1):
        if not _is_code(stripped):
            continue
        found = None
        for start, end, count in ranges:
            if start > offset:
                break
            if offset < end:
                found = count
        if found is not None:
            counts[number] = found
    return counts


def merge(into: Counts, more: Counts) -> None:
    """takeCoverage() resets V8's counters, so successive reports add up."""
    for line, count in more.items():
        into[line] = into.get(line, 0) + count


def parse_reports(reports: Iterable[bytes], sources: dict[str, str], url_prefix: str) -> dict[str, Counts]:
    """Every report's entries for the files in `sources` (path relative to the run's folder, whose
    URL inside the sandbox starts with `url_prefix`, e.g. "file:///sub/")."""
    result: dict[str, Counts] = {}
    for raw in reports:
        if len(raw) > MAX_REPORT:
            continue
        data = jsondata.loads(raw)
        entries = data.get("result") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
                continue
            url = entry["url"]
            if not url.startswith(url_prefix):
                continue
            path = unquote(url[len(url_prefix) :])
            if path not in sources or not isinstance(entry.get("functions"), list):
                continue
            merge(result.setdefault(path, {}), line_counts(sources[path], entry["functions"]))
    return result


def ran_lines(counts: Counts) -> int:
    return sum(1 for count in counts.values() if count > 0)
