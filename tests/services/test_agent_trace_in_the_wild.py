"""Agent Trace files as their writers leave them in real repositories: the reference implementation's
revision (HEAD at the time of the edit: the parent of the commit that holds the lines), the spec's
agent handoffs, `mixed` and `unknown` contributors, content hashes that follow a moved range."""

from __future__ import annotations

import json

from helpers import git, make_repo
from review import gitsafe
from review.services import analysis, cohort

TRACE = ".agent-trace/traces.jsonl"


def commit(repo, message, files):
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo).strip()


def numbered(tag, start, end):
    return "".join(f"export const {tag}_{n} = {n};\n" for n in range(start, end + 1))


def added(result, path):
    file_diff = result.diff.file(path)
    return {line.new_no: line for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"}


def spec_example(revision):
    """The spec's own example record (section 6.2), with the revision the reference implementation
    writes: ``git rev-parse HEAD`` when the edit was made."""
    return {
        "version": "0.1.0",
        "id": "550e8400-e29b-41d4-a716-446655440000",
        "timestamp": "2026-01-23T14:30:00Z",
        "vcs": {"type": "git", "revision": revision},
        "tool": {"name": "cursor", "version": "2.4.0"},
        "files": [
            {
                "path": "src/utils/parser.ts",
                "conversations": [
                    {
                        "url": "https://api.cursor.com/v1/conversations/12345",
                        "contributor": {"type": "ai", "model_id": "anthropic/claude-opus-4-5-20251101"},
                        "ranges": [{"start_line": 42, "end_line": 67, "content_hash": "murmur3:9f2e8a1b"}],
                        "related": [{"type": "session", "url": "https://api.cursor.com/v1/sessions/67890"}],
                    }
                ],
            },
            {
                "path": "src/utils/helpers.ts",
                "conversations": [
                    {
                        "url": "https://api.cursor.com/v1/conversations/12345",
                        "contributor": {"type": "ai", "model_id": "openai/gpt-4o"},
                        "ranges": [{"start_line": 10, "end_line": 25}],
                    }
                ],
            },
        ],
        "metadata": {"confidence": 0.95, "dev.cursor": {"workspace_id": "ws-abc123"}},
    }


def test_the_specs_example_record_written_by_the_reference_implementation_maps_its_lines(tmp_path):
    """The revision is the commit the agent edited on top of; the lines are in the commit after it."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    edited = commit(
        repo,
        "parser and helpers by hand",
        {"src/utils/parser.ts": numbered("p", 1, 41), "src/utils/helpers.ts": numbered("h", 1, 9)},
    )
    commit(
        repo,
        "parsing",
        {
            "src/utils/parser.ts": numbered("p", 1, 41) + numbered("cursor_p", 42, 67) + "// mine\n",
            "src/utils/helpers.ts": numbered("h", 1, 9) + numbered("gpt_h", 10, 25),
            TRACE: json.dumps(spec_example(edited)) + "\n",
        },
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    parser, helpers = added(result, "src/utils/parser.ts"), added(result, "src/utils/helpers.ts")
    assert {n for n, line in parser.items() if line.tool} == set(range(42, 68))
    assert {line.tool for line in parser.values() if line.tool} == {"Cursor"}
    assert parser[68].tool is None  # the person's line in the same commit
    assert {n for n, line in helpers.items() if line.tool} == set(range(10, 26))
    assert "traces.jsonl line 1" in parser[42].source and f"the commit after revision {edited[:7]}" in parser[42].source
    assert result.attribution.tools == ["Cursor"] and result.attribution.conflicts == []
    assert result.diff.code_ai_added == 26 + 16
    # The example's hash is illustrative: it matches no text, and the range is placed by its line numbers.
    assert any("content hash matched none" in n.message for n in result.attribution.notices)

    row = cohort.load_row(repo)
    assert row.assistants == ["Cursor"] and row.disclosure == "ok" and row.ai_share == (26 + 16) / (68 + 25)


def test_a_revision_naming_the_commit_that_holds_the_lines_maps_them_there(tmp_path):
    """A writer that records the commit itself (the spec read literally): its own lines, not its child's."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    holding = commit(repo, "client", {"client.mjs": numbered("ai", 1, 6)})
    record = {
        "version": "0.1.0",
        "id": "1",
        "timestamp": "t",
        "vcs": {"type": "git", "revision": holding},
        "tool": {"name": "claude-code"},
        "files": [
            {
                "path": "client.mjs",
                "conversations": [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 2, "end_line": 5}]}],
            }
        ],
    }
    commit(
        repo,
        "more and the trace",
        {"client.mjs": numbered("ai", 1, 6) + numbered("me", 7, 12), TRACE: json.dumps(record) + "\n"},
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "client.mjs")
    assert [n for n, line in sorted(lines.items()) if line.tool] == [2, 3, 4, 5]
    assert lines[2].tool == "Claude Code" and f"at {holding[:7]})" in lines[2].source


