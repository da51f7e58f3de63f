"""A suite kept with a hang seen while the machine was loaded, in the console: the triage row's
detail, the submission's rubric line, the stub log, the Commits pane and the scenario picker all show
that one result and say the hang in words with the load; a console opened on the still loaded machine
runs nothing again. The real app, real node, the real gateway; the load as loaded_machine sets it."""

from __future__ import annotations

import shutil

import pytest

from helpers import open_submission, settle, wait_until
from loaded_machine import candidate, loaded_words, machine
from review import gitsafe
from review.harness import cache, runner
from review.tui.app import ReviewApp
from review.tui.widgets.rubric_form import SignalRow

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


async def test_every_pane_shows_the_kept_hang_under_load_in_words(tmp_path, monkeypatch):
    set_load = machine(tmp_path, monkeypatch)
    set_load(50)
    cohort_dir = tmp_path / "cohort"
    repo = gitsafe.open_submission(candidate(cohort_dir))
    suite = await runner.run_suite(repo)
    cores = next(s for s in suite.scenarios if s.name == "timeout").cores or 0
    words = loaded_words(cores)
    stamp = cache.stamp(repo.head)
    app = ReviewApp(cohort_dir, run_harness=True, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await wait_until(pilot, lambda: screen.rows["ada"].scenarios is not None)
        assert str(screen.table.get_cell("ada", "runs")) != "—"
        assert "to run" not in str(screen.query_one("#triage-title").render())
        detail = " ".join(str(screen.query_one("#triage-detail").render()).split())
        assert f"timeout {words}; r in the stub log runs it again" in detail, detail

        opened = await open_submission(app, pilot, "ada")
        key_scope = next(row for row in opened.query(SignalRow) if row.signal.id == "key-scope")
        said = [hint.text for hint in key_scope.hints]
        assert f"timeout: {words}; r in the stub log runs it again" in said, said
        assert any(words in line for line in opened.stub_log.raw_lines), opened.stub_log.raw_lines[-5:]
        assert words in opened.stub_log.last_verdicts["timeout"]
        suite_cell = " ".join(str(opened.commits_table.get_cell(repo.head, "suite")).split())
        assert f"(timeout {words}; r in the stub log runs it again)" in suite_cell, suite_cell
    # Nothing ran again on the loaded machine.
    assert cache.stamp(repo.head) == stamp
