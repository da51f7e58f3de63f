"""Commit-metadata attribution, with the verbatim examples of reference/attribution-formats.md."""

import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from review.core.attribution import commit_signals, parse_agent_value, trailer_block, trailers, who_is

ME = ("Pat Doe", "pat@example.com")


def tools(message, author=ME, committer=ME):
    return sorted({s.tool for s in commit_signals("c0ffee", message, author, committer).signals})


@pytest.mark.parametrize(
    "message, expected",
    [
        ("Add feature\n\nCo-Authored-By: Claude <noreply@anthropic.com>", ["Claude Code"]),
        ("x\n\nCo-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>", ["Claude Code"]),
        ("x\n\nCo-authored-by: Claude Opus 4.7 (1M context) <noreply@anthropic.com>", ["Claude Code"]),
        ("x\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)", ["Claude Code"]),
        ("x\n\n🤖 Generated with [Claude Code](https://claude.ai/code)", ["Claude Code"]),
        ("x\n\nClaude-Session: https://claude.ai/code/session_01EnUvhys3zP42GsbKq3t4ha", ["Claude Code"]),
        ("x\n\nCo-authored-by: Copilot <223556219+Copilot@users.noreply.github.com>", ["GitHub Copilot"]),
        ("x\n\nCo-authored-by: Copilot <copilot@github.com>", ["GitHub Copilot"]),
        (
            "x\n\nCo-authored-by: copilot-swe-agent[bot] <198982749+Copilot@users.noreply.github.com>",
            ["GitHub Copilot"],
        ),
        (
            "x\n\nAgent-Logs-Url: https://github.com/go-kratos/kratos/sessions/6ae6cae0-5dff-4c44-96e9-22e44ff40211",
            ["GitHub Copilot"],
        ),
        ("x\n\nCo-authored-by: Codex <noreply@openai.com>", ["OpenAI Codex"]),
        ("x\n\nCo-authored-by: Cursor <cursoragent@cursor.com>", ["Cursor"]),
        ("x\n\nMade-with: Cursor", ["Cursor"]),
        ("x\n\nCo-authored-by: aider (gpt-5.4) <aider@aider.chat>", ["Aider"]),
        ("x\n\nCo-authored-by: aider (vertex_ai/gemini-2.5-pro-exp-03-25) <noreply@aider.dev>", ["Aider"]),
        ("aider: fix: Use correct token type for markdown heading alignment", ["Aider"]),
        ("x\n\nAssisted-by: Claude:claude-3-opus coccinelle sparse", ["Claude Code"]),
        ("x\n\nAssisted-by: LLM coccinelle sparse", ["an LLM (unnamed)"]),
        ("x\n\nAssisted-by: GitHub Copilot:Claude Opus 4.6", ["GitHub Copilot"]),
        ("x\n\nGenerated-by: Windsurf", ["Windsurf"]),
        ("x\n\nAI-used-for: collecting comments and updating patch", ["an assistant (unnamed)"]),
        ("x\n\nCo-Authored-By: Devin <158243242+devin-ai-integration[bot]@users.noreply.github.com>", ["Devin"]),
        ("x\n\nAmp-Thread-ID: https://ampcode.com/threads/T-652c6d27\nCo-authored-by: Amp <amp@ampcode.com>", ["Amp"]),
    ],
)
def test_known_formats(message, expected):
    assert tools(message) == expected


def test_a_trailer_is_what_git_reads_as_one_in_any_case():
    """GitHub's squash merge puts the co-authors after a `---------` line, in the block that ends the
    message: a trailer. The same line in the middle of the body is not one; it is shown, rejected."""
    squash = "Squash (#12)\n\n* first\n\n* second\n\n---------\n\nco-authored-by: Claude <noreply@anthropic.com>\n"
    assert tools(squash) == ["Claude Code"]
    middle = "Squash (#12)\n\n* first\n\nCo-authored-by: Claude <noreply@anthropic.com>\n\n* second\n---------\n"
    result = commit_signals("c", middle, ME, ME)
    assert result.signals == []
    [rejected] = result.rejected
    assert "not in the trailer block" in rejected.reason and rejected.evidence.startswith("Co-authored-by: Claude")


def test_model_is_kept():
    signals = commit_signals(
        "c", "x\n\nCo-authored-by: aider (gemini/gemini-2.5-pro) <aider@aider.chat>", ME, ME
    ).signals
    assert signals[0].model == "gemini/gemini-2.5-pro"
    signals = commit_signals("c", "x\n\nCo-Authored-By: Claude Opus 4.5 <noreply@anthropic.com>", ME, ME).signals
    assert signals[0].model == "Opus 4.5"


