"""Every source merged into one claim per HEAD line, with the conflicts between them. Pure."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from review.core.attribution import segments
from review.core.attribution.note import NoteDisclosure, NoteEntry
from review.core.attribution.records import LineRecord, Notice, Ranges, line_runs
from review.core.attribution.rewritten import RewrittenNote, summary
from review.core.attribution.segments import Blame
from review.core.attribution.tools import UNNAMED, is_known
from review.core.attribution.trailers import CommitAttribution, assistants

MAX_REWRITTEN_LISTED = 200  # in the JSON, each with its lines; `rewritten_count` says how many there are


@dataclass(frozen=True)
class Claim:
    tool: str | None
    source: str
    layer: int  # 0 a person's commit (no claim), 1 commit metadata, 2 the note, 3 line-level records
    moved: bool = False  # a block moved or copied from where its commit wrote it (the source says where)
    # A commit with no AI marker, in a submission that discloses nothing (or a commit a line-level
    # record describes, on a line it does not name): no source says who wrote its lines.
    unknown: bool = False
    # Written at or before the base (the starter's code, moved, copied or renamed into another file):
    # not written in the submission at all.
    base: bool = False

    @property
    def state(self) -> str:
        """ai | person | unknown | base: what the line's author is known to be."""
        if self.base:
            return BASE
        if self.tool:
            return AI
        return UNKNOWN if self.unknown else PERSON


# Each added line's state, where a claim is shown or counted; a line with no claim at all is unknown.
AI, PERSON, UNKNOWN, BASE = "ai", "person", "unknown", "base"


@dataclass
class Span:
    path: str
    start: int
    end: int
    tool: str | None
    source: str
    state: str = PERSON  # Claim.state

    def to_json(self) -> dict:
        # Field by field, not dataclasses.asdict: a long history has thousands of spans, and asdict's
        # deep copy of each was a tenth of a cold triage's Python.
        return {
            "path": self.path,
            "start": self.start,
            "end": self.end,
            "tool": self.tool,
            "source": self.source,
            "state": self.state,
        }


@dataclass
class Unmapped:
    line_no: int
    text: str
    reason: str
    # Where the line was written when not in the note (README.md, AI-DECLARATION.md).
    file: str = ""

    def to_json(self) -> dict:
        return {"line": self.line_no, "text": self.text, "reason": self.reason, "file": self.file or "note"}


@dataclass
class Conflict:
    path: str | None
    start: int | None
    end: int | None
    message: str
    # The two (or more) sources that disagree, each with the author it names (None: a person).
    sides: list[tuple[str, str | None]] = field(default_factory=list)

    def to_json(self) -> dict:
        return {**dataclasses.asdict(self), "sides": [{"source": source, "tool": tool} for source, tool in self.sides]}


@dataclass
class Attribution:
    """Everything known about who wrote the submission's HEAD, line by line."""

    tools: list[str]
    # path -> the runs of HEAD lines one claim wins: (first line, last line, that claim), in line order.
    stretches: dict[str, list[tuple[int, int, Claim]]]
    spans: list[Span]
    conflicts: list[Conflict]
    unmapped: list[Unmapped]
    commits: list[CommitAttribution]
    note: NoteDisclosure
    # What line-level sources said that claims no line (unknown origin, a record that cannot be placed).
    notices: list[Notice] = field(default_factory=list)
    # git-ai notes on commits no longer in the history, each with the lines carried to HEAD.
    rewritten: list[RewrittenNote] = field(default_factory=list)

    @property
    def unplaced(self) -> int:
        """Line-level accounts that name lines no HEAD line could be matched to: a record whose revision
        is not in the history, a note on a rewritten commit that is gone."""
        return sum(n.unplaced for n in self.notices) + sum(r.problem is not None for r in self.rewritten)

    # Tools named in an explicit disclosure form that the console does not know: shown as written.
    unknown_tools: list[str] = field(default_factory=list)
    # Whether any source speaks for the submission as a whole (the note's disclosure or its "no AI",
    # an AI marker on some commit): then a commit with no AI marker is the person's.
    discloses: bool = False
    _by_line: dict[str, dict[int, Claim]] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def lines(self) -> dict[str, dict[int, Claim]]:
        """path -> HEAD line -> the winning claim."""
        return {path: self.lines_of(path) for path in self.stretches}

    def lines_of(self, path: str) -> dict[int, Claim]:
        """HEAD line -> the winning claim, in one file; made when first asked (a triage row counts from
        the stretches, and never needs a dict of every line)."""
        found = self._by_line.get(path)
        if found is None:
            found = self._by_line[path] = {}
            for first, last, claim in self.stretches.get(path, ()):
                found.update(dict.fromkeys(range(first, last + 1), claim))
        return found

    def claim(self, path: str, line: int) -> Claim | None:
        return self.lines_of(path).get(line)

    def to_json(self, share: float | None = None) -> dict:
        return {
            "tools": self.tools,
            "unknown_tools": self.unknown_tools,
            "share": share,
            "spans": [s.to_json() for s in self.spans],
            "conflicts": [c.to_json() for c in self.conflicts],
            "unmapped": [u.to_json() for u in self.unmapped],
            "notices": [n.to_json() for n in self.notices],
            "rewritten": [r.to_json() for r in self.rewritten[:MAX_REWRITTEN_LISTED]],
            "rewritten_count": len(self.rewritten),
            "rewritten_summary": summary(self.rewritten),
        }


