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

from review import gitsafe
from review.core import diff
from review.core.text import safe_line
from review.services.analysis import Analysis, diff_between
from review.tui.widgets.diff.view import DiffView


@dataclass(frozen=True)
class DiffRange:
    base: str
    target: str
    label: str


class DiffPane(Vertical):

    HELP_GROUP = "Diff"
    BINDINGS = [
        Binding("greater_than_sign", "step(1)", "Next commit", id="diff.next-commit"),
        Binding("less_than_sign", "step(-1)", "Prev commit", id="diff.previous-commit"),
        Binding("d", "whole", "Whole diff", id="diff.whole"),
        Binding("D", "draft", "Draft→HEAD", id="diff.draft"),
        Binding("V", "since_review", "Since my review", id="diff.since-review"),
        Binding("f", "toggle_files", "File list", id="diff.toggle-files"),
        Binding("c", "toggle_coverage", "Coverage on/off", id="diff.coverage"),
    ]
    DEFAULT_CSS = """
    DiffPane { height: 1fr; }
    DiffPane #diff-range { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    DiffPane #diff-body { height: 1fr; }
    DiffPane #diff-files { width: 26; height: 1fr; }
    DiffPane #diff-files.hidden { display: none; }
    DiffPane DiffView { width: 1fr; height: 1fr; }
    DiffPane #diff-source { height: 1; padding: 0 1; color: $text-muted; }
    """

    @dataclass
    class Shown(Message):
        """The range on screen changed: the stub log runs its target commit."""

        range: DiffRange

    @dataclass
    class RangeLoaded(Message):
        range: DiffRange
        diff: diff.Diff | None
        problem: str | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis: Analysis | None = None
        self.ranges: list[DiffRange] = []
        # Index into self.ranges; -1 is draft..HEAD.
        self.position = 0
        self.shown: DiffRange | None = None
        self.shown_diff: diff.Diff | None = None
        # The latest coverage run: (commit, what ran, path -> line -> count); shown on that commit's diffs.
        self.coverage: tuple[str, str, dict[str, dict[int, int]]] | None = None
        self.coverage_on = True
        # The commit this reviewer last scored, when HEAD moved since.
        self.reviewed: str | None = None
        self.range_line = Static(Content("reading the submission…"), id="diff-range")
        self.files: DataTable = DataTable(cursor_type="row", id="diff-files")
        self.view = DiffView(id="diff-view")
        self.source_line = Static(id="diff-source")

    def compose(self) -> ComposeResult:
        yield self.range_line
        with Horizontal(id="diff-body"):
            yield self.files
            yield self.view
        yield self.source_line

    def on_mount(self) -> None:
        self.files.add_columns("File", "+", "−", "AI")
        self.files_toggled = False

    def on_resize(self) -> None:
        # Narrow terminals (80×24 in tmux) give the diff the width; `f` brings the list back.
        if not self.files_toggled:
            self.files.set_class(self.size.width < 110, "hidden")

    def preview(self, the_diff: diff.Diff, keep_position: bool = False) -> None:
        """The diff as soon as it is parsed (its first lines first, `partial`), before its lines are
        attributed: painted now, marked when the analysis lands (load)."""
        offset = self.view.scroll_offset
        self.view.show(the_diff)
        # The first lines were shown: the whole diff begins with the same rows.
        if keep_position:
            self.view.scroll_to(offset.x, offset.y, animate=False)
        self.fill_files(the_diff)
        lines = f"its first {the_diff.added} added lines while the rest is parsed" if the_diff.partial \
            else f"+{the_diff.added} lines"
        self.range_line.update(Content(safe_line(
            f"whole submission (starter → HEAD) · {lines} · reading which lines an assistant wrote… "
            "(marks appear when it is read)", 500)))

    def load(self, analysis: Analysis, keep_position: bool = False) -> None:
        """`keep_position`: the same diff was previewed, so where the reviewer scrolled to stays."""
        offset = self.view.scroll_offset
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
        if keep_position:
            self.view.scroll_to(offset.x, offset.y, animate=False)

    def display_diff(self, chosen: DiffRange, the_diff: diff.Diff) -> None:
        self.shown, self.shown_diff = chosen, the_diff
        self.view.coverage = self.coverage_for(chosen)
        self.view.show(the_diff)
        self.post_message(self.Shown(chosen))
        self.fill_files(the_diff)
        self.display_header(chosen, the_diff)

    def fill_files(self, the_diff: diff.Diff) -> None:
        """The file list follows the diff shown, just after the diff's own rows are painted: 2,000 files
        were 2,000 table rows made before the first frame (a third of it), in a list often hidden."""
        self.files_for = the_diff
        self.files.clear()
        self.call_after_refresh(self._fill_files, the_diff)

    files_for: diff.Diff | None = None

    def _fill_files(self, the_diff: diff.Diff) -> None:
        if the_diff is not self.files_for:
            # Another diff was shown meanwhile: its own fill follows.
            return
        files = self.files
        files.clear()
        for index, file_diff in enumerate(the_diff.files):
            ai_added = str(file_diff.ai_added) if file_diff.ai_added else ""
            files.add_row(Text(safe_line(file_diff.path, 120)), Text(str(file_diff.added)),
                          Text(str(file_diff.removed)), Text(ai_added), key=str(index))

    def display_header(self, chosen: DiffRange, the_diff: diff.Diff) -> None:
        totals = the_diff.totals()
        share = totals.ai_share
        parts = [chosen.label, f"+{totals.added} lines"]
        if share is not None:
            parts.append(f"AI-attributed {totals.code_ai_added} of {totals.code_added} lines of code "
                         f"({share:.0%})")
        left_out = totals.added - totals.code_added
        if left_out:
            reasons = sorted({f.excluded for f in the_diff.files if f.excluded and f.added})
            parts.append(f"{left_out} added lines not counted ({', '.join(reasons)})")
        analysis = self.analysis
        if analysis and analysis.draft and chosen.target == analysis.head:
            parts.append(f"draft {analysis.draft[:7]}: {analysis.draft_surviving} of its "
                         f"{analysis.draft_added} added lines survive at HEAD")
        if analysis and analysis.base_problem and chosen == self.ranges[0]:
            parts.append(analysis.base_problem)
        if analysis and chosen == self.ranges[0]:
            # What was not read or counted: said, never silent.
            parts += [f"⚠ {what}" for what in analysis.cut]
        if the_diff.problem:
            parts.append(the_diff.problem)
        parts += self.coverage_text(chosen, the_diff)
        self.range_line.update(Content(safe_line(" · ".join(parts), 500)))

    # ----------------------------------------------------------------- coverage

    def coverage_for(self, chosen: DiffRange) -> dict[str, dict[int, int]] | None:
        if self.coverage is None or not self.coverage_on or self.coverage[0] != chosen.target:
            return None
        return self.coverage[2]

    def coverage_text(self, chosen: DiffRange, the_diff: diff.Diff) -> list[str]:
        if self.coverage is None:
            return []
        commit, what, counts = self.coverage
        if not self.coverage_on:
            return ["coverage hidden (c shows it)"]
        if commit != chosen.target:
            return [f"coverage ({what}) is for {commit[:7]}, not this range's commit"]
        ran = missed = ai_ran = ai_missed = 0
        for file_diff in the_diff.files:
            file_counts = counts.get(file_diff.path, {})
            for hunk in file_diff.hunks:
                for line in hunk.lines:
                    count = file_counts.get(line.new_no) if line.kind == "+" and line.new_no else None
                    if count is None:
                        continue
                    ran, missed = ran + (count > 0), missed + (count == 0)
                    if line.tool:
                        ai_ran, ai_missed = ai_ran + (count > 0), ai_missed + (count == 0)
        text = f"coverage ({what}): {ran} added line(s) ran, {missed} did not"
        if ai_ran or ai_missed:
            text += f"; AI-attributed: {ai_ran} ran, {ai_missed} did not"
        return [text + " (counts in the gutter, as V8 reported them inside the sandbox)"]

    def set_coverage(self, commit: str, what: str, counts: dict[str, dict[int, int]]) -> None:
        self.coverage = (commit, what, counts)
        self.coverage_on = True
        self.redisplay()

    def action_toggle_coverage(self) -> None:
        if self.coverage is None:
            self.app.notify("No coverage yet: in the Stub log pane (5), c runs a scenario with coverage.",
                            markup=False)
            return
        self.coverage_on = not self.coverage_on
        self.redisplay()

    def redisplay(self) -> None:
        if self.shown is not None and self.shown_diff is not None:
            self.view.set_coverage(self.coverage_for(self.shown))
            self.display_header(self.shown, self.shown_diff)

    @on(DiffView.HunkChanged)
    def hunk_changed(self, message: DiffView.HunkChanged) -> None:
        source = self.source_line
        hunk = message.hunk
        if hunk is None:
            source.update(Content(""))
            return
        sources = sorted({line.source for line in hunk.lines if line.tool and line.source})
        moved = sorted({line.source for line in hunk.lines if line.moved and not line.tool})
        text = f"{message.file.path if message.file else ''} {hunk.header.split(' @@')[0]} @@ — " + (
            f"AI ({', '.join(hunk.tools)}) per {'; '.join(sources)}" if sources else "no AI attribution") + (
            f" · {'; '.join(moved)}" if moved else "")
        source.update(Content(safe_line(text, 300)))

    @on(DataTable.RowSelected, "#diff-files")
    def file_selected(self, event: DataTable.RowSelected) -> None:
        self.view.go_to_file(int(event.row_key.value or 0))
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

    def show_commit(self, sha: str) -> bool:
        """That commit's own diff (False when it has none here: the starter, or a merge)."""
        for position, candidate in enumerate(self.ranges):
            if position and candidate.target == sha:
                self.position = position
                self.fetch(candidate)
                return True
        self.app.notify("That commit has no diff of its own here (the starter commit, or before the base).",
                        markup=False)
        return False

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
        label = f"model draft {analysis.draft[:7]} → HEAD (what the candidate changed after it)"
        self.fetch(DiffRange(analysis.draft, analysis.head, label))

    def since_review_range(self) -> DiffRange | None:
        if self.analysis is None or self.reviewed is None or self.reviewed == self.analysis.head:
            return None
        label = f"since your review at {self.reviewed[:7]} → HEAD {self.analysis.head[:7]} " \
                "(d: whole submission)"
        return DiffRange(self.reviewed, self.analysis.head, label)

    def action_since_review(self) -> None:
        """Re-review: only what changed since the commit this reviewer scored."""
        chosen = self.since_review_range()
        if chosen is None:
            self.app.notify("HEAD has not moved since your review (or you have not reviewed it yet).",
                            markup=False)
            return
        self.position = -2
        self.fetch(chosen)

    def action_toggle_files(self) -> None:
        self.files_toggled = True
        self.files.toggle_class("hidden")

    @work(thread=True, exclusive=True, group="diff-range", name="diff-range")
    def fetch(self, chosen: DiffRange) -> None:
        analysis = self.analysis
        if analysis is None:
            return
        if chosen == self.ranges[0]:
            self.post_message(self.RangeLoaded(chosen, analysis.diff))
            return
        try:
            the_diff = diff_between(analysis, chosen.base, chosen.target)
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
