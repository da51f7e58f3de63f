"""One submission's evidence as one document: the row's summary, every hint per rubric signal and
failure-mode flag (what it quotes, where it points), what the code says (code sites, timeouts, what
could not be followed) and the cached suite. `build` makes it for the submission screen's rubric form
and for `review show` alike, so a test of one is a test of the other. The JSON's field names are a
contract (documented beside `review triage --json`); new sections are added beside these, never in
place of a field."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from review import gitsafe
from review.core import evidence, rubric, triage
from review.core import scenarios as core_scenarios
from review.core.code_reading import CodeReading
from review.core.evidence import Hint
from review.harness import candidate_tests, runner, scenarios
from review.harness.results import ScenarioResult, SuiteResult
from review.services import store
from review.services.analysis import Analysis

FORMAT = 1  # raised when a field changes meaning; new fields and sections leave it as it is


@dataclass
class Summary:
    """The triage row's facts at the commit shown."""

    name: str
    path: str
    commit: str
    head: str  # the submission's HEAD (commit differs with --commit)
    commits: int
    base: str
    base_note: str | None
    assistants: list[str]
    ai_share: float | None
    # The rest of the range's own lines: the person's (a source says so) and those no source speaks for.
    person_share: float | None
    unknown_share: float | None
    # Added lines whose origin is at or before the base (moved or copied starter code): left out of the shares.
    base_lines: int
    disclosure: str
    state: str  # new | in review | scored | stale, from the score file
    reviewers: list[str]
    key_scope: str | None  # from the cached suite (None: no suite)
    harness: str | None  # the suite's summary
    runs: dict[str, str] | None  # scenario -> verdict
    cut: list[str]  # what was not read, and why


@dataclass
class Section:
    """One rubric signal or failure-mode flag and the hints beside it, in the rubric's order."""

    id: str
    title: str
    kind: str  # signal | flag
    hints: list[Hint]

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "kind": self.kind, "hints": [hint_json(h) for h in self.hints]}


@dataclass
class SuiteSection:
    """The suite cached for the commit (never run to make this document)."""

    cached: bool
    said: str  # one line: the summary, or that none is cached and how to run it
    commit: str
    sandbox: str | None = None
    node: str | None = None
    scenarios: list[dict] = field(default_factory=list)


@dataclass
class EvidenceDocument:
    summary: Summary
    sections: list[Section]
    code: CodeReading
    suite: SuiteSection
    # `review show` only: this submission's pairs in its cohort (review similar's), highest first, and
    # why they could not be read; the screen's document leaves both empty (its pair view has them).
    similar: list[dict] = field(default_factory=list)
    similar_problem: str | None = None

    def hints(self) -> dict[str, list[Hint]]:
        """Signal or flag id -> its hints (the rubric form's evidence)."""
        return {section.id: section.hints for section in self.sections}

    def to_json(self) -> dict:
        code = self.code
        return {
            "format": FORMAT,
            "summary": asdict(self.summary),
            "sections": [section.to_json() for section in self.sections],
            "code": {
                "sites": [asdict(site) for site in code.sites],
                "timeouts": [asdict(site) for site in code.timeouts],
                "problems": list(code.problems),
            },
            "suite": asdict(self.suite),
            "similar": self.similar,
            "similar_problem": self.similar_problem,
        }


def where_json(source: evidence.Source) -> dict:
    """Where a hint points, by kind: note (lines), file (path, line), scenario, commit, attribution, code."""
    found: dict = {"label": source.label}
    if isinstance(source, evidence.NoteLines):
        found.update(kind="note", lines=list(source.lines))
    elif isinstance(source, evidence.DiffLine):
        found.update(kind="file", path=source.path, line=source.line)
    elif isinstance(source, evidence.LogLines):
        found.update(kind="scenario", scenario=source.scenario)
    elif isinstance(source, evidence.CommitRef):
        found.update(kind="commit", commit=source.sha)
    elif isinstance(source, evidence.Attribution):
        found.update(kind="attribution")
    else:
        found.update(kind="code")
    return found


def hint_json(hint: Hint) -> dict:
    return {"text": hint.text, "where": where_json(hint.source), "quotes": [q.to_json() for q in hint.quotes]}


def _machine(result: ScenarioResult) -> dict:
    """What the machine was like when the scenario was killed at its limit (null when it was not)."""
    return {"hung_under_load": result.hung_under_load, "load_average": result.load_average, "cores": result.cores}


def verdict_facts(suite: SuiteResult | None) -> dict[str, dict] | None:
    """What the hints read of a suite: per scenario its verdict, counts and the scenario's limit."""
    if suite is None:
        return None
    return {
        s.name: {
            "verdict": s.verdict,
            "requests": s.requests,
            "distinct_keys": s.distinct_keys,
            "charges_created": s.charges_created,
            "requests_without_key": s.requests_without_key,
            "limit_s": scenarios.BY_NAME[s.name].limit_s if s.name in scenarios.BY_NAME else None,
            **_machine(s),
        }
        for s in suite.scenarios
    }


