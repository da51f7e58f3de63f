"""`?` shows every key of the current screen: each binding the screen, its panes and the app declare is
listed, a key that does nothing in this state with when it acts. The footer offers only keys that act
(an empty pair view offers no fragment keys)."""

from __future__ import annotations

import pytest
from test_tui_similar import pair_screen
from textual.widgets import Input

from helpers import open_filter, open_submission, screen_text, wait_until
from review.tui.app import ReviewApp
from review.tui.screens.help import HelpScreen, own_bindings
from review.tui.screens.similar_pair import SimilarPairScreen


def declared(screen) -> set[str]:
    """Every binding id the screen, the widgets on it and the app declare."""
    nodes = [screen, screen.app, *screen.walk_children()]
    return {binding.id for node in nodes for binding in own_bindings(node, {}) if binding.id}


async def help_ids(app, pilot) -> tuple[set[str], set[str], dict[str, str]]:
    """The ids the current screen declares, the ids `?` lists, and each listed id's action text."""
    declared_here = declared(app.screen)
    await pilot.press("question_mark")
    await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
    listed = {binding_id: label for _, _, label, ids in app.screen.rows for binding_id in ids.split()}
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))
    return declared_here, set(listed), listed


async def test_help_on_triage_lists_every_key_but_the_one_of_candidate_blind_review(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.table.row_count == 8)
        wanted, listed, _ = await help_ids(app, pilot)
        # A lifts candidate-blind review: outside such a session there is nothing to lift.
        assert wanted - listed == {"triage.reveal"}


@pytest.mark.parametrize("pane", ["1", "2", "3", "4", "5"])
async def test_help_on_each_submission_pane_lists_every_key_of_the_screen(sample_cohort, pane):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press(pane)
        wanted, listed, labels = await help_ids(app, pilot)
        # q closes the view here (ctrl+q, app.quit-alt, quits).
        # In the diff g goes to its top, in the rubric to the signal's evidence.
        shadowed = {"app.quit"} | ({"submission.log-to-code"} if pane in ("1", "4") else set())
        assert wanted - listed == shadowed
        # Keys that do nothing here say when they act.
        if pane in ("2", "3"):
            assert "from a stub-log line" in labels["submission.log-to-code"]
        assert "while a run is on" in labels["log.cancel"]
        assert "once a before/after run has finished" in labels["log.view"]


