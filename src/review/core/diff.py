"""A unified patch as files → hunks → lines, HEAD (new-side) line numbers kept. Pure, no I/O.

Parsing is unidiff's; this module adds what the console needs on top: file status (added,
deleted, renamed, binary, mode change), counts, and a place for each line's attribution.
Text is kept raw here; it is sanitised once, where it becomes a display row.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import unidiff

from review.core.git_paths import unquote_path
from review.core.share import Totals

MAX_PATCH_BYTES = 64 << 20  # beyond this the diff is cut, and says so


@dataclass(slots=True)
class DiffLine:
    kind: str  # "+", "-", " ", or "\\" (no newline at end of file)
    text: str  # without its newline; raw, untrusted
    old_no: int | None
    new_no: int | None
    tool: str | None = None  # the assistant this line is attributed to, if any
    source: str = ""  # where that attribution came from
    moved: bool = False  # moved or copied here from where it was first written (source says where)
    # An added line's state beside its tool: "person" (a source says so), "base" (written at or before
    # the base: not the submission's), or "" when no source speaks for it (unknown).
    state: str = ""
    # Part of a block this diff moves: removed here and added, the same text, elsewhere (or the other way).
    move: MoveEnd | None = None


@dataclass(eq=False)
class MoveEnd:
    """One end of a moved block within a diff: its removed lines (`side` "-", old-side numbering) or
    its added lines (`side` "+", HEAD numbering), and the other end."""

    side: str
    path: str
    line: int  # the block's first line number on its side
    count: int
    first: DiffLine  # the block's first line
    other: MoveEnd | None = None

    @property
    def text(self) -> str:
        """ "moved to b.mjs:3 (4 lines)" on the removed end, "moved from a.mjs:2 (4 lines)" on the added."""
        other = self.other
        where = f"{other.path}:{other.line}" if other is not None else "?"
        return f"moved {'to' if self.side == '-' else 'from'} {where} ({self.count} line{'s' * (self.count != 1)})"


class Tally(NamedTuple):
    added: int
    removed: int
    ai_added: int  # added lines attributed to an assistant
    tools: tuple[str, ...]
    widest: int  # the longest line, in characters
    paired: int  # rows side by side: a change's removed and added lines share rows
    person_added: int = 0  # added lines a source gives to the person
    base_added: int = 0  # added lines written at or before the base (moved or copied from the starter)


PERSON, BASE = "person", "base"


@dataclass
class Hunk:
    header: str  # "@@ -a,b +c,d @@ section"
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: list[DiffLine] = field(default_factory=list)
    # The moved blocks that start in this hunk: (index of the block's first line, its end), in order.
    moves: list[tuple[int, MoveEnd]] = field(default_factory=list)
    # Counted once: a 130k-line hunk was counted on every header, label and status line (and on the
    # UI thread). Whoever puts tools on lines calls retally(), in the thread that did it.
    _tally: Tally | None = field(default=None, repr=False, compare=False)
    # A hunk only adding lines, read without them (`parse(..., keep_lines=False)`: a triage row needs
    # their count and whose they are, not 100k line objects): their HEAD numbers. None: `lines` holds them.
    added_at: range | None = None

    def counts(self) -> Tally:
        if self._tally is None:
            added = removed = ai = widest = paired = person = base = 0
            # The change under way: its removed and added lines so far (side by side, the longer side's rows).
            change_removed = change_added = 0
            tools: set[str] = set()
            for line in self.lines:
                widest = max(widest, len(line.text))
                kind = line.kind
                if kind == "+":
                    added += 1
                    change_added += 1
                    if line.tool:
                        ai += 1
                        tools.add(line.tool)
                    elif line.state:
                        person += line.state == PERSON
                        base += line.state == BASE
                elif kind == "-":
                    removed += 1
                    change_removed += 1
                else:
                    paired += 1 + max(change_removed, change_added)
                    change_removed = change_added = 0
            paired += max(change_removed, change_added)
            self._tally = Tally(added, removed, ai, tuple(sorted(tools)), widest, paired, person, base)
        return self._tally

    def side_by_side(self) -> list[tuple[int, int]]:
        """The hunk's rows side by side: (the old side's line index, the new side's), -1 for none. A
        change's removed lines face its added lines in order; a context line is on both sides; "no
        newline at end of file" is on the side of the line before it. As many rows as `paired`."""
        rows: list[tuple[int, int]] = []
        removed: list[int] = []
        added: list[int] = []

        def flush() -> None:
            for number in range(max(len(removed), len(added))):
                rows.append(
                    (removed[number] if number < len(removed) else -1, added[number] if number < len(added) else -1)
                )
            removed.clear()
            added.clear()

        previous = " "
        for index, line in enumerate(self.lines):
            kind = line.kind
            if kind == "-":
                removed.append(index)
            elif kind == "+":
                added.append(index)
            else:
                flush()
                if kind == "\\":
                    rows.append((index if previous in "- " else -1, index if previous in "+ " else -1))
                else:
                    rows.append((index, index))
            previous = kind
        flush()
        return rows

    def retally(self) -> Tally:
        if self.added_at is None:  # a hunk read without its lines keeps the count made then
            self._tally = None
        return self.counts()

    def count_claims(self, runs: Sequence[tuple[int, int, Any]], firsts: Sequence[int], default: str = "") -> None:
        """For a hunk read without its lines (`added_at`): its AI count and tools, from the runs of HEAD
        lines each claim wins ((first, last, claim), in line order; `firsts` their first lines); lines
        no claim covers are in the `default` state (put_claims)."""
        if self.added_at is None or not self.added_at:
            return
        low, high = self.added_at[0], self.added_at[-1]
        counted = {"ai": 0, PERSON: 0, BASE: 0, "unknown": 0}
        tools: set[str] = set()
        # The run holding `low`, or the first after it; then on while the runs start within the hunk.
        at = max(0, bisect.bisect_right(firsts, low) - 1)
        while at < len(runs) and runs[at][0] <= high:
            first, last, claim = runs[at]
            if last >= low:
                counted[claim.state] += min(last, high) - max(first, low) + 1
                if claim.tool:
                    tools.add(claim.tool)
            at += 1
        if default == PERSON:
            counted[PERSON] += len(self.added_at) - sum(counted.values())
        self._tally = self.counts()._replace(
            ai_added=counted["ai"], tools=tuple(sorted(tools)), person_added=counted[PERSON], base_added=counted[BASE]
        )

    def put_claims(self, claims: Mapping[int, Any], default: str = "") -> None:
        """Each added line's winning claim (anything with a tool, a source, `moved`, `base` and a
        `state`) put on it where the claim names a tool, a move or the base, and its state; a line no
        claim covers gets the `default` state ("" unknown, or "person"). The tally's counts and tools
        follow in the same pass (the hunk is not counted again: 100k lines, a tenth of a triage's tail)."""
        ai = person = base = 0
        tools: set[str] = set()
        for line in self.lines:
            if line.kind == "+":
                claim = claims.get(line.new_no)  # type: ignore[arg-type]
                if claim is None:
                    line.state = default
                else:
                    # a person's moved lines, and lines from the base, say where from too.
                    if claim.tool or claim.moved or claim.base:
                        line.tool, line.source, line.moved = claim.tool, claim.source, claim.moved
                    state = claim.state
                    line.state = state if state in (PERSON, BASE) else ""
                if line.tool:
                    ai += 1
                    tools.add(line.tool)
                else:
                    person += line.state == PERSON
                    base += line.state == BASE
        self._tally = self.counts()._replace(
            ai_added=ai, tools=tuple(sorted(tools)), person_added=person, base_added=base
        )

    @property
    def tools(self) -> list[str]:
        return list(self.counts().tools)

    @property
    def added(self) -> int:
        return self.counts().added

    @property
    def removed(self) -> int:
        return self.counts().removed

    @property
    def ai_added(self) -> int:
        return self.counts().ai_added

    @property
    def widest(self) -> int:
        """The longest line's length in characters (the view's horizontal extent)."""
        return self.counts().widest


