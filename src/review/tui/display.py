"""Untrusted text on screen: sanitised by the core, shown as Textual Content, never as markup."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content

from review.core.text import safe_line, safe_text


def content(text: str) -> Content:
    """Untrusted text, sanitised, as Textual Content: square brackets stay literal."""
    return Content(safe_text(text))


def line(text: str, limit: int = 500) -> Content:
    """A one-line field (a name, a subject, a path), sanitised and clipped, as Content."""
    return Content(safe_line(text, limit))


def join_parts(parts: list[str], width: int, one_row: bool = False, max_rows: int = 0) -> str:
    """Parts of a status line joined with " · " and wrapped to `width` between words; where a line
    breaks between two parts the "·" goes (a "·" left at a line's end read as a cut, one starting a
    line as a stray mark): the line break separates them. On `one_row`, the parts that
    fit whole, then "…" for the rest; with `max_rows`, as many rows, the last ending in "…" when
    more was left out. A width of 0 (not laid out yet) joins them on one line."""
    if width <= 0:
        return " · ".join(parts)
    if one_row:
        shown: list[str] = []
        for part in parts:
            if shown and cell_len(" · ".join([*shown, part])) > width:
                # Room for the "…" that says the rest is left out.
                while len(shown) > 1 and cell_len(" · ".join(shown)) + 2 > width:
                    shown.pop()
                return " · ".join(shown) + " …"
            shown.append(part)
        return " · ".join(shown)
    words: list[str] = []
    for index, part in enumerate(parts):
        pieces = part.split(" ") or [""]
        if index:
            pieces[0] = f"· {pieces[0]}"
        words += pieces
    lines: list[str] = []
    current = ""
    for word in words:
        joined = f"{current} {word}" if current else word
        if current and cell_len(joined) > width:
            lines.append(current)
            current = word.removeprefix("· ")
        else:
            current = joined
    lines.append(current)
    if max_rows and len(lines) > max_rows:
        lines = lines[:max_rows]
        last = lines[-1]
        # Room for the "…" that says the rest is left out, never after a dangling "·".
        while last and (cell_len(last) + 2 > width or last.endswith("·")):
            last = last[:-1].rstrip()
        lines[-1] = f"{last} …"
    return "\n".join(lines)
