"""Property tests: the parsers of untrusted text take anything without crashing, and the sanitiser's
output never carries a character that draws nothing or moves the cursor."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from review.core import attribution, jsondata, text
from review.core.attribution import whogitit

ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=2000)
NOTE_LIKE = st.lists(
    st.sampled_from(
        [
            "## AI use",
            "# Disclosure",
            "- checkout.mjs:1-20 — Claude Code",
            "- me",
            "checkout.mjs#L2-L9 by Copilot",
            "None.",
            "```",
            "| a | b |",
            "",
            "commit abc123",
            "lines 12–30 of checkout.mjs: ChatGPT",
        ]
    )
    | ANY_TEXT,
    max_size=40,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_the_sanitiser_leaves_nothing_invisible_and_is_stable(raw):
    shown = text.safe_text(raw)
    for char in shown:
        if char in "\t\n":
            continue
        assert unicodedata.category(char) not in ("Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"), hex(ord(char))
        assert not (0xE0000 <= ord(char) <= 0xE0FFF or char in "\u3164\uffa0\u115f\u1160\u00ad")
    assert text.safe_text(shown) == shown


@settings(max_examples=200, deadline=None)
@given(NOTE_LIKE)
def test_any_note_parses(note):
    result = attribution.parse_note(note)
    lines = max(1, len(note.splitlines()) + 1)
    for entry in result.entries:
        assert entry.kind in ("range", "file", "commit", "tests", "none", "prose")
        assert 1 <= entry.line_no <= lines  # every entry keeps the line it came from
    assert attribution.parse_note(note) == result  # stable: the same note, the same disclosure


@settings(max_examples=100, deadline=None)
@given(NOTE_LIKE)
def test_no_disclosure_line_is_dropped_silently(note):
    """Under a disclosure heading, every paragraph or list item that names a tool is an entry:
    mapped, or kept as prose (which the merge lists as unmapped)."""
    result = attribution.parse_note(
        "## AI disclosure\n\n"
        + note.replace("#", "").replace("`", "").replace("=", "").replace("-", " ").replace("|", " ")
    )
    for paragraph in note.replace("#", "").replace("`", "").split("\n\n"):
        tool = attribution.tool_in_text(paragraph)
        if tool and len(paragraph) < 1000 and paragraph.strip():
            assert result.entries, paragraph


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_any_commit_metadata_parses(message, name, email):
    found = attribution.commit_signals("a" * 40, message, (name, email), (email, name))
    assert all(signal.tool for signal in found.signals)
    # git merge --squash's message, whatever follows its header
    squashed = attribution.commit_signals(
        "a" * 40,
        f"Squash\n\nSquashed commit of the following:\n\ncommit {'b' * 40}\n{message}",
        (name, email),
        (email, name),
    )
    assert all(signal.tool for signal in squashed.signals)


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT)
def test_any_git_ai_note_and_agent_trace_parse(raw):
    attribution.parse_git_ai_note("a" * 40, raw)
    attribution.parse_agent_trace(raw)


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=30,
    )
)
def test_json_of_any_shape_is_read_through_accessors(value):
    import json

    parsed = jsondata.loads(json.dumps(value))
    assert jsondata.obj(parsed) == (parsed if isinstance(parsed, dict) else {})
    assert jsondata.loads("[" * 100_000) is None  # nesting that would exhaust the parser
    # a whogitit note of any shape reads without failing
    whogitit.parse_whogitit_note("a" * 40, json.dumps(value))
    whogitit.parse_whogitit_note("a" * 40, json.dumps({"files": [{"path": "p", "lines": value}]}))


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT)
def test_quoted_paths_unquote_without_error(raw):
    from review.core.git_paths import unquote_path

    assert isinstance(unquote_path(raw), str)
    plain = raw.replace("\\", "/")
    assert unquote_path(plain) == plain.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT)
def test_locating_a_function_never_fails_and_stays_inside_the_file(text_):
    from review.core.attribution import locate_function

    found = locate_function("run", text_)
    if found is not None:
        start, end = found
        assert 1 <= start <= end <= text_.count("\n") + 1


TOOLS = st.sampled_from(["Windsurf", "Cursor", "Claude Code", "GitHub Copilot", "Codex", "aider", "MonkeyCode", "o3"])
MENTIONS = st.one_of(
    st.builds(lambda t: f"- [{t}](https://marketplace.example.com/{t})", TOOLS),
    st.builds(lambda t: f"- {t}", TOOLS),
    st.builds(lambda t, u: f"Works with {t} and {u}.", TOOLS, TOOLS),
    st.builds(lambda t: f"| {t} | supported |", TOOLS),
    st.builds(lambda t: f"## {t} integration", TOOLS),
    st.sampled_from(["# Project", "## Editor extensions", "", "|---|---|", "Some prose about the project."]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(MENTIONS, max_size=30).map("\n".join))
def test_a_tool_only_mentioned_is_never_an_assistant(note):
    """Lists, links, tables and prose that name tools without saying any wrote something — a README's
    supported editors — name no assistant and map no line."""
    result = attribution.parse_note(note)
    assert result.tools == [] and [e for e in result.entries if e.kind != "none"] == []


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT, st.sampled_from(["Assisted-by", "Co-authored-by", "Generated-by", "AI-assistant", "Made-with"]))
def test_a_disclosure_trailer_of_any_value_is_a_tool_a_rejection_or_a_person(value, key):
    message = f"Subject\n\n{key}: {value.replace(chr(10), ' ')}\n"
    found = attribution.commit_signals("a" * 40, message, ("Pat", "pat@example.com"), ("Pat", "pat@example.com"))
    for signal in found.signals:
        assert signal.tool and text.visible(signal.tool) == signal.tool


def _nested_repeats(tree, outer: int | None = None) -> list[tuple[int, int]]:
    """(outer, inner) maxima of every repeat inside another where either is unbounded."""
    from re import _constants as sre

    found = []
    for op, arg in tree:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            _, most, sub = arg
            if outer is not None and ((outer > 1 and most == sre.MAXREPEAT) or (outer == sre.MAXREPEAT and most > 1)):
                found.append((outer, most))
            found += _nested_repeats(sub, most if outer is None or most > outer else outer)
        elif op == sre.SUBPATTERN:
            found += _nested_repeats(arg[-1], outer)
        elif op == sre.BRANCH:
            for branch in arg[1]:
                found += _nested_repeats(branch, outer)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            found += _nested_repeats(arg[1], outer)
    return found


def _patterns(value, depth: int = 0) -> list:
    """The compiled patterns a module-level value holds: itself, or inside its tables (tuples, dicts,
    frozen dataclass rows), a few levels down."""
    import dataclasses
    import re

    if isinstance(value, re.Pattern):
        return [value]
    if depth > 3 or isinstance(value, (str, bytes, type)):
        return []
    if isinstance(value, dict):
        value = list(value.values())
    elif dataclasses.is_dataclass(value):
        value = [getattr(value, f.name) for f in dataclasses.fields(value)]
    if isinstance(value, (list, tuple, frozenset, set)):
        return [p for item in value for p in _patterns(item, depth + 1)]
    return []


def test_no_pattern_of_the_attribution_parsers_nests_unbounded_repeats():
    """Linear time on hostile notes and commit messages: no pattern repeats a part that itself repeats
    without bound (the shape that backtracks catastrophically)."""
    import importlib
    from re import _parser

    assert _nested_repeats(_parser.parse(r"(?:\s+\w)*x")) and not _nested_repeats(_parser.parse(r"(?:\s{1,5}\w){0,3}x"))
    offenders = []
    modules = ("trailers", "tools", "names", "note", "sentences", "languages", "git_ai", "records", "merge")
    for name in (*modules, "agent_trace"):
        module = importlib.import_module(f"review.core.attribution.{name}")
        for attribute, value in vars(module).items():
            for pattern in _patterns(value):
                if _nested_repeats(_parser.parse(pattern.pattern, pattern.flags)):
                    offenders.append(f"{name}.{attribute}")
    assert offenders == []
