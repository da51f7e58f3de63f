"""Leaving a submission (escape) or the console (q, ctrl+c) while the rubric holds changes not yet
on disk: ask, never throw them away silently."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

SAVE, DISCARD, STAY = "save", "discard", "stay"


class LeaveScreen(ModalScreen[str]):
    """Answers SAVE, DISCARD or STAY."""

    BINDING_GROUP_TITLE = "Unsaved rubric"
    BINDINGS = [
        Binding("s,y,enter", "answer('save')", "Save, then leave", id="leave.save"),
        Binding("d", "answer('discard')", "Leave without saving", id="leave.discard"),
        Binding("escape,n", "answer('stay')", "Stay", id="leave.stay"),
        # A modal screen takes no key of the app's: help is asked for here.
        Binding("question_mark,f1", "app.help", "Keys", id="leave.help"),
    ]
    DEFAULT_CSS = """
    LeaveScreen { align: center middle; }
    LeaveScreen > Vertical { width: 64; max-width: 100%; height: auto; border: thick $warning; padding: 1 2;
                             background: $surface; }
    """

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what  # "leave this submission" / "quit"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(f"The rubric has changes that are not saved yet. Before you {self.what}:"))
            yield Static(
                Content(
                    "\n  s / y / enter  save them (as they are), then go\n"
                    "  d              go without saving them\n"
                    "  escape / n     stay here"
                )
            )

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer)
