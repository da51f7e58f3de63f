"""The history replay's commits kept for their children, and a merge's lines passed to its parents, as
``git blame`` passes them. Pure.

The replay (core.line_origins) walks the commits parents first (``git log --topo-order --reverse``)
from one stream that holds, for a merge, its patch against each parent (``-m``). Each commit's files
(their lines' origins and texts) are kept only while a child has still to be read: a commit with one
child hands its files over (a linear history copies nothing), one with more keeps them until the last
child is read, and the lines kept are counted against the replay's bound.

At a merge, blame's rules, in its order (``pass_blame`` in git's blame.c): a file identical to a
parent's version takes that parent's lines whole (the first such parent); else each line the merge
shares with a parent's version (unchanged in the patch against it) takes that parent's origin, the
first parent first; what no parent holds is the merge's own (a hand-resolved conflict).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from review.core.line_moves import Origins, Section

# One file's lines at a commit: their origins and the texts the stream wrote ("+" and the line).
Files = dict[str, Origins]
Texts = dict[str, list[bytes]]
# A -U0 hunk's counts: old start, old count, new start, new count.
Hunk = tuple[int, int, int, int]


@dataclass
class Kept:
    """A commit's files, kept until its last child is read."""

    files: Files
    texts: Texts
    tracked: int  # the lines of its files
    lines: int  # those and its files, counted against the bound
    children: int  # children not read yet
    tree: str  # its tree: a merge has no patch against a parent with the same


@dataclass
class Aside:
    """A merge's patch against a parent other than the first: per path at the merge, the path it had
    in that parent and the hunks between them (their bodies are not kept)."""

    parent: str
    paths: dict[str, tuple[str | None, list[Hunk]]] = field(default_factory=dict)


def shared_lines(hunks: list[Hunk], length: int) -> list[int | None]:
    """For each line of the new side (0-based): its line in the old side, or None where the patch added it."""
    shared: list[int | None] = []
    delta = 0  # old line minus new line, before the next hunk
    for old_start, old_count, new_start, new_count in hunks:
        first_new = new_start - 1 if new_count else new_start  # "+c,0" removes after new line c
        shared += range(len(shared) + delta, first_new + delta)
        shared += [None] * new_count
        first_old = old_start - 1 if old_count else old_start
        delta = first_old + old_count - (first_new + new_count)
    shared += range(len(shared) + delta, length + delta)
    return shared[:length]


def pass_to_parents(
    sections: list[Section], files: Files, asides: list[Aside], kept: dict[str, Kept], moved_into: dict[str, set[str]]
) -> int:
    """Give the lines a merge's first-parent patch added (`sections`, applied to `files`) the origin of
    the other parents that hold them, as blame does. Returns how many lines the merge keeps as its own.
    `moved_into`: commit -> paths its lines reached under another name (a parent's file renamed)."""
    own = 0
    for section in sections:
        origins = section.origins
        if files.get(section.path) is not origins:
            continue  # replaced later in the same patch
        theirs = [_their_version(section.path, aside, kept) for aside in asides]
        identical = next((found for found in theirs if found is not None and not found[1]), None)
        if identical is not None and len(identical[0]) == len(origins):
            origins[:] = identical[0]  # the same file as that parent's: its lines whole
            if identical[2] != section.path:
                _reached(section.path, origins, moved_into)
            continue
        left = [(start, start + count) for start, count in section.runs if count]  # the lines still its own
        for found in theirs:
            if found is None or not left:
                continue
            their_origins, hunks, their_path = found
            left = _pass_runs(origins, left, shared_lines(hunks, len(origins)), their_origins)
            if their_path != section.path:
                _reached(section.path, origins, moved_into)
        own += sum(end - start for start, end in left)
    return own


def _pass_runs(
    origins: Origins, runs: list[tuple[int, int]], shared: list[int | None], theirs: Origins
) -> list[tuple[int, int]]:
    """Each line of `runs` (start, end) that the parent holds (`shared`) takes its origin there; the
    runs left. A run the parent holds whole (a branch's lines, as they were) is one slice."""
    left: list[tuple[int, int]] = []
    for start, end in runs:
        ats = shared[start:end]
        first, last = ats[0], ats[-1]
        # Strictly increasing where not None: no gap and no None means one stretch of the parent's.
        if first is not None and last is not None and last - first == end - start - 1 and None not in ats:
            if last < len(theirs):
                origins[start:end] = theirs[first : last + 1]
                continue
        open_at = None  # where a stretch of lines still the merge's own began
        for line, at in zip(range(start, end), ats):
            if at is not None and at < len(theirs):
                origins[line] = theirs[at]
                if open_at is not None:
                    left.append((open_at, line))
                    open_at = None
            elif open_at is None:
                open_at = line
        if open_at is not None:
            left.append((open_at, end))
    return left


def _their_version(path: str, aside: Aside, kept: dict[str, Kept]) -> tuple[Origins, list[Hunk], str] | None:
    """`path` of the merge in the parent `aside` is against: its lines there, the hunks between (none:
    the same file, renamed or not) and its path there; None when that parent has no such file."""
    parent = kept.get(aside.parent)
    if parent is None:
        return None
    old_path, hunks = aside.paths.get(path, (path, []))
    found = None if old_path is None else parent.files.get(old_path)  # None: a file new to that parent
    return None if found is None or old_path is None else (found, hunks, old_path)


def _reached(path: str, origins: Origins, moved_into: dict[str, set[str]]) -> None:
    for commit in {origin[0] for origin in origins if origin[2] != path}:
        moved_into.setdefault(commit, set()).add(path)
