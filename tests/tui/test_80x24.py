"""At 80×24 (tmux over SSH) every line a reviewer needs is readable: nothing ends in a dangling "·",
nothing is cut mid-word at the right edge that matters (the footer's keys, help's binding ids, the
filter's complaint, the attribution under the diff), and triage's runs legend stays on screen."""

from __future__ import annotations

import re

import pytest
from textual.widgets import DataTable, Input

from helpers import open_submission, posted, screen_text, seed_ben_suite, settle
from review.tui.app import ReviewApp
from review.tui.display import join_parts
from review.tui.widgets.triage.cells import LEGEND


def dangling(lines: list[str]) -> list[str]:
    """Lines that end in a "·", or start with one (a stray mark where the line break already separates)."""
    return [line for line in lines if line.endswith(" ·") or line.startswith("·")]


def test_parts_wrap_between_parts_without_a_dot_at_either_end_of_a_line():
    parts = [
        "whole submission (starter → HEAD)",
        "+35 lines",
        "AI-attributed 15 of 17 lines of code (88%)",
        "18 added lines not counted",
        "draft a0db1ca: 15 of its 16 added lines survive at HEAD",
    ]
    for width in range(20, 90):
        lines = join_parts(parts, width).split("\n")
        assert not dangling(lines), width
        assert all(len(line) <= width for line in lines), width
        assert " ".join(lines).replace(" · ", " ").split() == " ".join(parts).split()


def test_one_row_keeps_whole_parts_and_says_the_rest_is_left_out():
    parts = ["8 for ana to score", "8 submissions", "sorted by Candidate", "/home/ana/cohorts/spring"]
    row = join_parts(parts, 60, one_row=True)
    assert row == "8 for ana to score · 8 submissions · sorted by Candidate …"
    assert join_parts(parts, 200, one_row=True) == " · ".join(parts)
    assert len(join_parts(parts, 38, one_row=True)) <= 38


async def test_triage_title_legend_and_footer_fit(sample_cohort):
    seed_ben_suite()
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        # ben-larsen's detail is the longest: runs spelled out, key scope, disclosure.
        await pilot.press("down")
        await settle(app, pilot)
        lines = screen_text(app)
        assert not dangling(lines), lines
        # The title whole: the cohort by its folder's name, nothing left out.
        assert lines[0].strip() == "8 for ana to score · 8 submissions · sorted by Candidate · cohort", lines[0]
        assert LEGEND in "\n".join(lines)
        # The footer shows whole keys, the last one included.
        assert lines[-1].rstrip().endswith("Reverse sort") or lines[-1].rstrip().endswith("Sort column"), lines[-1]


