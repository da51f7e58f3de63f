"""A triage row is read without keeping the diff's added lines (their count and whose they are is
all a row shows): every row must say what the full reading, the one a screen shows, says."""

from __future__ import annotations

from pathlib import Path

from helpers import attribution_cohort
from review import gitsafe
from review.devtools.bench.repo import make_large_repo
from review.services import analysis, cohort


def _both(folder: Path) -> tuple[analysis.Analysis, analysis.Analysis]:
    repo = gitsafe.open_submission(folder)
    base = cohort.cohort_base(folder.parent)
    return analysis.analyse(repo, base, for_row=True), analysis.analyse(repo, base)


def _tallies(result: analysis.Analysis) -> list:
    return [
        (f.path, f.status, f.added, f.removed, f.ai_added, f.tools, [h.counts() for h in f.hunks])
        for f in result.diff.files
    ]


def test_each_row_read_lean_is_the_row_read_whole(sample_cohort, tmp_path):
    folders = [p for p in cohort.list_submissions(sample_cohort) if p.is_dir()]
    folders += [p for p in cohort.list_submissions(attribution_cohort(tmp_path / "attribution")) if p.is_dir()]
    make_large_repo(tmp_path / "long" / "notes", commits=120, lines=2400)
    folders.append(tmp_path / "long" / "notes")
    lean_hunks = 0
    for folder in folders:
        lean, whole = _both(folder)
        assert lean.to_json() == whole.to_json(), folder.name
        assert _tallies(lean) == _tallies(whole), folder.name
        assert lean.diff.ai_share == whole.diff.ai_share
        lean_hunks += sum(h.added_at is not None for f in lean.diff.files for h in f.hunks)
    # The reading this is about happened: new files' lines were counted, not kept.
    assert lean_hunks > 100
