"""The diff pane driven with Pilot on the sample cohort, and its snapshots."""

from __future__ import annotations

from helpers import open_submission, settle
from review.tui.app import ReviewApp
from review.tui.screens.submission.screen import SubmissionScreen
from review.tui.widgets.diff.pane import DiffPane
from review.tui.widgets.diff.view import DiffView
from review.tui.widgets.note_view import NoteView


def current(view: DiffView):
    file_diff, hunk = view.current()
    return (file_diff.path if file_diff else None), hunk


async def first_hunk_of(pilot, screen, path):
    """Step through the hunks to `path`'s first: (the line below the diff, the rows the diff paints)."""
    view = screen.query_one(DiffView)
    while current(view)[0] != path:
        await pilot.press("n")
    await pilot.pause()
    source = str(screen.query_one("#diff-source").render())
    return source, ["".join(segment.text for segment in view.render_line(y)) for y in range(view.size.height)]


async def test_hunk_navigation_and_ai_only(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        view = screen.query_one(DiffView)
        assert app.focused is view
        paths = []
        for _ in range(len(view.hunk_rows)):
            paths.append(current(view)[0])
            await pilot.press("n")
        assert paths == ["NOTE.md", "checkout.mjs", "test/checkout.test.mjs"]
        await pilot.press("N", "left_square_bracket")
        assert current(view)[0] == "NOTE.md"
        await pilot.press("a")
        assert view.ai_only
        ai_paths = {view.diff.files[view.rows[i].file].path for i in view.hunk_rows}
        assert ai_paths == {"checkout.mjs"}
        assert current(view)[1].tools == ["OpenAI Codex"]
        await pilot.pause()
        # The line below the diff follows the hunk.
        source = str(screen.query_one("#diff-source").render())
        assert source.startswith("checkout.mjs") and "AI (OpenAI Codex)" in source
        await pilot.press("a")
        assert len(view.hunk_rows) == 3
        await pilot.pause()
        assert str(screen.query_one("#diff-source").render()).startswith("NOTE.md")


async def test_commit_stepping_and_draft_against_head(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        pane = screen.query_one(DiffPane)
        view = screen.query_one(DiffView)
        assert pane.shown.label.startswith("whole submission")
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert "Add checkout client with retries" in pane.shown.label
        tools = {line.tool for h in view.diff.files[0].hunks for line in h.lines if line.kind == "+"}
        assert tools == {"GitHub Copilot"}
        await pilot.press("greater_than_sign")
        await settle(app, pilot)
        assert "one idempotency key per charge" in pane.shown.label
        changed = [line for h in view.diff.files[0].hunks for line in h.lines if line.kind != " "]
        assert any("const idempotencyKey = crypto.randomUUID()" in line.text for line in changed)
        # Ben's own commit.
        assert all(line.tool is None for line in changed)
        await pilot.press("D")
        await settle(app, pilot)
        assert pane.shown.label.startswith("model draft")
        await pilot.press("d")
        await settle(app, pilot)
        assert pane.shown.label.startswith("whole submission")


async def test_note_pane_shows_the_note_literally(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "finn-mueller")
        assert not screen.score_session.note_opened
        await pilot.press("2")
        await pilot.pause()
        assert screen.score_session.note_opened and isinstance(app.focused, NoteView)
        summary = str(screen.query_one("#note-summary").render())
        assert "declares no assistant" in summary and "Cursor" in summary
        text = str(screen.query_one("#note-text").render())
        assert ' 4 │ Ran the stub: `{"charges":2,"distinctKeys":1}`.' in text
        assert "11 │ None. I wrote this by hand." in text


async def test_hostile_note_and_diff_text_render_inert(tmp_path):
    from helpers import make_repo

    hostile = "[@click=app.quit]x[/] \x1b]52;c;cGF3bg==\x07 \u202eevil"
    make_repo(tmp_path / "evil", {"NOTE.md": f"## AI disclosure\n{hostile}\n", "checkout.mjs": hostile + "\n"})
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "evil")
        view = screen.query_one(DiffView)
        rendered = "".join(segment.text for y in range(view.size.height) for segment in view.render_line(y))
        assert "[@click=app.quit]x[/]" in rendered and "␛]52;c;cGF3bg==\\x07" in rendered
        assert "<U+202E>" in rendered
        assert "\x1b" not in rendered
        await pilot.press("2")
        await pilot.click("#note-text", offset=(6, 2))
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, SubmissionScreen)


