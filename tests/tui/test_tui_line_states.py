"""Who wrote each line, as the reviewer sees it: the diff gutter marks a line no source speaks for (`?`)
and one from the base (`⌂`) with glyphs that NO_COLOR keeps; the triage table says "0% · unknown
100%" for a submission that discloses nothing, sorts by the Unknown column and filters `unknown:>0`."""

from __future__ import annotations

from helpers import commit_as, make_repo, open_submission, wait_until, workers_done
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen
from review.tui.widgets.diff.view import DiffView
from review.tui.widgets.triage.cells import COLUMN_INDEX

PAT = ("Pat Doe", "pat@example.com")
HELPER = (
    "export function backoffDelay(attempt, baseMilliseconds = 100) {\n"
    "  const exponential = baseMilliseconds * 2 ** attempt;\n"
    "  const jitter = Math.floor(Math.random() * baseMilliseconds);\n"
    "  return Math.min(exponential + jitter, 5000);\n"
    "}\n"
)
STARTER = {"README.md": "# Task\n", "checkout.mjs": "// starter\n" + HELPER}


def quiet(cohort) -> None:
    """Discloses nothing: moves the starter's helper into a file of its own, and writes one line."""
    repo = make_repo(cohort / "quiet", STARTER, "starter")
    commit_as(
        repo,
        "Split\n",
        {"checkout.mjs": "// starter\nexport const charge = 1;\n", "backoff.mjs": HELPER},
        author=PAT,
    )


def disclosed(cohort) -> None:
    repo = make_repo(cohort / "open", STARTER, "starter")
    commit_as(
        repo,
        "Client\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
        {"lib.mjs": "export const a = 1;\nexport const b = 2;\n"},
        author=PAT,
    )
    commit_as(repo, "Mine\n", {"mine.mjs": "export const mine = 1;\n"}, author=PAT)


def painted(view: DiffView) -> list[str]:
    return ["".join(segment.text for segment in view.render_line(y)) for y in range(view.size.height)]


async def test_the_gutter_marks_unknown_lines_and_lines_from_the_base_under_no_color(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    quiet(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 30)) as pilot:
        assert app.no_color
        screen = await open_submission(app, pilot, "quiet")
        view = screen.query_one(DiffView)
        await wait_until(pilot, lambda: view.diff.claimed)
        rows = painted(view)
        moved = [row for row in rows if "const exponential" in row and "+" in row]
        assert moved and "⌂ ↕+" in moved[0]  # the starter's helper, moved in this diff: from the base
        written = [row for row in rows if "export const charge" in row]
        assert written and "? │+" in written[0]  # no source says who wrote it
        header = " ".join(str(screen.query_one("#diff-range").render()).split())
        assert "(AI 0% · unknown 100%)" in header and "⌂ 5 added lines from the base" in header
        while "backoff.mjs" not in str(screen.query_one("#diff-source").render()):
            await pilot.press("n")
            await pilot.pause()
        source = str(screen.query_one("#diff-source").render())
        assert "⌂ from the base: checkout.mjs:2" in source and "(not counted)" in source


async def test_the_triage_table_shows_sorts_and_filters_the_unknown_share(tmp_path):
    quiet(tmp_path)
    disclosed(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await workers_done(app, pilot)
        screen = app.screen
        assert isinstance(screen, CohortScreen)
        table = screen.table
        # Never a bare 0% (the cell says "—" or "…" until the lines are read).
        await wait_until(pilot, lambda: str(table.get_cell("quiet", "ai_share")) == "0% · unknown 100%")
        assert str(table.get_cell("quiet", "unknown_share")) == "100%"
        assert str(table.get_cell("open", "ai_share")) == "67%"
        assert str(table.get_cell("open", "unknown_share")) == "0%"
        table.move_cursor(row=table.get_row_index("quiet"))
        await pilot.pause()
        detail = str(screen.query_one("#triage-detail").render())
        assert "AI 0% · unknown 100% (5 added lines from the base not counted)" in " ".join(detail.split())
        # Sorted by the Unknown column: the submission whose share says least comes first.
        for _ in range(COLUMN_INDEX["unknown_share"]):
            await pilot.press("s")
        await pilot.pause()
        assert [key.value for key in table.rows] == ["quiet", "open"]
        await pilot.press("slash", *"unknown:>0")
        assert [key.value for key in table.rows] == ["quiet"]
        await pilot.press("ctrl+u", *"ai:>50")
        assert [key.value for key in table.rows] == ["open"]