async def test_help_and_footer_of_an_empty_pair_view(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pair_screen(app, pilot, "ada-okafor", "m")
        assert isinstance(app.screen, SimilarPairScreen)
        await wait_until(pilot, lambda: "0 own fingerprints" in "\n".join(screen_text(app)))
        footer = screen_text(app)[-1]
        assert "fragment" not in footer and "pair" not in footer, footer
        wanted, listed, labels = await help_ids(app, pilot)
        # With no pair there is nothing to step through or scroll: only back (q here), help and quit.
        assert listed & {binding_id for binding_id in wanted if binding_id.startswith("similar.")} == {
            "similar.back",
            "similar.close",
        }
        assert "app.help" in listed and "app.quit-alt" in listed


async def test_help_on_a_pair_view_lists_every_key(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await pair_screen(app, pilot, "ben-larsen", "m")
        await wait_until(pilot, lambda: screen.read is not None)
        wanted, listed, labels = await help_ids(app, pilot)
        assert wanted - listed == {"app.quit"}  # q goes back here
        # Its fragments are read: the fragment keys act, and say nothing of when.
        assert labels["similar.next-fragment"] == "Next fragment"


async def test_the_footer_of_a_pair_view_offers_the_fragment_keys_once_read(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await pair_screen(app, pilot, "ben-larsen", "m")
        await wait_until(pilot, lambda: screen.read is not None)
        await wait_until(pilot, lambda: "Next fragment" in screen_text(app)[-1])


async def test_help_in_the_leave_question_and_the_scenario_picker_lists_their_keys(sample_cohort):
    from review.tui.modals.leave import LeaveScreen
    from review.tui.widgets.stub_log.scenario_picker import ScenarioPicker

    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        await pilot.press("5", "s")
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        wanted, listed, _ = await help_ids(app, pilot)
        assert {"picker.close", "picker.down", "picker.help"} <= listed
        # Over a modal the app's keys do not act (but ctrl+c): q closes the picker, ? is its own help.
        assert wanted - listed == {"app.quit", "app.quit-alt", "app.help"}
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ScenarioPicker))
        app.push_screen(LeaveScreen("quit"))
        await wait_until(pilot, lambda: isinstance(app.screen, LeaveScreen))
        wanted, listed, _ = await help_ids(app, pilot)
        assert {"leave.save", "leave.discard", "leave.stay"} <= listed
        assert wanted - listed == {"app.quit", "app.quit-alt", "app.help"}
        assert isinstance(app.screen, LeaveScreen)  # help closed, the question still asked


async def test_help_from_the_filter_box_lists_no_key_that_types_there(sample_cohort):
    """In the filter box `j` or `R` types itself: f1 lists what acts there, and says letters type."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_filter(app, pilot)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        keys = {key for _, shown, _, _ in app.screen.rows for key in shown.split()}
        labels = [label for _, _, label, _ in app.screen.rows]
        assert "Type into the box" in labels
        assert not keys & {"j", "k", "R", "m", "?", "/"}, keys
        # What still acts in the box: leaving it, and the keys with ctrl.
        assert "esc" in keys or "escape" in keys, keys


async def test_the_footer_names_the_help_key_that_works_where_the_focus_is(sample_cohort):
    """`?` types itself in a text box, so there the footer offers f1, and `?` again once the box is left."""
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.table.row_count == 8)

        def footer_key() -> str:
            return screen_text(app)[-1].split()[0]

        await wait_until(pilot, lambda: footer_key() == "?")
        await open_filter(app, pilot)
        await wait_until(pilot, lambda: footer_key() == "f1")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.focused, Input))
        await wait_until(pilot, lambda: footer_key() == "?")


async def test_the_footer_names_the_help_key_the_keymap_gives(sample_cohort, isolated_dirs):
    """The keymap is read once the first screen is up: the footer then names the reviewer's own help
    key, the one that works, not the default it started with."""
    config = isolated_dirs / "config" / "review"
    config.mkdir(parents=True)
    (config / "keymap.toml").write_text('"app.help" = "f9"\n')
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.table.row_count == 8)
        await wait_until(pilot, lambda: screen_text(app)[-1].split()[0] == "f9")
        await pilot.press("f9")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))


def test_a_keymap_putting_one_key_on_two_live_bindings_is_refused_naming_both(tmp_path):
    """f2 for help would be lost on the submission screen, where f2 shows the diff pane: refused with
    both names before the console starts. Two keys for one action, or a free key, are fine."""
    import pytest

    from review.tui import keymap

    path = tmp_path / "keymap.toml"
    path.write_text('"app.help" = "f2"\n')
    with pytest.raises(keymap.KeymapError, match="'app.help' and 'submission.pane-diff' are both on 'f2'"):
        keymap.load(path)
    path.write_text('"app.quit" = "ctrl+q"\n"triage.next-unscored" = "u"\n"app.help" = "f9"\n')
    assert keymap.load(path) == {"app.quit": "ctrl+q", "triage.next-unscored": "u", "app.help": "f9"}


async def test_a_pane_key_and_escape_in_one_burst_leave_the_submission_without_an_error(sample_cohort):
    """A pane key redraws the footer's keys a frame later: escape in the same burst has left the screen
    by then, and the redraw finds no screen (it crashed the console)."""
    from helpers import settle
    from review.tui.screens.cohort import CohortScreen

    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("ben-larsen", "chen-wei", "ada-okafor"):
            await open_submission(app, pilot, name)
            await pilot.press("2", "escape")
            await settle(app, pilot)
            assert isinstance(app.screen, CohortScreen)
