"""What a copier does to hide a copy, done with the parser so the code still means the same: every
identifier renamed (one new name per old name), the whitespace between tokens changed, two top-level
declarations swapped. Used by the similarity tests to build disguised copies."""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter_javascript
from tree_sitter import Language, Parser

_PARSER = Parser(Language(tree_sitter_javascript.language()))
NAMES = {"identifier", "property_identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern"}
# What the code uses but does not define: a copier renames their own names, never these.
GLOBALS = {
    "process",
    "Set",
    "Map",
    "fetch",
    "crypto",
    "JSON",
    "Error",
    "Promise",
    "setTimeout",
    "AbortSignal",
    "Math",
    "Date",
    "console",
    "undefined",
    "readFileSync",
    "renameSync",
    "rmSync",
    "writeFileSync",
    "assert",
    "test",
    "describe",
    "it",
    "Number",
    "String",
    "Object",
    "Array",
}
BREAK_AFTER = {";", "{", "}", ",", "(", "[", "=", "+", "-", "*", "&&", "||", "??", "?", ":", "=>"}
OPAQUE = {"string", "template_string", "regex", "comment", "number"}


def leaves(source: str) -> list[tuple[str, str]]:
    """(kind, text) of each token in order; strings, templates and comments whole."""
    data = source.encode()
    found: list[tuple[str, str]] = []

    def walk(node) -> None:
        if node.type in OPAQUE or node.child_count == 0:
            if node.end_byte > node.start_byte:
                found.append((node.type, data[node.start_byte : node.end_byte].decode()))
            return
        for child in node.children:
            walk(child)

    walk(_PARSER.parse(data).root_node)
    return found


def disguise(source: str, rename: Callable[[str], str], gap: Callable[[int, str], str]) -> str:
    """`source` with each identifier renamed by `rename` (shorthand `{ amount }` spelled out, so a
    property keeps its name) and the space before each token chosen by `gap(index, previous token)`, a
    line broken only after punctuation or an operator; comments dropped. A newline is kept after `;`,
    `{` and `}` so no statement joins another."""
    out: list[str] = []
    previous = ""
    for index, (kind, text) in enumerate(leaves(source)):
        if kind == "comment":
            continue
        if kind in ("identifier", "shorthand_property_identifier_pattern") and text not in GLOBALS:
            text = rename(text)
        elif kind == "shorthand_property_identifier" and text not in GLOBALS:
            text = f"{text}: {rename(text)}"
        space = gap(index, previous)
        if previous in (";", "{", "}") and "\n" not in space:
            space = "\n" + space
        if "\n" in space and previous not in BREAK_AFTER:
            space = " "  # a line broken only where a formatter breaks one
        out.append(space + text)
        previous = text
    return "".join(out).lstrip() + "\n"


def swap_blocks(source: str, first: str, second: str) -> str:
    """The two top-level blocks starting with lines `first` and `second` (each running to the next
    blank line) in each other's place."""
    blocks = source.split("\n\n")
    i = next(n for n, block in enumerate(blocks) if block.lstrip().startswith(first))
    j = next(n for n, block in enumerate(blocks) if block.lstrip().startswith(second))
    blocks[i], blocks[j] = blocks[j], blocks[i]
    return "\n\n".join(blocks)
