"""AI-DECLARATION.md: a file a candidate may add beside their code, whose front matter (YAML between
two `---` lines) says how far an AI acted: a `level` for the whole work, and levels per `processes`
(design, implementation, testing, documentation, review, deployment) and per `components` (files or
folders). The levels, from the format's own definitions:

    none     the person acted alone
    hint     the person acted; an AI surfaced suggestions passively
    assist   the person prompted; the AI acted on a part of the task
    pair     the person and the AI acted equally
    copilot  the AI acted on the whole task, asking the person for permission
    auto     the AI acted autonomously, to completion

So `copilot` and `auto` say an AI wrote what they cover; `assist` and `pair` that it wrote a part,
without saying which lines; `none` and `hint` that the person wrote it. The front matter names no
tool: the body's own words may ("Claude Code was used to create the whole application").

Only the shape the format uses is read — `key: value` lines and one level of `name: level` lines
under `processes:` and `components:` — one pass over the lines, nothing evaluated. What cannot be read
is said, with its line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from review.core.attribution.merge import TEST_FILE
from review.core.attribution.note import NoteEntry

LEVELS = ("none", "hint", "assist", "pair", "copilot", "auto")
WROTE = frozenset({"copilot", "auto"})
PART = frozenset({"assist", "pair"})
PERSON = frozenset({"none", "hint"})
PROCESSES = ("design", "implementation", "testing", "documentation", "review", "deployment")
FILE_NAMES = ("AI-DECLARATION.md", "ai-declaration.md")
# The front matter names no tool; its notes may.
UNNAMED = "an assistant (unnamed)"
MAX_LINES = 2000
MAX_LINE = 400  # a longer line is no field of the format: said, not read
MAX_ENTRIES = 20_000  # file entries made from the levels (components × the files under each)

_ENTRY = re.compile(
    r"^(?P<indent>[ \t]*)(?P<key>\"[^\"]{1,300}\"|'[^']{1,300}'|[^\s:#\"'][^:#]{0,300}?)\s*:"
    r"(?:\s+(?P<value>[^#]*?))?\s*(?:#.*)?$"
)


@dataclass
class Said:
    """One level the declaration gives, with its line in the file (1-based) and the line as written."""

    line_no: int
    raw: str
    level: str


@dataclass
class Declaration:
    level: Said | None = None
    processes: dict[str, Said] = field(default_factory=dict)
    components: dict[str, Said] = field(default_factory=dict)
    # (line, what could not be read there): shown, never dropped.
    problems: list[tuple[int, str]] = field(default_factory=list)
    # The markdown after the front matter, and the line it starts on.
    body: str = ""
    body_line: int = 1
    # The front matter's lines as written, by their number: what a problem's line says.
    lines: dict[int, str] = field(default_factory=dict)


def _unquoted(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def parse_declaration(text: str) -> Declaration:
    """The front matter's levels, what could not be read, and the body."""
    found = Declaration()
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        found.problems.append((1, "no front matter (a first line of ---): its levels cannot be read"))
        found.body = text
        return found
    end = next(
        (index for index in range(1, min(len(lines), MAX_LINES)) if lines[index].strip() in ("---", "...")), None
    )
    if end is None:
        found.problems.append((1, "the front matter never ends (no closing ---): its levels cannot be read"))
        return found
    found.body, found.body_line = "\n".join(lines[end + 1 :]), end + 2
    found.lines = {index + 1: lines[index].strip()[:200] for index in range(end)}
    table: dict[str, Said] | None = None
    problem = found.problems.append
    for index in range(1, end):
        raw = lines[index]
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        entry = _ENTRY.match(raw) if len(raw) <= MAX_LINE else None
        if entry is None:
            problem((index + 1, f"not read: {raw.strip()[:80]}"))
            continue
        key, value, nested = _unquoted(entry["key"]), _unquoted(entry["value"] or ""), bool(entry["indent"])
        if not nested:
            table = found.processes if key == "processes" else found.components if key == "components" else None
            if key == "level":
                found.level = _level(found, index + 1, raw, value)
            elif table is None and key != "version":
                problem((index + 1, f"{key} is not a field of the format (version, level, processes, components)"))
            continue
        if table is None:
            problem((index + 1, f"not under processes or components: {raw.strip()[:80]}"))
            continue
        if table is found.processes and key not in PROCESSES:
            problem((index + 1, f"{key} is not a process of the format ({', '.join(PROCESSES)})"))
            continue
        said = _level(found, index + 1, raw, value)
        if said is not None:
            table[key.strip().removeprefix("./").rstrip("/") if table is found.components else key] = said
    return found


