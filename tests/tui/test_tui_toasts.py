"""Toasts at 80×24: few, short-lived and compact, at the bottom right, so they do not stack over the
pane the reviewer is working in."""

from __future__ import annotations

from textual.widgets._toast import Toast

from helpers import open_submission, posted, wait_until
from review.tui.app import ReviewApp


async def test_at_80x24_toasts_stay_at_the_bottom_two_at_most_and_errors_outlast_information(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False, reviewers=("ana",))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_submission(app, pilot, "ben-larsen")
        app.notify("bob saved ben-larsen: draft", markup=False)
        app.notify("The save could not be written: disk full", severity="error", markup=False)
        app.notify("z again restores the panes", markup=False)
        app.notify("Key scope: the diff line where the key is made (4 comes back to the signal)", markup=False)
        # Until the oldest information has given way and both toasts are laid out at the bottom.
        await wait_until(
            pilot,
            lambda: (
                len(list(app.screen.query(Toast))) == 2
                and all(toast.region.height and toast.region.bottom <= 23 for toast in app.screen.query(Toast))
            ),
            timeout=30,
        )
        toasts = list(app.screen.query(Toast))
        shown = [str(toast.render()) for toast in toasts]
        # The newest information, and the error (older information gave way first).
        assert len(toasts) == 2 and "disk full" in shown[0] and "Key scope" in shown[1]
        # Over the last rows, not stacked up the pane; each whole, none over the footer's keys (the last row).
        assert all(toast.region.y >= 24 - 7 and toast.region.bottom <= 24 - 1 for toast in toasts)
        assert sum(toast.region.height for toast in toasts) <= 6
        words = " ".join(shown).split()
        assert "signal)" in words and "full" in words
        timeouts = {n.severity: n.timeout for n in posted(app)}
        assert timeouts["information"] == ReviewApp.INFORMATION_SECONDS < 5 and timeouts["error"] >= 5
