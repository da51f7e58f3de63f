"""Scoring a sample submission from the keyboard, with Pilot on the real app and real files."""

from __future__ import annotations

import tomllib

import pytest

from helpers import git, open_submission, posted, settle, wait_until
from review.core import evidence
from review.core.rubric import NO_DECISION
from review.services import store
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen
from review.tui.screens.submission.screen import SubmissionScreen
from review.tui.widgets.rubric_form import RubricForm, SignalRow

# Tiers written as 1-3 below; typed as w / a / s.
TIER_KEYS = {"1": "w", "2": "a", "3": "s", "0": "n"}


async def score_all(pilot, tiers="32123"):
    await pilot.press("4")
    for index, key in enumerate(tiers):
        await pilot.press(TIER_KEYS[key])
        if index < len(tiers) - 1:
            await pilot.press("down")


def saved(cohort, name):
    return tomllib.loads((cohort / f"{name}.review.toml").read_text())["reviews"]


async def test_keyboard_only_scoring_with_the_note_gate_and_reopen(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        await score_all(pilot)
        assert isinstance(app.focused, SignalRow) and app.focused.signal.id == "blast-radius"
        await pilot.press("c", *"names timeouts", "enter")
        # final, but the note was never opened.
        await pilot.press("F", "ctrl+s")
        # The save may queue behind an autosave already under way: wait for its answer (a draft
        # saved, or nothing new to save, because final was refused: said with why).
        await wait_until(
            pilot, lambda: "final refused — the note has not been on screen" in screen.form.status, timeout=20
        )
        entry = saved(sample_cohort, "chen-wei")[0]
        assert entry["state"] == "draft" and "note_opened" not in entry
        # The focused signal's tier.
        await pilot.press("a")
        assert screen.query_one(RubricForm).values()["tiers"]["blast-radius"] == "acceptable"
        # a digit always goes to a pane: the note, and it is on screen now.
        await pilot.press("2")
        assert screen.score_session.note_opened and screen.active_pane == "note"
        assert screen.query_one(RubricForm).values()["tiers"]["blast-radius"] == "acceptable"
        await pilot.press("4", "F", "ctrl+s")
        await settle(app, pilot)
        entry = saved(sample_cohort, "chen-wei")[0]
        # Autosaves count too.
        assert entry["state"] == "final" and entry["note_opened"] and entry["revision"] >= 2
        assert entry["tiers"] == {
            "found-defect": "strong",
            "key-scope": "acceptable",
            "evidence": "weak",
            "explanation": "acceptable",
            "blast-radius": "acceptable",
        }
        assert entry["comments"] == {"blast-radius": "names timeouts"}
        await pilot.press("escape")
        await settle(app, pilot)
        cohort_screen = app.screen
        assert isinstance(cohort_screen, CohortScreen)
        assert str(cohort_screen.table.get_cell("chen-wei", "mine")) == "final"
        await pilot.press("enter")
        await settle(app, pilot)
        await wait_until(pilot, lambda: app.screen.panes_ready, timeout=30)
        form = app.screen.query_one(RubricForm)
        assert form.values()["tiers"]["found-defect"] == "strong" and form.state == "final"


async def test_typing_in_a_comment_never_triggers_a_binding(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        await pilot.press("4", "c", *"1 2 3 q n s F ?", "enter")
        form = screen.query_one(RubricForm)
        assert form.values()["comments"] == {"found-defect": "1 2 3 q n s F ?"}
        assert form.values()["tiers"] == {} and form.state == "draft" and app.is_running


async def test_stale_after_a_new_commit(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await score_all(pilot)
        await pilot.press("f3", "4", "F", "ctrl+s")
        await settle(app, pilot)
    entry_commit = saved(sample_cohort, "ben-larsen")[0]["commit"]
    repo = sample_cohort / "ben-larsen"
    git("checkout", "-q", "main", cwd=repo)
    (repo / "checkout.mjs").write_text("// rewritten after review\n")
    git("commit", "-qam", "Late change after the deadline", cwd=repo)
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        assert str(app.screen.table.get_cell("ben-larsen", "mine")) == "stale"
        screen = await open_submission(app, pilot, "ben-larsen")
        status = str(screen.query_one("#rubric-status").render())
        assert "STALE" in status and "Late change after the deadline" in status
        # What the runs said then and now, on a line of its own (not joined on by a literal ⏎).
        assert "runs:" in status and "⏎" not in status
        assert status.splitlines()[0].startswith("STALE") and status.splitlines()[-1].startswith("runs:")
        form = screen.query_one(RubricForm)
        assert form.values()["tiers"]["found-defect"] == "strong" and form.state == "draft"
        # Re-review: the diff opens on what changed since the reviewed commit, not the whole submission.
        from review.tui.widgets.diff.pane import DiffPane

        pane = screen.query_one(DiffPane)
        await wait_until(pilot, lambda: pane.shown is not None and pane.shown.label.startswith("since your review"))
        assert [f.path for f in pane.shown_diff.files] == ["checkout.mjs"]
        assert pane.shown_diff.added == 1 and pane.shown.base == entry_commit
        await pilot.press("1", "d")
        await wait_until(pilot, lambda: pane.shown.label.startswith("whole submission"))


@pytest.mark.parametrize("key", ["ctrl+n", "ctrl+g"])  # ctrl+g: what a browser tab leaves to the page
async def test_save_and_next_opens_the_next_unscored(sample_cohort, key):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        await open_submission(app, pilot, "ada-okafor")
        await score_all(pilot)
        await pilot.press(key)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SubmissionScreen) and app.screen.row.name == "ben-larsen"
        )
    assert saved(sample_cohort, "ada-okafor")[0]["state"] == "draft"


async def test_save_and_next_under_a_filter_with_nothing_left_says_so_and_stays_on_triage(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"ada", "enter")
        await open_submission(app, pilot, "ada-okafor")
        await score_all(pilot)
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        # Never the same submission again, silently.
        assert isinstance(app.screen, CohortScreen)
        said = [n.message for n in posted(app)]
        assert any(
            "No other submission shown is left for ana to score" in m and "outside the filter" in m for m in said
        )
    assert saved(sample_cohort, "ada-okafor")[0]["state"] == "draft"


async def test_read_only_score_file_keeps_the_review_in_the_form(sample_cohort):
    (sample_cohort / "dev-patel.review.toml").write_text("broken = [")
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_submission(app, pilot, "dev-patel")
        await score_all(pilot, "11")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "NOT SAVED" in str(screen.query_one("#rubric-status").render())
        assert screen.query_one(RubricForm).values()["tiers"] == {"found-defect": "weak", "key-scope": "weak"}
    assert (sample_cohort / "dev-patel.review.toml").read_text() == "broken = ["


async def test_blind_mode_hides_others_until_final(sample_cohort):
    store.save(
        sample_cohort / "eve-santos", store.Review(["bob"], "0" * 40, state="final", tiers={"evidence": "strong"})
    )
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",), blind=True)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_submission(app, pilot, "eve-santos")
        assert "hidden until yours is final" in str(screen.query_one("#others").render())
        await score_all(pilot, "11211")
        await pilot.press("f3", "4", "F", "ctrl+s")
        await settle(app, pilot)
        others = str(screen.query_one("#others").render())
        assert "bob" in others and "Evidence: strong ≠" in others


async def test_blind_mode_hides_how_far_the_others_agree_until_mine_is_final(sample_cohort):
    """The Agree column (and its sort) says whether the other reviewer disagrees: blind, it waits for
    this reviewer's own final review at HEAD, as the other reviewers' scores do."""
    from review.tui.widgets.triage.cells import COLUMN_INDEX

    head = git("rev-parse", "HEAD", cwd=sample_cohort / "eve-santos").strip()
    tiers = {"found-defect": "weak", "key-scope": "weak", "evidence": "strong"}
    store.save(sample_cohort / "eve-santos", store.Review(["bob"], head, state="final", tiers=tiers))
    store.save(sample_cohort / "eve-santos", store.Review(["ana"], head, tiers={**tiers, "evidence": "weak"}))

    def agree_cell(screen) -> str:
        return str(screen.table.get_cell("eve-santos", "agreement"))

    seeing = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with seeing.run_test(size=(100, 40)) as pilot:
        await settle(seeing, pilot)
        assert agree_cell(seeing.screen) == "2/3"  # not blind: shown
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",), blind=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        triage = app.screen
        assert agree_cell(triage) == ""
        # Sorting by it puts eve with the rows no one has agreed on, not first as the most disagreed.
        for _ in range(COLUMN_INDEX["agreement"]):
            await pilot.press("s")
        order = [row.name for row in triage.visible_rows()]
        assert order == sorted(order)  # nothing to sort by: by name, eve among them
        assert "2/3" not in " ".join(triage.title_bar.parts) + str(triage.detail.render())
        screen = await open_submission(app, pilot, "eve-santos")
        await score_all(pilot, "11111")
        await pilot.press("f3", "4", "F", "ctrl+s")
        await settle(app, pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, CohortScreen), timeout=10)
        assert screen.score_session.scores.find((("ana",), head)).state == "final"
        await wait_until(pilot, lambda: agree_cell(app.screen) == "2/3", timeout=10)


