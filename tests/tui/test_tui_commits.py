"""The Commits pane with Pilot on the real sample cohort: a table as tall as its commits, the
highlighted commit's message and claims under it, and the keys every table answers."""

from __future__ import annotations

from helpers import open_submission
from review.tui.app import ReviewApp
from review.tui.widgets.diff.commits import CommitsTable


async def test_the_table_is_as_tall_as_its_commits_and_the_detail_takes_the_rest(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        await pilot.press("3")
        await pilot.pause()
        table, detail = screen.commits_table, screen.commit_info
        # The header, five commits, and at most the row of its horizontal scrollbar.
        assert table.row_count == 5 and 6 <= table.outer_size.height <= 7
        # The pane's other rows are the commit's.
        frame = screen.frames["commits"]
        assert detail.outer_size.height >= frame.content_size.height - table.outer_size.height - 1


async def test_j_and_k_move_in_the_commits_table(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        await pilot.press("3")
        table = screen.commits_table
        assert app.focused is table and table.cursor_row == 0
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        # The detail follows the highlighted commit.
        assert screen.analysis.commits[2].sha in str(screen.commit_info.render())
        await pilot.press("k")
        assert table.cursor_row == 1


async def test_a_table_filled_before_its_mount_handler_ran_keeps_every_row(sample_cohort):
    # The screen fills its panes the moment they are mounted, which can come before the table's
    # own mount handler adds the columns.
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        analysis = screen.analysis
        table = CommitsTable()
        table.fill(analysis.commits, analysis.commit_attributions, {}, {})
        await screen.mount(table)
        await pilot.pause()
        assert table.row_count == 5 and len(table.columns) == 7


async def test_a_long_subject_is_cut_to_its_column_with_an_ellipsis_and_whole_in_the_detail(tmp_path):
    from helpers import make_repo, wait_until

    subject = "Hoist the idempotency key out of the retry loop and persist it before the first request"
    make_repo(tmp_path / "cohort" / "ada", {"checkout.mjs": "export async function chargeWithRetry() {}\n"}, subject)
    app = ReviewApp(tmp_path / "cohort", run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "ada")
        await pilot.press("3")
        await wait_until(
            pilot, lambda: screen.commits_table.row_count == 1 and subject in str(screen.commit_info.render())
        )
        (key,) = list(screen.commits_table.rows)
        cell = str(screen.commits_table.get_cell(key, "subject"))
        assert cell == subject[:49] + "…"
        assert subject in str(screen.commit_info.render())
