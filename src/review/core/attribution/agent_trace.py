"""Agent Trace JSON Lines (.agent-trace/traces.jsonl) → line records. Pure."""

from __future__ import annotations

import json

from review.core.attribution.records import LineRecord
from review.core.attribution.tools import tool_in_text


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