async def test_g_follows_a_hint_to_the_note_line_and_4_comes_back_to_the_signal(sample_cohort):
    from review.tui.widgets.note_view import NoteView

    def top_note_line(note) -> str:
        text = note.query_one("#note-text")
        shown = str(text.render()).split("\n")
        # Below one line of context.
        return shown[note.scroll_offset.y - text.virtual_region.y + 1].lstrip()

    def visible_note_lines(note) -> list[str]:
        text = note.query_one("#note-text")
        start = note.scroll_offset.y - text.virtual_region.y
        shown = str(text.render()).split("\n")
        return [line.lstrip() for line in shown[max(0, start) : start + note.scrollable_content_region.height]]

    async def settles(pilot, check) -> None:
        """The scroll lands after a refresh or two (the note re-wraps when first shown): poll, don't guess."""
        for _ in range(50):
            await pilot.pause(0.05)
            try:
                if check():
                    return
            except IndexError:
                pass
        assert check()

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    # tabs: the note takes the screen.
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        # Explanation.
        await pilot.press("4", "down", "down", "down")
        row = app.focused
        assert isinstance(row, SignalRow) and row.signal.id == "explanation"
        # typed: the UI goes by it.
        assert all(isinstance(h.source, evidence.NoteLines) for h in row.hints)
        lines = [h.source.lines[0] for h in row.hints]
        await pilot.press("g")
        note = screen.query_one(NoteView)
        await settles(pilot, lambda: top_note_line(note).startswith(f"{lines[0]} │"))
        assert screen.active_pane == "note" and screen.score_session.note_opened and app.focused is note
        await pilot.press("4")
        assert app.focused is row
        # The next hint: the restart gap (near the end: on screen, maybe not on top)
        await pilot.press("g")
        await settles(pilot, lambda: any(line.startswith(f"{lines[1]} │") for line in visible_note_lines(note)))
        assert lines[1] != lines[0]
        assert not any(line.startswith(f"{lines[0]} │") for line in visible_note_lines(note))

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    # wide: the note shows beside the rubric.
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        await pilot.press("4", "down", "down", "down", "g")
        await settles(pilot, lambda: screen.query_one("#pane-note").display)
        assert isinstance(app.focused, SignalRow)
        await pilot.press("g")
        note = screen.query_one(NoteView)
        await settles(pilot, lambda: any(line.startswith(f"{lines[1]} │") for line in visible_note_lines(note)))


