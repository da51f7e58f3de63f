"""The diff as rows on screen (a file header, its notes, each hunk's header and lines), made on
demand: a 130,000-line diff is a few hundred segments, and row i is found by bisection. Building
every row first cost a third of a second before anything could be painted."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from review.core import diff

MAX_SHOWN = 2000  # characters of one line shown; the rest is said, not drawn (no need to measure further)


@dataclass(frozen=True)
class Row:
    kind: str  # file | hunk | line | info
    file: int
    hunk: int = -1
    line: diff.DiffLine | None = None
    text: str = ""


def file_header(file_diff: diff.FileDiff) -> str:
    name = f"{file_diff.old_path} → {file_diff.path}" if file_diff.old_path else file_diff.path
    counts = f"+{file_diff.added} −{file_diff.removed}"
    if file_diff.ai_added:
        counts += f" · AI {file_diff.ai_added}: {', '.join(file_diff.tools)}"
    return f"{name}  ({file_diff.status}{', binary' if file_diff.binary else ''}, {counts})"


def hunk_label(hunk: diff.Hunk) -> str:
    tools = hunk.tools
    return hunk.header + (f"   AI: {', '.join(tools)} ({hunk.ai_added} of {hunk.added} added lines)" if tools else "")


class DiffRows(Sequence[Row]):
    """Every row of the diff (or of its AI-attributed hunks), as a sequence; rows are made when read."""

    def __init__(self, the_diff: diff.Diff, ai_only: bool = False) -> None:
        self._starts: list[int] = []
        # (kind, file, hunk, text, the hunk for a hunk segment): a hunk segment is its header + lines
        self._segments: list[tuple[str, int, int, str, diff.Hunk | None]] = []
        self.hunk_rows: list[int] = []
        self.file_rows: list[int] = []
        self.widest = 0
        self._length = 0
        for file_index, file_diff in enumerate(the_diff.files):
            hunks = [(i, h) for i, h in enumerate(file_diff.hunks) if not ai_only or h.ai_added]
            if ai_only and not hunks:
                continue
            self.file_rows.append(self._length)
            self._add("file", file_index, text=file_header(file_diff))
            if file_diff.binary:
                self._add("info", file_index, text="binary file: contents not shown")
            if file_diff.old_mode and file_diff.new_mode and file_diff.old_mode != file_diff.new_mode:
                self._add("info", file_index, text=f"mode {file_diff.old_mode} → {file_diff.new_mode}")
            if not file_diff.hunks and not file_diff.binary:
                self._add("info", file_index, text="no content change")
            for hunk_index, hunk in hunks:
                self.hunk_rows.append(self._length)
                self._add("hunk", file_index, hunk_index, hunk_label(hunk), hunk)
        if the_diff.truncated:
            self._add("info", -1, text=f"the diff was cut at {diff.MAX_PATCH_BYTES >> 20} MiB")
        if not self._length:
            self._add("info", -1, text="no AI-attributed hunks in this range" if ai_only else "no changes in this range")

    def _add(self, kind: str, file: int, hunk: int = -1, text: str = "", lines: diff.Hunk | None = None) -> None:
        self._starts.append(self._length)
        self._segments.append((kind, file, hunk, text, lines))
        self._length += 1 + (len(lines.lines) if lines is not None else 0)
        if self.widest < MAX_SHOWN:
            self.widest = max(self.widest, len(text), lines.widest if lines is not None else 0)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        at = bisect.bisect_right(self._starts, index) - 1
        kind, file, hunk, text, hunk_lines = self._segments[at]
        offset = index - self._starts[at]
        if offset and hunk_lines is not None:
            return Row("line", file, hunk, hunk_lines.lines[offset - 1])
        return Row(kind, file, hunk, text=text)

    def __iter__(self) -> Iterator[Row]:
        for kind, file, hunk, text, hunk_lines in self._segments:
            yield Row(kind, file, hunk, text=text)
            for line in hunk_lines.lines if hunk_lines is not None else ():
                yield Row("line", file, hunk, line)
