"""Who wrote each line, end to end: `review triage` on a cohort whose submissions only each tool's own
rules tell apart, and the console driven with Pilot — the triage detail and the marks in the diff."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import attribution_cohort, open_submission, settle
from review.tui.app import ReviewApp
from review.tui.widgets.diff.view import DiffView


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    return attribution_cohort(tmp_path_factory.mktemp("attribution") / "cohort")


def review(*argv: str) -> str:
    return subprocess.run([sys.executable, "-m", "review", *argv], capture_output=True, text=True, check=True).stdout


def test_triage_shows_each_rows_assistants_share_and_disclosure(cohort):
    rows = {row["name"]: row for row in json.loads(review("triage", str(cohort), "--json"))["submissions"]}
    seen = {name: (row["assistants"], row["ai_share"], row["disclosure"]) for name, row in rows.items()}
    assert seen == {
        "aider": (["Aider"], 0.5, "ok"),  # the edits aider only committed are Ann's; the line it wrote is aider's
        "curl": ([], 0.0, "none"),  # Assisted-by naming people
        "legacy": (["Claude Code", "o3"], 0.5, "unmapped"),  # 3 of 6 lines; the maintainer named as a person
        "monkey": (["MonkeyCode"], 1.0, "ok"),
        "readme": ([], 0.0, "none"),  # a README's list of editors names none
        "sentence": (["Claude Code"], 1.0, "ok"),  # a sentence without a heading, over the same trailer
    }
    assert rows["monkey"]["attribution"]["unknown_tools"] == ["MonkeyCode"]
    assert [u["text"] for u in rows["legacy"]["attribution"]["unmapped"]] == [
        "Claude and o3 wrote parts; git-ai recorded which."
    ]
    text = review("triage", str(cohort))
    assert "assistants: MonkeyCode (not a known tool)" in text and "assistants: Claude Code, o3" in text


async def test_the_console_marks_the_lines_each_tool_wrote(cohort):
    app = ReviewApp(cohort, run_harness=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        table = app.screen.table
        table.move_cursor(row=table.get_row_index("monkey"))
        await pilot.pause()
        assert "assistants: MonkeyCode (not a known tool)" in str(app.screen.query_one("#triage-detail").render())
        marks = {}
        for name in ("monkey", "aider", "legacy", "sentence"):
            screen = await open_submission(app, pilot, name)
            diff = screen.query_one(DiffView).diff
            marks[name] = {
                line.new_no: line.tool for line in diff.file("checkout.mjs").hunks[0].lines if line.kind == "+"
            }
            await pilot.press("escape")
            await settle(app, pilot)
        assert marks == {
            "monkey": {1: "MonkeyCode"},
            "aider": {1: None, 2: "Aider"},
            "legacy": {1: None, 2: "Claude Code", 3: "Claude Code", 4: "o3", 5: None, 6: None},
            "sentence": {1: "Claude Code", 2: "Claude Code", 3: "Claude Code"},
        }
