"""Reading a diff as a reviewer does, on a real repository (tests/helpers.py `reading_submission`: a
whitespace-only reformat, a one-word change, a moved function and a renamed file) driven with Pilot:
the changed word marked (`w`), the reformat hidden behind `W` with its count, the moved function
marked at both ends (`M` between them), files marked viewed (`v`, `u`) and still viewed after a
restart, side by side (`S`) where there are the columns; and the diff pane's `<` and file list."""

from __future__ import annotations

from helpers import commit_as, make_repo, open_submission, posted, reading_submission, settle, wait_until
from review.tui.app import ReviewApp
from review.tui.screens.help import HelpScreen
from review.tui.widgets.diff.files import FileList
from review.tui.widgets.diff.pane import DiffPane
from review.tui.widgets.diff.view import DiffView


def rows_of(view: DiffView) -> list[str]:
    return ["".join(segment.text for segment in view.render_line(y)) for y in range(view.size.height)]


def header(screen) -> str:
    # As one line, its parts joined as on a wide terminal: the header wraps between its parts, and a
    # wrapped row does not begin with their separator.
    return " · ".join(screen.query_one("#diff-range").parts)


def current_path(view: DiffView) -> str | None:
    file_diff, _hunk = view.current()
    return file_diff.path if file_diff else None


async def open_reader(app, pilot, tmp_path):
    screen = await open_submission(app, pilot, "reader")
    view = screen.query_one(DiffView)
    await settle(app, pilot)
    return screen, view


def marked_words(view: DiffView, y: int) -> list[str]:
    """The text of the segments drawn underlined on row y (the changed words)."""
    return [segment.text for segment in view.render_line(y) if segment.style and segment.style.underline]


async def test_the_one_changed_word_is_marked_on_both_lines_and_w_turns_the_marks_off(tmp_path):
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        rows = rows_of(view)
        removed = next(y for y, row in enumerate(rows) if "│-    const response" in row)
        added = next(y for y, row in enumerate(rows) if "│+    const response" in row)
        assert marked_words(view, removed) == ["maxAttempts"]
        assert marked_words(view, added) == ["maxRetries"]
        # The reformatted lines: only their indentation is marked, the code itself is plain.
        reformatted = next(y for y, row in enumerate(rows) if "CC│+    const base" in row)
        assert [text.strip() for text in marked_words(view, reformatted)] == [""]
        await pilot.press("w")
        await settle(app, pilot)
        assert marked_words(view, removed) == [] and marked_words(view, added) == []
        assert "word marks off (w)" in header(screen)
        await pilot.press("w")
        await settle(app, pilot)
        assert marked_words(view, added) == ["maxRetries"]


async def test_W_hides_the_reformat_says_how_many_lines_and_keeps_numbers_and_ai_marks(tmp_path):
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        assert any("CC│+    const base = 100" in row for row in rows_of(view))
        assert "[W]" not in header(screen)
        await pilot.press("W")
        await settle(app, pilot)
        rows = rows_of(view)
        assert "[W] whitespace-only changes hidden: 3 lines" in header(screen)
        assert not any("const base = 100" in row for row in rows)
        assert any("only whitespace changed (3 lines hidden; W shows them)" in row for row in rows)
        # The real change keeps HEAD's number and its assistant's tag; the range's counts are its own.
        assert any("    6 CC│+    const response = await send(amount, { maxRetries: limit });" in row for row in rows)
        # parseAmount, moved from the starter's util.mjs, is no line the submission wrote.
        assert "+11 lines · AI-attributed 5 of 5 lines of code (AI 100%) · ⌂ 6 added lines from the base" in header(
            screen
        )
        await pilot.press("W")
        await settle(app, pilot)
        assert any("CC│+    const base = 100" in row for row in rows_of(view))
        assert "[W]" not in header(screen)


