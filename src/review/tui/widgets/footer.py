"""The footer, with the key that lists every key always on screen: at 80 columns Textual's footer
runs out of room before it reaches the app's own bindings, and `?` is the one a reviewer needs."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Static

from review.tui.lifetimes import PrunedFooter


class KeysFooter(Horizontal):
    DEFAULT_CSS = """
    KeysFooter { dock: bottom; height: 1; }
    KeysFooter > #help-key { width: auto; background: $footer-key-background; color: $footer-key-foreground;
                             text-style: bold; padding: 0 1; }
    KeysFooter > #help-key-label { width: auto; background: $footer-description-background;
                                   color: $footer-description-foreground; padding-right: 1; }
    KeysFooter > PrunedFooter { dock: none; width: 1fr; }
    """

    def __init__(self, help_keys: str | None = None) -> None:
        super().__init__()
        # The keymap's keys for `app.help`, when remapped.
        self.help_keys = help_keys or "?"
        self.help_key = Static(id="help-key")

    def compose(self) -> ComposeResult:
        yield self.help_key
        yield Static(Content("Keys"), id="help-key-label")
        yield PrunedFooter()

    def on_mount(self) -> None:
        shown = self.app.get_key_display(Binding(self.help_keys.split(",")[0].strip(), "help"))
        self.help_key.update(Content(shown))

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.id in ("help-key", "help-key-label"):
            self.call_later(self.app.run_action, "help")

