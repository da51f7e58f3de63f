"""What keeps a widget alive after it left the screen, let go.

Textual's `watch()` and `data_bind()` keep (widget, callback) in the watched object, and drop an entry
only when the watched value changes next: a TextArea watches the app's theme, a footer's keys watch
the footer. A widget removed meanwhile stays alive with all its caches until then, which may be
never — every submission screen's comment box, every footer redrawn. These prune the entries of
widgets that are closed.

And Textual memoises a colour pair in an `lru_cache` on a method of each widget's styles cache, so
the cache object is part of the key: up to 1,024 of them (every widget's rendered lines) stay alive
after their widgets are gone. `release_styles_caches` empties that memo when a screen is left.

And a Textual LRUCache emptied with its own clear() is garbage in a cycle, with everything it held:
`empty` lets each entry go as it is dropped."""

from __future__ import annotations

from textual._styles_cache import StylesCache
from textual.cache import LRUCache
from textual.widgets import Footer

# Textual's attribute on the watched object: name -> [(the watching node, callback)].
WATCHERS = "__watchers"


def drop_closed_watchers(watched: object) -> None:
    """Forget the watchers of `watched` whose widget is closed (removed from the DOM)."""
    watchers: dict[str, list[tuple[object, object]]] = getattr(watched, WATCHERS, {})
    for entries in watchers.values():
        entries[:] = [
            (node, callback)
            for node, callback in entries
            if not (getattr(node, "_closing", False) or getattr(node, "_closed", False))
        ]


class PrunedFooter(Footer):
    """Textual's footer, whose keys removed at each redraw (bindings change with focus) are let go."""

    async def recompose(self) -> None:
        await super().recompose()
        drop_closed_watchers(self)


def empty(cache: LRUCache) -> None:
    """Every entry of a Textual LRUCache dropped, and what it held let go at once: its own clear()
    leaves the entries' linked list ([prev, next, key, value] each) in a reference cycle, for the
    collector to find with all it holds (a view's drawn strips: a collection of tens of ms for each
    page of new diff rows). Each entry's links are cut here (a test checks this against Textual's)."""
    links = list(cache._cache.values())
    cache.clear()
    for link in links:
        link.clear()


def release_styles_caches() -> None:
    """Let go of the styles caches (each a widget's rendered lines) held by Textual's colour memo;
    the memo is two styles per colour pair, made again on the next frame."""
    StylesCache.get_inner_outer.cache_clear()
