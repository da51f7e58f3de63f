"""Moved and copied blocks, found as ``git blame -M -C -C`` finds them, for the history replay
(core.line_origins) as it reads each commit. Pure.

A block of lines a commit added that its parent already held keeps the origin it had there: from
the same file's old version when it holds at least MOVE_MIN_ALNUM letters and digits (git's -M
default), from another file the commit changed when at least COPY_MIN_ALNUM (git's -C default), and,
for a file the commit creates or renames, from any file of the parent (git's -C -C). A smaller block
is the mover's own. The candidates come from an index of the text of every line alive at the parent
(how many copies, and the file that last added each) and from the lines the commit removed, so a run
of new lines costs one lookup per line; blocks are found from seed lines through a position index of
each file version, each alignment extended over once: linear in the lines however they repeat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import repeat

# git blame's defaults (-M and -C): a block counts as moved within a file from 20 letters and digits
# (what it holds, not its length), as moved or copied from another file from 40; git counts ASCII only.
MOVE_MIN_ALNUM = 20
COPY_MIN_ALNUM = 40
# Where a seed line is looked for in one file: past this many copies of it there, the rest are not tried.
MAX_SEED_HITS = 64
# A line alive in more copies than this at the parent (a brace, `return None`) is no seed: a block is
# found from its rarer lines and grown over the common ones.
MAX_SEED_COPIES = 64
# Lines of files' versions whose positions are kept indexed at once (a bound on the index's memory).
MAX_INDEXED_LINES = 250_000
_NOT_ALNUM = bytes(c for c in range(256) if not (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122))

# For each line: the commit that wrote it, its line number in that commit's version, its path there,
# and the commit that moved or copied it to where it is now ("" when it never moved).
Origin = tuple[str, int, str, str]
Origins = list[Origin]


def alnum(text: bytes) -> int:
    return len(text.translate(None, _NOT_ALNUM))


class Section:
    """One file's change in the commit being read, once its hunks are applied: where the lines it
    added are (new positions), and the path its old side had."""

    __slots__ = ("path", "old_path", "origins", "texts", "runs")

    def __init__(
        self, path: str, old_path: str | None, origins: Origins, texts: list[bytes], runs: list[tuple[int, int]]
    ) -> None:
        self.path, self.old_path, self.origins, self.texts, self.runs = path, old_path, origins, texts, runs


class MoveFinder:
    """The index of the lines alive at the parent of the commit being read, and the blocks found."""

    def __init__(self) -> None:
        self.moved = 0  # lines found moved or copied (they kept their first origin)
        self.moved_into: dict[str, set[str]] = {}  # commit -> the paths its lines were moved or copied into
        self._alive: Counter[bytes] = Counter()  # text -> copies alive at the parent, across every file
        self._holder: dict[bytes, str] = {}  # text -> the file that last added it (may since have lost it)
        self.renamed: dict[str, str] = {}  # a path -> the path a later commit renamed it to
        # A text's other holders: blame looks for a copy in every file (the last by path wins a tie), and
        # while other commits are kept (branches) the last holder may be on another branch.
        self._also: dict[bytes, set[str]] = {}
        self._indexed: dict[int, tuple[list[bytes], dict[bytes, list[int]]]] = {}  # see _positions
        self._indexed_lines = 0
        self._commit = ""
        self._parent: Callable[[str], tuple[Origins, list[bytes]] | None] = lambda _path: None
        self._changed: Callable[[str], bool] = lambda _path: False

    def record(self, sections: list[Section], removed: list[tuple[str, list[bytes]]], forget: bool = True) -> None:
        """The commit just read is now the parent: its added lines alive, its removed ones gone (with
        `forget`; else kept: another commit the replay keeps may hold them)."""
        alive, holder = self._alive, self._holder
        for section in sections:
            path, texts = section.path, section.texts
            for start, count in section.runs:
                added = texts[start : start + count]
                alive.update(added)  # counted in C, as holder's entries are written
                for text in filter(holder.__contains__, added):  # held already (few: most lines are new)
                    was = holder[text]
                    if was != path:
                        self._also.setdefault(text, set()).add(was)
                holder.update(zip(added, repeat(path)))
        if not forget:
            return
        for _path, texts in removed:
            for text in texts:
                left = alive.get(text, 0) - 1
                if left > 0:
                    alive[text] = left
                elif text in alive:
                    del alive[text]
                    holder.pop(text, None)
                    self._also.pop(text, None)

    def find(
        self,
        commit: str,
        sections: list[Section],
        removed: list[tuple[str, list[bytes]]],
        parent: Callable[[str], tuple[Origins, list[bytes]] | None],
        changed: Callable[[str], bool],
    ) -> None:
        """Give each block `commit` added (its `sections`) that its parent already held the origin it
        had there. `removed`: (path, the texts the commit removed from it); `parent(path)`: that path's
        origins and texts at the parent; `changed(path)`: whether the commit changed it."""
        self._commit, self._parent, self._changed = commit, parent, changed
        alive = self._alive
        removed_from: dict[bytes, str] | None = None  # text -> a file this commit removed it from
        for section in sections:
            texts = section.texts
            for start, count in section.runs:
                position, end = start, start + count
                if not any(map(alive.__contains__, texts[start:end])):
                    continue  # new lines, all of them (most runs): one pass in C
                # Stretches of added lines each alive somewhere at the parent: only they can be a block.
                while position < end:
                    if texts[position] not in alive:
                        position += 1
                        continue
                    first = position
                    while position < end and texts[position] in alive:
                        position += 1
                    if position - first == 1 and alnum(texts[first]) < MOVE_MIN_ALNUM:
                        continue
                    if removed_from is None:
                        removed_from = {}
                        for path, gone in removed:
                            for text in gone:
                                removed_from[text] = path
                    self._match(section, first, position, removed_from)

    def _renamed_to(self, path: str | None) -> str | None:
        """Where the file that added a text is now, following renames (a rename adds no line)."""
        for _ in range(len(self.renamed)):
            if path is None or path not in self.renamed or self._parent(path) is not None:
                break
            path = self.renamed[path]
        return path

    def _positions(self, texts: list[bytes]) -> dict[bytes, list[int]]:
        """Where each text stands in one file's version, built once per version: a version is a list
        the replay never changes (a commit makes a new one), so its identity keys the cache. The
        cache holds at most MAX_INDEXED_LINES lines, oldest versions dropped first."""
        key = id(texts)
        cached = self._indexed.get(key)
        if cached is not None and cached[0] is texts:
            return cached[1]
        positions: dict[bytes, list[int]] = {}
        for at, text in enumerate(texts):
            found = positions.get(text)
            if found is None:
                positions[text] = [at]
            elif len(found) < MAX_SEED_HITS:
                found.append(at)
        self._indexed[key] = (texts, positions)
        self._indexed_lines += len(texts)
        while self._indexed_lines > MAX_INDEXED_LINES and len(self._indexed) > 1:
            dropped = self._indexed.pop(next(iter(self._indexed)))
            self._indexed_lines -= len(dropped[0])
        return positions

    def _match(self, section: Section, first: int, end: int, removed_from: dict[bytes, str]) -> None:
        """Give lines first..end of `section` (each alive somewhere at the parent) the origin of the
        blocks the parent holds them in, as blame passes a block to the parent that holds it.

        Every maximal block around a seed line (a line with letters or digits, held in at most
        MAX_SEED_COPIES places) is found once per alignment: each (source, offset, line) is extended
        over at most once, so the work is linear in the lines (times the seeds' bounded hits). Then
        the best blocks win, the same file's first (git's -M runs before -C)."""
        texts, origins = section.texts, section.origins
        weights = [alnum(texts[i]) for i in range(first, end)]
        if sum(weights) < MOVE_MIN_ALNUM:
            return
        alive, holder = self._alive, self._holder
        # A file the commit creates or renames may take a block from any file (-C -C); else only from
        # the files the commit changed (-C), and from its own old version (-M).
        creates = section.old_path is None or section.old_path != section.path
        sources: dict[str, tuple[Origins, list[bytes]] | None] = {}
        if section.old_path:
            sources[section.old_path] = self._parent(section.old_path)
        blocks: list[tuple[int, int, int, int, int, str]] = []  # (-same file, -score, start, length, source at, path)
        extents: dict[tuple[str, int], list[tuple[int, int]]] = {}  # (path, offset) -> stretches extended over
        count = end - first
        for seed in range(count):
            text = texts[first + seed]
            if not weights[seed] or alive.get(text, 0) > MAX_SEED_COPIES:
                continue
            paths = (section.old_path, removed_from.get(text), self._renamed_to(holder.get(text)))
            # Other holders: any file for a file created (-C -C), else only the files this commit changed (-C).
            others = self._also.get(text, ()) if self._also else ()
            also = [self._renamed_to(path) for path in others if creates or self._changed(path)] if others else []
            for path in (*paths, *also) if also else paths:
                if path is None:
                    continue
                if path != section.old_path:
                    if path == section.path and not creates:
                        continue
                    if not creates and not self._changed(path):
                        continue  # not changed by this commit: only a new file looks there (-C -C)
                if path not in sources:
                    sources[path] = self._parent(path)
                source = sources[path]
                if source is None:
                    continue
                source_texts = source[1]
                for at in self._positions(source_texts).get(text, ()):
                    offset = at - seed
                    done = extents.setdefault((path, offset), [])
                    if any(low <= seed < high for low, high in done):
                        continue  # this alignment was extended over this line already
                    low, high = seed, seed + 1
                    while low > 0 and low + offset > 0 and texts[first + low - 1] == source_texts[low + offset - 1]:
                        low -= 1
                    while (
                        high < count
                        and high + offset < len(source_texts)
                        and texts[first + high] == source_texts[high + offset]
                    ):
                        high += 1
                    done.append((low, high))
                    score = sum(weights[low:high])
                    same = path == section.old_path
                    if score >= (MOVE_MIN_ALNUM if same else COPY_MIN_ALNUM):
                        blocks.append((-same, -score, low, high - low, low + offset, path))
        if not blocks:
            return
        # The best block first, the same file's first (-M before -C); between equal blocks from other
        # files, the last file by path, as blame keeps the later of two equal candidates (git walks them
        # in path order and replaces its best unless the new one scores less).
        blocks.sort(key=lambda block: block[4])
        blocks.sort(key=lambda block: block[5], reverse=True)
        blocks.sort(key=lambda block: block[:4])
        assigned = [False] * count
        commit, moved_into = self._commit, self.moved_into
        for minus_same, _score, low, length, at, path in blocks:
            least = MOVE_MIN_ALNUM if minus_same else COPY_MIN_ALNUM
            source_origins = sources[path][0]  # type: ignore[index]
            # What is left of the block once better blocks took their lines: each piece on its own.
            k = low
            while k < low + length:
                if assigned[k]:
                    k += 1
                    continue
                piece = k
                while k < low + length and not assigned[k]:
                    k += 1
                if sum(weights[piece:k]) >= least:
                    for line in range(piece, k):
                        was = source_origins[at + line - low]
                        origins[first + line] = (was[0], was[1], was[2], commit)
                        assigned[line] = True
                        if was[0] not in moved_into:
                            moved_into[was[0]] = set()
                        moved_into[was[0]].add(section.path)
                    self.moved += k - piece
