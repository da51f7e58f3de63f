"""Which assistant wrote what: commit metadata → attribution signals. Pure, no I/O.

The formats and their pitfalls are in ``shared/reference/attribution-formats.md``:
trailer keys are case-insensitive and may sit anywhere in the body; identity is matched on
the email first, then on the name; a person named Claude is not an AI, and curl uses
``Assisted-by:`` for human helpers.
"""

from __future__ import annotations

import json
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


# =========================================================================== the note's disclosure

HUMAN = None  # a span's tool when a person wrote it

_HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<title>.+?)\s*#*\s*$")
_DISCLOSURE_TITLE = re.compile(r"disclos|\bai\b|assistant|\bllm\b|\btools?\b|\bmodels?\b|copilot|provenance", re.I)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_PATH = re.compile(r"^`?(?P<path>[\w.@+/-]*\w\.[A-Za-z0-9]{1,8})`?")
_RANGE_FORMS = (
    re.compile(r"^\s*:\s*L?(?P<a>\d+)(?:\s*(?:[-–—]|to)\s*L?(?P<b>\d+))?"),  # checkout.mjs:2-17, :L2-L17
    re.compile(r"^\s*,?\s+L(?P<a>\d+)(?:\s*[-–—]\s*L?(?P<b>\d+))?"),  # checkout.mjs L2-L17
    re.compile(r"^\s*,?\s*\(?\s*lines?\s+(?P<a>\d+)(?:\s*(?:[-–—]|to)\s*(?P<b>\d+))?\)?", re.I),  # lines 2–17
    re.compile(r"^\s*#L(?P<a>\d+)(?:-L(?P<b>\d+))?"),  # checkout.mjs#L2-L17 (GitHub links)
)
_WHOLE_FILE = re.compile(r"^\s*(?::\s*|\s+\(?|\s*—\s*)(?:all|whole(?: file)?|entire(?: file)?|everything|the whole thing)\)?",
                         re.I)
_COMMIT = re.compile(r"^commit\s+`?(?P<sha>[0-9a-fA-F]{6,40})`?", re.I)
_WHO = re.compile(r"^\s*(?:[—–=:]+>?|-{1,2}>?|\bby\b|\bfrom\b|\bwritten by\b)?\s*(?P<who>.*?)\s*$", re.I)
_HUMAN_WORDS = re.compile(r"\b(me|mine|myself|i|human|by hand|hand[- ]written|the candidate|author)\b", re.I)
_NONE = re.compile(
    r"^(?:ai(?: use)?:\s*)?(?:none|no|n/?a|nothing)\b|\bno (?:ai|assistants?|llms?|tools?|ai tools?)\b(?! other)|"
    r"\bdid(?: not|n't) use (?:any )?(?:ai|assistants?|llms?|tools|copilot|chatgpt)|\bwithout (?:any )?(?:ai|assistants?)|"
    r"\bwrote (?:this|it|everything|all of it) (?:myself|by hand)", re.I)


@dataclass
class NoteEntry:
    line_no: int  # 1-based line in the note
    raw: str
    kind: str  # range | file | commit | none | prose
    path: str | None = None
    start: int | None = None
    end: int | None = None
    commit: str | None = None
    who: str = ""
    tool: str | None = None  # None: a person (or, for prose and none lines, no mapping)


@dataclass
class NoteDisclosure:
    heading: str | None = None  # the section's heading as written; None when the note has none
    entries: list[NoteEntry] = field(default_factory=list)

    @property
    def declares_none(self) -> bool:
        return any(e.kind == "none" for e in self.entries) and not any(
            e.tool for e in self.entries if e.kind != "none")

    @property
    def tools(self) -> list[str]:
        named = {e.tool for e in self.entries if e.tool}
        named |= {t for e in self.entries if e.kind == "prose" for t in [tool_in_text(e.raw)] if t}
        return sorted(named)


def disclosure_section(note: str) -> tuple[str | None, list[tuple[int, str]]]:
    """The note's disclosure section: its heading and its (line number, line) pairs."""
    lines = note.splitlines()
    for index, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and _DISCLOSURE_TITLE.search(heading["title"]):
            level = len(heading["hashes"])
            body = []
            for offset, later in enumerate(lines[index + 1:], start=index + 2):
                nested = _HEADING.match(later)
                if nested and len(nested["hashes"]) <= level:
                    break
                body.append((offset, later))
            return heading["title"], body
    return None, []


def _who(text: str) -> tuple[str, str | None]:
    match = _WHO.match(text)
    who = match["who"].strip(" .;,") if match else text.strip(" .;,")
    tool = tool_in_text(who)
    if tool is None and not _HUMAN_WORDS.search(who) and who:
        return who, None  # another person, named: not an assistant
    return who, tool


