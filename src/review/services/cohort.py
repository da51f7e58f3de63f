"""A cohort is a folder with one git repository per candidate. This module lists them and
computes each one's triage row, saying why when a folder cannot be read."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path

from review import gitsafe
from review.core import agreement
from review.core.triage import disclosure_state
from review.harness import cache
from review.services import failures, row_cache, store

# What an empty cohort is told, wherever it is shown.
WHAT_A_COHORT_IS = "a cohort is a folder with one git repository per candidate"


def empty_cohort_text(cohort: Path) -> str:
    """Why a cohort shows no rows, and, when the folder given is itself a repository, what to give."""
    hint = (
        f"; {cohort} is itself a git repository: its parent folder may be the cohort"
        if (cohort / ".git").exists()
        else ""
    )
    return f"no submissions in {cohort} ({WHAT_A_COHORT_IS}){hint}"


# A warm triage (the row cache answers) reads no history: what computes a row, runs the harness or
# masks names is imported where it is used, so `review triage` starts without it.
TYPE_CHECKING = False  # typing's, without loading typing on a warm triage's path
if TYPE_CHECKING:
    from review.core import anonymity
    from review.harness.results import SuiteResult
    from review.services import analysis


class CohortError(Exception):
    pass


@dataclass
class Row:
    """One submission in the triage table. Field names are a contract (``review triage --json``)."""

    name: str
    path: str
    problem: str | None = None
    head: str | None = None
    commits: int | None = None
    last_commit: str | None = None
    assistants: list[str] = field(default_factory=list)
    ai_share: float | None = None
    # The rest of the lines of code written in the range: those a source gives to the person, and
    # those no source speaks for (ai_share + person_share + unknown_share = 1).
    person_share: float | None = None
    unknown_share: float | None = None
    harness: str | None = None
    state: str = "new"
    reviewers: list[str] = field(default_factory=list)
    complete: bool = False
    # Tools, share, spans, conflicts, unmapped (docs/formats.md).
    attribution: dict | None = None
    # Scenario -> verdict, from the suite at HEAD.
    scenarios: dict[str, str] | None = None
    # core.triage.KEY_SCOPES, from the gateway's records of that suite.
    key_scope: str | None = None
    # core.triage.DISCLOSURES.
    disclosure: str | None = None
    # Reviewer (or pair) -> draft | final | stale.
    states: dict[str, str] = field(default_factory=dict)
    # [signals scored alike, signals scored by two or more] at HEAD.
    agreement: list[int] | None = None
    # The console's: {"with": the submission holding the largest share of this one's own code, "share"}
    # (`review similar` says it headless; not a field of `review triage --json`).
    similar: dict | None = field(default=None, metadata={"json": False})
    # The suite at HEAD has a hang seen while the machine was loaded: that, in words with the load (each
    # view says how to run it again); the background harness runs it again once the machine is quiet.
    hung_under_load: str | None = field(default=None, metadata={"json": False})

    def to_json(self) -> dict:
        # Shallow: `attribution` is JSON-ready already, and asdict's deep copy of its thousands of spans
        # cost more than reading the row.
        return {f.name: getattr(self, f.name) for f in fields(self) if f.metadata.get("json", True)}


def drop_spans(row: Row) -> None:
    """The row without its attribution's spans (one per run of lines: 600 KB for a 100k-line diff):
    a triage row carries counts, tools and conflicts; per-file figures and spans come on request."""
    if row.attribution is not None and "spans" in row.attribution:
        row.attribution = {name: value for name, value in row.attribution.items() if name != "spans"}


def summarise_files(row: Row) -> None:
    """The row with its attribution's per-file list (path, added, AI-added, why left out: 25 KB for a
    250-file history) folded into counts: how many files, how many counted in the share, and how many
    were left out for each reason. `review triage --json --files` keeps the list."""
    attribution = row.attribution
    if attribution is None or not isinstance(attribution.get("files"), list):
        return
    files = attribution["files"]
    left_out: dict[str, int] = {}
    for entry in files:
        if not entry.get("counted"):
            reason = str(entry.get("reason"))
            left_out[reason] = left_out.get(reason, 0) + 1
    summary = {"files": len(files), "counted": len(files) - sum(left_out.values()), "left_out": left_out}
    row.attribution = {
        **{name: value for name, value in attribution.items() if name != "files"},
        "file_counts": summary,
    }


# What `review import` unpacks: a submission left in the cohort as it came is a row that says so.
ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tbz2", ".txz", ".tar", ".zip", ".bundle", ".git")


def is_archive(path: Path) -> bool:
    return path.name.lower().endswith(ARCHIVE_SUFFIXES) and path.is_file() and not path.is_symlink()


def list_submissions(cohort: Path) -> list[Path]:
    """Every direct subfolder, and every archive or bundle a submission came as, in name order
    (hidden folders are our own scratch space)."""
    if not cohort.exists():
        raise CohortError(f"{cohort}: no such folder")
    if not cohort.is_dir():
        raise CohortError(f"{cohort}: not a folder (a cohort is a folder of submissions)")
    try:
        entries = sorted(cohort.iterdir(), key=lambda p: p.name)
    except PermissionError:
        raise CohortError(f"{cohort}: permission denied") from None
    return [p for p in entries if not p.name.startswith(".") and (p.is_dir() or p.is_symlink() or is_archive(p))]


def cohort_settings(cohort: Path) -> dict:
    """`COHORT/cohort.toml`: optional `base` (the starter commit id) and `[rubric]` overrides."""
    path = cohort / "cohort.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise CohortError(f"{path} cannot be read: {error}") from None
    # Imported only when there is a file to parse (5 ms of a warm triage's start).
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CohortError(f"{path} cannot be read: {error}") from None


def cohort_blind(cohort: Path) -> bool:
    """`anonymous = true` in cohort.toml: every console and export of this cohort is candidate-blind
    unless the reviewer lifts it (`A` twice in the console, `--reveal` on export)."""
    return cohort_settings(cohort).get("anonymous") is True


def blind_masker(cohort: Path) -> tuple[anonymity.Masker, dict[str, str]]:
    """Candidate-blind output of a cohort: a masker of every candidate's folder name and commit
    people (numbered in the cohort's blind order, as the console numbers them), and folder name -> alias."""
    from review.core import anonymity
    from review.services.blind_order import blind_order_key

    submissions = list_submissions(cohort)
    masker, aliases = anonymity.cohort_masker((path.name for path in submissions), blind_order_key(cohort))
    base = cohort_base(cohort)
    for path in submissions:
        try:
            repo = gitsafe.open_submission(path)
            commits = repo.commits(limit=gitsafe.MAX_COMMITS)
            # The starter (the cohort's base, else the root commit) is the hiring team's.
            start = repo.resolve(base) if base else (commits[0].sha if len(commits) > 1 else None)
        except gitsafe.GitSafeError:
            continue
        people = anonymity.commit_people(commits, start)
        masker.add(aliases[path.name], anonymity.identity_parts(path.name, people))
    return masker, aliases


def blind_row(row: Row, masker: anonymity.Masker, aliases: dict[str, str]) -> None:
    """The row as a candidate-blind reader sees it: its alias for a name, every text masked."""
    row.name = aliases.get(row.name, masker.mask(row.name))
    row.path = masker.mask(row.path)
    row.problem = masker.mask(row.problem) if row.problem else row.problem
    if row.attribution is not None:
        row.attribution = _masked(row.attribution, masker)


def _masked(value, masker: anonymity.Masker):
    """Every string inside a JSON-ready value masked; keys are the format's own words, left alone."""
    if isinstance(value, str):
        return masker.mask(value)
    if isinstance(value, list):
        return [_masked(item, masker) for item in value]
    if isinstance(value, dict):
        return {key: _masked(item, masker) for key, item in value.items()}
    return value


def cohort_base(cohort: Path) -> str | None:
    base = cohort_settings(cohort).get("base")
    return str(base) if base else None


def placeholder(path: Path) -> Row:
    """A row we can show at once, before any git runs."""
    return Row(name=path.name, path=str(path))


# The commits, when already read (None: the analysis reads them).
Analyse = Callable[["gitsafe.SafeRepo", "list[gitsafe.Commit] | None"], "analysis.Analysis"]


def _analyse_once(repo: gitsafe.SafeRepo, commits: list[gitsafe.Commit] | None) -> analysis.Analysis:
    from review.services import analysis

    return analysis.analyse(repo, base=cohort_base(repo.source.parent), commits=commits, for_row=True)


def load_row(path: Path, analyse: Analyse = _analyse_once, spans: bool = False) -> Row:
    """One triage row. `analyse` is the session's (cached), so the submission screen reuses it. Any
    failure while reading the submission is its row's reason, never the table's end. `spans`: with
    the attribution's spans (see drop_spans)."""
    return _guarded(path, lambda: _load_row(path, analyse, spans))


def _guarded(path: Path, make: Callable[[], Row]) -> Row:
    try:
        return make()
    # The boundary: one hostile submission cannot take the others down.
    except Exception as error:
        row = placeholder(path)
        row.problem = failures.record(f"triage row {path}", error)
        row.state = "unreadable"
        row.complete = True
        return row


def warm_row(path: Path, spans: bool = False) -> tuple[Row | None, str | None]:
    """(the row from the row cache when the submission's commits are the ones seen last time — only
    what changes without a commit is read again — or None when it must be computed; the row's cache
    key, None when it cannot be told)."""
    warm = row_cache.key(path, cohort_base(path.parent)) if not path.is_symlink() else None
    cached = row_cache.get(warm, spans) if warm else None
    if cached is None:
        return None, warm
    row = placeholder(path)
    scores = store.read_scores(path)
    row_cache.fill(row, cached)
    _finish(row, scores)
    return row, warm


def _load_row(path: Path, analyse: Analyse, spans: bool) -> Row:
    found, warm = warm_row(path, spans)
    return found if found is not None else _cold_row(path, analyse, warm, spans)


def _cold_row(path: Path, analyse: Analyse, warm: str | None, spans: bool = False) -> Row:
    """The row computed from the submission, kept under `warm` (the row cache's key) when it has one."""
    row = placeholder(path)
    scores = store.read_scores(path)
    apply_scores(row, scores)
    _compute_row(row, path, analyse, scores)
    if warm and row.problem is None and row.head:
        row_cache.put(warm, row)
    if not spans:
        drop_spans(row)
    return row


def apply_scores(row: Row, scores: store.ScoreFile) -> None:
    """The score file's view of a row: who reviewed it, each reviewer's state, the cohort state and
    the agreement at HEAD (the state stays as it is until HEAD is known)."""
    row.reviewers = sorted({name for review in scores.reviews for name in review.reviewers})
    row.states = store.reviewer_states(scores, row.head)
    row.agreement = head_agreement(scores, row.head)
    if row.head:
        row.state = store.review_state(scores, row.head)


def _finish(row: Row, scores: store.ScoreFile) -> None:
    """Scores and the harness cache: read every time (they change without a commit)."""
    apply_scores(row, scores)
    cached = cache.cached_suite(row.head) if row.head else None
    if cached:
        apply_suite(row, cached)
    if scores.problem or scores.unsealed_notice:
        row.problem = scores.problem or scores.unsealed_notice
    row.complete = True


def _unreadable(row: Row, error: gitsafe.GitSafeError) -> None:
    row.problem = str(error)
    row.state = "unreadable"
    row.complete = True


def _compute_row(row: Row, path: Path, analyse: Analyse, scores: store.ScoreFile) -> None:
    try:
        if path.is_symlink():
            raise gitsafe.GitSafeError("a symbolic link; not followed")
        if is_archive(path):
            raise gitsafe.GitSafeError(
                f"an archive, not a submission folder: `review import {path.parent} {path}` "
                "unpacks it into one (links refused, no hooks run, sizes capped)"
            )
        repo = gitsafe.open_submission(path)
    except gitsafe.GitSafeError as error:
        _unreadable(row, error)
        return
    # After the copy: meanwhile load_rows' own thread has loaded these (see there).
    from review.core import attribution
    from review.services import analysis

    try:
        # The commits are read by the analysis: a long history's replay starts before them.
        understood = analyse(repo, None)
        commits = understood.commits
    except (gitsafe.GitSafeError, CohortError) as error:
        try:
            commits = repo.commits(limit=gitsafe.MAX_COMMITS)
        except gitsafe.GitSafeError as unreadable:
            _unreadable(row, unreadable)
            return
        row.problem = f"the diff cannot be read: {error}"
        row.assistants = attribution.assistants(analysis.commit_attributions(commits))
        understood = None
    row.head = repo.head
    row.commits = len(commits)
    row.last_commit = commits[-1].author_date if commits else None
    if understood is not None:
        row.assistants = understood.attribution.tools
        row.ai_share, row.person_share, row.unknown_share = analysis.shares(understood.diff.totals())
        row.attribution = understood.to_json()
        found = understood.attribution
        row.disclosure = disclosure_state(
            found.tools, len(found.conflicts), len(found.unmapped) + found.unplaced, found.note.declares_none
        )
    _finish(row, scores)


def head_agreement(scores: store.ScoreFile, head: str | None) -> list[int] | None:
    at_head = [r.tiers for r in scores.reviews if r.commit == head]
    if len(at_head) < 2:
        return None
    return list(agreement.submission_agreement(at_head, sorted({s for tiers in at_head for s in tiers})))


def apply_suite(row: Row, suite: SuiteResult) -> None:
    """A suite's verdicts into the row: the summary, one verdict per scenario, the key's scope. Only a
    full suite: one scenario run on its own is shown where it ran, never as the row's."""
    if not suite.is_full:
        return
    row.harness = suite.summary
    row.scenarios = suite.verdicts
    row.key_scope = suite.key_scope
    row.hung_under_load = suite.loaded_said(again="")


def load_rows(
    paths: Iterable[Path], workers: int = 4, analyse: Analyse = _analyse_once, spans: bool = False
) -> Iterator[Row]:
    """Rows in the order they complete, never behind one slow row. Warm rows first, in this thread
    (a millisecond each, CPU-bound: threads would only fight over the GIL); then the rest, whose
    cloning is I/O bound, on a few threads."""
    # Each cold row's work, its cache key already read.
    cold: list[Callable[[], Row]] = []
    for path in paths:
        try:
            row, key = warm_row(path, spans)
        # The boundary is load_row's: the whole path meets the same failure there.
        except Exception:
            cold.append(functools.partial(load_row, path, analyse, spans))
            continue
        if row is None:
            cold.append(functools.partial(_guarded, path, functools.partial(_cold_row, path, analyse, key, spans)))
        else:
            yield row
    if not cold:
        return
    # Here, not at the top: a warm triage never loads the thread pool (3 ms of its start).
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(work) for work in cold]
        # While the workers wait on git copying the submissions, this thread loads what reading them
        # takes (the diff parser, the attribution, Markdown: a tenth of a second off a cold triage).
        from review.services import analysis  # noqa: F401

        for future in as_completed(futures):
            yield future.result()


