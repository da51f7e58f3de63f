"""Two consoles open on one cohort (two reviewers in two tmux panes): a save in one shows in the
other, on the triage table and in an open rubric form. The console polls once a second (about a
second on a quiet machine); a test waits for the state with a generous deadline, never a count of
polls, so it holds on a loaded machine."""

from __future__ import annotations

import time
import tomllib

import pytest
from test_tui_rubric import score_all

from helpers import open_submission, posted, screen_text, settle
from review.tui.app import ReviewApp
from review.tui.widgets.rubric_form import RubricForm, SignalRow

SEEN_WITHIN = 90.0


async def wait_until(pilots, predicate, timeout: float) -> float:
    started = time.monotonic()
    while not predicate():
        assert time.monotonic() - started < timeout, "not seen in time"
        for pilot in pilots:
            await pilot.pause(0.05)
    return time.monotonic() - started


async def test_a_save_in_one_console_shows_in_the_other(sample_cohort):
    ana = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    bob = ReviewApp(sample_cohort, run_harness=False, reviewers=("bob",))
    async with ana.run_test(size=(120, 40)) as ana_pilot, bob.run_test(size=(120, 40)) as bob_pilot:
        await settle(ana, ana_pilot)
        triage = ana.screen
        assert str(triage.table.get_cell("chen-wei", "others")) == ""
        await open_submission(bob, bob_pilot, "chen-wei")
        await score_all(bob_pilot)
        await bob_pilot.press("ctrl+s")
        await settle(bob, bob_pilot)
        await wait_until(
            [ana_pilot, bob_pilot],
            lambda: str(triage.table.get_cell("chen-wei", "others")) == "bob in review",
            timeout=SEEN_WITHIN,
        )
        assert str(triage.table.get_cell("chen-wei", "mine")) == "new"

        # Ana opens it and sees Bob's draft; Bob finalises it; Ana's open form shows it.
        screen = await open_submission(ana, ana_pilot, "chen-wei")
        others = screen.query_one("#others")
        assert "bob (in review)" in str(others.render())
        await bob_pilot.press("f3", "4", "F", "ctrl+s")
        await settle(bob, bob_pilot)
        await wait_until([ana_pilot, bob_pilot], lambda: "bob (final)" in str(others.render()), timeout=SEEN_WITHIN)
        assert any("bob saved their review of chen-wei: final" in n.message for n in posted(ana))


async def test_the_same_pair_in_two_consoles_gets_the_other_save_into_a_clean_form(sample_cohort):
    first = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana", "bob"))
    second = ReviewApp(sample_cohort, run_harness=False, reviewers=("bob", "ana"))
    async with first.run_test(size=(120, 40)) as one, second.run_test(size=(120, 40)) as two:
        screen = await open_submission(first, one, "ben-larsen")
        await open_submission(second, two, "ben-larsen")
        await score_all(two, "33")
        await two.press("ctrl+s")
        await settle(second, two)
        form = screen.query_one(RubricForm)
        await wait_until([one, two], lambda: form.values()["tiers"].get("key-scope") == "strong", timeout=SEEN_WITHIN)
        assert "saved in another console" in str(screen.query_one("#rubric-status").render())
        # The first console's change is autosaved and reaches the second's clean form; the second's
        # next save builds on it, so neither console's change is lost.
        await one.press("4", "w")
        other = second.screen.query_one(RubricForm)
        await wait_until([one, two], lambda: other.values()["tiers"].get("found-defect") == "weak", timeout=SEEN_WITHIN)
        await two.press("down", "down", "a", "ctrl+s")
        await settle(second, two)
        entry = tomllib.loads((sample_cohort / "ben-larsen.review.toml").read_text())["reviews"][0]
        assert entry["tiers"]["found-defect"] == "weak" and entry["tiers"]["explanation"] == "acceptable"
        await wait_until(
            [one, two], lambda: form.values()["tiers"].get("explanation") == "acceptable", timeout=SEEN_WITHIN
        )


