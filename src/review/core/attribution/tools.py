"""Assistants by identity and by name: the known agents' addresses and names, the words that name a
tool in free text, model names, and who a name in an explicit disclosure form is — a tool (known or
not) or a person — decided by its shape. Pure.

The known list is for aliases (one name per tool) and for unstructured markers (a tool mentioned in
a sentence). A name in an explicit disclosure form (a trailer's value, a git-ai author, "X wrote
checkout.mjs") is that tool whether the list knows it or not, unless its shape is a person's.
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
    Agent("Claude Code", ("noreply@anthropic.com", "claude-code@anthropic.com"),
          ("+claude[bot]@users.noreply.github.com",),
          r"claude(?: code)?|claude (?P<model>(?:opus|sonnet|haiku|fable)\b.*|\d.*)|claude\[bot\]"),
    Agent("GitHub Copilot", ("copilot@github.com",), ("+copilot@users.noreply.github.com",),
          r"(?:github )?copilot(?: autofix powered by ai)?|copilot-swe-agent\[bot\]"),
    Agent("OpenAI Codex", ("noreply@openai.com", "codex@openai.com"),
          ("+chatgpt-codex-connector[bot]@users.noreply.github.com", "+codex@users.noreply.github.com"),
          r"(?:openai )?codex(?: cli)?(?: \((?P<model>[^)]*)\))?|chatgpt-codex-connector\[bot\]"),
    Agent("Cursor", ("cursoragent@cursor.com",), ("+cursor[bot]@users.noreply.github.com",), r"cursor(?: agent)?"),
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
    Agent("Factory Droid", (), ("+factory-droid[bot]@users.noreply.github.com",), r"factory-droid\[bot\]|droid"),
    Agent("Qwen Code", ("qwen-coder@alibabacloud.com",), (), r"qwen-coder"),
    Agent("Junie", ("junie@jetbrains.com",), ("+jetbrains-junie[bot]@users.noreply.github.com",),
          r"junie|jetbrains-junie\[bot\]"),
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
    "claude": "Claude Code", "claude code": "Claude Code", "claude-code": "Claude Code", "claude_code": "Claude Code",
    "copilot": "GitHub Copilot", "github copilot": "GitHub Copilot", "copilot chat": "GitHub Copilot",
    "copilot-agent": "GitHub Copilot", "github-copilot": "GitHub Copilot", "copilot cli": "GitHub Copilot",
    "github copilot cli": "GitHub Copilot", "copilot-cli": "GitHub Copilot",
    "cursor": "Cursor", "cursor agent": "Cursor", "cursor-agent": "Cursor",
    "codex": "OpenAI Codex", "openai codex": "OpenAI Codex", "codex cli": "OpenAI Codex", "codex-cli": "OpenAI Codex",
    "openai-codex": "OpenAI Codex", "openai codex cli": "OpenAI Codex",
    "devin": "Devin", "firebender": "Firebender", "droid": "Factory Droid", "factory droid": "Factory Droid",
    "factory-droid": "Factory Droid", "gemini": "Gemini", "gemini cli": "Gemini CLI", "gemini-cli": "Gemini CLI",
    "aider": "Aider", "windsurf": "Windsurf", "amp": "Amp", "opencode": "OpenCode", "continue": "Continue",
    "junie": "Junie", "qwen": "Qwen Code", "qwen code": "Qwen Code", "qwen-coder": "Qwen Code", "pi": "Pi",
    "chatgpt": "ChatGPT", "jules": "Jules", "tabnine": "Tabnine", "cline": "Cline", "roo code": "Roo Code",
    "kiro": "Amazon Q Developer", "amazon q": "Amazon Q Developer", "deepseek": "DeepSeek", "llm": "an LLM (unnamed)",
}
# Test doubles that tools use in their own test suites: not assistants (git-ai's `mock_ai`).
TEST_AGENTS = {"mock_ai", "mock-ai", "mock", "test_agent", "test-agent", "fake_ai", "fake-ai"}

# What a source says when it names no tool: an assistant all the same.
UNNAMED = ("an assistant (unnamed)", "an agent (unnamed)", "an LLM (unnamed)", "an agent (git-ai)",
           "an agent (Agent Trace)")
KNOWN_TOOLS = frozenset({agent.tool for agent in AGENTS} | set(ALIASES.values()) |
                        {tool for _, tool in _TOOL_WORDS} | set(UNNAMED) | {"Replit Agent", "Gemini CLI"})


def canonical_tool(name: str) -> str | None:
    """The one name for a tool as a source spells it; unknown tools as written (sanitised, never
    dropped); None for a test agent, which is not an assistant."""
    key = " ".join(name.strip().lower().split())
    if key in TEST_AGENTS:
        return None
    return ALIASES.get(key) or ALIASES.get(key.replace("_", " ")) or ALIASES.get(_unversioned(key)) or \
        written_name(name)


# A version glued to a tool's name: "ChatGPTv5", "Cursor 1.7", "OpenCode v1.0.203".
_VERSION = re.compile(r"[\s-]?v?\d{1,9}(?:\.\d{1,9}){0,3}$")


def _unversioned(key: str) -> str:
    # Only names short enough to be one (the pattern, searched from every digit, is not linear).
    return _VERSION.sub("", key) if len(key) <= MAX_NAME else key


def written_name(name: str) -> str:
    """A name as the candidate wrote it, made safe to keep: controls and invisible characters
    visible, whitespace collapsed, cut at MAX_NAME characters (saying so)."""
    text = " ".join(visible(name[:4 * MAX_NAME]).split())
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
    r"(?:opus|sonnet|haiku)-?\d[\w.-]*|gemini-[\w.-]+|codex-[\w.-]+|(?:code)?llama-?\d[\w.-]*|deepseek-[\w.-]+|"
    r"qwen\d?-[\w.-]+|(?:mistral|codestral|devstral|mixtral)-[\w.-]+|grok-\d[\w.-]*|kimi-[\w.-]+|glm-\d[\w.-]*|"
    r"command-r[\w.-]*|phi-\d[\w.-]*)", re.I)


def is_model_name(name: str) -> bool:
    text = name.strip()
    return len(text) <= 80 and _MODEL.fullmatch(text) is not None


# --------------------------------------------------------------------------- who a name is

_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "du", "le", "la", "del", "della", "bin", "al", "ibn",
              "dos", "das", "y", "ter", "ten"}
# Words no person's name holds, though a tool's may: they keep "Cursor Agent" or "Claude Sonnet" a tool.
_TOOLISH = {"agent", "bot", "ai", "code", "assistant", "copilot", "model", "llm", "gpt", "chat", "coder", "cli",
            "opus", "sonnet", "haiku", "pilot", "autopilot", "studio", "ide", "cloud", "labs", "app"}
# Tool words that are also given names: "Claude Martin" and "Devin Smith" are people.
_GIVEN_NAMES = {"claude", "devin", "jules", "junie", "amp", "pi"}
_PERSON_WORDS = re.compile(r"^(?:me|i|myself|we|us|ourselves|mine|the candidate|the author|human|a human|by hand|"
                           r"hand[- ]written|handwritten|manual(?:ly)?|myself, by hand)$", re.I)
# A part of a name: a capital or lower-case letter, then lower-case letters ("Satiro", "Müller");
# "McDonald" and "O'Neil" by their prefix; an initial ("J.").
_NAME_PART = re.compile(r"(?:Mc|Mac)?[^\W\d_][^\W\d_A-Z]*|[A-Z]")
_PRODUCT_PART = re.compile(r"[A-Za-z0-9]+")

# Local parts of addresses people do not write from: a vendor's service address.
_SERVICE_LOCAL = {"noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "help", "support", "bot",
                  "agent", "ai", "assistant", "bots", "automation"}
# Known vendors' domains: a tool's own name at its vendor ("Gemini <gemini@google.com>").
_VENDOR_DOMAINS = {"anthropic.com", "openai.com", "google.com", "github.com", "cursor.com", "cursor.sh",
                   "jetbrains.com", "aider.chat", "aider.dev", "ampcode.com", "opencode.ai", "windsurf.com",
                   "codeium.com", "devin.ai", "cognition.ai", "factory.ai", "alibabacloud.com", "firebender.com",
                   "amazon.com", "tabnine.com", "sourcegraph.com", "replit.com", "deepseek.com", "mistral.ai"}


# Automation that commits but writes no code of its own invention: dependency updates, CI fixes,
# translations, formatting. Their service addresses name no assistant.
_AUTOMATION = re.compile(r"dependabot|renovate|github-actions|pre-commit-ci|snyk|greenkeeper|imgbot|all-?contributors|"
                         r"semantic-release|release-please|mergify|codecov|weblate|crowdin|transifex|autofix-ci|"
                         r"restyled|pyup|whitesource|depfu|kodiakhq|netlify|sonarcloud|deepsource|changeset|"
                         r"github-merge-queue|gitlab-bot|web-flow", re.I)
_AI_HINT = re.compile(r"(?<![a-z])(?:ai|agent|llm|gpt|assistant|coder|copilot)(?![a-z])|ai(?=\[bot\]|$)", re.I)


def _service_tool(name: str, email: str) -> Who:
    """A name at a vendor's service address: that tool — unless it is automation, or a bot account
    with no sign of an assistant in its name."""
    if _AUTOMATION.search(name) or _AUTOMATION.search(email):
        return Who("unclear", reason="an automation bot, not an assistant")
    if "[bot]" in email.lower() and not (_AI_HINT.search(name) or _AI_HINT.search(email) or tool_in_text(name)):
        return Who("unclear", reason="a bot account with no sign of an assistant")
    tool, model = _tool_and_model(name)
    return Who("tool", tool, model)


@dataclass(frozen=True)
class Who:
    """Who a name in a disclosure form is."""

    # tool | person | none (a declaration of no assistant) | unclear
    kind: str
    tool: str | None = None
    model: str | None = None
    # for a person, none or unclear: why it is not a tool
    reason: str = ""

    @property
    def known(self) -> bool:
        return self.tool is None or is_known_tool(self.tool) or is_model_name(self.tool)


def is_service_address(email: str) -> bool:
    """A vendor's noreply, help or bot address (never GitHub's own web-flow committer, nor a
    person's GitHub noreply address)."""
    email = email.strip().lower()
    local, at, domain = email.rpartition("@")
    if not at:
        return False
    if local.endswith("[bot]") or "[bot]" in local:
        return True
    if domain == "github.com" and local == "noreply":
        # "GitHub <noreply@github.com>" commits what people did on the website
        return False
    if domain == "users.noreply.github.com":
        # a person's own GitHub address (bots are caught above)
        return False
    return local in _SERVICE_LOCAL


