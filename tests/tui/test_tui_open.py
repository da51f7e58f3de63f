"""Opening a submission from triage: what the first frame shows, and what answers before the panes
off screen are mounted."""

from __future__ import annotations

import contextlib
import gc
from pathlib import Path

from textual import events

from helpers import open_submission, settle, wait_until
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.submission.deferred import DeferredPanes
from review.tui.screens.submission.screen import SubmissionScreen
from review.tui.widgets.diff.view import DiffView
from review.tui.widgets.rubric_form import RubricForm
from review.tui.widgets.stub_log.log import StubLog


async def rest_on(app, pilot, name: str):
    """The cursor on `name`'s row until the console has read that submission ahead."""
    await settle(app, pilot)
    screen = app.screen
    screen.table.move_cursor(row=screen.table.get_row_index(name))
    row = screen.rows[name]
    await wait_until(pilot, lambda: app.screen.session.last_opened(Path(row.path), row.head) is not None)
    return screen, row


async def test_a_submission_read_ahead_has_its_diff_in_the_screens_first_frame(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        cohort, row = await rest_on(app, pilot, "ben-larsen")
        made = sum(cohort.session.analyses_made.values())
        # Diff rows on screen in each frame handed to the terminal.
        frames: list[int] = []
        display = app._display

        def seen(screen, renderable) -> None:
            if isinstance(screen, SubmissionScreen) and renderable is not None:
                frames.append(len(screen.query_one(DiffView).rows) if screen.query(DiffView) else 0)
            display(screen, renderable)

        # What the terminal would be sent, not a change of behaviour.
        app._display = seen
        # Was garbage collection on when the screen mounted? (held for its first frame)
        collecting: list[bool] = []
        mounted = SubmissionScreen.on_mount

        def on_mount(self) -> None:
            collecting.append(gc.isenabled())
            mounted(self)

        SubmissionScreen.on_mount = on_mount  # type: ignore[method-assign]
        try:
            await pilot.press("enter")
            await settle(app, pilot)
        finally:
            SubmissionScreen.on_mount = mounted  # type: ignore[method-assign]
        screen = app.screen
        assert isinstance(screen, SubmissionScreen)
        # The diff, not "reading the submission…"
        assert frames and frames[0] > 2, frames
        # Held for the first frame, and given back.
        assert collecting == [False] and gc.isenabled()
        # Opened from what triage read.
        assert sum(cohort.session.analyses_made.values()) == made
        assert screen.analysis is cohort.session.last_opened(Path(row.path), row.head)
        # The panes off screen at 80×24 were mounted after that frame and filled all the same.
        assert screen.panes_ready and screen.query(RubricForm) and screen.query(StubLog)
        await pilot.press("4")
        assert screen.focused is not None and any(isinstance(n, RubricForm) for n in screen.focused.ancestors)


async def test_escape_before_the_panes_off_screen_are_mounted_goes_back_to_triage(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        cohort, row = await rest_on(app, pilot, "ben-larsen")
        screen = SubmissionScreen(cohort.context, row, cohort.rubric)
        await app.push_screen(screen)
        scores = sample_cohort / "ben-larsen.review.toml"
        before = scores.read_bytes() if scores.exists() else None
        # The first frame is not even drawn yet.
        assert not screen.panes_ready and not screen.query(StubLog)
        assert screen.check_action("back", ()) and not screen.check_action("save", ())
        assert not screen.check_action("pane", ("rubric",))
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, CohortScreen)
        assert (scores.read_bytes() if scores.exists() else None) == before


@contextlib.contextmanager
def panes_mounted_when_told():
    """A submission screen opened meanwhile mounts its panes off screen only when the test calls
    `deferred.mount()`, so the keys typed before surely come before it."""
    mount = DeferredPanes.mount

    async def later(self) -> None:
        pass

    DeferredPanes.mount = later  # type: ignore[method-assign]
    try:
        yield
    finally:
        DeferredPanes.mount = mount  # type: ignore[method-assign]


async def test_keys_typed_before_the_panes_are_mounted_are_kept_and_replayed_in_order(sample_cohort):
    """Enter, then 4 at once: the rubric gets focus once it is mounted, and the tier typed lands in it."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        cohort, row = await rest_on(app, pilot, "ben-larsen")
        with panes_mounted_when_told():
            screen = SubmissionScreen(cohort.context, row, cohort.rubric)
            await app.push_screen(screen)
            # The rubric, then Strong on its first signal.
            await pilot.press("4", "s")
            await settle(app, pilot)
            assert not screen.panes_ready and [key.key for key in screen.deferred.typed_ahead] == ["4", "s"]
        await screen.deferred.mount()
        await wait_until(pilot, lambda: screen.panes_ready and not screen.deferred.typed_ahead)
        await settle(app, pilot)
        assert screen.focused is not None and any(isinstance(n, RubricForm) for n in screen.focused.ancestors)
        assert list(screen.query_one(RubricForm).values()["tiers"].values()) == ["strong"]


async def test_a_submission_not_read_ahead_shows_its_diff_before_its_lines_are_attributed(sample_cohort):
    from review.services.session import Session

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        cohort = app.screen
        row = cohort.rows["ben-larsen"]
        # Nothing read in this console yet: the screen opened next asks a session of its own.
        fresh = app.context.session = Session(sample_cohort)
        screen = SubmissionScreen(app.context, row, cohort.rubric)
        await app.push_screen(screen)
        await settle(app, pilot)
        assert screen.analysis is not None and sum(fresh.analyses_made.values()) == 1
        # Painted as parsed, then marked in place.
        assert screen.previewed is screen.analysis.diff
        view = screen.query_one(DiffView)
        assert view.diff is screen.analysis.diff and any(row.line and row.line.tool for row in view.rows)
        header = " ".join(str(screen.query_one("#diff-range").render()).split())
        assert "reading which lines" not in header and "AI-attributed" in header


async def test_a_head_moved_since_triage_is_the_one_the_screen_shows_and_names(sample_cohort):
    from helpers import git

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        # Read ahead at the HEAD triage saw.
        cohort, row = await rest_on(app, pilot, "ben-larsen")
        ben = sample_cohort / "ben-larsen"
        git("checkout", "-q", "main", cwd=ben)
        (ben / "later.mjs").write_text("export const later = 1;\n")
        git("add", "-A", cwd=ben)
        git("commit", "-qm", "Later", cwd=ben)
        moved = git("rev-parse", "HEAD", cwd=ben).strip()
        assert moved != row.head
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, SubmissionScreen) and screen.analysis is not None
        assert screen.analysis.head == moved and screen.query_one(DiffView).diff is screen.analysis.diff
        assert "later.mjs" in {f.path for f in screen.analysis.diff.files}
        assert moved[:12] in str(screen.query_one("#submission-title").render())
        assert (row.head or "")[:12] not in str(screen.query_one("#submission-title").render())


def typed(app, key: str) -> None:
    """A key as the terminal sends it: into the app's queue, behind whatever is there already."""
    event = events.Key(key, key)
    event.set_sender(app)
    app.post_message(event)


def record_jobs(screen) -> list[str]:
    """The jobs the stub log's keys ask the screen for (what `r` asked, whatever runs it)."""
    asked: list[str] = []
    screen.runs.asked = lambda message: asked.append(message.job)
    return asked


async def test_5_then_r_typed_while_the_panes_are_being_mounted_runs_the_suite(sample_cohort):
    """In tmux: Enter, 5 at once, r 0.15 s later. The 5 is kept (the stub log is not mounted yet); the
    r arrives while the panes are being mounted, and used to be let through ahead of the 5 it followed,
    to the diff, where it did nothing: the log was shown and no suite started."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        cohort, row = await rest_on(app, pilot, "ben-larsen")
        with panes_mounted_when_told():
            screen = SubmissionScreen(cohort.context, row, cohort.rubric)
            await app.push_screen(screen)
            await pilot.press("5")
            await settle(app, pilot)
            assert [key.key for key in screen.deferred.typed_ahead] == ["5"]
        asked = record_jobs(screen)
        # The mounting runs on the app's own queue; the r is queued behind it, so it arrives when the
        # panes are mounted and the 5 is about to be replayed.
        app.call_later(screen.deferred.mount)
        typed(app, "r")
        await wait_until(pilot, lambda: screen.panes_ready and not screen.deferred.typed_ahead, timeout=30)
        await settle(app, pilot)
        assert screen.active_pane == "log" and screen.focus_in("log")
        assert asked == ["suite"]


async def test_a_key_queued_behind_a_pane_key_goes_to_that_pane(sample_cohort):
    """A busy console (the panes being filled, a save) reads 5 and r from the terminal together: the
    r is queued before the focus the 5 moves has moved (Textual moves it on a callback), and used to
    land in the diff."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        asked = record_jobs(screen)
        for key in ("5", "r"):
            typed(app, key)
        await settle(app, pilot)
        assert screen.focus_in("log") and asked == ["suite"]
        # The rubric, then a tier, typed together: the tier lands on the first signal.
        for key in ("4", "s"):
            typed(app, key)
        await settle(app, pilot)
        assert screen.form.values()["tiers"] == {"found-defect": "strong"}
