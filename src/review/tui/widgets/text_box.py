"""Text boxes whose editing keys keep their place among the characters typed.

Textual types a printable key into a box at once but runs the box's own bound keys (backspace, delete,
the arrows, ctrl+…) only once the key has bubbled up to the app, a queue hop per parent: a burst of keys
(a fast typist over SSH, keys a terminal sends in one read) typed "ab⌫c" as "ab". Here the box's own
bindings run where the key arrives, in the order the keys came.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea


async def ran_own_binding(box: Widget, event: events.Key) -> bool:
    """Run the box's own binding of this key now (True), or leave the key to Textual (False)."""
    if event.is_printable:
        return False
    active = box.screen.active_bindings.get(event.key)
    if active is None or active.node is not box or not active.enabled or active.binding.priority:
        return False
    event.stop()
    event.prevent_default()
    await box.run_action(active.binding.action)
    return True


class TextBox(Input):
    async def _on_key(self, event: events.Key) -> None:
        if not await ran_own_binding(self, event):
            await super()._on_key(event)


class TextBoxArea(TextArea):
    async def _on_key(self, event: events.Key) -> None:
        if not await ran_own_binding(self, event):
            await super()._on_key(event)
