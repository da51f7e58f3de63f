"""The note as CommonMark reads it (markdown-it-py): its blocks in order — headings, paragraphs, list
items, table rows, fenced code — each with its first line; and inline text made plain (emphasis off,
links as their text, code spans kept)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

_EMPHASIS = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w))")
_LINK = re.compile(r"!?\[(?P<text>[^\[\]\n]{0,200})\]\([^()\s]{0,500}\)")

_MARKDOWN = MarkdownIt("commonmark").enable("table")


@dataclass
class Block:
    kind: str  # heading | paragraph | item | row (a table row) | header (a table's header row) | code
    line: int  # 1-based first line
    text: str  # the inline source, lines joined by "\n"
    level: int = 0  # headings: 1-6


def blocks(note: str) -> list[Block]:
    """The note's blocks in order, as CommonMark reads them (fenced code is one `code` block)."""
    tokens = _MARKDOWN.parse(note)
    found: list[Block] = []
    in_item = 0
    in_header = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        line = (token.map[0] + 1) if token.map else 0
        if token.type in ("thead_open", "thead_close"):
            # A table's header row names its columns ("File | Tool"), rarely a writer.
            in_header = token.type == "thead_open"
        if token.type == "heading_open":
            found.append(Block("heading", line, tokens[index + 1].content, int(token.tag[1])))
            index += 3
            continue
        if token.type == "list_item_open":
            in_item += 1
        elif token.type == "list_item_close":
            in_item -= 1
        elif token.type == "paragraph_open":
            found.append(Block("item" if in_item else "paragraph", line, tokens[index + 1].content))
        elif token.type == "tr_open":
            cells = []
            index += 1
            while index < len(tokens) and tokens[index].type != "tr_close":
                if tokens[index].type == "inline":
                    cells.append(tokens[index].content.strip())
                index += 1
            found.append(Block("header" if in_header else "row", line, " | ".join(cells)))
        elif token.type in ("fence", "code_block"):
            found.append(Block("code", line, token.content))
        index += 1
    return found


_CODE_OR_LINK = re.compile(r"`[^`\n]{0,500}`|" + _LINK.pattern)


def _as_text(found: re.Match[str]) -> str:
    # A code span is kept as written (a link inside it is code); a link reads as its text.
    return found.group() if found.group().startswith("`") else found["text"]


def plain(text: str) -> str:
    """Emphasis markers off (`**AI use:**` → `AI use:`) and links as their text; code spans keep
    their backticks."""
    return _EMPHASIS.sub("", _CODE_OR_LINK.sub(_as_text, text))
