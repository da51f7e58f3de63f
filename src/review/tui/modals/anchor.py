"""A comment anchored to a place (a diff hunk, a scenario's lines in the stub log): typed in a small
box over the screen, kept with the review, exported with it."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

MAX_COMMENT = 2000


class AnchorCommentScreen(ModalScreen[str | None]):
    """Answers the comment's text, or None (escape)."""

    BINDING_GROUP_TITLE = "Line comment"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="anchor.cancel")]
    DEFAULT_CSS = """
    AnchorCommentScreen { align: center middle; }
    AnchorCommentScreen > Vertical { width: 90%; max-width: 100; height: auto; border: thick $accent;
                                     padding: 0 1; background: $surface; }
    """

    def __init__(self, at: str) -> None:
        super().__init__()
        self.at = at

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Comment on {self.at} (enter keeps it, escape drops it)"))
            yield Input(max_length=MAX_COMMENT, placeholder="what you saw here")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
