"""The Similar column and the pair view, driven with Pilot on the sample cohort with a planted,
disguised copy of chen-wei: the column fills from a worker, sorts highest first and filters by
`similar:>50`; `m` opens both files side by side at 160 columns, one above the other at 80, with
the shared fragments to step through; a candidate-blind session names neither."""

from __future__ import annotations

import re

from textual.widgets import DataTable

from helpers import screen_text, wait_until
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.help import HelpScreen
from review.tui.screens.similar_pair import SimilarPairScreen
from review.tui.screens.submission.screen import SubmissionScreen
from review.tui.widgets.triage.cells import COLUMN_INDEX
from similarity_cohort import plant_all


def names(table: DataTable) -> list[str]:
    return [key.value for key in table.rows]


async def compared(app, pilot) -> CohortScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, CohortScreen) and app.screen.similar.comparison)
    await pilot.pause()
    return app.screen


async def test_the_column_sorts_the_copy_first_and_filters_by_share(sample_cohort):
    cohort = plant_all(sample_cohort)
    app = ReviewApp(cohort, run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await compared(app, pilot)
        assert re.fullmatch(r"\d+%", str(screen.table.get_cell("zed-copy", "similar")))
        assert str(screen.table.get_cell("ivy-draft", "similar")) == ""  # nothing of its own: no share
        screen.sort = (COLUMN_INDEX["similar"], False)
        await pilot.pause()
        assert set(names(screen.table)[:2]) == {"chen-wei", "zed-copy"}
        await pilot.press("slash", *"similar:>50")
        await pilot.pause()
        assert set(names(screen.table)) >= {"chen-wei", "zed-copy"}
        assert "ivy-draft" not in names(screen.table) and "ada-okafor" not in names(screen.table)


async def open_pair(app, pilot, name: str) -> SimilarPairScreen:
    screen = await compared(app, pilot)
    screen.table.move_cursor(row=screen.table.get_row_index(name))
    await pilot.press("m")
    await wait_until(pilot, lambda: isinstance(app.screen, SimilarPairScreen) and app.screen.read is not None)
    await pilot.pause()
    return app.screen


async def test_the_pair_view_side_by_side_at_160_and_its_keys(sample_cohort):
    app = ReviewApp(plant_all(sample_cohort), run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        pair = await open_pair(app, pilot, "zed-copy")
        sides = pair.query_one("#similar-sides")
        assert not sides.has_class("-stacked")
        left, right = (scroll.region for scroll in pair.scrolls)
        assert left.y == right.y and left.x < right.x
        text = "\n".join(screen_text(app))
        assert "zed-copy · checkout.mjs" in text and "chen-wei · checkout.mjs" in text
        assert "of zed-copy's own code is in chen-wei" in text and "fragment 1/" in text
        # One row per line of the file, never wrapped: chen-wei's checkout.mjs has lines past 80 columns.
        lines = len(pair.read.texts[1]["checkout.mjs"].splitlines())
        assert pair.codes[1].size.height == lines
        fragments = len(pair.read.fragments)
        assert fragments >= 2  # the two swapped functions are two fragments
        await pilot.press("right_square_bracket")
        await wait_until(pilot, lambda: f"fragment 2/{fragments}" in "\n".join(screen_text(app)))
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert pair.fragment_index == fragments - 1
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = "\n".join(screen_text(app))
        for binding in ("similar.next-fragment", "similar.previous-fragment", "similar.next-pair", "similar.back"):
            assert binding in shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SimilarPairScreen))
        await pilot.press("escape")
        assert isinstance(app.screen, CohortScreen)


async def test_the_pair_view_stacked_at_80_by_24(sample_cohort):
    app = ReviewApp(plant_all(sample_cohort), run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        pair = await open_pair(app, pilot, "chen-wei")
        assert pair.query_one("#similar-sides").has_class("-stacked")
        top, bottom = (scroll.region for scroll in pair.scrolls)
        assert top.y < bottom.y and top.height >= 3 and bottom.height >= 3 and bottom.bottom <= 24
        text = "\n".join(screen_text(app))
        assert "chen-wei · checkout.mjs" in text and "zed-copy · checkout.mjs" in text
        assert max(len(line) for line in screen_text(app)) <= 80


async def test_candidate_blind_masks_both_names(sample_cohort):
    app = ReviewApp(plant_all(sample_cohort), run_harness=False, reviewers=("ana",), anonymous=True)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await compared(app, pilot)
        table_text = "\n".join(screen_text(app))
        assert "zed-copy" not in table_text and "chen-wei" not in table_text
        first = names(screen.table)[0]
        screen.table.move_cursor(row=screen.table.get_row_index(first))
        pair = await open_pair(app, pilot, "zed-copy")
        text = "\n".join(screen_text(app))
        assert "candidate-" in text and "zed-copy" not in text and "chen-wei" not in text
        assert pair.read is not None


async def open_submission_pair(app, pilot, name: str) -> SimilarPairScreen:
    """The pair view from inside the submission's own screen (its key there, not `m`)."""
    screen = await compared(app, pilot)
    screen.table.move_cursor(row=screen.table.get_row_index(name))
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, SubmissionScreen) and app.screen.panes_ready)
    submission = app.screen
    await pilot.press("question_mark")
    await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
    listed = {(keys, binding_id) for group, keys, _, binding_id in app.screen.rows if group == "Submission"}
    assert ("x", "submission.similar") in listed
    await pilot.press("escape")
    await wait_until(pilot, lambda: app.screen is submission)
    await pilot.press("x")
    await wait_until(pilot, lambda: isinstance(app.screen, SimilarPairScreen) and app.screen.read is not None)
    await pilot.pause()
    return app.screen


async def test_the_pair_view_from_the_submission_screen_and_back(sample_cohort):
    app = ReviewApp(plant_all(sample_cohort), run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        pair = await open_submission_pair(app, pilot, "zed-copy")
        text = "\n".join(screen_text(app))
        assert "of zed-copy's own code is in chen-wei" in text and "chen-wei · checkout.mjs" in text
        assert pair.read is not None and pair.read.fragments
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SubmissionScreen))


async def test_the_pair_view_from_the_submission_screen_masks_both_names(sample_cohort):
    app = ReviewApp(plant_all(sample_cohort), run_harness=False, reviewers=("ana",), anonymous=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_submission_pair(app, pilot, "zed-copy")
        text = "\n".join(screen_text(app))
        assert "candidate-" in text and "zed-copy" not in text and "chen-wei" not in text


async def test_at_80_by_24_the_similar_column_is_whole_and_the_detail_says_whose(sample_cohort):
    app = ReviewApp(plant_all(sample_cohort), run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await compared(app, pilot)
        screen.sort = (COLUMN_INDEX["similar"], False)
        await pilot.pause()
        screen.table.move_cursor(row=names(screen.table).index("zed-copy"))
        await pilot.pause()
        lines = screen_text(app)
        header = next(n for n, line in enumerate(lines) if "Similar ▲" in line)
        column = lines[header].index("Similar")
        share = str(screen.table.get_cell("zed-copy", "similar"))
        assert re.fullmatch(r"\d+%", share)
        # Every share under the header, whole, within the 80 columns.
        shown = [line[column:].split()[0] for line in lines[header + 1 : header + 4]]
        assert all(re.fullmatch(r"\d+%", cell) for cell in shown), lines
        assert max(len(line) for line in lines) <= 80
        text = "\n".join(lines)
        assert f"similar: {share} of its own code is in chen-wei" in text
