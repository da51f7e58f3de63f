"""The candidate's note: its disclosure section, line by line, as entries that name files, lines,
commits and who wrote them. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from review.core.attribution.tools import tool_in_text

HUMAN = None  # a span's tool when a person wrote it

MAX_NOTE_LINE = 2000  # longer: shown as written and listed as prose, never fed to the patterns
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


def _heading(line: str) -> re.Match[str] | None:
    return _HEADING.match(line) if len(line) <= MAX_NOTE_LINE else None  # the pattern only sees short lines


def disclosure_section(note: str) -> tuple[str | None, list[tuple[int, str]]]:
    """The note's disclosure section: its heading and its (line number, line) pairs."""
    lines = note.splitlines()
    for index, line in enumerate(lines):
        heading = _heading(line)
        if heading and _DISCLOSURE_TITLE.search(heading["title"]):
            level = len(heading["hashes"])
            body = []
            for offset, later in enumerate(lines[index + 1:], start=index + 2):
                nested = _heading(later)
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
    if len(raw) > MAX_NOTE_LINE:
        return NoteEntry(line_no, raw[:200] + "…", "prose")
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
        short = len(raw) <= MAX_NOTE_LINE
        if open_entry and not _BULLET.match(raw) and not (short and _PATH.match(raw.strip())) and \
                not _COMMIT.match(raw.strip()):
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
