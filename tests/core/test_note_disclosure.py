"""The note's disclosure grammar, overrides, conflicts and unmapped lines (pure)."""

import pytest

from review.core.attribution import (
    Claim,
    CommitAttribution,
    Signal,
    attribute,
    parse_agent_trace,
    parse_git_ai_note,
    parse_note,
    parse_note_line,
)


@pytest.mark.parametrize(
    "line, path, start, end, tool",
    [
        ("checkout.mjs:2-17 — GitHub Copilot", "checkout.mjs", 2, 17, "GitHub Copilot"),
        ("- checkout.mjs L2-L17 — Claude Code", "checkout.mjs", 2, 17, "Claude Code"),
        ("* checkout.mjs lines 2–17: Cursor", "checkout.mjs", 2, 17, "Cursor"),
        ("checkout.mjs line 3 — me", "checkout.mjs", 3, 3, None),
        ("`lib/key.mjs`:4 by Aider", "lib/key.mjs", 4, 4, "Aider"),
        ("checkout.mjs#L5-L9 - ChatGPT", "checkout.mjs", 5, 9, "ChatGPT"),
        ("1. checkout.mjs:9-2 — Codex", "checkout.mjs", 2, 9, "OpenAI Codex"),
    ],
)
def test_range_forms(line, path, start, end, tool):
    entry = parse_note_line(1, line)
    assert (entry.kind, entry.path, entry.start, entry.end, entry.tool) == ("range", path, start, end, tool)


def test_whole_file_commit_none_and_prose():
    assert parse_note_line(1, "checkout.mjs: all — Copilot").kind == "file"
    assert parse_note_line(1, "test/x.test.mjs (all) — me").kind == "file"
    commit = parse_note_line(1, "commit 3f2a1b: Claude Code")
    assert (commit.kind, commit.commit, commit.tool) == ("commit", "3f2a1b", "Claude Code")
    for none in ["None.", "None. I wrote this by hand.", "No AI tools were used.", "I did not use any assistant."]:
        assert parse_note_line(1, none).kind == "none", none
    assert parse_note_line(1, "Claude wrote most of it").kind == "prose"
    assert parse_note_line(1, "checkout.mjs:1-3 — Priya Raman").tool is None  # a person, named


NOTE = """# Note

## What I verified
checkout.mjs:1-99 — Claude   (not in the disclosure section: ignored)

## AI disclosure
Assistant: GitHub Copilot, in VS Code,
which I used for the loop.

- checkout.mjs:1-10 — GitHub Copilot
- checkout.mjs:3 — me
- checkout.mjs:8-14 — Copilot
- missing.mjs:1-2 — Copilot
- commit abcdef1: Copilot
- the retry loop shape — Copilot

## Something else
checkout.mjs:1-10 — me
"""


def commit(sha, tool=None):
    signals = [Signal(tool, None, "Co-authored-by trailer", "x", sha)] if tool else []
    return CommitAttribution(sha, signals)


def test_section_overrides_unmapped_and_conflicts():
    note = parse_note(NOTE)
    assert note.heading == "AI disclosure"
    assert [e.kind for e in note.entries] == ["prose", "range", "range", "range", "range", "commit", "prose"]
    assert note.entries[0].raw.endswith("which I used for the loop.")  # wrapped prose joined
    human = "h" * 40
    blame = {"checkout.mjs": [(human, n, "checkout.mjs", "") for n in range(1, 13)]}
    result = attribute([commit(human)], {human: "Gia"}, note, {"checkout.mjs": 12}, blame, [], head="f" * 40)
    tools = {n: result.claim("checkout.mjs", n).tool for n in range(1, 13)}
    assert tools[3] is None and tools[1] == tools[10] == "GitHub Copilot"  # line 3: the later, more specific "me"
    assert tools[11] == tools[12] == "GitHub Copilot"  # 8-14 clipped to the 12 lines that exist
    reasons = {u.text: u.reason for u in result.unmapped}
    assert reasons["checkout.mjs:8-14 — Copilot"] == "lines 13–14 do not exist (checkout.mjs has 12 lines)"
    assert reasons["missing.mjs:1-2 — Copilot"] == "missing.mjs is not in the submission at HEAD"
    assert reasons["commit abcdef1: Copilot"] == "no commit of this submission has that id"
    assert "names no file" in reasons["the retry loop shape — Copilot"]
    # The commit carries no trailer: it claims nothing, so the note's lines are no conflict.
    assert result.conflicts == []


