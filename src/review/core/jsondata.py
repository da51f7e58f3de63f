"""JSON from a submission (notes, traces, reports, package.json, request bodies): parsed with a cap
on size and nesting (the parser's own recursion limit), and read through accessors that never assume a shape.
A string where an object was expected reads as empty, never as a crash."""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes, max_bytes: int = 16 << 20) -> Any:
    """The parsed value, or None when it is not JSON or too large. Nesting deep enough to exhaust the
    parser's recursion is a RecursionError there, caught here: also None."""
    if len(text) > max_bytes:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None


def obj(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def arr(value: Any) -> list:
    return value if isinstance(value, list) else []


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""
