"""git-ai's Authorship Log notes (refs/notes/ai) → line records. Pure."""

from __future__ import annotations

from review.core import jsondata
from review.core.attribution.names import person_shaped, who_is
from review.core.attribution.records import LineRecord, parse_ranges
from review.core.attribution.tools import ALIASES, canonical_tool, written_name


def parse_git_ai_note(commit: str, text: str) -> list[LineRecord]:
    """git-ai's Authorship Log (authorship/3.0.0, and the 7/16-hex legacy keys) attached to `commit`."""
    attestation, _, meta_text = text.partition("\n---\n")
    sessions, prompts, known = _metadata(meta_text)

    def tool_for(key: str) -> str | None:
        if key in known:
            return known[key]
        if key.startswith("h_"):
            tool = None
        else:
            record = sessions.get(key.split("::")[0]) if key.startswith("s_") else prompts.get(key)
            name = jsondata.text(jsondata.obj(jsondata.obj(record).get("agent_id")).get("tool"))
            tool = canonical_tool(name) if name else "an agent (git-ai)"  # a test agent (mock_ai): no assistant
        known[key] = tool
        return tool

    records: list[LineRecord] = []
    path: str | None = None
    source = f"git-ai note on {commit[:7]}"
    for line in attestation.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            path = line[1:-1] if line.startswith('"') and line.endswith('"') else line
            continue
        if path and line.startswith("  "):
            parts = line.split()
            if len(parts) == 2:
                records.append(LineRecord(path, commit, parse_ranges(parts[1]), tool_for(parts[0]), source))
    return records


# The last note's metadata parsed, with the tool each of its keys named: a session's notes carry the
# same metadata commit after commit (one entry, so a hostile note's megabytes are not kept).
_last_metadata: tuple[str, dict, dict, dict[str, str | None]] = ("", {}, {}, {})


def _metadata(text: str) -> tuple[dict, dict, dict[str, str | None]]:
    """A note's sessions and prompts, and the tools read from them so far."""
    global _last_metadata
    last = _last_metadata
    if last[0] != text:
        meta = jsondata.obj(jsondata.loads(text)) if text.strip() else {}
        last = _last_metadata = (text, jsondata.obj(meta.get("sessions")), jsondata.obj(meta.get("prompts")), {})
    return last[1], last[2], last[3]


def legacy_author_tool(name: str, metadata: object) -> str | None:
    """A legacy authorship author's tool, or None for a person. The log lists every author of the
    lines, people included: an author is an assistant when it carries agent metadata (its tool, or
    its name as written) or its name is a known tool or a model (o3, gpt-4o, claude-3-5-sonnet);
    any other name — a maintainer's full name, or their first name — is a person."""
    meta = jsondata.obj(metadata)
    if meta:
        agent = jsondata.obj(meta.get("agent_id")) or meta
        tool = jsondata.text(agent.get("tool")) or jsondata.text(agent.get("name"))
        return canonical_tool(tool or name)
    who = who_is(name)
    if who.kind == "tool" and who.tool and who.known and not person_shaped(name.strip()):
        return who.tool
    return canonical_tool(name) if name.strip().lower() in ALIASES else None


def parse_legacy_authorship(commit: str, text: str) -> list[LineRecord]:
    """git-ai's legacy store, `refs/ai/authorship/<commit>`: JSON `authorship/0.0.1` ({"files": {path:
    {"authors": [{"author": "Claude", "lines": [22, [30, 35]], "agent_metadata": null}]}}}), or a v3
    log kept there. People are listed beside the assistants: their lines are a person's."""
    if not text.lstrip().startswith("{"):
        return parse_git_ai_note(commit, text)
    records: list[LineRecord] = []
    source = f"git-ai legacy authorship on {commit[:7]}"
    files = jsondata.obj(jsondata.obj(jsondata.loads(text)).get("files"))
    for path, entry in files.items():
        for author in jsondata.arr(jsondata.obj(entry).get("authors")):
            author = jsondata.obj(author)
            name = jsondata.text(author.get("author"))
            ranges = []
            for item in jsondata.arr(author.get("lines")):
                # a line, or a [first, last] pair
                pair = item if isinstance(item, list) and len(item) == 2 else [item, item]
                if all(isinstance(v, int) and not isinstance(v, bool) for v in pair):
                    ranges.append((min(pair), max(pair)))
            if ranges and name:
                tool = legacy_author_tool(name, author.get("agent_metadata"))
                records.append(LineRecord(str(path), commit, ranges, tool, source, author=written_name(name)))
    return records
