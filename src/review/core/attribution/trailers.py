"""Commit metadata → attribution signals: trailers, author and committer identities, subject
prefixes, "Generated with" lines, with what was considered and rejected. Pure.

Each tool's format follows its own documentation, and its pitfalls: trailer keys are
case-insensitive and may sit anywhere in the body; identity is matched on the email first, then on
the name; a person named Claude is not an AI, and curl uses ``Assisted-by:`` for human helpers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from review.core.attribution.tools import _IDENT, NEGATIVE_VALUES, match_identity, parse_agent_value, tool_in_text

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


MAX_TRAILER_LINE = 1000  # a longer line is prose, never a trailer: regexes only ever see short lines


def trailers(message: str) -> list[tuple[str, str, str]]:
    """(lower-case key, value, raw line) for every trailer-shaped line after the subject."""
    found = []
    for line in message.splitlines()[1:]:
        if len(line) > MAX_TRAILER_LINE:
            continue
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
        if len(line) > MAX_TRAILER_LINE:
            continue
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
