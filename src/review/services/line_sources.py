"""The line-level sources of a submission, read through its sanitised clone: git-ai's notes (on the
history's commits, and on commits a squash, rebase or amend left behind), whogitit's notes and the
Agent Trace file at HEAD. Read in three steps, as the analysis learns what they need: the sources themselves (before the
diff), what their text finds among the lines the diff added, and their records once blame says where
each HEAD line came from."""

from __future__ import annotations

from dataclasses import dataclass, field

from review import gitsafe
from review.core import attribution, diff
from review.core.attribution import agent_trace, rewritten, whogitit
from review.core.attribution.records import LineRecord, Notice, Runs, added_runs

NOTE_LIMIT = 4 << 20  # one note, or one file of a rewritten commit: past this it is not read, and said
TRACE_LIMIT = 4 << 20
# Notes on commits not in the history read at once (git-ai's own repository holds thousands, from
# squash-merged branches): past this the rest are counted, not read.
MAX_REWRITTEN = 1000
OLD_TEXT_BUDGET = 64 << 20  # the rewritten commits' files read, in all
WHOGITIT = "whogitit note"


@dataclass
class LineSources:
    records: list[LineRecord] = field(default_factory=list)  # notes on commits in the history
    rewritten: list[rewritten.RewrittenNote] = field(default_factory=list)
    old_texts: dict[tuple[str, str], list[bytes]] = field(default_factory=dict)  # (commit, path) -> its lines
    # Every commit the rewritten notes' commits reach that HEAD does not, with its parents.
    outside: dict[str, tuple[str, ...]] = field(default_factory=dict)
    trace: agent_trace.Trace | None = None
    cut: list[str] = field(default_factory=list)
    # Found among the lines the diff added (`match`): carried notes' lines, trace ranges by their hash.
    carried: list[tuple[int, LineRecord]] = field(default_factory=list)
    hashed: dict[int, tuple[str, int, int]] = field(default_factory=dict)

    @property
    def any(self) -> bool:
        return bool(self.records or self.rewritten or (self.trace and self.trace.ranges))

    def paths(self) -> set[str]:
        """Every path they could give lines in (blame is run on these)."""
        paths = {r.path for r in self.records} | {r.path for _, r in self.carried}
        paths |= {path for path, _, _ in self.hashed.values()}
        if self.trace:
            paths |= {r.path for r in self.trace.ranges}
        return paths

    def commits(self, parents: dict[str, tuple[str, ...]]) -> set[str]:
        """The history's commits whose lines they describe (a trace's revision names its own or its child's)."""
        found = {r.commit for r in self.records if r.commit}
        revisions = {r.revision for r in self.trace.ranges if r.revision} if self.trace else set()
        for sha, its_parents in parents.items():
            if sha in revisions or revisions.intersection(its_parents):
                found.add(sha)
        return found

    @property
    def notices(self) -> list[Notice]:
        return list(self.trace.notices) if self.trace else []


WHOGITIT_REF = "refs/notes/whogitit"


def _noted_commits(repo: gitsafe.SafeRepo) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """Commit -> (its note's blob, what kind of note), from refs/notes/ai, each refs/notes/ai-remote/*
    (the first note found for a commit wins) and git-ai's legacy refs/ai/authorship/<commit>; and
    commit -> its whogitit note's blob (refs/notes/whogitit)."""
    annotated: dict[str, tuple[str, str]] = {}
    # One git call; most submissions have none.
    refs = repo.refs_under("refs/notes/", "refs/ai/")
    whogitit_notes = repo.notes_list(WHOGITIT_REF) if WHOGITIT_REF in refs else {}
    for ref in ["refs/notes/ai", *sorted(name for name in refs if name.startswith("refs/notes/ai-remote/"))]:
        if ref in refs:
            for noted, note_blob in repo.notes_list(ref).items():
                annotated.setdefault(noted, (note_blob, "git-ai note"))
    for name, oid in refs.items():
        commit = name.rsplit("/", 1)[-1]
        # A legacy ref whose last part is no commit id names no commit.
        if name.startswith("refs/ai/authorship/") and gitsafe.SHA_RE.match(commit):
            annotated.setdefault(commit, (oid, "git-ai legacy authorship"))
    return annotated, whogitit_notes