def triage(cohort: Path, workers: int = 4, spans: bool = False) -> list[Row]:
    return list(load_rows(list_submissions(cohort), workers, spans=spans))


# A row's harness text while it waits for fill_harness.
QUEUED = "queued"


# HEADs whose suite, kept with a hang under load, the background harness ran again in this process:
# once each, so a machine that is loaded again by the time it hangs does not loop.
_RAN_AGAIN: set[str] = set()


def needs_suite(row: Row) -> bool:
    """No suite kept for HEAD, or one with a hang under load while the machine is now quiet (load
    under its cores) and it has not run again yet: a loaded machine would only see the same hang."""
    if not row.head:
        return False
    if row.harness in (None, QUEUED):
        return True
    if row.hung_under_load and row.head not in _RAN_AGAIN:
        from review.harness import runner

        return not runner.Load.now().loaded
    return False


def harness_concurrency() -> int:
    """Suites at once in the background: half the cores, at least one. Each suite judges timing
    (a hung client's limit, a backoff's waits); suites that load the machine themselves made those
    verdicts false (a happy path at 5.8 s of its 6 s limit with 8 suites at once on 2 cores)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // 2)


class _SuiteSlots:
    """The background harness's suites at once, across every event loop of the process (the console
    runs the cohort's and the arrivals' suites in two workers): one count, never more than the cap."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0

    def try_take(self, limit: int) -> bool:
        with self.lock:
            if self.running >= limit:
                return False
            self.running += 1
            return True

    def give_back(self) -> None:
        with self.lock:
            self.running -= 1

    @contextlib.asynccontextmanager
    async def slot(self, limit: int) -> AsyncIterator[None]:
        import asyncio

        # Polled, not a thread blocked on a semaphore: a cancelled wait (the console quitting) takes nothing.
        while not self.try_take(limit):
            await asyncio.sleep(0.05)
        try:
            yield
        finally:
            self.give_back()


