"""What a client's code says, read from its syntax tree (tree-sitter's JavaScript grammar), never from
its lines' words: the request that carries the idempotency key, where that key's value is made, and the
timeouts the code sets. Pure: the caller hands in each file's text.

The key is followed from the request's idempotency field (an `Idempotency-Key` header in any case and
any headers form, or an `idempotencyKey`/`idempotency_key` body field) back through plain assignments,
object properties, function returns and parameters within the file. Where that stops short of where
the value is made, it says so ("could not follow the key from the request") instead of guessing a line.
"""

from __future__ import annotations

from review.core.code_reading.key_flow import (
    Unfollowed,
    carrier,
    how_made,
    is_key_name,
    key_fields,
    made_at,
    request_carrying,
)
from review.core.code_reading.sites import CodeReading, CodeSite, TimeoutSite
from review.core.code_reading.syntax import SyntaxFile
from review.core.code_reading.timeouts import timeouts

__all__ = ["CodeReading", "CodeSite", "TimeoutSite", "is_key_name", "read_file"]


# ----------------------------------------------------------------- one file, read whole


def read_file(path: str, data: bytes) -> CodeReading:
    """One JavaScript file's sites and timeouts; what could not be followed, said."""
    code = SyntaxFile(path, data)
    reading = CodeReading()
    if code.tree.root_node.has_error:
        reading.problems.append(f"{path}: does not parse cleanly as JavaScript; read from the parts that do")
    for field_node, value in key_fields(code):
        request = request_carrying(code, carrier(code, field_node))
        if request is None:
            reading.sites.append(code.site("key-named", field_node))
            continue
        reading.sites += [code.site("key-sent", field_node), code.site("request", request)]
        try:
            made = made_at(code, value)
        except Unfollowed as why:
            line, _ = code.line_of(field_node)
            reading.problems.append(f"{path}:{line}: could not follow the key from the request ({why})")
            continue
        reading.sites += [code.site("key-made", node, how_made(code, node)) for node in made]
    reading.sites = list({(s.kind, s.path, s.line): s for s in reading.sites}.values())
    reading.timeouts = timeouts(code)
    return reading
