"""`review calibrate`: known-answer submissions slipped into a real cohort, unmarked; drift per
reviewer and signal against the reference and the pair, in the report and the export."""

from __future__ import annotations

import re

from helpers import git
from review.cli import main
from review.services import calibration, cohort, store

SAMPLE_NAMES = re.compile(r"okafor|larsen|chen|wei\b|patel|\bada\b|\bben\b|\bdev\b", re.IGNORECASE)


def test_planted_submissions_look_like_any_candidate_and_the_answers_stay_outside(sample_cohort):
    planted = calibration.plant(sample_cohort, count=4, seed=7)
    assert sorted(p.archetype for p in planted) == sorted(calibration.REFERENCE)
    rows = {row.name: row for row in cohort.triage(sample_cohort)}
    for entry in planted:
        row = rows[entry.name]
        assert row.head == entry.head and row.problem is None and row.state == "new"
        history = git("log", "--format=%an %ae %B", cwd=sample_cohort / entry.name)
        note = (
            (sample_cohort / entry.name / "NOTE.md").read_text()
            if (sample_cohort / entry.name / "NOTE.md").exists()
            else ""
        )
        assert not SAMPLE_NAMES.search(history + note), SAMPLE_NAMES.search(history + note)
    on_disk = " ".join(
        path.read_text(errors="replace")
        for path in sample_cohort.rglob("*")
        if path.is_file() and ".git" not in path.parts
    )
    assert "archetype" not in on_disk and "calibration" not in on_disk  # nothing in the cohort marks them
    assert calibration.ledger_path().is_file() and not calibration.ledger_path().is_relative_to(sample_cohort)


def test_drift_against_the_reference_and_the_pair_in_the_report_and_the_export(sample_cohort, capsys):
    planted = {p.archetype: p for p in calibration.plant(sample_cohort, count=4, seed=1)}
    strong = planted["chen-wei"]  # reference: strong on every signal
    weak = planted["ada-okafor"]  # reference: weak on every signal
    tiers = lambda tier: {s: tier for s in calibration.REFERENCE["chen-wei"]}  # noqa: E731
    store.save(sample_cohort / strong.name, store.Review(["ana"], strong.head, "final", tiers=tiers("acceptable")))
    store.save(sample_cohort / strong.name, store.Review(["bob"], strong.head, "final", tiers=tiers("strong")))
    store.save(sample_cohort / weak.name, store.Review(["ana"], weak.head, "final", tiers=tiers("weak")))
    by_key = {(d.reviewer, d.signal): d for d in calibration.drift(sample_cohort)}
    ana, bob = by_key[("ana", "key-scope")], by_key[("bob", "key-scope")]
    assert (ana.items, ana.vs_reference, ana.vs_pair) == (2, -0.5, -1.0)  # stricter: one tier under on chen
    assert (bob.items, bob.vs_reference, bob.vs_pair) == (1, 0.0, 1.0)
    assert main(["calibrate", str(sample_cohort), "--report"]) == 0
    report = capsys.readouterr().out
    assert re.search(r"ana\s+key-scope\s+2\s+-0\.50\s+-1\.00", report)
    assert main(["export", str(sample_cohort), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "calibration drift: reviewer,signal" in out and "ana,key-scope,2,-0.50,-1.00" in out
    assert strong.name not in out.split("calibration drift")[0]  # its reviews are not a candidate's rows


def test_bad_calibration_requests_are_refused_with_the_reason(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path / "missing")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["calibrate", str(tmp_path), "--count", "9"]) == 2
    assert "between 1 and 4" in capsys.readouterr().err
