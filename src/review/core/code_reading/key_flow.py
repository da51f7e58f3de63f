"""The idempotency key, followed: the fields that name it, the request that carries each, and back from
the request's value to where it is made, within the file. Pure."""

from __future__ import annotations

import re

from tree_sitter import Node

from review.core.code_reading.syntax import (
    FUNCTIONS,
    SyntaxFile,
    arguments_of,
    callee_of,
    contains,
    enclosing_function,
    identifiers,
    last_name,
    name_of_function,
    node_text,
    scope_of,
    unwrapped,
)

REQUEST_CALLEES = frozenset(
    {"fetch", "request", "post", "put", "patch", "send", "axios", "got", "ky", "ofetch", "$fetch", "create", "charge"}
)
REQUEST_CONSTRUCTORS = frozenset({"Request"})
# A request's body written after the request was made: `req.write(body)`, `req.end(body)`.
BODY_WRITES = frozenset({"write", "end"})
# Calls that name a header: `headers.set("Idempotency-Key", key)`, `req.setHeader(...)`.
HEADER_SETTERS = frozenset({"set", "append", "setHeader", "header"})
MAX_STEPS = 12


def is_key_name(text: str) -> bool:
    """`Idempotency-Key`, `idempotency_key`, `idempotencyKey`, `X-Idempotency-Key`, in any case."""
    return re.sub(r"[-_\s]", "", text.strip("'\"`").lower()) in ("idempotencykey", "xidempotencykey")


# ----------------------------------------------------------------- the idempotency field


def key_fields(code: SyntaxFile) -> list[tuple[Node, Node]]:
    """Every place the file names the idempotency field, with the value put there: (field, value)."""
    found: list[tuple[Node, Node]] = []
    for pair in code.captures.get("pair", []):
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if (
            key is not None
            and value is not None
            and key.type != "computed_property_name"
            and is_key_name(node_text(key))
        ):
            found.append((pair, value))
    for short in code.captures.get("short", []):
        if is_key_name(node_text(short)):
            found.append((short, short))
    for call in code.captures.get("call", []):
        args = arguments_of(call)
        if last_name(callee_of(call)) in HEADER_SETTERS and len(args) >= 2 and args[0].type == "string":
            if is_key_name(node_text(args[0])):
                found.append((call, args[1]))
    for assign in code.captures.get("assign", []):
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        if left is None or right is None:
            continue
        named = left.child_by_field_name("property") if left.type == "member_expression" else None
        named = left.child_by_field_name("index") if left.type == "subscript_expression" else named
        if named is not None and is_key_name(node_text(named)):
            found.append((assign, right))
    for array in code.captures.get("array", []):  # new Headers([["Idempotency-Key", key]])
        items = array.named_children
        if len(items) == 2 and items[0].type == "string" and is_key_name(node_text(items[0])):
            found.append((array, items[1]))
    return sorted(found, key=lambda pair: pair[0].start_byte)


def _is_request(call: Node) -> bool:
    if call.type == "new_expression":
        return last_name(callee_of(call)) in REQUEST_CONSTRUCTORS
    return last_name(callee_of(call)) in REQUEST_CALLEES


def request_carrying(code: SyntaxFile, node: Node, steps: int = 0, seen: set[int] | None = None) -> Node | None:
    """The request call that sends what `node` is part of: the call around it, or the call that takes
    the variable, property, return value or argument it is put in (within the file)."""
    seen = set() if seen is None else seen
    if steps > MAX_STEPS or node.start_byte in seen:
        return None
    seen.add(node.start_byte)
    child, current = node, node.parent
    while current is not None:
        callee = callee_of(current) if current.type in ("call_expression", "new_expression") else None
        if callee is not None and not contains(callee, child):
            args = arguments_of(current)
            if node_text(callee) == "Object.assign" and args and args[0].type == "identifier":
                if not contains(args[0], node):  # copied into the first argument: whatever carries it
                    return _through_name(code, node_text(args[0]), current, steps, seen)
            found = _through_call(code, current, node, steps, seen)
            if found is not None:
                return found
        elif current.type == "variable_declarator" and child == current.child_by_field_name("value"):
            return _through_name(code, node_text(current.child_by_field_name("name")), current, steps, seen)
        elif current.type == "assignment_expression" and child == current.child_by_field_name("right"):
            left = current.child_by_field_name("left")
            root = left
            while root is not None and root.type in ("member_expression", "subscript_expression"):
                root = root.child_by_field_name("object")
            if root is not None and root.type == "identifier":
                return _through_name(code, node_text(root), current, steps, seen)
            return None
        elif current.type == "return_statement" or (
            current.type == "arrow_function" and child == current.child_by_field_name("body")
        ):
            function = current if current.type == "arrow_function" else enclosing_function(current)
            name = name_of_function(function) if function is not None else ""
            calls = code.calls.get(name, []) if name else []
            return next((f for call in calls for f in [request_carrying(code, call, steps + 1, seen)] if f), None)
        elif current.type in FUNCTIONS:
            return None
        child, current = current, current.parent
    return None


def _through_call(code: SyntaxFile, call: Node, node: Node, steps: int, seen: set[int]) -> Node | None:
    """The request a call around `node` makes: inside a function of this file it is passed to first
    (`post(body)` wrapping fetch), else the call itself, or the request whose body it writes."""
    passed = _through_parameter(code, call, node, steps, seen)
    if passed is not None:
        return passed
    return call if _is_request(call) else _written_request(code, call)


def carrier(code: SyntaxFile, field_node: Node) -> Node:
    """Where a field's way to a request starts: the field itself, or for `headers.set(name, key)` and
    `headers["Idempotency-Key"] = key` the headers object's last use (whatever carries it carries the key)."""
    target = None
    if field_node.type == "call_expression":
        callee = callee_of(field_node)
        target = callee.child_by_field_name("object") if callee is not None else None
    elif field_node.type == "assignment_expression":
        target = field_node.child_by_field_name("left")
        while target is not None and target.type in ("member_expression", "subscript_expression"):
            target = target.child_by_field_name("object")
    if target is None or target.type != "identifier":
        return field_node
    bound = code.binding(node_text(target), field_node)
    uses = [use for use in code.references(node_text(target), scope_of(bound))] if bound is not None else []
    later = [use for use in uses if use.start_byte > field_node.end_byte and not contains(field_node, use)]
    return later[0] if later else field_node


def _through_name(code: SyntaxFile, name: str, bound_at: Node, steps: int, seen: set[int]) -> Node | None:
    scope = scope_of(bound_at)
    for use in code.references(name, scope):
        if use.start_byte >= bound_at.end_byte:
            found = request_carrying(code, use, steps + 1, seen)
            if found is not None:
                return found
    return None


def _written_request(code: SyntaxFile, call: Node) -> Node | None:
    """`req.write(body)` / `req.end(body)` where `req` is a request made in this file: that request."""
    callee = callee_of(call)
    if last_name(callee) not in BODY_WRITES or callee is None or callee.type != "member_expression":
        return None
    target = callee.child_by_field_name("object")
    if target is None or target.type != "identifier":
        return None
    bound = code.binding(node_text(target), call)
    value = bound.child_by_field_name("value") if bound is not None else None
    value = unwrapped(value) if value is not None else None
    return value if value is not None and value.type == "call_expression" and _is_request(value) else None


def _through_parameter(code: SyntaxFile, call: Node, child: Node, steps: int, seen: set[int]) -> Node | None:
    """A value passed to a function of this file: the request inside it that sends that parameter."""
    name = last_name(callee_of(call))
    args = arguments_of(call)
    index = next((i for i, arg in enumerate(args) if contains(arg, child)), None)
    for function in code.functions.get(name, []) if index is not None else []:
        params = function.child_by_field_name("parameters")
        listed = [p for p in params.named_children if p.type != "comment"] if params is not None else []
        if index is None or index >= len(listed):
            continue
        param = listed[index]
        target = param.child_by_field_name("left") if param.type == "assignment_pattern" else param
        names = [node_text(target)] if target is not None and target.type == "identifier" else []
        names = names or [node_text(part) for part in identifiers(param)]
        for param_name in names:
            for use in code.references(param_name, function):
                if use.start_byte > param.end_byte:
                    found = request_carrying(code, use, steps + 1, seen)
                    if found is not None:
                        return found
    return None


# ----------------------------------------------------------------- following the key to where it is made


class Unfollowed(Exception):
    pass


def made_at(code: SyntaxFile, value: Node) -> list[Node]:
    """The expressions that make the key's value, followed from `value` (the field's) within the file;
    Unfollowed (why) where it leaves the file or the reading."""
    found: list[Node] = []
    _follow(code, value, 0, set(), found)
    return sorted({node.start_byte: node for node in found}.values(), key=lambda node: node.start_byte)


def _follow(code: SyntaxFile, node: Node, steps: int, seen: set[int], found: list[Node]) -> None:
    if steps > MAX_STEPS:
        raise Unfollowed("it passes through more steps than are followed")
    node = unwrapped(node)
    if (node.start_byte, node.type) in seen:
        return
    seen.add(node.start_byte)
    if node.type in ("identifier", "shorthand_property_identifier"):
        _follow_name(code, node, steps, seen, found)
    elif node.type == "member_expression":
        _follow_member(code, node, steps, seen, found)
    elif node.type == "call_expression" and code.functions.get(last_name(callee_of(node))):
        returns = [r for function in code.functions[last_name(callee_of(node))] for r in _returned(function)]
        if not returns:
            found.append(node)
        for returned in returns:
            _follow(code, returned, steps + 1, seen, found)
    else:
        found.append(node)  # a call of another module, a literal, a template, `a ?? b`: made here


def _follow_name(code: SyntaxFile, node: Node, steps: int, seen: set[int], found: list[Node]) -> None:
    name = node_text(node)
    bound = code.binding(name, node)
    if bound is None:
        if name in code.imported:
            raise Unfollowed(f"`{name}` is imported from another file")
        raise Unfollowed(f"`{name}` is not defined in this file")
    if bound.type == "variable_declarator":
        value = bound.child_by_field_name("value")
        name_node = bound.child_by_field_name("name")
        if name_node is not None and name_node.type != "identifier":
            found.append(bound)  # destructured: bound here, from what it destructures
            return
        assigned = _assignments(code, name, scope_of(bound))
        if value is None and not assigned:
            raise Unfollowed(f"`{name}` is declared without a value and never assigned")
        for each in ([value] if value is not None else []) + assigned:
            _follow(code, each, steps + 1, seen, found)
        return
    passed, destructured, owner = _passed(code, bound)
    if not passed:
        raise Unfollowed(f"`{name}` is a parameter of {owner}, passed by a caller outside this file")
    for arg in passed:
        if destructured:
            # `{ key }`: the property of the object literal the call passes.
            taken = property_value(unwrapped(arg), name)
            if taken is None:
                raise Unfollowed(f"`{name}` is destructured from what a call of {owner} passes")
            arg = taken
        _follow(code, arg, steps + 1, seen, found)


def _passed(code: SyntaxFile, param: Node) -> tuple[list[Node], bool, str]:
    """What the file's calls of a parameter's function pass there (its default when none does),
    whether the parameter is destructured, and how to name the function."""
    function = enclosing_function(param)
    function_name = name_of_function(function) if function is not None else ""
    owner = f"`{function_name}`" if function_name else "a function"
    params = param.parent
    index = [p for p in params.named_children if p.type != "comment"].index(param) if params is not None else 0
    calls = code.calls.get(function_name, []) if function_name else []
    passed = [args[index] for call in calls for args in [arguments_of(call)] if index < len(args)]
    target = param.child_by_field_name("left") if param.type == "assignment_pattern" else param
    default = param.child_by_field_name("right") if param.type == "assignment_pattern" else None
    if not passed and default is not None:
        return [default], False, owner  # the default is the value itself
    return passed, target is not None and target.type != "identifier", owner


