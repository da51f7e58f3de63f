"""The panes off screen, mounted just after the screen's first frame (at 80×24, all but the diff:
styling them first was half the time to that frame). Until they are, only escape answers; any other
key typed meanwhile is kept and replayed, in order, once they are mounted, so a reviewer who types
ahead (Enter, then 4 for the rubric) loses nothing.

The same holds while a pane key moves focus: Textual moves it on a callback, queued behind any key
that arrived meanwhile, so on a busy console `5` then `r` sent the `r` to the diff. Keys that arrive
while focus is moving wait, and are replayed once it has moved.

A replayed key goes through the app as if typed (bindings and all); the next one waits until it has
been handled, and until any focus its binding moved has moved: the key reaches the screen (`hold`
lets it pass), then the app runs its binding, then the focus callback that binding queued runs; a
pane key, handled by the screen as it arrives, says so itself (`wait_for_focus`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual import events
from textual.containers import Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from review.support import gc


class DeferredPanes:
    def __init__(self, screen: Screen, content: Callable[[str], Iterable[Widget]], mounted: Callable[[], None]) -> None:
        self.screen = screen
        self.content = content
        self.mounted = mounted
        # Every pane mounted: until then only the diff and escape answer.
        self.ready = False
        self.waiting: dict[str, Vertical] = {}
        self.typed_ahead: list[events.Key] = []
        # The kept key on its way through the app (it passes; the ones behind it wait).
        self.replaying: events.Key | None = None
        # A pane key asked focus to move, and it has not moved yet.
        self.focus_moving = False

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

    @property
    def holding(self) -> bool:
        return not self.ready or self.focus_moving or self.replaying is not None or bool(self.typed_ahead)

    def hold(self, event: events.Key) -> bool:
        """Keep a key typed before the panes are mounted, while focus is moving to a pane, or while
        the keys kept are being replayed (True: kept, the caller stops it): let through then, it
        would land in the pane focus is leaving, or jump ahead of the ones kept, and be lost."""
        if event is self.replaying:
            # On its way up to the app's bindings: once they ran, the next one.
            self.screen.call_next(self.screen.app.call_later, self.handled, event)
            return False
        if not self.holding or (not self.ready and event.key == "escape"):
            return False
        self.typed_ahead.append(event)
        return True

    def wait_for_focus(self) -> None:
        """A pane key asked focus to move (it moves on a callback of the app's): keys wait for it. A
        replayed pane key is handled once here."""
        self.replaying = None
        self.focus_moving = True
        # Queued behind the focus's own callback.
        self.screen.app.call_later(self.focus_moved)

    def focus_moved(self) -> None:
        self.focus_moving = False
        self.replay()

    def handled(self, key: events.Key) -> None:
        """The replayed `key`'s binding has run; a focus it moved is queued before this."""
        self.screen.app.call_later(self.next_key, key)

    def next_key(self, key: events.Key) -> None:
        if self.replaying is key:
            self.replaying = None
            self.replay()

    def replay(self) -> None:
        """The next kept key, as if typed now: 4 then s is the rubric, then Strong there."""
        if not self.ready or self.focus_moving or self.replaying is not None or not self.typed_ahead:
            return
        kept = self.typed_ahead.pop(0)
        key = events.Key(kept.key, kept.character)
        # Sent by the app, as a typed key is (a key sent by the screen would stop bubbling there).
        key.set_sender(self.screen.app)
        focused = self.screen.focused
        if isinstance(focused, (Input, TextArea)) and key.is_printable:
            # Typed into a text box, which keeps it: it never comes back up to say it was handled.
            self.screen.app.post_message(key)
            self.screen.app.call_later(self.replay)
            return
        self.replaying = key
        self.screen.app.post_message(key)