def test_a_note_and_a_trailer_naming_different_tools_for_the_same_lines_conflict():
    note = parse_note("## AI use\n- checkout.mjs:1-2 — Claude Code\n")
    ai = "c" * 40
    blame = {"checkout.mjs": [(ai, 1, "checkout.mjs", ""), (ai, 2, "checkout.mjs", "")]}
    result = attribute([commit(ai, "Cursor")], {ai: "Finn"}, note, {"checkout.mjs": 2}, blame, [], ai)
    [conflict] = result.conflicts
    assert (conflict.path, conflict.start, conflict.end) == ("checkout.mjs", 1, 2)
    assert "says Claude Code" in conflict.message and "says Cursor" in conflict.message
    assert [tool for _, tool in conflict.sides] == ["Claude Code", "Cursor"]  # both sources, both tools, as fields
    assert conflict.to_json()["sides"][0] == {"source": "note line 2", "tool": "Claude Code"}


def test_trailers_naming_an_assistant_while_the_note_says_none():
    note = parse_note("## AI use\nNone. I wrote this by hand.\n")
    assert note.declares_none
    ai = "a" * 40
    result = attribute(
        [commit(ai, "Cursor")], {ai: "Finn"}, note, {"c.mjs": 1}, {"c.mjs": [(ai, 1, "c.mjs", "")]}, [], "a" * 40
    )
    assert "declares no assistant" in result.conflicts[0].message and "Cursor" in result.conflicts[0].message
    assert result.claim("c.mjs", 1).tool == "Cursor"


GIT_AI = """src/main.rs
  s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-10,15-20
  s_c9883b05a2487d::t_a1b2c3d4e5f678 25,30-35
  h_31dce776f88375 42-50
src/lib.rs
  s_e7f2a90b31cc48::t_deadbeef012345 1-50
---
{
  "schema_version": "authorship/3.0.0",
  "git_ai_version": "1.4.5",
  "base_commit_sha": "7734793b756b3921c88db5375a8c156e9532447b",
  "prompts": {},
  "humans": { "h_31dce776f88375": { "author": "Developer <dev@example.com>" } },
  "sessions": {
    "s_c9883b05a2487d": {
      "agent_id": { "tool": "cursor", "id": "6ef2299e-a67f-432b-aa80-3d2fb4d28999",
                    "model": "claude-sonnet-4-5-20250514" },
      "human_author": "dev@example.com"
    }
  }
}
"""


def test_git_ai_v3_note():
    records = parse_git_ai_note("c" * 40, GIT_AI)
    main = [r for r in records if r.path == "src/main.rs"]
    assert main[0].ranges == [(1, 10), (15, 20)] and main[0].tool == "Cursor"
    assert main[1].ranges == [(25, 25), (30, 35)]
    assert main[2].tool is None  # h_: a known human
    lib = next(r for r in records if r.path == "src/lib.rs")
    assert lib.tool == "an agent (git-ai)"  # its session is not in the metadata: still AI, tool unknown


def test_git_ai_legacy_prompt_keys():
    text = (
        'src/git/repository.rs\n  02ad540 2047,3069-3136\n---\n{"schema_version": "authorship/3.0.0", '
        '"prompts": {"02ad540": {"agent_id": {"tool": "cursor", "model": "gpt-5-codex"}, "messages": []}}}'
    )
    records = parse_git_ai_note("d" * 40, text)
    assert records[0].tool == "Cursor" and records[0].ranges == [(2047, 2047), (3069, 3136)]


def test_each_git_ai_note_names_its_own_sessions_tools_in_any_order():
    """Notes read one after another: a session key means what that note's own metadata says."""

    def note(tool: str, ranges: str = "1-3") -> str:
        return f'a.mjs\n  s_1 {ranges}\n---\n{{"sessions": {{"s_1": {{"agent_id": {{"tool": "{tool}"}}}}}}}}'

    read = [parse_git_ai_note("e" * 40, text) for text in (note("cursor"), note("claude"), note("cursor", "4"))]
    assert [(r[0].tool, r[0].ranges) for r in read] == [
        ("Cursor", [(1, 3)]),
        ("Claude Code", [(1, 3)]),
        ("Cursor", [(4, 4)]),
    ]
    assert parse_git_ai_note("e" * 40, "a.mjs\n  s_1 2\n---\nnot json")[0].tool == "an agent (git-ai)"
    assert parse_git_ai_note("e" * 40, "a.mjs\n  s_1 ٣,7-5\n")[0].ranges == [(3, 3), (5, 7)]


