"""git-ai notes on commits a squash, an amend or a rebase left behind: still in refs/notes/ai, on a
commit HEAD no longer reaches. Listed on the row, their tool named, their lines carried to HEAD
where the same text survives; said so when the old commit is gone."""

from __future__ import annotations

from helpers import git, make_repo
from review import gitsafe
from review.services import analysis, cohort
from review.tui.widgets.triage import cells

CLAUDE_LINES = (
    "export async function chargeWithRetry(amount) {\n"
    "  const idempotencyKey = await loadOrCreateKey(amount);\n"
    "  return sendWithBackoff(amount, idempotencyKey);\n"
    "}\n"
)
MY_LINES = (
    "export function loadOrCreateKey(amount) {\n"
    "  return persistedKeys.get(amount) ?? persistedKeys.create(amount);\n"
    "}\n"
)


def note_for(tool, path, ranges):
    return (
        f'{path}\n  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb {ranges}\n---\n{{"schema_version": "authorship/3.0.0", '
        f'"prompts": {{}}, "sessions": {{"s_aaaaaaaaaaaaaa": {{"agent_id": {{"tool": "{tool}", "id": "x", '
        f'"model": "m"}}}}}}}}\n'
    )


def commit(repo, message, files):
    for path, text in files.items():
        (repo / path).write_text(text)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo).strip()


def claude_then_me(tmp_path, name="cand"):
    """The starter; the agent's commit with git-ai's note on it (claude, checkout.mjs lines 1–4); the
    candidate's own commit after it."""
    repo = make_repo(tmp_path / name, {"README.md": "task\n"}, "starter")
    agent = commit(repo, "charge with retry", {"checkout.mjs": CLAUDE_LINES})
    git("notes", "--ref=ai", "add", "-m", note_for("claude", "checkout.mjs", "1-4"), agent, cwd=repo)
    commit(repo, "persist the key", {"checkout.mjs": CLAUDE_LINES + MY_LINES})
    return repo, agent


