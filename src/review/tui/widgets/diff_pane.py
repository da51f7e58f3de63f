"""The diff pane: which range is shown, a file list with counts, the diff view, the hunk's source."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static

from review import analysis as analysis_module
from review import diff, gitsafe
from review.text import safe_line
from review.tui.widgets.diff_view import DiffView


@dataclass(frozen=True)
class DiffRange:
    base: str
    target: str
    label: str


class DiffPane(Vertical):
    BINDINGS = [
        Binding("greater_than_sign", "step(1)", "Next commit", id="diff.next-commit"),
        Binding("less_than_sign", "step(-1)", "Prev commit", id="diff.previous-commit"),
        Binding("d", "whole", "Whole diff", id="diff.whole"),
        Binding("D", "draft", "Draft→HEAD", id="diff.draft"),
        Binding("f", "toggle_files", "File list", id="diff.toggle-files"),
    ]
    DEFAULT_CSS = """
    DiffPane { height: 1fr; }
    DiffPane #diff-range { height: auto; max-height: 2; padding: 0 1; background: $panel; }
    DiffPane #diff-body { height: 1fr; }
    DiffPane #diff-files { width: 26; height: 1fr; }
    DiffPane #diff-files.hidden { display: none; }
    DiffPane DiffView { width: 1fr; height: 1fr; }
    DiffPane #diff-source { height: 1; padding: 0 1; color: $text-muted; }
    """

    @dataclass
    class RangeLoaded(Message):
        range: DiffRange
        diff: diff.Diff | None
        problem: str | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis: analysis_module.Analysis | None = None
        self.ranges: list[DiffRange] = []
        self.position = 0  # index into self.ranges; -1 is draft..HEAD
        self.shown: DiffRange | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content("reading the submission…"), id="diff-range")
        with Horizontal(id="diff-body"):
            yield DataTable(cursor_type="row", id="diff-files")
            yield DiffView(id="diff-view")
        yield Static(id="diff-source")

    def on_mount(self) -> None:
        self.query_one("#diff-files", DataTable).add_columns("File", "+", "−", "AI")
        self.files_toggled = False

    def on_resize(self) -> None:
        # Narrow terminals (80×24 in tmux) give the diff the width; `f` brings the list back.
        if not self.files_toggled:
            self.query_one("#diff-files", DataTable).set_class(self.size.width < 110, "hidden")

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    def load(self, analysis: analysis_module.Analysis) -> None:
        self.analysis = analysis
        head = analysis.head
        self.ranges = [DiffRange(analysis.base, head, "whole submission (starter → HEAD)")]
        after_base = False
        for commit in analysis.commits:
            if after_base and commit.parents:
                self.ranges.append(DiffRange(commit.parents[0], commit.sha,
                                             f"commit {commit.short} “{safe_line(commit.subject, 60)}”"))
            after_base = after_base or commit.sha == analysis.base
        self.position = 0
        self.display_diff(self.ranges[0], analysis.diff)

    def display_diff(self, chosen: DiffRange, the_diff: diff.Diff) -> None:
        self.shown = chosen
        self.view.show(the_diff)
        files = self.query_one("#diff-files", DataTable)
        files.clear()
        for index, file_diff in enumerate(the_diff.files):
            files.add_row(Text(safe_line(file_diff.path, 120)), Text(str(file_diff.added)),
                          Text(str(file_diff.removed)), Text(str(file_diff.ai_added) if file_diff.ai_added else ""),
                          key=str(index))
        share = the_diff.ai_share
        parts = [chosen.label, f"+{the_diff.added} lines"]
        if share is not None:
            parts.append(f"AI-attributed {the_diff.ai_added} ({share:.0%})")
        analysis = self.analysis
        if analysis and analysis.draft and chosen.target == analysis.head:
            parts.append(f"draft {analysis.draft[:7]}: {analysis.draft_surviving} of its {analysis.draft_added} "
                         "added lines survive at HEAD")
        if analysis and analysis.base_problem and chosen == self.ranges[0]:
            parts.append(analysis.base_problem)
        if the_diff.problem:
            parts.append(the_diff.problem)
        self.query_one("#diff-range", Static).update(Content(safe_line(" · ".join(parts), 400)))

    @on(DiffView.HunkChanged)
    def hunk_changed(self, message: DiffView.HunkChanged) -> None:
        source = self.query_one("#diff-source", Static)
        hunk = message.hunk
        if hunk is None:
            source.update(Content(""))
            return
        sources = sorted({line.source for line in hunk.lines if line.tool and line.source})
        text = f"{message.file.path if message.file else ''} {hunk.header.split(' @@')[0]} @@ — " + (
            f"AI ({', '.join(hunk.tools)}) per {'; '.join(sources)}" if sources else "no AI attribution")
        source.update(Content(safe_line(text, 300)))

    @on(DataTable.RowSelected, "#diff-files")
    def file_selected(self, event: DataTable.RowSelected) -> None:
        self.view.go_to_file(int(event.row_key.value))
        self.view.focus()

    # ----------------------------------------------------------------- ranges

    def action_step(self, delta: int) -> None:
        if not self.ranges:
            return
        position = max(0, self.position) if self.position >= 0 else 0
        position = min(len(self.ranges) - 1, max(0, position + delta))
        if position == self.position:
            return
        self.position = position
        self.fetch(self.ranges[position])

    def action_whole(self) -> None:
        if self.ranges and self.position != 0:
            self.position = 0
            self.fetch(self.ranges[0])

    def action_draft(self) -> None:
        analysis = self.analysis
        if not analysis:
            return
        if not analysis.draft:
            self.app.notify("No commit's metadata names an assistant: there is no model draft to compare.",
                            markup=False)
            return
        self.position = -1
        self.fetch(DiffRange(analysis.draft, analysis.head,
                             f"model draft {analysis.draft[:7]} → HEAD (what the candidate changed after it)"))

    def action_toggle_files(self) -> None:
        self.files_toggled = True
        self.query_one("#diff-files", DataTable).toggle_class("hidden")

    @work(thread=True, exclusive=True, group="diff-range", name="diff-range")
    def fetch(self, chosen: DiffRange) -> None:
        analysis = self.analysis
        if analysis is None:
            return
        if chosen == self.ranges[0]:
            self.post_message(self.RangeLoaded(chosen, analysis.diff))
            return
        try:
            the_diff = analysis_module.diff_between(analysis, chosen.base, chosen.target)
        except gitsafe.GitSafeError as error:
            self.post_message(self.RangeLoaded(chosen, None, str(error)))
            return
        self.post_message(self.RangeLoaded(chosen, the_diff))

    @on(RangeLoaded)
    def range_loaded(self, message: RangeLoaded) -> None:
        if message.diff is None:
            self.app.notify(safe_line(f"That diff cannot be read: {message.problem}"), severity="error",
                            markup=False)
            return
        self.display_diff(message.range, message.diff)