def _level(found: Declaration, line_no: int, raw: str, value: str) -> Said | None:
    level = value.strip().lower()
    if level not in LEVELS:
        said = f"{value.strip()[:40] or 'an empty value'} is not a level of the format ({' | '.join(LEVELS)})"
        found.problems.append((line_no, said))
        return None
    return Said(line_no, raw.strip(), level)


def declaration_entries(found: Declaration, files: list[str], tool: str, source: str) -> list[NoteEntry]:
    """The declaration as note entries, in its order (a component after the whole level, so the more
    specific says last): what `copilot`/`auto` cover is the AI's (`tool`), whole files; what
    `none`/`hint` cover the person's; `assist`/`pair` name the tool, its lines not said (listed as
    unmapped). `files`: the code files of the diff, which a folder, the implementation or the whole
    work covers. A level the format cannot have, or a line not read, is listed with why."""
    entries: list[NoteEntry] = []
    problems = list(found.problems)
    tests = [path for path in files if TEST_FILE.search(path)]
    if found.level is not None and not found.components and not found.processes:
        entries += _covering(found.level, files, tool, source, whole_work=True)
    for process, said in found.processes.items():
        if process == "testing":
            entries += _covering(said, tests, tool, source)
        elif process == "implementation":
            entries += _covering(said, [path for path in files if path not in tests], tool, source)
        elif said.level not in PERSON:
            entries.append(_told(said, tool, source))
    for component, said in found.components.items():
        under = [path for path in files if path == component or path.startswith(component + "/")]
        # A component naming no file of the diff is said as such (its path is not in the submission).
        entries += _covering(said, under or [component], tool, source)
    if len(entries) > MAX_ENTRIES:
        # Many components, each over a large diff: what is past the bound is said, not read.
        past = f"{len(entries) - MAX_ENTRIES:,} file entries past the first {MAX_ENTRIES:,} were not read"
        problems.append((entries[MAX_ENTRIES].line_no, past))
        entries = entries[:MAX_ENTRIES]
    for line_no, problem in problems:
        entries.append(NoteEntry(line_no, found.lines.get(line_no, ""), "unread", file=source, reason=problem))
    return entries


def _covering(said: Said, paths: list[str], tool: str, source: str, whole_work: bool = False) -> list[NoteEntry]:
    """What one level says of `paths`: theirs or the AI's, whole files; a part, not mapped; and for the
    whole work at `none`, a declaration of no AI."""
    if said.level in PART:
        return [_told(said, tool, source)]
    if said.level == "none" and whole_work:
        return [NoteEntry(said.line_no, said.raw, "none", file=source)]
    who, by = (tool, tool) if said.level in WROTE else ("me", None)
    return [NoteEntry(said.line_no, said.raw, "file", path=path, who=who, tool=by, file=source) for path in paths]


def _told(said: Said, tool: str, source: str) -> NoteEntry:
    """A level that names the tool and no lines (a part, or a process with no files): listed unmapped."""
    raw = f"{said.raw} (the AI acted on a part; which lines is not said)" if said.level in PART else said.raw
    return NoteEntry(said.line_no, raw, "prose", who=tool, tool=tool, file=source)
