"""A JavaScript file's syntax tree (tree-sitter's grammar) and its indexes: the names bound and their
scopes, the functions and the calls by name, and small readings of nodes. Pure."""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from review.core.code_reading.sites import CodeSite

JAVASCRIPT = Language(tree_sitter_javascript.language())
# Every node the reading starts from, found by the parser's own query engine in one pass (a Python walk
# over a large file's nodes costs seconds).
STARTS = Query(
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
FUNCTIONS = ("function_declaration", "function_expression", "arrow_function", "method_definition", "function")
SCOPES = ("statement_block", "program", "for_statement", "for_in_statement", "class_body", *FUNCTIONS)
# How far the key is followed (assignments, calls, returns) before the reading gives up and says so.


def node_text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def callee_of(call: Node) -> Node | None:
    return call.child_by_field_name("function") or call.child_by_field_name("constructor")


def last_name(node: Node | None) -> str:
    """`fetch` of `fetch`, `post` of `this.http.post`."""
    if node is None:
        return ""
    if node.type == "member_expression":
        return node_text(node.child_by_field_name("property"))
    return node_text(node) if node.type == "identifier" else ""


def arguments_of(call: Node) -> list[Node]:
    found = call.child_by_field_name("arguments")
    return [child for child in found.named_children if child.type != "comment"] if found is not None else []


def unwrapped(node: Node) -> Node:
    while node.type in ("parenthesized_expression", "await_expression") and node.named_children:
        node = node.named_children[-1]
    return node


def contains(outer: Node, inner: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


class SyntaxFile:
    """One file's syntax tree and its indexes: bindings by name, functions by name, calls by name."""

    def __init__(self, path: str, data: bytes) -> None:
        self.path = path
        self.lines = data.decode("utf-8", "replace").splitlines()
        self.tree = Parser(JAVASCRIPT).parse(data)
        self.captures = QueryCursor(STARTS).captures(self.tree.root_node)
        self.bindings: dict[str, list[tuple[Node, Node]]] = {}  # name -> (binding node, its scope)
        self.functions: dict[str, list[Node]] = {}
        self.calls: dict[str, list[Node]] = {}
        self.imported: set[str] = set()
        # Imported from the submission's own files (`./keys.mjs`), not from a package or Node itself.
        self.imported_locally: set[str] = set()
        self._index_bindings()
        for function in self.captures.get("function", []):
            name = function.child_by_field_name("name")
            if name is not None:
                self.functions.setdefault(node_text(name), []).append(function)
        for pair in self.captures.get("pair", []):
            value = pair.child_by_field_name("value")
            if value is not None and value.type in FUNCTIONS:
                self.functions.setdefault(node_text(pair.child_by_field_name("key")).strip("'\""), []).append(value)
        for call in self.captures.get("call", []):
            self.calls.setdefault(last_name(callee_of(call)), []).append(call)
        for statement in self.captures.get("import", []):
            names = {node_text(name) for name in identifiers(statement)}
            self.imported |= names
            if node_text(statement.child_by_field_name("source")).strip("'\"").startswith("."):
                self.imported_locally |= names

    def _index_bindings(self) -> None:
        """Every declared name and parameter, with the scope it is bound in; functions bound to a name."""
        for declarator in self.captures.get("declarator", []):
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is not None and name.type == "identifier":
                self.bindings.setdefault(node_text(name), []).append((declarator, scope_of(declarator)))
                if value is not None and value.type in FUNCTIONS:
                    self.functions.setdefault(node_text(name), []).append(value)
            elif name is not None:  # destructured: every name it binds, bound at the declarator
                for part in identifiers(name):
                    self.bindings.setdefault(node_text(part), []).append((declarator, scope_of(declarator)))
        for params in self.captures.get("params", []):
            function = params.parent
            for param in params.named_children:
                for name in identifiers(param.child_by_field_name("left") or param):
                    if function is not None:
                        self.bindings.setdefault(node_text(name), []).append((param, function))

    def line_of(self, node: Node) -> tuple[int, str]:
        number = node.start_point[0] + 1
        return number, (self.lines[number - 1].strip() if number <= len(self.lines) else "")

    def site(self, kind: str, node: Node, how: str = "") -> CodeSite:
        return CodeSite(kind, self.path, *self.line_of(node), how)

    def binding(self, name: str, at: Node) -> Node | None:
        """The declaration (or parameter) `name` means at `at`: the innermost scope holding `at`, its
        last binding before `at` (else its first)."""
        candidates = [(node, scope) for node, scope in self.bindings.get(name, []) if contains(scope, at)]
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
            if node.type in ("identifier", "shorthand_property_identifier") and node_text(node) == name:
                yield node
            stack.extend(reversed(node.children))


def identifiers(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("identifier", "shorthand_property_identifier_pattern"):
            yield current
        stack.extend(current.children)


def scope_of(node: Node) -> Node:
    current = node.parent
    while current is not None and current.type not in SCOPES:
        current = current.parent
    return current if current is not None else node


def enclosing_function(node: Node) -> Node | None:
    current = node.parent
    while current is not None and current.type not in FUNCTIONS:
        current = current.parent
    return current


def name_of_function(function: Node) -> str:
    name = function.child_by_field_name("name")
    if name is not None:
        return node_text(name)
    parent = function.parent
    if parent is not None and parent.type == "variable_declarator":
        return node_text(parent.child_by_field_name("name"))
    if parent is not None and parent.type == "pair":
        return node_text(parent.child_by_field_name("key")).strip("'\"")
    return ""