async def test_digits_always_mean_panes_and_never_change_a_score(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        # Found the defect: Weak; the signal has focus.
        await score_all(pilot, "1")
        form = screen.query_one(RubricForm)
        for digit, pane in (
            ("2", "note"),
            ("4", "rubric"),
            ("3", "commits"),
            ("4", "rubric"),
            ("1", "diff"),
            ("4", "rubric"),
            ("5", "log"),
            ("4", "rubric"),
        ):
            await pilot.press(digit)
            assert screen.active_pane == pane
            assert form.values()["tiers"] == {"found-defect": "weak"}
        # The note was on screen.
        assert "2 shows it" not in str(screen.query_one("#rubric-header").render())


async def test_the_note_counts_as_read_when_it_is_on_screen_in_its_own_column(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    # wider: the note has a column of its own.
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        assert screen.query_one("#pane-note").display and screen.score_session.note_opened
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("bob",))
    # tabs: only once its tab is shown.
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        assert not screen.score_session.note_opened
        await pilot.press("2")
        assert screen.score_session.note_opened


async def test_q_with_unsaved_scores_asks_and_each_answer_does_what_it_says(sample_cohort):
    from review.tui.modals.leave import LeaveScreen

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        # So that nothing is autosaved before the question.
        screen.scoring.AUTOSAVE_SECONDS = 60
        await score_all(pilot, "32")
        # Focus on a flag, as the reviewer had it.
        await pilot.press("down", "down", "down", "down", "down", "q")
        await settle(app, pilot)
        assert isinstance(app.screen, LeaveScreen) and app.is_running
        # stay: nothing changed.
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen and screen.query_one(RubricForm).values()["tiers"] == {
            "found-defect": "strong",
            "key-scope": "acceptable",
        }
        assert not (sample_cohort / "ada-okafor.review.toml").exists()
        # ctrl+c asks the same; s saves, then quits.
        await pilot.press("ctrl+c", "s")
        await settle(app, pilot)
    assert not app.is_running
    assert saved(sample_cohort, "ada-okafor")[0]["tiers"] == {"found-defect": "strong", "key-scope": "acceptable"}

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        screen.scoring.AUTOSAVE_SECONDS = 60
        # Back to triage asks too.
        await pilot.press("4", "w", "escape")
        await settle(app, pilot)
        assert isinstance(app.screen, LeaveScreen)
        # Leave without saving.
        await pilot.press("d")
        await settle(app, pilot)
        assert isinstance(app.screen, CohortScreen)
    assert saved(sample_cohort, "ada-okafor")[0]["tiers"]["found-defect"] == "strong"


async def test_every_change_is_on_disk_a_moment_later_so_a_killed_console_loses_nothing(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "dev-patel")
        await score_all(pilot, "123")
        await pilot.press("c", *"cites the stub", "enter", "down", "down", "down", "space")
        path = sample_cohort / "dev-patel.review.toml"
        form = screen.query_one(RubricForm)
        # No save was asked for: the autosave writes it.
        # The write runs in a worker and its result reaches the form later: wait for both, not for a time.
        for _ in range(300):
            await pilot.pause(0.05)
            if path.exists() and saved(sample_cohort, "dev-patel")[0].get("flags") and not form.dirty:
                break
        entry = saved(sample_cohort, "dev-patel")[0]
        assert entry["state"] == "draft" and entry["comments"] == {"evidence": "cites the stub"}
        assert entry["tiers"] == {"found-defect": "weak", "key-scope": "acceptable", "evidence": "strong"}
        assert entry["flags"] == [form.rubric.flags[0].id]
        assert not form.dirty
        # The console dies here (no quit, no question): what is on disk is what the next one opens.
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "dev-patel")
        values = screen.query_one(RubricForm).values()
        assert values["tiers"] == entry["tiers"] and values["comments"] == entry["comments"]
        assert values["flags"] == entry["flags"]


