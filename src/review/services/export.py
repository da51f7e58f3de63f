"""`review export COHORT --format csv|json|md`: one row per submission and review, per-signal
tiers, flags, state, commit, and how far the reviewers of one submission agree."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from review import gitsafe
from review.core import rubric as rubric_module
from review.core.text import safe_line
from review.services import cohort, store


@dataclass
class ExportRow:
    submission: str
    reviewers: str
    state: str
    commit: str
    stale: bool
    rubric_version: str
    tiers: dict[str, str]
    flags: list[str]
    comment: str
    agreement: float | None  # share of signals on which every final review of this submission agrees


def agreement(reviews: list[store.Review], signal_ids: list[str]) -> float | None:
    """Among the final reviews (at least two), the share of signals given the same tier by all."""
    finals = [r for r in reviews if r.state == "final"]
    if len(finals) < 2 or not signal_ids:
        return None
    same = sum(len({r.tiers.get(s) for r in finals}) == 1 and finals[0].tiers.get(s) is not None for s in signal_ids)
    return same / len(signal_ids)


def collect(cohort_dir: Path) -> tuple[rubric_module.Rubric, list[ExportRow]]:
    settings = cohort.cohort_settings(cohort_dir)
    rubric = rubric_module.from_settings(settings)
    signal_ids = [s.id for s in rubric.signals]
    rows = []
    for path in cohort.list_submissions(cohort_dir):
        scores = store.read_scores(path)
        if scores.problem:
            raise cohort.CohortError(scores.problem)
        try:
            head = gitsafe.read_head(path).sha
        except gitsafe.GitSafeError:
            head = None
        agreed = agreement(scores.reviews, signal_ids)
        for review in scores.reviews:
            rows.append(ExportRow(path.name, review.who, review.state, review.commit, review.commit != head,
                                  review.rubric_version, review.tiers, review.flags, review.comment, agreed))
    return rubric, rows


def render(cohort_dir: Path, fmt: str) -> str:
    rubric, rows = collect(cohort_dir)
    ids = [s.id for s in rubric.signals]
    if fmt == "json":
        return json.dumps({"cohort": str(cohort_dir.resolve()), "rubric_version": rubric.version,
                           "signals": ids, "rows": [row.__dict__ for row in rows]}, indent=2)
    header = ["submission", "reviewers", "state", "commit", "stale", "rubric_version", *ids, "flags", "agreement"]
    table = [[row.submission, row.reviewers, row.state, row.commit, "yes" if row.stale else "no",
              row.rubric_version, *(row.tiers.get(i, "") for i in ids), " ".join(row.flags),
              "" if row.agreement is None else f"{row.agreement:.2f}"] for row in rows]
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows([[csv_cell(str(c)) for c in row] for row in table])
        return out.getvalue()
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(markdown_cell(str(c)) for c in row) + " |" for row in table]
    return "\n".join(lines) + "\n"


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def csv_cell(text: str) -> str:
    """No escape sequence reaches whoever opens the file, and no cell is a live spreadsheet formula
    (a leading = + - @ tab or CR gets a quote, as OWASP advises)."""
    text = safe_line(text, 10_000)
    return "'" + text if text.startswith(FORMULA_START) else text


def markdown_cell(text: str) -> str:
    """Sanitised, one line, and every character Markdown would read as syntax escaped: a comment or a
    folder name cannot break the table, link somewhere or inject HTML."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", safe_line(text, 10_000))
