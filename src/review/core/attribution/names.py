"""Who a name is, by its shape: a tool (known to the console or not) or a person. Pure.

A name in an explicit disclosure form — a trailer's value, a git-ai author, the subject of "X wrote
…" — is that tool whether the console knows it or not, unless its shape is a person's: a personal
name, or any name at a personal address (curl's "Assisted-by: Jane Doe <jane@example.org>").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from review.core.attribution.tools import (
    ALIASES,
    GIVEN_NAMES,
    IDENTITY,
    MAX_NAME,
    NEGATIVE_VALUES,
    TEST_AGENTS,
    VENDOR_DOMAINS,
    canonical_tool,
    is_known,
    is_model_name,
    match_identity,
    tool_in_text,
    unversioned,
    written_name,
)

_PARTICLES = frozenset("van von de der den da di du le la del della bin al ibn dos das y ter ten".split())
# Words no person's name holds, though a tool's may: they keep "Cursor Agent" or "Claude Sonnet" a tool.
_TOOLISH = frozenset(
    "agent bot ai code assistant copilot model llm gpt chat coder cli opus sonnet haiku pilot autopilot studio ide "
    "cloud labs app".split()
)
_PERSON_WORDS = re.compile(
    r"^(?:me|i|myself|we|us|ourselves|mine|the candidate|the author|human|a human|by hand|"
    r"hand[- ]written|handwritten|manual(?:ly)?|myself, by hand)$",
    re.I,
)
# A part of a name: a capital or lower-case letter, then lower-case letters ("Satiro", "Müller");
# "McDonald" and "O'Neil" by their prefix; an initial ("J.").
_NAME_PART = re.compile(r"(?:Mc|Mac)?[^\W\d_][^\W\d_A-Z]*|[A-Z]")
_PRODUCT_PART = re.compile(r"[A-Za-z0-9]+")
# Where a remark after a name starts: "Claude Martin (my pair partner)", "Devin Smith, a colleague".
_REMARK = re.compile(r"\s*[(,—–]")

# Local parts of addresses people do not write from: a vendor's service address.
_SERVICE_LOCAL = frozenset(
    "noreply no-reply no_reply donotreply do-not-reply help support bot agent ai assistant bots automation".split()
)

# Automation that commits but writes no code of its own invention: dependency updates, CI fixes,
# translations, formatting. Their service addresses name no assistant.
_AUTOMATION = re.compile(
    r"dependabot|renovate|github-actions|pre-commit-ci|snyk|greenkeeper|imgbot|all-?contributors|"
    r"semantic-release|release-please|mergify|codecov|weblate|crowdin|transifex|autofix-ci|"
    r"restyled|pyup|whitesource|depfu|kodiakhq|netlify|sonarcloud|deepsource|changeset|"
    r"github-merge-queue|gitlab-bot|web-flow",
    re.I,
)
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
        return self.tool is None or is_known(self.tool)


def is_service_address(email: str) -> bool:
    """A vendor's noreply, help or bot address (never GitHub's own web-flow committer, nor a
    person's GitHub noreply address)."""
    email = email.strip().lower()
    local, at, domain = email.rpartition("@")
    if not at:
        return False
    if "[bot]" in local:
        return True
    # "GitHub <noreply@github.com>" commits what people did on the website; an address at
    # users.noreply.github.com is a person's own (bots are caught above)
    github = domain == "users.noreply.github.com" or (domain, local) == ("github.com", "noreply")
    return not github and local in _SERVICE_LOCAL


def _vendor_own_name(name: str, email: str) -> bool:
    """`Gemini <gemini@google.com>`, `Junie <junie@jetbrains.com>`: a tool's name at its vendor."""
    local, _, domain = email.strip().lower().rpartition("@")
    key = " ".join(name.lower().split())
    return domain in VENDOR_DOMAINS and key in ALIASES and re.sub(r"[\s._-]", "", local) == re.sub(r"[\s._-]", "", key)