def build(
    analysis: Analysis,
    suite: SuiteResult | None,
    test_runs: dict[str, str] | None,
    rubric: rubric.Rubric,
    scores: store.ScoreFile | None = None,
    again: str = core_scenarios.CONSOLE_AGAIN,
) -> EvidenceDocument:
    """The document, from what was read already (no I/O: `analysis.code` was read in a worker); `again`:
    how its view says a scenario is run again."""
    verdicts = verdict_facts(suite)
    inputs = evidence.Inputs(
        analysis.note.text,
        [(c.sha, c.subject) for c in analysis.commits],
        analysis.changed,
        verdicts,
        [c.message for c in analysis.attribution.conflicts if c.path is None],
        (analysis.draft, analysis.draft_added, analysis.draft_surviving) if analysis.draft else None,
        test_runs or None,
        analysis.code,
        again,
    )
    hints = evidence.gather(inputs)
    sections = [Section(s.id, s.name, "signal", hints.get(s.id, [])) for s in rubric.signals]
    sections += [Section(f.id, f.label, "flag", hints.get(f.id, [])) for f in rubric.flags]
    document = EvidenceDocument(
        _summary(analysis, suite, scores), sections, analysis.code, _suite(analysis.head, suite)
    )
    for scenario in document.suite.scenarios:
        # What the code says of a scenario's window (a timeout longer than it waits), beside its verdict.
        prefix = f"{scenario['name']}: {scenario['verdict']} — "
        scenario["read_from_code"] = [
            h.text[len(prefix) :] for h in hints.get("key-scope", []) if h.text.startswith(prefix)
        ]
    return document


def _summary(analysis: Analysis, suite: SuiteResult | None, scores: store.ScoreFile | None) -> Summary:
    found = analysis.attribution
    totals = analysis.diff.totals()
    return Summary(
        name=analysis.repo.source.name,
        path=str(analysis.repo.source),
        commit=analysis.head,
        head=analysis.head,
        commits=len(analysis.commits),
        base=analysis.base,
        base_note=analysis.base_problem,
        assistants=list(found.tools),
        ai_share=totals.ai_share,
        person_share=totals.person_share,
        unknown_share=totals.unknown_share,
        base_lines=totals.code_base_added,
        disclosure=triage.disclosure_state(
            found.tools, len(found.conflicts), len(found.unmapped) + found.unplaced, found.note.declares_none
        ),
        state=store.review_state(scores, analysis.head) if scores is not None else "new",
        reviewers=sorted({name for review in scores.reviews for name in review.reviewers}) if scores else [],
        key_scope=suite.key_scope if suite else None,
        harness=suite.summary if suite else None,
        runs=suite.verdicts if suite else None,
        cut=list(analysis.cut),
    )


def _suite(commit: str, suite: SuiteResult | None) -> SuiteSection:
    if suite is None:
        return SuiteSection(False, f"no suite is cached for {commit[:12]} (`review harness` runs it)", commit)
    return SuiteSection(
        True,
        suite.summary,
        suite.commit,
        suite.sandbox,
        suite.node,
        [
            {
                "name": s.name,
                "verdict": s.verdict,
                "requests": s.requests,
                "distinct_keys": s.distinct_keys,
                "charges_created": s.charges_created,
                "requests_without_key": s.requests_without_key,
                "gaps_ms": list(s.gaps_ms),
                "reasons": list(s.reasons),
                **_machine(s),
            }
            for s in suite.scenarios
        ],
    )


def show(path: Path, commit: str = "HEAD", again: str = core_scenarios.CONSOLE_AGAIN) -> EvidenceDocument:
    """`review show`: the submission read at `commit` (any revision; HEAD by default), with the suite,
    the candidate's own test runs and the scores already cached. Never runs the harness.
    gitsafe.GitSafeError: not a submission, or no such revision."""
    from review.services import analysis as analysing
    from review.services import cohort, scoring

    repo = gitsafe.open_submission(path)
    sha = repo.resolve(commit)
    at = repo if sha == repo.head else repo.at(sha)
    result = analysing.analyse(at, base=cohort.cohort_base(path.parent))
    result.code  # noqa: B018  (read here, as the screen's worker does)
    tests = {c.sha: run.colour for c in result.commits for run in [candidate_tests.cached_tests(c.sha)] if run}
    document = build(
        result,
        runner.cached_suite(sha),
        tests,
        scoring.read_rubric(path.parent).rubric,
        store.read_scores(path),
        again,
    )
    document.summary.head = repo.head
    document.similar, document.similar_problem = similar_pairs(path)
    return document


# Pairs `review show` gives in detail (fragments, who wrote them): the rest with their shares.
SHOWN_IN_DETAIL = 3


def similar_pairs(path: Path) -> tuple[list[dict], str | None]:
    """The submission's pairs in its cohort, as `review similar` gives them (its index, cached per
    HEAD), those sharing none of their own code left out; any failure is said, never raised."""
    from review.services import similar_report, similarity

    try:
        index = similarity.build(path.parent)
        comparison = index.compare()
        rows = similar_report.Rows(index)
        rank = {(found[2], found[3]): n for n, found in enumerate(comparison.ranked, start=1)}
        number = {name: n for n, name in enumerate(comparison.names)}
        pairs: list[dict] = []
        for pair in comparison.pairs_of(path.name):
            if not pair.shared:
                continue
            low, high = sorted((number[pair.a], number[pair.b]))
            at = rank[(low, high)]
            detail = rows if len(pairs) < SHOWN_IN_DETAIL else None
            pairs.append(similar_report.pair_json(at, pair, index, comparison, detail, str))
        return pairs, None
    except Exception as error:  # one boundary: the rest of the evidence stands without it
        return [], f"similar code not compared: {type(error).__name__}: {error}"
