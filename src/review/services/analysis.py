"""One submission, read and understood: commits, note, diff base..HEAD, and who wrote which line.

This is the service layer between gitsafe (the only module that runs git) and the pure core
(diff, attribution); the TUI and the JSON output both use it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import Future
from dataclasses import dataclass, field

from review import gitsafe
from review.core import attribution, code_reading, diff, diff_moves, evidence, line_origins, share
from review.core.attribution import Blame
from review.core.diff import MAX_PATCH_BYTES, PERSON, head_of
from review.core.diff import parse as parse_diff
from review.services import line_sources
from review.services.note_files import Note, declaration_entries, read_note, readme_disclosure
from review.services.origins import LONG_HISTORY, Origins, blame_files, in_thread

# Files an assistant could have written; past this, the cut says so.
MAX_BLAMED_FILES = 1000
# blame's output is ~50 bytes per line of the file: bounded memory.
BLAME_MAX_BYTES = 4 << 20


@dataclass
class Analysis:
    repo: gitsafe.SafeRepo
    base: str
    base_problem: str | None
    commits: list[gitsafe.Commit]
    # What each commit's own metadata (trailers, author) says about assistants, in history order.
    commit_attributions: list[attribution.CommitAttribution]
    note: Note
    diff: diff.Diff
    attribution: attribution.Attribution
    # The first commit whose metadata names an assistant.
    draft: str | None = None
    draft_added: int = 0
    draft_surviving: int = 0
    blame: Blame = field(default_factory=dict, repr=False)
    # .gitattributes' linguist patterns at HEAD: which files any diff of this submission leaves out of
    # the share.
    share_patterns: list[tuple[str, str]] = field(default_factory=list, repr=False)
    # Commit -> paths it changed.
    changed: dict[str, list[str]] = field(default_factory=dict, repr=False)
    # What was not read or counted, and why: never a silent cap.
    cut: list[str] = field(default_factory=list)
    # Path -> its blob id at HEAD: what a "viewed" mark is kept against (a new blob: read it again).
    head_blobs: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def head(self) -> str:
        return self.repo.head

    @functools.cached_property
    def code(self) -> code_reading.CodeReading:
        """What the code at HEAD says, read from its syntax tree: where the key is made and sent, the
        request, the timeouts (reads git objects and parses: call it in a worker)."""
        return read_code(self.repo, [f.path for f in self.diff.files if f.status != "deleted"])

    @property
    def sites(self) -> list[code_reading.CodeSite]:
        """Where the code at HEAD makes and sends the key and the request."""
        return self.code.sites

    def to_json(self) -> dict:
        totals = self.diff.totals()
        data = self.attribution.to_json(totals.ai_share)
        data["added_lines"] = totals.code_added
        data["ai_added_lines"] = totals.code_ai_added
        data["person_added_lines"] = totals.code_person_added
        data["unknown_added_lines"] = totals.code_unknown_added
        data["base_lines"] = totals.code_base_added
        data["ai_share"], data["person_share"], data["unknown_share"] = shares(totals)
        data["files"] = [
            {
                "path": f.path,
                "added": f.added,
                "ai_added": f.ai_added,
                "person_added": f.person_added,
                "base_lines": f.base_added,
                "counted": f.excluded is None,
                "reason": f.excluded,
            }
            for f in self.diff.files
        ]
        data["base"] = self.base
        data["base_note"] = self.base_problem
        data["draft"] = (
            {"commit": self.draft, "added": self.draft_added, "surviving": self.draft_surviving} if self.draft else None
        )
        data["cut"] = self.cut
        return data


# Past this a file is not parsed for code sites (said, never a silent cap): a client is a few KB.
MAX_CODE_BYTES = 1 << 20
MAX_CODE_FILES = 200
# A file that names none of these has no site to find (most of a large submission's files).
_CODE_WORDS = re.compile(rb"idempoten|timeout|abort", re.IGNORECASE)


def read_code(repo: gitsafe.SafeRepo, paths: list[str]) -> code_reading.CodeReading:
    """The client's code files among `paths` (tests left out: they call the client, they do not send
    its requests), each read at HEAD and parsed; one too large, binary or unreadable is said."""
    reading = code_reading.CodeReading()
    wanted = [path for path in paths if evidence.CODE_FILE.search(path) and not evidence.TEST_PATH.search(path)]
    if len(wanted) > MAX_CODE_FILES:
        reading.problems.append(
            f"{len(wanted) - MAX_CODE_FILES} of {len(wanted)} code files not read for where the key is made "
            f"(the first {MAX_CODE_FILES} were)"
        )
    for path in wanted[:MAX_CODE_FILES]:
        data = repo.show("HEAD", path, limit=MAX_CODE_BYTES + 1)
        if data is None:
            continue
        if len(data) > MAX_CODE_BYTES:
            reading.problems.append(f"{path}: over {MAX_CODE_BYTES >> 20} MB; not read for where the key is made")
        elif b"\0" in data[:8192]:
            reading.problems.append(f"{path}: binary, not JavaScript; not read for where the key is made")
        elif _CODE_WORDS.search(data):
            reading.extend(code_reading.read_file(path, data))
    return reading


def shares(totals: diff.Totals) -> tuple[float | None, float | None, float | None]:
    """(AI, the person's, unknown) shares of the lines of code written in the range."""
    return totals.ai_share, totals.person_share, totals.unknown_share


def base_commits(commits: list[gitsafe.Commit], base: str) -> frozenset[str]:
    """The base and its ancestors among the commits read: a line one of them wrote is the starter's."""
    parents = {c.sha: c.parents for c in commits}
    seen: set[str] = set()
    todo = [base] if base in parents else []
    while todo:
        sha = todo.pop()
        if sha not in seen and sha in parents:
            seen.add(sha)
            todo.extend(parents[sha])
    return frozenset(seen)


def commit_attributions(commits: list[gitsafe.Commit]) -> list[attribution.CommitAttribution]:
    return [
        attribution.commit_signals(
            c.sha, c.message, (c.author_name, c.author_email), (c.committer_name, c.committer_email)
        )
        for c in commits
    ]


# Patch lines parsed first, for whoever paints the diff before it is whole.
FIRST_SCREEN_LINES = 2000


def choose_base(
    repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit], wanted: str | None, truncated: bool = False
) -> tuple[str, str | None]:
    """The starter commit the diff starts from. With a history longer than was read, the root and the
    ancestry come from git, never from the commits that happened to be read."""
    root = repo.root_commit() if truncated or not commits else commits[0].sha
    if len(commits) == 1 and not wanted:
        one = "one commit only (no starter commit to compare with): every file shows as added"
        return repo.empty_tree, one
    if not wanted:
        return root, None
    try:
        sha = repo.resolve(wanted)
    except gitsafe.GitSafeError:
        return root, (
            f"the cohort's base {wanted[:12]} is not in this submission; showing the diff from its root commit"
        )
    if sha not in {c.sha for c in commits} and not (truncated and repo.is_ancestor(sha)):
        return root, (
            f"the cohort's base {wanted[:12]} is not an ancestor of HEAD; showing the diff from its root commit"
        )
    return sha, None