def _vendor_own_name(name: str, email: str) -> bool:
    """`Gemini <gemini@google.com>`, `Junie <junie@jetbrains.com>`: a tool's name at its vendor."""
    local, _, domain = email.strip().lower().rpartition("@")
    key = " ".join(name.lower().split())
    return domain in _VENDOR_DOMAINS and key in ALIASES and local.replace(".", " ").replace("-", " ") in (
        key, key.replace(" ", ""), key.replace(" ", "-"))


def person_shaped(name: str) -> bool:
    """A personal name as people write theirs: one to four words, each capitalised like a name
    ("Jay Satiro", "Mary-Jane O'Neil", "Ann McDonald", "Finn Müller"), none a word of a tool's name."""
    words = name.replace(",", " ").split()
    if not 1 <= len(words) <= 4:
        return False
    lowered = [w.lower().strip(".") for w in words]
    if any(w in _TOOLISH for w in lowered):
        return False
    if any(tool_in_text(w) and w not in _GIVEN_NAMES for w in lowered):
        return False
    if not any(w[0].isupper() for w in words):
        return False
    return all(w.lower() in _PARTICLES or _name_word(w) for w in words)


def _name_word(word: str) -> bool:
    parts = re.split(r"[-'’]", word[:-1] if word.endswith(".") else word)
    return all(_NAME_PART.fullmatch(part) for part in parts)


