"""Which assistant wrote what, from every source a submission carries: commit metadata (trailers,
identities), the candidate's note, git-ai notes and Agent Trace, merged into one claim per line.
Pure: no I/O. One module per source; ``merge`` puts them together and finds the conflicts."""

from review.core.attribution.agent_trace import Trace, TraceRange, parse_agent_trace, read_trace
from review.core.attribution.functions import locate_function
from review.core.attribution.git_ai import parse_git_ai_note, parse_legacy_authorship
from review.core.attribution.merge import Attribution, Claim, Conflict, Prepared, Span, Unmapped, attribute
from review.core.attribution.names import Who, parse_agent_value, who_is
from review.core.attribution.note import HUMAN, NoteDisclosure, NoteEntry, parse_note, parse_note_line
from review.core.attribution.records import LineRecord, Notice, parse_ranges
from review.core.attribution.rewritten import RewrittenNote
from review.core.attribution.segments import Blame
from review.core.attribution.tools import TOOLS, Tool, match_identity, tool_in_text
from review.core.attribution.trailer_block import trailer_block, trailers
from review.core.attribution.trailers import (
    DISCLOSURE_KEYS,
    CommitAttribution,
    Rejected,
    Signal,
    assistants,
    commit_signals,
)

__all__ = [
    "DISCLOSURE_KEYS",
    "HUMAN",
    "Attribution",
    "Blame",
    "Claim",
    "CommitAttribution",
    "Conflict",
    "LineRecord",
    "NoteDisclosure",
    "NoteEntry",
    "Notice",
    "Prepared",
    "Rejected",
    "RewrittenNote",
    "Signal",
    "Span",
    "TOOLS",
    "Tool",
    "Trace",
    "TraceRange",
    "Unmapped",
    "Who",
    "assistants",
    "attribute",
    "read_trace",
    "trailer_block",
    "who_is",
    "commit_signals",
    "match_identity",
    "parse_agent_trace",
    "parse_agent_value",
    "parse_git_ai_note",
    "parse_legacy_authorship",
    "locate_function",
    "parse_note",
    "parse_note_line",
    "parse_ranges",
    "tool_in_text",
    "trailers",
]