def locate_functions(repo: gitsafe.SafeRepo, disclosure: attribution.NoteDisclosure, diff: diff.Diff) -> None:
    """A disclosure naming a function ("Copilot wrote `backoff()`") becomes the lines of its
    definition in the first code file of the diff that defines it; not found, it stays unmapped."""
    wanted = [e for e in disclosure.entries if e.kind == "function" and e.symbol]
    if not wanted:
        return
    texts: dict[str, str] = {}
    for file_diff in diff.files:
        if file_diff.binary or file_diff.status == "deleted" or not evidence.CODE_FILE.search(file_diff.path):
            continue
        data = repo.show("HEAD", file_diff.path, limit=BLAME_MAX_BYTES)
        if data is not None:
            texts[file_diff.path] = data.decode("utf-8", "replace")
    for entry in wanted:
        for path, text in texts.items():
            found = attribution.locate_function(entry.symbol or "", text)
            if found:
                entry.kind, entry.path, (entry.start, entry.end) = "range", path, found
                break


def could_be_claimed(
    attributions: list[attribution.CommitAttribution],
    changed: dict[str, list[str]],
    sources: line_sources.LineSources,
    disclosure: attribution.NoteDisclosure,
    diff: diff.Diff,
    moved_into: dict[str, set[str]] | None = None,
    parents: dict[str, tuple[str, ...]] | None = None,
    head_paths: set[str] | None = None,
) -> set[str] | None:
    """The paths any source could give to an assistant: changed by a commit whose metadata names one,
    named by a line-level source (or found there by its text) or the note, or holding lines of such a
    commit that a later one moved there (`moved_into`, from the replay). None: every path (a note
    naming commits or the tests, or a rename, can reach any file). A claimed path gone at HEAD, with no
    replay to say where its lines went, adds every file the diff adds. Blame, one git process per file,
    runs only on these."""
    if any(e.kind in ("commit", "tests") for e in disclosure.entries) or any(f.status == "renamed" for f in diff.files):
        return None
    claiming = {c.commit for c in attributions if c.signals}
    paths = {path for sha in claiming for path in changed.get(sha, [])}
    paths |= sources.paths()
    for sha in claiming | sources.commits(parents or {}):
        paths |= (moved_into or {}).get(sha, set())
    if moved_into is None and head_paths is not None and any(path not in head_paths for path in paths):
        # A claimed path renamed (or deleted) since, and no replay to say where its lines went: blame
        # follows a rename, so they may be in any file the submission added.
        paths |= {f.path for f in diff.files if f.status == "added"}
    paths |= {e.path for e in disclosure.entries if e.path}
    return paths


