"""The tool table: every row is reachable by each of the forms it lists, through the public lookups the
sources use (an alias in a note or a git-ai record, a commit's identity, a word in free text, a vendor's
address, a session trailer, a footer, a model name)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review.core.attribution import commit_signals, who_is
from review.core.attribution.tools import (
    TOOLS,
    Tool,
    canonical_tool,
    is_known_tool,
    is_model_name,
    match_identity,
    tool_in_text,
)

ROWS = pytest.mark.parametrize("tool", TOOLS, ids=[t.name for t in TOOLS])
PERSON = ("Pat Doe", "pat@example.com")


def test_each_name_is_one_row():
    names = [t.name for t in TOOLS]
    spellings = [s for t in TOOLS for s in (t.name.lower(), *t.each("aliases"))]
    assert len(set(names)) == len(names) and len(set(spellings)) == len(spellings)


@ROWS
def test_a_row_is_reachable_by_its_name_and_each_alias(tool: Tool):
    assert is_known_tool(tool.name)
    for spelling in (tool.name, *tool.each("aliases")):
        assert canonical_tool(spelling) == tool.name, spelling
        assert canonical_tool(spelling.upper() + " 1.2") == tool.name, spelling
        assert who_is(spelling).tool == tool.name, spelling


@ROWS
def test_a_row_is_reachable_by_each_email(tool: Tool):
    for email in (e for e in tool.each("emails") if not e.startswith("+")):
        assert match_identity("Some Name", email)[0] is tool  # type: ignore[index]
    for suffix in (e for e in tool.each("emails") if e.startswith("+")):
        assert match_identity("some-bot", "41898282" + suffix)[0] is tool  # type: ignore[index]
        assert who_is(f"some-bot <41898282{suffix}>").tool == tool.name


@ROWS
def test_a_row_is_reachable_by_its_name_at_its_vendor_and_not_at_a_personal_address(tool: Tool):
    spelling = next((s for s in (*tool.each("aliases"), tool.name.lower()) if " " not in s), None)
    if spelling is None or not tool.domains:
        return
    for domain in tool.each("domains"):
        assert who_is(f"{spelling.title()} <{spelling}@{domain}>").tool == tool.name, domain
    assert who_is(f"{spelling.title()} <{spelling}@example.org>").kind != "tool"


@ROWS
def test_a_row_is_reachable_by_its_session_trailer_and_its_footer(tool: Tool):
    for key in tool.each("sessions"):
        found = commit_signals("a" * 40, f"Change\n\n{key.title()}: 0a1b2c\n", PERSON, PERSON)
        assert [s.tool for s in found.signals] == [tool.name], key
    if tool.footer:
        found = commit_signals("a" * 40, f"Change\n\nGenerated with {tool.footer.title()}\n", PERSON, PERSON)
        assert [s.tool for s in found.signals] == [tool.name]


@ROWS
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_row_is_reachable_by_any_text_its_patterns_accept(tool: Tool, data: st.DataObject):
    if tool.words:
        word = data.draw(st.from_regex(re.compile(tool.words, re.I), fullmatch=True), label="word")
        assert tool_in_text(f"I used {word} here") == tool.name
    if tool.identity:
        name = data.draw(st.from_regex(re.compile(tool.identity, re.I), fullmatch=True), label="identity")
        if name.strip() == name:
            assert match_identity(name, "")[0] is tool  # type: ignore[index]
            assert match_identity(name, "noreply@example.com")[0] is tool  # type: ignore[index]
    if tool.models:
        model = data.draw(st.from_regex(re.compile(tool.models, re.I), fullmatch=True), label="model")
        assert is_model_name(model)
