"""A comment anchored to a place (a diff hunk, a scenario's lines in the stub log): typed in a small
box over the screen, kept with the review, exported with it. Escape never loses what was typed: it
stays a draft of that place, back in the box the next time."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

MAX_COMMENT = 2000


class AnchorCommentScreen(ModalScreen["AnchorCommentScreen.Answer"]):
    """Answers what the box holds, and whether enter kept it as the comment (escape: a draft)."""

    @dataclass(frozen=True)
    class Answer:
        text: str
        kept: bool

    BINDING_GROUP_TITLE = "Line comment"
    BINDINGS = [Binding("escape", "cancel", "Close, keep a draft", id="anchor.cancel")]
    DEFAULT_CSS = """
    AnchorCommentScreen { align: center middle; }
    AnchorCommentScreen > Vertical { width: 90%; max-width: 100; height: auto; border: thick $accent;
                                     padding: 0 1; background: $surface; }
    """

    def __init__(self, at: str, draft: str = "") -> None:
        super().__init__()
        self.at, self.draft = at, draft

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"Comment on {self.at} (enter keeps it; escape closes, and what you typed "
                                 "waits here as a draft)"))
            # The cursor after a draft, not the draft selected: typing goes on from where it stopped.
            yield Input(self.draft, max_length=MAX_COMMENT, placeholder="what you saw here", select_on_focus=False)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(self.Answer(event.value.strip(), kept=True))

    def action_cancel(self) -> None:
        self.dismiss(self.Answer(self.query_one(Input).value.strip(), kept=False))
