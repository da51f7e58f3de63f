"""Each tool's own rules, on real repositories: which lines an assistant wrote, which a person wrote
(aider committing a person's edits, a maintainer listed in git-ai's legacy authorship, curl's
Assisted-by), and that only disclosures name an assistant."""

from __future__ import annotations

import json

import pytest

from helpers import STARTER, attribution_cohort, commit_as, git, make_repo
from review import gitsafe
from review.services import analysis

ANN = ("Ann Lee", "ann@example.com")
ANN_AIDER = ("Ann Lee (aider)", "ann@example.com")
CLIENT = "export async function chargeWithRetry(amount) {\n  return amount;\n}\n"


def analyse(repo):
    return analysis.analyse(gitsafe.open_submission(repo))


def added(result, path="checkout.mjs"):
    file_diff = result.diff.file(path)
    return {line.new_no: line.tool for hunk in file_diff.hunks for line in hunk.lines if line.kind == "+"}


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    return attribution_cohort(tmp_path_factory.mktemp("rules"))


# --------------------------------------------------------------------------- aider ("Git integration")


def test_aider_on_author_and_committer_wrote_the_change(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "Add the client\n", {"checkout.mjs": CLIENT}, author=ANN_AIDER, committer=ANN_AIDER)
    result = analyse(repo)
    assert set(added(result).values()) == {"Aider"}
    assert result.commit_attributions[1].signals[0].source == "author and committer name suffix (aider)"


def test_aider_on_the_committer_only_committed_the_persons_own_edits(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "Commit my edits\n", {"checkout.mjs": CLIENT}, author=ANN, committer=ANN_AIDER)
    result = analyse(repo)
    assert set(added(result).values()) == {None} and result.attribution.tools == []
    [rejected] = result.commit_attributions[1].rejected  # considered, shown in the Commits pane, and why not
    assert rejected.evidence == "committer Ann Lee (aider) <ann@example.com>"
    assert "aider committed the person's own edits" in rejected.reason
    from review.tui.widgets.diff.commits import commit_detail

    assert "✗ not counted: committer Ann Lee (aider)" in commit_detail(result.commits[1], result.commit_attributions[1])


def test_the_aider_subject_prefix_as_aider_writes_it(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "aider: feat: Add the client\n", {"checkout.mjs": CLIENT}, author=ANN)
    commit_as(repo, "Aider: notes on using aider\n", {"docs.mjs": "export const d = 1;\n"}, author=ANN)
    result = analyse(repo)
    assert set(added(result).values()) == {"Aider"} and set(added(result, "docs.mjs").values()) == {None}


def test_aiders_co_authored_by_trailer_with_its_model(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "Add the client\n\nCo-authored-by: aider (openrouter/anthropic/claude-sonnet-4) <aider@aider.chat>\n",
        {"checkout.mjs": CLIENT},
        author=ANN,
    )
    result = analyse(repo)
    [signal] = result.commit_attributions[1].signals
    assert (signal.tool, signal.model) == ("Aider", "openrouter/anthropic/claude-sonnet-4")
    assert set(added(result).values()) == {"Aider"}


# --------------------------------------------------------------------------- each tool's trailer or identity