def read(repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit], truncated: bool) -> LineSources:
    """git-ai's notes (refs/notes/ai, then each refs/notes/ai-remote/*; one note per commit, the first
    found), its legacy refs/ai/authorship/<commit> for commits with no note, whogitit's notes on the
    history's commits, and the Agent Trace file; every object read through the one batch reader."""
    sources = LineSources()
    annotated, whogitit_notes = _noted_commits(repo)
    history = {c.sha for c in commits}
    outside = sum(sha not in history for sha in whogitit_notes)
    if outside:
        sources.cut.append(
            f"{outside} whogitit note(s) on commits not among those read were not read (only "
            "git-ai's are carried to HEAD by their text)"
        )
    in_history = [(c.sha, *annotated[c.sha]) for c in commits if c.sha in annotated]  # history order
    elsewhere = sorted((sha, *found) for sha, found in annotated.items() if sha not in history)
    if truncated and elsewhere:
        sources.cut.append(
            f"{len(elsewhere)} git-ai note(s) on commits outside the commits read were not "
            "looked at (the history was cut)"
        )
        elsewhere = []
    if len(elsewhere) > MAX_REWRITTEN:
        sources.cut.append(
            f"{len(elsewhere)} git-ai notes describe commits not in this history; the first {MAX_REWRITTEN} were read"
        )
        elsewhere = elsewhere[:MAX_REWRITTEN]
    wanted = (
        in_history + elsewhere + [(c.sha, whogitit_notes[c.sha], WHOGITIT) for c in commits if c.sha in whogitit_notes]
    )
    found = repo.objects.read_many([blob for _, blob, _ in wanted], NOTE_LIMIT)  # one batch, not one trip each
    too_big = 0
    for (sha, _, what), answer in zip(wanted, found):
        if not answer:
            continue
        too_big += answer[2] > NOTE_LIMIT
        parsed = _parse(what, sha, answer[1].decode("utf-8", "replace"))
        if what == WHOGITIT:
            # Its own account, beside git-ai's: a disagreement between them is a conflict to show.
            sources.records += parsed
        elif sha in history:
            for record in parsed:
                record.family = rewritten.FAMILY  # a note here wins over one carried from a rewritten commit
            sources.records += parsed
        else:
            sources.rewritten.append(rewritten.RewrittenNote(sha, what, parsed))
    if too_big:
        sources.cut.append(f"{too_big} git-ai note(s) larger than {NOTE_LIMIT >> 20} MB: read up to that size")
    if sources.rewritten:
        _read_rewritten(repo, sources)
    trace = repo.show("HEAD", agent_trace.TRACE_PATH, limit=TRACE_LIMIT + 1)
    if trace:
        if len(trace) > TRACE_LIMIT:
            sources.cut.append(f"{agent_trace.TRACE_PATH} is larger than {TRACE_LIMIT >> 20} MB: read up to that size")
        sources.trace = agent_trace.read_trace(trace[:TRACE_LIMIT].decode("utf-8", "replace"))
    return sources


def _parse(what: str, sha: str, text: str) -> list[LineRecord]:
    if what == WHOGITIT:
        return whogitit.parse_whogitit_note(sha, text)
    if what == "git-ai legacy authorship":
        return attribution.parse_legacy_authorship(sha, text)
    return attribution.parse_git_ai_note(sha, text)


