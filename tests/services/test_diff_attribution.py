"""Attribution on real repositories: the sample cohort, git-ai notes, Agent Trace, odd diffs."""

from __future__ import annotations

from helpers import git, make_repo
from review import gitsafe
from review.core import diff, line_origins
from review.services import analysis


def analyse(cohort, name):
    return analysis.analyse(gitsafe.open_submission(cohort / name))


def added(result, path):
    file_diff = result.diff.file(path)
    return {line.new_no: line for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"}


def test_surviving_draft_lines_carry_the_tool_and_the_fix_does_not(sample_cohort_master):
    result = analyse(sample_cohort_master, "ben-larsen")
    lines = added(result, "checkout.mjs")
    hoist = next(n for n, line in lines.items() if "one key per logical charge" in line.text)
    assert lines[hoist].tool is None  # Ben's own fix
    loop = next(n for n, line in lines.items() if "for (let i = 0; i < attempts" in line.text)
    # The note names the commit by its subject; its trailer says the same: both sources shown.
    assert lines[loop].tool == "GitHub Copilot" and "Co-authored-by trailer" in lines[loop].source
    assert "note line 17" in lines[loop].source
    assert result.draft and result.draft_added == 16 and result.draft_surviving == 15
    assert 0 < result.diff.ai_share < 1


def test_untouched_draft_is_all_ai(sample_cohort_master):
    result = analyse(sample_cohort_master, "ada-okafor")
    assert {line.tool for line in added(result, "checkout.mjs").values()} == {"Claude Code"}
    assert {line.tool for line in added(result, "NOTE.md").values()} == {None}


def test_rewrite_shows_how_little_of_the_draft_survived(sample_cohort_master):
    result = analyse(sample_cohort_master, "eve-santos")
    assert result.draft_added == 16 and result.draft_surviving <= 2


def test_undisclosed_candidate_shows_trailers_without_disclosure(sample_cohort_master):
    result = analyse(sample_cohort_master, "finn-mueller")
    assert result.attribution.note.declares_none
    assert result.attribution.tools == ["Cursor"]
    assert "declares no assistant" in result.attribution.conflicts[0].message
    assert {line.tool for line in added(result, "checkout.mjs").values()} == {"Cursor"}


def test_note_ranges_override_and_unmapped_lines(sample_cohort_master):
    result = analyse(sample_cohort_master, "gia-romano")
    lines = added(result, "checkout.mjs")
    assert lines[12].tool is None and lines[20].tool is None and lines[11].tool == "GitHub Copilot"
    assert all(lines[n].tool is None for n in range(1, 10))
    assert lines[13].source.startswith("note line 15")
    reasons = [u.reason for u in result.attribution.unmapped]
    assert "names lines 40–45 but checkout.mjs has 24 lines" in reasons
    # Gia's commits carry no trailer: they claim nothing, so the note's ranges conflict with nothing.
    assert result.attribution.conflicts == []


def test_git_ai_notes_are_fetched_and_mapped(tmp_path):
    repo = make_repo(tmp_path / "s", {"checkout.mjs": "a\n"}, "starter")
    (repo / "checkout.mjs").write_text("a\nb\nc\nd\n")
    git("commit", "-qam", "work", cwd=repo)
    sha = git("rev-parse", "HEAD", cwd=repo).strip()
    note = (
        'checkout.mjs\n  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 2-3\n---\n{"schema_version": "authorship/3.0.0", '
        '"prompts": {}, "sessions": {"s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "claude", "id": "x", '
        '"model": "claude-opus-4-5"}}}}\n'
    )
    git("notes", "--ref=ai", "add", "-m", note, sha, cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "checkout.mjs")
    assert [lines[n].tool for n in (2, 3, 4)] == ["Claude Code", "Claude Code", None]
    assert lines[2].source.startswith("git-ai note on")


def test_agent_trace_file_at_head(tmp_path):
    trace = (
        '{"version":"0.1.0","id":"1","timestamp":"t","tool":{"name":"cursor"},"files":[{"path":"checkout.mjs",'
        '"conversations":[{"contributor":{"type":"ai"},"ranges":[{"start_line":1,"end_line":1}]}]}]}\n'
    )
    repo = make_repo(tmp_path / "s", {"README.md": "x\n"}, "starter")
    (repo / "checkout.mjs").write_text("one\ntwo\n")
    (repo / ".agent-trace").mkdir()
    (repo / ".agent-trace" / "traces.jsonl").write_text(trace)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "work", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "checkout.mjs")
    assert lines[1].tool == "Cursor" and lines[2].tool is None