async def test_text_the_reading_aids_cannot_handle_costs_its_marks_and_is_said_never_the_console(tmp_path, monkeypatch):
    """Whatever a submission's text does to the word marks or to W, the diff stays whole and readable."""
    from review.tui.widgets.diff import pane
    from review.tui.widgets.diff import words as words_module

    def broken(*args, **kwargs):
        raise ValueError("odd text")

    monkeypatch.setattr(words_module, "hunk_words", broken)
    monkeypatch.setattr(pane, "hide_whitespace_changes", broken)
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        rows = rows_of(view)
        added = next(y for y, row in enumerate(rows) if "│+    const response" in row)
        assert marked_words(view, added) == []
        await pilot.press("W")
        await settle(app, pilot)
        assert "[W] whitespace-only changes not hidden: unreadable: ValueError: odd text" in header(screen)
        assert "hidden: 0 lines" not in header(screen)
        # The diff as read stays on screen, its reformat included; the keys still work.
        assert any("CC│+    const base = 100" in row for row in rows_of(view))
        await pilot.press("W")
        await settle(app, pilot)
        assert "[W]" not in header(screen) and app.is_running


async def test_the_moved_function_is_marked_moved_at_both_ends_and_M_jumps_between_them(tmp_path):
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 50)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        rows = rows_of(view)
        assert any(row.strip() == "↕ moved from util.mjs:3 (5 lines)" for row in rows)
        assert any(row.strip() == "↕ moved to money.mjs:3 (5 lines)" for row in rows)
        # One mark in the gutter on both sides, not a deletion and an addition.
        assert any("↕+export function parseAmount(text) {" in row for row in rows)
        assert any("↕-export function parseAmount(text) {" in row for row in rows)
        assert not any("│-export function parseAmount" in row or "│+export function parseAmount" in row for row in rows)
        assert current_path(view) == "backoff.mjs"
        await pilot.press("M")
        assert current_path(view) == "money.mjs"
        await pilot.press("M")
        assert current_path(view) == "util.mjs"
        await pilot.pause()
        assert "↕ moved to money.mjs:3 (5 lines) (M: the other end)" in str(screen.query_one("#diff-source").render())
        await pilot.press("M")
        assert current_path(view) == "money.mjs"


