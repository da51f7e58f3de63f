"""The keys a tig or lazygit user tries first, and what they now do: g/G and Home/End move to the
first and last triage row (never sideways), q on a submission closes it back to triage, j/k move in
the scenario picker, S takes the room side by side needs at 160×48, and leaving after a refused F
asks nothing when nothing would be written. Pilot on the real app and real repositories."""

from __future__ import annotations

from helpers import open_submission, reading_submission, settle, wait_until
from review.harness.scenarios import SCENARIOS
from review.tui.app import ReviewApp
from review.tui.modals.leave import LeaveScreen
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.submission.screen import SubmissionScreen
from review.tui.widgets.diff.view import DiffView
from review.tui.widgets.stub_log.scenario_picker import ScenarioPicker


async def test_g_G_home_and_end_move_to_the_first_and_last_row_and_the_names_stay_on_screen(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CohortScreen)
        table = screen.table
        await wait_until(pilot, lambda: table.row_count == 8)
        await pilot.press("G")
        assert table.cursor_row == 7
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("end")
        assert table.cursor_row == 7 and table.scroll_x == 0
        await pilot.press("home")
        assert table.cursor_row == 0 and table.scroll_x == 0
        # Sideways and back: home brings the Candidate column back too.
        table.scroll_to(x=table.max_scroll_x, animate=False, immediate=True)
        await pilot.press("end", "home")
        await pilot.pause()
        assert table.scroll_x == 0


async def test_q_on_a_submission_closes_it_and_q_on_triage_quits(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("q")
        await settle(app, pilot)
        assert isinstance(app.screen, CohortScreen) and app.is_running
        await pilot.press("q")
        await settle(app, pilot)
    assert not app.is_running


async def test_j_and_k_move_in_the_scenario_picker(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("5", "s")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        options = app.screen.query_one("#picker-options")
        first = options.highlighted
        await pilot.press("j", "j")
        assert options.highlighted == first + 2
        await pilot.press("k")
        assert options.highlighted == first + 1
        await pilot.press("escape")


async def test_side_by_side_at_160x48_takes_the_file_lists_columns_and_gives_them_back(tmp_path):
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_submission(app, pilot, "reader")
        view = screen.query_one(DiffView)
        files = screen.query_one("#diff-files-box")
        # Zoomed first, as the reviewer had it: the file list is beside the diff.
        await pilot.press("1", "z")
        await settle(app, pilot)
        assert screen.zoomed and files.display and not files.has_class("hidden")
        await pilot.press("S")
        await wait_until(pilot, lambda: view.paired)
        assert files.has_class("hidden")
        header = " ".join(str(screen.query_one("#diff-range").render()).split())
        assert "side by side needs" not in header
        await pilot.press("S")
        await wait_until(pilot, lambda: not view.paired and not files.has_class("hidden"))


async def test_leaving_after_a_refused_final_asks_nothing_when_nothing_would_be_written(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        screen.scoring.AUTOSAVE_SECONDS = 60
        # Final asked for with no tier and the note unread: refused, a save would write nothing.
        await pilot.press("4", "F", "escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, LeaveScreen)
        assert isinstance(app.screen, CohortScreen)
        assert not (sample_cohort / "chen-wei.review.toml").exists()
        # A change the save would write still asks.
        await open_submission(app, pilot, "chen-wei")
        app.screen.scoring.AUTOSAVE_SECONDS = 60
        await pilot.press("4", "w", "F", "escape")
        await settle(app, pilot)
        assert isinstance(app.screen, LeaveScreen)
        await pilot.press("d")
        await settle(app, pilot)
        assert not isinstance(app.screen, SubmissionScreen)


async def test_at_160x48_a_long_failure_mode_label_is_shown_whole(sample_cohort):
    from helpers import screen_text
    from review.tui.widgets.rubric_form import FlagBox

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        await pilot.press("4")
        box = screen.query_one("#flag-deleted-model-work", FlagBox)
        box.scroll_visible(animate=False)
        await settle(app, pilot)
        region = box.region
        rows = screen_text(app)[region.y : region.bottom]
        shown = " ".join(" ".join(row[region.x : region.right].strip("▊▎ ") for row in rows).split())
        assert "a full rewrite that also drops the backoff" in shown


async def test_the_scenario_picker_says_which_scenario_enter_runs(sample_cohort):
    """The highlight is only a colour, and the picker opens on the first fault (first-503), not the
    top: it says in words what enter runs, so a reviewer counting rows runs the one they read."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("5", "s")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        picker = app.screen
        names = [scenario.name for scenario in SCENARIOS]

        def hint() -> str:
            return str(picker.query_one("#picker-hint").render())

        first = names.index("first-503")
        await wait_until(pilot, lambda: hint() == f"enter runs {names[first]} · escape closes")
        await pilot.press("j", "j", "j")
        await wait_until(pilot, lambda: hint() == f"enter runs {names[first + 3]} · escape closes")
        await pilot.press("escape")