@pytest.mark.parametrize(
    "message, author, tool",
    [
        # Claude Code: its co-author trailer (model-named since 2.0.60) and its footer
        (
            "Add it\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)\n\n"
            "Co-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>\n",
            ANN,
            "Claude Code",
        ),
        # OpenAI Codex: its attribution hook's default trailer
        ("Add it\n\nCo-authored-by: Codex <noreply@openai.com>\n", ANN, "OpenAI Codex"),
        # Cursor: its co-author trailer, and Made-with since 2.6
        ("Add it\n\nMade-with: Cursor\nCo-authored-by: Cursor <cursoragent@cursor.com>\n", ANN, "Cursor"),
        # GitHub Copilot coding agent: its co-author with GitHub's stable noreply form
        ("Add it\n\nCo-authored-by: Copilot <223556219+Copilot@users.noreply.github.com>\n", ANN, "GitHub Copilot"),
        # Devin: its bot's noreply address and its footer
        (
            "Add it\n\nGenerated with [Devin](https://devin.ai)\n\n"
            "Co-Authored-By: Devin <158243242+devin-ai-integration[bot]@users.noreply.github.com>\n",
            ANN,
            "Devin",
        ),
        # Gemini Code Assist: its GitHub bot as the author
        (
            "Add it\n",
            ("gemini-code-assist[bot]", "176961590+gemini-code-assist[bot]@users.noreply.github.com"),
            "Gemini Code Assist",
        ),
        # Gemini CLI writes no trailer; the address users give it at Google's domain names it
        ("Add it\n\nCo-Authored-By: Gemini <gemini@google.com>\n", ANN, "Gemini"),
        # Junie: the co-author projects' agent instructions ask it to add
        ("Add it\n\nCo-authored-by: Junie <junie@jetbrains.com>\n", ANN, "Junie"),
        # OpenCode: its co-author and footer
        (
            "Add it\n\n🤖 Generated with [opencode](https://opencode.ai)\n\n"
            "Co-Authored-By: opencode <noreply@opencode.ai>\n",
            ANN,
            "OpenCode",
        ),
        # Factory Droid: its bot as co-author
        (
            "Add it\n\nCo-authored-by: factory-droid[bot] <138933559+factory-droid[bot]@users.noreply.github.com>\n",
            ANN,
            "Factory Droid",
        ),
        # Jules: its bot as the author
        ("Add it\n", ("google-labs-jules[bot]", "161369871+google-labs-jules[bot]@users.noreply.github.com"), "Jules"),
        # Claude Code on the web: its own identity as the author
        ("Add it\n", ("Claude Code", "noreply@anthropic.com"), "Claude Code"),
        # Windsurf: its noreply address as the author
        ("Add it\n", ("Windsurf", "noreply@windsurf.com"), "Windsurf"),
    ],
    ids=[
        "claude-code",
        "codex",
        "cursor",
        "copilot",
        "devin",
        "gemini-code-assist",
        "gemini-cli",
        "junie",
        "opencode",
        "droid",
        "jules-bot-author",
        "claude-code-web-author",
        "windsurf-noreply-author",
    ],
)
def test_each_tools_own_form_names_it_and_its_lines_are_ai(tmp_path, message, author, tool):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, message, {"checkout.mjs": CLIENT}, author=author)
    result = analyse(repo)
    assert result.attribution.tools == [tool]
    assert set(added(result).values()) == {tool}


