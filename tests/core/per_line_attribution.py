"""The attribution merge as it was written first, one claim list per HEAD line: the reference the
merge by segments (core.attribution.merge) is checked against, on random inputs (test_merge_segments).
Kept as it was, slow and plain; not used by the product."""

from __future__ import annotations

from review.core.attribution.merge import (
    TEST_FILE,
    Attribution,
    Blame,
    Claim,
    Conflict,
    Span,
    Unmapped,
    _as_person_when_named,
    _label,
    _unmapped,
)
from review.core.attribution.note import NoteDisclosure
from review.core.attribution.records import LineRecord, Notice, Ranges, line_runs
from review.core.attribution.rewritten import RewrittenNote
from review.core.attribution.tools import UNNAMED, is_known_tool, is_model_name
from review.core.attribution.trailers import CommitAttribution


def attribute_per_line(
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
) -> Attribution:
    """Merge every source into one claim per HEAD line.

    `authors`: commit id -> its author (for "a person" claims); `head_lines`: path -> line count at
    HEAD; `blame`: for each path, which commit (and which of its lines) each HEAD line comes from;
    `subjects`: commit id -> subject, for a note that names a commit by its subject; `notices`: what
    line-level sources said that claims no line; `rewritten`: git-ai notes on commits not in the
    history (their carried lines are among `records`; their tools are named).

    A commit without an assistant in its metadata claims nothing: its lines default to a person
    (layer 0), which no other source conflicts with.
    """
    by_commit = {c.commit: c for c in commits}
    records = [_as_person_when_named(record, by_commit.get(record.commit or "")) for record in records]
    claims: dict[str, dict[int, list[Claim]]] = {}

    def add(path: str, line: int, claim: Claim) -> None:
        claims.setdefault(path, {}).setdefault(line, []).append(claim)

    # Layer 1: commit metadata, through blame: the lines a commit introduced that survive in HEAD.
    per_commit: dict[str, Claim | None] = {}  # one claim per commit, shared by all of its lines

    def commit_claim(sha: str) -> Claim | None:
        if sha not in per_commit:
            attribution = by_commit.get(sha)
            if attribution and attribution.signals:
                signal = attribution.claim_signal
                per_commit[sha] = Claim(signal.tool, f"commit {sha[:7]}: {attribution.claim_source}", 1)
            else:
                per_commit[sha] = Claim(None, f"commit {sha[:7]} by {authors[sha]}", 0) if sha in authors else None
        return per_commit[sha]

    def moved_claim(sha: str, from_path: str, line_no: int) -> Claim | None:
        """A moved or copied block is still its writer's: the origin commit's claim, saying so."""
        claim = commit_claim(sha)
        if claim is None:
            return None
        where = f"moved from {from_path}:{line_no} ({sha[:7]}, {authors.get(sha, 'unknown author')})"
        signals = by_commit[sha].signals if sha in by_commit else []
        return Claim(
            claim.tool,
            f"{where}: {by_commit[sha].claim_source}" if claim.tool and signals else where,
            claim.layer,
            moved=True,
        )

    for path, origins in blame.items():
        path_claims = claims.setdefault(path, {})
        last_sha, claim = None, None
        previous = None
        for index, origin in enumerate(origins, start=1):
            sha = origin[0]
            if origin[3]:
                # One claim per moved block (the same commit, path and mover, the next line there).
                if (
                    previous is None
                    or previous[3] != origin[3]
                    or previous[0] != sha
                    or previous[2] != origin[2]
                    or previous[1] + 1 != origin[1]
                ):
                    claim = moved_claim(sha, origin[2], origin[1])
                last_sha = None
            elif sha != last_sha:  # runs of lines from one commit: one lookup per run
                last_sha, claim = sha, commit_claim(sha)
            previous = origin
            if claim is not None:
                path_claims[index] = [claim]  # the first claim on any line: layer 1 comes first

    # Layer 3: line-level records, mapped from the commit they describe to HEAD through blame. A
    # record about commit C's file P looks only at the HEAD lines that came from C's P, in whatever
    # file they are now (5,000 noted commits on a file of 400 lines: 5,000 short lists, not 2 million
    # comparisons).
    # Records of one family settle the lines they share among themselves (the highest order wins, with
    # no conflict); only a family with more than one order, or an "unknown" record, is settled per line.
    orders: dict[str, set[tuple[int, bool]]] = {}
    for record in records:
        if record.family:
            orders.setdefault(record.family, set()).add((record.order, record.claims))
    settled = {family for family, seen in orders.items() if len(seen) > 1 or not all(c for _, c in seen)}
    kept: dict[tuple[str, str, int], tuple[int, list[Claim | None]]] = {}  # (family, path, line) -> order, claims

    def keep_best(family: str, order: int, path: str, index: int, claim: Claim | None) -> None:
        held = kept.get((family, path, index))
        if held is None or order > held[0]:
            kept[(family, path, index)] = (order, [claim])
        elif order == held[0]:
            held[1].append(claim)

    from_commit: dict[str, dict[str, list[tuple[str, int, int]]]] | None = None  # path there -> commit -> lines
    for record in records:
        wanted = Ranges(record.ranges)  # intervals, not a set of lines: "1-20000000" costs nothing
        claim = Claim(record.tool, record.source, 3) if record.claims else None  # one object for all its lines
        family = record.family if record.family in settled else ""
        hits: list[tuple[str, int]] = []
        if record.commit in (None, head):
            origins = blame.get(record.path, [])
            for start, end in zip(wanted.starts, wanted.ends):
                hits += ((record.path, index) for index in range(max(1, start), min(end, len(origins)) + 1))
        else:
            if from_commit is None:
                from_commit = {}
                for path, origins in blame.items():
                    for index, (sha, orig, there, _moved) in enumerate(origins, start=1):
                        from_commit.setdefault(there, {}).setdefault(sha, []).append((path, index, orig))
            for sha, introduced in from_commit.get(record.path, {}).items():
                if sha.startswith(record.commit or "-"):  # a legacy note may name its commit by a short id
                    hits += ((path, index) for path, index, orig in introduced if orig in wanted)
        if family:
            for path, index in hits:
                keep_best(family, record.order, path, index, claim)
        elif claim is not None:
            for path, index in hits:
                claims.setdefault(path, {}).setdefault(index, []).append(claim)
    for (_family, path, index), (_order, found) in kept.items():
        for won in found:
            if won is not None:
                claims.setdefault(path, {}).setdefault(index, []).append(won)

    # Layer 2: the note, in order, so a later, more specific line overrides an earlier one.
    unmapped: list[Unmapped] = []
    # Per file of the disclosure (AI-DECLARATION.md, the note): its last entry on a line, with its place.
    by_file: dict[str, dict[str, dict[int, tuple[int, Claim]]]] = {}
    for seq, entry in enumerate(note.entries):
        source = f"{entry.file or 'note'} line {entry.line_no}"
        note_claims = _Placed(by_file.setdefault(entry.file or "note", {}), seq)
        if entry.kind in ("prose", "unread"):
            reason = entry.reason or "names no file, lines or commit: shown as written, not mapped to code"
            unmapped.append(_unmapped(entry, reason))
            continue
        if entry.kind == "none":
            continue
        if entry.kind == "function":
            unmapped.append(_unmapped(entry, f"names {entry.symbol}, which no code file in the diff defines"))
            continue
        if entry.kind == "tests":
            tests = [path for path in head_lines if TEST_FILE.search(path)]
            if not tests:
                unmapped.append(_unmapped(entry, "names the tests, but HEAD has no test file"))
            for path in tests:
                for line in range(1, head_lines[path] + 1):
                    note_claims.setdefault(path, {})[line] = Claim(entry.tool, source, 2)
            continue
        if entry.kind == "commit":
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
                why = f"no commit of this submission has that {what}" if not matches else f"that {what} is ambiguous"
                unmapped.append(_unmapped(entry, why))
                continue
            hit = False
            for path, origins in blame.items():
                for index, origin in enumerate(origins, start=1):
                    if origin[0] == matches[0]:
                        note_claims.setdefault(path, {})[index] = Claim(entry.tool, source, 2)
                        hit = True
            if not hit:
                unmapped.append(_unmapped(entry, f"no line of commit {matches[0][:7]} survives at HEAD"))
            continue
        path = entry.path or ""
        count = head_lines.get(path)
        if count is None:
            unmapped.append(_unmapped(entry, f"{path} is not in the submission at HEAD"))
            continue
        start, end = (1, count) if entry.kind == "file" else (entry.start or 1, entry.end or entry.start or 1)
        if start > count:
            unmapped.append(_unmapped(entry, f"names lines {start}–{end} but {path} has {count} lines"))
            continue
        if end > count:
            unmapped.append(_unmapped(entry, f"lines {count + 1}–{end} do not exist ({path} has {count} lines)"))
            end = count
        if not entry.who:
            unmapped.append(_unmapped(entry, "names lines but not who wrote them"))
            continue
        for line in range(start, end + 1):
            note_claims.setdefault(path, {})[line] = Claim(entry.tool, source, 2)
    placed: dict[tuple[str, int], list[tuple[int, Claim]]] = {}
    for file_claims in by_file.values():
        for path, noted in file_claims.items():
            for line, said in noted.items():
                placed.setdefault((path, line), []).append(said)
    for (path, line), said in placed.items():
        for _seq, claim in sorted(said, key=lambda s: s[0]):  # the files in the order they last spoke
            add(path, line, claim)

    # Winners and conflicts.
    winners: dict[str, dict[int, Claim]] = {}
    disagreements: dict[tuple[str, str], list[int]] = {}
    sides: dict[str, list[tuple[str, str | None]]] = {}  # message -> the sources and what each says
    for path, by_line in claims.items():
        if not by_line:
            continue  # a record about a path with no lines at HEAD: nothing to win
        path_winners = winners.setdefault(path, {})
        for line, line_claims in by_line.items():
            claiming = [c for c in line_claims if c.layer > 0]  # a plain commit by a person claims nothing
            if len(claiming) <= 1:  # most lines: one source, nothing to agree or disagree with
                path_winners[line] = claiming[0] if claiming else line_claims[0]
                continue
            best = max(line_claims, key=lambda c: c.layer)
            if best.layer == 2:  # the note's own line says after the declaration's
                best = [c for c in line_claims if c.layer == 2][-1]

            def same(one: str | None, other: str | None) -> bool:
                # an unnamed assistant beside a named one is the named one
                return one == other or (one is not None and other is not None and (one in UNNAMED or other in UNNAMED))

            tool = best.tool
            named = [c for c in claiming if c.tool is not None and c.tool not in UNNAMED]
            if tool in UNNAMED and named:
                tool = max(named, key=lambda c: c.layer).tool
            agreeing = [c.source for c in line_claims if c is not best and c.layer > 0 and same(c.tool, best.tool)]
            if agreeing:  # two sources saying the same: both shown
                best = Claim(tool, f"{best.source}, and {agreeing[0]}", best.layer)
            path_winners[line] = best
            said = next((c for c in reversed(claiming) if c.layer == 2), None)
            other = next(
                (c for c in claiming if c is not said and said is not None and not same(c.tool, said.tool)), None
            )
            tools_named = {c.tool for c in named}
            mixed = any(c.tool is None for c in claiming) and any(c.tool is not None for c in claiming)
            if said and other:
                message = f"the note ({said.source}) says {_label(said.tool)}; {other.source} says {_label(other.tool)}"
                disagreements.setdefault((path, message), []).append(line)
                sides[message] = [(said.source, said.tool), (other.source, other.tool)]
            elif said is None and (len(tools_named) > 1 or mixed):
                ordered = sorted(claiming, key=lambda c: -c.layer)
                message = "; ".join(f"{c.source} says {_label(c.tool)}" for c in ordered)
                disagreements.setdefault((path, message), []).append(line)
                sides[message] = [(c.source, c.tool) for c in ordered]
    conflicts = [
        Conflict(path, start, end, message, sides.get(message, []))
        for (path, message), lines in sorted(disagreements.items())
        for start, end in line_runs(sorted(lines))
    ]
    commit_tools = sorted({s.tool for c in commits for s in c.signals})
    if note.declares_none and commit_tools:
        conflicts.insert(
            0,
            Conflict(
                None,
                None,
                None,
                f"the note declares no assistant, but commit metadata names {', '.join(commit_tools)}",
                [("note", None), *(("commit metadata", tool) for tool in commit_tools)],
            ),
        )
    notices = list(notices or [])
    if not note.discloses and not note.declares_none and commit_tools:
        # Silence is no disagreement: the commits disclose the tool and which lines, and the note says
        # nothing against them. Shown beside the disclosure, never counted as a conflict.
        notices.insert(
            0, Notice("note", f"the note names no assistant; commit metadata names {', '.join(commit_tools)}")
        )

    spans = []
    for path in sorted(winners):
        lines = winners[path]
        for start, end in line_runs(sorted(lines)):
            # Split each run where the winning claim changes.
            run_start = start
            for line in range(start, end + 1):
                if line == end or (lines[line].tool, lines[line].source) != (
                    lines[line + 1].tool,
                    lines[line + 1].source,
                ):
                    spans.append(Span(path, run_start, line, lines[line].tool, lines[line].source))
                    run_start = line + 1
    tools = sorted(
        {
            *commit_tools,
            *note.tools,
            *(r.tool for r in records if r.tool),
            *(tool for found in rewritten or [] for tool in found.tools),
        }
    )
    if any(tool not in UNNAMED for tool in tools):
        won = {claim.tool for by_line in winners.values() for claim in by_line.values()}
        tools = [tool for tool in tools if tool not in UNNAMED or tool in won]
    unknown = [tool for tool in tools if not is_known_tool(tool) and not is_model_name(tool)]
    # Each line a run of its own: the product keeps runs of lines one claim wins.
    runs = {path: [(line, line, won[line]) for line in sorted(won)] for path, won in winners.items()}
    return Attribution(tools, runs, spans, conflicts, unmapped, commits, note, notices, list(rewritten or []), unknown)


class _Placed:
    """One disclosure file's claims per path and line, each kept with the entry's place in the note."""

    def __init__(self, claims: dict[str, dict[int, tuple[int, Claim]]], seq: int) -> None:
        self.claims, self.seq = claims, seq

    def setdefault(self, path: str, default: dict) -> _Lines:
        return _Lines(self.claims.setdefault(path, {}), self.seq)


class _Lines:
    def __init__(self, lines: dict[int, tuple[int, Claim]], seq: int) -> None:
        self.lines, self.seq = lines, seq

    def __setitem__(self, line: int, claim: Claim) -> None:
        self.lines[line] = (self.seq, claim)
