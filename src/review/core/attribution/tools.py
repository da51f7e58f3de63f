"""Assistants by identity and by name: the known agents' addresses and names, the words that name a
tool in free text, and the shapes of Assisted-by/Generated-by values. Pure."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Agent:
    tool: str
    emails: tuple[str, ...] = ()  # exact, lower-case
    email_suffixes: tuple[str, ...] = ()  # GitHub noreply form: the numeric id is stable, match by suffix
    names: str = ""  # a regex for the *whole* name; the model, when present, in group "model"


AGENTS: tuple[Agent, ...] = (
    Agent("Claude Code", ("noreply@anthropic.com", "claude-code@anthropic.com"),
          ("+claude[bot]@users.noreply.github.com",),
          r"claude(?: code)?|claude (?P<model>(?:opus|sonnet|haiku|fable)\b.*|\d.*)|claude\[bot\]"),
    Agent("GitHub Copilot", ("copilot@github.com",), ("+copilot@users.noreply.github.com",),
          r"(?:github )?copilot(?: autofix powered by ai)?|copilot-swe-agent\[bot\]"),
    Agent("OpenAI Codex", ("noreply@openai.com", "codex@openai.com"),
          ("+chatgpt-codex-connector[bot]@users.noreply.github.com", "+codex@users.noreply.github.com"),
          r"(?:openai )?codex(?: cli)?(?: \((?P<model>[^)]*)\))?|chatgpt-codex-connector\[bot\]"),
    Agent("Cursor", ("cursoragent@cursor.com",), (), r"cursor(?: agent)?"),
    Agent("Aider", ("aider@aider.chat", "noreply@aider.chat", "noreply@aider.dev"), (),
          r"aider \((?P<model>[^)]*)\)"),
    Agent("Devin", (), ("+devin-ai-integration[bot]@users.noreply.github.com",),
          r"devin(?:-ai-integration\[bot\])?"),
    Agent("Jules", (), ("+google-labs-jules[bot]@users.noreply.github.com",), r"google-labs-jules\[bot\]"),
    Agent("Amazon Q Developer", (), ("+amazon-q-developer[bot]@users.noreply.github.com",),
          r"amazon-q-developer\[bot\]"),
    Agent("Gemini Code Assist", (), ("+gemini-code-assist[bot]@users.noreply.github.com",),
          r"gemini-code-assist\[bot\]"),
    Agent("Amp", ("amp@ampcode.com",), (), r"amp"),
    Agent("OpenCode", ("noreply@opencode.ai",), (), r"opencode"),
    Agent("Windsurf", ("noreply@windsurf.com", "noreply@codeium.com"), (), r"windsurf|codeium"),
    Agent("Factory Droid", (), ("+factory-droid[bot]@users.noreply.github.com",), r"factory-droid\[bot\]"),
    Agent("Qwen Code", ("qwen-coder@alibabacloud.com",), (), r"qwen-coder"),
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
    (r"claude\s*code|claude", "Claude Code"),
    (r"chatgpt|gpt-?\d|openai", "ChatGPT"),
    (r"gemini", "Gemini"),
    (r"deepseek", "DeepSeek"),
    (r"mistral|codestral", "Mistral"),
    (r"llm|large language model|chatbot", "an LLM (unnamed)"),
)

NEGATIVE_VALUES = {"none", "n/a", "na", "no", "-", "false", "not used", "nothing", "no ai", "0"}

MAX_IDENTITY = 320
_IDENT = re.compile(r"^\s*(?P<name>.*?)\s*<(?P<email>[^<>]*)>\s*$")


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
    match = re.fullmatch(agent.names, name.strip(), re.I)
    if match and "model" in match.groupdict() and match["model"]:
        return match["model"].strip()
    return None


# One name per tool, whatever the source calls it (git-ai's agent ids, trailers, notes).
ALIASES = {
    "claude": "Claude Code", "claude code": "Claude Code", "claude-code": "Claude Code", "claude_code": "Claude Code",
    "copilot": "GitHub Copilot", "github copilot": "GitHub Copilot", "copilot chat": "GitHub Copilot",
    "copilot-agent": "GitHub Copilot", "github-copilot": "GitHub Copilot",
    "cursor": "Cursor", "cursor agent": "Cursor", "cursor-agent": "Cursor",
    "codex": "OpenAI Codex", "openai codex": "OpenAI Codex", "codex cli": "OpenAI Codex", "codex-cli": "OpenAI Codex",
    "devin": "Devin", "firebender": "Firebender", "droid": "Factory Droid", "factory droid": "Factory Droid",
    "factory-droid": "Factory Droid", "gemini": "Gemini", "gemini cli": "Gemini CLI", "gemini-cli": "Gemini CLI",
    "aider": "Aider", "windsurf": "Windsurf", "amp": "Amp", "opencode": "OpenCode", "continue": "Continue",
    "junie": "Junie", "qwen": "Qwen Code", "qwen code": "Qwen Code", "pi": "Pi",
}
# Test doubles that tools use in their own test suites: not assistants (git-ai's `mock_ai`).
TEST_AGENTS = {"mock_ai", "mock-ai", "mock", "test_agent", "test-agent", "fake_ai", "fake-ai"}


def canonical_tool(name: str) -> str | None:
    """The one name for a tool as a source spells it; unknown tools as written (never dropped);
    None for a test agent, which is not an assistant."""
    key = " ".join(name.strip().lower().split())
    if key in TEST_AGENTS:
        return None
    return ALIASES.get(key) or ALIASES.get(key.replace("_", " ")) or name.strip()


def tool_in_text(value: str) -> str | None:
    """The assistant a free-text value names, or None."""
    for pattern, tool in _TOOL_WORDS:
        if re.search(rf"(?<![A-Za-z]){pattern}(?![A-Za-z])", value, re.I):
            return tool
    return None


def parse_agent_value(value: str) -> tuple[str, str | None] | None:
    """Split an Assisted-by/Generated-by value into (tool, model); None when it names no assistant.

    Shapes: ``Claude:claude-3-opus coccinelle sparse`` (kernel), ``LLM coccinelle sparse``,
    ``Claude Code (claude-opus-5)``, ``claude-code/claude-fable-5``, ``Name <email>``.
    """
    text = value.strip()
    ident = _IDENT.match(text)
    if ident:
        found = match_identity(ident["name"], ident["email"])
        if found:
            return found[0].tool, found[1]
        text = ident["name"]
    model: str | None = None
    kernel = re.match(r"^(?P<agent>[^:\s][^:]*?):(?P<model>\S+)", text)
    paren = re.match(r"^(?P<agent>[^()]+?)\s*\((?P<model>[^)]*)\)", text)
    slash = re.match(r"^(?P<agent>[\w.-]+)/(?P<model>[\w.:-]+)", text)
    for shape in (kernel, paren, slash):
        if shape:
            model = shape["model"].strip() or None
            text_agent = shape["agent"].strip()
            tool = tool_in_text(text_agent) or tool_in_text(text)
            if tool:
                return _refine(tool, text_agent), model
    if re.match(r"^llm\b", text, re.I):
        return "an LLM (unnamed)", None
    tool = tool_in_text(text)
    return (_refine(tool, text), model) if tool else None


def _refine(tool: str, text: str) -> str:
    """"GitHub Copilot:Claude Opus 4.6" names Copilot as the tool and Claude as the model."""
    lowered = text.lower()
    if "copilot" in lowered:
        return "GitHub Copilot"
    if "codex" in lowered:
        return "OpenAI Codex"
    if "cursor" in lowered:
        return "Cursor"
    return tool
