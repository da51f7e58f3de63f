"""A function a disclosure names ("Copilot wrote `backoff()`"): where its definition stands in a
JavaScript file. Pure, and linear in the file's size."""

from __future__ import annotations

import re

_DEFINITION = (
    "(?:function\\s*\\*?\\s*{0}\\b|(?:const|let|var)\\s+{0}\\s*=|"
    "^\\s*(?:async\\s+)?{0}\\s*\\([^)\\n]{{0,500}}\\)\\s*\\{{)"
)


def locate_function(symbol: str, text: str) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of `symbol`'s definition in a JavaScript file: from its line
    to the brace that closes its body (strings and comments are not parsed: a heuristic, said as
    such by the source label). Linear in the file's size."""
    pattern = re.compile(_DEFINITION.format(re.escape(symbol)), re.M)
    match = pattern.search(text)
    if match is None:
        return None
    start_line = text.count("\n", 0, match.start()) + 1
    opening = text.find("{", match.end() - 1)
    if opening < 0:
        return start_line, start_line
    depth = 0
    for index in range(opening, len(text)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return start_line, text.count("\n", 0, index) + 1
    return start_line, text.count("\n") + 1