def test_a_ranges_own_contributor_wins_over_its_conversation_with_no_conflict(tmp_path):
    """The spec's agent handoffs: a person's lines inside an AI conversation are the person's; mixed
    lines count as AI and say so; lines of unknown origin are no one's and are listed."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    base = git("rev-parse", "HEAD", cwd=repo).strip()
    record = {
        "version": "1.0",
        "id": "2",
        "timestamp": "t",
        "vcs": {"type": "git", "revision": base},
        "tool": {"name": "cursor"},
        "files": [
            {
                "path": "checkout.mjs",
                "conversations": [
                    {
                        "contributor": {"type": "ai", "model_id": "anthropic/claude-sonnet-4"},
                        "ranges": [
                            {"start_line": 1, "end_line": 20},
                            {"start_line": 10, "end_line": 12, "contributor": {"type": "human"}},
                            {"start_line": 14, "end_line": 15, "contributor": {"type": "unknown"}},
                        ],
                    },
                    {"contributor": {"type": "mixed"}, "ranges": [{"start_line": 18, "end_line": 19}]},
                ],
            }
        ],
    }
    commit(repo, "checkout", {"checkout.mjs": numbered("c", 1, 20), TRACE: json.dumps(record) + "\n"})
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "checkout.mjs")
    assert [n for n, line in sorted(lines.items()) if not line.tool] == [10, 11, 12, 14, 15]
    assert lines[9].tool == "Cursor" and lines[18].tool == "Cursor"
    assert "mixed" in lines[18].source and "mixed" not in lines[9].source
    assert result.attribution.conflicts == []
    messages = [n.message for n in result.attribution.notices]
    assert any("checkout.mjs:14–15 is of unknown origin: not counted as AI" in m for m in messages)
    assert any("1 range(s) marked mixed" in m for m in messages)
    assert cohort.load_row(repo).disclosure == "ok"


def test_a_later_record_wins_on_the_lines_a_person_rewrote(tmp_path):
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    base = git("rev-parse", "HEAD", cwd=repo).strip()

    def record(kind, start, end):
        return json.dumps(
            {
                "version": "1.0",
                "id": kind,
                "timestamp": "t",
                "vcs": {"type": "git", "revision": base},
                "tool": {"name": "claude-code"},
                "files": [
                    {
                        "path": "a.mjs",
                        "conversations": [
                            {"contributor": {"type": kind}, "ranges": [{"start_line": start, "end_line": end}]}
                        ],
                    }
                ],
            }
        )

    commit(repo, "a", {"a.mjs": numbered("a", 1, 8), TRACE: record("ai", 1, 8) + "\n" + record("human", 3, 4) + "\n"})
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert [n for n, line in sorted(added(result, "a.mjs").items()) if line.tool] == [1, 2, 5, 6, 7, 8]
    assert result.attribution.conflicts == []


RETRY_DELAY = (
    "export function retryDelay(attempt) {\n  const base = Math.min(1000 * 2 ** attempt, 30000);\n"
    "  return base / 2 + Math.random() * (base / 2);\n}"
)
RETRY_DELAY_MURMUR3 = "murmur3:10da9e63"  # as Bun's murmur32v3 (and the mmh3 package) give it for that text


def test_a_range_that_moved_is_found_by_its_content_hash(tmp_path):
    """A writer that hashes the edit's text (murmur3, as agent-trace's hooks do): the range moved to
    another file after the edit, and is found there; the lines now at its old place are not it."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    base = git("rev-parse", "HEAD", cwd=repo).strip()
    record = {
        "version": "1.0",
        "id": "3",
        "timestamp": "t",
        "vcs": {"type": "git", "revision": base},
        "tool": {"name": "claude-code"},
        "files": [
            {
                "path": "checkout.mjs",
                "conversations": [
                    {
                        "contributor": {"type": "ai"},
                        "ranges": [{"start_line": 3, "end_line": 6, "content_hash": RETRY_DELAY_MURMUR3}],
                    }
                ],
            }
        ],
    }
    commit(
        repo,
        "checkout",
        {
            "checkout.mjs": numbered("c", 1, 2) + RETRY_DELAY + "\n" + numbered("c", 7, 9),
            TRACE: json.dumps(record) + "\n",
        },
    )
    commit(
        repo,
        "the delay in its own module",
        {
            "checkout.mjs": numbered("c", 1, 2) + numbered("c", 7, 12),
            "retry.mjs": "// retries\n\n" + RETRY_DELAY + "\n",
        },
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    retry, checkout = added(result, "retry.mjs"), added(result, "checkout.mjs")
    assert [n for n, line in sorted(retry.items()) if line.tool] == [3, 4, 5, 6]
    assert "found by its content hash at retry.mjs:3" in retry[3].source
    assert not any(line.tool for line in checkout.values())


def test_a_revision_not_in_the_history_places_nothing_and_says_so(tmp_path):
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    gone = "0123456789abcdef0123456789abcdef01234567"
    record = {
        "version": "1.0",
        "id": "4",
        "timestamp": "t",
        "vcs": {"type": "git", "revision": gone},
        "tool": {"name": "cursor"},
        "files": [
            {
                "path": "a.mjs",
                "conversations": [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 1, "end_line": 3}]}],
            },
            {
                "path": ".shell-history",
                "conversations": [{"contributor": {"type": "ai"}, "ranges": [{"start_line": 1, "end_line": 1}]}],
            },
        ],
    }
    commit(repo, "a", {"a.mjs": numbered("a", 1, 3), TRACE: json.dumps(record) + "\n"})
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert not any(line.tool for line in added(result, "a.mjs").values())
    [notice] = [n.message for n in result.attribution.notices]
    assert (
        notice == f"revision {gone[:12]} is not in this history (rewritten, or never committed): Cursor on "
        "a.mjs:1–3 not placed"
    )
    assert result.attribution.tools == ["Cursor"]
    assert cohort.load_row(repo).disclosure == "unmapped"  # a disclosure of lines, none of them placed
