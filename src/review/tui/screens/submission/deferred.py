"""The panes off screen, mounted just after the screen's first frame (at 80×24, all but the diff:
styling them first was half the time to that frame). Until they are, only escape answers; any other
key typed meanwhile is kept and replayed, in order, once they are mounted, so a reviewer who types
ahead (Enter, then 4 for the rubric) loses nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual import events
from textual.containers import Vertical
from textual.screen import Screen
from textual.widget import Widget

from review.support import gc


class DeferredPanes:
    def __init__(self, screen: Screen, content: Callable[[str], Iterable[Widget]],
                 mounted: Callable[[], None]) -> None:
        self.screen = screen
        self.content = content
        self.mounted = mounted
        # Every pane mounted: until then only the diff and escape answer.
        self.ready = False
        self.waiting: dict[str, Vertical] = {}
        self.typed_ahead: list[events.Key] = []

    def defer(self, frames: dict[str, Vertical]) -> None:
        """These panes' frames are composed empty; their widgets are mounted after the first frame."""
        self.waiting = frames

    async def mount(self) -> None:
        # Held since Enter on the triage row, for the first frame.
        gc.release()
        if not self.screen.is_attached:
            return
        for name, frame in self.waiting.items():
            await frame.mount_all(list(self.content(name)))
        self.waiting = {}
        self.ready = True
        self.mounted()
        self.replay()

    def hold(self, event: events.Key) -> bool:
        """Keep a key typed before the panes are mounted (True: kept, the caller stops it)."""
        if self.ready or event.key == "escape":
            return False
        self.typed_ahead.append(event)
        return True

    def replay(self) -> None:
        """One key at a time, each once the one before has been handled (and the focus it moved has
        moved): 4 then s is the rubric, then Strong there."""
        if self.typed_ahead:
            key = self.typed_ahead.pop(0)
            # As if typed now, bindings and all.
            self.screen.app.post_message(events.Key(key.key, key.character))
            self.screen.call_after_refresh(self.replay)