async def test_viewed_files_are_counted_survive_a_restart_and_reset_when_the_file_changes(tmp_path):
    repo = reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        files = screen.query_one(FileList)
        assert str(screen.query_one("#diff-viewed").render()).startswith("0/5 viewed")
        # The file at the top of the diff.
        await pilot.press("v")
        await wait_until(pilot, lambda: "viewed 1/5" in header(screen))
        assert str(screen.query_one("#diff-viewed").render()).startswith("1/5 viewed")
        assert files.get_row_at(0)[0].plain.startswith("✓ backoff.mjs")
        assert not files.get_row_at(1)[0].plain.startswith("✓")
        await pilot.press("u")
        assert view.file_at_hand() == 1 and current_path(view) == "checkout.mjs"
        await pilot.press("v", "u")
        await wait_until(pilot, lambda: "viewed 2/5" in header(screen) and view.file_at_hand() == 2)
    # A new console: the marks are in the score file.
    assert "[[viewed]]" in (tmp_path / "reader.review.toml").read_text()
    app = ReviewApp(tmp_path, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        await wait_until(pilot, lambda: "viewed 2/5" in header(screen))
        assert screen.query_one(FileList).get_row_at(1)[0].plain.startswith("✓ checkout.mjs")
    # The candidate changes checkout.mjs again: read it again; backoff.mjs is untouched and stays read.
    commit_as(repo, "Log the attempts\n", {"checkout.mjs": (repo / "checkout.mjs").read_text() + "// logged\n"})
    app = ReviewApp(tmp_path, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        await wait_until(pilot, lambda: "viewed 1/5" in header(screen))
        files = screen.query_one(FileList)
        assert files.get_row_at(0)[0].plain.startswith("✓ backoff.mjs")
        assert files.get_row_at(1)[0].plain.startswith("  checkout.mjs")
    # Another reviewer has marks of their own.
    app = ReviewApp(tmp_path, run_harness=False, reviewers=("bob",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        assert "viewed 0/5" in header(screen)


async def test_side_by_side_on_a_wide_terminal_and_the_unified_diff_at_80x24(tmp_path):
    reading_submission(tmp_path)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        await pilot.press("S")
        await settle(app, pilot)
        assert not view.side_by_side and not view.paired
        assert any("Side by side needs a terminal of 160 columns" in n.message for n in posted(app))
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(200, 50)) as pilot:
        screen, view = await open_reader(app, pilot, tmp_path)
        assert not screen.zoomed
        await pilot.press("S")
        await settle(app, pilot)
        # The pane takes the screen for it; the removed line faces its replacement on one row.
        assert screen.zoomed and view.paired
        row = next(row for row in rows_of(view) if "maxAttempts" in row)
        assert "maxRetries" in row and row.index("maxAttempts") < row.index("┃") < row.index("maxRetries")
        assert any("↕-export function parseAmount" in r and "┃" in r for r in rows_of(view))
        await pilot.press("S")
        await settle(app, pilot)
        assert not screen.zoomed and not view.paired
        assert any("│-    const response" in r for r in rows_of(view))


async def test_less_than_on_the_whole_submission_opens_the_last_commits_diff(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        pane = screen.query_one(DiffPane)
        assert pane.shown.label.startswith("whole submission")
        last = len(pane.ranges) - 1
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert pane.shown == pane.ranges[last] and pane.shown.label.startswith(f"commit {last} of {last}:")
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert pane.shown == pane.ranges[last]
        assert any("This is the last commit's diff" in n.message for n in posted(app))
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert pane.shown == pane.ranges[last - 1]


async def test_the_file_list_shows_every_count_when_the_pane_is_not_zoomed(tmp_path):
    repo = make_repo(tmp_path / "wide", {"README.md": "task\n"}, "starter")
    commit_as(
        repo,
        "Add modules\n\nCo-authored-by: Claude <noreply@anthropic.com>\n",
        {
            "mod1.mjs": "".join(f"export const v{i} = {i};\n" for i in range(150)),
            "src/payments/gateway/adapters/card.mjs": "export const x = 1;\n",
        },
    )
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_submission(app, pilot, "wide")
        # The diff pane is a column of the grid here, narrower than 110: the list is shown with f.
        await pilot.press("f")
        await settle(app, pilot)
        files = screen.query_one(FileList)
        assert 0 < files.region.width <= 30 and not screen.zoomed
        drawn = ["".join(segment.text for segment in files.render_line(y)) for y in range(1, 3)]
        drawn.sort(key=lambda row: "mod1.mjs" not in row)
        assert drawn[0].rstrip().endswith("+150 −0 AI 150") and "mod1.mjs" in drawn[0]
        # A path too long for the list gives way from its start; its counts stay whole.
        assert drawn[1].rstrip().endswith("+1 −0 AI 1") and "…/card.mjs" in drawn[1]


async def test_every_new_diff_key_is_in_help_remappable_and_clashes_with_nothing(sample_cohort, isolated_dirs):
    config = isolated_dirs / "config" / "review"
    config.mkdir(parents=True)
    (config / "keymap.toml").write_text('"diff.words" = "ctrl+w"\n')
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        view = screen.query_one(DiffView)
        new = {
            "diff.words",
            "diff.whitespace",
            "diff.moved-jump",
            "diff.viewed",
            "diff.next-unviewed",
            "diff.side-by-side",
        }
        # No default key of theirs means anything else on the way from the diff to the app.
        chain = [
            (key, binding.id)
            for node in (view, screen.query_one(DiffPane), screen, app)
            for key, bindings in node._bindings.key_to_bindings.items()
            for binding in bindings
        ]
        theirs = {key for key, binding_id in chain if binding_id in new}
        assert theirs == {"w", "W", "M", "v", "u", "S"}
        assert [(key, binding_id) for key, binding_id in chain if key in theirs and binding_id not in new] == []
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        ids = {binding_id: keys for _group, keys, _label, binding_id in app.screen.rows}
        for wanted in new:
            assert wanted in ids, wanted
        assert ids["diff.words"] == "^w"
        await pilot.press("escape", "ctrl+w")
        assert not view.words
