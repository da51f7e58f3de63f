"""The candidate's note, as written: plain text (never Markdown or markup), sanitised, with line
numbers so "note line 15" in an attribution can be found; above it, what the disclosure said."""

from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from review.core.attribution import ai_declaration
from review.core.attribution.note import NoteEntry
from review.core.attribution.rewritten import summary as rewritten_summary
from review.core.text import safe_line, safe_text
from review.services.analysis import Analysis
from review.tui.keymap import reading_bindings

MAX_REWRITTEN_SHOWN = 20  # rewritten commits' notes listed one by one above the note
# Rows the pane lays out: a Static wraps its whole text on the UI thread, several times, so 130,000
# one-character lines (a 256 KiB note) froze the console for seconds. A real note is far shorter.
MAX_NOTE_ROWS = 3000


MAX_DECLARED_SHOWN = 12  # an AI-DECLARATION.md's files listed one by one above the note


def declared_levels(entries: list[NoteEntry]) -> list[str]:
    """What an AI-DECLARATION.md's levels gave to whom, file by file."""
    given = [e for e in entries if e.file in ai_declaration.FILE_NAMES and e.kind in ("file", "tests", "none")]
    shown = [
        f"· {e.file} line {e.line_no} ({e.raw}): "
        + (
            "no AI at all"
            if e.kind == "none"
            else f"{'the tests' if e.kind == 'tests' else e.path} → {e.tool or 'the person'}"
        )
        for e in given
    ]
    if len(shown) > MAX_DECLARED_SHOWN:
        shown[MAX_DECLARED_SHOWN:] = [
            f"· and {len(shown) - MAX_DECLARED_SHOWN} more files the declaration's levels cover"
        ]
    return shown


def disclosure_summary(analysis: Analysis) -> str:
    result = analysis.attribution
    note = result.note
    lines = []
    if analysis.note.problem:
        lines.append(f"⚠ {analysis.note.problem}")
    if not note.discloses:
        lines.append(
            "No disclosure (a section about AI use, a labelled paragraph, or a sentence such as "
            "“Claude Code wrote checkout.mjs”)."
        )
    elif note.heading is None:
        # The note's own lines (no file), else README.md's; a declaration's levels are listed below.
        said = [e.file for e in note.entries if e.file not in ai_declaration.FILE_NAMES]
        where = "the note" if "" in said else next(iter(said), ai_declaration.FILE_NAMES[0])
        named = ", ".join(note.tools) or ("none (declared)" if note.declares_none else "none named")
        lines.append(f"Disclosure in {where} (no section): assistants named: {named}.")
    else:
        named = ", ".join(note.tools) or ("none (declared)" if note.declares_none else "none named")
        lines.append(f"Disclosure section “{note.heading}”: assistants named: {named}.")
    lines += declared_levels(note.entries)
    commit_tools = sorted({claim.tool for c in result.commits for claim in c.signals})
    lines.append(f"Commit metadata names: {', '.join(commit_tools) or 'no assistant'}.")
    if result.unknown_tools:
        lines.append(f"Not a known tool (shown as written): {', '.join(result.unknown_tools)}.")
    for conflict in result.conflicts:
        where = f"{conflict.path}:{conflict.start}-{conflict.end} " if conflict.path else ""
        lines.append(f"⚡ conflict: {where}{conflict.message}")
    for item in result.unmapped:
        lines.append(f"· not mapped ({item.file or 'note'} line {item.line_no}): {item.text} — {item.reason}")
    if result.rewritten:
        lines.append(rewritten_summary(result.rewritten) or "")
        lines += [f"  · {note.describe()}" for note in result.rewritten[:MAX_REWRITTEN_SHOWN]]
        if len(result.rewritten) > MAX_REWRITTEN_SHOWN:
            lines.append(
                f"  · and {len(result.rewritten) - MAX_REWRITTEN_SHOWN} more (review triage --json lists them)"
            )
    for notice in result.notices:
        lines.append(f"· {notice.source}: {notice.message}")
    return "\n".join(safe_line(line, 400) for line in lines)