def product_shaped(name: str) -> bool:
    """A single token as products are named: an inner capital (MonkeyCode), a digit (ChatGPTv5), a
    separator (gpt-4o, cursor-agent), or all capitals (GPT)."""
    token = name.strip()
    if " " in token or len(token) > MAX_NAME or not token[:1].isascii() or not token[:1].isalpha():
        return False
    if not all(_PRODUCT_PART.fullmatch(part) for part in re.split(r"[-_.+]", token)):
        return False
    inner_capital = any(c.isupper() for c in token[1:]) and any(c.islower() for c in token)
    return inner_capital or any(c.isdigit() for c in token) or any(c in "-_.+" for c in token) or \
        (token.isupper() and len(token) >= 3)


def who_is(value: str, *, ai_key: bool = False) -> Who:
    """Who a name in an explicit disclosure form is — a trailer's value, a git-ai author, the
    subject of "X wrote …" — decided by its shape: a personal name (with a personal address) is a
    person; a known tool, a model, a vendor's service address, a tool-shaped value (``A:model``,
    ``A (model)``, ``a/model``) or a single product-like token is a tool, known or not.

    `ai_key`: the form itself declares AI help (Generated-by, AI-assistant): a value naming no
    tool is still an assistant, unnamed.
    """
    text = " ".join(value.split()).strip(" .;,")
    lowered = text.lower()
    if not text:
        return Who("unclear", reason="empty")
    if lowered in NEGATIVE_VALUES or lowered.startswith(("none", "no ", "not used")):
        return Who("none", reason="declares no assistant")
    if len(text) > 4 * MAX_NAME:
        return Who("unclear", reason=f"too long for a name ({len(text)} characters)")
    if lowered in TEST_AGENTS:
        return Who("unclear", reason="a tool's test double, not an assistant")
    ident = _IDENT.match(text)
    if ident:
        name, email = ident["name"].strip(" \"'"), ident["email"].strip()
        found = match_identity(name, email)
        if found:
            return Who("tool", found[0].tool, found[1])
        if email.lower() == "noreply@github.com":
            return Who("unclear", reason="GitHub's own web committer, not an assistant")
        if name and (is_service_address(email) or _vendor_own_name(name, email)):
            return _service_tool(name, email)
        if not (is_model_name(name) or _tool_shaped(name)):
            # A personal address: a person, whether the name is theirs or their handle ("jdoe42").
            return Who("person", reason="a person's name and address, not an assistant's")
        text, lowered = name, name.lower()
    if _PERSON_WORDS.match(lowered):
        return Who("person", reason="the candidate")
    if lowered in ALIASES or _unversioned(lowered) in ALIASES:
        return Who("tool", canonical_tool(text))
    if lowered.startswith("llm ") or lowered == "llm":
        return Who("tool", "an LLM (unnamed)")
    shaped = _tool_shaped(text)
    if shaped:
        return Who("tool", *shaped)
    if is_model_name(text):
        return Who("tool", tool_in_text(text) or written_name(text), text)
    if person_shaped(text):
        return Who("person", reason="a name as people are named, not an assistant's")
    named = tool_in_text(text)
    if named:
        return Who("tool", named, _model_in(text))
    if product_shaped(text):
        return Who("tool", canonical_tool(text))
    if ai_key:
        return Who("tool", "an assistant (unnamed)")
    return Who("unclear", reason="names no assistant")


