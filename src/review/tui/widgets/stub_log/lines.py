"""The stub log's lines: one style per idempotency key, numbered beside its colour, so a second key
for one order jumps out in 256 colours, in 16, under NO_COLOR and to colour-blind eyes alike.
Colours come from the theme (review.tui.palette)."""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text
from textual.widgets import RichLog

from review.tui import palette

KEY_IN_LINE = re.compile(r"key=(\(no key\)|[^\s(]+)")
NO_KEY = "(no key)"


class LogLines(RichLog, can_focus=True):
    """Raw run lines, styled by what they are (focusable, so the pane's keys work from it)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(markup=False, highlight=False, wrap=False, **kwargs)
        self.key_numbers: dict[str, int] = {}  # key -> 1, 2, … in the order the keys appeared

    def forget_keys(self) -> None:
        self.key_numbers = {}

    def key_style(self, key: str) -> Style:
        if key == NO_KEY:
            return palette.style(self.app, "bad", bold=True)
        number = self.key_numbers.setdefault(key, len(self.key_numbers) + 1)
        return palette.key_style(self.app, number - 1)

    def styled(self, text: str, kind: str) -> Text:
        match = KEY_IN_LINE.search(text)
        if match and kind in ("response", "cached"):
            key = match.group(1)
            key_style = self.key_style(key)
            number = self.key_numbers.get(key)
            tag = f" [k{number}]" if number else ""
            line = Text(text[:match.end()] + tag + text[match.end():])
            line.stylize(key_style, match.start(), match.end() + len(tag))
        else:
            line = Text(text)
        app = self.app
        if kind in ("stdout", "stderr") or "client stdout" in text or "client stderr" in text:
            line.stylize(Style(dim=True, italic=True))  # the client's own words: shown, never believed
        elif kind in ("scenario-done", "cached") and "verdict " in text:
            line.stylize(palette.style(app, "ok" if "verdict ok" in text else "bad", bold=True))
        elif kind == "summary" or '"distinctKeys"' in text:
            line.stylize(Style(bold=True))
        elif kind == "coverage":
            line.stylize(palette.style(app, "info", bold=True))
        elif kind == "timeline":
            line.stylize(palette.style(app, "bad", bold=True) if "RED" in text else Style(bold=True))
        return line

    def add(self, text: str, kind: str = "info") -> None:
        self.write(self.styled(text, kind))