@dataclass
class _Sources:
    """What could give a line to an assistant, read before the diff: each commit's metadata, the
    note's disclosure, the line-level sources (git-ai's notes, those on commits no longer in the
    history, Agent Trace); and the base the diff starts from."""

    attributions: list[attribution.CommitAttribution]
    base: str
    base_problem: str | None
    note: Note
    disclosure: attribution.NoteDisclosure
    lines: line_sources.LineSources
    # base..HEAD's patch, being read.
    patch: Future[bytes]

    @property
    def may_claim(self) -> bool:
        disclosure = self.disclosure
        return bool(
            self.lines.any
            or disclosure.entries
            or disclosure.heading is not None
            or any(a.signals for a in self.attributions)
        )

    @property
    def has_starter(self) -> bool:
        """A base commit to compare with (not the empty tree): lines of the diff may come from it."""
        return self.base in {a.commit for a in self.attributions}


def _read_sources(repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit], base: str | None, truncated: bool) -> _Sources:
    base_sha, base_problem = choose_base(repo, commits, base, truncated)
    # git writes the diff while the sources are read here (its bytes are parsed next).
    patch = in_thread(functools.partial(repo.diff, base_sha, "HEAD"), "diff")
    try:
        attributions = commit_attributions(commits)
        note = read_note(repo)
        return _Sources(
            attributions,
            base_sha,
            base_problem,
            note,
            attribution.parse_note(note.text),
            line_sources.read(repo, commits, truncated),
            patch,
        )
    except BaseException:
        futures.wait([patch])
        raise


def _history_cut(repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit], truncated: bool) -> list[str]:
    """What of the history was not read, said from the start."""
    cut: list[str] = []
    if truncated:
        total = repo.count_commits()
        cut.append(
            f"the history has {total} commits; the latest {len(commits)} were read for attribution "
            f"({total - len(commits)} older ones were not)"
        )
    roots = repo.shallow_roots()
    if roots:
        cut.append(
            f"the repository is a shallow clone (git clone --depth): its history stops at "
            f"{', '.join(root[:12] for root in roots[:3])}{' …' if len(roots) > 3 else ''}, so older "
            "commits, and what they say of who wrote which line, are not in it"
        )
    if repo.notes_problem:
        cut.append(f"the repository's git notes could not be copied, so no git-ai note was read ({repo.notes_problem})")
    return cut