def test_odd_files_parse_and_say_what_they_are(tmp_path):
    repo = make_repo(
        tmp_path / "s", {"f.txt": "a\nb\n", "old.txt": "same\n", "gone.txt": "bye\n", "nonl.txt": "x"}, "starter"
    )
    (repo / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (repo / "f.txt").write_text("a\nB\n")
    (repo / "f.txt").chmod(0o755)
    git("mv", "old.txt", "new.txt", cwd=repo)
    git("rm", "-q", "gone.txt", cwd=repo)
    (repo / "nonl.txt").write_text("y")
    (repo / "latin1.txt").write_bytes(b"caf\xe9 \x1b[31mred\n")
    (repo / "long.txt").write_text("x" * 50_000 + "\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "odd", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    files = {f.path: f for f in result.diff.files}
    assert files["bin.dat"].binary and files["bin.dat"].status == "added"
    assert files["f.txt"].old_mode == "100644" and files["f.txt"].new_mode == "100755"
    assert files["new.txt"].status == "renamed" and files["new.txt"].old_path == "old.txt"
    assert files["gone.txt"].status == "deleted"
    assert any(line.kind == "\\" for h in files["nonl.txt"].hunks for line in h.lines)
    latin = files["latin1.txt"].hunks[0].lines[0].text
    assert "\ufffd" in latin and "\x1b" in latin  # raw in the model; the view sanitises it
    assert len(files["long.txt"].hunks[0].lines[0].text) == 50_000


def test_a_huge_patch_is_cut_and_says_so():
    body = "".join(f"+line {i}\n" for i in range(200))
    chunk = (
        "diff --git a/f{n}.txt b/f{n}.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f{n}.txt\n"
        "@@ -0,0 +1,200 @@\n" + body
    )
    patch = "".join(chunk.format(n=n) for n in range(40)).encode()
    original = diff.MAX_PATCH_BYTES
    diff.MAX_PATCH_BYTES = len(patch) // 2
    try:
        result = diff.parse(patch)
    finally:
        diff.MAX_PATCH_BYTES = original
    assert result.truncated and 0 < len(result.files) < 40
    assert all(f.added == 200 for f in result.files)  # cut between files, never inside one


def test_the_share_counts_code_not_the_note_lockfiles_vendored_or_generated_files(tmp_path):
    """A 2,000-line lockfile or a 500-line note must not dilute what the assistant wrote."""
    repo = make_repo(tmp_path / "share", {"README.md": "task\n"})
    draft = "".join(f"export const v{i} = {i};\n" for i in range(20))
    files = {
        "checkout.mjs": draft,
        "NOTE.md": "note line\n" * 500,
        "package-lock.json": "{}\n" * 2000,
        "vendor/lib.js": "x();\n" * 300,
        "gen/api.js": "y();\n" * 300,
        ".gitattributes": "gen/* linguist-generated\n",
    }
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "draft\n\nCo-authored-by: Claude <noreply@anthropic.com>", cwd=repo)
    (repo / "checkout.mjs").write_text(draft + "".join(f"export const h{i} = {i};\n" for i in range(20)))
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "by hand", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert result.diff.code_added == 40 and result.diff.code_ai_added == 20
    assert result.diff.ai_share == 0.5  # not 20 / 3,141
    reasons = {f["path"]: f["reason"] for f in result.to_json()["files"]}
    assert reasons["checkout.mjs"] is None
    assert reasons["NOTE.md"].startswith("prose") and reasons["package-lock.json"] == "lockfile"
    assert reasons["vendor/lib.js"].startswith("vendored") and "linguist-generated" in reasons["gen/api.js"]


def test_a_non_ascii_file_name_is_marked_in_the_diff(tmp_path):
    """git quotes `café.mjs` as "caf\\303\\251.mjs" in a patch; the note names it as written."""
    repo = make_repo(tmp_path / "s", {"README.md": "task\n"}, "starter")
    (repo / "café.mjs").write_text("export const a = 1;\nexport const b = 2;\nexport const c = 3;\n")
    (repo / "NOTE.md").write_text("# Note\n\n## AI use\n- café.mjs:1-2 — Claude Code\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "Add café", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert "café.mjs" in [f.path for f in result.diff.files]
    lines = added(result, "café.mjs")
    assert [lines[n].tool for n in (1, 2, 3)] == ["Claude Code", "Claude Code", None]
    assert result.attribution.unmapped == []


def test_a_history_longer_than_is_read_keeps_the_true_base_and_says_what_was_cut(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "s", {"checkout.mjs": "starter\n"}, "starter")
    starter = git("rev-parse", "HEAD", cwd=repo).strip()
    for n in range(5):
        (repo / "checkout.mjs").write_text(f"starter\nline {n}\n")
        git("commit", "-qam", f"change {n}", cwd=repo)
    monkeypatch.setattr(gitsafe, "MAX_COMMITS", 3)
    result = analysis.analyse(gitsafe.open_submission(repo), base=starter)
    assert len(result.commits) == 3
    assert result.base == starter and result.base_problem is None  # not "not an ancestor"
    assert any("the history has 6 commits; the latest 3 were read" in what for what in result.cut)


def test_a_disclosure_written_in_the_readme_instead_of_the_note_is_read(tmp_path):
    repo = make_repo(
        tmp_path / "s",
        {"README.md": "# Task\nYou may use an AI assistant like Claude.\n", "checkout.mjs": "// starter\n"},
        "starter",
    )
    (repo / "checkout.mjs").write_text("// starter\nexport async function chargeWithRetry() {}\n")
    (repo / "NOTE.md").write_text("# Note\n\nI verified the happy path.\n")
    (repo / "README.md").write_text(
        "# Task\nYou may use an AI assistant like Claude.\n\n## AI use\nCursor wrote lines 2-2 of checkout.mjs.\n"
    )
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "Solution", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert result.attribution.tools == ["Cursor"]
    assert added(result, "checkout.mjs")[2].tool == "Cursor"
    assert added(result, "checkout.mjs")[2].source.startswith("README.md line 5")
    # The starter's own README words are no disclosure: untouched, it is not read.
    plain = make_repo(tmp_path / "p", {"README.md": "# Task\nClaude wrote checkout.mjs.\n", "a.mjs": "1\n"}, "starter")
    (plain / "a.mjs").write_text("2\n")
    git("commit", "-qam", "Change", cwd=plain)
    assert analysis.analyse(gitsafe.open_submission(plain)).attribution.tools == []


def test_git_ai_remote_notes_and_the_legacy_authorship_refs_are_read(tmp_path):
    repo = make_repo(tmp_path / "s", {"checkout.mjs": "a\n"}, "starter")
    (repo / "checkout.mjs").write_text("a\nb\nc\nd\n")
    git("commit", "-qam", "first", cwd=repo)
    first = git("rev-parse", "HEAD", cwd=repo).strip()
    (repo / "lib.mjs").write_text("x\ny\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "second", cwd=repo)
    second = git("rev-parse", "HEAD", cwd=repo).strip()
    note = (
        'checkout.mjs\n  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 2\n---\n{"schema_version": "authorship/3.0.0", '
        '"prompts": {}, "sessions": {"s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "firebender", "id": "x"}}}}\n'
    )
    git("notes", "--ref=ai-remote/origin", "add", "-m", note, first, cwd=repo)  # refs/notes/ai-remote/origin
    legacy = (
        '{"files":{"lib.mjs":{"file":"lib.mjs","authors":[{"author":"devin","lines":[[1,2]]}]}},'
        '"schema_version":"authorship/0.0.1"}'
    )
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input_text=legacy).strip()
    git("update-ref", f"refs/ai/authorship/{second}", blob, cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert [added(result, "checkout.mjs")[n].tool for n in (2, 3)] == ["Firebender", None]
    assert [added(result, "lib.mjs")[n].tool for n in (1, 2)] == ["Devin", "Devin"]
    assert result.attribution.tools == ["Devin", "Firebender"]


def test_a_git_ai_style_history_gives_the_true_share_each_tool_once_and_no_noise(tmp_path):
    """A small synthetic history in the shape of git-ai's own repository: trailers of several tools,
    git-ai notes (one of them by its test agent), a lockfile, and many files no assistant touched."""
    repo = make_repo(tmp_path / "s", {"README.md": "project\n"}, "starter")

    def commit(files: dict[str, str], message: str, author: tuple[str, str] = ("Pat", "pat@example.com")) -> str:
        for name, text in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        git("add", "-A", cwd=repo)
        git(
            "commit",
            "-q",
            "-F",
            "-",
            cwd=repo,
            input_text=message,
            env={"GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]},
        )
        return git("rev-parse", "HEAD", cwd=repo).strip()

    def lines(tag: str, count: int) -> str:
        return "".join(f"export const {tag}{n} = {n};\n" for n in range(count))

    commit({"src/a.mjs": lines("a", 10)}, "Add a\n\nCo-authored-by: Claude <noreply@anthropic.com>\n")
    commit({"src/b.mjs": lines("b", 10)}, "Add b by hand\n")
    noted = commit({"src/c.mjs": lines("c", 10)}, "Add c\n")
    session = '{"agent_id": {"tool": "%s", "id": "x"}}'
    git(
        "notes",
        "--ref=ai",
        "add",
        "-m",
        "src/c.mjs\n  s_aaaaaaaaaaaaaa::t_bbbbbbbbbbbbbb 1-6\n---\n"
        '{"schema_version": "authorship/3.0.0", "prompts": {}, "sessions": {"s_aaaaaaaaaaaaaa": %s}}\n'
        % (session % "cursor"),
        noted,
        cwd=repo,
    )
    commit(
        {"src/d.mjs": lines("d", 10)},
        "Add d\n",
        ("devin-ai-integration[bot]", "158243242+devin-ai-integration[bot]@users.noreply.github.com"),
    )
    tested = commit({"tests/e.test.mjs": lines("e", 5)}, "Add e\n")
    git(
        "notes",
        "--ref=ai",
        "add",
        "-m",
        "tests/e.test.mjs\n  s_cccccccccccccc::t_dddddddddddddd 1-5\n---\n"
        '{"schema_version": "authorship/3.0.0", "prompts": {}, "sessions": {"s_cccccccccccccc": %s}}\n'
        % (session % "mock_ai"),
        tested,
        cwd=repo,
    )
    commit(
        {
            "package-lock.json": "{\n" + "".join(f'  "k{n}": {n},\n' for n in range(500)) + "}\n",
            **{f"lib/h{n}.mjs": lines(f"h{n}_", 10) for n in range(20)},
        },
        "Human work and a lockfile\n",
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    truth_ai, truth_code = 10 + 6 + 10, 10 + 10 + 10 + 10 + 5 + 200
    assert abs(result.diff.ai_share - truth_ai / truth_code) < 0.10
    assert (result.diff.code_ai_added, result.diff.code_added) == (truth_ai, truth_code)  # exact, in fact
    assert result.attribution.tools == ["Claude Code", "Cursor", "Devin"]  # each once; mock_ai is no assistant
    # No line-level noise: no source disagrees on any line (the one submission-wide finding is that
    # there is no note at all, while commits name assistants).
    assert result.attribution.conflicts == [] and result.cut == []
    assert [n.message for n in result.attribution.notices] == [
        "the note names no assistant; commit metadata names Claude Code, Devin"
    ]
    # Every file the share counts is traced (the history's one replay has them all): a line from the
    # starter is no line of the submission's, whoever's file it is in now.
    assert len(result.blame) == 25 and result.diff.totals().code_base_added == 0


def test_a_function_named_in_the_note_maps_to_its_lines_in_the_diff(tmp_path):
    repo = make_repo(tmp_path / "s", {"README.md": "task\n"}, "starter")
    (repo / "checkout.mjs").write_text(
        "import { x } from './x.mjs';\n\nconst backoff = (n) => {\n  return 2 ** n;\n};\n\n"
        "export async function chargeWithRetry(amount) {\n  return backoff(amount);\n}\n"
    )
    (repo / "NOTE.md").write_text("# Note\n\n## AI use\nCopilot wrote `backoff()`. Claude wrote `retryLater()`.\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "Solution", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    lines = added(result, "checkout.mjs")
    assert [n for n, line in sorted(lines.items()) if line.tool] == [3, 4, 5]
    assert lines[3].tool == "GitHub Copilot"
    [missing] = result.attribution.unmapped
    assert "names retryLater, which no code file in the diff defines" == missing.reason


def test_a_note_added_or_removed_after_the_first_read_is_seen(tmp_path):
    """git-ai pushes its notes after the commits: the same HEAD with new notes is read with them."""
    repo = make_repo(tmp_path / "s", {"checkout.mjs": "a\n"}, "starter")
    (repo / "checkout.mjs").write_text("a\nb\nc\nd\n")
    git("commit", "-qam", "work", cwd=repo)
    sha = git("rev-parse", "HEAD", cwd=repo).strip()
    assert added(analysis.analyse(gitsafe.open_submission(repo)), "checkout.mjs")[2].tool is None
    note = (
        'checkout.mjs\n  s_aaaaaaaaaaaaaa 2-3\n---\n{"schema_version": "authorship/3.0.0", "sessions": '
        '{"s_aaaaaaaaaaaaaa": {"agent_id": {"tool": "claude", "id": "x", "model": "claude-opus-4-5"}}}}\n'
    )
    git("notes", "--ref=ai", "add", "-m", note, sha, cwd=repo)
    assert added(analysis.analyse(gitsafe.open_submission(repo)), "checkout.mjs")[2].tool == "Claude Code"
    git("notes", "--ref=ai", "remove", sha, cwd=repo)
    assert added(analysis.analyse(gitsafe.open_submission(repo)), "checkout.mjs")[2].tool is None


def test_notes_that_cannot_be_copied_are_said_and_the_diff_is_still_read(tmp_path):
    repo = make_repo(tmp_path / "s", {"checkout.mjs": "a\n"}, "starter")
    (repo / "checkout.mjs").write_text("a\nb\n")
    git("commit", "-qam", "work", cwd=repo)
    (repo / ".git" / "refs" / "notes").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "refs" / "notes" / "ai").write_text("1234567890123456789012345678901234567890\n")
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert 2 in added(result, "checkout.mjs")
    assert any("git notes could not be copied" in line for line in result.cut), result.cut


def test_notes_are_not_fetched_again_from_a_source_that_turned_hostile(tmp_path):
    """The copy is kept for its HEAD; a source that since gained alternates is not read for notes."""
    repo = make_repo(tmp_path / "s", {"checkout.mjs": "a\n"}, "starter")
    (repo / "checkout.mjs").write_text("a\nb\n")
    git("commit", "-qam", "work", cwd=repo)
    gitsafe.open_submission(repo)
    other = make_repo(tmp_path / "other", {"x.mjs": "x\n"})
    (repo / ".git" / "objects" / "info" / "alternates").write_text(str(other / ".git" / "objects") + "\n")
    git("notes", "--ref=ai", "add", "-m", "checkout.mjs\n  s_aaaaaaaaaaaaaa 2\n---\n{}\n", "HEAD", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert 2 in added(result, "checkout.mjs")
    assert any("git notes could not be copied" in line and "alternates" in line for line in result.cut), result.cut


def test_notes_added_later_are_fetched_once_by_threads_opening_the_submission_together(tmp_path):
    import threading

    repo = make_repo(tmp_path / "s", {"checkout.mjs": "a\n"}, "starter")
    (repo / "checkout.mjs").write_text("a\nb\n")
    git("commit", "-qam", "work", cwd=repo)
    gitsafe.open_submission(repo)
    git("notes", "--ref=ai", "add", "-m", "checkout.mjs\n  s_aaaaaaaaaaaaaa 2\n---\n{}\n", "HEAD", cwd=repo)
    opened: list[gitsafe.SafeRepo] = []
    threads = [threading.Thread(target=lambda: opened.append(gitsafe.open_submission(repo))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(opened) == 8 and [safe.notes_problem for safe in opened] == [None] * 8
    assert all(safe.notes("refs/notes/ai", safe.head) for safe in opened)


PARSE_AMOUNT = (
    "export function parseAmount(text) {\n  const value = Number.parseFloat(text);\n"
    '  if (!Number.isFinite(value)) throw new Error("bad amount");\n  return Math.round(value * 100);\n}\n'
)


def _commit_as(repo, message, name, files, deleted=()):
    for path, text in files.items():
        (repo / path).write_text(text)
    for path in deleted:
        (repo / path).unlink()
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo, env={"GIT_AUTHOR_NAME": name, "GIT_COMMITTER_NAME": name})
    return git("rev-parse", "HEAD", cwd=repo).strip()


def test_a_persons_function_moved_by_an_aider_commit_stays_the_persons_and_the_reverse(tmp_path):
    """aider (on author and committer) moves Ann's parseAmount into money.mjs and writes a line of its
    own; later Ann moves aider's function back: each block keeps its writer, and says it moved."""
    repo = make_repo(tmp_path / "moves", {"README.md": "task\n"}, "starter")
    helper = "export function retryDelay(attempt) {\n  return Math.min(1000 * 2 ** attempt, 30000);\n}\n"
    ann = _commit_as(repo, "parse amounts", "Ann", {"checkout.mjs": "import x from 'y';\n" + PARSE_AMOUNT})
    aider = _commit_as(
        repo,
        "move parsing into money.mjs",
        "Ann (aider)",
        {
            "checkout.mjs": "import x from 'y';\n",
            "money.mjs": "export const CURRENCY = 'EUR';\n" + PARSE_AMOUNT + helper,
        },
    )
    mover = _commit_as(
        repo,
        "keep the retry delay with checkout",
        "Ann",
        {
            "checkout.mjs": "import x from 'y';\n" + helper,
            "money.mjs": "export const CURRENCY = 'EUR';\n" + PARSE_AMOUNT,
        },
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    money, checkout = added(result, "money.mjs"), added(result, "checkout.mjs")
    assert money[1].tool == "Aider"  # aider's own line, where it wrote it
    assert [money[n].tool for n in range(2, 7)] == [None] * 5  # Ann's function: still Ann's
    assert money[2].moved and money[2].source == f"moved from checkout.mjs:2 ({ann[:7]}, Ann)"
    assert [checkout[n].tool for n in range(2, 5)] == ["Aider"] * 3  # aider's function, moved by Ann
    assert checkout[2].moved and checkout[2].source.startswith(f"moved from money.mjs:7 ({aider[:7]}, Ann (aider))")
    spans = {(s.path, s.start, s.end): (s.tool, s.source) for s in result.attribution.spans}
    assert spans[("checkout.mjs", 2, 4)][0] == "Aider"
    assert spans[("money.mjs", 2, 6)] == (None, f"moved from checkout.mjs:2 ({ann[:7]}, Ann)")
    assert not any(mover[:7] in s.source for s in result.attribution.spans)  # the mover wrote none of it
    assert result.diff.code_ai_added == 4  # aider's line and its 3-line function; Ann's 5 moved lines are hers


def test_in_a_history_with_merges_the_replay_follows_a_moved_function_to_its_writer(tmp_path):
    """A history with merges is replayed too: the moved function keeps its writer and says who moved it."""
    repo = make_repo(tmp_path / "merged", {"README.md": "task\n"}, "starter")
    _commit_as(repo, "parse amounts", "Ann", {"checkout.mjs": "import x from 'y';\n" + PARSE_AMOUNT})
    git("checkout", "-q", "-b", "side", cwd=repo)
    _commit_as(repo, "docs", "Ann", {"README.md": "task\nmore\n"})
    git("checkout", "-q", "main", cwd=repo)
    _commit_as(
        repo,
        "move parsing",
        "Ann (aider)",
        {"checkout.mjs": "import x from 'y';\n", "money.mjs": "export const CURRENCY = 'EUR';\n" + PARSE_AMOUNT},
    )
    git("merge", "-q", "--no-edit", "side", cwd=repo)
    result = analysis.analyse(gitsafe.open_submission(repo))
    assert any(len(c.parents) > 1 for c in result.commits)
    money = added(result, "money.mjs")
    assert money[1].tool == "Aider" and [money[n].tool for n in range(2, 7)] == [None] * 5
    assert [origin[2] for origin in result.blame["money.mjs"][1:]] == ["checkout.mjs"] * 5
    assert money[2].moved and money[2].source.startswith("moved from checkout.mjs:2")
    assert not any("blame per file" in reason for reason in result.cut)


def test_past_the_replays_bound_files_are_blamed_in_parallel_and_the_row_says_which_and_why(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "merged", {"README.md": "task\n"}, "starter")
    _commit_as(repo, "parse amounts", "Ann (aider)", {"checkout.mjs": "import x from 'y';\n" + PARSE_AMOUNT})
    _commit_as(repo, "more", "Ann (aider)", {"money.mjs": PARSE_AMOUNT})
    monkeypatch.setattr(line_origins, "MAX_TRACKED_LINES", 4)
    result = analysis.analyse(gitsafe.open_submission(repo))
    (said,) = [reason for reason in result.cut if "blame per file" in reason]
    assert "2 file(s) (checkout.mjs, money.mjs)" in said and "more than 4 lines" in said
    assert [added(result, "checkout.mjs")[n].tool for n in range(1, 7)] == ["Aider"] * 6


def test_an_assistants_function_moved_into_a_file_only_people_touched_is_still_the_assistants(tmp_path):
    repo = make_repo(tmp_path / "into", {"README.md": "task\n", "util.mjs": "export const u = 1;\n"}, "starter")
    aider = _commit_as(repo, "parse amounts", "Ann (aider)", {"checkout.mjs": "import x from 'y';\n" + PARSE_AMOUNT})
    _commit_as(
        repo,
        "parsing belongs in util",
        "Ann",
        {"checkout.mjs": "import x from 'y';\n", "util.mjs": "export const u = 1;\n" + PARSE_AMOUNT},
    )
    result = analysis.analyse(gitsafe.open_submission(repo))
    util = added(result, "util.mjs")
    assert [util[n].tool for n in range(2, 7)] == ["Aider"] * 5
    assert util[2].source.startswith(f"moved from checkout.mjs:2 ({aider[:7]}, Ann (aider))")
    assert result.diff.code_ai_added == 6  # and the import line aider wrote in checkout.mjs
