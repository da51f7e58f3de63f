"""A comment anchored to a place (a diff hunk, a scenario's lines in the stub log): typed in a small
box over the screen, kept with the review, exported with it. Enter and escape both keep what was
typed, as the rubric's comment boxes do: nothing typed is lost by a key pressed out of habit."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from review.tui.widgets.text_box import TextBox

MAX_COMMENT = 2000


class AnchorCommentScreen(ModalScreen[str]):
    """Answers the box's text (enter or escape): the comment at that place, "" for none."""

    BINDING_GROUP_TITLE = "Line comment"
    BINDINGS = [
        Binding("escape", "leave", "Keep it and close", id="anchor.leave"),
        # A modal screen takes no key of the app's; ? is text in the box, f1 asks for help.
        Binding("f1", "app.help", "Keys", id="anchor.help"),
    ]
    DEFAULT_CSS = """
    AnchorCommentScreen { align: center middle; }
    AnchorCommentScreen > Vertical { width: 90%; max-width: 100; height: auto; border: thick $accent;
                                     padding: 0 1; background: $surface; }
    """

    def __init__(self, at: str, text: str = "") -> None:
        super().__init__()
        self.at, self.text = at, text

    def compose(self) -> ComposeResult:
        with Vertical():
            what = "edit it; an empty box deletes it" if self.text else "an empty box adds nothing"
            yield Static(Content(f"Comment on {self.at} (enter or escape keeps it; {what})"))
            # The cursor after the comment kept here, not the comment selected: typing goes on from its end.
            yield TextBox(self.text, max_length=MAX_COMMENT, placeholder="what you saw here", select_on_focus=False)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_leave(self) -> None:
        self.dismiss(self.query_one(Input).value.strip())
