"""One submission: the diff with AI-attributed hunks, the note as written, and the commits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane

from review import analysis as analysis_module
from review import cohort, gitsafe
from review.text import safe_line
from review.tui.widgets.diff_pane import DiffPane
from review.tui.widgets.note_view import NoteView

PANES = ("diff", "note", "commits")


class SubmissionScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Submission"
    AUTO_FOCUS = "#diff-view"
    BINDINGS = [
        Binding("escape,backspace", "back", "Back", id="submission.back"),
        # Digits and F-keys: alt+digit is unreliable through tmux and some terminals.
        Binding("1,f2", "pane('diff')", "Diff", id="submission.pane-diff"),
        Binding("2,f3", "pane('note')", "Note", id="submission.pane-note"),
        Binding("3,f4", "pane('commits')", "Commits", id="submission.pane-commits"),
        Binding("tab", "app.focus_next", "Next pane", show=False, id="submission.focus-next"),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False, id="submission.focus-previous"),
    ]

    @dataclass
    class Loaded(Message):
        analysis: analysis_module.Analysis | None
        problem: str | None = None

    def __init__(self, path: Path, row: cohort.Row) -> None:
        super().__init__()
        self.path = path
        self.row = row
        self.analysis: analysis_module.Analysis | None = None
        self.note_opened = False  # the rubric's note gate reads this

    def compose(self) -> ComposeResult:
        yield Static(Content(safe_line(f"{self.row.name} · HEAD {(self.row.head or '?')[:12]}", 200)),
                     id="submission-title")
        with TabbedContent(initial="diff", id="panes"):
            with TabPane("Diff", id="diff"):
                yield DiffPane(id="diff-pane")
            with TabPane("Note", id="note"):
                yield NoteView(id="note-view")
            with TabPane("Commits", id="commits"):
                yield DataTable(cursor_type="row", zebra_stripes=True, id="commits-table")
                yield Static(id="commit-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#commits-table", DataTable).add_columns("Commit", "Date", "Author", "Subject", "Assistants")
        self.load()

    @work(thread=True, exclusive=True, group="submission", name="submission-load")
    def load(self) -> None:
        try:
            repo = gitsafe.open_submission(self.path)
            result = analysis_module.analyse(repo, base=cohort.cohort_base(self.path.parent))
        except (gitsafe.GitSafeError, cohort.CohortError) as error:
            self.post_message(self.Loaded(None, str(error)))
            return
        self.post_message(self.Loaded(result))

    @on(Loaded)
    def loaded(self, message: Loaded) -> None:
        if message.analysis is None:
            self.query_one("#submission-title", Static).update(
                Content(safe_line(f"{self.row.name}: {message.problem or 'unreadable'}", 300)))
            return
        self.analysis = message.analysis
        self.query_one(DiffPane).load(self.analysis)
        self.query_one(NoteView).load(self.analysis)
        commits = self.query_one("#commits-table", DataTable)
        for commit, signals in zip(self.analysis.commits, self.analysis.signals):
            commits.add_row(Text(commit.short), Text(commit.author_date[:10]), Text(safe_line(commit.author_name, 40)),
                            Text(safe_line(commit.subject, 120)), Text(safe_line(", ".join(signals.tools) or "—", 60)),
                            key=commit.sha)
        self.show_commit(0)

    @on(DataTable.RowHighlighted, "#commits-table")
    def commit_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_commit(event.cursor_row)

    def show_commit(self, index: int) -> None:
        if not self.analysis or not (0 <= index < len(self.analysis.commits)):
            return
        commit, signals = self.analysis.commits[index], self.analysis.signals[index]
        lines = [f"{commit.sha}  {commit.author_name} <{commit.author_email}>  {commit.author_date}"]
        lines += [f"  {line}" for line in commit.message.splitlines()[:12]]
        for signal in signals.signals:
            lines.append(f"  ⚑ {signal.tool}{f' ({signal.model})' if signal.model else ''} — {signal.source}")
        for rejected in signals.rejected:
            lines.append(f"  ✗ not counted: {rejected.evidence} — {rejected.reason}")
        self.query_one("#commit-detail", Static).update(Content("\n".join(safe_line(line, 300) for line in lines)))

    @on(TabbedContent.TabActivated)
    def tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "note":
            self.note_opened = True

    def action_pane(self, name: str) -> None:
        self.query_one(TabbedContent).active = name
        if name == "note":
            self.note_opened = True
            self.query_one(NoteView).focus()
        elif name == "diff":
            self.query_one("#diff-view").focus()
        else:
            self.query_one("#commits-table").focus()

    def action_back(self) -> None:
        self.app.pop_screen()