def _read_diff(
    repo: gitsafe.SafeRepo,
    base: str,
    read: Future[bytes],
    on_diff: Callable[[diff.Diff], None] | None,
    keep_lines: bool = True,
) -> diff.Diff:
    """base..HEAD, parsed; a screen waiting to paint it gets a screen's worth first, then the whole.
    `keep_lines` False: the lines of hunks that only add are counted, not kept, and moved blocks are
    not looked for (both for a screen alone)."""
    patch = read.result()
    if not keep_lines:
        return parse_diff(patch, base, repo.head, keep_lines=False)
    first = head_of(patch, FIRST_SCREEN_LINES) if on_diff is not None else None
    if on_diff is not None and first is not None:
        head = parse_diff(first, base, repo.head)
        head.partial = True
        diff_moves.find_moves(head)
        on_diff(head)
    diff = parse_diff(patch, base, repo.head)
    del patch
    # Before it is handed out: a screen builds its rows from the moves.
    diff_moves.find_moves(diff)
    if on_diff is not None:
        on_diff(diff)
    return diff


def _share_patterns(repo: gitsafe.SafeRepo, head_files: dict[str, gitsafe.FileEntry]) -> list[tuple[str, str]]:
    """.gitattributes' linguist patterns at HEAD: which files the AI share leaves out."""
    attributes = None
    if ".gitattributes" in head_files:
        attributes = repo.show("HEAD", ".gitattributes", limit=256 * 1024)
    return share.linguist_patterns(attributes.decode("utf-8", "replace") if attributes else "")


def _to_trace(
    sources: _Sources,
    changed: dict[str, list[str]],
    replayed: line_origins.Replay | None,
    diff: diff.Diff,
    head_files: dict[str, gitsafe.FileEntry],
    commits: list[gitsafe.Commit],
) -> list[str]:
    """The files whose lines are traced to their commits: those in the diff some source could claim,
    every file the share counts when there is a starter (its lines may be the starter's, moved or
    copied), and those the note names."""
    wanted = [f.path for f in diff.files if not f.binary and f.status != "deleted" and f.path in head_files]
    claimed = could_be_claimed(
        sources.attributions,
        changed,
        sources.lines,
        sources.disclosure,
        diff,
        replayed.moved_into if replayed is not None else None,
        {c.sha: c.parents for c in commits},
        set(head_files),
    )
    if claimed is not None:
        counted = {f.path for f in diff.files if f.excluded is None} if sources.has_starter else set()
        wanted = [path for path in wanted if path in claimed or path in counted]
    return wanted + [
        e.path for e in sources.disclosure.entries if e.path and e.path in head_files and e.path not in wanted
    ]


def _untraced(
    wanted: list[str], diff: diff.Diff, head_files: dict[str, gitsafe.FileEntry], cut: list[str]
) -> list[str]:
    """What is too large to trace, said in the cut; the files still to trace."""
    if diff.truncated:
        cut.append(f"the diff is cut at {MAX_PATCH_BYTES >> 20} MB: later files are not shown or counted")
    too_big = [p for p in wanted if (head_files[p].size or 0) > BLAME_MAX_BYTES]
    if too_big:
        cut.append(
            f"{len(too_big)} file(s) over {BLAME_MAX_BYTES >> 20} MB not traced to their commits "
            f"(their lines count as unattributed): {', '.join(too_big[:5])}"
        )
    wanted = [p for p in wanted if p not in too_big]
    if len(wanted) > MAX_BLAMED_FILES:
        cut.append(
            f"{len(wanted) - MAX_BLAMED_FILES} of {len(wanted)} files not traced to their commits "
            f"(the first {MAX_BLAMED_FILES} were): their lines count as unattributed"
        )
    return wanted