async def two_consoles_of_ana(sample_cohort, pilots_body):
    """Two consoles of the same reviewer on one submission. Neither polls by itself (the test says
    when a console looks at the disk), and neither autosaves (the test says when each saves)."""
    one = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    two = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    for app in (one, two):
        app.WATCH_SECONDS = 3600
    async with one.run_test(size=(120, 40)) as first, two.run_test(size=(120, 40)) as second:
        screens = [await open_submission(app, pilot, "chen-wei") for app, pilot in ((one, first), (two, second))]
        for screen in screens:
            screen.scoring.AUTOSAVE_SECONDS = 60
        await pilots_body((one, first, screens[0]), (two, second, screens[1]))


def entry_on_disk(cohort) -> dict:
    return tomllib.loads((cohort / "chen-wei.review.toml").read_text())["reviews"][0]


async def looks_at_disk(app, pilot) -> None:
    """The console's poll of the score files, now."""
    app.scan_scores()
    await settle(app, pilot)


async def test_the_same_reviewer_in_two_consoles_setting_different_signals_keeps_both(sample_cohort):
    """Console 1 sets Evidence, console 2 Explanation, at the same moment: console 2's save merges
    (it never overwrites Evidence), and console 1 takes Explanation in without losing its own."""

    async def body(first, second):
        (one, one_pilot, one_screen), (two, two_pilot, two_screen) = first, second
        for app, pilot in ((one, one_pilot), (two, two_pilot)):
            await looks_at_disk(app, pilot)
        await one_pilot.press("4", "j", "j", "s")
        await two_pilot.press("4", "j", "j", "j", "w")
        await one_pilot.press("ctrl+s")
        await settle(one, one_pilot)
        await two_pilot.press("ctrl+s")
        await settle(two, two_pilot)
        assert entry_on_disk(sample_cohort)["tiers"] == {"evidence": "strong", "explanation": "weak"}
        assert two_screen.form.values()["tiers"] == {"evidence": "strong", "explanation": "weak"}
        assert "taken in here: Evidence: Strong" in two_screen.form.status
        assert "CONFLICT" not in two_screen.form.status

        # Console 1 looks at the disk: Explanation comes in, its Evidence and its place stay.
        focused = one.focused
        await looks_at_disk(one, one_pilot)
        assert one_screen.form.values()["tiers"] == {"evidence": "strong", "explanation": "weak"}
        assert one.focused is focused and isinstance(focused, SignalRow) and focused.signal.id == "evidence"
        assert not one_screen.scoring.dirty
        # Said beside the signal that changed, and in a toast, not only at the rubric's top.
        rows = {row.signal.id: str(row.title.render()) for row in one_screen.form.rows()}
        assert "changed in your other console" in rows["explanation"]
        assert "changed in your other console" not in rows["evidence"]
        assert any("taken in here: Explanation: Weak" in n.message for n in posted(one))
        # Until the reviewer touches it.
        await one_pilot.press("j", "a")
        explanation = next(row for row in one_screen.form.rows() if row.signal.id == "explanation")
        assert one.focused is explanation and explanation.tier == "acceptable"
        assert "changed in your other console" not in str(explanation.title.render())

    await two_consoles_of_ana(sample_cohort, body)


