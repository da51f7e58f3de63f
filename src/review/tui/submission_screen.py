"""One submission: its commits (with the assistants each names) and its files at HEAD."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from review import attribution, cohort, gitsafe
from review.text import safe_line


@dataclass
class SubmissionData:
    commits: list[gitsafe.Commit] = field(default_factory=list)
    signals: list[attribution.CommitAttribution] = field(default_factory=list)
    files: list[gitsafe.FileEntry] = field(default_factory=list)


class SubmissionScreen(Screen[None]):
    BINDING_GROUP_TITLE = "Submission"
    AUTO_FOCUS = "#commits"
    BINDINGS = [
        Binding("escape,backspace", "back", "Back", id="submission.back"),
        Binding("tab", "app.focus_next", "Next pane", show=False, id="submission.focus-next"),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False, id="submission.focus-previous"),
    ]

    @dataclass
    class Loaded(Message):
        data: SubmissionData | None
        problem: str | None = None

    def __init__(self, path: Path, row: cohort.Row) -> None:
        super().__init__()
        self.path = path
        self.row = row

    def compose(self) -> ComposeResult:
        yield Static(Content(safe_line(f"{self.row.name} · HEAD {(self.row.head or '?')[:12]}", 200)),
                     id="submission-title")
        with Horizontal(id="submission-body"):
            with Vertical(id="commits-pane"):
                yield Static(Content("Commits (oldest first)"), classes="pane-title")
                yield DataTable(cursor_type="row", zebra_stripes=True, id="commits")
            with Vertical(id="files-pane"):
                yield Static(Content("Files at HEAD"), classes="pane-title")
                yield DataTable(cursor_type="row", id="files")
        yield Static(id="commit-detail")
        yield Footer()

    def on_mount(self) -> None:
        commits = self.query_one("#commits", DataTable)
        commits.add_columns("Commit", "Date", "Author", "Subject", "Assistants")
        self.query_one("#files", DataTable).add_columns("Path", "Size")
        commits.focus()
        self.load()

    @work(thread=True, exclusive=True, group="submission", name="submission-load")
    def load(self) -> None:
        try:
            repo = gitsafe.open_submission(self.path)
            data = SubmissionData(commits=repo.commits(), files=repo.files())
        except gitsafe.GitSafeError as error:
            self.post_message(self.Loaded(None, str(error)))
            return
        data.signals = [attribution.commit_signals(c.sha, c.message, (c.author_name, c.author_email),
                                                   (c.committer_name, c.committer_email)) for c in data.commits]
        self.post_message(self.Loaded(data))

    @on(Loaded)
    def loaded(self, message: Loaded) -> None:
        if message.data is None:
            self.query_one("#commit-detail", Static).update(Content(safe_line(message.problem or "unreadable")))
            return
        self.data = message.data
        commits = self.query_one("#commits", DataTable)
        for commit, signals in zip(self.data.commits, self.data.signals):
            commits.add_row(
                Text(commit.short),
                Text(commit.author_date[:10]),
                Text(safe_line(commit.author_name, 40)),
                Text(safe_line(commit.subject, 120)),
                Text(safe_line(", ".join(signals.tools) or "—", 60)),
                key=commit.sha,
            )
        files = self.query_one("#files", DataTable)
        for entry in self.data.files:
            size = "submodule" if entry.kind == "commit" else (f"{entry.size} B" if entry.size is not None else "")
            files.add_row(Text(safe_line(entry.path, 200)), Text(size))
        self.show_commit(0)

    @on(DataTable.RowHighlighted, "#commits")
    def commit_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_commit(event.cursor_row)

    def show_commit(self, index: int) -> None:
        data = getattr(self, "data", None)
        if not data or not (0 <= index < len(data.commits)):
            return
        commit, signals = data.commits[index], data.signals[index]
        lines = [f"{commit.sha}  {commit.author_name} <{commit.author_email}>  {commit.author_date}"]
        lines += [f"  {line}" for line in commit.message.splitlines()[:12]]
        for signal in signals.signals:
            lines.append(f"  ⚑ {signal.tool}{f' ({signal.model})' if signal.model else ''} — {signal.source}")
        for rejected in signals.rejected:
            lines.append(f"  ✗ not counted: {rejected.evidence} — {rejected.reason}")
        self.query_one("#commit-detail", Static).update(
            Content("\n".join(safe_line(line, 300) for line in lines)))

    def action_back(self) -> None:
        self.app.pop_screen()