def _label(tool: str | None) -> str:
    return tool or "a person"


class Prepared:
    """What the merge reads of the commits, and of the records known before any line's origin is: each
    commit's claim, and each record as it counts (one naming its commit's own person is that person's)
    with its claim and its ranges. Made while the history is still being replayed, so that less is left
    for after it (5,000 commits and notes: 13 ms); what was not prepared, `attribute` reads itself."""

    def __init__(
        self, commits: list[CommitAttribution], authors: dict[str, str], records: list[LineRecord] | None = None
    ) -> None:
        self.commits, self.authors = commits, authors
        self.by_commit = {c.commit: c for c in commits}
        # One claim per commit, shared by all of its lines.
        self.per_commit: dict[str, Claim | None] = {}
        for commit in commits:
            self.commit_claim(commit.commit)
        self.given: list[LineRecord] = list(records or [])
        self.records, self.parts = self._read(self.given)

    def commit_claim(self, sha: str) -> Claim | None:
        if sha not in self.per_commit:
            attribution, claim = self.by_commit.get(sha), None
            if attribution and attribution.signals:
                claim = Claim(attribution.claim_signal.tool, f"commit {sha[:7]}: {attribution.claim_source}", 1)
            elif sha in self.authors:
                claim = Claim(None, f"commit {sha[:7]} by {self.authors[sha]}", 0)
            self.per_commit[sha] = claim
        return self.per_commit[sha]

    def begins(self, commits: list[CommitAttribution], records: list[LineRecord]) -> bool:
        """Whether it was made of these commits and of the first of these records, the same objects."""
        return (
            commits is self.commits
            and len(records) >= len(self.given)
            and all(mine is theirs for mine, theirs in zip(self.given, records))
        )

    def read(self, records: list[LineRecord]) -> tuple[list[LineRecord], list[tuple[Claim | None, Ranges]]]:
        """Every record as it counts, with its claim and ranges: the prepared ones as they were read."""
        rest, parts = self._read(records[len(self.given) :])
        return self.records + rest, self.parts + parts

    def _read(self, records: list[LineRecord]) -> tuple[list[LineRecord], list[tuple[Claim | None, Ranges]]]:
        counted = [_as_person_when_named(record, self.by_commit.get(record.commit or "")) for record in records]
        # One claim object for all of a record's lines; its ranges as intervals ("1-20000000" costs nothing).
        return counted, [(Claim(r.tool, r.source, 3) if r.claims else None, Ranges(r.ranges)) for r in counted]


TEST_FILE = re.compile(r"(^|/)(tests?|__tests__|spec)/|\.(test|spec)\.[cm]?[jt]s$")


