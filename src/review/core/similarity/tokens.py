"""Source code as the tokens a copy cannot hide by disguise: tree-sitter's JavaScript (or TypeScript)
grammar reads the file; every identifier becomes `id`, every string or template `str`, number `num`,
regular expression `re`, `true`/`false` `bool`; comments and whitespace are dropped. What is left is
the code's shape (keywords, operators, punctuation), each token with the line it starts on."""

from __future__ import annotations

import functools
import threading
import zlib

# What is compared, by the file's ending; anything else at HEAD is listed as not compared.
CODE_SUFFIXES = {".mjs": "javascript", ".js": "javascript", ".cjs": "javascript", ".ts": "typescript"}

IDENTIFIERS = frozenset(
    {
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
        "private_property_identifier",
        "statement_identifier",
        "type_identifier",
    }
)
# Read as one token whatever is inside: a renamed variable inside a template is still a template.
LITERALS = {
    "string": "str",
    "template_string": "str",
    "number": "num",
    "regex": "re",
    "true": "bool",
    "false": "bool",
}
DROPPED = frozenset({"comment", "html_comment", "hash_bang_line"})
# `{ amount }` is `{ amount: amount }`: read as the long form, so renaming the variable (which spells
# the property out) changes no token.
SHORTHANDS = frozenset({"shorthand_property_identifier", "shorthand_property_identifier_pattern"})


def language_of(path: str) -> str | None:
    """The grammar a file is read with, None when it is not code this compares."""
    dot = path.rfind(".")
    return CODE_SUFFIXES.get(path[dot:].lower()) if dot >= 0 else None


@functools.cache
def _language(name: str):
    from tree_sitter import Language

    if name == "typescript":
        import tree_sitter_typescript

        return Language(tree_sitter_typescript.language_typescript())
    import tree_sitter_javascript

    return Language(tree_sitter_javascript.language())


_parsers = threading.local()


def _parser(name: str):
    """One parser per thread and grammar: a tree-sitter parser is not shared between threads."""
    found = getattr(_parsers, name, None)
    if found is None:
        from tree_sitter import Parser

        found = Parser(_language(name))
        setattr(_parsers, name, found)
    return found


@functools.cache
def token_id(kind: str) -> int:
    """A normalised token's number: the same in every process (a cached fingerprint stays valid)."""
    return zlib.crc32(kind.encode())


# What the walk does at a node of each kind: go into it (a leaf: one token), take it whole as one
# token (a literal), or drop it (a comment).
WALK, WHOLE, DROP = 0, 1, 2
# tree-sitter's number for an ERROR node (a part the grammar cannot read), past the grammar's own.
ERROR_KIND = 0xFFFF


@functools.cache
def _kinds(name: str) -> dict[int, tuple[int, int, bool]]:
    """Kind number -> (what the walk does, the token a leaf of it is, whether it is a shorthand
    property): worked out once per grammar, so the walk reads no node's kind name."""
    language = _language(name)
    kinds = {number: language.node_kind_for_id(number) for number in range(language.node_kind_count)}
    kinds[ERROR_KIND] = "ERROR"
    return {number: _kind(kind) for number, kind in kinds.items()}


def _kind(kind: str) -> tuple[int, int, bool]:
    walk = WHOLE if kind in LITERALS else DROP if kind in DROPPED else WALK
    return walk, token_id("id" if kind in IDENTIFIERS else LITERALS.get(kind, kind)), kind in SHORTHANDS


def tokenize(source: bytes, language: str = "javascript") -> tuple[list[int], list[int]]:
    """(token ids, the 1-based line each starts on), in source order. A part the grammar cannot
    read (an ERROR node) still gives its tokens: a file that does not parse is compared as it is."""
    kinds = _kinds(language)
    tree = _parser(language).parse(source)
    ids: list[int] = []
    lines: list[int] = []
    name, colon = token_id("id"), token_id(":")
    cursor = tree.walk()
    first_child, next_sibling, parent = cursor.goto_first_child, cursor.goto_next_sibling, cursor.goto_parent
    while True:
        node = cursor.node
        try:
            walk, token, shorthand = kinds[node.kind_id]
        except KeyError:  # a kind the grammar does not list: read by its name
            walk, token, shorthand = kinds[node.kind_id] = _kind(node.type)
        if walk == WALK and first_child():
            continue
        if walk != DROP:
            start, end = node.byte_range
            # A zero-width leaf is one the parser made up (a missing semicolon): no token.
            if walk == WHOLE or end > start:
                line = node.start_point[0] + 1
                if shorthand:
                    ids += (name, colon)
                    lines += (line, line)
                ids.append(token)
                lines.append(line)
        while not next_sibling():
            if not parent():
                return ids, lines
