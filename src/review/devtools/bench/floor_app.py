"""The floor of ``review bench startup``: a bare Textual app, run as a script of its own (not as
part of the review package, whose imports it would otherwise pay)."""

from textual.app import App, ComposeResult
from textual.widgets import Static


class Floor(App):
    def compose(self) -> ComposeResult:
        yield Static("floor-ready")


if __name__ == "__main__":
    Floor().run()
