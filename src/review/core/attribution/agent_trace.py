"""Agent Trace JSON Lines (.agent-trace/traces.jsonl) → line records. Pure."""

from __future__ import annotations

from review.core import jsondata
from review.core.attribution.records import LineRecord
from review.core.attribution.tools import tool_in_text


def parse_agent_trace(text: str) -> list[LineRecord]:
    """Agent Trace JSON Lines (.agent-trace/traces.jsonl): files → conversations → ranges."""
    records: list[LineRecord] = []
    for line in text.splitlines():
        record = jsondata.obj(jsondata.loads(line))
        if not record:
            continue
        revision = jsondata.obj(record.get("vcs")).get("revision")
        tool_name = jsondata.text(jsondata.obj(record.get("tool")).get("name"))
        for file in map(jsondata.obj, jsondata.arr(record.get("files"))):
            for conversation in map(jsondata.obj, jsondata.arr(file.get("conversations"))):
                contributor = jsondata.obj(conversation.get("contributor"))
                default = contributor.get("type", "unknown")
                model = jsondata.text(contributor.get("model_id"))
                for span in map(jsondata.obj, jsondata.arr(conversation.get("ranges"))):
                    kind = jsondata.obj(span.get("contributor")).get("type", default)
                    if kind not in ("ai", "mixed", "human"):
                        continue  # "unknown" claims nothing
                    try:
                        start, end = int(span["start_line"]), int(span["end_line"])
                    except (KeyError, TypeError, ValueError):
                        continue
                    tool = None if kind == "human" else (tool_in_text(str(tool_name or "")) or
                                                          tool_in_text(str(model or "")) or
                                                          str(tool_name or model or "an agent (Agent Trace)"))
                    records.append(LineRecord(jsondata.text(file.get("path")), revision if isinstance(revision, str) else None,
                                              [(min(start, end), max(start, end))], tool, "Agent Trace"))
    return records