def test_agent_trace_minimal_record():
    text = (
        '{"version":"0.1.0","id":"550e8400-e29b-41d4-a716-446655440000","timestamp":"2026-01-25T10:00:00Z",'
        '"files":[{"path":"src/app.ts","conversations":[{"contributor":{"type":"ai"},'
        '"ranges":[{"start_line":1,"end_line":50}]}]}]}\nnot json\n'
    )
    records = parse_agent_trace(text)
    assert len(records) == 1 and records[0].path == "src/app.ts" and records[0].ranges == [(1, 50)]
    assert records[0].tool and records[0].commit is None


def test_line_records_beat_commit_metadata_and_map_through_blame():
    old, new = "0" * 40, "1" * 40
    # HEAD line 1 came from `old` (its line 5), line 2 from `new`.
    blame = {"x.mjs": [(old, 5, "x.mjs", ""), (new, 1, "x.mjs", "")]}
    note = parse_note("## AI\n")
    records = parse_git_ai_note(old, "x.mjs\n  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 5\n---\n{}")
    result = attribute(
        [commit(old), commit(new, "Aider")], {old: "A", new: "B"}, note, {"x.mjs": 2}, blame, records, head=new
    )
    assert result.claim("x.mjs", 1) == Claim("an agent (git-ai)", f"git-ai note on {old[:7]}", 3)
    assert result.claim("x.mjs", 2).tool == "Aider"


@pytest.mark.parametrize(
    "note, kind, path, tool",
    [
        ("# Note\n\n**AI use:** Claude Code wrote checkout.mjs.\n", "file", "checkout.mjs", "Claude Code"),
        ("AI disclosure\n=============\n\ncheckout.mjs:3-9 — Cursor\n", "range", "checkout.mjs", "Cursor"),
        (
            "## AI use\n\n| File | Lines | Tool |\n|---|---|---|\n| checkout.mjs | 2-8 | Copilot |\n",
            "range",
            "checkout.mjs",
            "GitHub Copilot",
        ),
        ("# Note\n\nI used ChatGPT for all of checkout.mjs.\n", "file", "checkout.mjs", "ChatGPT"),
        ("## Assistance\nClaude wrote lines 12–30 of checkout.mjs.\n", "range", "checkout.mjs", "Claude Code"),
        ("## AI\nCursor wrote the tests.\n", "tests", None, "Cursor"),
        (
            '## Assistant\nCodex wrote the first draft (commit "Add payment\nclient with retries").\n',
            "commit",
            None,
            "OpenAI Codex",
        ),
    ],
)
def test_disclosure_forms_candidates_write(note, kind, path, tool):
    entries = [e for e in parse_note(note).entries if e.kind != "prose"]
    assert [(e.kind, e.path, e.tool) for e in entries] == [(kind, path, tool)]


@pytest.mark.parametrize(
    "table, expected",
    [
        # A range written in the file's own cell, as many do.
        (
            "| File | Written by |\n|---|---|\n| checkout.mjs lines 1-40 | Cursor (agent mode) |\n",
            [("range", "checkout.mjs", 1, "Cursor")],
        ),
        (
            "| File | Tool |\n|---|---|\n| `checkout.mjs:5-9` | Copilot |\n| checkout.mjs L20-L30 | ChatGPT |\n",
            [("range", "checkout.mjs", 5, "GitHub Copilot"), ("range", "checkout.mjs", 20, "ChatGPT")],
        ),
        (
            "| File | Lines | Tool |\n|---|---|---|\n| store.mjs | lines 3-4 | Aider |\n| test.mjs | all | me |\n",
            [("range", "store.mjs", 3, "Aider"), ("file", "test.mjs", None, None)],
        ),
        # A row that names a part, not a file: the tool is disclosed, its lines listed as unmapped.
        ("| Part | Who |\n|---|---|\n| Retry loop | Cursor |\n", [("prose", None, None, "Cursor")]),
    ],
)
def test_every_row_of_a_disclosure_table_is_read_and_its_header_names_no_one(table, expected):
    note = parse_note(f"## AI disclosure\n\n{table}")
    assert [(e.kind, e.path, e.start, e.tool) for e in note.entries] == expected


def test_sections_are_what_commonmark_says():
    note = parse_note(
        "## Why the model's draft was wrong\nIt made a new key.\n\n```\n# AI disclosure\n```\n"
        "## AI disclosure\n- checkout.mjs:1-2 — Claude\n"
    )
    assert note.heading == "AI disclosure" and [e.path for e in note.entries] == ["checkout.mjs"]
    commit_named = parse_note('## AI\nCodex wrote it (commit "Add payment client with retries").\n').entries[0]
    assert commit_named.subject == "Add payment client with retries"
    ranged = parse_note("## AI\nClaude wrote lines 12–30 of checkout.mjs.\n").entries[0]
    assert (ranged.start, ranged.end) == (12, 30)