async def test_a_100k_line_diff_opens_and_scrolls(tmp_path):
    from helpers import commit_as, make_repo

    repo = make_repo(tmp_path / "big", {"README.md": "x\n"}, "starter")
    commit_as(repo, "big", {"big.mjs": "".join(f"export const v{i} = {i};\n" for i in range(100_000))})
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "big")
        view = screen.query_one(DiffView)
        assert len(view.rows) > 100_000
        await pilot.press("G")
        await pilot.pause()
        bottom = "".join(s.text for s in view.render_line(view.size.height - 1))
        assert "v99999" in bottom
        await pilot.press("g", "space", "space")
        assert view.scroll_offset.y > 0


async def test_help_on_the_submission_screen_lists_the_focused_panes_keys_each_once_with_remapped_keys(
    sample_cohort, isolated_dirs
):
    from review.tui.screens.help import HelpScreen

    config = isolated_dirs / "config" / "review"
    config.mkdir(parents=True)
    (config / "keymap.toml").write_text('"log.run" = "ctrl+r"\n')
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("5", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        every = app.screen.rows
        # The focused pane's keys come first, then the screen's and the app's; the other panes' (the
        # diff's own c among them) after those, each said to work once its pane is focused.
        assert every[0][0] == "Stub log"
        rows = [row for row in every if not row[0].endswith("once focused")]
        assert every[: len(rows)] == rows
        assert {group for group, *_ in rows} == {"Stub log", "Submission", "Everywhere"}
        assert {group for group, *_ in every[len(rows) :]} == {
            "Diff — once focused",
            "Note — once focused",
            "Rubric — once focused",
            "Rubric signal — once focused",
            "Rubric flag — once focused",
            "Commits — once focused",
        }
        ids = {binding_id: (group, keys) for group, keys, _, listed in rows for binding_id in listed.split()}
        for wanted in (
            "log.run",
            "log.before-after",
            "log.coverage",
            "log.line-down",
            "log.follow",
            "submission.save",
            "submission.pane-diff",
            "submission.close",  # q: back to triage, as tig's q closes a view
            "app.quit-alt",  # ctrl+q still quits from here
        ):
            assert wanted in ids, wanted
        assert "diff.coverage" not in ids and "rubric.strong" not in ids
        later = {binding_id: group for group, _, _, listed in every[len(rows) :] for binding_id in listed.split()}
        assert (
            later["diff.coverage"] == "Diff — once focused" and later["rubric.strong"] == "Rubric signal — once focused"
        )
        keys = [key for _, shown, _, _ in rows for key in shown.split()]
        assert keys.count("c") == 1
        assert ids["log.run"][1] == "^r"
        await pilot.press("escape")
        # The remapped key runs the suite.
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.screen.query_one("StubLog").running
        await pilot.press("escape")


async def test_help_on_the_note_lists_the_notes_keys_not_the_diffs(sample_cohort):
    from review.tui.screens.help import HelpScreen

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("2", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = [row for row in app.screen.rows if not row[0].endswith("once focused")]
        assert rows[0][0] == "Note"
        assert {group for group, *_ in rows} == {"Note", "Submission", "Everywhere"}
        ids = {binding_id for *_, listed in rows for binding_id in listed.split()}
        assert {"note.down", "note.page-down", "submission.back"} <= ids
        assert not any(binding_id.startswith("diff.") for binding_id in ids)
        await pilot.press("escape", "j")
        await pilot.pause()
        assert app.screen.query_one("#note-view").scroll_offset.y > 0


async def test_z_zooms_the_focused_pane_to_the_whole_screen_and_back(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    # wider: four panes side by side.
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        shown = [name for name in ("diff", "note", "log", "rubric") if screen.query_one(f"#pane-{name}").display]
        assert len(shown) == 4
        # The stub log alone.
        await pilot.press("5", "z")
        await pilot.pause()
        assert [n for n in ("diff", "note", "log", "rubric", "commits") if screen.query_one(f"#pane-{n}").display] == [
            "log"
        ]
        assert screen.query_one("#pane-log").region.width >= 195
        await pilot.press("z")
        await pilot.pause()
        assert all(screen.query_one(f"#pane-{name}").display for name in shown)


async def test_a_commit_adding_the_note_counts_no_prose_as_code(tmp_path):
    """Each commit's header leaves the note out of the lines of code, as the whole submission's does."""
    from helpers import git, make_repo

    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    (repo / "checkout.mjs").write_text("export const a = 1;\nexport const b = 2;\n")
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "code\n\nCo-authored-by: Claude <noreply@anthropic.com>", cwd=repo)
    (repo / "NOTE.md").write_text("## AI disclosure\nClaude wrote checkout.mjs.\n" + "I checked it.\n" * 9)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "note", cwd=repo)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await open_submission(app, pilot, "cand")
        pane = screen.query_one(DiffPane)
        whole = " ".join(str(pane.query_one("#diff-range").render()).split())
        assert "AI-attributed 2 of 2 lines of code" in whole and "11 added lines not counted (prose" in whole
        for _ in range(2):
            await pilot.press("greater_than_sign")
            await settle(app, pilot)
        assert "“note”" in pane.shown.label
        header = " ".join(str(pane.query_one("#diff-range").render()).split())
        # No code in this commit: no share to give.
        assert "lines of code" not in header
        assert "11 added lines not counted (prose: the note, a README)" in header
        await pilot.press("less_than_sign")
        await settle(app, pilot)
        assert "AI-attributed 2 of 2 lines of code (AI 100%)" in " ".join(
            str(pane.query_one("#diff-range").render()).split()
        )


async def test_a_moved_persons_block_says_where_it_came_from_in_the_gutter_and_below_the_diff(tmp_path):
    from helpers import git, make_repo

    function = (
        "export function parseAmount(text) {\n  const value = Number.parseFloat(text);\n"
        "  return Math.round(value * 100);\n}\n"
    )
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    for name, files in (
        ("Ann", {"a.mjs": "export const a = 1;\n" + function}),
        ("Ann (aider)", {"a.mjs": "export const a = 1;\n", "b.mjs": "export const b = 2;\n" + function}),
    ):
        for path, text in files.items():
            (repo / path).write_text(text)
        git("add", "-A", cwd=repo)
        git("commit", "-q", "-m", "step", cwd=repo, env={"GIT_AUTHOR_NAME": name, "GIT_COMMITTER_NAME": name})
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_submission(app, pilot, "cand")
        source, rendered = await first_hunk_of(pilot, screen, "b.mjs")
        assert "AI (Aider)" in source and "moved from a.mjs:2 (" in source and ", Ann)" in source
        moved = [row for row in rendered if "parseFloat" in row]
        assert moved and "mv│" in moved[0]  # Ann's line, moved by aider: marked moved, not AI
        assert any("Ai│+export const b = 2;" in row for row in rendered)  # aider's own line


async def test_lines_carried_from_a_squashed_commits_note_are_marked_and_the_note_is_listed(tmp_path):
    """An agent's git-ai note on a commit the candidate squashed away: its lines are marked in the
    diff, the line below the diff says where they came from, and the Note pane lists the note."""
    from helpers import git, make_repo

    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    (repo / "checkout.mjs").write_text(
        "export async function chargeWithRetry(amount) {\n"
        "  const idempotencyKey = await loadOrCreateKey(amount);\n"
        "  return sendWithBackoff(amount, idempotencyKey);\n}\n"
    )
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "agent", cwd=repo)
    agent = git("rev-parse", "HEAD", cwd=repo).strip()
    git(
        "notes",
        "--ref=ai",
        "add",
        "-m",
        'checkout.mjs\n  s_aaaaaaaaaaaaaa 1-4\n---\n{"sessions": {"s_aaaaaaaaaaaaaa": '
        '{"agent_id": {"tool": "claude", "id": "x"}}}}\n',
        agent,
        cwd=repo,
    )
    with (repo / "checkout.mjs").open("a") as handle:
        handle.write("export const persisted = new Map();\n")
    git("commit", "-q", "-am", "mine", cwd=repo)
    git("reset", "-q", "--soft", "HEAD~2", cwd=repo)
    git("commit", "-q", "-m", "Solution", cwd=repo)
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(160, 30)) as pilot:
        screen = await open_submission(app, pilot, "cand")
        source, rendered = await first_hunk_of(pilot, screen, "checkout.mjs")
        assert "AI (Claude Code)" in source and f"git-ai note on {agent[:7]}, from a rewritten commit" in source
        assert any("CC│+export async function chargeWithRetry" in row for row in rendered)
        # The candidate's own line, in a submission that discloses nothing: no source speaks for it.
        assert any("? │+export const persisted" in row for row in rendered)
        await pilot.press("2")
        await pilot.pause()
        summary = str(screen.query_one("#note-summary").render())
        assert "1 git-ai note describes a commit not in this history: Claude Code, 4 lines of checkout.mjs" in summary
        assert f"git-ai note on {agent[:7]} (not in this history)" in summary