@dataclass
class FileDiff:
    path: str  # the new path (the old one for a deleted file)
    old_path: str | None
    status: str  # added | deleted | modified | renamed
    binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    hunks: list[Hunk] = field(default_factory=list)
    excluded: str | None = None  # why the AI share leaves this file out (core.share), or None: code
    # Lines whose change was whitespace only, hidden from this copy of the diff (core.whitespace).
    whitespace_hidden: int = 0

    @property
    def added(self) -> int:
        return sum(h.added for h in self.hunks)

    @property
    def removed(self) -> int:
        return sum(h.removed for h in self.hunks)

    @property
    def ai_added(self) -> int:
        return sum(h.ai_added for h in self.hunks)

    @property
    def person_added(self) -> int:
        return sum(h.counts().person_added for h in self.hunks)

    @property
    def base_added(self) -> int:
        """Added lines written at or before the base: moved, copied or renamed here from the starter."""
        return sum(h.counts().base_added for h in self.hunks)

    @property
    def tools(self) -> list[str]:
        return sorted({tool for h in self.hunks for tool in h.tools})


@dataclass
class Diff:
    base: str
    target: str
    files: list[FileDiff] = field(default_factory=list)
    truncated: bool = False
    problem: str | None = None
    partial: bool = False  # only the patch's first lines (head_of): painted while the rest is parsed
    # A copy without its whitespace-only changes (core.whitespace): how many changed lines it hides.
    whitespace_hidden: int | None = None
    # Who wrote which line has been put on its added lines: one with no tool and no state is unknown.
    claimed: bool = False

    def totals(self) -> Totals:
        """Every count the header and the share need, in one pass over the files (not one each)."""
        added = ai_added = code_added = code_ai_added = code_person = code_base = 0
        for file_diff in self.files:
            for hunk in file_diff.hunks:
                tally = hunk.counts()
                added += tally.added
                ai_added += tally.ai_added
                if file_diff.excluded is None:
                    code_added += tally.added
                    code_ai_added += tally.ai_added
                    code_person += tally.person_added
                    code_base += tally.base_added
        return Totals(added, ai_added, code_added, code_ai_added, code_person, code_base)

    @property
    def added(self) -> int:
        return self.totals().added

    @property
    def ai_added(self) -> int:
        return self.totals().ai_added

    @property
    def code_added(self) -> int:
        """Added lines the share counts: code, not prose, lockfiles, vendored or generated files."""
        return self.totals().code_added

    @property
    def code_ai_added(self) -> int:
        return self.totals().code_ai_added

    @property
    def ai_share(self) -> float | None:
        return self.totals().ai_share

    def file(self, path: str) -> FileDiff | None:
        return next((f for f in self.files if f.path == path), None)


