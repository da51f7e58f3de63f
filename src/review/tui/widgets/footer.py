"""The footer, with the key that lists every key always on screen: at 80 columns Textual's footer
runs out of room before it reaches the app's own bindings, and `?` is the one a reviewer needs. The
keys after it are shown whole or not at all (a key cut at the edge, `s Sort c`, read as another)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from review.tui.keymap import types_text
from review.tui.lifetimes import PrunedFooter


class FittingFooter(PrunedFooter):
    """The footer (its removed keys let go), without the keys that would be cut at its right edge."""

    def on_resize(self) -> None:
        # Wider: every key back, then measured again.
        for key in self.children:
            key.display = True
        self.call_after_refresh(self.fit)

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        room = self.scrollable_content_region.width
        # Not laid out yet: nothing to measure against (every key would be hidden).
        if room <= 0:
            return
        cut = False
        for key in self.children:
            cut = cut or key.virtual_region.right > room
            key.display = not cut


class KeysFooter(Horizontal):
    DEFAULT_CSS = """
    KeysFooter { dock: bottom; height: 1; }
    KeysFooter > #help-key { width: auto; background: $footer-key-background; color: $footer-key-foreground;
                             text-style: bold; padding: 0 1; }
    KeysFooter > #help-key-label { width: auto; background: $footer-description-background;
                                   color: $footer-description-foreground; padding-right: 1; }
    KeysFooter > FittingFooter { dock: none; width: 1fr; }
    """

    def __init__(self, help_keys: str | None = None) -> None:
        super().__init__()
        # The keymap's keys for `app.help`, when remapped (else the app's own, read at mount).
        self.help_keys = help_keys or ""
        self.help_key = Static(id="help-key")

    def compose(self) -> ComposeResult:
        yield self.help_key
        yield Static(Content("Keys"), id="help-key-label")
        yield FittingFooter(show_command_palette=False)

    def on_mount(self) -> None:
        if not self.help_keys:
            own = [
                binding for binding in self.app.BINDINGS if isinstance(binding, Binding) and binding.id == "app.help"
            ]
            self.help_keys = own[0].key if own else "question_mark"
        self.watch(self.screen, "focused", self.show_help_key)

    def show_help_key(self, focused: Widget | None) -> None:
        """The first key that opens the help from where the focus is: in a text box `?` is typed, so
        the footer names a key the box leaves alone (f1) rather than one that would not work there."""
        keys = [key.strip() for key in self.help_keys.split(",") if key.strip()]
        if isinstance(focused, (Input, TextArea)):
            keys = [key for key in keys if not types_text(key)] or keys
        self.help_key.update(Content(self.app.get_key_display(Binding(keys[0], "help"))))

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.id in ("help-key", "help-key-label"):
            self.call_later(self.app.run_action, "help")
