"""One submission, read and understood: commits, note, diff base..HEAD, and who wrote which line.

This is the service layer between gitsafe (the only module that runs git) and the pure core
(diff, attribution); the TUI and the JSON output both use it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from review import gitsafe
from review.core import attribution, diff, evidence, line_origins, share
from review.core.attribution import Blame
from review.services import line_sources

T = TypeVar("T")

README_NAMES = ("README.md", "readme.md", "Readme.md")
NOTE_NAMES = ("NOTE.md", "note.md", "NOTES.md", "Note.md", "NOTE.txt", "NOTE")
NOTE_LIMIT = 256 * 1024
MAX_BLAMED_FILES = 1000  # files an assistant could have written; past this, the cut says so
BLAME_MAX_BYTES = 4 << 20  # blame's output is ~50 bytes per line of the file: bounded memory


@dataclass
class Note:
    path: str | None
    text: str  # raw, untrusted: sanitise before display
    problem: str | None = None  # missing, binary, not UTF-8, cut


@dataclass
class Analysis:
    repo: gitsafe.SafeRepo
    base: str
    base_problem: str | None
    commits: list[gitsafe.Commit]
    signals: list[attribution.CommitAttribution]
    note: Note
    diff: diff.Diff
    attribution: attribution.Attribution
    draft: str | None = None  # the first commit whose metadata names an assistant
    draft_added: int = 0
    draft_surviving: int = 0
    blame: Blame = field(default_factory=dict, repr=False)
    # .gitattributes' linguist patterns at HEAD: which files any diff of this submission leaves out of the share
    share_patterns: list[tuple[str, str]] = field(default_factory=list, repr=False)
    changed: dict[str, list[str]] = field(default_factory=dict, repr=False)  # commit -> paths it changed
    cut: list[str] = field(default_factory=list)  # what was not read or counted, and why: never a silent cap

    @property
    def head(self) -> str:
        return self.repo.head

    @functools.cached_property
    def sites(self) -> list[evidence.CodeSite]:
        """Where the code at HEAD makes and sends the key and the request (from the diff's lines)."""
        return evidence.code_sites([(f.path, line.new_no, line.text) for f in self.diff.files
                                    if not f.binary and evidence.CODE_FILE.search(f.path)
                                    for hunk in f.hunks for line in hunk.lines
                                    if line.new_no is not None and line.kind in "+ "])

    def to_json(self) -> dict:
        totals = self.diff.totals()
        data = self.attribution.to_json(totals.ai_share)
        data["added_lines"] = totals.code_added
        data["ai_added_lines"] = totals.code_ai_added
        data["files"] = [{"path": f.path, "added": f.added, "ai_added": f.ai_added, "counted": f.excluded is None,
                          "reason": f.excluded} for f in self.diff.files]
        data["base"] = self.base
        data["base_note"] = self.base_problem
        data["draft"] = {"commit": self.draft, "added": self.draft_added, "surviving": self.draft_surviving} \
            if self.draft else None
        data["cut"] = self.cut
        return data


def read_note(repo: gitsafe.SafeRepo, rev: str = "HEAD") -> Note:
    for name in NOTE_NAMES:
        data = repo.show(rev, name, limit=NOTE_LIMIT + 1)
        if data is None:
            continue
        problems = []
        if len(data) > NOTE_LIMIT:
            data = data[:NOTE_LIMIT]
            problems.append(f"cut at {NOTE_LIMIT // 1024} KiB")
        if b"\0" in data:
            return Note(name, "", f"{name} is binary (it holds NUL bytes); not shown")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("utf-8", errors="replace")
            problems.append("not valid UTF-8: undecodable bytes shown as �")
        return Note(name, text, "; ".join(problems) or None)
    return Note(None, "", "no NOTE.md at HEAD: the candidate wrote no note")


def commit_signals(commits: list[gitsafe.Commit]) -> list[attribution.CommitAttribution]:
    return [attribution.commit_signals(c.sha, c.message, (c.author_name, c.author_email),
                                       (c.committer_name, c.committer_email)) for c in commits]


FIRST_SCREEN_LINES = 2000  # patch lines parsed first, for whoever paints the diff before it is whole
LONG_HISTORY = 64  # commits: past this, the replay is started before the diff is parsed


def _replay_history(repo: gitsafe.SafeRepo, stop: threading.Event) -> line_origins.Replay | None:
    """Every line's origin from one `git log -p` stream; None leaves it to blame per file (a replay
    past its memory bound, git failing, or `stop` set because nothing needs it after all)."""
    def until_stopped(batches: Iterator[list[bytes]]) -> Iterator[list[bytes]]:
        for batch in batches:
            if stop.is_set():
                return
            yield batch

    stream = repo.history_patches("HEAD")
    try:
        replayed = line_origins.replay(until_stopped(stream))
    except (gitsafe.GitSafeError, line_origins.TooLarge):
        return None
    finally:
        stream.close()  # stopped early: git is stopped here
    return None if stop.is_set() else replayed


def _changed_paths(repo: gitsafe.SafeRepo) -> _Ahead[dict[str, list[str]]]:
    return _Ahead(lambda _stop: repo.changed_paths(), "changed-paths")


class _Ahead(Generic[T]):
    """Work started in a thread of its own while the caller does other work: git's processes run on
    another core meanwhile (the history's patches alone took 0.5 s of git on 5,000 commits)."""

    def __init__(self, work: Callable[[threading.Event], T], name: str) -> None:
        self.stop = threading.Event()
        self._result: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self._thread.start()

    def _run(self, work: Callable[[threading.Event], T]) -> None:
        try:
            self._result = work(self.stop)
        except BaseException as error:  # handed to the caller, whose boundary reports it
            self._error = error

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]

    def cancel(self) -> None:
        self.stop.set()
        self._thread.join()


