"""Searching the diff as in less and tig: `/`, a text, Enter; every match marked, the count in the
header, n/N through the matches across files (round at either end); escape clears and n goes by
hunk again. On a real repository (helpers.reading_submission), with Pilot."""

from __future__ import annotations

from helpers import open_submission, reading_submission, screen_text, settle, type_in_one_burst, wait_until
from review.tui.app import ReviewApp
from review.tui.widgets.diff.view import DiffView


def header(screen) -> str:
    return " ".join(str(screen.query_one("#diff-range").render()).split())


def marked(view: DiffView) -> list[str]:
    """The text drawn as the current match on screen (in reverse)."""
    return [
        segment.text
        for y in range(view.size.height)
        for segment in view.render_line(y)
        if segment.style and segment.style.reverse
    ]


async def search(app, pilot, screen, text: str) -> None:
    await pilot.press("slash", *text, "enter")
    await wait_until(pilot, lambda: "searching" not in header(screen) and f"/{text}:" in header(screen))


async def test_slash_finds_text_in_every_file_and_n_and_N_go_through_the_matches(tmp_path):
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "reader")
        view = screen.query_one(DiffView)
        await pilot.press("1")
        await settle(app, pilot)
        # All lower case: any case matches (parseAmount moved from util.mjs to money.mjs).
        await search(app, pilot, screen, "parseamount")
        assert "/parseamount: 1 of 2 (n/N; escape clears)" in header(screen)
        first_file = view.current()[0].path
        assert "parseAmount" in marked(view)
        await pilot.press("n")
        assert "2 of 2" in header(screen)
        assert view.current()[0].path != first_file
        assert "parseAmount" in marked(view)
        # Round from the last to the first, and N goes back.
        await pilot.press("n")
        assert "1 of 2" in header(screen) and view.current()[0].path == first_file
        await pilot.press("N")
        assert "2 of 2" in header(screen)
        # A capital letter: matched exactly. The file headers and moved-block notes are searched too.
        await search(app, pilot, screen, "ParseAmount")
        assert "/ParseAmount: not found" in header(screen)
        await search(app, pilot, screen, "money.mjs")
        assert "1 of" in header(screen)
        # Escape clears the search: n goes by hunk again, and escape then goes back as before.
        await pilot.press("escape")
        await settle(app, pilot)
        assert "/money.mjs:" not in header(screen) and marked(view) == []
        hunk = view.current_hunk
        await pilot.press("n")
        assert view.current_hunk == hunk + 1
        # ? is still the help on the diff.
        await pilot.press("question_mark")
        from review.tui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        ids = {
            binding_id for _group, _keys, _label, binding_ids in app.screen.rows for binding_id in binding_ids.split()
        }
        assert {"diff.search", "diff.next-match", "diff.previous-match"} <= ids


def test_a_hunks_sources_are_said_once():
    from review.tui.widgets.diff.pane import said_once

    assert said_once({"note line 15", "note line 15, and commit e448fe8", "commit 1234567"}) == [
        "commit 1234567",
        "note line 15, and commit e448fe8",
    ]


async def test_a_search_typed_in_one_burst_lands_whole_in_the_box(tmp_path):
    """The slash and the words after it read at once (SSH, a browser tab): none reaches the view,
    where n and N and f are keys of their own."""
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "reader")
        await pilot.press("1")
        await settle(app, pilot)
        type_in_one_burst(app, "/money.mjs")
        box = screen.query_one("#diff-search")
        await wait_until(pilot, lambda: box.value == "money.mjs", timeout=30)
        assert app.focused is box


async def test_a_search_that_finds_nothing_leaves_n_on_the_hunks_and_the_footer_says_so(tmp_path):
    """Not found: n and N go by hunk as before the search (they used to do nothing while the footer
    moved the hunks to ] and [, as though n had another job); with matches the footer says n is the
    next match."""
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "reader")
        view = screen.query_one(DiffView)
        await pilot.press("1")
        await settle(app, pilot)
        footer = screen_text(app)[-1]
        assert "n Next hunk" in footer, footer
        await search(app, pilot, screen, "nowhere-in-the-diff")
        assert "not found" in header(screen)
        await wait_until(pilot, lambda: "n Next hunk" in screen_text(app)[-1])
        assert "] Next hunk" not in screen_text(app)[-1]
        hunk = view.current_hunk
        await pilot.press("n")
        assert view.current_hunk == hunk + 1
        await pilot.press("N")
        assert view.current_hunk == hunk
        # Found: n is the next match, and the footer says so beside ] for the next hunk.
        await search(app, pilot, screen, "parseamount")
        await wait_until(pilot, lambda: "n Next match" in screen_text(app)[-1])
        assert "] Next hunk" in screen_text(app)[-1]


async def test_a_match_far_right_scrolls_the_code_not_the_gutter(sample_cohort):
    """At 80×24 a match past the pane's right edge scrolls the code sideways to it; each line keeps its
    numbers, AI tag and sign in view, and a match that fits unscrolled brings the code back."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        view = screen.query_one(DiffView)
        await pilot.press("1")
        await settle(app, pilot)
        await search(app, pilot, screen, "key")
        scrolled = False
        for _ in range(8):
            await pilot.press("n")
            await pilot.pause()
            assert any("key" in text.lower() for text in marked(view)), "the current match is in view"
            scrolled = scrolled or view.scroll_x > 0
            top = view.scroll_offset.y
            for y in range(view.size.height):
                row = view.rows[top + y] if top + y < len(view.rows) else None
                if row is None or row.kind != "line":
                    continue
                drawn = view.painter.drawn(top + y, row, False)[0]
                gutter = "".join(s.text for s in drawn.crop(0, view.gutter_width + 1))  # and the sign
                shown = "".join(s.text for s in view.render_line(y))
                assert shown.startswith(gutter), (shown, gutter)
            if view.scroll_x == 0 and scrolled:
                break
        assert scrolled, "no match lay past the right edge at 80 columns"
        assert view.scroll_x == 0, "a match that fits unscrolled brings the code back"
