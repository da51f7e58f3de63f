"""A diff without its whitespace-only changes, as `git diff -w` reads them: a removed line whose text,
whitespace left out, comes back as an added line of the same change is no change, and is shown once,
as a context line with both its numbers (HEAD's on the new side). Pure; the diff given is not changed.

A hunk left with no change is dropped; a file left with none keeps its header and says how many
lines were hidden. Linear in the lines: each change is aligned on its whitespace-free texts (difflib)
while it is small enough, and line by line in order past that.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace

from review.core.diff import Diff, DiffLine, FileDiff, Hunk

_SPACE = re.compile(r"\s+")
# Past this many (removed × added) lines in one change, lines are paired in order instead of aligned.
MAX_ALIGNED = 250_000


def _bare(text: str) -> str:
    return _SPACE.sub("", text)


def _same_without_space(removed: list[DiffLine], added: list[DiffLine]) -> list[tuple[int, int]]:
    """(removed index, added index) of the lines that differ in whitespace only, in order."""
    old, new = [_bare(line.text) for line in removed], [_bare(line.text) for line in added]
    if len(old) * len(new) > MAX_ALIGNED:
        return [(i, i) for i in range(min(len(old), len(new))) if old[i] == new[i]]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(a + k, b + k) for a, b, size in matcher.get_matching_blocks() for k in range(size)]


def _change(removed: list[DiffLine], added: list[DiffLine], out: list[DiffLine]) -> int:
    """Write one change into `out`, each whitespace-only pair as one context line; how many pairs."""
    pairs = _same_without_space(removed, added)
    at_removed = at_added = 0
    for old_index, new_index in pairs:
        out += removed[at_removed:old_index]
        out += added[at_added:new_index]
        line = added[new_index]
        out.append(DiffLine(" ", line.text, removed[old_index].old_no, line.new_no))
        at_removed, at_added = old_index + 1, new_index + 1
    out += removed[at_removed:]
    out += added[at_added:]
    return len(pairs)


def _hunk(hunk: Hunk) -> tuple[Hunk | None, int]:
    """The hunk without its whitespace-only changes (None: nothing else changed), and how many lines
    it hides. A hunk that only adds or only removes is itself."""
    if not hunk.removed or not hunk.added:
        return hunk, 0
    lines: list[DiffLine] = []
    removed: list[DiffLine] = []
    added: list[DiffLine] = []
    hidden = 0
    for line in hunk.lines:
        if line.kind == "-" and not added:
            removed.append(line)
        elif line.kind == "+":
            added.append(line)
        else:
            hidden += _change(removed, added, lines)
            removed, added = ([line], []) if line.kind == "-" else ([], [])
            if line.kind != "-":
                lines.append(line)
    hidden += _change(removed, added, lines)
    if not hidden:
        return hunk, 0
    if not any(line.kind in "+-" for line in lines):
        return None, hidden
    kept = Hunk(hunk.header, hunk.old_start, hunk.old_len, hunk.new_start, hunk.new_len, lines)
    first_lines = {id(end.first): end for _index, end in hunk.moves}
    kept.moves = [(index, first_lines[id(line)]) for index, line in enumerate(lines) if id(line) in first_lines]
    kept.counts()
    return kept, hidden


def hide_whitespace_changes(diff: Diff) -> Diff:
    """A copy of `diff` without its whitespace-only changes; its `whitespace_hidden` (and each
    file's) says how many changed lines that hides."""
    files: list[FileDiff] = []
    total = 0
    for file_diff in diff.files:
        hunks: list[Hunk] = []
        hidden = 0
        for hunk in file_diff.hunks:
            kept, count = _hunk(hunk)
            hidden += count
            if kept is not None:
                hunks.append(kept)
        total += hidden
        files.append(replace(file_diff, hunks=hunks, whitespace_hidden=hidden) if hidden else file_diff)
    return replace(diff, files=files, whitespace_hidden=total)