def _trace(
    repo: gitsafe.SafeRepo,
    wanted: list[str],
    replayed: line_origins.Replay | None,
    disclosure: attribution.NoteDisclosure,
    head_files: dict[str, gitsafe.FileEntry],
    cut: list[str],
    why_blame: list[str],
) -> tuple[attribution.Blame, dict[str, int]]:
    """Each traced file's lines: from the replay when it has the file, else blame (in parallel, the row
    told which files and why); and how many lines each file has at HEAD."""
    blame: attribution.Blame = {}
    head_lines: dict[str, int] = {}
    to_blame = []
    for path in wanted[:MAX_BLAMED_FILES]:
        if replayed is not None and path in replayed.files:
            blame[path] = replayed.files[path]
            head_lines[path] = len(blame[path])
        else:
            to_blame.append(path)
    if to_blame:
        why = "; ".join(why_blame) if replayed is None and why_blame else "not in the history's replay"
        shown = ", ".join(to_blame[:5]) + (f" and {len(to_blame) - 5} more" if len(to_blame) > 5 else "")
        cut.append(f"line origins from git blame per file for {len(to_blame)} file(s) ({shown}): {why}")
    for path, found in blame_files(repo, to_blame).items():
        if isinstance(found, gitsafe.GitSafeError):
            cut.append(f"{path}: not traced to its commits ({found})")
            continue
        blame[path] = found
        head_lines[path] = len(found)
    for entry in disclosure.entries:
        if entry.path and entry.path in head_files and entry.path not in head_lines:
            data = repo.show("HEAD", entry.path) or b""
            head_lines[entry.path] = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    return blame, head_lines


def _with_draft(analysis: Analysis, replayed: line_origins.Replay | None) -> Analysis:
    """The model draft: the first commit after the starter whose metadata names an assistant, how many
    lines it added and how many survive at HEAD."""
    commits, attributions = analysis.commits, analysis.commit_attributions
    draft = next((a.commit for a in attributions[1:] if a.signals), None)
    parent = next(c.parents[0] for c in commits if c.sha == draft) if draft and commits else None
    if draft and parent:
        analysis.draft = draft
        # The replay counted every commit's added lines on its way; without one, one git call.
        analysis.draft_added = (
            replayed.added.get(draft, 0) if replayed is not None else analysis.repo.added_lines(parent, draft)
        )
        analysis.draft_surviving = sum(
            [origin[0] for origin in origins].count(draft) for origins in analysis.blame.values()
        )
    return analysis


def analyse(
    repo: gitsafe.SafeRepo,
    base: str | None = None,
    commits: list[gitsafe.Commit] | None = None,
    on_diff: Callable[[diff.Diff], None] | None = None,
    for_row: bool = False,
) -> Analysis:
    """`on_diff` is handed the diff's first lines (`partial`) and then the whole diff, as soon as each
    is parsed and before any line is attributed (a screen paints them while the rest is read; the
    claims land on the whole diff's lines later). `for_row`: only a triage row is made of it (counts,
    claims, conflicts), never a screen: the diff's added lines are kept only where a source needs
    their text."""
    # Not read yet: a long history's replay need not wait for them.
    origins = Origins(repo, start_now=commits is None and Origins.looks_long(repo))
    try:
        commits = repo.commits(limit=gitsafe.MAX_COMMITS) if commits is None else commits
        truncated = len(commits) >= gitsafe.MAX_COMMITS
        cut = _history_cut(repo, commits, truncated)
        origins.history_read(not truncated, len(commits) >= LONG_HISTORY)
        sources = _read_sources(repo, commits, base, truncated)
        cut += sources.lines.cut
        # Every line's origin is wanted when there is a starter: a line from it is not the submission's.
        origins.plan(sources.may_claim or sources.has_starter, screen_waits=on_diff is not None)
        diff = _read_diff(
            repo, sources.base, sources.patch, on_diff, keep_lines=not for_row or line_sources.needs_text(sources.lines)
        )
        origins.diff_handed_out()
        if not sources.disclosure.entries and sources.disclosure.heading is None:
            sources.disclosure = readme_disclosure(repo, diff) or sources.disclosure
        # An AI-DECLARATION.md's levels come first: the note's own lines, more specific, say last.
        sources.disclosure.entries[:0] = declaration_entries(repo, diff)
        line_sources.match(sources.lines, diff)
        locate_functions(repo, sources.disclosure, diff)
        head_files = {f.path: f for f in repo.files("HEAD")}
        patterns = _share_patterns(repo, head_files)
        leave_out_non_code(diff, patterns)
        authors = {c.sha: c.author_name for c in commits}
        # Read now, while the history may still be replaying: less is left for after it.
        prepared = attribution.Prepared(sources.attributions, authors, sources.lines.records)
        changed, replayed = origins.changed_paths()
        wanted = _to_trace(sources, changed, replayed, diff, head_files, commits)
    except BaseException:
        origins.cancel()
        raise
    wanted = _untraced(wanted, diff, head_files, cut)
    replayed = origins.traced(wanted, replayed)
    blame, head_lines = _trace(repo, wanted, replayed, sources.disclosure, head_files, cut, origins.why_blame)
    records = line_sources.records(sources.lines, commits, blame)
    result = attribution.attribute(
        sources.attributions,
        authors,
        sources.disclosure,
        head_lines,
        blame,
        records,
        repo.head,
        {c.sha: c.subject for c in commits},
        sources.lines.notices,
        sources.lines.rewritten,
        prepared,
        base_commits(commits, sources.base),
    )
    claim_lines(diff, result, set(blame))
    analysis = Analysis(
        repo,
        sources.base,
        sources.base_problem,
        commits,
        sources.attributions,
        sources.note,
        diff,
        result,
        blame=blame,
        share_patterns=patterns,
        changed=changed,
        cut=cut,
        head_blobs={path: entry.oid for path, entry in head_files.items()},
    )
    return _with_draft(analysis, replayed)