def choose_base(repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit], wanted: str | None,
                truncated: bool = False) -> tuple[str, str | None]:
    """The starter commit the diff starts from. With a history longer than was read, the root and the
    ancestry come from git, never from the commits that happened to be read."""
    root = repo.root_commit() if truncated or not commits else commits[0].sha
    if len(commits) == 1 and not wanted:
        return repo.empty_tree, "one commit only (no starter commit to compare with): every file shows as added"
    if not wanted:
        return root, None
    try:
        sha = repo.resolve(wanted)
    except gitsafe.GitSafeError:
        return root, f"the cohort's base {wanted[:12]} is not in this submission; showing the diff from its root commit"
    if sha not in {c.sha for c in commits} and not (truncated and repo.is_ancestor(sha)):
        return root, f"the cohort's base {wanted[:12]} is not an ancestor of HEAD; showing the diff from its root commit"
    return sha, None


def readme_disclosure(repo: gitsafe.SafeRepo, the_diff: diff.Diff) -> attribution.NoteDisclosure | None:
    """A candidate who wrote the disclosure in README.md instead of the note: read as the note is
    (a section about AI use, a labelled paragraph, disclosure sentences; never a tool merely listed or
    linked), when the candidate changed README.md (the starter's own words are not a disclosure)."""
    for name in README_NAMES:
        changed = the_diff.file(name)
        if changed is None or not changed.added:
            continue
        data = repo.show("HEAD", name, limit=NOTE_LIMIT)
        if not data or b"\0" in data:
            return None
        found = attribution.parse_note(data.decode("utf-8", "replace"), document=True)
        if not found.entries:
            return None
        for entry in found.entries:
            entry.file = name
        found.heading = f"{found.heading} (in {name})" if found.heading else None
        return found
    return None


def locate_functions(repo: gitsafe.SafeRepo, disclosure: attribution.NoteDisclosure, the_diff: diff.Diff) -> None:
    """A disclosure naming a function ("Copilot wrote `backoff()`") becomes the lines of its
    definition in the first code file of the diff that defines it; not found, it stays unmapped."""
    wanted = [e for e in disclosure.entries if e.kind == "function" and e.symbol]
    if not wanted:
        return
    texts: dict[str, str] = {}
    for file_diff in the_diff.files:
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


def could_be_claimed(signals: list[attribution.CommitAttribution], changed: dict[str, list[str]],
                     sources: line_sources.LineSources, disclosure: attribution.NoteDisclosure,
                     the_diff: diff.Diff, moved_into: dict[str, set[str]] | None = None,
                     parents: dict[str, tuple[str, ...]] | None = None) -> set[str] | None:
    """The paths any source could give to an assistant: changed by a commit whose metadata names one,
    named by a line-level source (or found there by its text) or the note, or holding lines of such a
    commit that a later one moved there (`moved_into`, from the replay). None: every path (a note
    naming commits or the tests, or a rename, can reach any file). Blame, one git process per file,
    runs only on these."""
    if any(e.kind in ("commit", "tests") for e in disclosure.entries) or \
            any(f.status == "renamed" for f in the_diff.files):
        return None
    claiming = {c.commit for c in signals if c.signals}
    paths = {path for sha in claiming for path in changed.get(sha, [])}
    paths |= sources.paths()
    for sha in claiming | sources.commits(parents or {}):
        paths |= (moved_into or {}).get(sha, set())
    paths |= {e.path for e in disclosure.entries if e.path}
    return paths


