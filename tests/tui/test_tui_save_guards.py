"""What a save must not do behind the reviewer's back: record a final of a commit the submission has
moved on from while its screen was open, or write an autosave behind the leave question the reviewer
then answers "go without saving". Pilot on the real app, real repositories and score files."""

from __future__ import annotations

import tomllib

from helpers import git, open_submission, settle, wait_until, workers_done
from review.tui.app import ReviewApp
from review.tui.modals.leave import LeaveScreen
from review.tui.screens.cohort import CohortScreen
from review.tui.widgets.rubric_form import RubricForm


def entries(path):
    return tomllib.loads(path.read_text())["reviews"]


async def score_every_signal(pilot):
    await pilot.press("4")
    for key in "saws":
        await pilot.press(key, "down")
    await pilot.press("a")


async def test_a_commit_made_while_the_submission_is_open_is_said_and_a_final_of_the_old_one_refused(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "eve-santos")
        old = screen.score_session.head
        assert old is not None
        # The note on screen, every signal given a tier: a final would be written as asked.
        await pilot.press("2")
        await score_every_signal(pilot)
        form = screen.query_one(RubricForm)
        assert form.missing() == []

        repo = sample_cohort / "eve-santos"
        with (repo / "checkout.mjs").open("a") as code:
            code.write("// v2\n")
        git("commit", "-qam", "v2", cwd=repo)
        new = git("rev-parse", "HEAD", cwd=repo).strip()
        assert new != old

        # Triage's folder watch (once a second) tells the open screen: in the rubric's header and the title.
        header = form.header

        await wait_until(pilot, lambda: f"HEAD moved to {new[:7]}" in str(header.render()), timeout=90)
        said = str(header.render())
        assert f"this review is of {old[:7]}" in said and "reopen" in said
        assert f"HEAD now {new[:7]}" in str(screen.title_bar.render())

        # F then ctrl+s: not a final of the old commit; a draft, saying why and how to review the new one.
        await pilot.press("F")
        await wait_until(pilot, lambda: "will save as DRAFT: final refused" in str(header.render()), timeout=30)
        assert f"HEAD moved to {new[:7]} since this screen opened" in str(header.render()).split("final refused")[1]
        await pilot.press("ctrl+s")
        # Written as a draft, or nothing new when the autosave already wrote these values as one: either
        # way the save's answer says final was refused, and why.
        await wait_until(
            pilot,
            lambda: form.status.startswith(("saved draft", "nothing to save")) and not screen.score_session.saving,
            timeout=60,
        )
        assert f"final refused — HEAD moved to {new[:7]}" in form.status and "reopen" in form.status
        [entry] = entries(sample_cohort / "eve-santos.review.toml")
        assert entry["state"] == "draft" and entry["commit"] == old
        # Still said after the save.
        assert f"HEAD moved to {new[:7]}" in str(header.render())

        # Reopened, it reviews the new commit, and a final is written as asked.
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, CohortScreen)
        screen = await open_submission(app, pilot, "eve-santos")
        assert screen.score_session.head == new and "HEAD moved" not in str(screen.form.header.render())


async def nothing_to_autosave(app, pilot, screen):
    """The question is up: no autosave is scheduled behind it and no save is under way (the state that
    makes the file stay as it was, waited for rather than a few autosave pauses of wall time)."""
    await wait_until(pilot, lambda: screen.scoring.asking and screen.scoring.autosave_timer is None, timeout=30)
    await workers_done(app, pilot)


async def test_go_without_saving_leaves_the_file_as_it_was_when_asked_and_staying_autosaves(sample_cohort):
    path = sample_cohort / "ada-okafor.review.toml"
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        screen.scoring.AUTOSAVE_SECONDS = 0.2
        form = screen.query_one(RubricForm)
        await pilot.press("4", "s", "ctrl+s")
        await wait_until(pilot, lambda: path.exists() and not form.dirty, timeout=60)
        await settle(app, pilot)
        before = path.read_bytes()

        # A tier, then q at once: the question is up, and nothing is written behind it.
        await pilot.press("down", "a", "q")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveScreen), timeout=30)
        await nothing_to_autosave(app, pilot, screen)
        assert path.read_bytes() == before
        # Stay: the change is autosaved as before.
        await pilot.press("escape")
        await wait_until(pilot, lambda: entries(path)[0]["tiers"].get("key-scope") == "acceptable", timeout=60)
        await wait_until(pilot, lambda: not form.dirty, timeout=30)

        before = path.read_bytes()
        await pilot.press("down", "w", "q")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveScreen), timeout=30)
        await nothing_to_autosave(app, pilot, screen)
        await pilot.press("d")
        await settle(app, pilot)
    assert not app.is_running
    assert path.read_bytes() == before
    assert "evidence" not in entries(path)[0]["tiers"]


async def test_ctrl_c_then_go_without_saving_writes_nothing(sample_cohort):
    path = sample_cohort / "dev-patel.review.toml"
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "dev-patel")
        screen.scoring.AUTOSAVE_SECONDS = 0.2
        await pilot.press("4", "w", "ctrl+c")
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveScreen), timeout=30)
        await nothing_to_autosave(app, pilot, screen)
        assert not path.exists()
        await pilot.press("d")
        await settle(app, pilot)
    assert not app.is_running
    assert not path.exists()


async def test_an_autosave_that_rewrites_a_final_review_says_so(sample_cohort):
    path = sample_cohort / "chen-wei.review.toml"
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        screen.scoring.AUTOSAVE_SECONDS = 0.2
        form = screen.query_one(RubricForm)
        await pilot.press("2")
        await score_every_signal(pilot)
        await pilot.press("F", "ctrl+s")
        await wait_until(pilot, lambda: "saved final" in form.status and not screen.score_session.saving, timeout=60)
        revision = entries(path)[0]["revision"]
        # An edit to the final review: autosaved as final, and said.
        await pilot.press("w")
        await wait_until(pilot, lambda: "this rewrote your FINAL review" in form.status, timeout=60)
        [entry] = entries(path)
        assert entry["state"] == "final" and entry["revision"] > revision and entry["tiers"]["blast-radius"] == "weak"
