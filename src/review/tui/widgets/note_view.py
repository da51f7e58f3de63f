"""The candidate's note, as written: plain text (never Markdown or markup), sanitised, with line
numbers so "note line 15" in an attribution can be found; above it, what the disclosure said."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from review import analysis as analysis_module
from review.text import safe_line, safe_text


def disclosure_summary(analysis: analysis_module.Analysis) -> str:
    result = analysis.attribution
    note = result.note
    lines = []
    if analysis.note.problem:
        lines.append(f"⚠ {analysis.note.problem}")
    if note.heading is None:
        lines.append("No disclosure section (a heading naming disclosure, AI or assistant).")
    else:
        named = ", ".join(note.tools) or ("none (declared)" if note.declares_none else "none named")
        lines.append(f"Disclosure section “{note.heading}”: assistants named: {named}.")
    commit_tools = sorted({s.tool for c in result.commits for s in c.signals})
    lines.append(f"Commit metadata names: {', '.join(commit_tools) or 'no assistant'}.")
    for conflict in result.conflicts:
        where = f"{conflict.path}:{conflict.start}-{conflict.end} " if conflict.path else ""
        lines.append(f"⚡ conflict: {where}{conflict.message}")
    for item in result.unmapped:
        lines.append(f"· not mapped (note line {item.line_no}): {item.text} — {item.reason}")
    return "\n".join(safe_line(line, 400) for line in lines)


def numbered(text: str) -> str:
    lines = safe_text(text).split("\n")
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} │ {line}" for n, line in enumerate(lines, start=1))


class NoteView(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    NoteView { height: 1fr; padding: 0 1; }
    NoteView #note-summary { color: $text-muted; border-bottom: solid $panel; margin-bottom: 1; }
    NoteView #note-text { width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Content("reading the note…"), id="note-summary")
        yield Static(Content(""), id="note-text")

    def load(self, analysis: analysis_module.Analysis) -> None:
        self.query_one("#note-summary", Static).update(Content(disclosure_summary(analysis)))
        text = analysis.note.text
        body = numbered(text) if text else ""
        header = f"{analysis.note.path} at HEAD {analysis.head[:12]}\n\n" if analysis.note.path else ""
        self.query_one("#note-text", Static).update(Content(header + body))