async def test_a_line_wider_than_the_pane_says_so_at_its_edge_until_scrolled_to_its_end(tmp_path):
    from helpers import commit_as, make_repo

    repo = make_repo(tmp_path / "wide", {"README.md": "x\n"}, "starter")
    # Long enough to scroll: the vertical scrollbar covers the pane's last columns.
    # One line exactly a column too wide for the 78 columns seen at 80: 16 of gutter and sign, then 63.
    commit_as(
        repo,
        "wide",
        {
            "wide.mjs": "export const short = 1;\nexport const long = '"
            + "x" * 150
            + "';\n"
            + "export const edge = '"
            + "y" * 40
            + "';\n"
            + "".join(f"export const v{i} = {i};\n" for i in range(60))
        },
    )
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "wide")
        view = screen.query_one(DiffView)
        await pilot.pause()

        def row_with(text: str) -> str:
            """The row as seen: the columns the vertical scrollbar does not cover."""
            painted = ["".join(s.text for s in view.render_line(y)) for y in range(view.size.height)]
            return next(row for row in painted if text in row)[: view.visible_width]

        assert view.visible_width < view.size.width  # the scrollbar covers the last columns
        assert row_with("const long").endswith("›") and not row_with("const short").rstrip().endswith("›")
        assert row_with("const edge").endswith("›")
        # l scrolls a few columns a press, not one.
        await pilot.press("l")
        assert view.scroll_offset.x == DiffView.SIDEWAYS_STEP
        await pilot.press("h")
        assert view.scroll_offset.x == 0
        # Scrolled to the line's end, nothing is cut.
        view.scroll_to(x=view.max_scroll_x, animate=False)
        await pilot.pause()
        assert row_with("xxx';").rstrip().endswith("';")


