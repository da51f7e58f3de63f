"""git-ai notes on commits that are no longer in the history. Pure.

A squash (``reset --soft`` and a new commit), a rebase or an amend makes new commits; git-ai's note
stays in refs/notes/ai on the old one, which HEAD no longer reaches. Such a note is still the tool's
account of lines it wrote: it is listed on the row, its tool is named, and its lines are carried to
HEAD where the same text survives — a block of the old commit's lines found again among the lines the
submission added, by the thresholds blame uses for a moved block (at least MOVE_MIN_ALNUM letters and
digits in the same file, COPY_MIN_ALNUM in another). A carried line must have been written after the
old commit's history left HEAD's (a line HEAD holds from an ancestor of the old commit was not written
there). A note on a commit in the history wins over a carried one on the same line, with no conflict.
When the old commit's files cannot be read (its objects are in neither the copy nor the submitted
repository), the note is listed and says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from review.core.attribution.records import LineRecord, Ranges, Runs, line_runs
from review.core.attribution.segments import Blame
from review.core.line_moves import COPY_MIN_ALNUM, MAX_SEED_HITS, MOVE_MIN_ALNUM, alnum

FAMILY = "git-ai"
CARRIED = "from a rewritten commit, matched by content"
MAX_LISTED_PATHS = 3


@dataclass
class RewrittenNote:
    commit: str
    source: str  # "git-ai note", "git-ai legacy authorship"
    records: list[LineRecord]  # what it says, about the lines of its commit
    problem: str | None = None  # why its lines cannot be matched by content
    carried: int = 0  # its lines found again at HEAD (and counted to it)
    carried_to: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # HEAD path -> line runs

    @property
    def tools(self) -> list[str]:
        return sorted({r.tool for r in self.records if r.tool})

    def describe(self) -> str:
        said = self.problem or (
            f"{self.carried} carried to HEAD where the same text survives"
            if self.carried
            else "none of its lines' text survives among the lines added at HEAD"
        )
        lines = _lines_text(_counts(self.records))
        return f"{self.source} on {self.commit[:7]} (not in this history): {lines}; {said}"

    def to_json(self) -> dict:
        return {
            "commit": self.commit,
            "source": self.source,
            "tools": self.tools,
            "lines": [
                {"path": path, "tool": tool, "lines": count}
                for tool, by_path in _counts(self.records).items()
                for path, count in sorted(by_path.items())
            ],
            "carried": self.carried,
            "carried_to": [
                {"path": path, "start": start, "end": end}
                for path, runs in sorted(self.carried_to.items())
                for start, end in runs
            ],
            "problem": self.problem,
        }


def _counts(records: Iterable[LineRecord]) -> dict[str | None, dict[str, int]]:
    """Who (None: a person) -> path -> how many lines the records give them."""
    counted: dict[str | None, dict[str, int]] = {}
    for record in records:
        by_path = counted.setdefault(record.tool, {})
        by_path[record.path] = by_path.get(record.path, 0) + sum(e - s + 1 for s, e in Ranges(record.ranges))
    return counted


def _lines_text(lines: dict[str | None, dict[str, int]]) -> str:
    """ "Claude Code, 4 lines of checkout.mjs and 3 of lib.mjs; a person, 2 lines of x.mjs"."""
    parts = []
    for tool in sorted(lines, key=lambda t: (t is None, t or "")):
        by_path = sorted(lines[tool].items())
        named = [
            f"{_many(count, 'line')} of {path}" if not index else f"{count} of {path}"
            for index, (path, count) in enumerate(by_path[:MAX_LISTED_PATHS])
        ]
        more = f" and {len(by_path) - MAX_LISTED_PATHS} more files" if len(by_path) > MAX_LISTED_PATHS else ""
        parts.append(f"{tool or 'a person'}, {' and '.join(named)}{more}")
    return "; ".join(parts) or "no lines"


def summary(notes: list[RewrittenNote]) -> str | None:
    """One sentence for the row: "1 git-ai note describes a commit not in this history: Claude Code,
    4 lines of checkout.mjs; 4 carried to HEAD where the same text survives"."""
    if not notes:
        return None
    describes = "describes a commit" if len(notes) == 1 else "describe commits"
    lines = _lines_text(_counts(r for note in notes for r in note.records))
    text = f"{_many(len(notes), 'git-ai note')} {describes} not in this history: {lines}"
    carried = sum(note.carried for note in notes)
    survives = f"{_many(carried, 'line')} carried to HEAD where the same text survives"
    text += f"; {survives}" if carried else "; none of their text survives among the lines added at HEAD"
    unreadable = sum(note.problem is not None for note in notes)
    if unreadable:
        problem = next(note.problem for note in notes if note.problem)
        text += f" ({_many(unreadable, 'note')} could not be matched: {problem})"
    return text


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def split_lines(data: bytes) -> list[bytes]:
    """A file's lines as the diff shows them: no line feed, no carriage return before it."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


@dataclass
class _Block:
    note: int
    record: int
    path: str  # the path at the old commit
    texts: list[bytes]


def carry(
    notes: list[RewrittenNote], texts: dict[tuple[str, str], list[bytes]], runs: Runs
) -> list[tuple[int, LineRecord]]:
    """(note index, a record of HEAD lines) for each block of a note's lines whose text HEAD's added
    lines hold again. `texts`: (commit, path) -> that file's lines at the old commit, for the notes
    whose commit could be read. Linear in the added lines (times the seeds' bounded hits)."""
    blocks: list[_Block] = []
    index: dict[bytes, list[tuple[int, int]]] = {}  # text -> (block, position in it); capped per text
    common: set[bytes] = set()  # texts in more places than MAX_SEED_HITS: grown over, never seeds
    for n, note in enumerate(notes):
        for r, record in enumerate(note.records):
            old = texts.get((note.commit, record.path))
            if old is None:
                continue
            for start, end in Ranges(record.ranges):
                block = old[max(1, start) - 1 : min(end, len(old))]
                if not block:
                    continue
                blocks.append(_Block(n, r, record.path, block))
                for at, text in enumerate(block):
                    hits = index.setdefault(text, [])
                    if len(hits) < MAX_SEED_HITS:
                        hits.append((len(blocks) - 1, at))
                    else:
                        common.add(text)
    found: dict[tuple[int, int], dict[str, set[int]]] = {}
    for path, path_runs in runs.items():
        for first, run in path_runs:
            # One pass per run: each (block, offset) alignment is extended over each line at most once.
            extents: dict[tuple[int, int], tuple[int, int]] = {}
            for i, text in enumerate(run):
                seeds = index.get(text)
                if not seeds or text in common:
                    continue
                for number, at in seeds:
                    offset = at - i
                    last = extents.get((number, offset))
                    if last is not None and last[0] <= i < last[1]:
                        continue
                    old_texts = blocks[number].texts
                    low, high = i, i + 1
                    while low > 0 and low + offset > 0 and run[low - 1] == old_texts[low + offset - 1]:
                        low -= 1
                    while high < len(run) and high + offset < len(old_texts) and run[high] == old_texts[high + offset]:
                        high += 1
                    extents[(number, offset)] = (low, high)
                    least = MOVE_MIN_ALNUM if blocks[number].path == path else COPY_MIN_ALNUM
                    if sum(map(alnum, run[low:high])) >= least:
                        key = (blocks[number].note, blocks[number].record)
                        found.setdefault(key, {}).setdefault(path, set()).update(range(first + low, first + high))
    carried: list[tuple[int, LineRecord]] = []
    for (n, r), by_path in found.items():
        note, record = notes[n], notes[n].records[r]
        source = f"{note.source} on {note.commit[:7]}, {CARRIED}"
        for path, numbers in sorted(by_path.items()):
            carried.append((n, LineRecord(path, None, line_runs(sorted(numbers)), record.tool, source, FAMILY, -1)))
    return carried


def settle(
    notes: list[RewrittenNote], carried: list[tuple[int, LineRecord]], blame: Blame, older: dict[str, frozenset[str]]
) -> list[LineRecord]:
    """The carried records without the lines HEAD holds from an ancestor of the note's commit (`older`:
    note commit -> the history's commits it descends from), each note's carried lines counted."""
    kept: list[LineRecord] = []
    seen: dict[int, dict[str, set[int]]] = {}
    for n, record in carried:
        before = older.get(notes[n].commit, frozenset())
        origins = blame.get(record.path)
        lines = [
            line
            for start, end in record.ranges
            for line in range(start, end + 1)
            if origins is None or line > len(origins) or origins[line - 1][0] not in before
        ]
        if not lines:
            continue
        record.ranges = line_runs(lines)
        kept.append(record)
        seen.setdefault(n, {}).setdefault(record.path, set()).update(lines)
    for n, by_path in seen.items():
        notes[n].carried = sum(map(len, by_path.values()))
        notes[n].carried_to = {path: line_runs(sorted(numbers)) for path, numbers in sorted(by_path.items())}
    return kept


def _reach(starts: Iterable[str], parents: dict[str, tuple[str, ...]]) -> set[str]:
    """`starts` and every commit reached from them through `parents` (one not in it is reached, not followed)."""
    seen: set[str] = set()
    todo = list(starts)
    while todo:
        sha = todo.pop()
        if sha not in seen:
            seen.add(sha)
            todo += parents.get(sha, ())
    return seen


def older_than(
    commits: Iterable[str], outside: dict[str, tuple[str, ...]], history: dict[str, tuple[str, ...]]
) -> dict[str, frozenset[str]]:
    """For each note's commit, the history's commits it descends from (its fork points, where its
    ancestry joins the history, and their ancestors), one walk per distinct set of fork points.
    `outside`: every commit reachable from the notes' commits but not from HEAD, with its parents."""
    walked: dict[frozenset[str], frozenset[str]] = {}
    older: dict[str, frozenset[str]] = {}
    for commit in commits:
        reached = _reach([commit], outside)
        forks = frozenset(sha for sha in reached if sha not in outside and sha != commit and sha in history)
        if forks not in walked:
            walked[forks] = frozenset(sha for sha in _reach(forks, history) if sha in history)
        older[commit] = walked[forks]
    return older
