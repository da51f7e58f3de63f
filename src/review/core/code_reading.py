"""What a client's code says, read from its syntax tree (tree-sitter's JavaScript grammar), never from
its lines' words: the request that carries the idempotency key, where that key's value is made, and the
timeouts the code sets. Pure: the caller hands in each file's text.

The key is followed from the request's idempotency field (an `Idempotency-Key` header in any case and
any headers form, or an `idempotencyKey`/`idempotency_key` body field) back through plain assignments,
object properties, function returns and parameters within the file. Where that stops short of where
the value is made, it says so ("could not follow the key from the request") instead of guessing a line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser, Query, QueryCursor

JAVASCRIPT = Language(tree_sitter_javascript.language())
# Every node the reading starts from, found by the parser's own query engine in one pass (a Python walk
# over a large file's nodes costs seconds).
_STARTS = Query(
    JAVASCRIPT,
    """
    (pair) @pair
    (shorthand_property_identifier) @short
    (call_expression) @call
    (new_expression) @call
    (assignment_expression) @assign
    (array) @array
    (variable_declarator) @declarator
    (formal_parameters) @params
    (function_declaration) @function
    (method_definition) @function
    (import_statement) @import
    (field_definition) @field
    """,
)

# The callee names (the last part of `a.b.c`) that send a request: fetch and Node's http, axios-,
# got- and ky-like clients, and the SDK wrappers' verbs.
REQUEST_CALLEES = frozenset(
    {"fetch", "request", "post", "put", "patch", "send", "axios", "got", "ky", "ofetch", "$fetch", "create", "charge"}
)
REQUEST_CONSTRUCTORS = frozenset({"Request"})
# A request's body written after the request was made: `req.write(body)`, `req.end(body)`.
BODY_WRITES = frozenset({"write", "end"})
# Calls that name a header: `headers.set("Idempotency-Key", key)`, `req.setHeader(...)`.
HEADER_SETTERS = frozenset({"set", "append", "setHeader", "header"})
FUNCTIONS = ("function_declaration", "function_expression", "arrow_function", "method_definition", "function")
SCOPES = ("statement_block", "program", "for_statement", "for_in_statement", "class_body", *FUNCTIONS)
# How far the key is followed (assignments, calls, returns) before the reading gives up and says so.
MAX_STEPS = 12
TIMEOUT_KEY = re.compile(r"^(?:request|read|socket|connect(?:ion)?|response|total)?_?timeout(?:_?ms|millis)?$", re.I)


@dataclass(frozen=True)
class CodeSite:
    kind: str  # key-made | key-sent | key-named (names the key, sends nothing) | request
    path: str
    line: int  # at HEAD
    text: str
    # key-made: "made" (a call, a literal, a template: the value is made there) or "read" (a property
    # or a destructuring of something else, such as a file read back: the value is taken there).
    how: str = ""


@dataclass(frozen=True)
class TimeoutSite:
    """A timeout the code sets, read from the code: how, its length when it can be read, and where."""

    path: str
    line: int
    text: str
    how: str  # AbortSignal.timeout | setTimeout that aborts | a `timeout` option | a socket timeout
    ms: float | None  # None: set, but its length is not a number this file gives


@dataclass
class CodeReading:
    sites: list[CodeSite] = field(default_factory=list)
    timeouts: list[TimeoutSite] = field(default_factory=list)
    # What could not be read or followed, said as such (a file too large, a key from another file…).
    problems: list[str] = field(default_factory=list)

    def extend(self, other: CodeReading) -> None:
        self.sites += other.sites
        self.timeouts += other.timeouts
        self.problems += other.problems


def is_key_name(text: str) -> bool:
    """`Idempotency-Key`, `idempotency_key`, `idempotencyKey`, `X-Idempotency-Key`, in any case."""
    return re.sub(r"[-_\s]", "", text.strip("'\"`").lower()) in ("idempotencykey", "xidempotencykey")


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _callee(call: Node) -> Node | None:
    return call.child_by_field_name("function") or call.child_by_field_name("constructor")


def _last_name(node: Node | None) -> str:
    """`fetch` of `fetch`, `post` of `this.http.post`."""
    if node is None:
        return ""
    if node.type == "member_expression":
        return _text(node.child_by_field_name("property"))
    return _text(node) if node.type == "identifier" else ""


def _arguments(call: Node) -> list[Node]:
    found = call.child_by_field_name("arguments")
    return [child for child in found.named_children if child.type != "comment"] if found is not None else []


def _unwrapped(node: Node) -> Node:
    while node.type in ("parenthesized_expression", "await_expression") and node.named_children:
        node = node.named_children[-1]
    return node


def _contains(outer: Node, inner: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


class _File:
    """One file's syntax tree and its indexes: bindings by name, functions by name, calls by name."""

    def __init__(self, path: str, data: bytes) -> None:
        self.path = path
        self.lines = data.decode("utf-8", "replace").splitlines()
        self.tree = Parser(JAVASCRIPT).parse(data)
        self.captures = QueryCursor(_STARTS).captures(self.tree.root_node)
        self.bindings: dict[str, list[tuple[Node, Node]]] = {}  # name -> (binding node, its scope)
        self.functions: dict[str, list[Node]] = {}
        self.calls: dict[str, list[Node]] = {}
        self.imported: set[str] = set()
        self._index_bindings()
        for function in self.captures.get("function", []):
            name = function.child_by_field_name("name")
            if name is not None:
                self.functions.setdefault(_text(name), []).append(function)
        for pair in self.captures.get("pair", []):
            value = pair.child_by_field_name("value")
            if value is not None and value.type in FUNCTIONS:
                self.functions.setdefault(_text(pair.child_by_field_name("key")).strip("'\""), []).append(value)
        for call in self.captures.get("call", []):
            self.calls.setdefault(_last_name(_callee(call)), []).append(call)
        for statement in self.captures.get("import", []):
            self.imported |= {_text(name) for name in _identifiers(statement)}

    def _index_bindings(self) -> None:
        """Every declared name and parameter, with the scope it is bound in; functions bound to a name."""
        for declarator in self.captures.get("declarator", []):
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is not None and name.type == "identifier":
                self.bindings.setdefault(_text(name), []).append((declarator, _scope(declarator)))
                if value is not None and value.type in FUNCTIONS:
                    self.functions.setdefault(_text(name), []).append(value)
            elif name is not None:  # destructured: every name it binds, bound at the declarator
                for part in _identifiers(name):
                    self.bindings.setdefault(_text(part), []).append((declarator, _scope(declarator)))
        for params in self.captures.get("params", []):
            function = params.parent
            for param in params.named_children:
                for name in _identifiers(param.child_by_field_name("left") or param):
                    if function is not None:
                        self.bindings.setdefault(_text(name), []).append((param, function))

    def line_of(self, node: Node) -> tuple[int, str]:
        number = node.start_point[0] + 1
        return number, (self.lines[number - 1].strip() if number <= len(self.lines) else "")

    def site(self, kind: str, node: Node, how: str = "") -> CodeSite:
        return CodeSite(kind, self.path, *self.line_of(node), how)

    def binding(self, name: str, at: Node) -> Node | None:
        """The declaration (or parameter) `name` means at `at`: the innermost scope holding `at`, its
        last binding before `at` (else its first)."""
        candidates = [(node, scope) for node, scope in self.bindings.get(name, []) if _contains(scope, at)]
        if not candidates:
            return None
        innermost = min(scope.end_byte - scope.start_byte for _, scope in candidates)
        inner = [node for node, scope in candidates if scope.end_byte - scope.start_byte == innermost]
        before = [node for node in inner if node.start_byte <= at.start_byte]
        return before[-1] if before else inner[0]

    def references(self, name: str, scope: Node) -> Iterator[Node]:
        """Every use of `name` inside `scope` (identifiers and `{ name }` shorthands)."""
        stack = [scope]
        while stack:
            node = stack.pop()
            if node.type in ("identifier", "shorthand_property_identifier") and _text(node) == name:
                yield node
            stack.extend(reversed(node.children))


def _identifiers(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern"):
            yield current
        stack.extend(current.children)


def _scope(node: Node) -> Node:
    current = node.parent
    while current is not None and current.type not in SCOPES:
        current = current.parent
    return current if current is not None else node


def _enclosing_function(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in FUNCTIONS:
        current = current.parent
    return current


def _function_name(function: Node) -> str:
    name = function.child_by_field_name("name")
    if name is not None:
        return _text(name)
    parent = function.parent
    if parent is not None and parent.type == "variable_declarator":
        return _text(parent.child_by_field_name("name"))
    if parent is not None and parent.type == "pair":
        return _text(parent.child_by_field_name("key")).strip("'\"")
    return ""


# ----------------------------------------------------------------- the idempotency field


def key_fields(code: _File) -> list[tuple[Node, Node]]:
    """Every place the file names the idempotency field, with the value put there: (field, value)."""
    found: list[tuple[Node, Node]] = []
    for pair in code.captures.get("pair", []):
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        if key is not None and value is not None and key.type != "computed_property_name" and is_key_name(_text(key)):
            found.append((pair, value))
    for short in code.captures.get("short", []):
        if is_key_name(_text(short)):
            found.append((short, short))
    for call in code.captures.get("call", []):
        args = _arguments(call)
        if _last_name(_callee(call)) in HEADER_SETTERS and len(args) >= 2 and args[0].type == "string":
            if is_key_name(_text(args[0])):
                found.append((call, args[1]))
    for assign in code.captures.get("assign", []):
        left, right = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        if left is None or right is None:
            continue
        named = left.child_by_field_name("property") if left.type == "member_expression" else None
        named = left.child_by_field_name("index") if left.type == "subscript_expression" else named
        if named is not None and is_key_name(_text(named)):
            found.append((assign, right))
    for array in code.captures.get("array", []):  # new Headers([["Idempotency-Key", key]])
        items = array.named_children
        if len(items) == 2 and items[0].type == "string" and is_key_name(_text(items[0])):
            found.append((array, items[1]))
    return sorted(found, key=lambda pair: pair[0].start_byte)


def _is_request(call: Node) -> bool:
    if call.type == "new_expression":
        return _last_name(_callee(call)) in REQUEST_CONSTRUCTORS
    return _last_name(_callee(call)) in REQUEST_CALLEES


def request_carrying(code: _File, node: Node, steps: int = 0, seen: set[int] | None = None) -> Node | None:
    """The request call that sends what `node` is part of: the call around it, or the call that takes
    the variable, property, return value or argument it is put in (within the file)."""
    seen = set() if seen is None else seen
    if steps > MAX_STEPS or node.start_byte in seen:
        return None
    seen.add(node.start_byte)
    child, current = node, node.parent
    while current is not None:
        callee = _callee(current) if current.type in ("call_expression", "new_expression") else None
        if callee is not None and not _contains(callee, child):
            args = _arguments(current)
            if _text(callee) == "Object.assign" and args and args[0].type == "identifier":
                if not _contains(args[0], node):  # copied into the first argument: whatever carries it
                    return _through_name(code, _text(args[0]), current, steps, seen)
            found = _through_call(code, current, node, steps, seen)
            if found is not None:
                return found
        elif current.type == "variable_declarator" and child == current.child_by_field_name("value"):
            return _through_name(code, _text(current.child_by_field_name("name")), current, steps, seen)
        elif current.type == "assignment_expression" and child == current.child_by_field_name("right"):
            left = current.child_by_field_name("left")
            root = left
            while root is not None and root.type in ("member_expression", "subscript_expression"):
                root = root.child_by_field_name("object")
            if root is not None and root.type == "identifier":
                return _through_name(code, _text(root), current, steps, seen)
            return None
        elif current.type == "return_statement" or (
            current.type == "arrow_function" and child == current.child_by_field_name("body")
        ):
            function = current if current.type == "arrow_function" else _enclosing_function(current)
            name = _function_name(function) if function is not None else ""
            calls = code.calls.get(name, []) if name else []
            return next((f for call in calls for f in [request_carrying(code, call, steps + 1, seen)] if f), None)
        elif current.type in FUNCTIONS:
            return None
        child, current = current, current.parent
    return None


def _through_call(code: _File, call: Node, node: Node, steps: int, seen: set[int]) -> Node | None:
    """The request a call around `node` makes: inside a function of this file it is passed to first
    (`post(body)` wrapping fetch), else the call itself, or the request whose body it writes."""
    passed = _through_parameter(code, call, node, steps, seen)
    if passed is not None:
        return passed
    return call if _is_request(call) else _written_request(code, call)


def _carrier(code: _File, field_node: Node) -> Node:
    """Where a field's way to a request starts: the field itself, or for `headers.set(name, key)` and
    `headers["Idempotency-Key"] = key` the headers object's last use (whatever carries it carries the key)."""
    target = None
    if field_node.type == "call_expression":
        callee = _callee(field_node)
        target = callee.child_by_field_name("object") if callee is not None else None
    elif field_node.type == "assignment_expression":
        target = field_node.child_by_field_name("left")
        while target is not None and target.type in ("member_expression", "subscript_expression"):
            target = target.child_by_field_name("object")
    if target is None or target.type != "identifier":
        return field_node
    bound = code.binding(_text(target), field_node)
    uses = [use for use in code.references(_text(target), _scope(bound))] if bound is not None else []
    later = [use for use in uses if use.start_byte > field_node.end_byte and not _contains(field_node, use)]
    return later[0] if later else field_node


def _through_name(code: _File, name: str, bound_at: Node, steps: int, seen: set[int]) -> Node | None:
    scope = _scope(bound_at)
    for use in code.references(name, scope):
        if use.start_byte >= bound_at.end_byte:
            found = request_carrying(code, use, steps + 1, seen)
            if found is not None:
                return found
    return None


def _written_request(code: _File, call: Node) -> Node | None:
    """`req.write(body)` / `req.end(body)` where `req` is a request made in this file: that request."""
    callee = _callee(call)
    if _last_name(callee) not in BODY_WRITES or callee is None or callee.type != "member_expression":
        return None
    target = callee.child_by_field_name("object")
    if target is None or target.type != "identifier":
        return None
    bound = code.binding(_text(target), call)
    value = bound.child_by_field_name("value") if bound is not None else None
    value = _unwrapped(value) if value is not None else None
    return value if value is not None and value.type == "call_expression" and _is_request(value) else None


def _through_parameter(code: _File, call: Node, child: Node, steps: int, seen: set[int]) -> Node | None:
    """A value passed to a function of this file: the request inside it that sends that parameter."""
    name = _last_name(_callee(call))
    args = _arguments(call)
    index = next((i for i, arg in enumerate(args) if _contains(arg, child)), None)
    for function in code.functions.get(name, []) if index is not None else []:
        params = function.child_by_field_name("parameters")
        listed = [p for p in params.named_children if p.type != "comment"] if params is not None else []
        if index is None or index >= len(listed):
            continue
        param = listed[index]
        target = param.child_by_field_name("left") if param.type == "assignment_pattern" else param
        names = [_text(target)] if target is not None and target.type == "identifier" else []
        names = names or [_text(part) for part in _identifiers(param)]
        for param_name in names:
            for use in code.references(param_name, function):
                if use.start_byte > param.end_byte:
                    found = request_carrying(code, use, steps + 1, seen)
                    if found is not None:
                        return found
    return None


# ----------------------------------------------------------------- following the key to where it is made


class _Unfollowed(Exception):
    pass


def made_at(code: _File, value: Node) -> list[Node]:
    """The expressions that make the key's value, followed from `value` (the field's) within the file;
    _Unfollowed (why) where it leaves the file or the reading."""
    found: list[Node] = []
    _follow(code, value, 0, set(), found)
    return sorted({node.start_byte: node for node in found}.values(), key=lambda node: node.start_byte)


def _follow(code: _File, node: Node, steps: int, seen: set[int], found: list[Node]) -> None:
    if steps > MAX_STEPS:
        raise _Unfollowed("it passes through more steps than are followed")
    node = _unwrapped(node)
    if (node.start_byte, node.type) in seen:
        return
    seen.add(node.start_byte)
    if node.type in ("identifier", "shorthand_property_identifier"):
        _follow_name(code, node, steps, seen, found)
    elif node.type == "member_expression":
        _follow_member(code, node, steps, seen, found)
    elif node.type == "call_expression" and code.functions.get(_last_name(_callee(node))):
        returns = [r for function in code.functions[_last_name(_callee(node))] for r in _returned(function)]
        if not returns:
            found.append(node)
        for returned in returns:
            _follow(code, returned, steps + 1, seen, found)
    else:
        found.append(node)  # a call of another module, a literal, a template, `a ?? b`: made here


def _follow_name(code: _File, node: Node, steps: int, seen: set[int], found: list[Node]) -> None:
    name = _text(node)
    bound = code.binding(name, node)
    if bound is None:
        if name in code.imported:
            raise _Unfollowed(f"`{name}` is imported from another file")
        raise _Unfollowed(f"`{name}` is not defined in this file")
    if bound.type == "variable_declarator":
        value = bound.child_by_field_name("value")
        name_node = bound.child_by_field_name("name")
        if name_node is not None and name_node.type != "identifier":
            found.append(bound)  # destructured: bound here, from what it destructures
            return
        assigned = _assignments(code, name, _scope(bound))
        if value is None and not assigned:
            raise _Unfollowed(f"`{name}` is declared without a value and never assigned")
        for each in ([value] if value is not None else []) + assigned:
            _follow(code, each, steps + 1, seen, found)
        return
    passed, destructured, owner = _passed(code, bound)
    if not passed:
        raise _Unfollowed(f"`{name}` is a parameter of {owner}, passed by a caller outside this file")
    for arg in passed:
        if destructured:
            # `{ key }`: the property of the object literal the call passes.
            taken = _property(_unwrapped(arg), name)
            if taken is None:
                raise _Unfollowed(f"`{name}` is destructured from what a call of {owner} passes")
            arg = taken
        _follow(code, arg, steps + 1, seen, found)


def _passed(code: _File, param: Node) -> tuple[list[Node], bool, str]:
    """What the file's calls of a parameter's function pass there (its default when none does),
    whether the parameter is destructured, and how to name the function."""
    function = _enclosing_function(param)
    function_name = _function_name(function) if function is not None else ""
    owner = f"`{function_name}`" if function_name else "a function"
    params = param.parent
    index = [p for p in params.named_children if p.type != "comment"].index(param) if params is not None else 0
    calls = code.calls.get(function_name, []) if function_name else []
    passed = [args[index] for call in calls for args in [_arguments(call)] if index < len(args)]
    target = param.child_by_field_name("left") if param.type == "assignment_pattern" else param
    default = param.child_by_field_name("right") if param.type == "assignment_pattern" else None
    if not passed and default is not None:
        return [default], False, owner  # the default is the value itself
    return passed, target is not None and target.type != "identifier", owner


def _property(value: Node, name: str) -> Node | None:
    """The value of property `name` in an object literal (`{ name: v }` or `{ name }`)."""
    if value.type != "object":
        return None
    for pair in value.named_children:
        if pair.type == "pair" and _text(pair.child_by_field_name("key")).strip("'\"") == name:
            return pair.child_by_field_name("value")
        if pair.type == "shorthand_property_identifier" and _text(pair) == name:
            return pair
    return None


def _assignments(code: _File, name: str, scope: Node) -> list[Node]:
    return [
        right
        for assign in code.captures.get("assign", [])
        if _contains(scope, assign)
        for left, right in [(assign.child_by_field_name("left"), assign.child_by_field_name("right"))]
        if left is not None and right is not None and _text(left) == name
    ]


def _follow_member(code: _File, node: Node, steps: int, seen: set[int], found: list[Node]) -> None:
    """`state.key`, `this.key`, `opts.idempotencyKey`: what is assigned to it, or the property of the
    object literal it names; else the read itself is where the value comes from (a file read back)."""
    wanted = re.sub(r"\s+", "", _text(node))
    assigned = [
        right
        for assign in code.captures.get("assign", [])
        for left, right in [(assign.child_by_field_name("left"), assign.child_by_field_name("right"))]
        if left is not None and right is not None and re.sub(r"\s+", "", _text(left)) == wanted
    ]
    target, prop = node.child_by_field_name("object"), _text(node.child_by_field_name("property"))
    if not assigned and target is not None and target.type == "this":
        # A class field: `key = crypto.randomUUID();` in the class body.
        assigned = [
            value
            for declared in code.captures.get("field", [])
            for value in [declared.child_by_field_name("value")]
            if value is not None and _text(declared.child_by_field_name("property")) == prop
        ]
    if not assigned and target is not None and target.type == "identifier":
        bound = code.binding(_text(target), node)
        if bound is not None and bound.type != "variable_declarator":
            # A parameter's property (`options.idempotencyKey`): what the file's calls pass there.
            passed, _, owner = _passed(code, bound)
            if not passed:
                raise _Unfollowed(
                    f"`{_text(node)}` comes from a parameter of {owner}, passed by a caller outside this file"
                )
            for arg in passed:
                taken = _property(_unwrapped(arg), prop)
                if taken is None:
                    raise _Unfollowed(f"`{_text(node)}` is not an object literal's property where {owner} is called")
                assigned.append(taken)
        value = (
            bound.child_by_field_name("value") if bound is not None and bound.type == "variable_declarator" else None
        )
        found_property = _property(_unwrapped(value), prop) if value is not None else None
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


def _how_made(node: Node) -> str:
    return "read" if node.type in ("member_expression", "subscript_expression", "variable_declarator") else "made"


# ----------------------------------------------------------------- timeouts


def timeouts(code: _File) -> list[TimeoutSite]:
    """The timeouts the file sets: AbortSignal.timeout(ms), a setTimeout whose callback aborts, a
    `timeout:` option (axios, got, SDK clients), a socket's setTimeout, `x.timeout = ms`."""
    found: list[tuple[Node, str, Node | None]] = []
    for call in code.captures.get("call", []):
        callee, args = _callee(call), _arguments(call)
        name = _last_name(callee)
        if _text(callee) == "AbortSignal.timeout" and args:
            found.append((call, "AbortSignal.timeout", args[0]))
        elif name == "setTimeout" and len(args) >= 2 and _aborts(args[0]):
            found.append((call, "a setTimeout that aborts", args[1]))
        elif name == "setTimeout" and callee is not None and callee.type == "member_expression" and args:
            if _text(callee.child_by_field_name("object")) not in ("globalThis", "window", "global"):
                found.append((call, "a socket timeout", args[0]))
    for pair in code.captures.get("pair", []):
        key = pair.child_by_field_name("key")
        if key is not None and TIMEOUT_KEY.match(_text(key).strip("'\"")):
            found.append((pair, f"a `{_text(key).strip(chr(39) + chr(34))}` option", pair.child_by_field_name("value")))
    for assign in code.captures.get("assign", []):
        left = assign.child_by_field_name("left")
        if left is not None and left.type == "member_expression":
            if TIMEOUT_KEY.match(_text(left.child_by_field_name("property"))):
                found.append((assign, f"`{_text(left)} =`", assign.child_by_field_name("right")))
    sites = []
    for node, how, value in found:
        ms = _number(code, value, 0) if value is not None else None
        if ms == 0 or (value is not None and _unwrapped(value).type in ("false", "null", "undefined", "true")):
            continue  # 0 and false switch a timeout off in most clients
        sites.append(TimeoutSite(code.path, *code.line_of(node), how, ms))
    return sorted(sites, key=lambda site: site.line)


def _aborts(callback: Node) -> bool:
    stack = [callback]
    while stack:
        node = stack.pop()
        if node.type == "call_expression" and _last_name(_callee(node)) == "abort":
            return True
        stack.extend(node.children)
    return False


def _number(code: _File, node: Node, steps: int) -> float | None:
    """The number an expression makes when the file says it plainly: literals, arithmetic, constants."""
    node = _unwrapped(node)
    if steps > MAX_STEPS:
        return None
    if node.type == "number":
        written = _text(node).replace("_", "")
        try:
            return float(int(written, 0)) if written[:2].lower() in ("0x", "0o", "0b") else float(written)
        except ValueError:
            return None
    if node.type == "identifier":
        bound = code.binding(_text(node), node)
        value = (
            bound.child_by_field_name("value") if bound is not None and bound.type == "variable_declarator" else None
        )
        return _number(code, value, steps + 1) if value is not None else None
    if node.type == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = _text(node.child_by_field_name("operator"))
        a = _number(code, left, steps + 1) if left is not None else None
        b = _number(code, right, steps + 1) if right is not None else None
        if a is None or b is None:
            return None
        operations = {"*": lambda: a * b, "+": lambda: a + b, "-": lambda: a - b, "/": lambda: a / b if b else None}
        return operations[operator]() if operator in operations else None
    return None


# ----------------------------------------------------------------- one file, read whole


def read_file(path: str, data: bytes) -> CodeReading:
    """One JavaScript file's sites and timeouts; what could not be followed, said."""
    code = _File(path, data)
    reading = CodeReading()
    if code.tree.root_node.has_error:
        reading.problems.append(f"{path}: does not parse cleanly as JavaScript; read from the parts that do")
    for field_node, value in key_fields(code):
        request = request_carrying(code, _carrier(code, field_node))
        if request is None:
            reading.sites.append(code.site("key-named", field_node))
            continue
        reading.sites += [code.site("key-sent", field_node), code.site("request", request)]
        try:
            made = made_at(code, value)
        except _Unfollowed as why:
            line, _ = code.line_of(field_node)
            reading.problems.append(f"{path}:{line}: could not follow the key from the request ({why})")
            continue
        reading.sites += [code.site("key-made", node, _how_made(node)) for node in made]
    reading.sites = list({(s.kind, s.path, s.line): s for s in reading.sites}.values())
    reading.timeouts = timeouts(code)
    return reading