def parse_note_line(line_no: int, raw: str) -> NoteEntry | None:
    text = _BULLET.sub("", raw).strip()
    if not text or set(text) <= set("-*_=`"):
        return None
    commit = _COMMIT.match(text)
    if commit:
        who, tool = _who(text[commit.end():])
        return NoteEntry(line_no, raw, "commit", commit=commit["sha"].lower(), who=who, tool=tool)
    path = _PATH.match(text)
    if path:
        rest = text[path.end():]
        for form in _RANGE_FORMS:
            match = form.match(rest)
            if match:
                start = int(match["a"])
                end = int(match["b"]) if match["b"] else start
                who, tool = _who(rest[match.end():])
                return NoteEntry(line_no, raw, "range", path=path["path"], start=min(start, end),
                                 end=max(start, end), who=who, tool=tool)
        whole = _WHOLE_FILE.match(rest)
        if whole:
            who, tool = _who(rest[whole.end():])
            return NoteEntry(line_no, raw, "file", path=path["path"], who=who, tool=tool)
    if _NONE.search(text) and not tool_in_text(text):
        return NoteEntry(line_no, raw, "none")
    return NoteEntry(line_no, raw, "prose", tool=None, who="")


def logical_lines(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Join wrapped prose: a bullet starts an entry, a blank line ends one, other lines continue it."""
    joined: list[tuple[int, str]] = []
    open_entry = False
    for line_no, raw in body:
        if not raw.strip():
            open_entry = False
            continue
        if open_entry and not _BULLET.match(raw) and not _PATH.match(raw.strip()) and not _COMMIT.match(raw.strip()):
            number, text = joined[-1]
            joined[-1] = (number, f"{text} {raw.strip()}")
        else:
            joined.append((line_no, raw))
        open_entry = True
    return joined


def parse_note(note: str) -> NoteDisclosure:
    heading, body = disclosure_section(note)
    result = NoteDisclosure(heading)
    for line_no, raw in logical_lines(body):
        entry = parse_note_line(line_no, raw)
        if entry:
            result.entries.append(entry)
    return result


# =========================================================================== line-level records


@dataclass
class LineRecord:
    """A line-level authorship record: lines of `path` as of `commit` (None: HEAD)."""

    path: str
    commit: str | None
    ranges: list[tuple[int, int]]
    tool: str | None  # None: a person
    source: str


def parse_ranges(text: str) -> list[tuple[int, int]]:
    ranges = []
    for part in text.split(","):
        part = part.strip()
        if re.fullmatch(r"\d+", part):
            ranges.append((int(part), int(part)))
        elif re.fullmatch(r"\d+-\d+", part):
            a, b = (int(x) for x in part.split("-"))
            ranges.append((min(a, b), max(a, b)))
    return ranges


_GIT_AI_TOOLS = {"cursor": "Cursor", "claude": "Claude Code", "windsurf": "Windsurf", "copilot": "GitHub Copilot",
                 "gemini": "Gemini", "codex": "OpenAI Codex", "amp": "Amp", "droid": "Factory Droid",
                 "opencode": "OpenCode", "pi": "Pi"}


def parse_git_ai_note(commit: str, text: str) -> list[LineRecord]:
    """git-ai's Authorship Log (authorship/3.0.0, and the 7/16-hex legacy keys) attached to `commit`."""
    attestation, _, meta_text = text.partition("\n---\n")
    try:
        meta = json.loads(meta_text) if meta_text.strip() else {}
    except ValueError:
        meta = {}
    sessions = meta.get("sessions") or {}
    prompts = meta.get("prompts") or {}

    def tool_for(key: str) -> str | None:
        if key.startswith("h_"):
            return None
        record = sessions.get(key.split("::")[0]) if key.startswith("s_") else prompts.get(key)
        name = ((record or {}).get("agent_id") or {}).get("tool", "")
        return _GIT_AI_TOOLS.get(str(name).lower(), str(name) or "an agent (git-ai)")

    records: list[LineRecord] = []
    path: str | None = None
    for line in attestation.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            path = line[1:-1] if line.startswith('"') and line.endswith('"') else line
            continue
        if path and line.startswith("  "):
            parts = line.strip().split()
            if len(parts) == 2:
                records.append(LineRecord(path, commit, parse_ranges(parts[1]), tool_for(parts[0]),
                                          f"git-ai note on {commit[:7]}"))
    return records


def parse_agent_trace(text: str) -> list[LineRecord]:
    """Agent Trace JSON Lines (.agent-trace/traces.jsonl): files → conversations → ranges."""
    records: list[LineRecord] = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        revision = (record.get("vcs") or {}).get("revision")
        tool_name = (record.get("tool") or {}).get("name")
        for file in record.get("files") or []:
            for conversation in file.get("conversations") or []:
                default = (conversation.get("contributor") or {}).get("type", "unknown")
                model = (conversation.get("contributor") or {}).get("model_id")
                for span in conversation.get("ranges") or []:
                    kind = (span.get("contributor") or {}).get("type", default)
                    if kind not in ("ai", "mixed", "human"):
                        continue  # "unknown" claims nothing
                    try:
                        start, end = int(span["start_line"]), int(span["end_line"])
                    except (KeyError, TypeError, ValueError):
                        continue
                    tool = None if kind == "human" else (tool_in_text(str(tool_name or "")) or
                                                          tool_in_text(str(model or "")) or
                                                          str(tool_name or model or "an agent (Agent Trace)"))
                    records.append(LineRecord(str(file.get("path", "")), revision if isinstance(revision, str) else None,
                                              [(min(start, end), max(start, end))], tool, "Agent Trace"))
    return records


# =========================================================================== mapping onto HEAD

Blame = dict[str, list[tuple[str, int]]]  # path -> per HEAD line (1-based index - 1): (commit, line in that commit)


@dataclass(frozen=True)
class Claim:
    tool: str | None
    source: str
    layer: int  # 1 commit metadata, 2 the note, 3 line-level records: the higher is more specific


@dataclass
class Span:
    path: str
    start: int
    end: int
    tool: str | None
    source: str

    def to_json(self) -> dict:
        return {"path": self.path, "start": self.start, "end": self.end, "tool": self.tool, "source": self.source}


@dataclass
class Unmapped:
    line_no: int
    text: str
    reason: str

    def to_json(self) -> dict:
        return {"line": self.line_no, "text": self.text, "reason": self.reason}


@dataclass
class Conflict:
    path: str | None
    start: int | None
    end: int | None
    message: str

    def to_json(self) -> dict:
        return {"path": self.path, "start": self.start, "end": self.end, "message": self.message}


@dataclass
class Attribution:
    """Everything known about who wrote the submission's HEAD, line by line."""

    tools: list[str]
    lines: dict[str, dict[int, Claim]]  # path -> HEAD line -> the winning claim
    spans: list[Span]
    conflicts: list[Conflict]
    unmapped: list[Unmapped]
    commits: list[CommitAttribution]
    note: NoteDisclosure

    def claim(self, path: str, line: int) -> Claim | None:
        return self.lines.get(path, {}).get(line)

    def to_json(self, share: float | None = None) -> dict:
        return {"tools": self.tools, "share": share, "spans": [s.to_json() for s in self.spans],
                "conflicts": [c.to_json() for c in self.conflicts],
                "unmapped": [u.to_json() for u in self.unmapped]}


def _label(tool: str | None) -> str:
    return tool or "a person"


def attribute(commits: list[CommitAttribution], authors: dict[str, str], note: NoteDisclosure,
              head_lines: dict[str, int], blame: Blame, records: list[LineRecord],
              head: str) -> Attribution:
    """Merge every source into one claim per HEAD line.

    `authors`: commit id -> its author (for "a person" claims); `head_lines`: path -> line count at
    HEAD; `blame`: for each path, which commit (and which of its lines) each HEAD line comes from.
    """
    by_commit = {c.commit: c for c in commits}
    claims: dict[str, dict[int, list[Claim]]] = {}

    def add(path: str, line: int, claim: Claim) -> None:
        claims.setdefault(path, {}).setdefault(line, []).append(claim)

    # Layer 1: commit metadata, through blame: the lines a commit introduced that survive in HEAD.
    for path, origins in blame.items():
        for index, (sha, _orig) in enumerate(origins, start=1):
            attribution = by_commit.get(sha)
            if attribution and attribution.signals:
                signal = attribution.signals[0]
                add(path, index, Claim(signal.tool, f"commit {sha[:7]}: {signal.source}", 1))
            elif sha in authors:
                add(path, index, Claim(None, f"commit {sha[:7]} by {authors[sha]}", 1))

    # Layer 3: line-level records, mapped from the commit they describe to HEAD through blame.
    for record in records:
        origins = blame.get(record.path, [])
        wanted = {n for a, b in record.ranges for n in range(a, b + 1)}
        for index, (sha, orig) in enumerate(origins, start=1):
            at_commit = record.commit in (None, head) and index in wanted
            through_blame = record.commit not in (None, head) and sha.startswith(record.commit or "-") and orig in wanted
            if at_commit or through_blame:
                add(record.path, index, Claim(record.tool, record.source, 3))

    # Layer 2: the note, in order, so a later, more specific line overrides an earlier one.
    unmapped: list[Unmapped] = []
    note_claims: dict[str, dict[int, Claim]] = {}
    for entry in note.entries:
        source = f"note line {entry.line_no}"
        if entry.kind == "prose":
            reason = "names no file, lines or commit: shown as written, not mapped to code"
            unmapped.append(Unmapped(entry.line_no, entry.raw.strip(), reason))
            continue
        if entry.kind == "none":
            continue
        if entry.kind == "commit":
            matches = [sha for sha in authors if sha.startswith(entry.commit or "")]
            if len(matches) != 1:
                why = "no commit of this submission has that id" if not matches else "that id is ambiguous"
                unmapped.append(Unmapped(entry.line_no, entry.raw.strip(), why))
                continue
            hit = False
            for path, origins in blame.items():
                for index, (sha, _orig) in enumerate(origins, start=1):
                    if sha == matches[0]:
                        note_claims.setdefault(path, {})[index] = Claim(entry.tool, source, 2)
                        hit = True
            if not hit:
                unmapped.append(Unmapped(entry.line_no, entry.raw.strip(),
                                         f"no line of commit {matches[0][:7]} survives at HEAD"))
            continue
        path = entry.path or ""
        count = head_lines.get(path)
        if count is None:
            unmapped.append(Unmapped(entry.line_no, entry.raw.strip(), f"{path} is not in the submission at HEAD"))
            continue
        start, end = (1, count) if entry.kind == "file" else (entry.start or 1, entry.end or entry.start or 1)
        if start > count:
            unmapped.append(Unmapped(entry.line_no, entry.raw.strip(),
                                     f"names lines {start}–{end} but {path} has {count} lines"))
            continue
        if end > count:
            unmapped.append(Unmapped(entry.line_no, entry.raw.strip(),
                                     f"lines {count + 1}–{end} do not exist ({path} has {count} lines)"))
            end = count
        if not entry.who:
            unmapped.append(Unmapped(entry.line_no, entry.raw.strip(), "names lines but not who wrote them"))
            continue
        for line in range(start, end + 1):
            note_claims.setdefault(path, {})[line] = Claim(entry.tool, source, 2)
    for path, noted in note_claims.items():
        for line, claim in noted.items():
            add(path, line, claim)

    # Winners and conflicts.
    winners: dict[str, dict[int, Claim]] = {}
    disagreements: dict[tuple[str, str], list[int]] = {}
    for path, by_line in claims.items():
        for line, line_claims in by_line.items():
            best = max(line_claims, key=lambda c: c.layer)
            winners.setdefault(path, {})[line] = best
            ai_votes = {c.layer: c.tool is not None for c in line_claims}
            if len(set(ai_votes.values())) > 1:
                said = next((c for c in line_claims if c.layer == 2), None)
                other = next((c for c in line_claims if c.layer != 2 and (c.tool is None) != (said.tool is None)),
                             None) if said else None
                if said and other:
                    message = f"the note ({said.source}) says {_label(said.tool)}; {other.source} says {_label(other.tool)}"
                else:
                    ordered = sorted(line_claims, key=lambda c: -c.layer)
                    message = "; ".join(f"{c.source} says {_label(c.tool)}" for c in ordered)
                disagreements.setdefault((path, message), []).append(line)
    conflicts = [Conflict(path, start, end, message)
                 for (path, message), lines in sorted(disagreements.items())
                 for start, end in _runs(sorted(lines))]
    commit_tools = sorted({s.tool for c in commits for s in c.signals})
    if note.declares_none and commit_tools:
        conflicts.insert(0, Conflict(None, None, None,
                                     f"the note declares no assistant, but commit metadata names {', '.join(commit_tools)}"))
    if note.heading is None and commit_tools:
        conflicts.insert(0, Conflict(None, None, None,
                                     f"the note has no disclosure section, but commit metadata names {', '.join(commit_tools)}"))

    spans = []
    for path in sorted(winners):
        lines = winners[path]
        for start, end in _runs(sorted(lines)):
            # Split each run where the winning claim changes.
            run_start = start
            for line in range(start, end + 1):
                if line == end or (lines[line].tool, lines[line].source) != (lines[line + 1].tool, lines[line + 1].source):
                    spans.append(Span(path, run_start, line, lines[line].tool, lines[line].source))
                    run_start = line + 1
    tools = sorted({*commit_tools, *note.tools, *(r.tool for r in records if r.tool)})
    return Attribution(tools, winners, spans, conflicts, unmapped, commits, note)


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs
