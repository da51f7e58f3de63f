"""The timeouts a file sets, with their lengths when the file gives them as numbers. Pure."""

from __future__ import annotations

import re

from tree_sitter import Node

from review.core.code_reading.key_flow import MAX_STEPS
from review.core.code_reading.sites import TimeoutSite
from review.core.code_reading.syntax import SyntaxFile, arguments_of, callee_of, last_name, node_text, unwrapped

TIMEOUT_KEY = re.compile(r"^(?:request|read|socket|connect(?:ion)?|response|total)?_?timeout(?:_?ms|millis)?$", re.I)


# ----------------------------------------------------------------- timeouts


def timeouts(code: SyntaxFile) -> list[TimeoutSite]:
    """The timeouts the file sets: AbortSignal.timeout(ms), a setTimeout whose callback aborts, a
    `timeout:` option (axios, got, SDK clients), a socket's setTimeout, `x.timeout = ms`."""
    found: list[tuple[Node, str, Node | None]] = []
    for call in code.captures.get("call", []):
        callee, args = callee_of(call), arguments_of(call)
        name = last_name(callee)
        if node_text(callee) == "AbortSignal.timeout" and args:
            found.append((call, "AbortSignal.timeout", args[0]))
        elif name == "setTimeout" and len(args) >= 2 and _aborts(args[0]):
            found.append((call, "a setTimeout that aborts", args[1]))
        elif name == "setTimeout" and callee is not None and callee.type == "member_expression" and args:
            if node_text(callee.child_by_field_name("object")) not in ("globalThis", "window", "global"):
                found.append((call, "a socket timeout", args[0]))
    for pair in code.captures.get("pair", []):
        key = pair.child_by_field_name("key")
        if key is not None and TIMEOUT_KEY.match(node_text(key).strip("'\"")):
            found.append(
                (pair, f"a `{node_text(key).strip(chr(39) + chr(34))}` option", pair.child_by_field_name("value"))
            )
    for assign in code.captures.get("assign", []):
        left = assign.child_by_field_name("left")
        if left is not None and left.type == "member_expression":
            if TIMEOUT_KEY.match(node_text(left.child_by_field_name("property"))):
                found.append((assign, f"`{node_text(left)} =`", assign.child_by_field_name("right")))
    sites = []
    for node, how, value in found:
        ms = _number(code, value, 0) if value is not None else None
        if ms == 0 or (value is not None and unwrapped(value).type in ("false", "null", "undefined", "true")):
            continue  # 0 and false switch a timeout off in most clients
        sites.append(TimeoutSite(code.path, *code.line_of(node), how, ms))
    return sorted(sites, key=lambda site: site.line)


def _aborts(callback: Node) -> bool:
    stack = [callback]
    while stack:
        node = stack.pop()
        if node.type == "call_expression" and last_name(callee_of(node)) == "abort":
            return True
        stack.extend(node.children)
    return False


def _number(code: SyntaxFile, node: Node, steps: int) -> float | None:
    """The number an expression makes when the file says it plainly: literals, arithmetic, constants."""
    node = unwrapped(node)
    if steps > MAX_STEPS:
        return None
    if node.type == "number":
        written = node_text(node).replace("_", "")
        try:
            return float(int(written, 0)) if written[:2].lower() in ("0x", "0o", "0b") else float(written)
        except ValueError:
            return None
    if node.type == "identifier":
        bound = code.binding(node_text(node), node)
        value = (
            bound.child_by_field_name("value") if bound is not None and bound.type == "variable_declarator" else None
        )
        return _number(code, value, steps + 1) if value is not None else None
    if node.type == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node_text(node.child_by_field_name("operator"))
        a = _number(code, left, steps + 1) if left is not None else None
        b = _number(code, right, steps + 1) if right is not None else None
        if a is None or b is None:
            return None
        operations = {"*": lambda: a * b, "+": lambda: a + b, "-": lambda: a - b, "/": lambda: a / b if b else None}
        return operations[operator]() if operator in operations else None
    return None
