"""The footer, with the key that lists every key always on screen: at 80 columns Textual's footer
runs out of room before it reaches the app's own bindings, and `?` is the one a reviewer needs. The
keys after it are shown whole or not at all (a key cut at the edge, `s Sort c`, read as another)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
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
        # (A redraw asked for just before the screen was left finds no screen at all.)
        if not self.is_attached:
            return
        # Under a modal its keys do not act (`s` saves in the unsaved-changes question, not Strong), and
        # keys redrawn there were never measured (the one at the edge showed cut, `^s Sav`): none are
        # shown until the screen is on top again, when it is redrawn.
        self.visible = self.screen.is_active
        if not self.visible:
            return
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

    def __init__(self) -> None:
        super().__init__()
        self.help_key = Static(id="help-key")

    def compose(self) -> ComposeResult:
        yield self.help_key
        yield Static(Content("Keys"), id="help-key-label")
        yield FittingFooter(show_command_palette=False)

    def on_mount(self) -> None:
        # Focus moving and the keymap read (after the first screen is up) both change the bindings.
        self.screen.bindings_updated_signal.subscribe(self, self.show_help_key)
        self.show_help_key()

    def on_unmount(self) -> None:
        # The signal holds this callback, which holds the footer, until the screen publishes again.
        self.screen.bindings_updated_signal.unsubscribe(self)

    def show_help_key(self, _screen: object = None) -> None:
        """The first key that opens the help from where the focus is, as Textual binds it now (the
        keymap's keys when it remaps the help). In a text box `?` is typed, so the footer names a key
        the box leaves alone (f1) rather than one that would not work there."""
        if not self.is_attached:
            return
        keys = [key for key, active in self.screen.active_bindings.items() if active.binding.id == "app.help"]
        if isinstance(self.screen.focused, (Input, TextArea)):
            keys = [key for key in keys if not types_text(key)] or keys
        self.help_key.update(Content(self.app.get_key_display(Binding(keys[0], "help")) if keys else ""))

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.id in ("help-key", "help-key-label"):
            self.call_later(self.app.run_action, "help")