def attribute(
    commits: list[CommitAttribution],
    authors: dict[str, str],
    note: NoteDisclosure,
    head_lines: dict[str, int],
    blame: Blame,
    records: list[LineRecord],
    head: str,
    subjects: dict[str, str] | None = None,
    notices: list[Notice] | None = None,
    rewritten: list[RewrittenNote] | None = None,
    prepared: Prepared | None = None,
    base_commits: frozenset[str] = frozenset(),
) -> Attribution:
    """Merge every source into one claim per HEAD line.

    `authors`: commit id -> its author (for "a person" claims); `head_lines`: path -> line count at
    HEAD; `blame`: for each path, which commit (and which of its lines) each HEAD line comes from;
    `subjects`: commit id -> subject, for a note that names a commit by its subject; `notices`: what
    line-level sources said that claims no line; `rewritten`: git-ai notes on commits not in the
    history (their carried lines are among `records`; their tools are named).

    A commit without an assistant in its metadata claims nothing: its lines default to a person
    (layer 0), which no other source conflicts with — when the submission discloses anything;
    otherwise, and on the lines of a commit a line-level record describes but does not name, no
    source says who wrote them (unknown). `prepared`: what was read of these commits and of the first
    records before the lines' origins were known (`Prepared`). `base_commits`: the base and its
    ancestors: a line written in one of them is from the base, whatever any source says of it.
    """
    if prepared is None or not prepared.begins(commits, records):
        prepared = Prepared(commits, authors)
    by_commit = prepared.by_commit
    records, parts = prepared.read(records)
    discloses = note.discloses or note.declares_none or any(c.signals for c in commits)
    described = {r.commit for r in records if r.commit}
    unknown_claims: dict[str, Claim] = {}

    def commit_claim(sha: str) -> Claim | None:
        """The commit's claim; a person's commit in a submission that discloses nothing, or one a
        line-level record describes (its other lines are ones the record does not speak for), unknown."""
        claim = prepared.commit_claim(sha)
        if claim is None or claim.layer or (discloses and sha not in described):
            return claim
        if sha not in unknown_claims:
            unknown_claims[sha] = dataclasses.replace(claim, unknown=True)
        return unknown_claims[sha]

    def block_claim(block: segments.Block) -> Claim | None:
        """Layer 1, through blame, a block of lines at a time: a commit's lines, one claim for them all; a
        moved or copied block is still its writer's, the origin commit's claim saying where from."""
        sha, at = block.sha, f"{block.there}:{block.orig_start}"
        if sha in base_commits:
            return Claim(None, f"from the base: {at} ({sha[:7]})", 0, base=True)
        claim = commit_claim(sha)
        if claim is None or not block.mover:
            return claim
        where = f"moved from {at} ({sha[:7]}, {authors.get(sha, 'unknown author')})"
        # Only a commit with signals claims a tool.
        return dataclasses.replace(
            claim, source=f"{where}: {by_commit[sha].claim_source}" if claim.tool else where, moved=True
        )

    by_path = {path: segments.blocks(origins) for path, origins in blame.items()}
    for block in (block for path_blocks in by_path.values() for block in path_blocks):
        block.claim = block_claim(block)
    intervals: dict[str, list[segments.Interval]] = {
        path: [segments.Interval(b.start, b.end, segments.COMMIT, 0, b.claim) for b in path_blocks if b.claim]
        for path, path_blocks in by_path.items()
    }

    def add(path: str, first: int, last: int, kind: int, seq: int, claim: Any) -> None:
        if first <= last:
            intervals.setdefault(path, []).append(segments.Interval(first, last, kind, seq, claim))

    # Layer 3: line-level records, mapped from the commit they describe to HEAD through the blocks.
    # Records of one family settle the lines they share among themselves (the highest order wins, with
    # no conflict); only a family with more than one order, or an "unknown" record, is settled per line.
    orders: dict[str, set[tuple[int, bool]]] = {}
    for record in records:
        if record.family:
            orders.setdefault(record.family, set()).add((record.order, record.claims))
    settled = {family for family, seen in orders.items() if len(seen) > 1 or not all(c for _, c in seen)}
    introduced = segments.Introduced(by_path)
    for seq, (record, (claim, wanted)) in enumerate(zip(records, parts)):
        if record.family in settled:
            for path, first, last in segments.record_lines(record, wanted, head, by_path, introduced):
                add(path, first, last, segments.FAMILY, seq, (record.family, record.order, claim))
        elif claim is not None:
            for path, first, last in segments.record_lines(record, wanted, head, by_path, introduced):
                add(path, first, last, segments.RECORD, seq, claim)

    # Layer 2: the note's entries, in order (a later, more specific line overrides an earlier one); what
    # names no code is listed as unmapped, with why.
    unmapped: list[Unmapped] = []
    for seq, entry in enumerate(note.entries):
        claim = Claim(entry.tool, f"{entry.file or 'note'} line {entry.line_no}", 2)
        for named in _entry_lines(entry, head_lines, by_path, authors, subjects):
            if isinstance(named, str):
                unmapped.append(_unmapped(entry, named))
            else:
                add(*named, segments.NOTE, seq, claim)

    # Winners and conflicts, one stretch of lines at a time.
    winners: dict[str, list[tuple[int, int, Claim]]] = {}
    disagreements: dict[tuple[str, str], list[int]] = {}
    sides: dict[str, list[tuple[str, str | None]]] = {}  # message -> the sources and what each says
    # Two sources saying the same of many lines: one claim naming both.
    both: dict[tuple[Claim, str], Claim] = {}
    spans: list[Span] = []
    said_by: list[tuple[str, str | None]]
    for path in sorted(intervals):
        path_winners: list[tuple[int, int, Claim]] = []
        for first, last, holding in segments.sweep(intervals[path]):
            if holding[0].kind == segments.COMMIT and holding[0].claim.base:
                # Not written in the submission: nothing any source says of it counts.
                winner, message, said_by = holding[0].claim, None, []
            elif (
                len(holding) == 2
                and holding[0].kind == segments.COMMIT
                and holding[1].kind == segments.RECORD
                and not holding[0].claim.layer
            ):
                # A person's commit and one record about its lines (most lines of a git-ai history): the
                # record's, nothing to weigh.
                winner, message, said_by = holding[1].claim, None, []
            else:
                line_claims = _line_claims(holding)
                if not line_claims:  # only records saying the origin is unknown: no one's lines
                    continue
                winner, message, said_by = _settle(line_claims, both)
            path_winners.append((first, last, winner))
            if message is not None:
                disagreements.setdefault((path, message), []).extend(range(first, last + 1))
                sides[message] = said_by
            # The previous span goes on when it ends just before, saying the same.
            said = (path, first - 1, winner.tool, winner.source, winner.state)
            if spans and (spans[-1].path, spans[-1].end, spans[-1].tool, spans[-1].source, spans[-1].state) == said:
                spans[-1].end = last
            else:
                spans.append(Span(path, first, last, winner.tool, winner.source, winner.state))
        # A record about a path with no lines at HEAD: nothing to win.
        if path_winners:
            winners[path] = path_winners
    conflicts = [
        Conflict(path, start, end, message, sides.get(message, []))
        for (path, message), lines in sorted(disagreements.items())
        for start, end in line_runs(sorted(lines))
    ]
    commit_tools = assistants(commits)
    if note.declares_none and commit_tools:
        message = f"the note declares no assistant, but commit metadata names {', '.join(commit_tools)}"
        against = [("note", None), *(("commit metadata", tool) for tool in commit_tools)]
        conflicts.insert(0, Conflict(None, None, None, message, against))
    notices = list(notices or [])
    if not note.discloses and not note.declares_none and commit_tools:
        # Silence is no disagreement: the commits disclose the tool and which lines, and the note says
        # nothing against them. Shown beside the disclosure, never counted as a conflict.
        notices.insert(
            0, Notice("note", f"the note names no assistant; commit metadata names {', '.join(commit_tools)}")
        )

    rewritten = list(rewritten or [])
    tools = sorted(
        {*commit_tools, *note.tools, *(r.tool for r in records if r.tool), *(t for n in rewritten for t in n.tools)}
    )
    if any(tool not in UNNAMED for tool in tools):
        # An unnamed assistant is named where another source names it: listed only where it wins lines.
        winning = {claim.tool for runs in winners.values() for _, _, claim in runs}
        tools = [tool for tool in tools if tool not in UNNAMED or tool in winning]
    unknown = [tool for tool in tools if not is_known(tool)]
    return Attribution(
        tools, winners, spans, conflicts, unmapped, commits, note, notices, rewritten, unknown, discloses
    )