def numbered_rows(text: str, width: int | None = None) -> tuple[list[str], list[int]]:
    """Line numbers in a gutter; lines longer than `width` wrap under the gutter (marked ┆), so a
    narrow pane never hides the end of a sentence and "note line 15" still finds line 15.
    Returns the rows, and for each note line the row it starts on."""
    lines = safe_text(text).expandtabs(4).split("\n")
    # A final newline ends the last line; it starts no line of its own (the diff counts 11, not 12).
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    digits = len(str(len(lines)))
    room = None if width is None else max(20, width - digits - 3)
    rows: list[str] = []
    starts: list[int] = []
    for number, line in enumerate(lines, start=1):
        pieces = (
            textwrap.wrap(
                line, room, drop_whitespace=False, replace_whitespace=False, break_on_hyphens=False, expand_tabs=False
            )
            if room and line
            else [line]
        )
        starts.append(len(rows))
        rows.append(f"{number:>{digits}} │ {pieces[0]}")
        rows += [f"{'':>{digits}} ┆ {piece}" for piece in pieces[1:]]
    return rows, starts


class NoteView(VerticalScroll, can_focus=True):
    HELP_GROUP = "Note"
    # The diff's reading keys, so help lists what moves the note (the scroll keys are Textual's otherwise).
    BINDINGS = reading_bindings("note")
    DEFAULT_CSS = """
    NoteView { height: 1fr; padding: 0 1; }
    NoteView #note-summary { color: $text-muted; border-bottom: solid $panel; margin-bottom: 1; }
    NoteView #note-text { width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis: Analysis | None = None
        self.wrap_width = 0
        # The row each note line starts on, as last rendered.
        self.line_starts: list[int] = []

        self.summary = Static(Content("reading the note…"), id="note-summary")
        self.text = Static(Content(""), id="note-text")

    def compose(self) -> ComposeResult:
        yield self.summary
        yield self.text

    def load(self, analysis: Analysis) -> None:
        self.analysis = analysis
        # The heading and tool names are the candidate's words: sanitised (and masked in a blind session).
        self.summary.update(Content(safe_text(disclosure_summary(analysis))))
        self.render_note()

    def text_width(self) -> int:
        # Room for the vertical scrollbar whether or not it shows yet: it appears only after the
        # first render, and a width that changed with it would re-wrap every line.
        width = self.content_region.width - self.styles.scrollbar_size_vertical
        # 0: hidden, no layout yet (on_resize wraps it later)
        return max(20, width) if width > 0 else 0

    def on_resize(self) -> None:
        if self.analysis is not None and self.text_width() != self.wrap_width:
            self.render_note()

    def render_note(self) -> None:
        assert self.analysis is not None
        self.wrap_width = self.text_width()
        text = self.analysis.note.text
        rows, self.line_starts = numbered_rows(text, self.wrap_width or None) if text else ([], [])
        if len(rows) > MAX_NOTE_ROWS:
            rows = [
                *rows[:MAX_NOTE_ROWS],
                f"… {len(rows) - MAX_NOTE_ROWS} more rows of the note are not shown here "
                f"(this pane shows its first {MAX_NOTE_ROWS})",
            ]
        body = "\n".join(rows)
        path = self.analysis.note.path
        header = f"{path} at HEAD {self.analysis.head[:12]}\n\n" if path else ""
        self.text.update(Content(header + body))

    def scroll_to_line(self, number: int) -> None:
        """Bring note line `number` near the top, one line of context above (evidence hints link here).
        After a refresh: the pane may have just been shown, and has no layout yet."""
        self.call_after_refresh(self._scroll_to_line, number)

    def _scroll_to_line(self, number: int, tries: int = 3) -> None:
        if self.analysis is None:
            return
        # Shown just now: wrap for its width first.
        if self.text_width() != self.wrap_width:
            self.render_note()
            if tries:
                self.call_after_refresh(self._scroll_to_line, number, tries - 1)
                return
        row = self.line_starts[number - 1] if 0 < number <= len(self.line_starts) else 0
        header = 2 if self.analysis.note.path else 0
        text = self.text
        self.scroll_to(y=max(0, text.virtual_region.y + header + row - 1), animate=False)