async def test_comments_anchored_to_a_hunk_and_a_log_line_travel_into_the_toml_and_the_export(sample_cohort, capsys):
    from helpers import seed_ben_suite
    from review.cli import main

    # The stub log opens with ben-larsen's cached run at HEAD.
    seed_ben_suite()
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        # The second hunk of the whole diff: checkout.mjs.
        await pilot.press("1", "n", "m")
        await settle(app, pilot)
        await pilot.press(*"key made inside the loop", "enter")
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("m", *"503 retried with a new key", "enter")
        await settle(app, pilot)
        form = screen.query_one(RubricForm)
        anchored = form.values()["anchored"]
        assert [a["text"] for a in anchored] == ["key made inside the loop", "503 retried with a new key"]
        assert anchored[0]["at"].startswith("checkout.mjs:") and anchored[1]["at"].startswith("stub log")
        # A place, cut with a plain "…" if long: never "[N more characters]" inside it.
        assert all("more characters" not in a["at"] for a in anchored)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    entry = saved(sample_cohort, "ben-larsen")[0]
    assert entry["anchored"] == anchored
    assert main(["export", str(sample_cohort), "--format", "csv"]) == 0
    ben = [line for line in capsys.readouterr().out.split("\r\n") if line.startswith("ben-larsen,")]
    assert len(ben) == 1 and "checkout.mjs:" in ben[0]


