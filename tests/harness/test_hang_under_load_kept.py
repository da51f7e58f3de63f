"""A suite that ran is evidence and is kept, a hang seen while the machine was loaded too: every view
(`review show`, the triage row, the submission's rubric line, before/after) reads the same kept result
and says the hang in words with the load it was seen under; the background harness runs it again
only once the machine is quiet, and a hang on a quiet machine is still `hung`.

Real node, the real gateway, real git repos; the machine's load as loaded_machine sets it.
"""

from __future__ import annotations

import asyncio
import csv
import io
import shutil

import pytest

from conftest import BWRAP_WORKS
from loaded_machine import candidate, loaded_words, machine
from review import gitsafe
from review.cli import main
from review.harness import cache, runner
from review.services import cohort, evidence_document, runs

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


def test_a_hang_under_load_is_kept_and_every_view_says_it_in_words(tmp_path, monkeypatch, capsys):
    set_load = machine(tmp_path, monkeypatch)
    set_load(50)
    path = candidate(tmp_path / "cohort")
    repo = gitsafe.open_submission(path)
    suite = asyncio.run(runner.run_suite(repo))
    timeout = next(s for s in suite.scenarios if s.name == "timeout")
    assert timeout.verdict == "hung" and timeout.hung_under_load, (timeout.reasons, timeout.log)
    cores = timeout.cores
    assert cores and timeout.load_average == 50

    # Kept, with the machine it saw.
    kept = cache.cached_suite(repo.head)
    assert kept is not None and [s.hung_under_load for s in kept.scenarios] == [
        s.hung_under_load for s in suite.scenarios
    ]
    # The triage row.
    (row,) = cohort.triage(tmp_path / "cohort")
    assert row.scenarios and row.scenarios["timeout"] == "hung"
    # The row's summary says what was seen; each view adds its own way to run it again.
    assert f"timeout {loaded_words(cores)}" in (row.harness or "") and "again" not in (row.harness or ""), row.harness
    # `review triage`, its row's detail.
    assert main(["triage", str(tmp_path / "cohort")]) == 0
    listed = " ".join(capsys.readouterr().out.split())
    assert f"timeout {loaded_words(cores)}; `review harness` runs it again" in listed, listed
    # `review show`.
    assert main(["show", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "no suite is cached" not in shown
    assert f"timeout: {loaded_words(cores)}" in " ".join(shown.split()), shown
    # Headless, it names the command that runs it again: r acts only in the console.
    assert "`review harness` runs it again" in shown and "r in the stub log" not in shown, shown
    # `review export`'s scenario columns, for a submission no one has scored yet.
    assert main(["export", str(tmp_path / "cohort"), "--format", "csv"]) == 0
    reviews = capsys.readouterr().out.partition("\r\n\r\n")[0]
    (exported,) = csv.DictReader(io.StringIO(reviews))
    assert exported["scenario:timeout"] == f"{loaded_words(cores)}; `review harness` runs it again"
    assert exported["scenario:happy"] == "ok"
    # The submission's rubric line (the same document the screen's rubric form shows).
    document = evidence_document.show(path)
    key_scope = next(s for s in document.sections if s.id == "key-scope")
    said = [hint.text for hint in key_scope.hints]
    assert f"timeout: {loaded_words(cores)}; r in the stub log runs it again" in said, said
    assert not any("has not run on this commit" in text for text in said), said


@pytest.mark.skipif(not BWRAP_WORKS, reason="the background harness runs only under bubblewrap")
def test_the_background_harness_runs_a_hang_under_load_again_only_once_the_machine_is_quiet(tmp_path, monkeypatch):
    set_load = machine(tmp_path, monkeypatch)
    set_load(50)
    path = candidate(tmp_path / "cohort")
    repo = gitsafe.open_submission(path)
    asyncio.run(runner.run_suite(repo))
    stamp = cache.stamp(repo.head)

    # Still loaded: the kept result stands, nothing runs.
    (row,) = cohort.triage(tmp_path / "cohort")
    assert row.hung_under_load and not cohort.needs_suite(row)
    asyncio.run(cohort.fill_harness([row]))
    assert cache.stamp(repo.head) == stamp and "on a loaded machine" in (row.harness or "")

    # Quiet: it runs again, once, even when the machine is loaded again by the time it runs (queued as
    # the console queues it).
    set_load(0)
    assert cohort.needs_suite(row)
    row.harness = cohort.QUEUED
    set_load(50)
    asyncio.run(cohort.fill_harness([row]))
    assert cache.stamp(repo.head) != stamp and "on a loaded machine" in (row.harness or "")
    set_load(0)
    assert not cohort.needs_suite(row)

    # `r` always runs it again, and replaces it: a hang on a quiet machine is still `hung`, without the words.
    asyncio.run(runner.run_suite(repo))
    (row,) = cohort.triage(tmp_path / "cohort")
    assert row.scenarios and row.scenarios["timeout"] == "hung"
    assert not row.hung_under_load and "on a loaded machine" not in (row.harness or ""), row.harness
    assert not cohort.needs_suite(row)


def test_before_after_after_a_run_reuses_the_kept_result_of_head(tmp_path, monkeypatch):
    set_load = machine(tmp_path, monkeypatch)
    set_load(50)
    path = candidate(tmp_path / "cohort")
    repo = gitsafe.open_submission(path)
    head = runs.Target(repo.head, "HEAD")
    draft = runs.Target(repo.resolve("HEAD~1"), "draft")
    events: list[tuple[str, str, str]] = []

    def job(name: str) -> runs.Run:
        return runs.Run(name, 0, lambda event, side: events.append((side, event.kind, event.text)), lambda _: None)

    # `r`, then `b`.
    asyncio.run(runs.suite(repo, head, None, job("suite")))
    events.clear()
    comparison = asyncio.run(runs.before_after(repo, draft, head, job("before/after")))
    after = [(kind, text) for side, kind, text in events if side == "after"]
    assert ("info", "HEAD: result of an earlier run") in after, after
    assert not any(kind == "scenario-start" for kind, _ in after), after
    # The draft's side ran.
    assert any(side == "before" and kind == "scenario-start" for side, kind, _ in events)
    assert comparison.after_suite.verdicts["timeout"] == "hung"