def _entry_lines(
    entry: NoteEntry,
    head_lines: dict[str, int],
    by_path: dict[str, list[segments.Block]],
    authors: dict[str, str],
    subjects: dict[str, str] | None,
) -> Iterator[tuple[str, int, int] | str]:
    """The HEAD lines a note entry names, as (path, first, last) runs, and why it names no code or
    only some of what it says (a reason, shown beside the line as written)."""
    if entry.kind in ("prose", "unread"):
        yield entry.reason or "names no file, lines or commit: shown as written, not mapped to code"
    elif entry.kind == "function":
        yield f"names {entry.symbol}, which no code file in the diff defines"
    elif entry.kind == "tests":
        tests = [path for path in head_lines if TEST_FILE.search(path)]
        if not tests:
            yield "names the tests, but HEAD has no test file"
        yield from ((path, 1, head_lines[path]) for path in tests)
    elif entry.kind == "commit":
        if entry.subject:
            named = entry.subject.lower()
            matches = [
                sha
                for sha, subject in (subjects or {}).items()
                if subject and (subject.lower().startswith(named) or named.startswith(subject.lower()))
            ]
        else:
            matches = [sha for sha in authors if sha.startswith(entry.commit or "")]
        if len(matches) != 1:
            what = "subject" if entry.subject else "id"
            yield f"no commit of this submission has that {what}" if not matches else f"that {what} is ambiguous"
            return
        runs = [(path, b.start, b.end) for path, blocks in by_path.items() for b in blocks if b.sha == matches[0]]
        yield from runs
        if not runs:
            yield f"no line of commit {matches[0][:7]} survives at HEAD"
    elif entry.kind != "none":
        path = entry.path or ""
        count = head_lines.get(path)
        if count is None:
            yield f"{path} is not in the submission at HEAD"
            return
        start, end = (1, count) if entry.kind == "file" else (entry.start or 1, entry.end or entry.start or 1)
        if start > count:
            yield f"names lines {start}–{end} but {path} has {count} lines"
            return
        if end > count:
            yield f"lines {count + 1}–{end} do not exist ({path} has {count} lines)"
            end = count
        yield (path, start, end) if entry.who else "names lines but not who wrote them"


