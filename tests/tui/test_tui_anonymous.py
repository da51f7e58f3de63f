"""Candidate-blind review in the real console: no candidate's name on any screen until lifted."""

from __future__ import annotations

import re

from helpers import open_submission, settle
from review.core import text
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen

# Every way the sample cohort names its candidates: folder names, authors, e-mail addresses.
NAMES = re.compile(r"okafor|larsen|chen.wei|patel|santos|mueller|romano|hal.kim|example\.org", re.IGNORECASE)


def screen_text(app) -> str:
    return app.export_screenshot().replace("&#160;", " ")


async def test_a_blind_session_shows_aliases_everywhere_keeps_assistants_and_lifts_on_A_twice(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",), anonymous=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CohortScreen)
        shown = [str(screen.table.get_cell(key, "name")) for key in screen.table.rows]
        assert shown == [f"candidate-{n}" for n in range(1, 9)]
        ada = screen.context.aliases["ada-okafor"]
        triage = screen_text(app)
        assert not NAMES.search(triage) and "candidate-blind" in triage
        assert "Claude Code" in triage  # assistants stay visible
        await pilot.press("slash", *"okafor", "enter")
        await pilot.pause()
        assert screen.table.row_count == 0  # a real name finds nothing
        await pilot.press("escape", "escape")
        await pilot.pause()
        await pilot.press("slash", *ada, "enter")
        await pilot.pause()
        assert screen.table.row_count >= 1
        await pilot.press("escape", "escape")
        await pilot.pause()
        submission = await open_submission(app, pilot, "ada-okafor")
        for pane in ("1", "2", "4", "5", "3"):  # the commits pane last: its authors are checked below
            await pilot.press(pane)
            await settle(app, pilot)
            seen = screen_text(app)
            assert not NAMES.search(seen), (pane, NAMES.search(seen))
        assert ada in seen  # the commits pane: the author, masked
        assert "Claude" in seen
        # The starter every candidate begins from is the hiring team's: never shown as the candidate's.
        assert "Hiring Team" in seen
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and submission is not screen

        await pilot.press("A")
        assert str(screen.table.get_cell("ada-okafor", "name")) == ada  # asked, not yet done
        await pilot.press("A")
        await pilot.pause()
        assert str(screen.table.get_cell("ada-okafor", "name")) == "ada-okafor"
        assert "candidate-blind" not in screen_text(app)
    assert not text.masking()  # the mask ends with the session


async def test_an_ordinary_session_has_no_reveal_key_and_shows_names(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert str(app.screen.table.get_cell("ada-okafor", "name")) == "ada-okafor"
        assert app.screen.check_action("reveal", ()) is False
        # Nor does help list it.
        await pilot.press("question_mark")
        await pilot.pause()
        assert "Show names" not in screen_text(app) and "triage.reveal" not in screen_text(app)


async def test_a_blind_console_numbers_candidates_in_the_cohorts_blind_order_not_by_name(sample_cohort):
    from review.core import anonymity
    from review.services.blind_order import KEY_FILE

    key = bytes(range(16))
    (sample_cohort / KEY_FILE).write_text(key.hex() + "\n")
    names = sorted(path.name for path in sample_cohort.iterdir() if not path.name.startswith("."))
    order = anonymity.blind_order(names, key)
    assert order != names  # this key does not happen to give the alphabetical order
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",), anonymous=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.context.aliases == {name: f"candidate-{n}" for n, name in enumerate(order, start=1)}
        # Sorted by the name shown, the table runs candidate-1, 2, … in the blind order, not the folders'.
        assert [row.value for row in screen.table.rows] == order


async def test_a_name_typed_in_the_filter_is_echoed_as_a_name_never_as_its_number(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",), anonymous=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        ada = screen.context.aliases["ada-okafor"]
        # At 80 columns the title's end is cut: the session says it is blind first.
        title = str(screen.title_bar.render())
        assert title.startswith("candidate-blind") and "candidate-blind" in screen_text(app)
        for typed in ("okafor", "tool:okafor", "ada.okafor@example.org"):
            await pilot.press("slash", *typed, "enter")
            await pilot.pause()
            echoed = next(part for part in screen.title_bar.parts if " match " in part)
            assert "(a name)" in echoed and ada not in echoed, (typed, echoed)
            await pilot.press("escape", "escape")
            await pilot.pause()
