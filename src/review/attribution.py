"""Which assistant wrote what: commit metadata → attribution signals. Pure, no I/O.

The formats and their pitfalls are in ``shared/reference/attribution-formats.md``:
trailer keys are case-insensitive and may sit anywhere in the body; identity is matched on
the email first, then on the name; a person named Claude is not an AI, and curl uses
``Assisted-by:`` for human helpers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --------------------------------------------------------------------------- known identities


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
    (r"claude\s*code|claude", "Claude Code"),
    (r"copilot", "GitHub Copilot"),
    (r"codex", "OpenAI Codex"),
    (r"chatgpt|gpt-?\d|openai", "ChatGPT"),
    (r"cursor", "Cursor"),
    (r"aider", "Aider"),
    (r"gemini", "Gemini"),
    (r"devin", "Devin"),
    (r"windsurf|codeium", "Windsurf"),
    (r"opencode", "OpenCode"),
    (r"qwen", "Qwen Code"),
    (r"jules", "Jules"),
    (r"amazon\s*q|kiro", "Amazon Q Developer"),
    (r"tabnine", "Tabnine"),
    (r"deepseek", "DeepSeek"),
    (r"mistral|codestral", "Mistral"),
    (r"llm|large language model|chatbot", "an LLM (unnamed)"),
)

NEGATIVE_VALUES = {"none", "n/a", "na", "no", "-", "false", "not used", "nothing", "no ai", "0"}

# Trailer keys whose presence alone says an assistant was involved, with the tool when it is implied.
SESSION_TRAILERS: dict[str, str | None] = {
    "claude-session": "Claude Code",
    "codex-session": "OpenAI Codex",
    "cursor-session": "Cursor",
    "agent-logs-url": "GitHub Copilot",
    "amp-thread-id": "Amp",
    "entire-checkpoint": None,
    "replit-commit-author": "Replit Agent",
}

# Trailer keys that declare AI help; the value names the tool. Assisted-by is special: curl and
# others use it for humans, so its value must name a known assistant to count.
AI_VALUE_KEYS = {
    "generated-by", "ai-used-for", "co-authored-by-ai", "ai-assisted-by", "ai-generated-by",
    "llm-assisted-by", "assisted-by-ai", "co-developed-by-ai", "ai-assistant", "ai-tool", "coding-agent",
    "ai-generated", "ai-assisted", "ai-agent", "commit-generated-by",
}

_TRAILER = re.compile(r"^(?P<key>[A-Za-z][A-Za-z0-9-]*)\s*:\s*(?P<value>.*\S)\s*$")
_IDENT = re.compile(r"^\s*(?P<name>.*?)\s*<(?P<email>[^<>]*)>\s*$")
_GENERATED_WITH = re.compile(r"generated with \[?(?P<tool>claude code|devin|opencode|cursor|codex)\]?", re.I)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Signal:
    """One piece of evidence that an assistant wrote (part of) a commit."""

    tool: str
    model: str | None
    source: str  # e.g. "Co-authored-by trailer", "author identity", "aider: subject prefix"
    evidence: str  # the raw line it came from (untrusted: sanitise before display)
    commit: str = ""


@dataclass(frozen=True)
class Rejected:
    """A line that looked like attribution but is not, and why (shown, never dropped)."""

    evidence: str
    reason: str
    commit: str = ""


@dataclass
class CommitAttribution:
    commit: str
    signals: list[Signal] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)

    @property
    def tools(self) -> list[str]:
        return sorted({s.tool for s in self.signals})

    @property
    def is_ai(self) -> bool:
        return bool(self.signals)


# --------------------------------------------------------------------------- matching


def match_identity(name: str, email: str) -> tuple[Agent, str | None] | None:
    """The agent a name/email pair belongs to: email first, then the whole name."""
    email_l = email.strip().lower()
    for agent in AGENTS:
        if email_l and (email_l in agent.emails or any(email_l.endswith(s) for s in agent.email_suffixes)):
            return agent, _model_from_name(agent, name)
    name_s = name.strip()
    for agent in AGENTS:
        if agent.names and re.fullmatch(agent.names, name_s, re.I):
            if email_l and not _email_could_be_bot(email_l):
                # "Claude <claude@example.com>": a name alone is weak next to a personal address.
                return None
            return agent, _model_from_name(agent, name)
    return None


def _email_could_be_bot(email: str) -> bool:
    return "noreply" in email or "no-reply" in email or email.endswith("[bot]") or "[bot]@" in email


def _model_from_name(agent: Agent, name: str) -> str | None:
    if not agent.names:
        return None
    match = re.fullmatch(agent.names, name.strip(), re.I)
    if match and "model" in match.groupdict() and match["model"]:
        return match["model"].strip()
    return None


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


def trailers(message: str) -> list[tuple[str, str, str]]:
    """(lower-case key, value, raw line) for every trailer-shaped line after the subject."""
    found = []
    for line in message.splitlines()[1:]:
        match = _TRAILER.match(line.strip().lstrip("*-").strip())
        if match:
            found.append((match["key"].lower(), match["value"], line.strip()))
    return found


def commit_signals(sha: str, message: str, author: tuple[str, str], committer: tuple[str, str]) -> CommitAttribution:
    """Every attribution signal in one commit's metadata, with what was considered and rejected."""
    result = CommitAttribution(sha)

    def add(tool: str, model: str | None, source: str, evidence: str) -> None:
        result.signals.append(Signal(tool, model, source, evidence, sha))

    for role, (name, email) in (("author", author), ("committer", committer)):
        found = match_identity(name, email)
        if found:
            add(found[0].tool, found[1], f"{role} identity", f"{name} <{email}>")
        elif re.search(r"\s\(aider\)$", name):
            add("Aider", None, f"{role} name suffix (aider)", f"{name} <{email}>")

    subject = message.split("\n", 1)[0]
    if re.match(r"^\s*aider:\s", subject, re.I):
        add("Aider", None, "aider: subject prefix", subject)

    for line in message.splitlines()[1:]:
        match = _GENERATED_WITH.search(line)
        if match:
            tool = {"claude code": "Claude Code", "devin": "Devin", "opencode": "OpenCode",
                    "cursor": "Cursor", "codex": "OpenAI Codex"}[match["tool"].lower()]
            add(tool, None, "Generated with line", line.strip())

    for key, value, raw in trailers(message):
        lowered = value.strip().lower()
        if key == "co-authored-by":
            ident = _IDENT.match(value)
            if not ident:
                continue
            found = match_identity(ident["name"], ident["email"])
            if found:
                add(found[0].tool, found[1], "Co-authored-by trailer", raw)
            elif tool_in_text(ident["name"]):
                result.rejected.append(Rejected(raw, "a person's name and address, not a known assistant identity", sha))
        elif key == "made-with" and "cursor" in lowered:
            add("Cursor", None, "Made-with trailer", raw)
        elif key in SESSION_TRAILERS:
            add(SESSION_TRAILERS[key] or "an agent (unnamed)", None, f"{key} session trailer", raw)
        elif key in ("assisted-by", "generated-by") or key in AI_VALUE_KEYS:
            if lowered in NEGATIVE_VALUES or lowered.startswith(("none", "no ")):
                result.rejected.append(Rejected(raw, "declares no assistant", sha))
                continue
            if key in ("ai-assisted", "ai-generated") and lowered in ("true", "yes"):
                add("an assistant (unnamed)", None, f"{key} trailer", raw)
                continue
            parsed = parse_agent_value(value)
            if parsed:
                add(parsed[0], parsed[1], f"{raw.split(':', 1)[0]} trailer", raw)
            elif key == "assisted-by":
                result.rejected.append(Rejected(raw, "names a person, not an assistant (as curl uses Assisted-by)", sha))
            else:
                # The key itself declares AI help; the value says what for, not which tool.
                add("an assistant (unnamed)", None, f"{raw.split(':', 1)[0]} trailer", raw)
    return result


def assistants(attributions: list[CommitAttribution]) -> list[str]:
    """The assistants named anywhere in a submission's commits, in a stable order."""
    return sorted({tool for attribution in attributions for tool in attribution.tools})
