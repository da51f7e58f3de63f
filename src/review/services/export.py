"""`review export COHORT --format csv|json|md`: one row per submission and review (tiers and the
comment on each signal, flags, state, commit, the reviewed commit's scenario verdicts and key scope,
the disclosure state), then how far the reviewers agree per signal over the cohort."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from review import gitsafe
from review.core import anonymity
from review.core import scenarios as core_scenarios
from review.core.agreement import SignalAgreement, cohort_agreement, leans
from review.core.rubric import Rubric, from_settings
from review.core.text import safe_line
from review.harness import runner, scenarios
from review.services import cohort, store
from review.services.calibration import Drift, drift, planted_in

# The state of a submission no reviewer has scored yet (a row of its own in every export), in the
# console's own word for it.
NOT_SCORED = "new"


@dataclass
class ExportRow:
    submission: str
    reviewers: str
    state: str
    commit: str
    stale: bool
    rubric_version: str
    tiers: dict[str, str]
    comments: dict[str, str]  # signal id -> the reviewer's comment on it
    flags: list[str]
    comment: str
    agreement: float | None  # share of signals on which every final review of this submission agrees
    scenarios: dict[str, str]  # scenario -> verdict, from the suite cached for the reviewed commit
    key_scope: str | None  # from that suite's gateway records
    disclosure: str | None  # the submission's disclosure state at HEAD
    problem: str | None = None  # why this submission's scores or history could not be read
    anchored: list[dict[str, str]] = field(default_factory=list)  # comments on a diff hunk or a log line
    # At HEAD, of the lines of code written in the range: the AI's, the person's, no source's; and the
    # added lines from the base (the starter's code moved or copied), which the shares leave out.
    ai_share: float | None = None
    person_share: float | None = None
    unknown_share: float | None = None
    base_lines: int | None = None
    # The top pair (`review similar`): the largest share of this submission's own code another holds, and whose.
    similar: float | None = None
    similar_to: str | None = None


def agreement(reviews: list[store.Review], signal_ids: list[str]) -> float | None:
    """Among the final reviews (at least two), the share of signals given the same tier by all."""
    finals = [r for r in reviews if r.state == "final"]
    if len(finals) < 2 or not signal_ids:
        return None
    same = sum(len({r.tiers.get(s) for r in finals}) == 1 and finals[0].tiers.get(s) is not None for s in signal_ids)
    return same / len(signal_ids)


@dataclass
class Export:
    rubric: Rubric
    rows: list[ExportRow]
    signals: list[SignalAgreement]  # per-signal agreement over the cohort (final reviews)
    leans: dict[str, float]  # reviewer -> mean tier difference from the others (below 0: stricter)
    calibration: list[Drift] = field(default_factory=list)  # known-answer submissions


def collect(cohort_dir: Path, read_rows: bool = True, anonymous: bool = False) -> Export:
    """`read_rows`: also read each submission (its disclosure state); off, only score files and the
    harness cache are read."""
    settings = cohort.cohort_settings(cohort_dir)
    rubric = from_settings(settings)
    signal_ids = [s.id for s in rubric.signals]
    rows = []
    finals: list[dict[str, dict[str, str]]] = []
    planted = planted_in(cohort_dir)
    shares: dict[str, tuple[float | None, float | None, float | None, int | None]] = {}
    for path in cohort.list_submissions(cohort_dir):
        if path.name in planted:
            continue  # a known-answer submission is no candidate: its reviews are the drift table's
        scores = store.read_scores(path)
        row = cohort.load_row(path) if read_rows else None
        if row is not None:
            base = (row.attribution or {}).get("base_lines")
            shares[path.name] = (row.ai_share, row.person_share, row.unknown_share, base)
        head = row.head if row else _head(path)
        if scores.problem:  # one bad file is its row, never the export's end
            rows.append(
                ExportRow(
                    path.name,
                    "",
                    "unreadable",
                    "",
                    False,
                    "",
                    {},
                    {},
                    [],
                    "",
                    None,
                    {},
                    None,
                    row.disclosure if row else None,
                    scores.problem,
                )
            )
            continue
        for entry, why in scores.unsealed:  # shown, not counted: a planted entry is no review
            who = entry.get("reviewers")
            rows.append(
                ExportRow(
                    path.name,
                    " + ".join(map(str, who)) if isinstance(who, list) else "",
                    "unsealed",
                    str(entry.get("commit", "")),
                    False,
                    "",
                    {},
                    {},
                    [],
                    "",
                    None,
                    {},
                    None,
                    row.disclosure if row else None,
                    f"not counted: {why}",
                )
            )
        if not scores.reviews and not scores.unsealed:
            # Listed, never left out: an export is also the list of what is still to review, with what
            # the harness saw at HEAD.
            suite = runner.cached_suite(head) if head else None
            rows.append(
                ExportRow(
                    path.name,
                    "",
                    NOT_SCORED if not (row and row.problem) else "unreadable",
                    head or "",
                    False,
                    "",
                    {},
                    {},
                    [],
                    "",
                    None,
                    suite.verdicts_said(core_scenarios.HEADLESS_AGAIN) if suite else {},
                    suite.key_scope if suite else None,
                    row.disclosure if row else None,
                    row.problem if row else None,
                )
            )
            continue
        agreed = agreement(scores.reviews, signal_ids)
        at_head = {r.who: r.tiers for r in scores.reviews if r.state == "final" and r.commit == head}
        if len(at_head) >= 2:
            finals.append(at_head)
        for review in scores.reviews:
            suite = runner.cached_suite(review.commit) if review.commit else None
            rows.append(
                ExportRow(
                    path.name,
                    review.who,
                    review.state,
                    review.commit,
                    review.commit != head,
                    review.rubric_version,
                    review.tiers,
                    review.comments,
                    review.flags,
                    review.comment,
                    agreed,
                    suite.verdicts_said(core_scenarios.HEADLESS_AGAIN) if suite else {},
                    suite.key_scope if suite else None,
                    row.disclosure if row else None,
                    row.problem if row else None,
                    review.anchored,
                )
            )
    for export_row in rows:
        found = shares.get(export_row.submission)
        if found:
            export_row.ai_share, export_row.person_share, export_row.unknown_share, export_row.base_lines = found
    if read_rows:
        _top_pairs(cohort_dir, rows)
    if anonymous:
        _blind(cohort_dir, rows)
    return Export(
        rubric,
        rows,
        cohort_agreement(finals, signal_ids),
        leans(finals, signal_ids),
        drift(cohort_dir) if planted else [],
    )


def _top_pairs(cohort_dir: Path, rows: list[ExportRow]) -> None:
    from review.services import similarity

    # Among the exported submissions only: a known-answer submission's name never reaches the export.
    listed = {row.submission for row in rows}
    comparison = similarity.build(cohort_dir).compare()
    for row in rows:
        shares = [
            (pair.share_a, pair.b) if pair.a == row.submission else (pair.share_b, pair.a)
            for pair in comparison.pairs_of(row.submission)
            if pair.shared and {pair.a, pair.b} <= listed
        ]
        if shares:
            share, other = max(shares)
            row.similar_to, row.similar = other, round(share, 4)


def _blind(cohort_dir: Path, rows: list[ExportRow]) -> None:
    """Candidate-blind export: the submission as candidate-N (numbered as the console numbers it), and
    every name, e-mail and folder name of any candidate masked in the comments and problems too."""
    masker, aliases = cohort.blind_masker(cohort_dir)
    for row in rows:
        row.submission = aliases.get(row.submission, masker.mask(row.submission))
        row.comments = {signal: masker.mask(text) for signal, text in row.comments.items()}
        row.comment = masker.mask(row.comment)
        row.anchored = [{"at": masker.mask(a["at"]), "text": masker.mask(a["text"])} for a in row.anchored]
        row.problem = masker.mask(row.problem) if row.problem else row.problem
        if row.similar_to:
            row.similar_to = aliases.get(row.similar_to, masker.mask(row.similar_to))
    # In the candidates' numbers: the folders' order would give the names' alphabetical order away.
    rows.sort(key=lambda row: anonymity.alias_number(row.submission))


def _head(path: Path) -> str | None:
    try:
        return gitsafe.read_head(path).sha
    except gitsafe.GitSafeError:
        return None


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _signed(value: float | None) -> str:
    return "" if value is None else f"{value:+.2f}"


def render(cohort_dir: Path, fmt: str, read_rows: bool = True, anonymous: bool = False) -> str:
    data = collect(cohort_dir, read_rows, anonymous)
    rows = data.rows
    ids = [s.id for s in data.rubric.signals]
    names = [s.name for s in scenarios.SCENARIOS]
    if fmt == "json":
        return json.dumps(
            {
                "cohort": str(cohort_dir.resolve()),
                "rubric_version": data.rubric.version,
                "signals": ids,
                "rows": [row.__dict__ for row in rows],
                "agreement": [a.to_json() for a in data.signals],
                "leans": data.leans,
                "calibration": [d.__dict__ for d in data.calibration],
            },
            indent=2,
        )
    header = [
        "submission",
        "reviewers",
        "state",
        "commit",
        "stale",
        "rubric_version",
        *ids,
        *(f"comment:{i}" for i in ids),
        "comment",
        "anchored comments",
        "flags",
        "agreement",
        "key_scope",
        "disclosure",
        "ai_share",
        "person_share",
        "unknown_share",
        "base_lines",
        "similar",
        "similar_to",
        *(f"scenario:{n}" for n in names),
        "problem",
    ]
    table = [
        [
            row.submission,
            row.reviewers,
            row.state,
            row.commit,
            "yes" if row.stale else "no",
            row.rubric_version,
            *(row.tiers.get(i, "") for i in ids),
            *(row.comments.get(i, "") for i in ids),
            row.comment,
            " | ".join(f"{a['at']}: {a['text']}" for a in row.anchored),
            " ".join(row.flags),
            _number(row.agreement),
            row.key_scope or "",
            row.disclosure or "",
            _number(row.ai_share),
            _number(row.person_share),
            _number(row.unknown_share),
            "" if row.base_lines is None else str(row.base_lines),
            _number(row.similar),
            row.similar_to or "",
            *(row.scenarios.get(n, "") for n in names),
            row.problem or "",
        ]
        for row in rows
    ]
    agreement_header = ["signal", "submissions compared", "same tier", "kappa (2 reviewers)", "alpha (ordinal)"]
    agreement_table = [[a.signal, str(a.items), str(a.same), _number(a.kappa), _number(a.alpha)] for a in data.signals]
    agreement_table += [[f"lean of {who}", "", "", "", f"{lean:+.2f}"] for who, lean in sorted(data.leans.items())]
    drift_header = ["calibration drift: reviewer", "signal", "known-answer submissions", "vs reference", "vs pair"]
    drift_table = [
        [d.reviewer, d.signal, str(d.items), _signed(d.vs_reference), _signed(d.vs_pair)] for d in data.calibration
    ]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows([[csv_cell(str(c)) for c in row] for row in table])
        writer.writerow([])  # the cohort's agreement, below the reviews
        writer.writerow(agreement_header)
        writer.writerows([[csv_cell(c) for c in row] for row in agreement_table])
        if drift_table:
            writer.writerow([])
            writer.writerow(drift_header)
            writer.writerows([[csv_cell(c) for c in row] for row in drift_table])
        return out.getvalue()
    drift_section = (
        (
            "\n## Calibration drift (known-answer submissions; below 0: stricter)\n\n"
            + _markdown(drift_header, drift_table)
        )
        if drift_table
        else ""
    )
    return (
        _markdown(header, table)
        + "\n## Agreement (final reviews at HEAD)\n\n"
        + _markdown(agreement_header, agreement_table)
        + drift_section
    )


def _markdown(header: list[str], table: list[list[str]]) -> str:
    lines = ["| " + " | ".join(markdown_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(markdown_cell(str(c)) for c in row) + " |" for row in table]
    return "\n".join(lines) + "\n"


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?\d{1,12}(?:\.\d{1,12})?")
MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def csv_cell(text: str) -> str:
    """No escape sequence reaches whoever opens the file, and no cell is a live spreadsheet formula
    (a leading = + - @ tab or CR gets a quote, as OWASP advises)."""
    text = safe_line(text, 10_000)
    if NUMBER.fullmatch(text):
        return text  # a plain number (a negative lean) is no formula
    return "'" + text if text.startswith(FORMULA_START) else text


def markdown_cell(text: str) -> str:
    """Sanitised, one line, and every character Markdown would read as syntax escaped: a comment or a
    folder name cannot break the table, link somewhere or inject HTML."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", safe_line(text, 10_000))