async def test_next_and_previous_file_work_when_the_whole_diff_fits_on_screen(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        await pilot.press("1")
        await settle(app, pilot)
        view = screen.query_one(DiffView)
        # Nothing to scroll: J and K cannot lean on the scroll position.
        assert view.max_scroll_y == 0 and len(view.file_rows) >= 2
        first = current(view)[0]
        await pilot.press("J")
        assert current(view)[0] != first
        await pilot.press("K")
        assert current(view)[0] == first


async def test_a_hunk_header_wider_than_the_pane_ends_in_the_mark(tmp_path):
    from helpers import commit_as, make_repo

    # git puts the enclosing line after "@@ … @@": here a long import, as in a real client.
    head = "import { readFileSync, renameSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';\n"
    # Far enough below it that the hunk's context does not reach it (indented: git names the nearest
    # line that starts at the margin).
    head += "".join(f"  // unchanged {i}\n" for i in range(10))
    repo = make_repo(
        tmp_path / "hdr", {"client.mjs": head + "".join(f"const v{i} = {i};\n" for i in range(20))}, "starter"
    )
    commit_as(repo, "change", {"client.mjs": head + "".join(f"const v{i} = {i * 2};\n" for i in range(20))})
    app = ReviewApp(tmp_path, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "hdr")
        view = screen.query_one(DiffView)
        await pilot.pause()
        painted = ["".join(s.text for s in view.render_line(y))[: view.visible_width] for y in range(view.size.height)]
        header = next(row for row in painted if "@@ " in row and "import" in row)
        assert header.endswith("›")
