"""The stub log's jobs without a screen: the progress a run reports as the harness's events come,
and the log file `w` writes (the jobs themselves run real node in tests/tui/test_tui_stub_log.py)."""

from __future__ import annotations

from review.harness import compare
from review.harness.results import HarnessEvent
from review.services import runs
from review.support import paths


def test_a_runs_progress_counts_the_scenarios_started_and_names_the_side():
    events: list[tuple[str, str]] = []
    shown: list[runs.Progress] = []
    run = runs.Run(
        "before/after: draft → HEAD", 16, lambda event, side: events.append((event.kind, side)), shown.append
    )
    before = run.listener("before")
    before(HarnessEvent("scenario-start", "happy", 0.0))
    before(HarnessEvent("response", "happy", 1.0, text="#1 p1 POST /charge"))
    run.listener("after")(HarnessEvent("scenario-start", "first-503", 0.0))
    assert events == [("scenario-start", "before"), ("response", "before"), ("scenario-start", "after")]
    assert [(p.scenarios_started, p.current) for p in shown] == [(1, "before happy"), (2, "after first-503")]
    text = shown[-1].text(shown[-1].started + 2.5)
    assert text == "▶ before/after: draft → HEAD · after first-503 (2/16) · 2.5 s · escape cancels"


def test_the_written_log_holds_the_lines_and_the_before_after_table():
    change = compare.Change("first-503", "double-charge", "ok", "2 req · 2 keys", "2 req · 1 key", "fixed")
    # The suites are not written: only the labels and what changed.
    draft, head = runs.Target("a" * 40, "draft aaaaaaa"), runs.Target("b" * 40, "HEAD bbbbbbb")
    comparison = runs.Comparison(draft, head, None, None, [change])  # type: ignore[arg-type]
    path = runs.write_log("ben-larsen", "b" * 40, ["── suite ──", "line"], comparison)
    assert path.parent == paths.logs_dir() and path.name.startswith(f"ben-larsen-{'b' * 12}-")
    assert path.read_text().splitlines() == [
        "── suite ──",
        "line",
        "",
        "before/after: draft aaaaaaa → HEAD bbbbbbb",
        "  first-503      double-charge    ok               double-charge → ok",
    ]