@pytest.mark.parametrize(
    "author, expected",
    [
        (("copilot-swe-agent[bot]", "198982749+Copilot@users.noreply.github.com"), ["GitHub Copilot"]),
        (("google-labs-jules[bot]", "161369871+google-labs-jules[bot]@users.noreply.github.com"), ["Jules"]),
        (("Cursor Agent", "cursoragent@cursor.com"), ["Cursor"]),
        (("Claude Code", "noreply@anthropic.com"), ["Claude Code"]),
        (("Paul Gauthier (aider)", "paul@example.com"), ["Aider"]),
    ],
)
def test_agent_authors(author, expected):
    assert tools("Some change", author=author) == expected


def test_a_person_named_claude_is_not_an_ai():
    result = commit_signals("c", "x\n\nCo-Authored-By: Claude Martin <claude.martin@example.com>", ME, ME)
    assert result.signals == []
    assert result.rejected and "person" in result.rejected[0].reason
    assert tools("x", author=("Claude", "claude@example.com")) == []


def test_curl_assisted_by_is_a_human_helper():
    result = commit_signals("c", "x\n\nAssisted-by: Jay Satiro\nAssisted-by: Daniel Stenberg", ME, ME)
    assert result.signals == []
    assert len(result.rejected) == 2 and "person" in result.rejected[0].reason


@pytest.mark.parametrize("value", ["none", "n/a", "No", "-", "false", "not used"])
def test_negative_values(value):
    result = commit_signals("c", f"x\n\nAssisted-by: {value}", ME, ME)
    assert result.signals == [] and result.rejected[0].reason == "declares no assistant"


@pytest.mark.parametrize(
    "value, tool, model",
    [
        ("Claude Code (claude-opus-5)", "Claude Code", "claude-opus-5"),
        ("claude-code/claude-fable-5", "Claude Code", "claude-fable-5"),
        ("Codex (gpt-5.6-sol) <noreply@openai.com>", "OpenAI Codex", "gpt-5.6-sol"),
        ("openai-codex:gpt-5.5 [read,bash,edit,write]", "OpenAI Codex", "gpt-5.5"),
        ("OpenCode v1.0.203 (Claude Opus 4.5)", "OpenCode", "Claude Opus 4.5"),
        ("GPT-5.6 Sol via Codex", "OpenAI Codex", None),
    ],
)
def test_agent_value_shapes(value, tool, model):
    assert parse_agent_value(value) == (tool, model)


def test_subject_line_is_not_a_trailer():
    assert trailers("Fix: the thing\n\nbody") == []


# --------------------------------------------------------------------------- the trailer block, as git reads it

LINES = st.sampled_from(
    [
        "Subject",
        "",
        " ",
        "Co-authored-by: Claude <noreply@anthropic.com>",
        "Signed-off-by: Ann <ann@example.com>",
        "(cherry picked from commit 0123abc)",
        "  continued",
        "\tcontinued",
        "# a comment",
        "Prose that says nothing.",
        "Key : value",
        "key:value",
        "-x: y",
        "Note: a body line that looks like a trailer",
        " leading: space",
        "a b: c",
        "Conflicts:",
        "\tfile.c",
        "--- ",
        "---------",
        "Assisted-by: MonkeyCode",
        "x\r",
        "Made-with: Cursor",
        "# ------------------------ >8 ------------------------",
        "Fixes #12",
        "🤖 Generated with [Claude Code](https://x)",
    ]
) | st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\x00"), max_size=30)


def git_reads(message: str) -> list[tuple[str, str]]:
    env = {
        "PATH": os.environ["PATH"],
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "HOME": "/nonexistent",
    }
    out = subprocess.run(
        ["git", "interpret-trailers", "--parse", "--no-divider"],
        input=message.encode(),
        capture_output=True,
        env=env,
        check=True,
    ).stdout.decode("utf-8", "replace")
    found = []
    for line in out.split("\n"):
        if line:
            key, _, value = line.partition(":")
            found.append((key.strip().lower(), " ".join(value.split())))
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=12), st.booleans())
def test_the_trailer_block_is_the_one_git_reads(lines, final_newline):
    """Against git itself (`git interpret-trailers --parse --no-divider`, as `git log --format=%(trailers)`
    reads a commit): the same trailers, in the same order, continuation lines unfolded."""
    message = "\n".join(lines) + ("\n" if final_newline else "")
    mine = [(key, " ".join(value.split())) for key, value, _ in trailer_block(message)[1]]
    assert mine == git_reads(message)