async def test_escape_in_a_line_comment_keeps_what_was_typed_as_the_rubrics_boxes_do(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        await pilot.press("1", "n", "m")
        await settle(app, pilot)
        await pilot.press(*"typed, then escape by habit", "escape")
        await settle(app, pilot)
        assert [a["text"] for a in screen.query_one(RubricForm).values()["anchored"]] == ["typed, then escape by habit"]
        # m again at the same place opens that comment to edit, never a second one.
        await pilot.press("m", *", edited", "enter")
        await settle(app, pilot)
        assert [a["text"] for a in screen.query_one(RubricForm).values()["anchored"]] == [
            "typed, then escape by habit, edited"
        ]
        # Quit asks (the edit may not be autosaved yet): s saves and goes.
        await pilot.press("ctrl+q")
        await settle(app, pilot)
        await pilot.press("s")
        await settle(app, pilot)
    assert saved(sample_cohort, "ben-larsen")[0]["anchored"][0]["text"] == "typed, then escape by habit, edited"


async def test_a_line_comment_emptied_is_deleted(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        await pilot.press("1", "n", "m", *"a slip", "enter")
        await settle(app, pilot)
        form = screen.query_one(RubricForm)
        assert len(form.values()["anchored"]) == 1
        # An empty box that was empty adds nothing; emptied, the comment goes.
        await pilot.press("n", "m", "escape")
        await settle(app, pilot)
        assert len(form.values()["anchored"]) == 1
        await pilot.press("p", "m", "ctrl+u", "enter")
        await settle(app, pilot)
        assert form.values()["anchored"] == []
        assert any("deleted" in n.message for n in posted(app))


async def test_the_overall_comment_is_reached_from_the_keyboard_and_a_comment_box_opens_in_view(sample_cohort):
    from textual.widgets import TextArea

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        await pilot.press("4")
        await settle(app, pilot)
        form = screen.query_one(RubricForm)
        # o goes there from anywhere in the rubric (j past the last flag stays on it: j held down never
        # types into a text box).
        for _ in range(len(form.focus_stops()) + 2):
            await pilot.press("j")
        assert app.focused is list(form.flag_boxes.values())[-1]
        await pilot.press("o")
        assert isinstance(app.focused, TextArea)
        await pilot.press(*"hire")
        await settle(app, pilot)
        assert form.values()["comment"] == "hire"
        # Escape goes back where o was pressed, not to the rubric's top.
        await pilot.press("escape")
        assert app.focused is list(form.flag_boxes.values())[-1]
        # The last signal's comment box, opened from the rubric's foot: on screen while typed into.
        for _ in range(len(form.flag_boxes)):
            await pilot.press("k")
        await pilot.press("c")
        await settle(app, pilot)
        box = form.rows()[-1].comment_box
        assert app.focused is box and box.region.height > 0
        assert form.scrollable_content_region.contains_region(box.region)


async def test_my_entry_saved_before_seals_is_filled_in_to_check_and_the_save_seals_it(sample_cohort):
    from helpers import BEN_HEAD

    (sample_cohort / "ben-larsen.review.toml").write_text(
        f'schema = 1\n[[reviews]]\nreviewers = ["ana"]\nstate = "final"\ncommit = "{BEN_HEAD}"\n'
        '[reviews.tiers]\nkey-scope = "acceptable"\n'
    )
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(app, pilot)
        # Not counted as it stands.
        assert str(app.screen.table.get_cell("ben-larsen", "mine")) == "new"
        screen = await open_submission(app, pilot, "ben-larsen")
        form = screen.query_one(RubricForm)
        assert form.values()["tiers"].get("key-scope") == "acceptable" and form.values()["state"] == "draft"
        assert "UNSEALED" in str(screen.query_one("#rubric-status").render())
        await pilot.press("4", "ctrl+s")
        await wait_until(pilot, lambda: store.read_scores(sample_cohort / "ben-larsen").reviews, timeout=20)
        scores = store.read_scores(sample_cohort / "ben-larsen")
        assert [r.tiers.get("key-scope") for r in scores.reviews] == ["acceptable"] and scores.unsealed == []


async def test_ctrl_s_on_an_untouched_form_writes_nothing_and_says_so(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        await pilot.press("4", "ctrl+s")
        await settle(app, pilot)
        assert not (sample_cohort / "ada-okafor.review.toml").exists()
        assert "nothing to save" in screen.form.status
        assert any("nothing to save" in n.message for n in posted(app))
        await pilot.press("escape")
        await settle(app, pilot)
        assert str(app.screen.table.get_cell("ada-okafor", "mine")) == "new"


async def test_the_header_says_what_a_save_writes_and_a_refused_final_says_why_every_time(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        screen.scoring.AUTOSAVE_SECONDS = 60

        def header() -> str:
            return str(screen.query_one("#rubric-header").render())

        await score_all(pilot, "321")
        await pilot.press("F")
        # Asked for final; refused: two signals have no tier and the note was never on screen.
        assert "will save as DRAFT: final refused — no tier yet for Explanation, Blast radius" in header()
        assert "the note has not been on screen" in header() and "will save as FINAL" not in header()
        toast = list(posted(app))[-1].message
        assert toast.startswith("final asked, but a save now writes a DRAFT") and "Blast radius" in toast
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: "as a DRAFT because final refused" in screen.form.status, timeout=20)
        assert "no tier yet for Explanation, Blast radius" in screen.form.status
        assert "the note has not been on screen" in screen.form.status
        assert saved(sample_cohort, "chen-wei")[0]["state"] == "draft"
        # Said in the console's own words, to a reviewer who never read the task's text.
        # (The header names the rubric's version, an identifier the score file also holds.)
        assert "article" not in screen.form.status.lower()
        assert "rubric article-v1" in header()
        assert "article" not in header().replace("rubric article-v1", "").lower()
        assert not any("article" in n.message.lower() for n in posted(app))
        # The form asks for a draft again, and says so.
        # (The note's gate follows on a line of its own.)
        assert "will save as DRAFT\n" in header()
        # Every time: F and ctrl+s again name what is still missing.
        await pilot.press("down", "s", "F", "ctrl+s")
        await wait_until(
            pilot,
            lambda: (
                "final refused — no tier yet for Blast radius (n means no decision); "
                "the note has not been on screen" in screen.form.status
            ),
            timeout=20,
        )
        await pilot.press("down", "a", "2", "4", "F")
        assert "will save as FINAL\n" in header()
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: screen.form.status.startswith("saved final"), timeout=20)
        assert saved(sample_cohort, "chen-wei")[0]["state"] == "final"


async def test_up_and_down_never_leave_the_signals_and_flags_so_the_tier_keys_always_act(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        form = screen.query_one(RubricForm)
        await pilot.press("4")
        first = app.focused
        assert isinstance(first, SignalRow) and first.signal.id == "found-defect"
        # k and ↑ on the first signal: focus stays on it, and the tier keys still act on it.
        await pilot.press("k", "up", "k")
        assert app.focused is first
        for key, tier in (("a", "acceptable"), ("n", NO_DECISION), ("s", "strong"), ("w", "weak")):
            await pilot.press(key)
            assert form.values()["tiers"] == {"found-defect": tier}
        # g goes to what was observed for it (here, in the stub log or the diff): the rubric is left.
        await pilot.press("g")
        await settle(app, pilot)
        assert screen.active_pane != "rubric" and not screen.focus_in("rubric")
        await pilot.press("4")
        assert app.focused is first
        # j back down: the next signal, as always.
        await pilot.press("j")
        assert isinstance(app.focused, SignalRow) and app.focused.signal.id == "key-scope"
        # Past the last signal: the flags; and from the first flag ↑ comes back to the signals.
        await pilot.press("j", "j", "j", "j")
        assert app.focused is form.flag_boxes["fixed-symptom"]
        await pilot.press("j", "j", "j", "j")
        assert app.focused is form.flag_boxes[form.rubric.flags[-1].id]
        await pilot.press("k", "k", "k")
        assert isinstance(app.focused, SignalRow) and app.focused.signal.id == "blast-radius"
        await pilot.press("s")
        assert form.values()["tiers"] == {"found-defect": "weak", "blast-radius": "strong"}
        # The form itself never takes focus (a click on its background left the keys with nothing to act on).
        assert not form.can_focus


async def test_a_flag_reads_on_or_off_without_colour_in_every_theme(sample_cohort, monkeypatch):
    """`[x]` on, `[ ]` off: under NO_COLOR, in every bundled theme and in Textual's ANSI ones the
    state is in the text, and with colour the mark is not drawn in its background's colour."""
    from textual import constants

    from review.tui import palette, themes

    bundled = sorted(themes.load_themes(themes.bundled_dir()).themes)
    assert len(bundled) >= 3
    default_system = constants.COLOR_SYSTEM
    for theme, no_color in [*((name, False) for name in [*bundled, "ansi-dark", "ansi-light"]), ("review-dark", True)]:
        if no_color:
            # Read when the app is made.
            monkeypatch.setenv("NO_COLOR", "1")
        monkeypatch.setattr(constants, "COLOR_SYSTEM", default_system if no_color else "truecolor")
        app = ReviewApp(sample_cohort, theme=theme, run_harness=False, reviewers=("ana",))
        async with app.run_test(size=(100, 40)) as pilot:
            screen = await open_submission(app, pilot, "ada-okafor")
            form = screen.query_one(RubricForm)
            on, *off = form.rubric.flags
            # Each key once the focus it acts on is there: a loaded machine mounts the pane late.
            await pilot.press("4")
            await wait_until(pilot, lambda app=app: isinstance(app.focused, SignalRow))
            await pilot.press(*"jjjjj")
            await wait_until(pilot, lambda app=app, form=form, on=on: app.focused is form.flag_boxes[on.id])
            await pilot.press("space")
            await wait_until(pilot, lambda form=form, on=on: form.flag_boxes[on.id].value)
            await settle(app, pilot)
            for flag in form.rubric.flags:
                strip = form.flag_boxes[flag.id].render_line(0)
                assert strip.text.lstrip().startswith("[x] " if flag is on else "[ ] "), (theme, strip.text)
                marks = [segment for segment in strip if segment.text.strip() in ("[", "]", "x")]
                assert marks, (theme, strip.text)
                for segment in [] if no_color else marks:
                    style = segment.style
                    if (
                        style is None
                        or not (style.color and style.bgcolor)
                        or style.color.is_default
                        or style.bgcolor.is_default
                    ):
                        # The terminal's own colours.
                        continue
                    # With colour, the mark is not drawn in (nearly) its background's colour either.
                    assert (
                        palette.contrast(style.color, style.bgcolor, palette.SYSTEMS["truecolor"])
                        >= palette.MIN_CONTRAST
                    ), (theme, flag.id, segment)


async def test_escape_after_a_save_goes_back_without_asking_about_unsaved_changes(sample_cohort):
    """A saved form is not "unsaved": neither after a final refused and written as a draft (the form
    asked for final, the file holds a draft) nor after a final that was kept."""
    from review.tui.modals.leave import LeaveScreen

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        screen.scoring.AUTOSAVE_SECONDS = 60
        await score_all(pilot, "32123")
        await pilot.press("F", "ctrl+s")
        await wait_until(pilot, lambda: (sample_cohort / "chen-wei.review.toml").exists(), timeout=20)
        await settle(app, pilot)
        assert saved(sample_cohort, "chen-wei")[0]["state"] == "draft"
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, LeaveScreen) and isinstance(app.screen, CohortScreen)
        assert str(app.screen.table.get_cell("chen-wei", "mine")) == "in review"

        screen = await open_submission(app, pilot, "chen-wei")
        screen.scoring.AUTOSAVE_SECONDS = 60
        await pilot.press("2", "4", "F", "ctrl+s")
        await wait_until(pilot, lambda: screen.form.status.startswith("saved final"), timeout=20)
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, CohortScreen)
        assert str(app.screen.table.get_cell("chen-wei", "mine")) == "final"


async def test_a_change_still_in_the_autosave_pause_is_written_when_the_console_is_told_to_end(sample_cohort):
    """The console told to end (what `review serve` does when its tab closes, and a hangup or TERM)
    before the autosave's pause is over: the change is on disk, not lost."""
    from textual import messages

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        screen.scoring.AUTOSAVE_SECONDS = 60
        await pilot.press("4", "s", "j", "w")
        assert screen.scoring.dirty and not (sample_cohort / "ada-okafor.review.toml").exists()
        app.post_message(messages.ExitApp())
        await wait_until(pilot, lambda: not app.is_running, timeout=30)
    entry = saved(sample_cohort, "ada-okafor")[0]
    assert entry["tiers"] == {"found-defect": "strong", "key-scope": "weak"} and entry["state"] == "draft"


async def test_final_is_written_by_ctrl_s_alone_never_by_the_autosave_of_a_later_change(sample_cohort):
    """F then a tier changed: the autosave writes the tier, the state stays draft on disk (and the
    header still says a save would write FINAL) until the reviewer's own ctrl+s."""
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_submission(app, pilot, "chen-wei")
        await pilot.press("2")
        await score_all(pilot, "32122")
        await wait_until(pilot, lambda: (sample_cohort / "chen-wei.review.toml").exists(), timeout=20)
        await pilot.press("F", "s")
        await wait_until(
            pilot, lambda: saved(sample_cohort, "chen-wei")[0]["tiers"]["blast-radius"] == "strong", timeout=20
        )
        await settle(app, pilot)
        assert saved(sample_cohort, "chen-wei")[0]["state"] == "draft"
        assert "FINAL" in str(screen.form.header.render()) and screen.form.dirty
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: saved(sample_cohort, "chen-wei")[0]["state"] == "final", timeout=20)


async def test_a_second_comment_on_a_signal_adds_to_the_first(sample_cohort):
    """c opens the box with the cursor at the end and nothing selected, as o does: the first key
    typed never replaces what was written before."""
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(100, 40)) as pilot:
        screen = await open_submission(app, pilot, "ada-okafor")
        await pilot.press("4", "c", *"why? no test", "enter")
        await pilot.press("c")
        box = app.focused
        assert box.value == "why? no test" and box.selection.is_empty and box.cursor_position == len(box.value)
        await pilot.press(*" retries 3 times", "enter")
        form = screen.query_one(RubricForm)
        assert form.values()["comments"] == {"found-defect": "why? no test retries 3 times"}
        path = sample_cohort / "ada-okafor.review.toml"
        both = {"found-defect": "why? no test retries 3 times"}
        # The autosave writes what the box holds: both parts, the first never replaced.
        await wait_until(pilot, lambda: path.exists() and saved(sample_cohort, "ada-okafor")[0]["comments"] == both)
