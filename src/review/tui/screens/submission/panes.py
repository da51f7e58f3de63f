"""The submission screen's panes: which are on screen for a terminal's size, and their frames."""

from __future__ import annotations

from textual.containers import Vertical

# Pane ids, in the order the workspace grid places them; keys 1-5 follow KEYS.
ORDER = ("diff", "commits", "note", "log", "rubric")
KEYS = {"diff": "1", "note": "2", "commits": "3", "rubric": "4", "log": "5"}
TITLES = {"diff": "Diff", "note": "Note", "commits": "Commits", "rubric": "Rubric", "log": "Stub log"}


def arrangement(width: int, height: int) -> str:
    """tabs: one pane at a time (80×24 in tmux); wide: the main pane left, stub log over rubric right;
    wider: the note gets a column of its own between them."""
    if width >= 190 and height >= 34:
        return "wider"
    if width >= 130 and height >= 30:
        return "wide"
    return "tabs"


def shown(layout: str, active: str, main: str) -> set[str]:
    """Which panes are on screen. `main` is the left pane of a grid (diff, commits, or the note when
    it has no column of its own); `active` is the pane the reviewer last chose."""
    if layout == "tabs":
        return {active}
    if layout == "wide":
        return {main, "log", "rubric"}
    return {main if main != "note" else "diff", "note", "log", "rubric"}


def tall(name: str, on_screen: set[str]) -> bool:
    """Spans both rows of a grid: every pane on screen but the stub log and the rubric (stacked)."""
    return name in on_screen and name not in ("log", "rubric")


def box(name: str, on_screen: set[str]) -> Vertical:
    """The pane's frame, arranged before it is mounted (arranging after restyled it twice)."""
    pane = Vertical(id=f"pane-{name}", classes="pane -tall" if tall(name, on_screen) else "pane")
    pane.display = name in on_screen
    pane.border_title = f"{KEYS[name]} {TITLES[name]}"
    return pane
