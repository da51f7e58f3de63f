"""Which words of a changed line changed: a removed line and the added line that replaces it are
compared word by word, and the words that differ are marked on each, the rest left plain. Pure.

A change's removed lines face its added lines in order when there are as many of each (or side by
side, where they share rows); otherwise each removed line is paired with the most similar of the
next added lines still free. Two lines with little in common are no pair: the whole line is the
change, and marking every word in it would say nothing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

# Words, runs of whitespace, and single other characters: `a.b(c)` is five tokens.
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
# Longer lines are left unmarked (tokens are compared pairwise: time grows with the square).
MAX_LINE = 1000
# Below this share of tokens in common, two lines are no pair.
MIN_SIMILAR = 0.5
# An added line is looked for among this many after the last one paired.
WINDOW = 8

Span = tuple[int, int]  # [start, end) in characters of the text given


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _similar(old: list[str], new: list[str]) -> float:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return matcher.ratio() if matcher.quick_ratio() >= MIN_SIMILAR else 0.0


def changed_spans(old: str, new: str) -> tuple[list[Span], list[Span]] | None:
    """The changed characters of `old` and of `new`, as spans (adjacent ones joined); None when the
    lines are too different (or too long) to be read word by word."""
    if len(old) > MAX_LINE or len(new) > MAX_LINE:
        return None
    old_tokens, new_tokens = _tokens(old), _tokens(new)
    matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    if matcher.ratio() < MIN_SIMILAR:
        return None
    old_at = _offsets(old_tokens)
    new_at = _offsets(new_tokens)
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        _join(old_spans, old_at[i1], old_at[i2])
        _join(new_spans, new_at[j1], new_at[j2])
    return old_spans, new_spans


def _offsets(tokens: list[str]) -> list[int]:
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets


def _join(spans: list[Span], start: int, end: int) -> None:
    if start == end:
        return
    if spans and spans[-1][1] == start:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def _pairs(removed: list[int], added: list[int], texts: Sequence[str], in_order: bool) -> list[tuple[int, int]]:
    if in_order or len(removed) == len(added):
        return list(zip(removed, added))
    pairs = []
    free = 0
    for old in removed:
        old_tokens = _tokens(texts[old]) if len(texts[old]) <= MAX_LINE else None
        best, best_score = -1, MIN_SIMILAR
        for position in range(free, min(free + WINDOW, len(added))):
            new = added[position]
            if old_tokens is None or len(texts[new]) > MAX_LINE:
                continue
            score = _similar(old_tokens, _tokens(texts[new]))
            if score >= best_score and (best < 0 or score > best_score):
                best, best_score = position, score
        if best >= 0:
            pairs.append((old, added[best]))
            free = best + 1
    return pairs


def hunk_words(kinds: Sequence[str], texts: Sequence[str], in_order: bool = False) -> dict[int, list[Span]]:
    """For a hunk's lines (their kinds "+", "-", " ", "\\\\" and texts as shown): line index → the
    spans of its changed words, for the removed and added lines that pair up. `in_order`: pair a
    change's lines by position alone (side by side, where they share rows)."""
    words: dict[int, list[Span]] = {}
    removed: list[int] = []
    added: list[int] = []
    for index in range(len(kinds) + 1):
        kind = kinds[index] if index < len(kinds) else " "
        if kind == "-" and not added:
            removed.append(index)
            continue
        if kind == "+":
            added.append(index)
            continue
        if removed and added:
            for old, new in _pairs(removed, added, texts, in_order):
                spans = changed_spans(texts[old], texts[new])
                if spans is not None:
                    words[old], words[new] = spans
        removed, added = ([index], []) if kind == "-" else ([], [])
    return words
