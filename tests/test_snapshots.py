"""Snapshots, grouped by feature: the submission screen at 80×24 (tabs, as in tmux over SSH) and at
200×50 (every pane side by side), in a dark and a light theme; the diff pane on a hunk."""

from __future__ import annotations

import pytest

from review.tui.app import ReviewApp
from test_tui_diff import open_submission, settle

THEMES = ("review-dark", "review-light")


async def open_ben(pilot):
    await open_submission(pilot.app, pilot, "ben-larsen")
    await pilot.press("n")
    await settle(pilot.app, pilot)


class TestSubmissionScreen:
    @pytest.mark.parametrize("theme", THEMES)
    def test_80x24_diff_tab(self, snap_compare, sample_cohort, theme):
        app = ReviewApp(sample_cohort, theme=theme, run_harness=False, reviewers=("ana",))
        assert snap_compare(app, terminal_size=(80, 24), run_before=open_ben)

    @pytest.mark.parametrize("theme", THEMES)
    def test_200x50_all_panes(self, snap_compare, sample_cohort, theme):
        app = ReviewApp(sample_cohort, theme=theme, run_harness=False, reviewers=("ana",))
        assert snap_compare(app, terminal_size=(200, 50), run_before=open_ben)


class TestRubricPane:
    def test_80x24_rubric_tab_with_a_tier_chosen(self, snap_compare, sample_cohort):
        async def score(pilot):
            await open_ben(pilot)
            await pilot.press("4", "3", "down", "2")
            await settle(pilot.app, pilot)

        app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
        assert snap_compare(app, terminal_size=(80, 24), run_before=score)