def _line_claims(holding: list[segments.Interval]) -> list[Claim]:
    """What is said of each line of a stretch, in the order the precedence reads it: commit metadata;
    records standing alone, in their order; each family's records of its highest order on the line
    (families in the order their first record names it); the note's last entry naming it."""
    if all(iv.kind <= segments.RECORD for iv in holding):
        # Commit metadata and records standing alone only (most stretches): already in that order, as
        # the intervals were made (each path's commit blocks first, then the records in their order).
        return [iv.claim for iv in holding]
    said: list[Claim] = [iv.claim for iv in holding if iv.kind == segments.COMMIT]
    said += [iv.claim for iv in sorted((iv for iv in holding if iv.kind == segments.RECORD), key=lambda iv: iv.seq)]
    families: dict[str, list[segments.Interval]] = {}
    for iv in sorted((iv for iv in holding if iv.kind == segments.FAMILY), key=lambda iv: iv.seq):
        families.setdefault(iv.claim[0], []).append(iv)
    for members in families.values():
        best = max(iv.claim[1] for iv in members)
        said += [iv.claim[2] for iv in members if iv.claim[1] == best and iv.claim[2] is not None]
    # Each file of the disclosure (AI-DECLARATION.md, then the note) says what its last entry naming
    # the line says; the note's comes last, and wins.
    last: dict[str, segments.Interval] = {}
    for iv in sorted((iv for iv in holding if iv.kind == segments.NOTE), key=lambda iv: iv.seq):
        written_in = iv.claim.source.rpartition(" line ")[0]  # "note", "README.md", "AI-DECLARATION.md"
        last.pop(written_in, None)
        last[written_in] = iv
    said += [iv.claim for iv in last.values()]
    return said