async def test_one_escape_closes_the_filter_and_its_complaint_is_shown_whole(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("slash", *"colour:red")
        await settle(app, pilot)
        shown = "\n".join(screen_text(app))
        assert "not understood: colour:red" in shown and "similar)" in shown  # the last field: shown whole
        await pilot.press("escape")
        await settle(app, pilot)
        box = screen.query_one("#triage-filter", Input)
        assert not box.display or box.has_class("hidden")
        assert screen.filter_text == "" and isinstance(app.focused, DataTable)
        assert "not understood" not in "\n".join(screen_text(app))
        assert screen.table.row_count == 8


async def test_submission_screen_lines_fit(sample_cohort):
    seed_ben_suite()
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        # The first hunk of checkout.mjs: attributed, with a long line under the diff.
        await pilot.press("J")
        await settle(app, pilot)
        lines = screen_text(app)
        assert not dangling(lines), lines
        under = "\n".join(lines)
        assert "AI (GitHub Copilot) per note line 17" in under
        source = str(app.screen.query_one("#diff-source").render())
        # Every word of the attribution line is on screen.
        assert source.split()[-1] in " ".join(lines).split(), (source, lines)
        assert lines[-1].rstrip().endswith("Prev commit"), lines[-1]
        for pane in ("4", "5", "2", "3"):
            await pilot.press(pane)
            await settle(app, pilot)
            lines = screen_text(app)
            assert not dangling(lines), (pane, lines)


async def test_help_shows_the_binding_ids_whole(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("3", "question_mark")
        await settle(app, pilot)
        shown = "\n".join(screen_text(app))
        for binding_id in ("commits.before-after", "commits.timeline", "submission.pane-diff"):
            assert binding_id in shown, shown


async def test_tab_goes_round_the_panes_and_shows_each_in_turn(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        await pilot.press("1")
        seen = []
        for _ in range(5):
            await pilot.press("tab")
            await settle(app, pilot)
            seen.append((screen.active_pane, screen.focus_in(screen.active_pane)))
        assert seen == [("note", True), ("commits", True), ("rubric", True), ("log", True), ("diff", True)]
        await pilot.press("shift+tab")
        await settle(app, pilot)
        assert (screen.active_pane, screen.focus_in("log")) == ("log", True)
        # The tab shown is the pane focused: its keys answer.
        assert "Stub log" in "\n".join(screen_text(app))


async def test_j_and_k_move_through_help_as_the_arrows_do(sample_cohort):
    from textual.widgets import DataTable as Table

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("question_mark", *"jjjj")
        table = app.screen.query_one(Table)
        assert table.cursor_row == 4
        await pilot.press("k")
        assert table.cursor_row == 3
        # end and home (G and g too) reach the last key and come back, the view following.
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == table.row_count - 1 and table.scroll_offset.y > 0
        await pilot.press("g")
        await pilot.pause()
        assert table.cursor_row == 0 and table.scroll_offset.y == 0


def test_a_status_line_past_its_rows_ends_in_an_ellipsis_never_cut_silently():
    parts = [
        "whole submission (starter → HEAD)",
        "+35 lines",
        "AI-attributed 15 of 17 lines of code (88%)",
        "18 added lines not counted",
        "draft a0db1ca: 15 of its 16 added lines survive at HEAD",
        "[W] whitespace-only changes hidden: 4 lines",
        "word marks off",
        "coverage: 12 of 17 lines run",
    ]
    for width in range(30, 90):
        whole = join_parts(parts, width).split("\n")
        lines = join_parts(parts, width, max_rows=3).split("\n")
        assert len(lines) == min(3, len(whole)), width
        assert all(len(line) <= width for line in lines), width
        assert not dangling(lines), width
        if len(whole) > 3:
            assert lines[-1].endswith(" …"), width
        else:
            assert lines == whole


async def test_g_from_the_stub_log_in_tabs_says_the_key_that_reaches_the_next_site(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        await pilot.press("5", "g")
        await pilot.pause()
        # The diff has the keys now, and its g goes to the top: the hint says how to go on from the log.
        said = [n.message for n in posted(app)]
        assert screen.active_pane == "diff" and any(
            "5 goes back to the log, g there: the next site" in m for m in said
        ), said
        assert not any("g again" in m for m in said)
        await pilot.press("5", "g")
        await pilot.pause()
        assert screen.active_pane == "diff"


async def help_lines(app, pilot) -> list[str]:
    """Every line of the help's table as drawn, page by page from its top to its end."""
    from textual.widgets import DataTable as Table

    table = app.screen.query_one(Table)
    lines: list[str] = []
    top = 0
    while True:
        table.scroll_to(y=top, animate=False)
        await pilot.pause()
        shown = screen_text(app)
        lines += shown
        if table.scroll_offset.y >= table.max_scroll_y:
            return lines
        top += table.scrollable_content_region.height // 2


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_help_on_the_diff_shows_every_binding_id_whole_and_each_key_once(sample_cohort, size):
    from review.tui.screens.help import HelpScreen

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=size) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("1", "question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        shown = "\n".join(await help_lines(app, pilot))
        # The table is never wider than the box: nothing is scrolled to the side.
        table = app.screen.query_one(DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        for _group, _keys, _label, binding_ids in app.screen.rows:
            for binding_id in binding_ids.split():
                assert binding_id in shown, (binding_id, shown)
        # One key, one row, in the diff's own group: n is the next match while a search has matches,
        # else the next hunk (both said on its row).
        diff_keys = [keys.split() for group, keys, _label, _ids in app.screen.rows if group == "Diff"]
        assert sum(keys.count("n") for keys in diff_keys) == 1, diff_keys
        assert sum(keys.count("N") for keys in diff_keys) == 1, diff_keys
        (label,) = [label for group, keys, label, _ids in app.screen.rows if group == "Diff" and "n" in keys.split()]
        assert "match" in label and "hunk" in label, label


async def test_the_filter_box_says_its_form_whole_and_f1_lists_every_field(sample_cohort):
    from review.core.triage import FILTER_FIELDS
    from review.tui.screens.help import HelpScreen

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        box = app.screen.query_one("#triage-filter", Input)
        assert app.focused is box
        # The placeholder whole inside the box, with where the fields are listed.
        assert "f1" in box.placeholder
        assert any(line.strip().strip("▊▎▌│ ").strip() == box.placeholder for line in screen_text(app)), screen_text(
            app
        )
        # f1 from the box (? would be typed into it): the help lists every field the filter knows.
        await pilot.press("f1")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        shown = " ".join(" ".join(screen_text(app)).split())
        for field in FILTER_FIELDS:
            assert f"{field}:" in shown, (field, shown)


async def test_the_triage_title_with_a_filter_keeps_its_sort_and_cohort_at_80_columns(sample_cohort):
    """With a filter on, the title still says what is shown, how it is sorted and which cohort, whole."""
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("slash", *"similar:>20", "enter")
        await settle(app, pilot)
        assert screen.filter_text == "similar:>20"
        title = str(screen.query_one("#triage-title").render())
        shown = screen.table.row_count
        assert f"{shown} of 8 match 'similar:>20'" in title, title
        assert "sorted by" in title and title.rstrip().endswith(sample_cohort.name), title
        assert "…" not in title, title


@pytest.mark.parametrize("pane", ["2", "3", "4", "5"])
async def test_help_on_each_submission_pane_shows_every_binding_id_whole_at_80_columns(sample_cohort, pane):
    """The submission's own keys (submission.back, submission.close, ...) beside each pane's: whole."""
    from review.tui.screens.help import HelpScreen

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press(pane, "question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        shown = "\n".join(await help_lines(app, pilot))
        ids = [binding_id for *_, binding_ids in app.screen.rows for binding_id in binding_ids.split()]
        assert "submission.close" in ids or "submission.back" in ids, ids
        for binding_id in ids:
            assert re.search(rf"(^|\s){re.escape(binding_id)}(\s|$)", shown, re.MULTILINE), (binding_id, shown)


async def test_the_footer_behind_the_unsaved_changes_question_offers_none_of_the_screens_keys(sample_cohort):
    """Behind a modal the screen's keys do not act (`s` saves in the question, `n` stays; the footer
    offered them as Strong and No decision), and keys redrawn there were drawn cut at the edge (`^s Sav`).
    Only the help key is left; the keys come back whole with the screen."""
    from helpers import wait_until
    from review.tui.modals.leave import LeaveScreen

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        screen.scoring.AUTOSAVE_SECONDS = 60
        await pilot.press("4", "w")
        await settle(app, pilot)
        before = screen_text(app)[-1]
        assert "s Strong" in before
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveScreen))
        await wait_until(pilot, lambda: screen_text(app)[-1].split() == ["?", "Keys"])
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_until(pilot, lambda: screen_text(app)[-1] == before)
