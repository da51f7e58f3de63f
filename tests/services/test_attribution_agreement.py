"""Conflict means disagreement, for every pair of source kinds, on real repositories: two sources
conflict only when one names a person and the other an assistant for the same lines, or they name two
different assistants. An unnamed assistant (a git-ai session with no tool, an Agent Trace `ai` range
with no name, `AI-assisted: true`, an AI-DECLARATION.md that names no tool) beside a named one is the
named one, with both sources listed, and the disclosure is not `conflict`."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import STARTER, commit_as, git, make_repo
from review import gitsafe
from review.core import triage
from review.services import analysis

BODY = "".join(f"export const step{n} = {n};\n" for n in range(1, 5))
PAT = ("Pat Doe", "pat@example.com")
CLAUDE, CURSOR, UNNAMED, PERSON = "Claude Code", "Cursor", "unnamed", "person"


@dataclass
class Plan:
    """What the submission is made of: the writing commit's message and author, the files a later
    commit adds (the note, the declaration, the trace) and the notes on the writing commit."""

    trailers: list[str]
    author: tuple[str, str] = PAT
    files: dict[str, str] | None = None
    git_ai: str | None = None
    whogitit: dict | None = None


# Each source kind: who it can say wrote lines 1-4 of checkout.mjs, and how (None: it cannot say that).
Say = Callable[[Plan, str], bool]


def _trailer(plan: Plan, who: str) -> bool:
    form = {
        CLAUDE: "Co-Authored-By: Claude <noreply@anthropic.com>",
        CURSOR: "Co-authored-by: Cursor <cursoragent@cursor.com>",
        UNNAMED: "AI-assisted: true",
    }.get(who)
    if form:
        plan.trailers.append(form)
    return form is not None


def _identity(plan: Plan, who: str) -> bool:
    identity = {CLAUDE: ("Claude Code", "noreply@anthropic.com"), CURSOR: ("Cursor Agent", "cursoragent@cursor.com")}
    if who not in identity:
        return False
    plan.author = identity[who]
    return True


def _git_ai(plan: Plan, who: str) -> bool:
    key = "h_aaaaaaaaaaaaaa" if who == PERSON else "s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb"
    agent = {CLAUDE: {"tool": "claude", "id": "x"}, CURSOR: {"tool": "cursor", "id": "x"}, UNNAMED: {"id": "x"}}
    sessions = {"s_aaaaaaaaaaaaaa": {"agent_id": agent[who]}} if who != PERSON else {}
    meta = {"schema_version": "authorship/3.0.0", "prompts": {}, "sessions": sessions}
    plan.git_ai = f"checkout.mjs\n  {key} 1-4\n---\n{json.dumps(meta)}\n"
    return True


def _agent_trace(plan: Plan, who: str) -> bool:
    record: dict = {"version": "0.1.0", "id": "1", "timestamp": "2026-11-01T00:00:00Z"}
    if who in (CLAUDE, CURSOR):
        record["tool"] = {"name": {CLAUDE: "claude-code", CURSOR: "cursor"}[who]}
    contributor = {"type": "human" if who == PERSON else "ai"}
    record["files"] = [
        {
            "path": "checkout.mjs",
            "conversations": [{"contributor": contributor, "ranges": [{"start_line": 1, "end_line": 4}]}],
        }
    ]
    plan.files = {**(plan.files or {}), ".agent-trace/traces.jsonl": json.dumps(record) + "\n"}
    return True


def _whogitit(plan: Plan, who: str) -> bool:
    kind = {CLAUDE: "AI", PERSON: "Human"}.get(who)  # its hooks are Claude Code's: it names no other tool
    if kind is None:
        return False
    lines = [{"line_number": n, "content": "", "source": {"type": kind}} for n in range(1, 5)]
    plan.whogitit = {
        "version": 3,
        "session": {"session_id": "s"},
        "prompts": [],
        "files": [{"path": "checkout.mjs", "lines": lines}],
    }
    return True


def _note(plan: Plan, who: str) -> bool:
    line = {
        CLAUDE: "Claude Code wrote checkout.mjs.",
        CURSOR: "Cursor wrote checkout.mjs.",
        PERSON: "- checkout.mjs: all — me",
    }
    if who not in line:
        return False
    plan.files = {**(plan.files or {}), "NOTE.md": f"# Note\n\n## AI use\n{line[who]}\n"}
    return True


def _declaration(plan: Plan, who: str) -> bool:
    level = "none" if who == PERSON else "auto"
    notes = {
        CLAUDE: "- Claude Code was used to write checkout.mjs.",
        CURSOR: "- Cursor was used to write checkout.mjs.",
    }
    text = f'---\nversion: "0.1.2"\nlevel: {level}\ncomponents:\n  checkout.mjs: {level}\n---\n\n## Notes\n\n'
    plan.files = {**(plan.files or {}), "AI-DECLARATION.md": text + notes.get(who, "- Reviewed by me.") + "\n"}
    return True


KINDS: dict[str, Say] = {
    "trailer": _trailer,
    "identity": _identity,
    "git-ai": _git_ai,
    "agent-trace": _agent_trace,
    "whogitit": _whogitit,
    "note": _note,
    "declaration": _declaration,
}
PAIRS = list(itertools.combinations(KINDS, 2))
# Commit metadata never says a person wrote lines (a person's co-author trailer claims nothing).
PERSON_PAIRS = [pair for pair in PAIRS if pair != ("trailer", "identity")]


def build(tmp_path: Path, said: list[tuple[str, str]]) -> analysis.Analysis | None:
    """The submission where each (kind, who) says who wrote checkout.mjs; None when a kind cannot say it."""
    plan = Plan([])
    for kind, who in said:
        if not KINDS[kind](plan, who):
            return None
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    message = "Add the client\n" + ("\n" + "\n".join(plan.trailers) + "\n" if plan.trailers else "")
    wrote = commit_as(repo, message, {"checkout.mjs": BODY}, author=plan.author)
    if plan.files:
        commit_as(repo, "Add the disclosure\n", plan.files, author=PAT)
    if plan.git_ai:
        git("notes", "--ref=ai", "add", "-m", plan.git_ai, wrote, cwd=repo)
    if plan.whogitit:
        git("notes", "--ref=whogitit", "add", "-m", json.dumps(plan.whogitit), wrote, cwd=repo)
    return analysis.analyse(gitsafe.open_submission(repo))


def claims(result: analysis.Analysis) -> list[tuple[str | None, str]]:
    file_diff = result.diff.file("checkout.mjs")
    return [(line.tool, line.source) for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"]


def state(result: analysis.Analysis) -> str:
    found = result.attribution
    return triage.disclosure_state(
        found.tools, len(found.conflicts), len(found.unmapped) + found.unplaced, found.note.declares_none
    )


# Where a kind's source shows in a span's source, to tell that both sources are listed.
SHOWN = {
    "trailer": "trailer",
    "identity": "author identity",
    "git-ai": "git-ai note",
    "agent-trace": "Agent Trace",
    "whogitit": "whogitit note",
    "note": "note line",
    "declaration": "AI-DECLARATION.md line",
}


def _either(tmp_path: Path, first: str, second: str, one: str, other: str):
    """The pair saying (one, other), or (other, one) when the first cannot say `one`."""
    result = build(tmp_path / "a", [(first, one), (second, other)])
    if result is None:
        result = build(tmp_path / "b", [(first, other), (second, one)])
    return result


@pytest.mark.parametrize("first, second", PAIRS, ids=[f"{a}+{b}" for a, b in PAIRS])
def test_an_unnamed_assistant_beside_a_named_one_is_the_named_one_with_both_sources(tmp_path, first, second):
    result = _either(tmp_path, first, second, UNNAMED, CLAUDE)
    if result is None:  # neither kind can leave the assistant unnamed: both name the same one
        result = build(tmp_path / "c", [(first, CLAUDE), (second, CLAUDE)])
    assert result is not None
    found = claims(result)
    assert {tool for tool, _ in found} == {CLAUDE}
    assert result.attribution.conflicts == [] and state(result) == "ok"
    assert result.attribution.tools == [CLAUDE]
    if {first, second} != {"trailer", "identity"}:
        # Two sources of their own: both listed on the line (a commit's metadata is one source).
        source = found[0][1]
        assert SHOWN[first] in source and SHOWN[second] in source, source


@pytest.mark.parametrize("first, second", PAIRS, ids=[f"{a}+{b}" for a, b in PAIRS])
def test_two_different_assistants_for_the_same_lines_conflict(tmp_path, first, second):
    result = _either(tmp_path, first, second, CLAUDE, CURSOR)
    assert result is not None
    if {first, second} == {"trailer", "identity"}:
        # One commit's metadata naming two assistants says both helped with it, not which lines each
        # wrote: both are named, nothing disagrees.
        assert result.attribution.conflicts == [] and result.attribution.tools == [CLAUDE, CURSOR]
        assert all("the commit also names Claude Code" in source for _, source in claims(result))
        return
    assert state(result) == "conflict"
    [conflict] = [c for c in result.attribution.conflicts if c.path == "checkout.mjs"]
    assert {tool for _, tool in conflict.sides} == {CLAUDE, CURSOR}


@pytest.mark.parametrize("first, second", PERSON_PAIRS, ids=[f"{a}+{b}" for a, b in PERSON_PAIRS])
def test_a_person_and_an_assistant_for_the_same_lines_conflict(tmp_path, first, second):
    result = _either(tmp_path, first, second, PERSON, CLAUDE)
    assert result is not None
    assert state(result) == "conflict"
    [conflict] = [c for c in result.attribution.conflicts if c.path == "checkout.mjs"]
    assert {tool for _, tool in conflict.sides} == {None, CLAUDE}
    # An unnamed assistant disagrees with a person just as a named one does.
    unnamed = _either(tmp_path / "u", first, second, PERSON, UNNAMED)
    if unnamed is not None:
        assert state(unnamed) == "conflict"
