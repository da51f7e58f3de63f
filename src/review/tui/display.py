"""Untrusted text on screen: sanitised by the core, shown as Textual Content, never as markup."""

from __future__ import annotations

from textual.content import Content

from review.core.text import safe_line, safe_text


def content(text: str) -> Content:
    """Untrusted text, sanitised, as Textual Content: square brackets stay literal."""
    return Content(safe_text(text))


def line(text: str, limit: int = 500) -> Content:
    """A one-line field (a name, a subject, a path), sanitised and clipped, as Content."""
    return Content(safe_line(text, limit))