def _read_rewritten(repo: gitsafe.SafeRepo, sources: LineSources) -> None:
    """The old commits' files the notes name, copied from the submission when the clone lacks them
    (a commit no ref reaches is not cloned), and where their ancestry joins HEAD's."""
    notes = sources.rewritten
    shas = [note.commit for note in notes]
    kinds = {sha: answer[0] for sha, answer in zip(shas, repo.objects.read_many(shas, 0)) if answer}
    present = {sha for sha, kind in kinds.items() if kind == "commit"}
    missing = [sha for sha in shas if sha not in kinds]
    held: set[str] = set()
    problem = None
    if missing:
        held, problem = repo.fetch_commits(missing)
        copied = {
            sha for sha, answer in zip(missing, repo.objects.read_many(missing, 0)) if answer and answer[0] == "commit"
        }
        present |= copied
    for note in notes:
        if note.commit in present:
            continue
        if note.commit in kinds:
            note.problem = f"it annotates a {kinds[note.commit]}, not a commit: no lines to match"
        elif note.commit in held:
            note.problem = f"its commit could not be copied from the submission ({problem or 'not a commit'})"
        else:
            note.problem = (
                "its commit is not in the repository (not kept after it was rewritten): its lines "
                "cannot be matched by content"
            )
    wanted = sorted({(note.commit, record.path) for note in notes if note.commit in present for record in note.records})
    spent = 0
    for at in range(0, len(wanted), 64):  # in batches, so the budget stops the reading itself
        if spent > OLD_TEXT_BUDGET:
            sources.cut.append(
                f"{len(wanted) - at} file(s) of rewritten commits not read (past "
                f"{OLD_TEXT_BUDGET >> 20} MB of them): their notes' lines are not matched"
            )
            break
        batch = wanted[at : at + 64]
        for (sha, path), answer in zip(
            batch, repo.objects.read_many([f"{sha}:{path}" for sha, path in batch], NOTE_LIMIT)
        ):
            if answer and answer[0] == "blob" and answer[2] <= NOTE_LIMIT and b"\0" not in answer[1]:
                spent += answer[2]
                sources.old_texts[(sha, path)] = rewritten.split_lines(answer[1])
    for note in notes:
        if (
            note.problem is None
            and note.records
            and not any((note.commit, r.path) in sources.old_texts for r in note.records)
        ):
            note.problem = (
                f"the files it names cannot be read at its commit (missing, binary, or over {NOTE_LIMIT >> 20} MB)"
            )
    if present:
        try:
            outside, complete = repo.outside_history(sorted(present))
        except gitsafe.GitSafeError as error:
            outside, complete = {}, False
            sources.cut.append(f"where rewritten commits left the history could not be read ({error})")
        if not complete:
            sources.cut.append(
                "the history of the rewritten commits is too long to read whole: lines older "
                "than them may be carried too"
            )
        sources.outside = outside


def added_lines(diff: diff.Diff) -> Runs:
    """The lines base..HEAD added, in runs of consecutive HEAD lines per path."""
    return added_runs(
        {
            f.path: [
                (line.new_no, line.text)
                for hunk in f.hunks
                for line in hunk.lines
                if line.kind == "+" and line.new_no is not None
            ]
            for f in diff.files
            if not f.binary and f.status != "deleted"
        }
    )


def needs_text(sources: LineSources) -> bool:
    """Whether any source is matched by the text of the lines the diff added (a rewritten commit's
    noted lines, a trace range by its content hash): the diff's lines are then needed."""
    return bool(sources.rewritten) or bool(sources.trace and any(r.content_hash for r in sources.trace.ranges))


def match(sources: LineSources, diff: diff.Diff) -> None:
    """What the sources' text finds among the lines the diff added: blocks of rewritten commits' noted
    lines, and trace ranges by their content hash."""
    if not needs_text(sources):
        return
    runs = added_lines(diff)
    if sources.rewritten:
        sources.carried = rewritten.carry(sources.rewritten, sources.old_texts, runs)
    if sources.trace:
        sources.hashed = agent_trace.find_by_hash(sources.trace, runs)


def records(sources: LineSources, commits: list[gitsafe.Commit], blame: attribution.Blame) -> list[LineRecord]:
    """Every record, placed now that blame says where each HEAD line came from."""
    parents = {c.sha: c.parents for c in commits}
    found = list(sources.records)
    if sources.trace:
        found += agent_trace.place(sources.trace, parents, blame, sources.hashed)
    if sources.carried:
        older = rewritten.older_than(sorted({n.commit for n in sources.rewritten}), sources.outside, parents)
        found += rewritten.settle(sources.rewritten, sources.carried, blame, older)
    return found