def test_any_generated_with_footer_and_a_vendors_help_address_name_that_tool(tmp_path):
    """Firebender, as git-ai's own history has it, and a tool the console has never heard of."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "Add it\n\n🤖 Generated with [Firebender](https://firebender.com)\n\n"
        "Co-Authored-By: Firebender <help@firebender.com>\n",
        {"checkout.mjs": CLIENT},
        author=ANN,
    )
    commit_as(
        repo,
        "Add a helper\n\nGenerated with [Ona](https://ona.com)\n",
        {"lib.mjs": "export const helper = 1;\n"},
        author=ANN,
    )
    commit_as(
        repo,
        "Add another\n\nCo-authored-by: Zed Agent <noreply@zed.dev>\n",
        {"more.mjs": "export const more = 1;\n"},
        author=ANN,
    )
    result = analyse(repo)
    assert set(added(result).values()) == {"Firebender"}
    assert set(added(result, "lib.mjs").values()) == {"Ona"} and set(added(result, "more.mjs").values()) == {
        "Zed Agent"
    }
    assert result.attribution.tools == ["Firebender", "Ona", "Zed Agent"]
    assert result.attribution.unknown_tools == ["Ona", "Zed Agent"]


def test_bots_that_are_not_assistants_and_github_web_commits_name_none(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "Bump deps (#4)\n\nCo-authored-by: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>\n"
        "Co-authored-by: pre-commit-ci[bot] <66853113+pre-commit-ci[bot]@users.noreply.github.com>\n",
        {"checkout.mjs": CLIENT},
        author=ANN,
        committer=("GitHub", "noreply@github.com"),
    )
    result = analyse(repo)
    assert result.attribution.tools == [] and set(added(result).values()) == {None}
    assert [r.reason for r in result.commit_attributions[1].rejected] == [
        "names no assistant (an automation bot, not an assistant)"
    ] * 2


# --------------------------------------------------------------------------- only disclosures count


def test_a_trailer_is_only_what_git_reads_in_the_closing_block(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    message = (
        "Add the client\n\nCo-authored-by: Claude <noreply@anthropic.com>\n\nThe line above is quoted from the\n"
        "spec, not a credit.\n"
    )
    commit_as(repo, message, {"checkout.mjs": CLIENT}, author=ANN)
    assert git("interpret-trailers", "--parse", "--no-divider", cwd=repo, input_text=message) == ""  # git agrees
    result = analyse(repo)
    assert result.attribution.tools == [] and set(added(result).values()) == {None}
    assert "not in the trailer block" in result.commit_attributions[1].rejected[0].reason


def test_a_conventional_commit_prefix_names_no_assistant(tmp_path):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "copilot: fix(claude): make cursor blink\n\ndocs: text generated with cursor keys no longer drifts\n",
        {"checkout.mjs": CLIENT},
        author=ANN,
    )
    result = analyse(repo)
    assert result.attribution.tools == [] and result.commit_attributions[1].rejected == []


def test_a_readme_read_as_the_note_names_no_assistant_for_a_list_of_supported_editors(cohort):
    result = analyse(cohort / "readme")
    assert result.note.path is None  # no NOTE.md: README.md is read in its place
    assert result.attribution.tools == [] and result.attribution.note.entries == []


# --------------------------------------------------------------------------- a named tool is that tool; a person never


def test_a_tool_named_in_explicit_forms_is_that_tool_known_or_not(cohort):
    result = analyse(cohort / "monkey")
    assert result.attribution.tools == ["MonkeyCode"] and result.attribution.unknown_tools == ["MonkeyCode"]
    assert added(result) == {1: "MonkeyCode"}  # the note's line 1-1; the trailer's commit says the same
    source = next(
        line.source for hunk in result.diff.file("checkout.mjs").hunks for line in hunk.lines if line.new_no == 1
    )
    assert "note line 4" in source and "Assisted-by trailer" in source
    assert result.attribution.conflicts == [] and result.attribution.unmapped == []


def test_assisted_by_naming_people_as_curl_does_stays_people(cohort):
    result = analyse(cohort / "curl")
    assert result.attribution.tools == [] and set(added(result).values()) == {None}
    reasons = [r.reason for r in result.commit_attributions[1].rejected]
    assert reasons == [
        "names a person, not an assistant (a name as people are named, not an assistant's)",
        "names a person, not an assistant (a person's name and address, not an assistant's)",
    ]


def test_git_ai_legacy_authorship_lists_people_beside_assistants(cohort):
    result = analyse(cohort / "legacy")
    assert result.attribution.tools == ["Claude Code", "o3"]  # the maintainer named neither by full nor first name
    assert added(result) == {1: None, 2: "Claude Code", 3: "Claude Code", 4: "o3", 5: None, 6: None}
    assert result.attribution.unknown_tools == []  # o3 is a model


def test_a_legacy_author_who_is_the_commits_author_is_that_person_whatever_else_the_name_could_be(tmp_path):
    """A maintainer called Devin Moore, listed by first name: not the Devin agent."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    devin = ("Devin Moore", "devin@example.org")
    noted = commit_as(repo, "Add it\n", {"checkout.mjs": CLIENT}, author=devin)
    record = {
        "files": {
            "checkout.mjs": {
                "authors": [
                    {"author": "Devin", "lines": [1], "agent_metadata": None},
                    {"author": "Cursor", "lines": [2], "agent_metadata": None},
                ]
            }
        },
        "schema_version": "authorship/0.0.1",
    }
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input_text=json.dumps(record)).strip()
    git("update-ref", f"refs/ai/authorship/{noted}", blob, cwd=repo)
    result = analyse(repo)
    assert added(result) == {1: None, 2: "Cursor", 3: None} and result.attribution.tools == ["Cursor"]