def property_value(value: Node, name: str) -> Node | None:
    """The value of property `name` in an object literal (`{ name: v }` or `{ name }`)."""
    if value.type != "object":
        return None
    for pair in value.named_children:
        if pair.type == "pair" and node_text(pair.child_by_field_name("key")).strip("'\"") == name:
            return pair.child_by_field_name("value")
        if pair.type == "shorthand_property_identifier" and node_text(pair) == name:
            return pair
    return None


def _assignments(code: SyntaxFile, name: str, scope: Node) -> list[Node]:
    return [
        right
        for assign in code.captures.get("assign", [])
        if contains(scope, assign)
        for left, right in [(assign.child_by_field_name("left"), assign.child_by_field_name("right"))]
        if left is not None and right is not None and node_text(left) == name
    ]


def _follow_member(code: SyntaxFile, node: Node, steps: int, seen: set[int], found: list[Node]) -> None:
    """`state.key`, `this.key`, `opts.idempotencyKey`: what is assigned to it, or the property of the
    object literal it names; else the read itself is where the value comes from (a file read back)."""
    wanted = re.sub(r"\s+", "", node_text(node))
    assigned = [
        right
        for assign in code.captures.get("assign", [])
        for left, right in [(assign.child_by_field_name("left"), assign.child_by_field_name("right"))]
        if left is not None and right is not None and re.sub(r"\s+", "", node_text(left)) == wanted
    ]
    target, prop = node.child_by_field_name("object"), node_text(node.child_by_field_name("property"))
    if not assigned and target is not None and target.type == "this":
        # A class field: `key = crypto.randomUUID();` in the class body.
        assigned = [
            value
            for declared in code.captures.get("field", [])
            for value in [declared.child_by_field_name("value")]
            if value is not None and node_text(declared.child_by_field_name("property")) == prop
        ]
    if not assigned and target is not None and target.type == "identifier":
        bound = code.binding(node_text(target), node)
        if bound is not None and bound.type != "variable_declarator":
            # A parameter's property (`options.idempotencyKey`): what the file's calls pass there.
            passed, _, owner = _passed(code, bound)
            if not passed:
                raise Unfollowed(
                    f"`{node_text(node)}` comes from a parameter of {owner}, passed by a caller outside this file"
                )
            for arg in passed:
                taken = property_value(unwrapped(arg), prop)
                if taken is None:
                    raise Unfollowed(f"`{node_text(node)}` is not an object literal's property where {owner} is called")
                assigned.append(taken)
        value = (
            bound.child_by_field_name("value") if bound is not None and bound.type == "variable_declarator" else None
        )
        found_property = property_value(unwrapped(value), prop) if value is not None else None
        if found_property is not None:
            assigned.append(found_property)
    if not assigned:
        found.append(node)
    for each in assigned:
        _follow(code, each, steps + 1, seen, found)


def _returned(function: Node) -> list[Node]:
    body = function.child_by_field_name("body")
    if body is None:
        return []
    if body.type != "statement_block":
        return [body]  # an arrow function's expression
    returns, stack = [], list(body.children)
    while stack:
        node = stack.pop()
        if node.type in FUNCTIONS:
            continue
        if node.type == "return_statement" and node.named_children:
            returns.append(node.named_children[0])
        stack.extend(node.children)
    return sorted(returns, key=lambda node: node.start_byte)


def how_made(code: SyntaxFile, node: Node) -> str:
    """made (here), read (taken from a property or a destructuring: a file read back) or imported (a
    call of a function another file of the submission defines: made there)."""
    if node.type in ("member_expression", "subscript_expression", "variable_declarator"):
        return "read"
    callee = callee_of(node) if node.type == "call_expression" else None
    root = callee
    while root is not None and root.type == "member_expression":
        root = root.child_by_field_name("object")
    return "imported" if root is not None and node_text(root) in code.imported_locally else "made"
