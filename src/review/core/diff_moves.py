"""Moved blocks within one diff: removed lines that come back, the same text in the same order, as
added lines elsewhere — later in the file, or in another file. A reviewer reads them as one move,
not as a deletion and an unrelated addition. Pure.

The thresholds are those of the history's replay (core.line_moves, as `git blame -M -C` counts): a
block moved within its file holds at least MOVE_MIN_ALNUM letters and digits, one moved to another
file at least COPY_MIN_ALNUM; a smaller block is a deletion and an addition. Each removed line is
the end of one move at most. Linear: removed lines are indexed by their text once, a seed line is
tried against at most MAX_CANDIDATES of them, and a block grows at most MAX_BLOCK lines.
"""

from __future__ import annotations

from review.core.diff import Diff, DiffLine, Hunk, MoveEnd
from review.core.line_moves import COPY_MIN_ALNUM, MOVE_MIN_ALNUM, alnum

# Removed lines of one text tried as the start of a block (a line repeated more often is no seed).
MAX_CANDIDATES = 16
# A longer run is found as several blocks, one after another.
MAX_BLOCK = 4096

# A run of removed (or added) lines: (its file's index, its hunk, the index of its first line there).
_Run = tuple[int, Hunk, int, list[DiffLine]]


def _runs(diff: Diff, kind: str) -> list[_Run]:
    runs: list[_Run] = []
    for file_index, file_diff in enumerate(diff.files):
        for hunk in file_diff.hunks:
            if (hunk.removed if kind == "-" else hunk.added) == 0:
                continue
            current: list[DiffLine] | None = None
            for index, line in enumerate(hunk.lines):
                if line.kind != kind:
                    current = None
                elif current is None:
                    current = [line]
                    runs.append((file_index, hunk, index, current))
                else:
                    current.append(line)
    return runs


def _seed(text: str) -> bool:
    return bool(text.strip()) and alnum(text.encode("utf-8", "surrogatepass")) > 0


def _longest(
    added: list[DiffLine], at: int, removed_runs: list[_Run], candidates: list[tuple[int, int]]
) -> tuple[int, int, int]:
    """The longest block from added[at] along one of the removed runs: (run, position, length)."""
    best = (-1, 0, 0)
    for run_number, position in candidates:
        lines = removed_runs[run_number][3]
        if lines[position].move is not None:
            continue
        length = 0
        while (
            length < MAX_BLOCK
            and at + length < len(added)
            and position + length < len(lines)
            and added[at + length].move is None
            and lines[position + length].move is None
            and added[at + length].text == lines[position + length].text
        ):
            length += 1
        if length > best[2]:
            best = (run_number, position, length)
    return best


def find_moves(diff: Diff) -> int:
    """Mark the diff's moved blocks on their lines (`DiffLine.move`) and hunks (`Hunk.moves`); how
    many blocks there are."""
    removed_runs = _runs(diff, "-")
    if not removed_runs:
        return 0
    where: dict[str, list[tuple[int, int]]] = {}
    for run_number, (_file, _hunk, _start, lines) in enumerate(removed_runs):
        for position, line in enumerate(lines):
            if _seed(line.text):
                places = where.setdefault(line.text, [])
                if len(places) < MAX_CANDIDATES:
                    places.append((run_number, position))
    files = diff.files
    blocks = 0
    for file_index, hunk, start, added in _runs(diff, "+"):
        at = 0
        while at < len(added):
            candidates = where.get(added[at].text)
            if not candidates or added[at].move is not None:
                at += 1
                continue
            run_number, position, length = _longest(added, at, removed_runs, candidates)
            if length == 0:
                at += 1
                continue
            from_file, from_hunk, from_start, removed = removed_runs[run_number]
            block = added[at : at + length]
            letters = sum(alnum(line.text.encode("utf-8", "surrogatepass")) for line in block)
            if letters < (MOVE_MIN_ALNUM if from_file == file_index else COPY_MIN_ALNUM):
                at += 1
                continue
            old = files[from_file]
            gone = MoveEnd("-", old.old_path or old.path, removed[position].old_no or 0, length, removed[position])
            came = MoveEnd("+", files[file_index].path, block[0].new_no or 0, length, block[0], gone)
            gone.other = came
            for line in removed[position : position + length]:
                line.move = gone
            for line in block:
                line.move = came
            from_hunk.moves.append((from_start + position, gone))
            hunk.moves.append((start + at, came))
            blocks += 1
            at += length
    for file_diff in files:
        for hunk in file_diff.hunks:
            hunk.moves.sort(key=lambda move: move[0])
    return blocks