def added(result, path):
    file_diff = result.diff.file(path)
    return {line.new_no: line for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"}


def test_a_squashed_history_keeps_the_notes_lines_and_says_where_they_came_from(tmp_path):
    repo, agent = claude_then_me(tmp_path)
    git("reset", "-q", "--soft", "HEAD~2", cwd=repo)
    git("commit", "-q", "-m", "Solution", cwd=repo)  # as candidates tidy before they submit
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert agent not in {c.sha for c in result.commits}
    lines = added(result, "checkout.mjs")
    assert [n for n, line in sorted(lines.items()) if line.tool] == [1, 2, 3, 4]
    assert lines[1].tool == "Claude Code"
    assert lines[1].source == f"git-ai note on {agent[:7]}, from a rewritten commit, matched by content"
    [note] = result.attribution.rewritten
    assert note.commit == agent and note.carried == 4 and note.problem is None
    assert result.attribution.tools == ["Claude Code"]

    row = cohort.load_row(repo)
    assert row.assistants == ["Claude Code"] and row.disclosure == "ok" and row.ai_share == 4 / 7
    summary = (
        "1 git-ai note describes a commit not in this history: Claude Code, 4 lines of checkout.mjs; "
        "4 lines carried to HEAD where the same text survives"
    )
    assert row.attribution["rewritten_summary"] == summary
    assert row.attribution["rewritten"][0]["carried_to"] == [{"path": "checkout.mjs", "start": 1, "end": 4}]
    assert summary in cells.detail(row)


def test_a_note_whose_commit_is_gone_is_listed_and_says_its_lines_cannot_be_matched(tmp_path):
    repo, agent = claude_then_me(tmp_path)
    git("reset", "-q", "--soft", "HEAD~2", cwd=repo)
    git("commit", "-q", "-m", "Solution", cwd=repo)
    git("reflog", "expire", "--expire=now", "--all", cwd=repo)
    git("gc", "-q", "--prune=now", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert not any(line.tool for line in added(result, "checkout.mjs").values())
    [note] = result.attribution.rewritten
    assert note.carried == 0 and "its commit is not in the repository" in note.problem
    assert result.attribution.tools == ["Claude Code"]  # the note still names its tool
    row = cohort.load_row(repo)
    assert row.assistants == ["Claude Code"] and row.disclosure == "unmapped"
    assert (
        "1 git-ai note describes a commit not in this history: Claude Code, 4 lines of checkout.mjs"
        in row.attribution["rewritten_summary"]
    )
    assert "could not be matched" in row.attribution["rewritten_summary"]


def test_an_amended_commit_keeps_its_notes_lines(tmp_path):
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    agent = commit(repo, "wip", {"checkout.mjs": CLAUDE_LINES})
    git("notes", "--ref=ai", "add", "-m", note_for("claude", "checkout.mjs", "1-4"), agent, cwd=repo)
    (repo / "checkout.mjs").write_text(CLAUDE_LINES + MY_LINES)
    git("commit", "-q", "-a", "--amend", "-m", "Charge with retry, the key persisted", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "checkout.mjs")
    assert [n for n, line in sorted(lines.items()) if line.tool] == [1, 2, 3, 4]
    assert "from a rewritten commit" in lines[4].source


def test_a_rebased_branch_keeps_its_notes_lines_wherever_they_moved(tmp_path):
    """The branch is rebased onto a main that moved on, and the agent's function ends up below a
    person's code in another file."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    git("checkout", "-q", "-b", "feature", cwd=repo)
    agent = commit(repo, "charge", {"checkout.mjs": CLAUDE_LINES})
    git("notes", "--ref=ai", "add", "-m", note_for("claude", "checkout.mjs", "1-4"), agent, cwd=repo)
    git("checkout", "-q", "main", cwd=repo)
    commit(repo, "key store", {"keys.mjs": MY_LINES})
    git("checkout", "-q", "feature", cwd=repo)
    git("rebase", "-q", "main", cwd=repo)
    commit(
        repo,
        "one module",
        {"keys.mjs": MY_LINES + "\n" + CLAUDE_LINES, "checkout.mjs": "export * from './keys.mjs';\n"},
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    keys = added(result, "keys.mjs")
    assert [n for n, line in sorted(keys.items()) if line.tool] == [5, 6, 7, 8]
    assert not any(line.tool for line in added(result, "checkout.mjs").values())
    assert result.attribution.rewritten[0].carried == 4


def test_lines_held_before_the_rewritten_commit_are_not_carried(tmp_path):
    """The same text written by the candidate before the agent's commit stays the candidate's: only
    lines written after the old commit left HEAD's history can be the ones its note describes. (The
    agent's copy in checkout.mjs is a copy of the candidate's block, as blame -C -C reads it: the
    candidate's too, as it would be with the note's commit still in the history.)"""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    commit(repo, "my helper", {"helper.mjs": CLAUDE_LINES})
    agent = commit(repo, "charge", {"checkout.mjs": CLAUDE_LINES, "other.mjs": MY_LINES})
    git("notes", "--ref=ai", "add", "-m", note_for("claude", "checkout.mjs", "1-4") + "", agent, cwd=repo)
    git("reset", "-q", "--soft", "HEAD~1", cwd=repo)
    git("commit", "-q", "-m", "charge, squashed", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert not any(line.tool for line in added(result, "helper.mjs").values())
    assert not any(line.tool for line in added(result, "checkout.mjs").values())
    assert result.attribution.rewritten[0].carried == 0


def test_a_note_in_the_history_wins_over_a_carried_one_with_no_conflict(tmp_path):
    """git-ai's own rewrite hook may have noted the new commit too: one account, no conflict."""
    repo, agent = claude_then_me(tmp_path)
    git("reset", "-q", "--soft", "HEAD~2", cwd=repo)
    squashed = commit(repo, "Solution", {})
    git("notes", "--ref=ai", "add", "-m", note_for("cursor", "checkout.mjs", "1-2"), squashed, cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "checkout.mjs")
    assert [lines[n].tool for n in (1, 2, 3, 4, 5)] == ["Cursor", "Cursor", "Claude Code", "Claude Code", None]
    assert result.attribution.conflicts == []
    assert result.attribution.tools == ["Claude Code", "Cursor"]


def test_notes_on_other_branches_commits_are_listed_too(tmp_path):
    """A branch never merged: its note describes a commit not in this history, its text not at HEAD."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    git("checkout", "-q", "-b", "experiment", cwd=repo)
    tried = commit(repo, "try", {"other.mjs": CLAUDE_LINES})
    git("notes", "--ref=ai", "add", "-m", note_for("codex", "other.mjs", "1-4"), tried, cwd=repo)
    git("checkout", "-q", "main", cwd=repo)
    commit(repo, "mine", {"checkout.mjs": MY_LINES})
    result = analysis.analyse(gitsafe.open_submission(repo))
    [note] = result.attribution.rewritten
    assert note.carried == 0 and note.problem is None
    assert (
        note.describe() == f"git-ai note on {tried[:7]} (not in this history): OpenAI Codex, 4 lines of "
        "other.mjs; none of its lines' text survives among the lines added at HEAD"
    )


def test_the_old_commit_is_copied_from_the_submission_only_when_it_holds_it(tmp_path):
    """The clone does not copy a commit no ref reaches; it is asked of the submission by id, once its
    own object files say it holds it, and kept under refs/review/noted/."""
    repo, agent = claude_then_me(tmp_path)
    git("reset", "-q", "--soft", "HEAD~2", cwd=repo)
    git("commit", "-q", "-m", "Solution", cwd=repo)
    safe = gitsafe.open_submission(repo)
    assert safe.objects.read(agent, 0) is None  # not in the sanitised copy
    gone = "0123456789abcdef0123456789abcdef01234567"
    assert safe.fetch_commits([agent, gone]) == ({agent}, None)
    assert safe.objects.read(agent, 0)[0] == "commit"
    assert agent in safe.refs_under("refs/review/")[f"refs/review/noted/{agent}"]
    assert safe.fetch_commits([gone]) == (set(), None)  # nothing held: git is not even asked


def test_a_note_on_a_blob_is_listed_and_matches_nothing(tmp_path):
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    commit(repo, "mine", {"checkout.mjs": CLAUDE_LINES})
    blob = git("rev-parse", "HEAD:checkout.mjs", cwd=repo).strip()
    git("notes", "--ref=ai", "add", "-m", note_for("claude", "checkout.mjs", "1-4"), blob, cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    [note] = result.attribution.rewritten
    assert note.problem == "it annotates a blob, not a commit: no lines to match" and note.carried == 0
    assert not any(line.tool for line in added(result, "checkout.mjs").values())


def test_a_legacy_authorship_ref_that_names_no_commit_claims_nothing(tmp_path):
    """refs/ai/authorship/HEAD is no commit's record: it is not read as HEAD's, nor listed."""
    repo = make_repo(tmp_path / "cand", {"README.md": "task\n"}, "starter")
    commit(repo, "mine", {"checkout.mjs": CLAUDE_LINES})
    legacy = (
        '{"files":{"checkout.mjs":{"authors":[{"author":"Claude","lines":[[1,4]]}]}},'
        '"schema_version":"authorship/0.0.1"}'
    )
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input_text=legacy).strip()
    git("update-ref", "refs/ai/authorship/HEAD", blob, cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert not any(line.tool for line in added(result, "checkout.mjs").values())
    assert result.attribution.rewritten == [] and result.attribution.tools == []