def leave_out_non_code(diff: diff.Diff, patterns: list[tuple[str, str]]) -> None:
    """Mark the files the AI share does not count (prose, lockfiles, generated...), with why: the
    one rule for the whole submission's diff and each commit's."""
    for file_diff in diff.files:
        file_diff.excluded = share.exclusion(file_diff.path, file_diff.binary, patterns)


def claim_lines(diff: diff.Diff, result: attribution.Attribution, traced: set[str]) -> None:
    """Put each added line's winning claim on it (diffs whose new side is HEAD). A file not `traced`
    is one no source could give to an assistant: when the submission discloses, its lines are the
    person's; otherwise no source speaks for them."""
    diff.claimed = True
    for file_diff in diff.files:
        runs = result.stretches.get(file_diff.path, [])
        default = PERSON if result.discloses and file_diff.path not in traced else ""
        if not runs and not default:
            continue
        firsts = [first for first, _, _ in runs]
        for hunk in file_diff.hunks:
            if hunk.added_at is not None:  # read for a row: counted from the runs, no line to mark
                hunk.count_claims(runs, firsts, default)
            else:
                hunk.put_claims(result.lines_of(file_diff.path), default)


def diff_between(analysis: Analysis, base: str, target: str) -> diff.Diff:
    """Any other range. Its lines' claims: HEAD's when it ends at HEAD; a commit's own metadata for one commit."""
    repo = analysis.repo
    diff = parse_diff(repo.diff(base, target), base, target)
    diff_moves.find_moves(diff)
    leave_out_non_code(diff, analysis.share_patterns)
    if target == analysis.head:
        claim_lines(diff, analysis.attribution, set(analysis.blame))
        return diff
    single = next(
        (
            a
            for a, c in zip(analysis.commit_attributions, analysis.commits)
            if c.sha == target and c.parents and c.parents[0] == base
        ),
        None,
    )
    diff.claimed = single is not None
    if single and single.signals:
        claim = single.claim_signal
        for file_diff in diff.files:
            for hunk in file_diff.hunks:
                for line in hunk.lines:
                    if line.kind == "+":
                        line.tool, line.source = claim.tool, f"commit {target[:7]}: {single.claim_source}"
                hunk.retally()
    elif single and analysis.attribution.discloses:
        # A commit with no AI marker, in a submission that discloses: the person's.
        for file_diff in diff.files:
            for hunk in file_diff.hunks:
                for line in hunk.lines:
                    if line.kind == "+":
                        line.state = PERSON
                hunk.retally()
    return diff