def test_a_commit_named_by_its_subject_maps_its_surviving_lines():
    note = parse_note('## Assistant\nCodex wrote the first draft (commit "Add payment client").\n')
    draft, mine = "d" * 40, "e" * 40
    blame = {
        "checkout.mjs": [(draft, 1, "checkout.mjs", ""), (mine, 1, "checkout.mjs", ""), (draft, 2, "checkout.mjs", "")]
    }
    result = attribute(
        [commit(draft), commit(mine)],
        {draft: "Chen", mine: "Chen"},
        note,
        {"checkout.mjs": 3},
        blame,
        [],
        mine,
        {draft: "Add payment client with retries", mine: "Persist the key"},
    )
    assert [result.claim("checkout.mjs", n).tool for n in (1, 2, 3)] == ["OpenAI Codex", None, "OpenAI Codex"]
    assert result.unmapped == [] and result.conflicts == []


def test_one_name_per_tool_and_test_agents_are_not_assistants():
    from review.core.attribution.tools import canonical_tool

    assert {canonical_tool(n) for n in ("claude-code", "Claude Code", "claude", "CLAUDE_CODE")} == {"Claude Code"}
    assert {canonical_tool(n) for n in ("Devin", "devin")} == {"Devin"}
    assert canonical_tool("firebender") == "Firebender" and canonical_tool("droid") == "Factory Droid"
    assert canonical_tool("NewTool 9") == "NewTool 9"  # unknown: as written, never dropped
    assert canonical_tool("mock_ai") is None
    note = GIT_AI.replace('"tool": "cursor"', '"tool": "mock_ai"')
    assert {r.tool for r in parse_git_ai_note("a" * 40, note) if r.path == "src/main.rs"} == {None}


# --------------------------------------------------------------------------- only disclosures count


@pytest.mark.parametrize(
    "title, disclosure",
    [
        ("AI disclosure", True),
        ("AI use", True),
        ("Use of AI tools", True),
        ("AI", True),
        ("Assistants", True),
        ("Assistance", True),
        ("Tools used", True),
        ("How I used Claude", True),
        ("Provenance", True),
        ("Who wrote what", True),
        ("LLM usage", True),
        ("Agent Support", False),
        ("Supported agents", False),
        ("Git AI commands", False),
        ("AI blame in your IDE", False),
        ("Why the model's draft was wrong", False),
        ("Tools", False),
        ("Editor extensions", False),
        ("Copilot", False),
    ],
)
def test_a_disclosure_heading_is_about_ai_use_not_a_heading_that_names_ai(title, disclosure):
    note = parse_note(f"## {title}\n\n- [Windsurf](https://marketplace.windsurf.com/x)\n")
    assert (note.heading == title) is disclosure
    assert note.tools == (["Windsurf"] if disclosure else [])


@pytest.mark.parametrize(
    "text",
    [
        "# Project\n\n- [Windsurf](https://marketplace.windsurf.com/x)\n- [Cursor](https://cursor.com)\n",
        "# Project\n\nWorks with Claude Code, Cursor and GitHub Copilot.\n",
        "# Note\n\nReading Copilot's draft I noticed the key was made inside the loop.\n",
        "# Note\n\nOnce installed, Cursor and Claude Code mark the code they generate as AI-authored.\n",
        "# Note\n\nThe key is generated with crypto.randomUUID(). I used JSON.stringify for the body.\n",
        "| Editor | Link |\n|---|---|\n| Windsurf | [marketplace](https://marketplace.windsurf.com) |\n",
        # What a README says of the tools it works with is a description, not a disclosure:
        "# Project\n\nTrack code generated by Claude Code, Cursor and Copilot.\n",
        "# Project\n\nUsing Cursor? Install the extension.\n",
        "# Project\n\nWrite code with the help of Claude Code.\n",
    ],
)
def test_a_tool_mentioned_in_prose_a_list_or_a_link_names_no_assistant(text):
    note = parse_note(text)
    assert note.tools == [] and note.entries == []


