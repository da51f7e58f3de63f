"""Keys that arrive in one burst (a fast typist over SSH, a terminal's one read) are applied in the
order they came: backspace and the arrows in a text box do not wait behind the characters after them."""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea

from helpers import open_filter, open_submission, wait_until
from review.tui.app import ReviewApp
from review.tui.widgets.rubric_form import RubricForm


def burst(app, keys: list[str]) -> None:
    """Every key posted at once, none waited for: as a terminal read of several keys hands them over."""
    for key in keys:
        character = key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


async def test_backspace_in_a_burst_takes_the_character_before_it(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        box = await open_filter(app, pilot)
        burst(app, ["c", "h", "x", "backspace", "e", "n", "left", "left", "backspace", "c"])
        # c h x ⌫ e n → "chen"; ← ← puts the cursor after "ch", ⌫ takes the h, c types in its place.
        # Keys out of order never reach this text: the wait fails.
        await wait_until(pilot, lambda: box.value == "ccen")


async def overall_comment(app, pilot, written: str = "") -> RubricForm:
    """ben-larsen's rubric with `written` in its overall comment, `o` pressed to write in it."""
    screen = await open_submission(app, pilot, "ben-larsen")
    form = screen.query_one(RubricForm)
    if written:
        form.overall.load_text(written)
    await pilot.press("4", "o")
    await wait_until(pilot, lambda: isinstance(app.focused, TextArea))
    return form


async def test_a_burst_in_the_overall_comment_keeps_its_order(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await overall_comment(app, pilot)
        burst(app, ["a", "b", "backspace", "c", "d", "backspace", "backspace", "e"])
        await wait_until(pilot, lambda: form.overall.text == "ae")


async def test_o_on_a_review_with_an_overall_comment_writes_after_it(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        form = await overall_comment(app, pilot, "Solid start but")
        await pilot.press(*" misses restarts")
        assert form.overall.text == "Solid start but misses restarts"


async def test_backspace_on_a_flag_clears_it_and_stays(sample_cohort):
    """⌫ clears on a flag as on a signal: it does not leave the submission from inside the rubric."""
    from review.tui.screens.submission.screen import SubmissionScreen

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        form = screen.query_one(RubricForm)
        flag = next(iter(form.flag_boxes.values()))
        flag.focus()
        await pilot.press("space")
        await wait_until(pilot, lambda: flag.value)
        await pilot.press("backspace")
        # Cleared by the flag's own binding: no Back is left to run after it.
        await wait_until(pilot, lambda: not flag.value)
        assert isinstance(app.screen, SubmissionScreen) and app.focused is flag
