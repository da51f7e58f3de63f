"""A line of code as the diff draws it: the text as shown (sanitised, tabs expanded, clipped), its
syntax tokens (Pygments, with Textual's highlight theme), the gutter's tool tag, and the changed
words marked over the tokens."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.highlight import HighlightTheme

from review.core import diff
from review.core.text import clip, safe_text
from review.tui.widgets.diff.rows import MAX_SHOWN

LANGUAGES = {
    ".mjs": "javascript",
    ".js": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".json": "json",
    ".md": "markdown",
    ".py": "python",
    ".sh": "bash",
    ".toml": "toml",
}


@lru_cache(maxsize=16)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=False)


def language_for(path: str) -> str | None:
    return next((language for suffix, language in LANGUAGES.items() if path.endswith(suffix)), None)


def load_lexers(diff: diff.Diff) -> None:
    """Load the lexers a diff will need (the first JavaScript one costs 30 ms of imports), so a
    worker pays for them and not the first frame."""
    for language in {language_for(file_diff.path) for file_diff in diff.files[:200]}:
        if language is not None:
            _lexer(language)


@lru_cache(maxsize=512)
def _token_style(token_type) -> str | None:
    # Asked once per token (a page of new rows is thousands): a token type's style never changes.
    while token_type:
        style = HighlightTheme.STYLES.get(token_type)
        if style:
            return style
        token_type = token_type.parent
    return None


def tokenize(texts: list[str], language: str) -> list[list[tuple[str, str | None]]]:
    """(text, Textual style) runs for each line, with Textual's own highlight theme."""
    lines: list[list[tuple[str, str | None]]] = [[]]
    for token_type, value in _lexer(language).get_tokens("\n".join(texts)):
        style = _token_style(token_type)
        if "\n" not in value:
            if value:
                lines[-1].append((value, style))
            continue
        for number, part in enumerate(value.split("\n")):
            if number:
                lines.append([])
            if part:
                lines[-1].append((part, style))
    while len(lines) < len(texts):
        lines.append([])
    return lines[: len(texts)]


def shown(text: str) -> str:
    """A line as drawn: sanitised, tabs as four columns, past MAX_SHOWN characters clipped."""
    text = safe_text(text).expandtabs(4)
    return clip(text, MAX_SHOWN) if len(text) > MAX_SHOWN else text


def tool_tag(tool: str) -> str:
    """Two letters for the gutter: Claude Code → CC, GitHub Copilot → GC, Aider → Ai."""
    words = [w for w in tool.replace("(", " ").split() if w[:1].isalnum()]
    if len(words) >= 2:
        return (words[0][0] + words[1][0]).upper()
    return (tool[:2] or "AI").title()


def style_words(pieces: Sequence[Segment], spans: Sequence[tuple[int, int]], word: RichStyle) -> list[Segment]:
    """`pieces` (a line's text, in styled runs) with the characters in `spans` given `word` on top."""
    out: list[Segment] = []
    at = 0
    span = 0
    for piece in pieces:
        text, style = piece.text, piece.style
        start, end = at, at + len(text)
        at = end
        while text:
            while span < len(spans) and spans[span][1] <= start:
                span += 1
            if span == len(spans) or spans[span][0] >= end:
                out.append(Segment(text, style))
                break
            begin, finish = max(spans[span][0], start), min(spans[span][1], end)
            if begin > start:
                out.append(Segment(text[: begin - start], style))
            out.append(Segment(text[begin - start : finish - start], (style or RichStyle()) + word))
            text = text[finish - start :]
            start = finish
    return out