async def test_a_signal_both_consoles_changed_is_shown_side_by_side_and_the_reviewer_decides(sample_cohort):
    async def body(first, second):
        (one, one_pilot, one_screen), (two, two_pilot, two_screen) = first, second
        for app, pilot in ((one, one_pilot), (two, two_pilot)):
            await looks_at_disk(app, pilot)
        await one_pilot.press("4", "j", "j", "j", "w", "j", "a")
        await two_pilot.press("4", "j", "j", "j", "s")
        await one_pilot.press("ctrl+s")
        await settle(one, one_pilot)
        # Console 2 saves before it has seen console 1's save: the store finds the conflict.
        await two_pilot.press("ctrl+s")
        await settle(two, two_pilot)
        status = two_screen.form.status
        assert status.startswith("CONFLICT: this review was also saved in another console (revision 1")
        # Whose is whose: this console's value beside "yours", the other's beside "other console's".
        shown = [line.strip() for line in status.splitlines()]
        at = shown.index("Explanation")
        assert shown[at + 1 : at + 3] == ["yours: Strong", "other console's: Weak"]
        assert any(
            "CONFLICT with your other console — Explanation: yours Strong, other console's Weak" in n.message
            for n in posted(two)
        )
        # Console 2 keeps its value on screen; Blast radius (only console 1's) is merged in.
        assert two_screen.form.values()["tiers"] == {"explanation": "strong", "blast-radius": "acceptable"}
        # Said beside the signal itself too, where the reviewer is looking.
        titles = {row.signal.id: str(row.title.render()) for row in two_screen.form.rows()}
        assert "≠ your other console saved another" in titles["explanation"]
        assert "≠" not in titles["blast-radius"]
        assert entry_on_disk(sample_cohort)["tiers"] == {"explanation": "weak", "blast-radius": "acceptable"}
        # An autosave meanwhile leaves Explanation as console 1 saved it.
        await two_pilot.press("j", "j", "space")
        two_screen.scoring.autosave()
        await settle(two, two_pilot)
        on_disk = entry_on_disk(sample_cohort)
        assert on_disk["tiers"]["explanation"] == "weak" and on_disk["flags"] == ["fixed-symptom"]
        assert two_screen.form.values()["tiers"]["explanation"] == "strong"
        assert "CONFLICT" in two_screen.form.status
        # ctrl+s: the reviewer keeps this console's value.
        await two_pilot.press("ctrl+s")
        await settle(two, two_pilot)
        assert entry_on_disk(sample_cohort)["tiers"] == {"explanation": "strong", "blast-radius": "acceptable"}
        assert "CONFLICT" not in two_screen.form.status
        assert not any(row.in_conflict for row in two_screen.form.rows())

        # Console 1 saw nothing yet and changes Explanation again, unsaved; its poll shows the conflict.
        await one_pilot.press("k", "a")
        await looks_at_disk(one, one_pilot)
        assert one_screen.form.values()["tiers"]["explanation"] == "acceptable"
        assert one_screen.form.values()["flags"] == ["fixed-symptom"]
        assert "CONFLICT" in one_screen.form.status
        # R: console 2's value (on disk) for Explanation; the flag it merged stays.
        await one_pilot.press("R")
        await settle(one, one_pilot)
        assert one_screen.form.values()["tiers"] == {"explanation": "strong", "blast-radius": "acceptable"}
        assert "CONFLICT" not in one_screen.form.status and not one_screen.scoring.dirty

    await two_consoles_of_ana(sample_cohort, body)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_conflict_reads_whole_in_a_narrow_rubric_pane(sample_cohort, size):
    """The fields both consoles changed, at 80×24 (the rubric a tab) and 160×48 (a column beside the
    diff): each field's name, then each value on one line with whose it is, none wrapped away from it."""
    one = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    two = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    for app in (one, two):
        app.WATCH_SECONDS = 3600
    async with one.run_test(size=size) as first, two.run_test(size=size) as second:
        screens = [await open_submission(app, pilot, "chen-wei") for app, pilot in ((one, first), (two, second))]
        for screen in screens:
            screen.scoring.AUTOSAVE_SECONDS = 60
        await first.press("4", "j", "j", "j", "w")
        await second.press("4", "j", "j", "j", "s", "o", *"keeps one key per order", "escape")
        await first.press("o", *"no test went red first", "escape", "ctrl+s")
        await settle(one, first)
        await second.press("ctrl+s")
        await settle(two, second)
        assert "CONFLICT" in screens[1].form.status
        status = screens[1].query_one("#rubric-status")
        status.scroll_visible(animate=False)
        await settle(two, second)
        # The status's lines as drawn on screen (the pane beside it cut away).
        region = status.region
        shown = [line[region.x : region.right] for line in screen_text(two)[region.y : region.bottom]]
        for field, yours, theirs in (
            ("Explanation", "Strong", "Weak"),
            ("Overall comment", "keeps one key per order", "no test went red first"),
        ):
            assert any(line.strip() == field for line in shown), "\n".join(shown)
            assert any(line.strip() == f"yours: {yours}" for line in shown), (yours, shown)
            assert any(line.strip() == f"other console's: {theirs}" for line in shown), (theirs, shown)
