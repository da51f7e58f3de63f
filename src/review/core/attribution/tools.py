"""Assistants the console knows: the agents' addresses and names, one name per tool (aliases), the
words that name a tool in free text, and model names. Pure.

The known list is for aliases and for unstructured markers (a tool mentioned in a sentence). Who a
name in an explicit disclosure form is — a tool, known or not, or a person — is `names.who_is`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from review.core.text import visible


@dataclass(frozen=True)
class Agent:
    tool: str
    emails: tuple[str, ...] = ()  # exact, lower-case
    email_suffixes: tuple[str, ...] = ()  # GitHub noreply form: the numeric id is stable, match by suffix
    names: str = ""  # a regex for the *whole* name; the model, when present, in group "model"


AGENTS: tuple[Agent, ...] = (
    Agent(
        "Claude Code",
        ("noreply@anthropic.com", "claude-code@anthropic.com"),
        ("+claude[bot]@users.noreply.github.com",),
        r"claude(?: code)?|claude (?P<model>(?:opus|sonnet|haiku|fable)\b.*|\d.*)|claude\[bot\]",
    ),
    Agent(
        "GitHub Copilot",
        ("copilot@github.com",),
        ("+copilot@users.noreply.github.com",),
        r"(?:github )?copilot(?: autofix powered by ai)?|copilot-swe-agent\[bot\]",
    ),
    Agent(
        "OpenAI Codex",
        ("noreply@openai.com", "codex@openai.com"),
        ("+chatgpt-codex-connector[bot]@users.noreply.github.com", "+codex@users.noreply.github.com"),
        r"(?:openai )?codex(?: cli)?(?: \((?P<model>[^)]*)\))?|chatgpt-codex-connector\[bot\]",
    ),
    Agent("Cursor", ("cursoragent@cursor.com",), ("+cursor[bot]@users.noreply.github.com",), r"cursor(?: agent)?"),
    Agent("Aider", ("aider@aider.chat", "noreply@aider.chat", "noreply@aider.dev"), (), r"aider \((?P<model>[^)]*)\)"),
    Agent("Devin", (), ("+devin-ai-integration[bot]@users.noreply.github.com",), r"devin(?:-ai-integration\[bot\])?"),
    Agent("Jules", (), ("+google-labs-jules[bot]@users.noreply.github.com",), r"google-labs-jules\[bot\]"),
    Agent(
        "Amazon Q Developer", (), ("+amazon-q-developer[bot]@users.noreply.github.com",), r"amazon-q-developer\[bot\]"
    ),
    Agent(
        "Gemini Code Assist", (), ("+gemini-code-assist[bot]@users.noreply.github.com",), r"gemini-code-assist\[bot\]"
    ),
    Agent("Amp", ("amp@ampcode.com",), (), r"amp"),
    Agent("OpenCode", ("noreply@opencode.ai",), (), r"opencode"),
    Agent("Windsurf", ("noreply@windsurf.com", "noreply@codeium.com"), (), r"windsurf|codeium"),
    Agent("Factory Droid", (), ("+factory-droid[bot]@users.noreply.github.com",), r"factory-droid\[bot\]|droid"),
    Agent("Qwen Code", ("qwen-coder@alibabacloud.com",), (), r"qwen-coder"),
    Agent(
        "Junie",
        ("junie@jetbrains.com",),
        ("+jetbrains-junie[bot]@users.noreply.github.com",),
        r"junie|jetbrains-junie\[bot\]",
    ),
    Agent("Firebender", ("help@firebender.com",), (), r"firebender"),
)

# Words that name an assistant inside free-text values (Assisted-by, notes). Word boundaries matter:
# "Amp" or "Continue" alone are too common in prose, so they are not here.
_TOOL_WORDS: tuple[tuple[str, str], ...] = (
    # Tools before the models they host: "Copilot (Claude Opus 4.6)" is Copilot, "aider (gpt-5.4)" is Aider.
    (r"copilot", "GitHub Copilot"),
    (r"codex", "OpenAI Codex"),
    (r"cursor", "Cursor"),
    (r"aider", "Aider"),
    (r"windsurf|codeium", "Windsurf"),
    (r"devin", "Devin"),
    (r"opencode", "OpenCode"),
    (r"qwen", "Qwen Code"),
    (r"jules", "Jules"),
    (r"firebender", "Firebender"),
    (r"factory\s*droid|factory-droid", "Factory Droid"),
    (r"amazon\s*q|kiro", "Amazon Q Developer"),
    (r"tabnine", "Tabnine"),
    (r"sourcegraph\s*cody", "Sourcegraph Cody"),
    (r"jetbrains\s*ai(?:\s*assistant)?", "JetBrains AI Assistant"),
    (r"augment\s*code", "Augment Code"),
    (r"supermaven", "Supermaven"),
    (r"qodo", "Qodo"),
    (r"claude\s*code|claude", "Claude Code"),
    (r"chatgpt|gpt-?\d|openai", "ChatGPT"),
    (r"gemini", "Gemini"),
    (r"deepseek", "DeepSeek"),
    (r"mistral|codestral", "Mistral"),
    (r"llm|large language model|chatbot", "an LLM (unnamed)"),
)

NEGATIVE_VALUES = {"none", "n/a", "na", "no", "-", "false", "not used", "nothing", "no ai", "0"}

MAX_IDENTITY = 320
# a tool's name as shown; longer is cut, and said to be
MAX_NAME = 60
_IDENT = re.compile(r"^\s*(?P<name>[^<>]*?)\s*<(?P<email>[^<>]*)>\s*$")


# --------------------------------------------------------------------------- matching


@functools.lru_cache(maxsize=4096)  # a history repeats a few identities thousands of times
def match_identity(name: str, email: str) -> tuple[Agent, str | None] | None:
    """The agent a name/email pair belongs to: email first, then the whole name."""
    if len(name) > MAX_IDENTITY or len(email) > MAX_IDENTITY:
        return None  # no agent signs with a kilobyte of name; and the patterns only see short text
    email_l = email.strip().lower()
    for agent in AGENTS:
        if email_l and (email_l in agent.emails or any(email_l.endswith(s) for s in agent.email_suffixes)):
            return agent, _model_from_name(agent, name)
    name_s = name.strip()
    for agent in AGENTS:
        if agent.names and _name_pattern(agent.names).fullmatch(name_s):
            if email_l and not _email_could_be_bot(email_l):
                # "Claude <claude@example.com>": a name alone is weak next to a personal address.
                return None
            return agent, _model_from_name(agent, name)
    return None


@functools.lru_cache(maxsize=64)
def _name_pattern(names: str) -> re.Pattern[str]:
    return re.compile(names, re.I)  # compiled once: re's own cache lookup was most of each call


def _email_could_be_bot(email: str) -> bool:
    return "noreply" in email or "no-reply" in email or email.endswith("[bot]") or "[bot]@" in email


def _model_from_name(agent: Agent, name: str) -> str | None:
    if not agent.names:
        return None
    match = _name_pattern(agent.names).fullmatch(name.strip())
    if match and "model" in match.groupdict() and match["model"]:
        return match["model"].strip()
    return None


# One name per tool, whatever the source calls it (git-ai's agent ids, trailers, notes).
ALIASES = {
    "claude": "Claude Code",
    "claude code": "Claude Code",
    "claude-code": "Claude Code",
    "claude_code": "Claude Code",
    "copilot": "GitHub Copilot",
    "github copilot": "GitHub Copilot",
    "copilot chat": "GitHub Copilot",
    "copilot-agent": "GitHub Copilot",
    "github-copilot": "GitHub Copilot",
    "copilot cli": "GitHub Copilot",
    "github copilot cli": "GitHub Copilot",
    "copilot-cli": "GitHub Copilot",
    "cursor": "Cursor",
    "cursor agent": "Cursor",
    "cursor-agent": "Cursor",
    "codex": "OpenAI Codex",
    "openai codex": "OpenAI Codex",
    "codex cli": "OpenAI Codex",
    "codex-cli": "OpenAI Codex",
    "openai-codex": "OpenAI Codex",
    "openai codex cli": "OpenAI Codex",
    "devin": "Devin",
    "firebender": "Firebender",
    "droid": "Factory Droid",
    "factory droid": "Factory Droid",
    "factory-droid": "Factory Droid",
    "gemini": "Gemini",
    "gemini cli": "Gemini CLI",
    "gemini-cli": "Gemini CLI",
    "aider": "Aider",
    "windsurf": "Windsurf",
    "amp": "Amp",
    "opencode": "OpenCode",
    "continue": "Continue",
    "junie": "Junie",
    "qwen": "Qwen Code",
    "qwen code": "Qwen Code",
    "qwen-coder": "Qwen Code",
    "pi": "Pi",
    "chatgpt": "ChatGPT",
    "jules": "Jules",
    "tabnine": "Tabnine",
    "cline": "Cline",
    "roo code": "Roo Code",
    "kiro": "Amazon Q Developer",
    "amazon q": "Amazon Q Developer",
    "deepseek": "DeepSeek",
    "llm": "an LLM (unnamed)",
    # "Cody" alone is also a person's name: only the whole product name is an alias.
    "sourcegraph cody": "Sourcegraph Cody",
    "jetbrains ai": "JetBrains AI Assistant",
    "jetbrains ai assistant": "JetBrains AI Assistant",
    "augment": "Augment Code",
    "augment code": "Augment Code",
    "supermaven": "Supermaven",
    "qodo": "Qodo",
}
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
KNOWN_TOOLS = frozenset(
    {agent.tool for agent in AGENTS}
    | set(ALIASES.values())
    | {tool for _, tool in _TOOL_WORDS}
    | set(UNNAMED)
    | {"Replit Agent", "Gemini CLI"}
)


def canonical_tool(name: str) -> str | None:
    """The one name for a tool as a source spells it; unknown tools as written (sanitised, never
    dropped); None for a test agent, which is not an assistant."""
    key = " ".join(name.strip().lower().split())
    if key in TEST_AGENTS:
        return None
    return (
        ALIASES.get(key) or ALIASES.get(key.replace("_", " ")) or ALIASES.get(_unversioned(key)) or written_name(name)
    )


# A version glued to a tool's name: "ChatGPTv5", "Cursor 1.7", "OpenCode v1.0.203".
_VERSION = re.compile(r"[\s-]?v?\d{1,9}(?:\.\d{1,9}){0,3}$")


def _unversioned(key: str) -> str:
    # Only names short enough to be one (the pattern, searched from every digit, is not linear).
    return _VERSION.sub("", key) if len(key) <= MAX_NAME else key


def written_name(name: str) -> str:
    """A name as the candidate wrote it, made safe to keep: controls and invisible characters
    visible, whitespace collapsed, cut at MAX_NAME characters (saying so)."""
    text = " ".join(visible(name[: 4 * MAX_NAME]).split())
    return text if len(text) <= MAX_NAME else text[:MAX_NAME] + "…"


def is_known_tool(name: str) -> bool:
    return name in KNOWN_TOOLS


def tool_in_text(value: str) -> str | None:
    """The assistant a free-text value names, or None."""
    for pattern, tool in _TOOL_WORDS:
        if _word_pattern(pattern).search(value):
            return tool
    return None


@functools.lru_cache(maxsize=64)
def _word_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z]){pattern}(?![A-Za-z])", re.I)


# Model names, as sources write them alone: o3, gpt-4o, claude-3-5-sonnet, gemini-2.5-pro,
# anthropic/claude-opus-4-5 (a provider first, as litellm and models.dev write them).
_MODEL = re.compile(
    r"(?:[a-z0-9_.-]{1,40}/)?(?:o[1-9](?:-[a-z]+)?|gpt-?\d[\w.-]*|gpt-?4o[\w.-]*|chatgpt-[\w.-]+|claude-[\w.-]+|"
    r"(?:opus|sonnet|haiku)-?\d[\w.-]*|gemini-[\w.-]+|codex-[\w.-]+|(?:code)?llama[- ]?\d[\w.-]*|deepseek-[\w.-]+|"
    r"qwen\d?-[\w.-]+|(?:mistral|codestral|devstral|mixtral)-[\w.-]+|grok[- ]\d[\w.-]*|"
    r"kimi-[\w.-]+|kimi k\d[\w.-]*|glm-\d[\w.-]*|"
    r"command-r[\w.-]*|phi-\d[\w.-]*)",
    re.I,
)


def is_model_name(name: str) -> bool:
    text = name.strip()
    return len(text) <= 80 and _MODEL.fullmatch(text) is not None
