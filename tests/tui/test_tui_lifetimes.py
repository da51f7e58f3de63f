"""A screen left is let go: nothing the console keeps (score subscriptions, Textual's watchers, its
styles memo) holds a submission screen, its widgets or their rendered lines once triage is back."""

from __future__ import annotations

import gc
import time
import weakref

from textual.widgets import TextArea
from textual.widgets._footer import FooterKey

from helpers import open_submission, settle
from review.tui.app import ReviewApp
from review.tui.screens.cohort import CohortScreen


async def test_a_submission_screen_left_is_collected_with_every_widget_it_had(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_submission(app, pilot, "ben-larsen")
        # The rubric's comment box watches the app's theme: the widget whose watcher outlived it.
        assert screen.query(TextArea)
        kept = [weakref.ref(node) for node in screen.walk_children(with_self=True)]
        analysis = screen.analysis
        del screen
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, CohortScreen)

        def alive() -> list[str]:
            gc.collect()
            return [type(node).__name__ for ref in kept if (node := ref()) is not None]

        # On a busy machine a callback already queued may hold it a moment longer; kept, it stays alive.
        await released(pilot, alive)
        assert alive() == []
        # What it read stays with the session, to be opened again without reading it again.
        assert app.session.last_opened(sample_cohort / "ben-larsen", analysis.head) is analysis


async def test_footer_keys_redrawn_as_the_bindings_change_are_let_go(sample_cohort):
    app = ReviewApp(sample_cohort, run_harness=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for name in ("ben-larsen", "ada-okafor", "chen-wei"):
            await open_submission(app, pilot, name)
            await pilot.press("escape")
            await settle(app, pilot)

        def left_over() -> set[int]:
            gc.collect()
            on_screen = {id(key) for screen in app.screen_stack for key in screen.query(FooterKey)}
            assert on_screen
            return {id(key) for key in gc.get_objects() if isinstance(key, FooterKey)} - on_screen

        await released(pilot, left_over)
        assert left_over() == set()


async def released(pilot, left, timeout: float = 5.0) -> None:
    """Pilot pauses until `left()` is empty, at most `timeout` seconds (the assertion after it says what stayed)."""
    deadline = time.monotonic() + timeout
    while left() and time.monotonic() < deadline:
        await pilot.pause(0.1)


def test_an_emptied_cache_lets_what_it_held_go_at_once_not_at_the_next_collection():
    """Textual's LRUCache.clear() leaves its entries' linked list in a cycle: what it held waits for the
    collector (a pause of tens of ms for a page of new diff rows). `empty` drops each entry as it goes."""
    from textual.cache import LRUCache

    from review.tui.lifetimes import empty

    class Drawn:
        pass

    def filled() -> tuple[LRUCache, list[weakref.ref]]:
        cache: LRUCache[int, Drawn] = LRUCache(64)
        held = [Drawn() for _ in range(10)]
        for index, value in enumerate(held):
            cache[index] = value
        return cache, [weakref.ref(value) for value in held]

    gc.disable()
    try:
        cache, refs = filled()
        cache.clear()
        assert any(ref() is not None for ref in refs)  # Textual's own: kept until a collection
        cache, refs = filled()
        empty(cache)
        assert all(ref() is None for ref in refs) and not cache.keys()
    finally:
        gc.enable()
