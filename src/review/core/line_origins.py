"""Where each line at HEAD came from, read forward from one ``git log -p`` stream. Pure.

``git blame`` answers this one file at a time, each walking the whole history again: on a
5,000-commit submission that was 250 processes and 33 s. For a linear history the same answer
comes from replaying every commit's hunks in order (``git log --reverse -p -U0 -M``): a line
added by commit C at line N of C's version keeps (C, N) until a later commit removes it. The
hunks are the same xdiff hunks blame uses; renames carry a file's lines over, as blame follows
them. A history with merges is left to blame (which picks the right parent per line).

Moved and copied blocks keep where they were first written, as ``git blame -M -C -C`` gives it: once
a commit is read, each run of lines it added is looked for in the parent's files: the same file (a
block of at least MOVE_MIN_ALNUM letters and digits, git's -M default), a file the commit also
changed (COPY_MIN_ALNUM, git's -C default), and, for a file the commit creates or renames, any file
(git's -C -C). A block found keeps its origin (commit, line, path) and names the commit that moved
it; a smaller one is the mover's own. The lines' text comes from the same stream (every added line
is in it); an index of the text of every line alive at the parent (how many copies, and the file
that last added each) finds the candidates, so a run of new lines costs one lookup per line.

Hunk bodies are skipped by their counts, never by what a line looks like: a removed line
"-- a/x" reads "--- a/x", and only the count says it is content. Linear in the stream.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import repeat

from review.core.diff import HUNK_HEADER, unquote_path

COMMIT_MARK = b"\x00commit "
MAX_TRACKED_LINES = 4_000_000  # past this the replay gives up (blame per file takes over)
# git blame's defaults (-M and -C): a block counts as moved within a file from 20 letters and digits
# (what it holds, not its length), as moved or copied from another file from 40; git counts ASCII only.
MOVE_MIN_ALNUM = 20
COPY_MIN_ALNUM = 40
DETECT_MOVES = True  # off only to measure what move detection costs (review bench repo)
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


class TooLarge(Exception):
    """More lines than MAX_TRACKED_LINES at once: the caller falls back to blame."""


def _path(raw: bytes, prefix: bytes) -> str | None:
    text = raw.rstrip(b"\n")
    if text.endswith(b"\t"):
        text = text[:-1]  # git ends a name holding a space with a tab, for patch(1)
    if text == b"/dev/null":
        return None
    decoded = text.decode("utf-8", "surrogateescape")
    if decoded.startswith('"') and decoded.endswith('"'):
        decoded = unquote_path(decoded[1:-1])
    return decoded[len(prefix):] if decoded.startswith(prefix.decode()) else decoded


def _header_path(rest: bytes) -> str | None:
    """P from `a/P b/P` (or the quoted `"a/P" "b/P"`); None when the two sides differ (a rename,
    which names its paths on lines of its own)."""
    text = rest.rstrip(b"\n").decode("utf-8", "surrogateescape")
    if text.startswith('"'):
        end = 1
        while end < len(text) and text[end] != '"':
            end += 2 if text[end] == "\\" else 1
        first = unquote_path(text[1:end])
        return first[2:] if first.startswith("a/") else None
    if (len(text) - 5) % 2:
        return None
    half = (len(text) - 5) // 2
    path = text[2:2 + half]
    return path if text == f"a/{path} b/{path}" else None


def _alnum(text: bytes) -> int:
    return len(text.translate(None, _NOT_ALNUM))


class _Section:
    """One file's change in the commit being read, once its hunks are applied: where the lines it
    added are (new positions), and the path its old side had."""

    __slots__ = ("path", "old_path", "origins", "texts", "runs")

    def __init__(self, path: str, old_path: str | None, origins: Origins, texts: list[bytes],
                 runs: list[tuple[int, int]]) -> None:
        self.path, self.old_path, self.origins, self.texts, self.runs = path, old_path, origins, texts, runs


class Replay:
    """Feed it the stream's lines; `files` then maps each path at the last commit to its origins."""

    def __init__(self, detect_moves: bool | None = None) -> None:
        self.files: dict[str, Origins] = {}
        self.untracked: set[str] = set()  # binary at some point: origins unknown
        self.tracked = 0  # lines alive (added and not yet removed), a memory bound
        self.changed: dict[str, list[str]] = {}  # commit -> the paths it touched (both sides of a rename)
        self.added: dict[str, int] = {}  # commit -> lines it added (as --numstat counts them)
        self.moved = 0  # lines found moved or copied (kept their first origin)
        self.detect_moves = DETECT_MOVES if detect_moves is None else detect_moves
        # Each file's lines as the stream wrote them ("+" and the text), beside their origins.
        self.texts: dict[str, list[bytes]] = {}
        self._alive: Counter[bytes] = Counter()  # text -> copies alive at the parent, across every file
        self._holder: dict[bytes, str] = {}  # text -> the file that last added it (may since have lost it)
        self._indexed: dict[int, tuple[list[bytes], dict[bytes, list[int]]]] = {}  # see _positions
        self._indexed_lines = 0
        self._touched: set[str] = set()  # the paths in changed[commit] of the commit being read
        self._commit = ""
        self._start_commit()
        self._reset_section()
        self._minus = self._plus = 0  # hunk body lines still to skip

    def _start_commit(self) -> None:
        self._touched = set()
        self._sections: list[_Section] = []  # this commit's files with hunks applied
        self._before: dict[str, tuple[Origins, list[bytes]] | None] = {}  # parent's version of each path it changed
        self._removed: list[tuple[str, list[bytes]]] = []  # (path, the texts this commit removed from it)

    def _reset_section(self) -> None:
        self._old_path: str | None = None
        self._new_path: str | None = None
        self._rename_from: str | None = None
        self._rename_to: str | None = None
        self._new: Origins | None = None
        self._new_text: list[bytes] = []
        self._old: Origins = []
        self._old_text: list[bytes] = []
        self._runs: list[tuple[int, int]] = []
        self._cursor = 0
        self._in_section = False
        self._binary = False
        self._header_path: str | None = None  # from "diff --git a/P b/P": a binary section has no ---/+++

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
        if not self._in_section:
            return
        touched = self.changed.setdefault(self._commit, [])
        for path in (self._header_path, self._old_path, self._new_path, self._rename_from, self._rename_to):
            if path is not None and path not in self._touched:  # a set: a 2,000-file commit stays linear
                self._touched.add(path)
                touched.append(path)
        old_path = self._old_path or self._rename_from
        # With hunks, "+++" names the new side (None: deleted); without, a rename names it.
        new_path = self._new_path if self._new is not None else (self._new_path or self._rename_to)
        if self._binary:
            for path in (old_path, new_path, self._header_path):
                if path:
                    self._drop(path)
                    self.untracked.add(path)
        elif self._new is not None:  # hunks were applied
            self._new += self._old[self._cursor:]
            self._new_text += self._old_text[self._cursor:]
            if self.detect_moves and len(self._new_text) != len(self._new):  # a malformed stream: texts unknown, never matched
                self._new_text = [b""] * len(self._new)
            self._keep_before(old_path)
            self._keep_before(new_path)
            if old_path and old_path != new_path:
                self.files.pop(old_path, None)
                self.texts.pop(old_path, None)
            if new_path:
                self.files[new_path] = self._new
                self.texts[new_path] = self._new_text
                if self._runs:
                    self._sections.append(_Section(new_path, old_path, self._new, self._new_text, self._runs))
            elif old_path:
                self.files.pop(old_path, None)  # deleted
                self.texts.pop(old_path, None)
        elif self._rename_from and self._rename_to:  # renamed as it was
            self._keep_before(self._rename_from)
            self._keep_before(self._rename_to)
            self.files[self._rename_to] = self.files.pop(self._rename_from, [])
            self.texts[self._rename_to] = self.texts.pop(self._rename_from, [])
            if self._rename_from in self.untracked:
                self.untracked.add(self._rename_to)
        self._reset_section()

    def _finish_commit(self) -> None:
        self._finish_section()
        if self.detect_moves and self._sections:
            self._find_moves()
        if self.detect_moves:  # the index now describes this commit: the next one's parent
            alive, holder = self._alive, self._holder
            for section in self._sections:
                path, texts = section.path, section.texts
                for start, count in section.runs:
                    added = texts[start:start + count]
                    alive.update(added)  # counted in C, as holder's entries are written
                    holder.update(zip(added, repeat(path)))
            for _path, removed in self._removed:
                for text in removed:
                    left = alive.get(text, 0) - 1
                    if left > 0:
                        alive[text] = left
                    elif text in alive:
                        del alive[text]
                        holder.pop(text, None)
        self._start_commit()

    def feed(self, line: bytes) -> None:
        if self._minus or self._plus:  # inside a hunk body: counted, never interpreted
            if line.startswith(b"-"):
                self._minus -= 1
                return
            if line.startswith(b"+"):
                self._plus -= 1
                if self.detect_moves:
                    self._new_text.append(line)
                return
            if line.startswith(b"\\"):
                return  # "\ No newline at end of file"
            self._minus = self._plus = 0  # a malformed stream: resynchronise on headers
        if line.startswith(b"\\"):
            return
        if line.startswith(COMMIT_MARK):
            self._finish_commit()
            self._commit = line[len(COMMIT_MARK):].strip().decode("ascii", "replace")
            return
        if line.startswith(b"diff --git "):
            self._finish_section()
            self._in_section = True
            self._header_path = _header_path(line[len(b"diff --git "):])
            return
        if not self._in_section:
            return
        if line.startswith(b"--- "):
            self._old_path = _path(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            self._new_path = _path(line[4:], b"b/")
        elif line.startswith(b"rename from "):
            self._rename_from = _path(line[12:], b"")
        elif line.startswith(b"rename to "):
            self._rename_to = _path(line[10:], b"")
        elif line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
            self._binary = True
        elif line.startswith(b"@@ "):
            self._hunk(line)

    def _hunk(self, line: bytes) -> None:
        match = HUNK_HEADER.match(line)
        if match is None:
            return
        a, b = int(match[1]), int(match[2]) if match[2] is not None else 1
        c, d = int(match[3]), int(match[4]) if match[4] is not None else 1
        if self._new is None:  # the section's first hunk: start from the old file's origins
            source = self._old_path or self._rename_from
            self._old = self.files.get(source, []) if source else []
            self._old_text = self.texts.get(source, []) if source else []
            self._new = []
            self._new_text = []
            self._cursor = 0
        keep = a if b == 0 else a - 1  # "-a,0" inserts after line a
        keep = max(self._cursor, min(keep, len(self._old)))
        self._new += self._old[self._cursor:keep]
        if self.detect_moves:
            self._new_text += self._old_text[self._cursor:keep]
        self._cursor = min(len(self._old), keep + b)
        if self._cursor > keep and self.detect_moves:
            self._removed.append((self._old_path or self._rename_from or "", self._old_text[keep:self._cursor]))
        if d:
            self._runs.append((len(self._new), d))
        self._new += zip(repeat(self._commit, d), range(c, c + d), repeat(self._new_path or ""), repeat(""))
        self.added[self._commit] = self.added.get(self._commit, 0) + d
        self.tracked += d - (self._cursor - keep)  # lines alive now, across every file
        if self.tracked > MAX_TRACKED_LINES:
            raise TooLarge(f"more than {MAX_TRACKED_LINES} lines to replay")
        self._minus, self._plus = b, d

    # ------------------------------------------------------------------ moves and copies

    def _parent(self, path: str) -> tuple[Origins, list[bytes]] | None:
        """`path` as it was before the commit being read."""
        if path in self._before:
            return self._before[path]
        origins = self.files.get(path)
        return None if origins is None else (origins, self.texts.get(path, []))

    def _find_moves(self) -> None:
        """Give each block this commit added that the parent already held the origin it had there."""
        alive = self._alive
        removed_from: dict[bytes, str] | None = None  # text -> a file this commit removed it from
        for section in self._sections:
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
                    if position - first == 1 and _alnum(texts[first]) < MOVE_MIN_ALNUM:
                        continue
                    if removed_from is None:
                        removed_from = {}
                        for path, removed in self._removed:
                            for text in removed:
                                removed_from[text] = path
                    self._match(section, first, position, removed_from)

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

    def _match(self, section: _Section, first: int, end: int, removed_from: dict[bytes, str]) -> None:
        """Give lines first..end of `section` (each alive somewhere at the parent) the origin of the
        blocks the parent holds them in, as blame passes a block to the parent that holds it.

        Every maximal block around a seed line (a line with letters or digits, held in at most
        MAX_SEED_COPIES places) is found once per alignment: each (source, offset, line) is extended
        over at most once, so the work is linear in the lines (times the seeds' bounded hits). Then
        the best blocks win, the same file's first (git's -M runs before -C)."""
        texts, origins = section.texts, section.origins
        weights = [_alnum(texts[i]) for i in range(first, end)]
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
            for path in (section.old_path, removed_from.get(text), holder.get(text)):
                if path is None:
                    continue
                if path != section.old_path:
                    if path == section.path and not creates:
                        continue
                    if not creates and path not in self._before:
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
                    while high < count and high + offset < len(source_texts) and \
                            texts[first + high] == source_texts[high + offset]:
                        high += 1
                    done.append((low, high))
                    score = sum(weights[low:high])
                    same = path == section.old_path
                    if score >= (MOVE_MIN_ALNUM if same else COPY_MIN_ALNUM):
                        blocks.append((-same, -score, low, high - low, low + offset, path))
        if not blocks:
            return
        blocks.sort()
        assigned = [False] * count
        commit = self._commit
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
                    self.moved += k - piece

    def feed_many(self, lines: list[bytes]) -> None:
        """`feed` for each line, with hunk bodies (most of a history's lines) counted in a loop of
        their own: the same reading, a quarter of the time."""
        feed = self.feed
        i, end = 0, len(lines)
        while i < end:
            if self._minus or self._plus:
                minus, plus = self._minus, self._plus
                # The added lines' texts are kept for move detection (a list of the batch's own objects).
                keep = self._new_text.append if self.detect_moves else None
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
            feed(lines[i])
            i += 1

    def close(self) -> None:
        self._finish_commit()
        # The texts and their index served the replay only: the origins are what is kept.
        self.texts, self._alive, self._holder, self._indexed = {}, Counter(), {}, {}


def replay(batches: Iterable[list[bytes]], detect_moves: bool | None = None) -> Replay:
    """Origins from the stream's lines, handed over in batches (as they come from git)."""
    state = Replay(detect_moves)
    for batch in batches:
        state.feed_many(batch)
    state.close()
    return state