def analyse(repo: gitsafe.SafeRepo, base: str | None = None, commits: list[gitsafe.Commit] | None = None,
            on_diff: Callable[[diff.Diff], None] | None = None) -> Analysis:
    """`on_diff` is handed the diff's first lines (`partial`) and then the whole diff, as soon as each
    is parsed and before any line is attributed (a screen paints them while the rest is read; the
    marks land on the whole diff's lines later)."""
    commits = repo.commits(limit=gitsafe.MAX_COMMITS) if commits is None else commits
    cut: list[str] = []
    truncated = len(commits) >= gitsafe.MAX_COMMITS
    if truncated:
        total = repo.count_commits()
        cut.append(f"the history has {total} commits; the latest {len(commits)} were read for attribution "
                   f"({total - len(commits)} older ones were not)")
    if repo.notes_problem:
        cut.append(f"the repository's git notes could not be copied, so no git-ai note was read ({repo.notes_problem})")
    # Line origins come from replaying the history's patches when it is linear and read whole (else
    # blame per file), in a thread of its own, when any source could claim a line. A long history is
    # mostly git's work, so it starts first, before that is known (git runs on another core while the
    # notes and the diff are read), and is stopped if nothing can claim; a short one is mostly Python,
    # like the parsing, so while a screen waits to paint the diff it starts once the diff is handed out.
    linear = not truncated and not any(len(c.parents) > 1 for c in commits)
    start_replay = functools.partial(_Ahead, functools.partial(_replay_history, repo), "line-origins")
    replay_ahead = start_replay() if linear and len(commits) >= LONG_HISTORY else None
    changed_ahead = None  # which paths each commit touched: read by the replay on its way, else one git call
    replayed = None
    try:
        signals = commit_signals(commits)
        base_sha, base_problem = choose_base(repo, commits, base, truncated)
        note = read_note(repo)
        disclosure = attribution.parse_note(note.text)
        sources = line_sources.read(repo, commits, truncated)
        cut += sources.cut
        replay = linear and (sources.any or disclosure.entries or disclosure.heading is not None
                             or any(s.signals for s in signals))
        if replay_ahead is not None and not replay:
            replay_ahead.cancel()
            replay_ahead = None
        if replay and replay_ahead is None and on_diff is None:  # no screen waits to paint
            replay_ahead = start_replay()
        if not replay:
            changed_ahead = _changed_paths(repo)
        patch = repo.diff(base_sha, "HEAD")
        first = diff.head_of(patch, FIRST_SCREEN_LINES) if on_diff is not None else None
        if on_diff is not None and first is not None:  # a screen's worth at once, the whole patch next
            head = diff.parse(first, base_sha, repo.head)
            head.partial = True
            on_diff(head)
        the_diff = diff.parse(patch, base_sha, repo.head)
        del patch
        if on_diff is not None:
            on_diff(the_diff)
        if replay and replay_ahead is None:
            replay_ahead = start_replay()
        if not disclosure.entries and disclosure.heading is None:
            disclosure = readme_disclosure(repo, the_diff) or disclosure
        line_sources.match(sources, the_diff)

        locate_functions(repo, disclosure, the_diff)
        head_files = {f.path: f for f in repo.files("HEAD")}
        attributes = repo.show("HEAD", ".gitattributes", limit=256 * 1024) if ".gitattributes" in head_files else None
        patterns = share.linguist_patterns(attributes.decode("utf-8", "replace") if attributes else "")
        leave_out_non_code(the_diff, patterns)
        if changed_ahead is not None:
            changed = changed_ahead.result()
        else:
            assert replay_ahead is not None
            replayed = replay_ahead.result()
            changed = replayed.changed if replayed is not None else repo.changed_paths()
        wanted = [f.path for f in the_diff.files if not f.binary and f.status != "deleted" and f.path in head_files]
        claimed = could_be_claimed(signals, changed, sources, disclosure, the_diff,
                                   replayed.moved_into if replayed is not None else None,
                                   {c.sha: c.parents for c in commits})
        if claimed is not None:  # a file no source could give to an assistant needs no blame: a person's lines
            wanted = [path for path in wanted if path in claimed]
        wanted += [e.path for e in disclosure.entries if e.path and e.path in head_files and e.path not in wanted]
    except BaseException:
        for ahead in (changed_ahead, replay_ahead):
            if ahead is not None:
                ahead.cancel()
        raise
    blame: attribution.Blame = {}
    head_lines: dict[str, int] = {}
    if the_diff.truncated:
        cut.append(f"the diff is cut at {diff.MAX_PATCH_BYTES >> 20} MB: later files are not shown or counted")
    too_big = [p for p in wanted if (head_files[p].size or 0) > BLAME_MAX_BYTES]
    if too_big:
        cut.append(f"{len(too_big)} file(s) over {BLAME_MAX_BYTES >> 20} MB not traced to their commits "
                   f"(their lines count as unattributed): {', '.join(too_big[:5])}")
    wanted = [p for p in wanted if p not in too_big]
    if len(wanted) > MAX_BLAMED_FILES:
        cut.append(f"{len(wanted) - MAX_BLAMED_FILES} of {len(wanted)} files not traced to their commits (the first "
                   f"{MAX_BLAMED_FILES} were): their lines count as unattributed")
    if replay_ahead is not None and not wanted:
        replay_ahead.cancel()  # nothing to trace after all (e.g. only README.md is claimed, and it is deleted)
    elif replay_ahead is not None:
        replayed = replay_ahead.result()
    elif wanted and linear:  # claimed by what was only found later (a disclosure in README.md)
        replayed = _replay_history(repo, threading.Event())
    for path in wanted[:MAX_BLAMED_FILES]:
        if replayed is not None and path in replayed.files:
            blame[path] = replayed.files[path]
            head_lines[path] = len(blame[path])
            continue
        try:
            blame[path] = repo.blame("HEAD", path)
        except gitsafe.GitSafeError as error:
            cut.append(f"{path}: not traced to its commits ({error})")
            continue
        head_lines[path] = len(blame[path])
    for entry in disclosure.entries:
        if entry.path and entry.path in head_files and entry.path not in head_lines:
            data = repo.show("HEAD", entry.path) or b""
            head_lines[entry.path] = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)

    authors = {c.sha: c.author_name for c in commits}
    records = line_sources.records(sources, commits, blame)
    result = attribution.attribute(signals, authors, disclosure, head_lines, blame, records,
                                   repo.head, {c.sha: c.subject for c in commits}, sources.notices,
                                   sources.rewritten)
    mark(the_diff, result)
    analysis = Analysis(repo, base_sha, base_problem, commits, signals, note, the_diff, result, blame=blame,
                        share_patterns=patterns, changed=changed, cut=cut)
    draft = next((s.commit for s in signals[1:] if s.signals), None)
    if draft:
        parent = next(c.parents[0] for c in commits if c.sha == draft) if commits else None
        if parent:
            analysis.draft = draft
            # The replay counted every commit's added lines on its way; without one, one git call.
            analysis.draft_added = replayed.added.get(draft, 0) if replayed is not None else repo.added_lines(parent, draft)
            analysis.draft_surviving = sum(origin[0] == draft for origins in blame.values() for origin in origins)
    return analysis


