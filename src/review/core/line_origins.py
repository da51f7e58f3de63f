"""Where each line at HEAD came from, read forward from one ``git log -p`` stream. Pure.

``git blame`` answers this one file at a time, each walking the whole history again: on a
5,000-commit submission that was 250 processes and 33 s. The same answer comes from replaying every
commit's hunks, parents first (``git log --topo-order --reverse -m -p -U0 -M``): a line added by commit
C at line N of C's version keeps (C, N) until a later commit removes it. The hunks are the same xdiff
hunks blame uses; renames carry a file's lines over, as blame follows them. Each commit's files are kept
only while a child is still to be read (the counts come first in the stream); a merge's patches against
its other parents pass it their lines as blame does (core.line_parents).

Moved and copied blocks keep where they were first written, as ``git blame -M -C -C`` gives it:
once a commit is read, core.line_moves looks for the runs of lines it added in the parent's files
(the thresholds and the rules are there). The lines' text comes from the same stream: every added
line is in it, so the replay keeps each file's texts beside its origins.

Hunk bodies are skipped by their counts, never by what a line looks like: a removed line
"-- a/x" reads "--- a/x", and only the count says it is content. Linear in the stream.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat

from review.core.history_stream import CHILDREN_MARK, COMMIT_MARK, DIFF_MARK, SectionHead, hunk_counts
from review.core.line_moves import COPY_MIN_ALNUM, MOVE_MIN_ALNUM, MoveFinder, Origin, Origins, Section
from review.core.line_parents import Aside, Kept, pass_to_parents

__all__ = ["COPY_MIN_ALNUM", "MOVE_MIN_ALNUM", "Origin", "Origins", "Replay", "TooLarge", "replay"]

# Lines held at once, counted per commit kept for a child (a line two kept commits share counted twice:
# a bound, never an underestimate) with each kept commit's files; past it the replay gives up and blame
# per file takes over.
MAX_TRACKED_LINES = 4_000_000
DETECT_MOVES = True  # off only to measure what move detection costs (review bench repo)


class TooLarge(Exception):
    """More lines than MAX_TRACKED_LINES held at once: the caller falls back to blame."""


class Replay:
    """Feed it the stream's lines; `files` then maps each path at the last commit to its origins."""

    def __init__(self, detect_moves: bool | None = None) -> None:
        self.files: dict[str, Origins] = {}
        self.untracked: set[str] = set()  # binary at some point: origins unknown
        self.tracked = 0  # lines alive (added and not yet removed), a memory bound
        self.changed: dict[str, list[str]] = {}  # commit -> the paths it touched (both sides of a rename)
        self.added: dict[str, int] = {}  # commit -> lines it added (as --numstat counts them)
        self.detect_moves = DETECT_MOVES if detect_moves is None else detect_moves
        self._moves = MoveFinder()
        # Each file's lines as the stream wrote them ("+" and the text), beside their origins.
        self.texts: dict[str, list[bytes]] = {}
        self._touched: set[str] = set()  # the paths in changed[commit] of the commit being read
        self._commit = ""
        self._parents: list[str] = []
        self._children = 0
        self._tree = ""
        self._against: list[str] = []  # a merge's parents git wrote a patch against, in order
        self._patches = 0  # the commit's patches read so far (a merge has one per parent it differs from)
        self._children_of: dict[str, int] = {}  # commit -> its children in the history
        self._kept: dict[str, Kept] = {}  # commits whose files a child still needs
        self._kept_lines = 0
        self._last: tuple[str, int, str] | None = None  # the commit just read, its children and tree, not kept yet
        self._start_commit()
        self._reset_section()
        self._minus = self._plus = 0  # hunk body lines still to skip

    def _start_commit(self) -> None:
        self._touched = set()
        self._sections: list[Section] = []  # this commit's files with hunks applied
        self._before: dict[str, tuple[Origins, list[bytes]] | None] = {}  # parent's version of each path it changed
        self._removed: list[tuple[str, list[bytes]]] = []  # (path, the texts this commit removed from it)
        self._asides: list[Aside] = []  # a merge's patches against its other parents
        self._aside: Aside | None = None  # the one being read

    def _reset_section(self) -> None:
        self._head: SectionHead | None = None  # the file section being read, None between them
        self._new: Origins | None = None  # its new side's origins once a hunk is applied
        self._new_text: list[bytes] = []
        self._old: Origins = []
        self._old_text: list[bytes] = []
        self._runs: list[tuple[int, int]] = []  # the added lines: (first new position, count)
        self._cursor = 0  # the old side's lines read so far
        self._hunks: list[tuple[int, int, int, int]] = []  # a patch aside's hunks

    def _keep_before(self, path: str | None) -> None:
        """Remember the parent's version of `path` before this commit replaces it (once per commit)."""
        if path is not None and path not in self._before:
            origins = self.files.get(path)
            self._before[path] = None if origins is None else (origins, self.texts.get(path, []))

    def _drop(self, path: str) -> None:
        self._keep_before(path)
        self.files.pop(path, None)
        texts = self.texts.pop(path, None)
        if texts:
            self._removed.append((path, texts))

    def _finish_section(self) -> None:
        head = self._head
        if head is None:
            return
        if self._aside is not None:
            self._aside_section(self._aside, head)
            return
        touched = self.changed.setdefault(self._commit, [])
        for path in head.paths:
            if path is not None and path not in self._touched:  # a set: a 2,000-file commit stays linear
                self._touched.add(path)
                touched.append(path)
        old_path = head.old_side
        # With hunks, "+++" names the new side (None: deleted); without, a rename names it.
        new_path = head.new_path if self._new is not None else (head.new_path or head.rename_to)
        if head.binary:
            for path in (old_path, new_path, head.header_path):
                if path:
                    self._drop(path)
                    self.untracked.add(path)
        elif self._new is not None:  # hunks were applied
            self._new += self._old[self._cursor :]
            self._new_text += self._old_text[self._cursor :]
            if self.detect_moves and len(self._new_text) != len(
                self._new
            ):  # a malformed stream: texts unknown, never matched
                self._new_text = [b""] * len(self._new)
            self._keep_before(old_path)
            self._keep_before(new_path)
            if old_path and old_path != new_path:
                self.files.pop(old_path, None)
                self.texts.pop(old_path, None)
                if new_path:
                    self._renamed(old_path, new_path, self._new)
            if new_path:
                self.files[new_path] = self._new
                self.texts[new_path] = self._new_text
                if self._runs:
                    self._sections.append(Section(new_path, old_path, self._new, self._new_text, self._runs))
            elif old_path:
                self.files.pop(old_path, None)  # deleted
                self.texts.pop(old_path, None)
        elif head.rename_from and head.rename_to:  # renamed as it was
            was, now = head.rename_from, head.rename_to
            self._keep_before(was)
            self._keep_before(now)
            self.files[now] = self.files.pop(was, [])
            self.texts[now] = self.texts.pop(was, [])
            self._renamed(was, now, self.files[now])
            if was in self.untracked:
                self.untracked.add(now)
        self._reset_section()

    def _aside_section(self, aside: Aside, head: SectionHead) -> None:
        """A section of a merge's patch against another parent: where each path came from, and the hunks."""
        if not head.deleted and not head.binary:
            new = head.new_path or head.rename_to or head.header_path
            old = None if head.created else (head.old_side or head.header_path)
            if new is not None:
                aside.paths[new] = (old, self._hunks)
        self._reset_section()

    def _renamed(self, old_path: str, path: str, origins: Origins) -> None:
        """A rename carries the file's lines, as blame follows it: each commit that wrote them now
        has lines at `path` (so the analysis traces it), and a text the old path held is found there."""
        self._moves.renamed[old_path] = path
        into = self._moves.moved_into
        for sha in {origin[0] for origin in origins}:
            if sha not in into:
                into[sha] = set()
            into[sha].add(path)

    def _begin(self, sha: str, tree: str, parents: list[str]) -> None:
        """A commit's first patch begins."""
        first = parents[0] if parents else None
        last, self._last = self._last, None
        if last is None or last[:2] != (first, 1) or len(parents) > 1:
            self._last = last
            self._keep_last()
            if len(parents) > 1:
                # git writes a patch against each parent whose tree differs (identical trees: no diff).
                trees = {p: self._kept[p].tree for p in parents if p in self._kept}
                self._against = [p for p in parents if trees.get(p) != tree] or parents[:1]
            self.files, self.texts, self.tracked = self._take(first)
        self._commit, self._tree, self._parents = sha, tree, parents
        self._children = self._children_of.pop(sha, 0)
        self._patches = 0

    def _next_patch(self) -> None:
        """A merge's next patch: against the first parent it is applied; against another, put aside."""
        at, self._patches = self._patches, self._patches + 1
        parent = self._against[at] if at < len(self._against) else None
        if parent is not None and parent != self._parents[0]:
            self._aside = Aside(parent)
            self._asides.append(self._aside)
        elif at:
            self._aside = Aside("")  # more patches than parents that differ: none of ours

    def _take(self, parent: str | None) -> tuple[dict[str, Origins], dict[str, list[bytes]], int]:
        """The files of a commit's first parent: handed over by its last child to be read, else copied."""
        kept = self._kept.get(parent) if parent is not None else None
        if kept is None:
            return {}, {}, 0  # a root (or a parent a shallow copy lacks)
        kept.children -= 1
        if kept.children > 0:
            return dict(kept.files), dict(kept.texts), kept.tracked
        del self._kept[parent]  # type: ignore[arg-type]
        self._kept_lines -= kept.lines
        return kept.files, kept.texts, kept.tracked

    def _finish_commit(self) -> None:
        self._finish_section()
        self._aside = None
        if len(self._parents) > 1:
            # A parent git wrote no patch against is one the merge is identical to, every file.
            against = {aside.parent: aside for aside in self._asides}
            asides = [against.get(parent) or Aside(parent) for parent in self._parents[1:]]
            # Its own lines are those no parent holds (blame's passing, not a search for moved blocks).
            self.added[self._commit] = pass_to_parents(
                self._sections, self.files, asides, self._kept, self._moves.moved_into
            )
            for parent in self._parents[1:]:
                kept = self._kept.get(parent)
                if kept is not None:
                    kept.children -= 1
                    if kept.children <= 0:
                        self._kept_lines -= self._kept.pop(parent).lines
        elif self.detect_moves and self._sections:
            self._moves.find(self._commit, self._sections, self._removed, self._parent, self._changed)
        if self.detect_moves:
            # The index now describes the next one's parent: exactly while no other commit is kept, else
            # it forgets nothing (a line removed here may be alive in a kept commit).
            self._moves.record(self._sections, self._removed, forget=not self._kept)
        # Kept for its children once the next commit read is not its only child (a linear stretch hands
        # its files over without a copy or an entry).
        self._last = (self._commit, self._children, self._tree) if self._children > 0 and self._commit else None
        self._children = 0
        self._start_commit()

    def _keep_last(self) -> None:
        if self._last is not None:
            lines = self.tracked + len(self.files)
            sha, children, tree = self._last
            self._kept[sha] = Kept(self.files, self.texts, self.tracked, lines, children, tree)
            self._kept_lines += lines
            self._last = None

    def _parent(self, path: str) -> tuple[Origins, list[bytes]] | None:
        """`path` as it was before the commit being read."""
        if path in self._before:
            return self._before[path]
        origins = self.files.get(path)
        return None if origins is None else (origins, self.texts.get(path, []))

    def _changed(self, path: str) -> bool:
        return path in self._before

    @property
    def moved(self) -> int:
        """Lines found moved or copied (they kept their first origin)."""
        return self._moves.moved

    @property
    def moved_into(self) -> dict[str, set[str]]:
        """Commit -> the paths its lines were moved, copied or renamed into (by later commits)."""
        return self._moves.moved_into

    def feed(self, line: bytes) -> None:
        self.feed_many([line])

    def _commit_line(self, line: bytes) -> None:
        self._finish_section()
        sha, tree, *parents = line[len(COMMIT_MARK) :].decode("ascii", "replace").split()
        if sha != self._commit:
            self._finish_commit()
            self._begin(sha, tree, parents)
        if len(parents) > 1:
            self._next_patch()

    def _hunk(self, line: bytes, head: SectionHead) -> None:
        counts = hunk_counts(line)
        if counts is None:
            return
        a, b, c, d = counts
        if self._aside is not None:  # only where the lines are: their bodies are skipped
            self._hunks.append(counts)
            self._minus, self._plus = b, d
            return
        new, old, cursor = self._new, self._old, self._cursor
        if new is None:  # the section's first hunk: start from the old file's origins
            source = head.old_side
            old = self._old = self.files.get(source, []) if source else []
            self._old_text = self.texts.get(source, []) if source else []
            new = self._new = []
            self._new_text = []
            cursor = 0
        keep = a if b == 0 else a - 1  # "-a,0" inserts after line a
        keep = max(cursor, min(keep, len(old)))
        new += old[cursor:keep]
        self._cursor = min(len(old), keep + b)
        if self.detect_moves:
            self._new_text += self._old_text[cursor:keep]
            if self._cursor > keep:
                self._removed.append((head.old_side or "", self._old_text[keep : self._cursor]))
        if d:
            self._runs.append((len(new), d))
            new += zip(repeat(self._commit, d), range(c, c + d), repeat(head.new_path or ""), repeat(""))
        self.added[self._commit] = self.added.get(self._commit, 0) + d
        self.tracked += d - (self._cursor - keep)  # lines alive now, across every file
        if self.tracked + self._kept_lines > MAX_TRACKED_LINES:
            raise TooLarge(f"more than {MAX_TRACKED_LINES} lines to replay")
        self._minus, self._plus = b, d

    def feed_many(self, lines: list[bytes]) -> None:
        """The stream's lines, in order: hunk bodies (most of a history's lines) counted, never
        interpreted (a removed line "-- a/x" reads "--- a/x"), headers read."""
        i, end = 0, len(lines)
        while i < end:
            if self._minus or self._plus:
                minus, plus = self._minus, self._plus
                # The added lines' texts are kept for move detection (a list of the batch's own objects).
                keep = self._new_text.append if self.detect_moves and self._aside is None else None
                # As -U0 writes a hunk: its removed lines, then its added ones, each block checked in C;
                # anything else (a block cut by the batch's end) is read line by line below.
                if minus > 0 and _block(lines, i, minus, b"-"):
                    i, minus = i + minus, 0
                    if plus and i < end and lines[i][:1] == b"\\":
                        i += 1  # "\ No newline at end of file"
                if plus > 0 and not minus and _block(lines, i, plus, b"+"):
                    if keep is not None:
                        self._new_text += lines[i : i + plus]
                    i, plus = i + plus, 0
                while i < end and (minus or plus):
                    line = lines[i]
                    first = line[:1]
                    if first == b"-":
                        minus -= 1
                    elif first == b"+":
                        plus -= 1
                        if keep is not None:
                            keep(line)
                    elif first != b"\\":
                        minus = plus = 0  # a malformed stream: this line is read as a header below
                        break
                    i += 1
                self._minus, self._plus = minus, plus
                continue
            # A header line, told apart by its first byte (a stream is mostly hunks and their headers).
            line = lines[i]
            i += 1
            first = line[:1]
            head = self._head
            if first == b"@":
                if head is not None and line.startswith(b"@@ "):
                    self._hunk(line, head)
            elif first == b"d" and line.startswith(DIFF_MARK):
                self._finish_section()
                self._head = SectionHead(line)
            elif first == b"\0":
                if line.startswith(COMMIT_MARK):
                    self._commit_line(line)
                elif head is None and line.startswith(CHILDREN_MARK):
                    words = line.split()
                    self._children_of[words[1].decode("ascii", "replace")] = len(words) - 2
            elif head is not None and first != b"i":  # "index …" says nothing the replay needs
                head.read(line)

    def close(self) -> None:
        self._finish_commit()
        self._kept, self._kept_lines = {}, 0
        # The texts and their index served the replay only: the origins are what is kept.
        moved_into, moved = self._moves.moved_into, self._moves.moved
        self.texts, self._moves = {}, MoveFinder()
        self._moves.moved_into, self._moves.moved = moved_into, moved


def _block(lines: list[bytes], at: int, count: int, sign: bytes) -> bool:
    """Whether `count` lines from `at` are in the batch, each beginning with `sign`."""
    block = lines[at : at + count]
    return len(block) == count and all(map(bytes.startswith, block, repeat(sign)))


def replay(batches: Iterable[list[bytes]], detect_moves: bool | None = None) -> Replay:
    """Origins from the stream's lines, handed over in batches (as they come from git)."""
    state = Replay(detect_moves)
    for batch in batches:
        state.feed_many(batch)
    state.close()
    return state