# --------------------------------------------------------------------------- where the disclosure stands


def test_a_disclosure_sentence_without_a_heading_over_the_same_trailer_is_ok(cohort):
    result = analyse(cohort / "sentence")
    assert result.attribution.conflicts == [] and result.attribution.unmapped == []
    assert set(added(result).values()) == {"Claude Code"}
    sources = {
        line.source for hunk in result.diff.file("checkout.mjs").hunks for line in hunk.lines if line.kind == "+"
    }
    assert all("note line 2" in source and "Co-authored-by trailer" in source for source in sources), sources


# --------------------------------------------------------------------------- mixes met on realistic histories


def test_aiders_subject_prefix_on_a_commit_it_only_committed_is_the_persons(tmp_path):
    """--attribute-commit-message-committer prefixes every commit aider makes with 'aider: ', the
    person's own edits too; (aider) on the committer alone says which those are."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "aider: my own edits\n", {"checkout.mjs": CLIENT}, author=ANN, committer=ANN_AIDER)
    commit_as(
        repo,
        "aider: add the retry\n",
        {"retry.mjs": "export const retry = 1;\n"},
        author=ANN_AIDER,
        committer=ANN_AIDER,
    )
    result = analyse(repo)
    assert set(added(result).values()) == {None} and set(added(result, "retry.mjs").values()) == {"Aider"}
    reasons = [r.reason for r in result.commit_attributions[1].rejected]
    assert any("prefixes every commit" in reason for reason in reasons), reasons


def note_repo(tmp_path, note):
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(repo, "Add the client\n", {"checkout.mjs": CLIENT}, author=ANN)
    commit_as(repo, "Add the note\n", {"NOTE.md": note}, author=ANN)
    return analyse(repo)


def test_a_tool_that_only_explained_is_not_the_writer_of_the_file_the_candidate_wrote(tmp_path):
    result = note_repo(
        tmp_path, "# Note\n\n## AI use\nI asked ChatGPT to explain idempotency keys, but I wrote checkout.mjs myself.\n"
    )
    assert set(added(result).values()) == {None}
    assert result.attribution.tools == ["ChatGPT"]  # its use is disclosed, and listed as written
    assert [u.line_no for u in result.attribution.unmapped] == [4]


def test_a_tool_the_candidate_says_they_did_not_use_is_not_named(tmp_path):
    result = note_repo(
        tmp_path, "# Note\n\n## AI use\nI did not use Copilot or Cursor. I wrote checkout.mjs by hand.\n"
    )
    assert result.attribution.tools == [] and set(added(result).values()) == {None}
    assert result.attribution.note.declares_none


def test_a_person_whose_first_name_is_a_tools_is_a_person_with_a_remark_after_the_name(tmp_path):
    result = note_repo(tmp_path, "# Note\n\n## Authorship\n- checkout.mjs:1-3 — Claude Martin (my pair partner)\n")
    assert result.attribution.tools == [] and set(added(result).values()) == {None}


def test_an_ai_heading_in_another_language_is_a_disclosure_section_and_what_it_says_is_listed(tmp_path):
    result = note_repo(tmp_path, "# Nota\n\n## Uso de IA\n\nUsé Claude Code para el bucle de reintentos.\n")
    assert result.attribution.note.heading == "Uso de IA"
    assert result.attribution.tools == ["Claude Code"]
    # it names no lines: listed as written, never dropped
    assert [u.line_no for u in result.attribution.unmapped] == [5]


@pytest.mark.parametrize(
    "note",
    [
        "# Nota\n\n## Uso de IA\n\nCopilot escribió las líneas 1-2 de checkout.mjs.\n",
        "# Nota\n\n## Uso de IA\n\nO Copilot escreveu as linhas 1-2 de checkout.mjs.\n",
        "# Note\n\n## Utilisation de l'IA\n\nCopilot a écrit les lignes 1 à 2 de checkout.mjs.\n",
        "# Notiz\n\n## KI-Nutzung\n\nCopilot hat die Zeilen 1-2 von checkout.mjs geschrieben.\n",
    ],
    ids=["es", "pt", "fr", "de"],
)
def test_lines_named_in_another_language_under_an_ai_heading_are_mapped(tmp_path, note):
    result = note_repo(tmp_path, note)
    assert added(result) == {1: "GitHub Copilot", 2: "GitHub Copilot", 3: None}
    assert result.attribution.unmapped == []


def test_a_commit_co_authored_by_two_tools_says_so_on_its_lines(tmp_path):
    """Commit metadata cannot say which tool wrote which line: each line names the first, and its
    source names the other too."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "Add it\n\nCo-authored-by: Claude <noreply@anthropic.com>\n"
        "Co-authored-by: Copilot <223556219+Copilot@users.noreply.github.com>\n",
        {"checkout.mjs": CLIENT},
        author=ANN,
    )
    result = analyse(repo)
    assert result.attribution.tools == ["Claude Code", "GitHub Copilot"]
    sources = {
        line.source for hunk in result.diff.file("checkout.mjs").hunks for line in hunk.lines if line.kind == "+"
    }
    assert len(sources) == 1 and "also names GitHub Copilot" in sources.pop()