def leave_out_non_code(the_diff: diff.Diff, patterns: list[tuple[str, str]]) -> None:
    """Mark the files the AI share does not count (prose, lockfiles, generated...), with why: the
    one rule for the whole submission's diff and each commit's."""
    for file_diff in the_diff.files:
        file_diff.excluded = share.exclusion(file_diff.path, file_diff.binary, patterns)


def mark(the_diff: diff.Diff, result: attribution.Attribution) -> None:
    """Put each added line's winning claim on it (diffs whose new side is HEAD)."""
    for file_diff in the_diff.files:
        for hunk in file_diff.hunks:
            for line in hunk.lines:
                if line.kind == "+" and line.new_no is not None:
                    claim = result.claim(file_diff.path, line.new_no)
                    if claim and (claim.tool or claim.moved):  # a person's moved lines say where from too
                        line.tool, line.source, line.moved = claim.tool, claim.source, claim.moved
            hunk.retally()


def diff_between(analysis: Analysis, base: str, target: str) -> diff.Diff:
    """Any other range. Marks: HEAD's claims when it ends at HEAD; a commit's own metadata for one commit."""
    repo = analysis.repo
    the_diff = diff.parse(repo.diff(base, target), base, target)
    leave_out_non_code(the_diff, analysis.share_patterns)
    if target == analysis.head:
        mark(the_diff, analysis.attribution)
        return the_diff
    single = next((s for s, c in zip(analysis.signals, analysis.commits) if c.sha == target and c.parents
                   and c.parents[0] == base), None)
    if single and single.signals:
        signal = single.signals[0]
        for file_diff in the_diff.files:
            for hunk in file_diff.hunks:
                for line in hunk.lines:
                    if line.kind == "+":
                        line.tool, line.source = signal.tool, f"commit {target[:7]}: {signal.source}"
                hunk.retally()
    return the_diff
