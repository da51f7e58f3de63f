"""A screen whose panes off screen are mounted just after its first frame (at 80×24, all but the
diff: styling them first was half the time to that frame). Until they are, only escape answers; any
other key typed meanwhile is kept and replayed, in order, once they are mounted, so a reviewer who
types ahead (Enter, then 4 for the rubric) loses nothing."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult

from review.support import gc
from review.tui.screens.submission.scoring import ScoringScreen


class DeferredPanesScreen(ScoringScreen):
    panes_ready = False  # every pane mounted: until then only the diff and `escape` answer
    unmounted: list[str]  # set by compose: the panes composed empty, mounted after the first frame
    typed_ahead: list[events.Key] | None = None

    def pane_content(self, name: str) -> ComposeResult:
        raise NotImplementedError

    def panes_mounted(self) -> None:
        """Every pane is mounted: fill them with what was read meanwhile."""

    async def mount_panes(self) -> None:
        # Held since Enter (CohortScreen.action_open), for the first frame.
        gc.release()
        if not self.is_attached:
            return  # left before its first frame
        for name in self.unmounted:
            await self.query_one(f"#pane-{name}").mount_all(list(self.pane_content(name)))
        self.unmounted = []
        self.panes_ready = True
        self.panes_mounted()
        self.replay_typed_ahead()

    def replay_typed_ahead(self) -> None:
        """One key at a time, each once the one before has been handled (and the focus it moved has
        moved): 4 then s is the rubric, then Strong there."""
        if self.typed_ahead:
            key, *self.typed_ahead = self.typed_ahead
            self.app.post_message(events.Key(key.key, key.character))  # as if typed now, bindings and all
            self.call_after_refresh(self.replay_typed_ahead)

    def on_key(self, event: events.Key) -> None:
        if not self.panes_ready and event.key != "escape":
            self.typed_ahead = [*(self.typed_ahead or []), event]
            event.stop()