@pytest.mark.parametrize(
    "sentence, kind, path, start, tool",
    [
        ("Claude Code wrote checkout.mjs.", "file", "checkout.mjs", None, "Claude Code"),
        ("MonkeyCode wrote checkout.mjs lines 1-1.", "range", "checkout.mjs", 1, "MonkeyCode"),
        ("The retry loop in checkout.mjs was generated by MonkeyCode.", "file", "checkout.mjs", None, "MonkeyCode"),
        ("I used aider for all of checkout.mjs.", "file", "checkout.mjs", None, "Aider"),
        ("Lines 3-9 of checkout.mjs were written with Cursor.", "range", "checkout.mjs", 3, "Cursor"),
        ("With the help of Copilot, I wrote checkout.mjs:2-5.", "range", "checkout.mjs", 2, "GitHub Copilot"),
        ("This PR was written primarily by Claude Code.", "prose", None, None, "Claude Code"),
        ("Copilot (Claude Opus 4.6) produced a first version.", "prose", None, None, "GitHub Copilot"),
        ("I wrote lines 3-9 of checkout.mjs.", "range", "checkout.mjs", 3, None),
        ("JetBrains AI Assistant completed some lines in checkout.mjs.", "prose", None, None, "JetBrains AI Assistant"),
        ("Everything in `src/` was pair-programmed with Sourcegraph Cody.", "prose", None, None, "Sourcegraph Cody"),
    ],
)
def test_a_disclosure_sentence_maps_wherever_it_stands(sentence, kind, path, start, tool):
    for note in (f"# Note\n{sentence}\n", f"# Note\n\n## What I verified\nIt works.\n\n## Later\n{sentence}\n"):
        [entry] = parse_note(note).entries
        assert (entry.kind, entry.path, entry.start, entry.tool) == (kind, path, start, tool)


def test_an_unknown_tool_counts_only_in_an_explicit_form():
    assert (
        parse_note("# Note\nI used TabbyML for the loop.\n").tools == []
    )  # "used X" outside a section: known tools only
    assert parse_note("## AI use\nI used TabbyML for the loop.\n").tools == ["TabbyML"]
    assert parse_note("# Note\nTabbyML wrote the loop.\n").tools == ["TabbyML"]
    assert parse_note("# Note\nJane Doe wrote checkout.mjs lines 3-4.\n").entries[0].tool is None  # a person


def test_a_sentence_disclosure_over_the_same_trailer_is_no_conflict():
    note = parse_note("# Note\nClaude Code wrote checkout.mjs.\nI checked it.\n")
    assert note.heading is None and note.discloses
    ai = "a" * 40
    blame = {"checkout.mjs": [(ai, 1, "checkout.mjs", ""), (ai, 2, "checkout.mjs", "")]}
    result = attribute([commit(ai, "Claude Code")], {ai: "Ann"}, note, {"checkout.mjs": 2}, blame, [], ai)
    assert (
        result.conflicts == []
        and result.claim("checkout.mjs", 1).source == "note line 2, and commit aaaaaaa: Co-authored-by trailer"
    )
    silent = attribute(
        [commit(ai, "Claude Code")], {ai: "Ann"}, parse_note("# Note\nIt works.\n"), {"checkout.mjs": 2}, blame, [], ai
    )
    # A note silent about assistants does not disagree with the commits: no conflict, a notice.
    assert silent.conflicts == []
    assert [n.message for n in silent.notices] == ["the note names no assistant; commit metadata names Claude Code"]


def test_a_readme_about_attribution_discloses_nothing_by_naming_tools():
    """A project's README read in the note's place may be about attribution itself: its headings name
    authorship, its prose and examples name every tool. Only its own disclosures count."""
    readme = (
        "# Tool\n\n## Attribution: who wrote which line\n\nEach tool has one name (`claude-code` → Claude "
        "Code; `droid` → Factory Droid).\n\n- **Footers**: `Generated with [Devin](https://devin.ai)`, and "
        "Cursor's `Made-with: Cursor`.\n- A person who wrote with a tool's help (\"With the help of Copilot, I "
        'wrote …") credits the tool.\n\n```\nClaude Code wrote checkout.mjs.\n```\n'
    )
    assert parse_note(readme, document=True).entries == []
    assert parse_note(readme + "\nI used Cursor for lines 1-4 of app.mjs.\n", document=True).tools == ["Cursor"]


def test_a_tool_that_was_used_to_write_is_its_writer_and_a_merely_used_one_in_tests_is_not():
    assert parse_note("Claude Code was used to create the whole application.").tools == ["Claude Code"]
    assert parse_note("Copilot was used for the retry loop in checkout.mjs.").tools == ["GitHub Copilot"]
    assert parse_note("A fake of the Cursor API was used in the tests.").tools == []