SUITE_SLOTS = _SuiteSlots()


async def fill_harness(rows: list[Row], concurrency: int | None = None, on_done=None, on_start=None) -> None:
    """Run the suite for every readable row without a cached result, at most `concurrency` suites at
    once in the whole process (harness_concurrency by default), each suite's scenarios one after
    another; the rest wait as queued. Cancelling it (process.run_until_stopped, as the console does
    when it quits) kills each run's processes."""
    import asyncio

    from review.harness import runner, sandbox

    limit = concurrency or harness_concurrency()
    try:
        info = sandbox.detect()
    except sandbox.SandboxError as error:
        info, why = None, str(error)
    else:
        why = "needs bubblewrap (the background harness never runs without it)"
    if info is None or info.kind != "bwrap":
        # Opening a cohort must never run its code unsandboxed: not even with --unsafe-no-sandbox.
        for row in rows:
            if needs_suite(row):
                row.harness = f"not run: {why}"
                if on_done:
                    on_done(row)
        return

    async def one(row: Row) -> None:
        if row.hung_under_load and row.head:
            _RAN_AGAIN.add(row.head)
        async with SUITE_SLOTS.slot(limit):
            if on_start:
                on_start(row)
            try:
                repo = await asyncio.to_thread(gitsafe.open_submission, Path(row.path))
                suite = await runner.run_suite(repo, info=info)
            except (gitsafe.GitSafeError, sandbox.SandboxError) as error:
                row.harness = f"not run: {error}"
            else:
                apply_suite(row, suite)
            if on_done:
                on_done(row)

    await asyncio.gather(*(one(row) for row in rows if needs_suite(row)))