def test_trailer_block_examples_git_agrees_with():
    assert trailer_block("Subject\nCo-authored-by: Claude <noreply@anthropic.com>\n")[1] == []  # the title's own line
    message = (
        "Fix\n\nBody.\n\nSigned-off-by: Ann <ann@example.com>\nthis line is prose\nCo-authored-by: Bo <bo@x.org>\n"
    )
    assert [key for key, _, _ in trailer_block(message)[1]] == ["signed-off-by", "co-authored-by"]  # 2 of 3, with git's
    assert trailer_block("Fix\n\nNote: prose\nmore prose\nand more\n")[1] == []


@pytest.mark.parametrize(
    "value, kind, tool, known",
    [
        ("MonkeyCode", "tool", "MonkeyCode", False),  # a single product-like token: a tool, known or not
        ("MonkeyCode:mc-2", "tool", "MonkeyCode", False),  # the kernel's AGENT:MODEL shape
        ("Zed Agent <noreply@zed.dev>", "tool", "Zed Agent", False),  # a vendor's service address
        ("Firebender <help@firebender.com>", "tool", "Firebender", True),
        ("o3", "tool", "o3", True),  # a model alone
        ("claude-3-5-sonnet", "tool", "Claude Code", True),
        ("ChatGPTv5", "tool", "ChatGPT", True),  # Fedora's example
        ("Jane Doe <jane@example.org>", "person", None, True),  # a personal name and address
        ("jdoe42 <jdoe@example.org>", "person", None, True),  # a handle at a personal address is a person too
        ("Jay Satiro", "person", None, True),  # curl's helpers
        ("Claude Martin <claude.martin@example.com>", "person", None, True),
        ("Claude Martin", "person", None, True),
        ("none", "none", None, True),
        ("Zed AI", "tool", "Zed AI", False),  # a name that says it is AI, known or not
        ("Acme Agent", "tool", "Acme Agent", False),
        # models as their makers write them, with a space: models, so assistants
        ("Grok 4", "tool", "Grok 4", True),
        ("Kimi K2", "tool", "Kimi K2", True),
        ("Llama 3.1", "tool", "Llama 3.1", True),
        # a person's full name with a remark after it
        ("Claude Martin (my pair partner)", "person", None, True),
        ("Devin Smith, a colleague", "person", None, True),
    ],
)
def test_who_a_name_is_by_its_shape(value, kind, tool, known):
    found = who_is(value)
    assert (found.kind, found.tool, found.known) == (kind, tool, known)


@pytest.mark.parametrize(
    "message, tools, rejected",
    [
        ("Retry\n\nAssisted-by: MonkeyCode\n", ["MonkeyCode"], []),
        ("Retry\n\nAssisted-by: Jane Doe <jane@example.org>\n", [], ["names a person, not an assistant"]),
        (
            "Retry\n\nGenerated-by: something internal\n",
            ["an assistant (unnamed)"],
            [],
        ),  # the key says AI; the value no tool
        ("Retry\n\nAI-assistant: none\n", [], ["declares no assistant"]),
        (
            "Retry\n\nAi-assisted: true\nCo-authored-by: Claude Code <noreply@anthropic.com>\n",
            ["Claude Code", "an assistant (unnamed)"],
            [],
        ),
        ("copilot: fix(claude): things\n", [], []),
        ("Retry\n\nAI-Tool: Zed AI\n", ["Zed AI"], []),  # named under an AI key: that tool, not "unnamed"
        # The kernel's co-author key: an assistant's identity counts, a person's is nothing to report.
        ("Retry\n\nCo-developed-by: Claude claude-opus-4-5 <noreply@anthropic.com>\n", ["Claude Code"], []),
        (
            "Retry\n\nCo-developed-by: Jane Doe <jane@example.org>\n",
            [],
            [],
        ),  # a subject's conventional-commit prefix is no disclosure
    ],
)
def test_disclosure_trailers_and_what_is_not_one(message, tools, rejected):
    result = commit_signals("c", message, ME, ME)
    assert result.tools == tools
    assert [r.reason.split(" (")[0] for r in result.rejected] == rejected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_any_value_is_a_tool_a_person_or_neither_and_a_tool_is_safe_to_show(value):
    from review.core.text import visible

    found = who_is(value)
    assert found.kind in ("tool", "person", "none", "unclear")
    if found.kind == "tool":
        assert found.tool and visible(found.tool) == found.tool and len(found.tool) <= 61


def test_a_span_is_written_with_every_field_it_has():
    """Span.to_json is written out field by field (asdict was slow on long histories): a field added to
    the span must reach the JSON too."""
    import dataclasses

    from review.core.attribution.merge import Span

    span = Span("lib/retry.mjs", 3, 9, "Claude Code", "trailer", "ai")
    assert span.to_json() == dataclasses.asdict(span)
