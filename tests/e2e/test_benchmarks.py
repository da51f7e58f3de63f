"""The benchmarks' own machinery (never their timings: these machines are noisy)."""

from __future__ import annotations

import json

from review.cli import main
from review.devtools.bench.repo import make_large_repo
from review.services import cohort


def test_the_synthetic_repository_is_what_it_says_and_bench_repo_reports_its_goals(tmp_path, capsys):
    head = make_large_repo(tmp_path / "cohort" / "large", commits=60, lines=600)
    row = cohort.load_row(tmp_path / "cohort" / "large")
    assert row.head == head and row.commits == 60 and row.problem is None
    assert row.assistants == ["Claude Code"] and row.ai_share == 1.0  # every line named by a git-ai note
    assert main(["bench", "repo", "--commits", "60", "--lines", "600", "--into", str(tmp_path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["repository"]["commits"] == 60 and figures["sanitised_clone_s"] > 0
    # Cold against the safe floor (copy + git log -p + notes), warm against the log, both whole processes.
    assert figures["triage_cold"]["goal"] == 1.2 and figures["triage_warm"]["goal"] == 2.0
    for name in ("triage_cold", "triage_warm"):
        assert figures[name]["ratio"] > 0 and figures[name]["peak_rss_mb"] > 0
    floor = figures["safe_floor"]["seconds"]
    assert floor > figures["sanitised_clone_s"]
    # (both rounded to the millisecond: on this tiny repository that moves the ratio by a few per cent)
    assert abs(figures["triage_cold"]["ratio"] / (figures["triage_cold"]["seconds"] / floor) - 1) < 0.05
    assert figures["triage_rows_from_kept_copy"]["ratio"] > 0
    moves = figures["move_detection"]  # cold triage with move detection and without, and their ratio
    assert moves["goal"] == 1.2 and moves["cold_with_s"] > 0 and moves["cold_without_s"] > 0
    assert abs(moves["ratio"] - moves["cold_with_s"] / moves["cold_without_s"]) < 0.1
    # Run again into the same folder: the cold figure starts from an empty cache, so it makes the copy again.
    left = next((tmp_path / "cache" / "repos").glob("*.git")) / "left-by-the-first-run"
    left.write_text("")
    assert main(["bench", "repo", "--commits", "60", "--lines", "600", "--into", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    assert not left.exists()


def test_bench_diff_times_the_first_frame_that_holds_the_diff(tmp_path, capsys):
    assert main(["bench", "diff", "--lines", "3000", "--into", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if "first frame with the diff" in line)
    frame_ms = float(line.split("first frame with the diff")[1].split("ms")[0])
    settled_ms = float(line.split("screen settled")[1].split("ms")[0])
    assert frame_ms > 0 and settled_ms > 0
    assert "git diff into a pipe (baseline)" in out
