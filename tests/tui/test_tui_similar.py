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
    """The triage once the cohort's comparison holds every submission read (an earlier one, of part of
    the cohort, may come first on a loaded machine)."""

    def whole() -> bool:
        screen = app.screen
        if not isinstance(screen, CohortScreen) or not screen.similar.comparison or screen.similar.index is None:
            return False
        own, entries = screen.similar.comparison.own, screen.similar.index.entries
        return all(name in own or (name in entries and entries[name].problem) for name in screen.rows)

    await wait_until(pilot, whole)
    await pilot.pause()
    return app.screen


async def test_the_column_sorts_the_copy_first_and_filters_by_share(sample_cohort):
    cohort = plant_all(sample_cohort)
    app = ReviewApp(cohort, run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await compared(app, pilot)
        assert re.fullmatch(r"\d+%", str(screen.table.get_cell("zed-copy", "similar")))
        assert str(screen.table.get_cell("ivy-draft", "similar")) == "—"  # nothing of its own: no share
        screen.sort = (COLUMN_INDEX["similar"], False)
        # A comparison still under way (an arrival's) re-sorts when it lands: wait for the cohort's.
        await wait_until(pilot, lambda: set(names(screen.table)[:2]) == {"chen-wei", "zed-copy"})
        await pilot.press("slash", *"similar:>50")
        await wait_until(pilot, lambda: "ivy-draft" not in names(screen.table))
        assert set(names(screen.table)) >= {"chen-wei", "zed-copy"}
        assert "ada-okafor" not in names(screen.table)


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
        assert re.search(r"of zed-copy's \d+ own fingerprints are in chen-wei", text) and "fragment 1/" in text
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
        assert re.search(r"of zed-copy's \d+ own fingerprints are in chen-wei", text)
        assert "chen-wei · checkout.mjs" in text
        assert pair.read is not None and pair.read.fragments
        # q goes back to the submission, as q there goes back to the triage: never out of the console.
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, SubmissionScreen))
        assert app.is_running


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
        assert re.search(f"similar: {share} of its \\d+ own fingerprints are in chen-wei", text)


# ----------------------------------------------------------------- on the sample cohort as built


def pairs_with(cohort, name: str) -> set[str]:
    """Every submission `review similar` pairs with `name` (its pairs that share own code)."""
    from review.services import similarity

    found = similarity.build(cohort).compare().pairs_of(name)
    return {pair.b if pair.a == name else pair.a for pair in found}


async def test_the_filter_similar_name_finds_every_pair_with_that_name(sample_cohort):
    partners = pairs_with(sample_cohort, "hal-kim")
    assert partners == {"ben-larsen", "finn-mueller", "gia-romano"}
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await compared(app, pilot)
        await pilot.press("slash", *"similar:hal")
        await wait_until(pilot, lambda: screen.filter_text == "similar:hal")
        await pilot.pause()
        assert set(names(screen.table)) == partners


async def pair_screen(app, pilot, name: str, key: str) -> SimilarPairScreen:
    """The pair view opened with `key` (m on the triage row; x inside the submission), shown."""
    screen = await compared(app, pilot)
    screen.table.move_cursor(row=screen.table.get_row_index(name))
    if key == "x":
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SubmissionScreen) and app.screen.panes_ready)
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, SimilarPairScreen))
    await pilot.pause()
    return app.screen


async def test_the_pair_view_says_why_there_is_nothing_to_compare(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await compared(app, pilot)
        # Where `review triage` prints —: no share, and the comparison is done.
        assert str(screen.table.get_cell("ada-okafor", "similar")) == "—"
        await pair_screen(app, pilot, "ada-okafor", "m")
        await wait_until(pilot, lambda: "0 own fingerprints" in "\n".join(screen_text(app)))
        assert "ada-okafor: 0 own fingerprints; left out 14 the model draft" in "\n".join(screen_text(app))
        await pilot.press("escape")
        await pair_screen(app, pilot, "chen-wei", "x")
        await wait_until(pilot, lambda: "shares no fragment" in "\n".join(screen_text(app)))
        text = "\n".join(screen_text(app))
        assert "chen-wei: 78 own fingerprints" in text
        assert "shares no fragment with any other submission" in text


async def test_the_shares_say_their_base(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await compared(app, pilot)
        screen.table.move_cursor(row=screen.table.get_row_index("ben-larsen"))
        await pilot.pause()
        assert "similar: 67% of its 6 own fingerprints are in hal-kim" in "\n".join(screen_text(app))
        pair = await open_pair(app, pilot, "ben-larsen")
        text = " ".join(line.strip() for line in screen_text(app))
        assert "67% of ben-larsen's 6 own fingerprints are in hal-kim" in text
        assert "21% of hal-kim's 19 are in ben-larsen" in text
        # The figure `review similar` ranks by, reconciled with the two shares.
        assert "similarity 32% (2 × 4 shared over 6 + 19 own)" in text
        assert pair.read is not None


async def test_at_80_by_24_the_detail_says_whose_code(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await compared(app, pilot)
        screen.table.move_cursor(row=screen.table.get_row_index("ben-larsen"))
        await pilot.pause()
        lines = screen_text(app)
        assert any("similar: 67% of its 6 own fingerprints are in hal-kim" in line for line in lines), lines


async def test_the_pair_view_lists_its_scroll_keys_and_q_goes_back(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        pair = await open_pair(app, pilot, "ben-larsen")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        listed = " ".join(binding_id for group, _, _, binding_id in app.screen.rows if group == "Similar code")
        for binding in (
            "similar.scroll-down",
            "similar.scroll-up",
            "similar.page-down",
            "similar.page-up",
            "similar.other-side",
            "similar.close",
        ):
            assert binding in listed, listed
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is pair)
        mine, other = pair.scrolls
        assert mine.has_focus
        before = mine.scroll_y
        assert mine.max_scroll_y > before  # the file is longer than its pane at 80×24
        await pilot.press("j")
        await wait_until(pilot, lambda: mine.scroll_y == before + 1)
        await pilot.press("k")
        await wait_until(pilot, lambda: mine.scroll_y == before)
        await pilot.press("tab")
        await wait_until(pilot, lambda: other.has_focus)
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, CohortScreen))
        assert app.is_running


async def test_a_submission_removed_then_r_leaves_no_pair_with_it(sample_cohort):
    """A copy planted while the console is open arrives and pairs with chen-wei; removed, and the cohort
    read again (R), neither the column nor the title speaks of it any more."""
    import shutil

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await compared(app, pilot)
        shutil.copytree(sample_cohort / "chen-wei", sample_cohort / "zed-copy", symlinks=True)
        await wait_until(pilot, lambda: "zed-copy" in screen.rows and "arrived" in screen_title(screen))
        await wait_until(pilot, lambda: (screen.rows["chen-wei"].similar or {}).get("with") == "zed-copy")
        shutil.rmtree(sample_cohort / "zed-copy")
        comparison = screen.similar.comparison
        await pilot.press("R")
        await wait_until(pilot, lambda: screen.similar.comparison is not comparison and "zed-copy" not in screen.rows)
        await pilot.pause()
        assert "zed-copy" not in screen.similar.comparison.own
        assert (screen.rows["chen-wei"].similar or {}).get("with") != "zed-copy"
        assert "zed-copy" not in (screen.rows["chen-wei"].similar or {}).get("partners", [])
        assert "arrived" not in screen_title(screen)


def screen_title(screen: CohortScreen) -> str:
    return str(screen.query_one("#triage-title").render())
