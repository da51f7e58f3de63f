"""The scenarios are one table in the core: every row has every field, and every scenario shows in every
view — the triage marks and legend, the stub log, `review harness --json` — with nothing else to edit."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil

import pytest

from helpers import open_submission, settle, wait_until
from review.core import scenarios, triage

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


def test_every_scenario_has_every_field():
    names = [scenario.name for scenario in scenarios.SCENARIOS]
    assert len(set(names)) == len(names) and len(names) == 8
    shorts = [scenario.short for scenario in scenarios.SCENARIOS]
    assert len(set(shorts)) == len(shorts)
    for scenario in scenarios.SCENARIOS:
        for field in dataclasses.fields(scenario):
            value = getattr(scenario, field.name)
            assert value is not None and value != "", (scenario.name, field.name)
        for flag in ("retries", "rejects", "checks_backoff", "starter_stub_line"):
            assert isinstance(getattr(scenario, flag), bool), (scenario.name, flag)
        assert isinstance(scenario.plan.first, scenarios.Fault) and isinstance(scenario.plan.every, scenarios.Fault)
        assert scenario.calls and scenario.processes >= 1 and scenario.limit_s > 0
        assert scenarios.BY_NAME[scenario.name] is scenario
    # The task's own scenario is one.
    assert [s.name for s in scenarios.SCENARIOS if s.starter_stub_line] == ["first-503"]


def test_the_triage_marks_and_legend_follow_the_table():
    for index, scenario in enumerate(scenarios.SCENARIOS):
        marks = triage.marks({scenario.name: "double-charge"})
        assert marks[index] == triage.BAD and marks.count(triage.NOT_RUN) == len(scenarios.SCENARIOS) - 1
        assert f"{scenario.short} {triage.BAD} double-charge" in triage.spelled_marks({scenario.name: "x"}).replace(
            " x", " double-charge"
        )
    assert triage.legend().split(" ") == [scenario.short for scenario in scenarios.SCENARIOS]


@needs_node
def test_every_scenario_runs_and_shows_in_harness_json_the_stub_log_and_the_triage_row(sample_cohort, capsys):
    from review.cli import main

    names = [scenario.name for scenario in scenarios.SCENARIOS]
    # The suite, from the command line (and cached, as a full suite is).
    assert main(["harness", str(sample_cohort / "chen-wei"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [result["name"] for result in document["scenarios"]] == names
    assert all(result["verdict"] == "ok" for result in document["scenarios"])
    asyncio.run(shown_in_the_console(sample_cohort, names))


async def shown_in_the_console(sample_cohort, names: list[str]) -> None:
    from textual.widgets import OptionList

    from review.tui.app import ReviewApp
    from review.tui.widgets.stub_log.log import StubLog
    from review.tui.widgets.stub_log.scenario_picker import ScenarioPicker

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        row = app.screen.rows["chen-wei"]
        assert list(row.scenarios) == names
        assert str(app.screen.table.get_cell("chen-wei", "runs")) == triage.OK * len(names)
        screen = await open_submission(app, pilot, "chen-wei")
        log = screen.query_one(StubLog)
        # The earlier run's lines: every scenario's, in order.
        firsts = [next(i for i, line in enumerate(log.raw_lines) if f"] {name}: start" in line) for name in names]
        assert firsts == sorted(firsts)
        await pilot.press("5", "s")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker), timeout=10)
        options = app.screen.query_one(OptionList)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == names