def person_shaped(name: str) -> bool:
    """A personal name as people write theirs: one to four words, each capitalised like a name
    ("Jay Satiro", "Mary-Jane O'Neil", "Ann McDonald", "Finn Müller"), none a word of a tool's name."""
    words = name.replace(",", " ").split()
    if not 1 <= len(words) <= 4:
        return False
    lowered = [w.lower().strip(".") for w in words]
    if any(w in _TOOLISH or (tool_in_text(w) and w not in GIVEN_NAMES) for w in lowered):
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
    return (
        inner_capital
        or any(c.isdigit() for c in token)
        or any(c in "-_.+" for c in token)
        or (token.isupper() and len(token) >= 3)
    )


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
    ident = IDENTITY.match(text)
    if ident:
        name, email = ident["name"].strip(" \"'"), ident["email"].strip()
        found = match_identity(name, email)
        if found:
            return Who("tool", found[0].name, found[1])
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
    if lowered in ALIASES or unversioned(lowered) in ALIASES:
        return Who("tool", canonical_tool(text))
    if lowered.startswith("llm ") or lowered == "llm":
        return Who("tool", "an LLM (unnamed)")
    shaped = _tool_shaped(text)
    if shaped:
        return Who("tool", *shaped)
    if is_model_name(text):
        return Who("tool", tool_in_text(text) or written_name(text), text)
    head = _REMARK.split(text, maxsplit=1)[0]
    # "Claude Martin (my pair partner)", "Devin Smith, a colleague": a person's full name, then a remark
    remark = head != text and len(head.split()) >= 2 and person_shaped(head) and not tool_in_text(text[len(head) :])
    if person_shaped(text) or remark:
        return Who("person", reason="a name as people are named, not an assistant's")
    named = tool_in_text(text)
    if named:
        return Who("tool", named, _model_in(text))
    if product_shaped(text) or _named_ai(text, ai_key):
        # A product's token, or "Zed AI", "Acme Agent": a product's name said to be AI, known or not, is that tool.
        return Who("tool", canonical_tool(text))
    if ai_key:
        return Who("tool", "an assistant (unnamed)")
    return Who("unclear", reason="names no assistant")


# Words that say a name is an AI product's ("Zed AI", "Acme Agent").
_AI_WORDS = {"ai", "agent", "assistant", "llm", "copilot", "bot"}
_NOT_A_NAME = {"yes", "true", "unknown", "various", "some", "several", "misc", "other", "partial", "partially"}


def _named_ai(text: str, ai_key: bool) -> bool:
    """A short name with a capitalised word of its own: under a key that declares AI help any such
    name, elsewhere only one that says it is AI (a person's name never carries those words)."""
    words = text.split()
    if not 1 <= len(words) <= 5 or any(w.lower() in _NOT_A_NAME for w in words):
        return False
    own = [w for w in words if w.lower() not in _TOOLISH]
    if not own or not all(_PRODUCT_PART.fullmatch(part) for w in words for part in re.split(r"[-_.+']", w) if part):
        return False
    return any(w[0].isupper() for w in own) and (ai_key or any(w.lower() in _AI_WORDS for w in words))


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
        modelled = model is not None and is_model_name(model)
        if shape is _KERNEL:  # not a link, nor "Jane Doe:reviewer"
            shaped = agent.lower() not in ("http", "https", "mailto") and (modelled or not person_shaped(agent))
        elif shape is _PAREN:  # not "Jane Doe (reviewer)": a remark, not a model
            shaped = modelled or bool(model and (tool_in_text(model) or any(c.isdigit() for c in model)))
        else:  # not "and/or", "client/server"
            shaped = modelled or bool(tool_in_text(agent)) or agent.lower() in ALIASES
        if shaped:
            return _tool_and_model(agent, model)
    return None


def _tool_and_model(name: str, model: str | None = None) -> tuple[str, str | None]:
    """A tool's name → its one name and the model it carries ("Claude Opus 4.5" → Claude Code, Opus 4.5)."""
    name = name.strip()
    lowered = name.lower()
    if lowered in ALIASES or unversioned(lowered) in ALIASES:
        return canonical_tool(name) or written_name(name), model
    match = _PAREN.match(name)
    if match and model is None:
        return _tool_and_model(match["agent"], match["model"].strip() or None)
    found = match_identity(name, "")
    if found:
        return found[0].name, model or found[1]
    named = tool_in_text(name)
    if named:
        return named, model or _model_in(name)
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
