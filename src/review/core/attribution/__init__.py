"""Which assistant wrote what, from every source a submission carries: commit metadata (trailers,
identities), the candidate's note, git-ai notes and Agent Trace, merged into one claim per line.
Pure: no I/O. One module per source; ``merge`` puts them together and finds the conflicts."""

from review.core.attribution.agent_trace import parse_agent_trace
from review.core.attribution.functions import locate_function
from review.core.attribution.git_ai import parse_git_ai_note, parse_legacy_authorship
from review.core.attribution.merge import Attribution, Claim, Prepared, attribute
from review.core.attribution.names import parse_agent_value, who_is
from review.core.attribution.note import NoteDisclosure, NoteEntry, parse_note, parse_note_line
from review.core.attribution.records import LineRecord
from review.core.attribution.segments import Blame
from review.core.attribution.tools import tool_in_text
from review.core.attribution.trailer_block import trailer_block, trailers
from review.core.attribution.trailers import CommitAttribution, Signal, assistants, commit_signals

__all__ = [
    "Attribution",
    "Blame",
    "Claim",
    "CommitAttribution",
    "LineRecord",
    "NoteDisclosure",
    "NoteEntry",
    "Prepared",
    "Signal",
    "assistants",
    "attribute",
    "commit_signals",
    "locate_function",
    "parse_agent_trace",
    "parse_agent_value",
    "parse_git_ai_note",
    "parse_legacy_authorship",
    "parse_note",
    "parse_note_line",
    "tool_in_text",
    "trailer_block",
    "trailers",
    "who_is",
]