# Claude:claude-3-opus coccinelle
_KERNEL = re.compile(r"^(?P<agent>[^:\s][^:]{0,60}?):(?P<model>\S{1,80})")
# Claude Code (claude-opus-5)
_PAREN = re.compile(r"^(?P<agent>[^()]{1,60}?)\s*\((?P<model>[^()]{0,80})\)")
# claude-code/claude-fable-5
_SLASH = re.compile(r"^(?P<agent>[\w.-]{1,60})\s?/\s?(?P<model>[\w.:-]{1,80})")


def _tool_shaped(text: str) -> tuple[str, str | None] | None:
    """`AGENT:MODEL`, `AGENT (MODEL)`, `agent/model` → (tool, model), the agent known or not."""
    for shape in (_KERNEL, _PAREN, _SLASH):
        match = shape.match(text)
        if not match:
            continue
        agent, model = match["agent"].strip(), match["model"].strip() or None
        if shape is _KERNEL and (agent.lower() in ("http", "https", "mailto") or
                                 (person_shaped(agent) and not (model and is_model_name(model)))):
            # a link, or "Jane Doe:reviewer"
            continue
        if shape is _PAREN and not (model and (is_model_name(model) or tool_in_text(model) or
                                               any(c.isdigit() for c in model))):
            # "Jane Doe (reviewer)": a remark, not a model
            continue
        if shape is _SLASH and not ((model and is_model_name(model)) or tool_in_text(agent) or agent.lower() in ALIASES):
            # "and/or", "client/server"
            continue
        return _tool_and_model(agent, model)
    return None


def _tool_and_model(name: str, model: str | None = None) -> tuple[str, str | None]:
    """A tool's name → its one name and the model it carries ("Claude Opus 4.5" → Claude Code, Opus 4.5)."""
    name = name.strip()
    lowered = name.lower()
    if lowered in ALIASES or _unversioned(lowered) in ALIASES:
        return canonical_tool(name) or written_name(name), model
    match = _PAREN.match(name)
    if match and model is None:
        return _tool_and_model(match["agent"], match["model"].strip() or None)
    found = match_identity(name, "")
    if found:
        return found[0].tool, model or found[1]
    named = tool_in_text(name)
    if named:
        return _refine(named, name), model or _model_in(name)
    return canonical_tool(name) or written_name(name), model


def _model_in(text: str) -> str | None:
    match = re.search(r"\((?P<model>[^()]{1,80})\)", text)
    return match["model"].strip() if match else None


def parse_agent_value(value: str) -> tuple[str, str | None] | None:
    """Split an Assisted-by/Generated-by value into (tool, model); None when it names no tool.

    Shapes: ``Claude:claude-3-opus coccinelle sparse`` (kernel), ``LLM coccinelle sparse``,
    ``Claude Code (claude-opus-5)``, ``claude-code/claude-fable-5``, ``Name <email>``.
    """
    who = who_is(value)
    return (who.tool, who.model) if who.kind == "tool" and who.tool else None


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