def _settle(
    line_claims: list[Claim], both: dict[tuple[Claim, str], Claim]
) -> tuple[Claim, str | None, list[tuple[str, str | None]]]:
    """The winning claim of a line, and the disagreement it shows (its message and each side), if any.
    `both` keeps the claims made for two sources agreeing, so their lines share one.

    Sources disagree only when one names a person and another an assistant, or two name different
    assistants: an unnamed assistant (a git-ai session with no tool, an Agent Trace `ai` range with no
    name) beside a named one is the named one, and both sources are listed."""
    claiming = [c for c in line_claims if c.layer > 0]  # a plain commit by a person claims nothing
    if len(claiming) <= 1:  # most lines: one source, nothing to agree or disagree with
        return (claiming[0] if claiming else line_claims[0]), None, []
    best = max(line_claims, key=lambda c: c.layer)
    if best.layer == 2:  # of two disclosure files (AI-DECLARATION.md, the note), the note says last
        best = [c for c in line_claims if c.layer == 2][-1]
    tool = best.tool
    if tool in UNNAMED:
        named = [c for c in claiming if c.tool is not None and c.tool not in UNNAMED]
        if named:
            tool = max(named, key=lambda c: c.layer).tool
    agreeing = [c.source for c in line_claims if c is not best and c.layer > 0 and _agree(c.tool, best.tool)]
    if agreeing or tool != best.tool:  # two sources saying the same: both shown
        key = (best, f"{agreeing[0] if agreeing else ''}\x00{tool}")
        if key not in both:
            both[key] = Claim(tool, f"{best.source}, and {agreeing[0]}" if agreeing else best.source, best.layer)
        best = both[key]
    said = next((c for c in reversed(claiming) if c.layer == 2), None)
    other = next((c for c in claiming if c is not said and said is not None and not _agree(c.tool, said.tool)), None)
    if said and other:
        message = f"the note ({said.source}) says {_label(said.tool)}; {other.source} says {_label(other.tool)}"
        return best, message, [(said.source, said.tool), (other.source, other.tool)]
    if said is None and _disagree(claiming):
        ordered = sorted(claiming, key=lambda c: -c.layer)
        said_by = [(c.source, c.tool) for c in ordered]
        return best, "; ".join(f"{c.source} says {_label(c.tool)}" for c in ordered), said_by
    return best, None, []


def _agree(one: str | None, other: str | None) -> bool:
    """Two sources say the same of a line: the same author, or an assistant one names and the other
    leaves unnamed."""
    return one == other or (one is not None and other is not None and (one in UNNAMED or other in UNNAMED))


def _disagree(claiming: list[Claim]) -> bool:
    """A person beside an assistant, or two different named assistants."""
    named = {c.tool for c in claiming if c.tool is not None and c.tool not in UNNAMED}
    person = any(c.tool is None for c in claiming)
    assistant = any(c.tool is not None for c in claiming)
    return len(named) > 1 or (person and assistant)


def _as_person_when_named(record: LineRecord, commit: CommitAttribution | None) -> LineRecord:
    """A record that names its author (git-ai's legacy authorship) about one of the commit's own
    people — its author or committer, by full name or a part of it such as the first name — is
    that person's, whatever else the name could be: a person is never an assistant."""
    if record.author is None or record.tool is None or commit is None:
        return record
    named = _name_words(record.author)
    for person in (commit.author, commit.committer):
        words = _name_words(person)
        if named and words and (named <= words or words <= named):
            return dataclasses.replace(
                record, tool=None, source=f"{record.source} (author {record.author}: the commit's {person})"
            )
    return record


def _name_words(name: str) -> frozenset[str]:
    return frozenset(re.findall(r"[^\W\d_]+", name.lower()))


def _unmapped(entry: NoteEntry, reason: str) -> Unmapped:
    """A line that maps to no code, as written, with why and where it was written."""
    return Unmapped(entry.line_no, entry.raw.strip(), reason, entry.file)
