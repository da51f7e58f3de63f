"""The diff as rows on screen (a file header, its notes, each hunk's header and lines), made on
demand: a 130,000-line diff is a few hundred segments, and row i is found by bisection. Building
every row first cost a third of a second before anything could be painted.

Side by side, a hunk's rows pair a change's removed lines with its added lines (`Hunk.side_by_side`).
A moved block gets a row of its own above its first line ("moved to b.mjs:3 (4 lines)"), so a hunk
with moved blocks is several segments: its header and the lines before the first block, then each
block's note and the lines after it."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, overload

from review.core import diff
from review.core.diff import MAX_PATCH_BYTES

MAX_SHOWN = 2000  # characters of one line shown; the rest is said, not drawn (no need to measure further)


@dataclass(frozen=True, slots=True)
class Row:
    kind: str  # file | hunk | moved | info | line | pair
    file: int
    hunk: int = -1
    # A line row's line, and its index in the hunk (side by side: the old side's, or None).
    line: diff.DiffLine | None = None
    text: str = ""
    index: int = -1
    # Side by side: the new side's line and its index.
    right: diff.DiffLine | None = None
    right_index: int = -1
    # A moved block's row: the block's ends that start here.
    moves: tuple[diff.MoveEnd, ...] = ()


class _Segment(NamedTuple):
    """A row (`kind`, `text`), then `lines` rows of `hunk`'s lines (or its side-by-side rows) from `first`."""

    kind: str
    file: int
    hunk_index: int
    text: str
    hunk: diff.Hunk | None = None
    first: int = 0
    lines: int = 0
    moves: tuple[diff.MoveEnd, ...] = ()


def file_header(file_diff: diff.FileDiff) -> str:
    name = f"{file_diff.old_path} → {file_diff.path}" if file_diff.old_path else file_diff.path
    counts = f"+{file_diff.added} −{file_diff.removed}"
    if file_diff.ai_added:
        counts += f" · AI {file_diff.ai_added}: {', '.join(file_diff.tools)}"
    return f"{name}  ({file_diff.status}{', binary' if file_diff.binary else ''}, {counts})"


def hunk_label(hunk: diff.Hunk) -> str:
    tools = hunk.tools
    return hunk.header + (f"   AI: {', '.join(tools)} ({hunk.ai_added} of {hunk.added} added lines)" if tools else "")


def moved_label(ends: Sequence[diff.MoveEnd]) -> str:
    return "↕ " + " · ".join(end.text for end in ends)


def _no_change(file_diff: diff.FileDiff) -> str:
    if file_diff.whitespace_hidden:
        count = file_diff.whitespace_hidden
        return f"only whitespace changed ({count} line{'s' * (count != 1)} hidden; W shows them)"
    return "no content change"


