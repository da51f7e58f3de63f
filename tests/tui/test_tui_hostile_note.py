"""A note built to stall the console: 130,000 one-character lines (256 KiB, under the note's cap).
The note pane lays out a bounded number of rows and says how many more there are, so pressing 2 does
not freeze the console while every row is wrapped, several times over, on the UI thread."""

from __future__ import annotations

from helpers import make_repo, open_submission, settle
from review.tui.app import ReviewApp
from review.tui.widgets.note_view import MAX_NOTE_ROWS, NoteView

LINES = 130_000


async def test_a_note_of_a_hundred_thousand_lines_is_shown_cut_and_says_so(tmp_path):
    cohort = tmp_path / "cohort"
    make_repo(cohort / "eve", {"checkout.mjs": "export const a = 1;\n", "NOTE.md": "x\n" * LINES})
    app = ReviewApp(cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_submission(app, pilot, "eve")
        await pilot.press("2")
        await settle(app, pilot)
        shown = str(app.screen.query_one(NoteView).text.render()).split("\n")
        assert len(shown) < MAX_NOTE_ROWS + 10
        # The note has LINES lines (its final newline starts none).
        assert (
            shown[-1] == f"… {LINES - MAX_NOTE_ROWS} more rows of the note are not shown here "
            f"(this pane shows its first {MAX_NOTE_ROWS})"
        )


def test_the_note_numbers_its_lines_as_the_diff_counts_them():
    from review.tui.widgets.note_view import numbered_rows

    rows, starts = numbered_rows("one\ntwo\n")
    assert rows == ["1 │ one", "2 │ two"] and starts == [0, 1]
    # A blank last line the file really has is still shown.
    rows, _ = numbered_rows("one\ntwo\n\n")
    assert rows == ["1 │ one", "2 │ two", "3 │ "]