_MODE = re.compile(r"^(old|new|deleted file|new file) mode (\d+)$", re.M)


def _strip_prefix(path: str | None) -> str | None:
    if path is None or path == "/dev/null":
        return None
    if len(path) >= 2 and path.startswith('"') and path.endswith('"'):
        path = unquote_path(path[1:-1])
    return path[2:] if path[:2] in ("a/", "b/") else path


def parse(patch: bytes, base: str = "", target: str = "", keep_lines: bool = True) -> Diff:
    """Parse git's patch bytes (invalid UTF-8 becomes U+FFFD; nothing raises on odd input).
    `keep_lines` False: hunks that only add lines keep their count and numbers, not the lines (what a
    triage row needs; such a diff is never shown)."""
    result = Diff(base, target)
    if len(patch) > MAX_PATCH_BYTES:
        cut = patch.rfind(b"\ndiff --git ", 0, MAX_PATCH_BYTES)
        patch = patch[: cut + 1 if cut > 0 else MAX_PATCH_BYTES]
        result.truncated = True
    # Lines end at "\n" only, as git writes them: a U+2028 or a lone "\r" is part of a line's text.
    lines = patch.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    index = next((i for i, line in enumerate(lines) if line.startswith(_FILE_START)), len(lines))
    try:
        while index < len(lines):
            index = _parse_file(lines, index, result, keep_lines)
    except unidiff.UnidiffParseError as error:
        result.problem = f"the patch could not be parsed: {error}"
        result.files.clear()
    return result


