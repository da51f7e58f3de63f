"""whogitit's notes (refs/notes/whogitit, attribution version 3) → line records. Pure.

whogitit records Claude Code's edits through Claude Code's hooks and classifies each line of a
commit's files: `AI`, `AIModified` (AI's line a person then edited), `Human`, `Original` (there
before the session) or `Unknown`. Line numbers are the file's at the noted commit.
"""

from __future__ import annotations

from review.core import jsondata
from review.core.attribution.records import LineRecord, line_runs

# The tool whose hooks write these notes.
TOOL = "Claude Code"
# source.type -> (the line's tool: TOOL or None for a person, what the span's source adds)
_KINDS = {"ai": (TOOL, ""), "aimodified": (TOOL, " (AI, modified by a person)"), "human": (None, "")}


def parse_whogitit_note(commit: str, text: str) -> list[LineRecord]:
    """The lines a whogitit note on `commit` gives to Claude Code or to a person; `Original` and
    `Unknown` lines claim nothing (the commit's own claim stands)."""
    data = jsondata.obj(jsondata.loads(text))
    records: list[LineRecord] = []
    for entry in jsondata.arr(data.get("files")):
        entry = jsondata.obj(entry)
        path = jsondata.text(entry.get("path"))
        if not path:
            continue
        numbers: dict[str, list[int]] = {}
        for line in jsondata.arr(entry.get("lines")):
            line = jsondata.obj(line)
            number = line.get("line_number")
            kind = jsondata.text(jsondata.obj(line.get("source")).get("type")).lower().replace("_", "")
            if isinstance(number, int) and not isinstance(number, bool) and number > 0 and kind in _KINDS:
                numbers.setdefault(kind, []).append(number)
        for kind, found in numbers.items():
            tool, said = _KINDS[kind]
            source = f"whogitit note on {commit[:7]}{said}"
            records.append(LineRecord(path, commit, line_runs(sorted(set(found))), tool, source))
    return records
