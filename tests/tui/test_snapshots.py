"""Snapshots of every screen, grouped by feature, each in a dark, a light, the high-contrast and an
ANSI theme, and with NO_COLOR: triage (and, in two themes, sorted by key scope with a submission that
arrived while it was open); the submission screen at 80×24 (tabs, as in tmux over SSH) and at 200×50
(every pane side by side); help (`?`); the stub log after a run, at 120×40 and at 80×24 (and, in two
themes, a line selected with its key in full); the rubric at 80×24 and beside another reviewer's
disagreement; reading a diff (changed words, whitespace hidden, a moved block, viewed files, side by
side) in a dark and a light theme and with NO_COLOR. `pytest --snapshot-update` rewrites them after a
deliberate change."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import BEN_HEAD, open_submission, reading_submission, seal_file, seed_ben_suite, settle, wait_until
from review.tui.app import ReviewApp
from review.tui.widgets.diff.pane import DiffPane
from review.tui.widgets.stub_log.log import StubLog

TWO = [
    pytest.param("review-light", False, id="review-light"),
    pytest.param("review-dark", True, id="no-color"),
]
VARIANTS = [
    pytest.param("review-dark", False, id="review-dark"),
    pytest.param("review-light", False, id="review-light"),
    pytest.param("review-high-contrast", False, id="review-high-contrast"),
    pytest.param("ansi-dark", False, id="ansi-dark"),
    pytest.param("review-dark", True, id="no-color"),
]


@pytest.fixture
def make_app(sample_cohort, monkeypatch):
    # Paths on screen (the cohort in the title, the keymap in help) are the same on every run.
    monkeypatch.chdir(sample_cohort.parent)
    monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent/snapshot-config")

    def make(theme: str, no_color: bool, reviewers=("ana",)) -> ReviewApp:
        if no_color:
            # Read when the app is made.
            monkeypatch.setenv("NO_COLOR", "1")
        return ReviewApp(Path(sample_cohort.name), theme=theme, run_harness=False, reviewers=reviewers)

    return make


async def open_ben(pilot):
    await open_submission(pilot.app, pilot, "ben-larsen")
    await pilot.press("n")
    await settle(pilot.app, pilot)


class TestTriage:
    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_80x24(self, snap_compare, make_app, theme, no_color):
        # One row with its runs: marks and key scope.
        seed_ben_suite()

        async def loaded(pilot):
            await settle(pilot.app, pilot)

        assert snap_compare(make_app(theme, no_color), terminal_size=(80, 24), run_before=loaded)

    @pytest.mark.parametrize(("theme", "no_color"), [*TWO[:1], pytest.param("review-dark", False, id="review-dark")])
    def test_80x24_sorted_by_key_scope_with_an_arrival(
        self, snap_compare, make_app, sample_cohort, tmp_path, monkeypatch, theme, no_color
    ):
        import shutil

        from review.tui.screens.cohort import CohortScreen

        seed_ben_suite()
        monkeypatch.setattr(CohortScreen, "WATCH_SECONDS", 0.1)
        shutil.move(sample_cohort / "hal-kim", tmp_path / "hal-kim")

        async def arrived(pilot):
            await settle(pilot.app, pilot)
            shutil.copytree(tmp_path / "hal-kim", sample_cohort / "hal-kim", symlinks=True)
            await wait_until(
                pilot,
                lambda: pilot.app.screen.rows.get("hal-kim") is not None and pilot.app.screen.rows["hal-kim"].complete,
                timeout=30,
            )
            await pilot.press("s", "s")
            await settle(pilot.app, pilot)

        assert snap_compare(make_app(theme, no_color), terminal_size=(80, 24), run_before=arrived)


class TestSubmissionScreen:
    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_80x24_diff_tab(self, snap_compare, make_app, theme, no_color):
        assert snap_compare(make_app(theme, no_color), terminal_size=(80, 24), run_before=open_ben)

    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_200x50_all_panes(self, snap_compare, make_app, theme, no_color):
        assert snap_compare(make_app(theme, no_color), terminal_size=(200, 50), run_before=open_ben)


class TestHelp:
    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_question_mark_on_the_submission_screen(self, snap_compare, make_app, theme, no_color):
        async def help_open(pilot):
            await open_ben(pilot)
            await pilot.press("question_mark")
            await settle(pilot.app, pilot)

        assert snap_compare(make_app(theme, no_color), terminal_size=(100, 40), run_before=help_open)


class TestStubLog:
    @staticmethod
    async def log_open(pilot):
        """ben-larsen's stub log with its cached suite, scrolled to its end."""
        await open_ben(pilot)
        await pilot.press("5")
        await settle(pilot.app, pilot)
        # The log follows its end as lines arrive; pin the end so the picture does not depend on when
        # the last of those scrolls landed.
        pilot.app.screen.query_one(StubLog).lines.scroll_end(animate=False, immediate=True)
        await settle(pilot.app, pilot)

    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_after_a_run(self, snap_compare, make_app, theme, no_color):
        seed_ben_suite()
        assert snap_compare(make_app(theme, no_color), terminal_size=(120, 40), run_before=self.log_open)

    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_80x24_after_a_run(self, snap_compare, make_app, theme, no_color):
        # Every line wrapped to the tab, keys folded: status and charge on screen, nothing sideways.
        seed_ben_suite()
        assert snap_compare(make_app(theme, no_color), terminal_size=(80, 24), run_before=self.log_open)

    @pytest.mark.parametrize(("theme", "no_color"), TWO)
    def test_80x24_a_selected_request_shows_its_key_in_full(self, snap_compare, make_app, theme, no_color):
        seed_ben_suite()

        async def selected(pilot):
            await open_ben(pilot)
            await pilot.press("5")
            await settle(pilot.app, pilot)
            lines = pilot.app.screen.query_one(StubLog).lines
            # first-503's second request: the key it reused.
            lines.selected = [i for i, line in enumerate(lines.plain_lines()) if "POST /charge" in line][2]
            await settle(pilot.app, pilot)

        assert snap_compare(make_app(theme, no_color), terminal_size=(80, 24), run_before=selected)


async def score_at_80x24(pilot):
    await open_ben(pilot)
    # No autosave time stamp in the picture.
    pilot.app.screen.scoring.AUTOSAVE_SECONDS = 3600
    await pilot.press("4", "s", "down", "a")
    await settle(pilot.app, pilot)


class TestRubricPane:
    def test_80x24_rubric_tab_with_a_tier_chosen(self, snap_compare, make_app):
        assert snap_compare(make_app("review-dark", False), terminal_size=(80, 24), run_before=score_at_80x24)

    @pytest.mark.parametrize(("theme", "no_color"), TWO)
    def test_80x24_rubric_tab_in_other_themes(self, snap_compare, make_app, theme, no_color):
        assert snap_compare(make_app(theme, no_color), terminal_size=(80, 24), run_before=score_at_80x24)

    @pytest.mark.parametrize(("theme", "no_color"), VARIANTS)
    def test_beside_another_reviewers_disagreement(self, snap_compare, make_app, sample_cohort, theme, no_color):
        tiers_ana = (
            'found-defect = "acceptable"\nkey-scope = "acceptable"\nevidence = "weak"\n'
            'explanation = "acceptable"\nblast-radius = "weak"\n'
        )
        tiers_bob = (
            'found-defect = "acceptable"\nkey-scope = "strong"\nevidence = "weak"\n'
            'explanation = "weak"\nblast-radius = "weak"\n'
        )
        entry = (
            '[[reviews]]\nreviewers = ["{who}"]\ncommit = "{head}"\nstate = "final"\nrubric_version = '
            '"article-v1"\nrevision = 1\ncreated = "2026-12-01T10:00:00Z"\nupdated = '
            '"2026-12-01T10:00:00Z"\nnote_opened = "2026-12-01T09:58:00Z"\n[reviews.tiers]\n{tiers}\n'
        )
        (sample_cohort / "ben-larsen.review.toml").write_text(
            'schema = 1\nsubmission = "ben-larsen"\n\n'
            + entry.format(who="ana", head=BEN_HEAD, tiers=tiers_ana)
            + entry.format(who="bob", head=BEN_HEAD, tiers=tiers_bob)
        )
        seal_file(sample_cohort / "ben-larsen.review.toml")

        async def rubric_open(pilot):
            await open_ben(pilot)
            await pilot.press("4")
            # "Other reviews", with ≠ where bob differs.
            pilot.app.screen.form.scroll_end(animate=False)
            await settle(pilot.app, pilot)

        assert snap_compare(make_app(theme, no_color), terminal_size=(120, 40), run_before=rubric_open)


READING_VARIANTS = [
    pytest.param("review-dark", False, id="review-dark"),
    pytest.param("review-light", False, id="review-light"),
    pytest.param("review-dark", True, id="no-color"),
]


class TestReadingTheDiff:
    """The submission with a reformat, a one-word change, a moved function and a renamed file."""

    @pytest.fixture
    def make_reading_app(self, tmp_path, monkeypatch):
        reading_submission(tmp_path / "reading")
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("XDG_CONFIG_HOME", "/nonexistent/snapshot-config")

        def make(theme: str, no_color: bool) -> ReviewApp:
            if no_color:
                monkeypatch.setenv("NO_COLOR", "1")
            return ReviewApp(Path("reading"), theme=theme, run_harness=False, reviewers=("ana",))

        return make

    @staticmethod
    async def open_reader(pilot, *keys: str):
        await open_submission(pilot.app, pilot, "reader")
        await settle(pilot.app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot.app, pilot)
        pilot.app.clear_notifications()
        await settle(pilot.app, pilot)
        # The file list fills just after the diff's frame (after a refresh, which a busy machine delays).
        pane = pilot.app.screen.query_one(DiffPane)
        await wait_until(
            pilot, lambda: pane.files_for is not None and pane.files.row_count == len(pane.files_for.files), timeout=30
        )
        await settle(pilot.app, pilot)

    @pytest.mark.parametrize(("theme", "no_color"), READING_VARIANTS)
    def test_80x24_the_changed_word_with_the_reformat_hidden(self, snap_compare, make_reading_app, theme, no_color):
        async def run_before(pilot):
            await self.open_reader(pilot, "W")

        assert snap_compare(make_reading_app(theme, no_color), terminal_size=(80, 24), run_before=run_before)

    @pytest.mark.parametrize(("theme", "no_color"), READING_VARIANTS)
    def test_200x50_side_by_side_with_the_moved_function_and_a_file_viewed(
        self, snap_compare, make_reading_app, theme, no_color
    ):
        async def run_before(pilot):
            await self.open_reader(pilot, "v", "S")

        assert snap_compare(make_reading_app(theme, no_color), terminal_size=(200, 50), run_before=run_before)