_FILE_START = "diff --git "
_HUNK_START = "@@ "
# A unified hunk header in git's bytes: old start, old count, new start, new count (a count left out is
# 1), then the section heading; the history replay reads the same headers.
HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)")
# The same, on the decoded patch this module reads.
_HUNK_HEADER_TEXT = re.compile(HUNK_HEADER.pattern.decode("ascii"))


def _parse_file(lines: list[str], index: int, result: Diff, keep_lines: bool = True) -> int:
    """One file's part of the patch, from its `diff --git` line: its header read by unidiff (paths,
    quoting, modes, renames, binary), its hunks here (a 100k-line diff: unidiff made an object per line
    that was then copied into ours, most of a cold triage's parse). Returns where the next file starts."""
    end = index + 1
    while end < len(lines) and not lines[end].startswith((_HUNK_START, _FILE_START)):
        end += 1
    hunks: list[Hunk] = []
    header = lines[index:end]
    while end < len(lines) and lines[end].startswith(_HUNK_START):
        hunk, end = _parse_hunk(lines, end, keep_lines)
        hunks.append(hunk)
    if end < len(lines) and not lines[end].startswith(_FILE_START):
        raise unidiff.UnidiffParseError(f"Unexpected line after a hunk: {lines[end][:80]}")
    patched = next(iter(unidiff.PatchSet("\n".join(header) + "\n")), None)
    if patched is not None:
        result.files.append(_file_diff(patched, hunks))
    return end


def _file_diff(patched: unidiff.PatchedFile, hunks: list[Hunk]) -> FileDiff:
    info = str(patched.patch_info or "")
    modes = {kind: mode for kind, mode in _MODE.findall(info)}
    old_path, new_path = _strip_prefix(patched.source_file), _strip_prefix(patched.target_file)
    # One hunk from line 0 of nothing (or to it) adds (or removes) the whole file, as unidiff reads it.
    only = hunks[0] if len(hunks) == 1 else None
    if patched.is_added_file or (only is not None and only.old_start == 0 and only.old_len == 0):
        status = "added"
    elif patched.is_removed_file or (only is not None and only.new_start == 0 and only.new_len == 0):
        status = "deleted"
    elif patched.is_rename:
        status = "renamed"
    else:
        status = "modified"
    file_diff = FileDiff(
        path=(new_path or old_path or patched.path),
        old_path=old_path if status == "renamed" else None,
        status=status,
        binary=patched.is_binary_file,
        old_mode=modes.get("old") or modes.get("deleted file"),
        new_mode=modes.get("new") or modes.get("new file"),
        hunks=hunks,
    )
    if status == "renamed" and not new_path:
        file_diff.path = patched.path
    return file_diff


