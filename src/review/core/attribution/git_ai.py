"""git-ai's Authorship Log notes (refs/notes/ai) → line records. Pure."""

from __future__ import annotations

from review.core import jsondata
from review.core.attribution.records import LineRecord, parse_ranges
from review.core.attribution.tools import canonical_tool


def parse_git_ai_note(commit: str, text: str) -> list[LineRecord]:
    """git-ai's Authorship Log (authorship/3.0.0, and the 7/16-hex legacy keys) attached to `commit`."""
    attestation, _, meta_text = text.partition("\n---\n")
    meta = jsondata.obj(jsondata.loads(meta_text)) if meta_text.strip() else {}
    sessions = jsondata.obj(meta.get("sessions"))
    prompts = jsondata.obj(meta.get("prompts"))

    def tool_for(key: str) -> str | None:
        if key.startswith("h_"):
            return None
        record = sessions.get(key.split("::")[0]) if key.startswith("s_") else prompts.get(key)
        name = jsondata.text(jsondata.obj(jsondata.obj(record).get("agent_id")).get("tool"))
        return canonical_tool(name) if name else "an agent (git-ai)"  # a test agent (mock_ai): no assistant

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


def parse_legacy_authorship(commit: str, text: str) -> list[LineRecord]:
    """git-ai's legacy store, `refs/ai/authorship/<commit>`: JSON `authorship/0.0.1` ({"files": {path:
    {"authors": [{"author": "Claude", "lines": [22, [30, 35]]}]}}}), or a v3 log kept there."""
    if not text.lstrip().startswith("{"):
        return parse_git_ai_note(commit, text)
    records: list[LineRecord] = []
    files = jsondata.obj(jsondata.obj(jsondata.loads(text)).get("files"))
    for path, entry in files.items():
        for author in jsondata.arr(jsondata.obj(entry).get("authors")):
            author = jsondata.obj(author)
            name = jsondata.text(author.get("author"))
            ranges = []
            for item in jsondata.arr(author.get("lines")):
                if isinstance(item, int) and not isinstance(item, bool):
                    ranges.append((item, item))
                elif isinstance(item, list) and len(item) == 2 and all(isinstance(v, int) for v in item):
                    ranges.append((min(item), max(item)))
            if ranges and name:
                records.append(LineRecord(str(path), commit, ranges, canonical_tool(name),
                                          f"git-ai legacy authorship on {commit[:7]}"))
    return records