class DiffRows(Sequence[Row]):
    """Every row of the diff (or of its AI-attributed hunks), unified or side by side, as a sequence;
    rows are made when read."""

    def __init__(self, diff: diff.Diff, ai_only: bool = False, side_by_side: bool = False) -> None:
        self.side_by_side = side_by_side
        self._starts: list[int] = []
        self._segments: list[_Segment] = []
        self._pairs: dict[int, list[tuple[int, int]]] = {}
        self.hunk_rows: list[int] = []
        self.file_rows: list[int] = []
        self.widest = 0
        # The longest line of code (side by side, what each side scrolls over).
        self.widest_code = 0
        self._length = 0
        for file_index, file_diff in enumerate(diff.files):
            hunks = [(i, h) for i, h in enumerate(file_diff.hunks) if not ai_only or h.ai_added]
            if ai_only and not hunks:
                continue
            self.file_rows.append(self._length)
            self._add(_Segment("file", file_index, -1, file_header(file_diff)))
            if file_diff.binary:
                self._add(_Segment("info", file_index, -1, "binary file: contents not shown"))
            if file_diff.old_mode and file_diff.new_mode and file_diff.old_mode != file_diff.new_mode:
                self._add(_Segment("info", file_index, -1, f"mode {file_diff.old_mode} → {file_diff.new_mode}"))
            if not file_diff.hunks and not file_diff.binary:
                self._add(_Segment("info", file_index, -1, _no_change(file_diff)))
            for hunk_index, hunk in hunks:
                self.hunk_rows.append(self._length)
                self._add_hunk(file_index, hunk_index, hunk)
        if diff.truncated:
            self._add(_Segment("info", -1, -1, f"the diff was cut at {MAX_PATCH_BYTES >> 20} MiB"))
        if not self._length:
            self._add(
                _Segment(
                    "info", -1, -1, "no AI-attributed hunks in this range" if ai_only else "no changes in this range"
                )
            )

    def _add_hunk(self, file_index: int, hunk_index: int, hunk: diff.Hunk) -> None:
        rows = hunk.counts().paired if self.side_by_side else len(hunk.lines)
        # Where each moved block's note goes: before the row of its first line.
        notes: dict[int, list[diff.MoveEnd]] = {}
        if hunk.moves:
            at_row = {index: index for index, _end in hunk.moves}
            if self.side_by_side:
                at_row = {}
                for row, (left, right) in enumerate(self.pairs(hunk)):
                    at_row.setdefault(left, row)
                    at_row.setdefault(right, row)
            for index, end in hunk.moves:
                notes.setdefault(at_row.get(index, 0), []).append(end)
        starts = sorted(notes)
        bounds = [*starts, rows]
        first = bounds[0]
        self._add(_Segment("hunk", file_index, hunk_index, hunk_label(hunk), hunk, 0, first))
        for number, start in enumerate(starts):
            ends = tuple(notes[start])
            self._add(
                _Segment(
                    "moved", file_index, hunk_index, moved_label(ends), hunk, start, bounds[number + 1] - start, ends
                )
            )

    def _add(self, segment: _Segment) -> None:
        self._starts.append(self._length)
        self._segments.append(segment)
        self._length += 1 + segment.lines
        hunk = segment.hunk
        if hunk is not None and self.widest_code < MAX_SHOWN:
            self.widest_code = max(self.widest_code, hunk.widest)
        if self.widest < MAX_SHOWN:
            self.widest = max(self.widest, len(segment.text), self.widest_code)

    def pairs(self, hunk: diff.Hunk) -> list[tuple[int, int]]:
        """The hunk's side-by-side rows, made once it is first drawn."""
        found = self._pairs.get(id(hunk))
        if found is None:
            found = self._pairs[id(hunk)] = hunk.side_by_side()
        return found

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
        segment = self._segments[at]
        offset = index - self._starts[at]
        if offset and segment.hunk is not None:
            return self._line_row(segment, segment.first + offset - 1)
        return Row(segment.kind, segment.file, segment.hunk_index, text=segment.text, moves=segment.moves)

    def _line_row(self, segment: _Segment, position: int) -> Row:
        hunk = segment.hunk
        assert hunk is not None
        if not self.side_by_side:
            return Row("line", segment.file, segment.hunk_index, hunk.lines[position], index=position)
        left, right = self.pairs(hunk)[position]
        return Row(
            "pair",
            segment.file,
            segment.hunk_index,
            hunk.lines[left] if left >= 0 else None,
            index=left,
            right=hunk.lines[right] if right >= 0 else None,
            right_index=right,
        )

    def __iter__(self) -> Iterator[Row]:
        for segment in self._segments:
            yield Row(segment.kind, segment.file, segment.hunk_index, text=segment.text, moves=segment.moves)
            for offset in range(segment.lines):
                yield self._line_row(segment, segment.first + offset)

    def row_of_move(self, end: diff.MoveEnd) -> int | None:
        """The row of a moved block's note (None: its hunk is not shown)."""
        return next(
            (
                self._starts[at]
                for at, segment in enumerate(self._segments)
                if segment.kind == "moved" and any(each is end for each in segment.moves)
            ),
            None,
        )
