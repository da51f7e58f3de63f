"""Assistants the console knows, one row each, and every lookup built from those rows. Pure.

The known list is for aliases and for unstructured markers (a tool mentioned in a sentence). Who a
name in an explicit disclosure form is — a tool, known or not, or a person — is `names.who_is`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from review.core.text import visible


@dataclass(frozen=True)
class Tool:
    """One assistant and every form a source names it by. Adding a tool is adding a row to TOOLS.
    Lists are written `a|b`; patterns are regular expressions, matched case-insensitively."""

    name: str  # the one name shown
    aliases: str = ""  # spellings that are this tool, lower-case ("claude-code"); its name is one too
    words: str = ""  # a pattern naming it inside free text ("uses copilot for tests"), as a whole word
    identity: str = ""  # a pattern for a commit's *whole* author name; the model, when present, in group "model"
    emails: str = ""  # exact, lower-case; "+…" a GitHub noreply suffix (the numeric id before it varies)
    domains: str = ""  # its vendor's: the tool's own name at one of these is the tool
    sessions: str = ""  # trailer keys only its sessions write ("Claude-Session")
    footer: str = ""  # its name in a "Generated with …"/"Made with …" footer that carries no link
    models: str = ""  # a pattern for the model names its vendor writes alone ("claude-3-5-sonnet")
    given_name: str = ""  # a word of its name that is also a person's first name ("Claude Martin")

    def each(self, field: str) -> list[str]:
        return [item for item in getattr(self, field).split("|") if item]


# Order matters for text: a tool before the models it hosts ("Copilot (Claude Opus 4.6)" is Copilot,
# "aider (gpt-5.4)" is Aider). Words too common in prose alone ("Amp", "Continue") name no tool in text.
TOOLS: tuple[Tool, ...] = (
    Tool(
        "GitHub Copilot",
        aliases="copilot|copilot chat|copilot-agent|github-copilot|copilot cli|github copilot cli|copilot-cli",
        words="copilot",
        identity=r"(?:github )?copilot(?: autofix powered by ai)?|copilot-swe-agent\[bot\]",
        emails="copilot@github.com|+copilot@users.noreply.github.com",
        domains="github.com",
        sessions="agent-logs-url",
        footer="copilot",
    ),
    Tool(
        "OpenAI Codex",
        aliases="codex|codex cli|codex-cli|openai-codex|openai codex cli",
        words="codex",
        identity=r"(?:openai )?codex(?: cli)?(?: \((?P<model>[^)]*)\))?|chatgpt-codex-connector\[bot\]",
        emails="noreply@openai.com|codex@openai.com|+chatgpt-codex-connector[bot]@users.noreply.github.com|"
        "+codex@users.noreply.github.com",
        domains="openai.com",
        sessions="codex-session",
        footer="codex",
        models=r"codex-[\w.-]+",
    ),
    Tool(
        "Cursor",
        aliases="cursor agent|cursor-agent",
        words="cursor",
        identity="cursor(?: agent)?",
        emails="cursoragent@cursor.com|+cursor[bot]@users.noreply.github.com",
        domains="cursor.com|cursor.sh",
        sessions="cursor-session",
        footer="cursor",
    ),
    Tool(
        "Aider",
        words="aider",
        identity=r"aider \((?P<model>[^)]*)\)",
        emails="aider@aider.chat|noreply@aider.chat|noreply@aider.dev",
        domains="aider.chat|aider.dev",
        footer="aider",
    ),
    Tool(
        "Windsurf",
        aliases="codeium",
        words="windsurf|codeium",
        identity="windsurf|codeium",
        emails="noreply@windsurf.com|noreply@codeium.com",
        domains="windsurf.com|codeium.com",
        footer="windsurf",
    ),
    Tool(
        "Devin",
        words="devin",
        identity=r"devin(?:-ai-integration\[bot\])?",
        emails="+devin-ai-integration[bot]@users.noreply.github.com",
        domains="devin.ai|cognition.ai",
        footer="devin",
        given_name="devin",
    ),
    Tool(
        "OpenCode",
        words="opencode",
        identity="opencode",
        emails="noreply@opencode.ai",
        domains="opencode.ai",
        footer="opencode",
    ),
    Tool(
        "Qwen Code",
        aliases="qwen|qwen-coder",
        words="qwen",
        identity="qwen-coder",
        emails="qwen-coder@alibabacloud.com",
        domains="alibabacloud.com",
        models=r"qwen\d?-[\w.-]+",
    ),
    Tool(
        "Jules",
        words="jules",
        identity=r"google-labs-jules\[bot\]",
        emails="+google-labs-jules[bot]@users.noreply.github.com",
        given_name="jules",
    ),
    Tool(
        "Firebender",
        words="firebender",
        identity="firebender",
        emails="help@firebender.com",
        domains="firebender.com",
        footer="firebender",
    ),
    Tool(
        "Factory Droid",
        aliases="droid|factory-droid",
        words=r"factory\s*droid|factory-droid",
        identity=r"factory-droid\[bot\]|droid",
        emails="+factory-droid[bot]@users.noreply.github.com",
        domains="factory.ai",
    ),
    Tool(
        "Amazon Q Developer",
        aliases="kiro|amazon q",
        words=r"amazon\s*q|kiro",
        identity=r"amazon-q-developer\[bot\]",
        emails="+amazon-q-developer[bot]@users.noreply.github.com",
        domains="amazon.com",
    ),
    Tool("Tabnine", words="tabnine", domains="tabnine.com"),
    # "Cody" alone is also a person's name: only the whole product name is an alias.
    Tool("Sourcegraph Cody", words=r"sourcegraph\s*cody", domains="sourcegraph.com"),
    Tool("JetBrains AI Assistant", aliases="jetbrains ai", words=r"jetbrains\s*ai(?:\s*assistant)?"),
    Tool("Augment Code", aliases="augment", words=r"augment\s*code"),
    Tool("Supermaven", words="supermaven"),
    Tool("Qodo", words="qodo"),
    Tool(
        "Claude Code",
        aliases="claude|claude-code|claude_code",
        words=r"claude\s*code|claude",
        identity=r"claude(?: code)?|claude (?P<model>(?:opus|sonnet|haiku|fable)\b.*|\d.*)|claude\[bot\]",
        emails="noreply@anthropic.com|claude-code@anthropic.com|+claude[bot]@users.noreply.github.com",
        domains="anthropic.com",
        sessions="claude-session",
        footer="claude code",
        models=r"claude-[\w.-]+|(?:opus|sonnet|haiku)-?\d[\w.-]*",
        given_name="claude",
    ),
    Tool(
        "ChatGPT",
        words=r"chatgpt|gpt-?\d|openai",
        models=r"o[1-9](?:-[a-z]+)?|gpt-?\d[\w.-]*|gpt-?4o[\w.-]*|chatgpt-[\w.-]+",
    ),
    Tool("Gemini", words="gemini", domains="google.com", models=r"gemini-[\w.-]+"),
    Tool("DeepSeek", words="deepseek", domains="deepseek.com", models=r"deepseek-[\w.-]+"),
    Tool(
        "Mistral",
        words="mistral|codestral",
        domains="mistral.ai",
        models=r"(?:mistral|codestral|devstral|mixtral)-[\w.-]+",
    ),
    Tool("an LLM (unnamed)", aliases="llm", words="llm|large language model|chatbot"),
    Tool("Gemini CLI", aliases="gemini-cli"),
    Tool(
        "Gemini Code Assist",
        identity=r"gemini-code-assist\[bot\]",
        emails="+gemini-code-assist[bot]@users.noreply.github.com",
    ),
    Tool(
        "Amp",
        identity="amp",
        emails="amp@ampcode.com",
        domains="ampcode.com",
        sessions="amp-thread-id",
        footer="amp",
        given_name="amp",
    ),
    Tool(
        "Junie",
        identity=r"junie|jetbrains-junie\[bot\]",
        emails="junie@jetbrains.com|+jetbrains-junie[bot]@users.noreply.github.com",
        domains="jetbrains.com",
        footer="junie",
        given_name="junie",
    ),
    Tool("Replit Agent", domains="replit.com", sessions="replit-commit-author"),
    Tool("Continue"),
    Tool("Pi", given_name="pi"),
    Tool("Cline"),
    Tool("Roo Code"),
)

# Model families no tool row hosts, as sources write them alone.
_OTHER_MODELS = (
    r"(?:code)?llama[- ]?\d[\w.-]*|grok[- ]\d[\w.-]*|kimi-[\w.-]+|kimi k\d[\w.-]*|glm-\d[\w.-]*|"
    r"command-r[\w.-]*|phi-\d[\w.-]*"
)

# --------------------------------------------------------------------------- lookups, built from TOOLS

# One name per tool, whatever the source calls it (git-ai's agent ids, trailers, notes).
ALIASES = {alias: tool.name for tool in TOOLS for alias in (tool.name.lower(), *tool.each("aliases"))}
VENDOR_DOMAINS = frozenset(domain for tool in TOOLS for domain in tool.each("domains"))
GIVEN_NAMES = frozenset(tool.given_name for tool in TOOLS if tool.given_name)
# The trailer key a tool's sessions write → that tool.
SESSION_KEYS = {key: tool.name for tool in TOOLS for key in tool.each("sessions")}
FOOTER_NAMES = tuple(tool.footer for tool in TOOLS if tool.footer)
_EMAILS = {email: tool for tool in TOOLS for email in tool.each("emails") if not email.startswith("+")}
_EMAIL_SUFFIXES = tuple((email, tool) for tool in TOOLS for email in tool.each("emails") if email.startswith("+"))
_WORDS = tuple(
    (re.compile(rf"(?<![A-Za-z])(?:{tool.words})(?![A-Za-z])", re.I), tool.name) for tool in TOOLS if tool.words
)
_IDENTITIES = tuple((re.compile(tool.identity, re.I), tool) for tool in TOOLS if tool.identity)
# Model names, as sources write them alone: o3, gpt-4o, claude-3-5-sonnet, gemini-2.5-pro,
# anthropic/claude-opus-4-5 (a provider first, as litellm and models.dev write them).
_MODEL = re.compile(
    r"(?:[a-z0-9_.-]{1,40}/)?(?:" + "|".join([t.models for t in TOOLS if t.models] + [_OTHER_MODELS]) + ")", re.I
)

NEGATIVE_VALUES = {"none", "n/a", "na", "no", "-", "false", "not used", "nothing", "no ai", "0"}
# Test doubles that tools use in their own test suites: not assistants (git-ai's `mock_ai`).
TEST_AGENTS = {"mock_ai", "mock-ai", "mock", "test_agent", "test-agent", "fake_ai", "fake-ai"}
# What a source says when it names no tool: an assistant all the same.
UNNAMED = (
    "an assistant (unnamed)",
    "an agent (unnamed)",
    "an LLM (unnamed)",
    "an agent (git-ai)",
    "an agent (Agent Trace)",
)
KNOWN_TOOLS = frozenset({tool.name for tool in TOOLS} | set(UNNAMED))

MAX_IDENTITY = 320
# a tool's name as shown; longer is cut, and said to be
MAX_NAME = 60
IDENTITY = re.compile(r"^\s*(?P<name>[^<>]*?)\s*<(?P<email>[^<>]*)>\s*$")


@functools.lru_cache(maxsize=4096)  # a history repeats a few identities thousands of times
def match_identity(name: str, email: str) -> tuple[Tool, str | None] | None:
    """The tool a name/email pair belongs to, and the model its name carries: email first, then the whole name."""
    if len(name) > MAX_IDENTITY or len(email) > MAX_IDENTITY:
        return None  # no agent signs with a kilobyte of name; and the patterns only see short text
    email_l = email.strip().lower()
    name_s = name.strip()
    tool = _EMAILS.get(email_l) or next((t for suffix, t in _EMAIL_SUFFIXES if email_l.endswith(suffix)), None)
    if email_l and tool:
        return tool, _model_from_name(tool, name_s)
    for pattern, tool in _IDENTITIES:
        if pattern.fullmatch(name_s):
            bot = "noreply" in email_l or "no-reply" in email_l or email_l.endswith("[bot]") or "[bot]@" in email_l
            if email_l and not bot:
                return None  # "Claude <claude@example.com>": a name alone is weak next to a personal address
            return tool, _model_from_name(tool, name_s)
    return None


def _model_from_name(tool: Tool, name: str) -> str | None:
    match = re.fullmatch(tool.identity, name, re.I) if tool.identity else None
    return match["model"].strip() if match and match.groupdict().get("model") else None


def canonical_tool(name: str) -> str | None:
    """The one name for a tool as a source spells it; unknown tools as written (sanitised, never
    dropped); None for a test agent, which is not an assistant."""
    key = " ".join(name.strip().lower().split())
    if key in TEST_AGENTS:
        return None
    return ALIASES.get(key) or ALIASES.get(key.replace("_", " ")) or ALIASES.get(unversioned(key)) or written_name(name)


# A version glued to a tool's name: "ChatGPTv5", "Cursor 1.7", "OpenCode v1.0.203".
_VERSION = re.compile(r"[\s-]?v?\d{1,9}(?:\.\d{1,9}){0,3}$")


def unversioned(key: str) -> str:
    """A name without the version glued to it ("cursor 1.7" → "cursor")."""
    # Only names short enough to be one (the pattern, searched from every digit, is not linear).
    return _VERSION.sub("", key) if len(key) <= MAX_NAME else key


def written_name(name: str) -> str:
    """A name as the candidate wrote it, made safe to keep: controls and invisible characters
    visible, whitespace collapsed, cut at MAX_NAME characters (saying so)."""
    text = " ".join(visible(name[: 4 * MAX_NAME]).split())
    return text if len(text) <= MAX_NAME else text[:MAX_NAME] + "…"


def is_known_tool(name: str) -> bool:
    return name in KNOWN_TOOLS


def is_known(name: str) -> bool:
    """A tool the console knows, or a model's name (o3, claude-3-5-sonnet): never listed as unknown."""
    return is_known_tool(name) or is_model_name(name)


def tool_in_text(value: str) -> str | None:
    """The assistant a free-text value names, or None."""
    return next((name for pattern, name in _WORDS if pattern.search(value)), None)


def is_model_name(name: str) -> bool:
    text = name.strip()
    return len(text) <= 80 and _MODEL.fullmatch(text) is not None