@pytest.mark.parametrize("merged", [False, True], ids=["linear", "with-a-merge"])
def test_an_assistants_lines_keep_their_writer_through_a_later_rename_that_also_edits(tmp_path, merged):
    """git blame follows a renamed file: a person who moves the agent's file into src/ (and adds to
    it in the same commit) did not write the agent's lines, in a linear history and in one with a merge
    (the replay reads both), and the renamed file is traced too."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    agents = "".join(f"export const step{n} = await gateway.charge({n}, idempotencyKey);\n" for n in range(1, 6))
    if merged:
        git("checkout", "-q", "-b", "agent", cwd=repo)
    commit_as(
        repo, "Add the client\n\nCo-authored-by: Codex <noreply@openai.com>\n", {"checkout.mjs": agents}, author=ANN
    )
    if merged:
        git("checkout", "-q", "main", cwd=repo)
        commit_as(repo, "Add a helper\n", {"lib.mjs": "export const helper = 1;\n"}, author=ANN)
        git("merge", "-q", "--no-ff", "-m", "Merge the agent's branch", "agent", cwd=repo)
    (repo / "src").mkdir()
    git("mv", "checkout.mjs", "src/checkout.mjs", cwd=repo)
    commit_as(repo, "Move it into src\n", {"src/checkout.mjs": agents + "export const mine = 1;\n"}, author=ANN)
    result = analyse(repo)
    assert added(result, "src/checkout.mjs") == {**{n: "OpenAI Codex" for n in range(1, 6)}, 6: None}


def test_lines_a_disclosure_excepts_are_not_the_tools(tmp_path):
    result = note_repo(
        tmp_path, "# Note\n\n## AI use\nEverything in checkout.mjs except line 2 was written by Claude Code.\n"
    )
    assert added(result) == {1: "Claude Code", 2: None, 3: "Claude Code"}


def test_a_tool_the_candidate_says_did_not_write_the_file_is_not_named(tmp_path):
    result = note_repo(tmp_path, "# Note\n\n## AI use\nClaude Code did not write checkout.mjs; I did.\n")
    assert result.attribution.tools == [] and set(added(result).values()) == {None}


def test_whogitits_notes_give_the_lines_it_recorded(tmp_path):
    """whogitit (Claude Code's hooks, refs/notes/whogitit): AI and AI-modified lines are Claude Code's,
    a Human line the person's, Original and Unknown lines claim nothing."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    body = "".join(f"export const step{n} = {n};\n" for n in range(1, 6))
    noted = commit_as(repo, "Add the client\n", {"checkout.mjs": body}, author=ANN)
    kinds = {1: "AI", 2: "AIModified", 3: "Human", 4: "Original", 5: "Unknown"}
    note = {
        "version": 3,
        "session": {"session_id": "s", "model": {"id": "claude-opus-4-5-20251101", "provider": "anthropic"}},
        "prompts": [],
        "files": [
            {
                "path": "checkout.mjs",
                "lines": [{"line_number": n, "content": "", "source": {"type": kind}} for n, kind in kinds.items()],
            }
        ],
    }
    git("notes", "--ref=whogitit", "add", "-m", json.dumps(note), noted, cwd=repo)
    result = analyse(repo)
    assert added(result) == {1: "Claude Code", 2: "Claude Code", 3: None, 4: None, 5: None}
    assert result.attribution.tools == ["Claude Code"]
    line = next(line for hunk in result.diff.file("checkout.mjs").hunks for line in hunk.lines if line.new_no == 2)
    assert line.source == f"whogitit note on {noted[:7]} (AI, modified by a person)"


def test_git_merge_squash_keeps_the_squashed_commits_trailers_and_authors(tmp_path):
    """`git merge --squash` writes each squashed commit's author and message, indented, into the new
    commit's message ("Squashed commit of the following:"): their trailers and agent authors are
    that commit's disclosures."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    git("checkout", "-q", "-b", "agent", cwd=repo)
    commit_as(
        repo, "Add the client\n\nCo-Authored-By: Claude <noreply@anthropic.com>\n", {"checkout.mjs": CLIENT}, author=ANN
    )
    commit_as(
        repo,
        "Add a helper\n",
        {"lib.mjs": "export const helper = 1;\n"},
        author=("copilot-swe-agent[bot]", "198982749+Copilot@users.noreply.github.com"),
    )
    commit_as(repo, "My fix\n", {"mine.mjs": "export const mine = 1;\n"}, author=ANN)
    git("checkout", "-q", "main", cwd=repo)
    git("merge", "-q", "--squash", "agent", cwd=repo)
    git("commit", "-q", "--no-edit", cwd=repo, env={"GIT_AUTHOR_NAME": ANN[0], "GIT_AUTHOR_EMAIL": ANN[1]})
    result = analyse(repo)
    squash = result.commit_attributions[-1]
    assert sorted((s.tool, s.source.split(": ", 1)[1]) for s in squash.signals) == [
        ("Claude Code", "Co-Authored-By trailer"),
        ("GitHub Copilot", "author identity"),
    ]
    assert all(s.source.startswith("squashed commit ") for s in squash.signals)
    # one commit now holds all their lines: commit metadata cannot say which is whose, and says so
    assert set(added(result).values()) == {"GitHub Copilot"}  # git lists the newest first
    sources = {
        line.source for hunk in result.diff.file("checkout.mjs").hunks for line in hunk.lines if line.kind == "+"
    }
    assert len(sources) == 1 and "also names Claude Code" in sources.pop()
    assert result.attribution.tools == ["Claude Code", "GitHub Copilot"]


def test_a_named_tool_wins_the_lines_over_a_flag_that_names_none(tmp_path):
    """aittributor's hook adds `Ai-assisted: true` beside the tool's co-author: the lines are the tool's."""
    repo = make_repo(tmp_path / "s", STARTER, "starter")
    commit_as(
        repo,
        "Add it\n\nAi-assisted: true\nCo-authored-by: Claude Code <noreply@anthropic.com>\n",
        {"checkout.mjs": CLIENT},
        author=ANN,
    )
    result = analyse(repo)
    assert set(added(result).values()) == {"Claude Code"}
