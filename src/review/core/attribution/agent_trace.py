"""Agent Trace JSON Lines (.agent-trace/traces.jsonl) → line records. Pure.

A record lists files → conversations → ranges, each conversation with a contributor (`ai`, `mixed`,
`human`, `unknown`) that a range may override with its own (the spec's agent handoffs), and `vcs.revision`
naming the commit the line numbers belong to. The spec's reference implementation writes that revision as
``git rev-parse HEAD`` at the time of the edit: the parent of the commit that will hold the change. So a
revision is read as naming its own lines or its child's, whichever introduced more of the record's lines
that survive (the child on a tie); a range with a `content_hash` is first looked for by that hash among
the lines the submission added, wherever it moved. Within the file, a later record wins over an earlier
one on the lines both name (a later edit), and a range's own contributor over its conversation's: no
conflict among the file's own records. `mixed` counts as AI and says so; `unknown` claims nothing and
is listed; a revision that is not in the history is listed with the ranges it could not place.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from review.core import jsondata
from review.core.attribution import content_hash, segments
from review.core.attribution.records import LineRecord, Notice, Runs
from review.core.attribution.tools import canonical_tool, tool_in_text

TRACE_PATH = ".agent-trace/traces.jsonl"
FAMILY = "Agent Trace"
# Ranges read from one file: past this the rest are not read, and the notices say so.
MAX_RANGES = 200_000
# Listed one by one (unknown ranges, unplaced records); past this, counted.
MAX_LISTED = 20
KINDS = ("ai", "mixed", "human", "unknown")
# Paths the reference implementation writes for events that are no file's lines (shell commands, sessions).
EVENT_PATHS = (".shell-history", ".sessions", ".unknown")
MIXED = "mixed: AI output a person edited, or the reverse; counted as AI"


@dataclass
class TraceRange:
    line_no: int  # the record's line in the file
    path: str
    start: int
    end: int
    kind: str  # one of KINDS
    tool: str | None  # the assistant, for `ai` and `mixed`
    revision: str | None  # vcs.revision as written (None: the record names none)
    content_hash: str
    own: bool  # the range names its own contributor (an override of its conversation's)

    @property
    def order(self) -> int:
        return 2 * self.line_no + self.own

    def where(self) -> str:
        return f"{self.path}:{self.start}–{self.end}" if self.end != self.start else f"{self.path}:{self.start}"


@dataclass
class Trace:
    ranges: list[TraceRange] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    def say(self, message: str, unplaced: bool = False) -> None:
        self.notices.append(Notice(FAMILY, message, unplaced))


def _tool(name: str, model: str) -> str | None:
    """The assistant a record names: its tool (one name per tool), else its model's maker; None for
    a test agent. `unknown` is what the reference implementation writes when it cannot tell."""
    if name and name.strip().lower() != "unknown":
        canonical = canonical_tool(name)
        if canonical is None:
            return None
        return tool_in_text(name) if canonical == name.strip() and tool_in_text(name) else canonical
    return tool_in_text(model) or model or "an agent (Agent Trace)"


def read_trace(text: str, name: str = TRACE_PATH) -> Trace:
    """Every range of every record, with what could not be read said as notices. Linear in the text."""
    trace = Trace()
    unreadable = cut = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = jsondata.obj(jsondata.loads(line))
        if not record:
            unreadable += 1
            continue
        if len(trace.ranges) >= MAX_RANGES:
            cut += 1
            continue
        revision = jsondata.text(jsondata.obj(record.get("vcs")).get("revision")).strip() or None
        tool_name = jsondata.text(jsondata.obj(record.get("tool")).get("name"))
        for file in map(jsondata.obj, jsondata.arr(record.get("files"))):
            path = jsondata.text(file.get("path"))
            if not path or path in EVENT_PATHS:
                continue
            for conversation in map(jsondata.obj, jsondata.arr(file.get("conversations"))):
                contributor = jsondata.obj(conversation.get("contributor"))
                for span in map(jsondata.obj, jsondata.arr(conversation.get("ranges"))):
                    own = jsondata.obj(span.get("contributor"))
                    named = bool(jsondata.text(own.get("type")))  # the range's own contributor overrides
                    who = own if named else contributor
                    kind = jsondata.text(who.get("type")).strip().lower()
                    try:
                        start, end = int(span["start_line"]), int(span["end_line"])
                    except (KeyError, TypeError, ValueError, OverflowError):
                        unreadable += 1
                        continue
                    if kind not in KINDS:
                        trace.say(
                            f"{name} line {line_no}: {path}:{start}–{end} names contributor type "
                            f"{kind[:40] or '(none)'!r}, not one the spec defines: read as unknown"
                        )
                        kind = "unknown"
                    tool = _tool(tool_name, jsondata.text(who.get("model_id"))) if kind in ("ai", "mixed") else None
                    if kind in ("ai", "mixed") and tool is None:
                        kind = "unknown"  # a test agent: not an assistant
                    first, last = max(1, min(start, end)), max(1, start, end)
                    digest = jsondata.text(span.get("content_hash"))
                    trace.ranges.append(TraceRange(line_no, path, first, last, kind, tool, revision, digest, named))
                    if len(trace.ranges) >= MAX_RANGES:
                        break
    if unreadable:
        trace.say(f"{name}: {unreadable} line(s) or range(s) are not records or ranges the spec describes: not read")
    if cut:
        trace.say(f"{name}: past {MAX_RANGES} ranges, {cut} more record(s) were not read")
    return trace


def parse_agent_trace(text: str) -> list[LineRecord]:
    """Each range as a record of the lines at its revision as written (None: at HEAD)."""
    return [_record(r, r.revision) for r in read_trace(text).ranges]


def _record(span: TraceRange, commit: str | None, how: str = "", at: tuple[str, int, int] | None = None) -> LineRecord:
    """The range as a record of lines of `commit` (None: HEAD): its own, or `at` (path, start, end)."""
    path, start, end = at or (span.path, span.start, span.end)
    source = f"Agent Trace (traces.jsonl line {span.line_no}{how})"
    if span.kind == "mixed":
        source += f": {MIXED}"
    return LineRecord(path, commit, [(start, end)], span.tool, source, FAMILY, span.order, span.kind != "unknown")


# --------------------------------------------------------------------------- placing the ranges


def find_by_hash(trace: Trace, runs: Runs) -> dict[int, tuple[str, int, int]]:
    """Range index -> (path, start, end) at HEAD of each range found by its content hash among the
    added lines (its own path first, then every other). Ranges whose hash matched nothing, or whose
    algorithm is not one writers use, are said as notices (they are placed by line number instead)."""
    found: dict[int, tuple[str, int, int]] = {}
    search = content_hash.Search()
    paths = sorted(runs)
    unknown: set[str] = set()
    missed = skipped = 0
    for index, span in enumerate(trace.ranges):
        parsed = content_hash.parse(span.content_hash) if span.content_hash else None
        if parsed is None or not content_hash.known(parsed[0]):
            if span.content_hash:  # a hash in another shape, or of an algorithm writers do not use
                unknown.add(span.content_hash[:40] if parsed is None else parsed[0])
            continue
        algorithm, wanted = parsed
        if search.exhausted:
            skipped += 1
            continue
        # Its own path first, then every other: looked at lazily, each run charged to the search's budget.
        ordered = itertools.chain(
            ((span.path, first, texts) for first, texts in runs.get(span.path, [])),
            ((path, first, texts) for path in paths if path != span.path for first, texts in runs[path]),
        )
        hit = search.find(algorithm, wanted, span.end - span.start + 1, ordered)
        if hit is not None:
            found[index] = hit
        elif search.exhausted:
            skipped += 1
        else:
            missed += 1
    if missed:
        trace.say(
            f"{missed} range(s)' content hash matched none of the lines added at HEAD (the lines changed since, "
            "or the writer hashed other text): placed by their line numbers"
        )
    if unknown:
        trace.say(
            f"content hashes in a form not recognised ({', '.join(sorted(unknown)[:5])}): "
            "those ranges are placed by their line numbers"
        )
    if skipped:
        trace.say(
            f"{skipped} range(s)' content hash not looked for (the search's time budget was spent): "
            "placed by their line numbers"
        )
    return found


def place(
    trace: Trace,
    parents: dict[str, tuple[str, ...]],
    blame: segments.Blame,
    found: dict[int, tuple[str, int, int]] | None = None,
) -> list[LineRecord]:
    """Line records from the trace's ranges: those `found` by their hash at HEAD where they are; the
    rest at their record's revision or its child (`parents`: commit -> its parents, the history read),
    whichever introduced more of the record's surviving lines. A revision not in the history places
    nothing and is said as a notice."""
    found = found or {}
    children: dict[str, list[str]] = {}
    for sha, its_parents in parents.items():
        for parent in its_parents:
            children.setdefault(parent, []).append(sha)
    introduced = segments.Introduced({path: segments.blocks(origins) for path, origins in blame.items()})

    def surviving(commit: str, path: str, start: int, end: int) -> int:
        """How many of the lines start..end of `path` at `commit` survive at HEAD."""
        blocks = (block for _, block in introduced.by(commit, path))
        return sum(max(0, min(end, b.orig_start + b.end - b.start) - max(start, b.orig_start) + 1) for b in blocks)

    by_record: dict[int, list[TraceRange]] = {}
    for index, span in enumerate(trace.ranges):
        if index not in found:
            by_record.setdefault(span.line_no, []).append(span)
    records = [
        _record(trace.ranges[index], None, f", found by its content hash at {path}:{start}", (path, start, end))
        for index, (path, start, end) in found.items()
    ]
    unplaced: list[TraceRange] = []
    for spans in by_record.values():
        revision = spans[0].revision
        if revision is None:  # no revision (the spec's minimal record): the lines at HEAD
            records += [_record(span, None) for span in spans]
            continue
        commit = _resolve(revision, parents)
        if commit is None:
            unplaced += spans
            # No line placed, but the tool is named: a record that claims nothing names it.
            source = "Agent Trace (traces.jsonl line {})"
            records += [
                LineRecord(s.path, None, [], s.tool, source.format(s.line_no), FAMILY, s.order, False) for s in spans
            ]
            continue
        # Its own lines, or its child's (the tree the agent edited was the revision's): the one that
        # introduced more of the record's lines that survive at HEAD; the child when they tie.
        candidates = [*children.get(commit, []), commit]
        best = max(candidates, key=lambda c: sum(surviving(c, s.path, s.start, s.end) for s in spans))
        how = f", at {commit[:7]}" if best == commit else f", at {best[:7]}, the commit after revision {commit[:7]}"
        records += [_record(span, best, how) for span in spans]
    _say_unplaced(trace, unplaced)
    _say_unknown(trace)
    return records


def _resolve(revision: str, parents: dict[str, tuple[str, ...]]) -> str | None:
    """The history's commit a revision names: its full id, or a prefix of at least 7 digits that
    names exactly one."""
    revision = revision.lower()
    if revision in parents:
        return revision
    if len(revision) < 7 or len(revision) >= 40 or any(c not in "0123456789abcdef" for c in revision):
        return None
    matches = [sha for sha in parents if sha.startswith(revision)]
    return matches[0] if len(matches) == 1 else None


def _say_unplaced(trace: Trace, unplaced: list[TraceRange]) -> None:
    by_revision: dict[str, list[TraceRange]] = {}
    for span in unplaced:
        by_revision.setdefault(span.revision or "", []).append(span)
    revisions = sorted(by_revision.items())
    for number, (revision, spans) in enumerate(revisions):
        if number == MAX_LISTED:
            rest = sum(len(s) for _, s in revisions[MAX_LISTED:])
            trace.say(f"{rest} more range(s) name revisions not in this history", True)
            break
        tools = sorted({s.tool for s in spans if s.tool}) or ["no assistant"]
        where = ", ".join(s.where() for s in spans[:5]) + (f" and {len(spans) - 5} more" if len(spans) > 5 else "")
        trace.say(
            f"revision {revision[:12]} is not in this history (rewritten, or never committed): "
            f"{', '.join(tools)} on {where} not placed",
            True,
        )


def _say_unknown(trace: Trace) -> None:
    mixed = sum(s.kind == "mixed" for s in trace.ranges)
    if mixed:
        trace.say(f"{mixed} range(s) marked mixed ({MIXED})")
    unknown = [s for s in trace.ranges if s.kind == "unknown"]
    for span in unknown[:MAX_LISTED]:
        trace.say(f"traces.jsonl line {span.line_no}: {span.where()} is of unknown origin: not counted as AI")
    if len(unknown) > MAX_LISTED:
        trace.say(f"{len(unknown) - MAX_LISTED} more range(s) of unknown origin: not counted as AI")
