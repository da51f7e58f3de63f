"""Each added line is an assistant's (with its tool), the person's (a source says so), unknown (no
source speaks for it), or from the base (the starter's code, moved, copied or renamed: not written in
the submission, left out of the share). Real repositories, the real analysis and triage row."""

from __future__ import annotations

import json

import pytest

from helpers import commit_as, git, make_repo
from review import gitsafe
from review.services import analysis, cohort

PAT = ("Pat Doe", "pat@example.com")
HELPER = (
    "export function backoffDelay(attempt, baseMilliseconds = 100) {\n"
    "  const exponential = baseMilliseconds * 2 ** attempt;\n"
    "  const jitter = Math.floor(Math.random() * baseMilliseconds);\n"
    "  return Math.min(exponential + jitter, 5000);\n"
    "}\n"
)
STARTER = {"README.md": "# Task\nImplement chargeWithRetry.\n", "checkout.mjs": "// starter\n" + HELPER}
CLIENT = "".join(f"export const step{n} = {n};\n" for n in range(1, 5))


def states(result: analysis.Analysis, path: str) -> list[str]:
    """Each added line of `path`: its tool, or person / unknown / base."""
    file_diff = result.diff.file(path)
    assert file_diff is not None, path
    return [line.tool or line.state or "unknown" for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"]


def analysed(repo) -> analysis.Analysis:
    return analysis.analyse(gitsafe.open_submission(repo))


def row_of(repo) -> cohort.Row:
    return cohort.load_row(repo)


# --------------------------------------------------------------------------- three states


def test_a_submission_that_discloses_nothing_is_unknown_not_the_persons(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "Add the client\n", {"lib.mjs": CLIENT}, author=PAT)
    result = analysed(repo)
    assert states(result, "lib.mjs") == ["unknown"] * 4
    row = row_of(repo)
    assert (row.ai_share, row.person_share, row.unknown_share) == (0.0, 0.0, 1.0)
    assert row.attribution is not None and row.attribution["unknown_added_lines"] == 4
    json.dumps(row.to_json())  # the triage JSON carries the three shares


def test_a_note_that_discloses_makes_unmarked_commits_the_persons_and_says_who_else(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo, "Add the client\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n", {"lib.mjs": CLIENT}, author=PAT
    )
    commit_as(repo, "Add mine\n", {"mine.mjs": "export const mine = 1;\n"}, author=PAT)
    commit_as(repo, "Note\n", {"NOTE.md": "# Note\n\n## AI use\nClaude Code wrote lib.mjs.\n"}, author=PAT)
    result = analysed(repo)
    assert states(result, "lib.mjs") == ["Claude Code"] * 4
    assert states(result, "mine.mjs") == ["person"]
    row = row_of(repo)
    assert (row.ai_share, row.person_share, row.unknown_share) == (0.8, 0.2, 0.0)


def test_the_notes_i_wrote_and_no_ai_declared_make_lines_the_persons(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "Add the client\n", {"lib.mjs": CLIENT}, author=PAT)
    commit_as(repo, "Note\n", {"NOTE.md": "# Note\n\n## AI use\nNone. I wrote this by hand.\n"}, author=PAT)
    assert states(analysed(repo), "lib.mjs") == ["person"] * 4


def test_git_ai_keeps_three_states_human_keys_are_the_persons_and_lines_no_key_covers_unknown(tmp_path):
    """git-ai's own accounting: `h_` keys a person the IDE confirmed, lines no key covers untracked."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    noted = commit_as(repo, "Add the client\n", {"lib.mjs": CLIENT}, author=PAT)
    meta = {"schema_version": "authorship/3.0.0", "prompts": {}, "sessions": {"s_aaaaaaaaaaaaaa": {"agent_id": {}}}}
    note = f"lib.mjs\n  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 1-2\n  h_cccccccccccccc 3\n---\n{json.dumps(meta)}\n"
    git("notes", "--ref=ai", "add", "-m", note, noted, cwd=repo)
    # A trailer elsewhere: the submission discloses, yet the noted commit's uncovered line stays unknown.
    commit_as(repo, "Tidy\n\nCo-authored-by: Codex <noreply@openai.com>\n", {"other.mjs": "export const o = 1;\n"})
    result = analysed(repo)
    assert states(result, "lib.mjs") == ["an agent (git-ai)", "an agent (git-ai)", "person", "unknown"]


def test_agent_traces_human_ranges_are_the_persons(tmp_path):
    trace = {
        "version": "0.1.0",
        "id": "1",
        "timestamp": "t",
        "files": [
            {
                "path": "lib.mjs",
                "conversations": [
                    {"contributor": {"type": "human"}, "ranges": [{"start_line": 1, "end_line": 2}]},
                    {"contributor": {"type": "ai"}, "ranges": [{"start_line": 3, "end_line": 3}]},
                ],
            }
        ],
    }
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "Add the client\n", {"lib.mjs": CLIENT, ".agent-trace/traces.jsonl": json.dumps(trace) + "\n"})
    assert states(analysed(repo), "lib.mjs") == ["person", "person", "an agent (Agent Trace)", "unknown"]


# --------------------------------------------------------------------------- from the base


def _disclosed(repo) -> None:
    commit_as(repo, "Note\n", {"NOTE.md": "# Note\n\n## AI use\nNone. I wrote this by hand.\n"}, author=PAT)


@pytest.mark.parametrize("merged", [False, True], ids=["linear", "with-a-merge"])
def test_starter_code_moved_into_a_new_file_is_from_the_base_and_not_counted(tmp_path, merged):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    if merged:
        git("checkout", "-q", "-b", "side", cwd=repo)
        commit_as(repo, "Side work\n", {"side.mjs": "export const side = 1;\n"}, author=PAT)
        git("checkout", "-q", "main", cwd=repo)
    commit_as(
        repo,
        "Move the helper out\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
        {"checkout.mjs": "// starter\nimport { backoffDelay } from './backoff.mjs';\n", "backoff.mjs": HELPER},
        author=PAT,
    )
    if merged:
        git("merge", "-q", "--no-ff", "-m", "Merge side", "side", cwd=repo)
    _disclosed(repo)
    result = analysed(repo)
    assert states(result, "backoff.mjs") == ["base"] * 5
    assert states(result, "checkout.mjs") == ["Claude Code"]
    totals = result.diff.totals()
    assert (totals.code_base_added, totals.counted) == (5, 1 + merged)
    [span] = [s for s in result.attribution.spans if s.path == "backoff.mjs"]
    assert span.state == "base" and span.source.startswith("from the base: checkout.mjs:2")
    row = row_of(repo)
    assert row.attribution is not None and row.attribution["base_lines"] == 5
    # The share is of the lines written in the range: the moved helper is in neither side of it.
    assert row.ai_share == 1 / (1 + merged)


def test_a_file_renamed_onto_an_empty_one_of_the_same_name_is_from_the_base(tmp_path):
    repo = make_repo(tmp_path / "s", {**STARTER, "retry.mjs": "", "lib/retry.mjs": HELPER}, "starter")
    git("rm", "-q", "retry.mjs", cwd=repo)
    git("mv", "lib/retry.mjs", "retry.mjs", cwd=repo)
    commit_as(repo, "Move retry up\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n", author=PAT)
    commit_as(repo, "Add the client\n", {"lib.mjs": CLIENT}, author=PAT)
    _disclosed(repo)
    result = analysed(repo)
    # The net diff shows retry.mjs's lines added to an empty file; blame follows them to the starter.
    assert states(result, "retry.mjs") == ["base"] * 5
    assert result.diff.totals().counted == 4 and result.diff.ai_share == 0.0


def test_a_block_copied_from_the_starter_is_from_the_base(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "Copy the helper\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n",
        {"copy.mjs": "// my copy\n" + HELPER},
        author=PAT,
    )
    _disclosed(repo)
    result = analysed(repo)
    assert states(result, "copy.mjs") == ["Claude Code"] + ["base"] * 5
    assert result.diff.totals().counted == 1 and result.diff.ai_share == 1.0


def test_the_export_and_the_triage_row_say_a_silent_submission_is_unknown(tmp_path):
    from review.core import triage
    from review.services import export

    repo = make_repo(tmp_path / "cohort" / "quiet", STARTER, "starter")
    commit_as(repo, "Add the client\n", {"lib.mjs": CLIENT}, author=PAT)
    csv_text = export.render(tmp_path / "cohort", "csv")
    header, row = csv_text.splitlines()[:2]
    values = dict(zip(header.split(","), row.split(",")))
    assert [values[f] for f in ("ai_share", "person_share", "unknown_share")] == ["0.00", "0.00", "1.00"]
    assert "| unknown\\_share |" in export.render(tmp_path / "cohort", "md")
    quiet = row_of(repo)
    assert triage.shares_text(quiet.ai_share, quiet.person_share, quiet.unknown_share) == "AI 0% · unknown 100%"
