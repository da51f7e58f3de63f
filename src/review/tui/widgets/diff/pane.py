"""The diff pane: which range is shown (and whether its whitespace-only changes are), a file list
with counts and viewed marks, the diff view, the hunk's source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable, Input, Static

from review import gitsafe
from review.core import diff
from review.core.text import safe_line
from review.core.whitespace import hide_whitespace_changes
from review.services import failures, store, viewed
from review.services.analysis import Analysis, diff_between
from review.tui.widgets.diff.files import FileList
from review.tui.widgets.diff.header import Coverage, coverage_text, range_parts
from review.tui.widgets.diff.ranges import DiffRange, draft_range, since_review, step_from, submission_ranges
from review.tui.widgets.diff.view import SIDE_BY_SIDE_MIN, DiffView
from review.tui.widgets.diff.viewed import ViewedState
from review.tui.widgets.parts_line import PartsLine
from review.tui.widgets.text_box import TextBox


def said_once(sources: set[str]) -> list[str]:
    """The sources of a hunk's lines, each said once: "note line 15" is within "note line 15, and
    commit e448fe8", so only the longer is listed."""
    return sorted(s for s in sources if not any(t != s and t.startswith(s) for t in sources))


class DiffPane(Vertical):
    HELP_GROUP = "Diff"
    HELP_LISTED = {"close_search": "while in the search box"}
    BINDINGS = [
        Binding("greater_than_sign", "step(1)", "Next commit", id="diff.next-commit"),
        Binding("less_than_sign", "step(-1)", "Prev commit", id="diff.previous-commit"),
        Binding("d", "whole", "Whole diff", id="diff.whole"),
        Binding("D", "draft", "Draft→HEAD", id="diff.draft"),
        Binding("V", "since_review", "Since my review", id="diff.since-review"),
        Binding("W", "toggle_whitespace", "Hide whitespace-only changes", show=False, id="diff.whitespace"),
        Binding("v", "toggle_viewed", "Viewed", id="diff.viewed"),
        Binding("u", "next_unviewed", "Next unviewed file", show=False, id="diff.next-unviewed"),
        Binding("f", "toggle_files", "File list", id="diff.toggle-files"),
        Binding("c", "toggle_coverage", "Coverage on/off", id="diff.coverage"),
        # ? stays the help, as everywhere in the console: / and then N searches backwards.
        # Priority, as the triage's filter: the words typed in the same burst land in the box.
        Binding("slash", "search", "Search", show=False, priority=True, id="diff.search"),
        Binding("escape", "close_search", "Close search", show=False, id="diff.close-search"),
    ]
    DEFAULT_CSS = """
    DiffPane { height: 1fr; }
    DiffPane #diff-range { height: auto; max-height: 3; padding: 0 1; background: $panel; }
    DiffPane #diff-body { height: 1fr; }
    DiffPane #diff-files-box { width: 30; height: 1fr; }
    DiffPane #diff-files-box.hidden { display: none; }
    DiffPane #diff-viewed { height: 1; padding: 0 1; color: $text-muted; }
    DiffPane #diff-files { height: 1fr; }
    DiffPane DiffView { width: 1fr; height: 1fr; }
    DiffPane #diff-source { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    DiffPane #diff-search { height: 3; }
    DiffPane #diff-search.hidden { display: none; }
    """

    # W: the range without its whitespace-only changes (as `git diff -w`).
    hide_whitespace: reactive[bool] = reactive(False, init=False)

    @dataclass
    class Shown(Message):
        """The range on screen changed: the stub log runs its target commit."""

        range: DiffRange

    @dataclass
    class RangeLoaded(Message):
        range: DiffRange
        diff: diff.Diff | None
        problem: str | None = None

    @dataclass
    class Widen(Message):
        """Side by side was switched on (or off) where the pane is too narrow for it: the screen gives
        the pane the whole width (and takes it back)."""

        wide: bool

    @dataclass
    class WhitespaceHidden(Message):
        """`source` without its whitespace-only changes, made in a worker (None: they could not be
        hidden, and `problem` says why)."""

        source: diff.Diff
        hidden: diff.Diff | None
        problem: str | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis: Analysis | None = None
        self.ranges: list[DiffRange] = []
        # Index into self.ranges; -1 is draft..HEAD.
        self.position = 0
        self.shown: DiffRange | None = None
        # The range's diff as read, and what is on screen (without whitespace-only changes, with W).
        self.range_diff: diff.Diff | None = None
        self.shown_diff: diff.Diff | None = None
        self._without_space: DiffPane.WhitespaceHidden | None = None
        # The latest coverage run: (commit, what ran, path -> line -> count); shown on that commit's diffs.
        self.coverage: Coverage | None = None
        self.coverage_on = True
        # The commit this reviewer last scored, when HEAD moved since.
        self.reviewed: str | None = None
        self.viewed = ViewedState(self)
        # Three rows at most (the CSS's max-height), the last ending in "…" when more was left out.
        self.range_line = PartsLine("reading the submission…", max_rows=3, id="diff-range")
        self.files = FileList(id="diff-files")
        self.viewed_line = Static(id="diff-viewed")
        self.view = DiffView(id="diff-view")
        self.source_line = Static(id="diff-source")
        self.search_box = TextBox(
            placeholder="search the diff (enter finds; then n/N; escape cancels)", id="diff-search", classes="hidden"
        )

    def compose(self) -> ComposeResult:
        yield self.range_line
        with Horizontal(id="diff-body"):
            with Vertical(id="diff-files-box"):
                yield self.viewed_line
                yield self.files
            yield self.view
        yield self.source_line
        yield self.search_box

    def on_mount(self) -> None:
        self.files_toggled = False
        # Side by side asked the screen for the whole width (and gives it back when switched off).
        self.widened = False
        # Side by side hid the file list to have its columns (and shows it again when switched off).
        self.files_hidden_for_sides = False

    def on_resize(self) -> None:
        # Narrow terminals (80×24 in tmux) give the diff the width; `f` brings the list back.
        if not self.files_toggled and not self.files_hidden_for_sides:
            self.query_one("#diff-files-box").set_class(self.size.width < 110, "hidden")

    def preview(self, diff: diff.Diff, keep_position: bool = False) -> None:
        """The diff as soon as it is parsed (its first lines first, `partial`), before its lines are
        attributed: painted now, its lines' claims put on when the analysis lands (load)."""
        offset = self.view.scroll_offset
        self.view.show(diff)
        # The first lines were shown: the whole diff begins with the same rows.
        if keep_position:
            self.view.scroll_to(offset.x, offset.y, animate=False)
        self.fill_files(diff)
        lines = (
            f"its first {diff.added} added lines while the rest is parsed" if diff.partial else f"+{diff.added} lines"
        )
        self.range_line.set_parts(
            [
                "whole submission (starter → HEAD)",
                lines,
                "reading which lines an assistant wrote… (marks appear when it is read)",
            ]
        )

    def load(self, analysis: Analysis, keep_position: bool = False) -> None:
        """`keep_position`: the same diff was previewed, so where the reviewer scrolled to stays."""
        offset = self.view.scroll_offset
        self.analysis = analysis
        self.ranges = submission_ranges(analysis)
        self.position = 0
        self.display_diff(self.ranges[0], analysis.diff)
        if keep_position:
            self.view.scroll_to(offset.x, offset.y, animate=False)

    def display_diff(self, chosen: DiffRange, diff: diff.Diff) -> None:
        self.shown, self.range_diff = chosen, diff
        self.view.coverage = self.coverage_for(chosen)
        self.show_range_diff(keep_place=False)
        self.post_message(self.Shown(chosen))

    def show_range_diff(self, keep_place: bool) -> None:
        """The range's diff as read, or without its whitespace-only changes (made in a worker the
        first time: the diff as read is shown meanwhile)."""
        source = self.range_diff
        if source is None or self.shown is None:
            return
        shown = source
        if self.hide_whitespace:
            made = self._without_space
            if made is not None and made.source is source:
                shown = made.hidden or source
            else:
                self.hide_whitespace_of(source)
        self.shown_diff = shown
        self.view.show(shown, keep_place=keep_place)
        self.fill_files(shown)
        self.display_header(self.shown, shown)

    def fill_files(self, diff: diff.Diff) -> None:
        """The file list follows the diff shown, just after the diff's own rows are painted: 2,000 files
        were 2,000 table rows made before the first frame (a third of it), in a list often hidden."""
        self.files_for = diff
        self.files.clear()
        self.call_after_refresh(self._fill_files, diff)

    files_for: diff.Diff | None = None

    def _fill_files(self, diff: diff.Diff) -> None:
        if diff is not self.files_for:
            # Another diff was shown meanwhile: its own fill follows.
            return
        self.files.fill(diff.files, self.viewed.files(diff))
        self.viewed_line.update(Content(self.viewed.text(diff)))

    def display_header(self, chosen: DiffRange, diff: diff.Diff) -> None:
        """The range's counts are the range's own, whatever W hides from view."""
        parts = range_parts(
            chosen.label, self.range_diff or diff, self.analysis, bool(self.ranges) and chosen == self.ranges[0]
        )
        parts[1:1] = self.option_parts(diff)
        if self.viewed.note:
            parts.append(f"⚠ {self.viewed.note}")
        parts += coverage_text(self.coverage, self.coverage_on, chosen.target, diff)
        self.range_line.set_parts(parts)

    def option_parts(self, diff: diff.Diff) -> list[str]:
        """What the view leaves out or draws otherwise than plain, said where the range is named."""
        parts = []
        if self.hide_whitespace:
            hidden = diff.whitespace_hidden
            made = self._without_space
            if made is not None and made.source is diff and made.problem:
                parts.append(f"[W] whitespace-only changes not hidden: {made.problem}")
            else:
                parts.append(
                    "[W] hiding whitespace-only changes…"
                    if hidden is None
                    else f"[W] whitespace-only changes hidden: {hidden} line{'s' * (hidden != 1)}"
                )
        if self.viewed.applies(diff):
            parts.append(f"viewed {len(self.viewed.files(diff))}/{len(diff.files)}")
        view = self.view
        if not view.words:
            parts.append("word marks off (w)")
        if view.side_by_side and not view.paired:
            parts.append(
                f"side by side needs {SIDE_BY_SIDE_MIN} columns for the diff, it has {view.size.width} "
                "(a wider terminal)"
            )
        if view.search.active:
            parts.append(view.search.text())
        return parts

    @on(DiffView.OptionsChanged)
    def options_changed(self) -> None:
        view = self.view
        if view.side_by_side != self.widened and (not view.side_by_side or not view.paired):
            self.widened = view.side_by_side
            self.post_message(self.Widen(view.side_by_side))
        self.make_room_for_sides()
        if self.shown is not None and self.shown_diff is not None:
            self.display_header(self.shown, self.shown_diff)

    # ----------------------------------------------------------------- search

    def action_search(self) -> None:
        box = self.search_box
        box.value = self.view.search.query
        box.remove_class("hidden")
        self.screen.set_focus(box)

    @on(Input.Submitted, "#diff-search")
    def search_submitted(self, event: Input.Submitted) -> None:
        self.action_close_search()
        self.view.search.start(event.value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_search":
            # Outside the box, escape is the view's (clears a search) or the screen's (back to triage).
            return self.search_box.has_focus
        if action == "search":
            return not self.search_box.has_focus
        return True

    def action_close_search(self) -> None:
        self.search_box.add_class("hidden")
        self.view.focus()

    # ----------------------------------------------------------------- whitespace

    def action_toggle_whitespace(self) -> None:
        self.hide_whitespace = not self.hide_whitespace

    def watch_hide_whitespace(self) -> None:
        self.show_range_diff(keep_place=True)

    @work(thread=True, exclusive=True, group="diff-whitespace", name="diff-whitespace")
    def hide_whitespace_of(self, source: diff.Diff) -> None:
        try:
            made = self.WhitespaceHidden(source, hide_whitespace_changes(source))
        # Odd text costs the reviewer this view of it, never the console: said, and the diff stays whole.
        except Exception as error:
            made = self.WhitespaceHidden(source, None, failures.record("hiding whitespace", error))
        self.post_message(made)

    @on(WhitespaceHidden)
    def whitespace_hidden(self, message: WhitespaceHidden) -> None:
        self._without_space = message
        if self.hide_whitespace and message.source is self.range_diff:
            self.show_range_diff(keep_place=True)

    # ----------------------------------------------------------------- viewed files

    def use_viewed(self, submission: Path, reviewers: list[str], files: viewed.ViewedFiles) -> None:
        """Whose viewed files these are, and those read with the submission."""
        analysis = self.analysis
        self.viewed.start(
            submission, reviewers, analysis.head if analysis else "", analysis.head_blobs if analysis else {}
        )
        self.viewed_read(ViewedState.Read(files))

    @on(ViewedState.Read)
    def viewed_read(self, message: ViewedState.Read) -> None:
        self.viewed.read(message.files)
        if self.shown_diff is not None:
            self.fill_files(self.shown_diff)
            if self.shown is not None:
                self.display_header(self.shown, self.shown_diff)

    def scores_changed(self, files: dict[str, store.ScoreFile]) -> None:
        """Another console saved this submission's score file: its marks may have changed."""
        submission = self.viewed.submission
        scores = files.get(submission.name) if submission is not None else None
        if scores is not None:
            self.viewed.reread(scores)

    def _file_at_hand(self) -> int | None:
        """The file `v` marks: the list's highlighted one while it has focus, else the one last gone
        to (J, u, n…) or, once the diff scrolled, the one at the top."""
        if self.files.has_focus and self.files.row_count:
            return self.files.cursor_row
        return self.view.file_at_hand()

    def _viewed_apply(self) -> diff.Diff | None:
        diff = self.shown_diff
        if diff is not None and self.viewed.applies(diff):
            return diff
        self.app.notify("Viewed marks are kept for the files at HEAD: d shows the whole submission.", markup=False)
        return None

    def action_toggle_viewed(self) -> None:
        diff = self._viewed_apply()
        index = self._file_at_hand()
        if diff is None or index is None or not 0 <= index < len(diff.files):
            return
        path = diff.files[index].path
        now_viewed = index not in self.viewed.files(diff)
        change = {path: self.viewed.blob_of(path) if now_viewed else None}
        self.apply_viewed(change)
        self.viewed.save(change)
        done = len(self.viewed.files(diff))
        self.app.notify(
            safe_line(
                f"{path}: {'viewed' if now_viewed else 'not viewed'} ({done}/{len(diff.files)}"
                " viewed; u: the next unviewed file)",
                200,
            ),
            markup=False,
            timeout=3,
        )

    def apply_viewed(self, changes: dict[str, str | None]) -> None:
        self.viewed.change(changes)
        diff = self.shown_diff
        if diff is None or self.shown is None:
            return
        marked = self.viewed.files(diff)
        for index, file_diff in enumerate(diff.files):
            if file_diff.path in changes:
                self.files.set_viewed(index, index in marked)
        self.viewed_line.update(Content(self.viewed.text(diff)))
        self.display_header(self.shown, diff)

    @on(ViewedState.Failed)
    def viewed_failed(self, message: ViewedState.Failed) -> None:
        self.apply_viewed(self.viewed.undo(message.changes))
        self.app.notify(
            safe_line(f"The viewed mark was not kept: {message.problem}", 300), severity="error", markup=False
        )

    def action_next_unviewed(self) -> None:
        diff = self._viewed_apply()
        if diff is None or not diff.files:
            return
        marked = self.viewed.files(diff)
        count = len(diff.files)
        start = self._file_at_hand()
        start = -1 if start is None else start
        for step in range(1, count + 1):
            index = (start + step) % count
            if index not in marked:
                self.view.go_to_file(index)
                self.files.move_cursor(row=index, animate=False)
                return
        self.app.notify(f"Every file is viewed ({count}/{count}).", markup=False)

    # ----------------------------------------------------------------- coverage

    def coverage_for(self, chosen: DiffRange) -> dict[str, dict[int, int]] | None:
        if self.coverage is None or not self.coverage_on or self.coverage[0] != chosen.target:
            return None
        return self.coverage[2]

    def set_coverage(self, commit: str, what: str, counts: dict[str, dict[int, int]]) -> None:
        self.coverage = (commit, what, counts)
        self.coverage_on = True
        self.redisplay()

    def action_toggle_coverage(self) -> None:
        if self.coverage is None:
            self.app.notify("No coverage yet: in the Stub log pane (5), c runs a scenario with coverage.", markup=False)
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
        sources = said_once({line.source for line in hunk.lines if line.tool and line.source})
        moved = sorted({line.source for line in hunk.lines if line.moved and not line.tool})
        base = sorted({line.source for line in hunk.lines if line.state == diff.BASE and line.source})
        unknown = (
            sum(line.kind == "+" and not line.tool and not line.state for line in hunk.lines)
            if self.shown_diff is not None and self.shown_diff.claimed
            else 0
        )
        text = (
            f"{message.file.path if message.file else ''} {hunk.header.split(' @@')[0]} @@ — "
            + (f"AI ({', '.join(hunk.tools)}) per {'; '.join(sources)}" if sources else "no AI attribution")
            + (f" · ? {unknown} line{'s' * (unknown != 1)} no source speaks for" if unknown else "")
            + (f" · ⌂ {'; '.join(base)} (not counted)" if base else "")
            + (f" · {'; '.join(moved)}" if moved else "")
            + (f" · ↕ {'; '.join(end.text for _index, end in hunk.moves)} (M: the other end)" if hunk.moves else "")
        )
        source.update(Content(safe_line(text, 300)))

    @on(DataTable.RowSelected, "#diff-files")
    def file_selected(self, event: DataTable.RowSelected) -> None:
        self.view.go_to_file(int(event.row_key.value or 0))
        self.view.focus()

    # ----------------------------------------------------------------- ranges

    def action_step(self, delta: int) -> None:
        """Through the commits' own diffs, oldest first; from the whole submission, `<` opens the last
        commit's (HEAD's own change)."""
        if len(self.ranges) < 2:
            self.app.notify("No commit after the starter has a diff of its own to step to.", markup=False)
            return
        position = step_from(self.position, delta, len(self.ranges))
        if position is None:
            self.app.notify(
                "This is the last commit's diff (HEAD's own change); < steps back, d shows the whole submission.",
                markup=False,
            )
            return
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
        self.app.notify(
            "That commit has no diff of its own here (the starter commit, or before the base).", markup=False
        )
        return False

    def action_whole(self) -> None:
        if self.ranges and self.position != 0:
            self.position = 0
            self.fetch(self.ranges[0])

    def action_draft(self) -> None:
        analysis = self.analysis
        if not analysis:
            return
        chosen = draft_range(analysis)
        if chosen is None:
            self.app.notify(
                "No commit's metadata names an assistant: there is no model draft to compare.", markup=False
            )
            return
        self.position = -1
        self.fetch(chosen)

    def action_since_review(self) -> None:
        """Re-review: only what changed since the commit this reviewer scored."""
        chosen = since_review(self.analysis, self.reviewed) if self.analysis is not None else None
        if chosen is None:
            self.app.notify("HEAD has not moved since your review (or you have not reviewed it yet).", markup=False)
            return
        self.position = -2
        self.fetch(chosen)

    def make_room_for_sides(self) -> None:
        """Side by side takes the file list's columns when it needs them, and gives them back."""
        files = self.query_one("#diff-files-box")
        view = self.view
        if view.side_by_side and not view.paired and not files.has_class("hidden"):
            self.files_hidden_for_sides = True
            files.add_class("hidden")
        elif not view.side_by_side and self.files_hidden_for_sides:
            self.files_hidden_for_sides = False
            files.remove_class("hidden")

    def action_toggle_files(self) -> None:
        self.files_toggled = True
        self.files_hidden_for_sides = False
        self.query_one("#diff-files-box").toggle_class("hidden")

    @work(thread=True, exclusive=True, group="diff-range", name="diff-range")
    def fetch(self, chosen: DiffRange) -> None:
        analysis = self.analysis
        if analysis is None:
            return
        if chosen == self.ranges[0]:
            self.post_message(self.RangeLoaded(chosen, analysis.diff))
            return
        try:
            diff = diff_between(analysis, chosen.base, chosen.target)
        except gitsafe.GitSafeError as error:
            self.post_message(self.RangeLoaded(chosen, None, str(error)))
            return
        self.post_message(self.RangeLoaded(chosen, diff))

    @on(RangeLoaded)
    def range_loaded(self, message: RangeLoaded) -> None:
        if message.diff is None:
            self.app.notify(safe_line(f"That diff cannot be read: {message.problem}"), severity="error", markup=False)
            return
        self.display_diff(message.range, message.diff)