def _parse_hunk(lines: list[str], index: int, keep_lines: bool = True) -> tuple[Hunk, int]:
    """The hunk whose header is at `index`, its body read by its header's counts (a body line may
    look like anything, `diff --git` included); returns it and the index after it."""
    match = _HUNK_HEADER_TEXT.match(lines[index])
    if match is None:
        raise unidiff.UnidiffParseError(f"Bad hunk header: {lines[index][:80]}")
    old_start, new_start = int(match[1]), int(match[3])
    old_len = 1 if match[2] is None else int(match[2])
    new_len = 1 if match[4] is None else int(match[4])
    header = f"@@ -{old_start},{old_len} +{new_start},{new_len} @@"
    # The section heading, after the one space git writes before it.
    section = match[5].removeprefix(" ")
    if section:
        header += f" {section}"
    model = Hunk(header, old_start, old_len, new_start, new_len)
    body = model.lines
    old_no, new_no = old_start, new_start
    old_end, new_end = old_start + old_len, new_start + new_len
    index += 1
    if not old_len or not new_len:
        read = _one_kind(lines, index, model, keep_lines)
        if read is not None:
            if model.added_at is not None:
                return model, read
            index, old_no, new_no = read, old_end, new_end
    while index < len(lines) and (old_no < old_end or new_no < new_end or lines[index][:1] == "\\"):
        line = lines[index]
        kind = line[:1]
        if kind == "+":
            body.append(DiffLine("+", line[1:], None, new_no))
            new_no += 1
        elif kind == "-":
            body.append(DiffLine("-", line[1:], old_no, None))
            old_no += 1
        elif kind == " " or not line or line == "\r":
            # An empty line is an empty context line (git's diff.suppressBlankEmpty writes them so).
            body.append(DiffLine(" ", line[1:] if kind == " " else line, old_no, new_no))
            old_no += 1
            new_no += 1
        elif kind == "\\":
            body.append(DiffLine("\\", line[1:], None, None))
        else:
            raise unidiff.UnidiffParseError(f"Hunk diff line expected: {line[:80]}")
        if old_no > old_end or new_no > new_end:
            raise unidiff.UnidiffParseError("Hunk is longer than expected")
        index += 1
    if old_no < old_end or new_no < new_end:
        raise unidiff.UnidiffParseError("Hunk is shorter than expected")
    # Here, in the parsing thread, not when the view first asks.
    model.counts()
    return model, index


def _one_kind(lines: list[str], index: int, model: Hunk, keep_lines: bool) -> int | None:
    """A hunk that only adds lines (a new file) or only removes them, read in one pass as they are all
    one kind; with `keep_lines` False, added lines are counted and numbered, not kept. The index after
    them, or None when the body is not all of that kind (read line by line then)."""
    kind, count = ("+", model.new_len) if not model.old_len else ("-", model.old_len)
    chunk = lines[index : index + count]
    if len(chunk) != count or not all(line[:1] == kind for line in chunk):
        return None
    after = index + count
    new_end, old_end = model.new_start + model.new_len, model.old_start + model.old_len
    if not keep_lines and kind == "+" and (after == len(lines) or lines[after][:1] != "\\"):
        # Counted as counts() counts them: each added line a row of its own.
        model.added_at = range(model.new_start, new_end)
        model._tally = Tally(count, 0, 0, (), max(map(len, chunk)) - 1, count)
        return after
    if kind == "+":
        model.lines += [
            DiffLine("+", line[1:], None, number) for line, number in zip(chunk, range(model.new_start, new_end))
        ]
    else:
        model.lines += [
            DiffLine("-", line[1:], number, None) for line, number in zip(chunk, range(model.old_start, old_end))
        ]
    return after


def head_of(patch: bytes, max_lines: int) -> bytes | None:
    """The patch's first `max_lines` lines as a patch of their own, for a first screen painted before
    the whole patch is parsed: cut at a line end, after the last whole file header, and a hunk cut
    short gets the counts of the lines it kept. None when the patch is no longer than that (parse it
    whole) or the cut leaves nothing. Linear in what it keeps."""
    end = -1
    for _ in range(max_lines):
        end = patch.find(b"\n", end + 1)
        if end == -1:
            return None
    lines = patch[: end + 1].split(b"\n")[:-1]
    last_file = max((i for i, line in enumerate(lines) if line.startswith(b"diff --git ")), default=-1)
    last_hunk = max((i for i, line in enumerate(lines) if line.startswith(b"@@ ")), default=-1)
    if last_hunk < last_file:  # cut inside a file's header: that file is left out
        kept = lines[:last_file]
        return b"".join(line + b"\n" for line in kept) if kept else None
    match = HUNK_HEADER.match(lines[last_hunk]) if last_hunk >= 0 else None
    if match is None:
        return None
    body = lines[last_hunk + 1 :]
    old = sum(1 for line in body if line[:1] in (b" ", b"-"))
    new = sum(1 for line in body if line[:1] in (b" ", b"+"))
    lines[last_hunk] = b"@@ -%s,%d +%s,%d @@%s" % (match[1], old, match[3], new, match[5])
    return b"".join(line + b"\n" for line in lines)
