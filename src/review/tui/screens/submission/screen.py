"""One submission: the diff with AI-attributed hunks, the note as written, the commits, the stub log,
and the rubric form whose scores are saved next to the submission.

The screen composes its panes once and owns small helpers: `DeferredPanes` (the panes mounted after
the first frame), `Scoring` (the rubric's saves, over a `services.scoring.ScoreSession`), `Navigation`
(from evidence to its source) and `Runs` (the harness jobs the stub log shows)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Vertical
from textual.content import Content
from textual.events import DescendantFocus, Resize
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Static, Tab, Tabs

from review import gitsafe
from review.core.diff import Diff
from review.core.text import safe_line
from review.harness import candidate_tests, runner
from review.services import cohort, evidence_document, failures, store, viewed
from review.services.analysis import Analysis
from review.services.runs import Target
from review.services.scoring import RubricChoice, ScoreSession
from review.tui.context import ConsoleContext
from review.tui.modals.anchor import AnchorCommentScreen
from review.tui.screens.submission import panes
from review.tui.screens.submission.deferred import DeferredPanes
from review.tui.screens.submission.navigation import Navigation
from review.tui.screens.submission.runs import Runs
from review.tui.screens.submission.scoring import Scoring
from review.tui.widgets.diff.code import load_lexers
from review.tui.widgets.diff.commits import CommitsTable, commit_detail
from review.tui.widgets.diff.pane import DiffPane
from review.tui.widgets.footer import KeysFooter
from review.tui.widgets.note_view import NoteView
from review.tui.widgets.rubric_form import RubricForm, SignalRow
from review.tui.widgets.stub_log.log import StubLog

if TYPE_CHECKING:
    from review.tui.screens.cohort_similar import SimilarityWatch


@dataclass(frozen=True)
class Closed:
    """What the triage screen learns when a submission closes, without reading files again."""

    open_next: bool
    # The score file as last read or written here.
    scores: store.ScoreFile | None
    # The latest full suite at HEAD (one scenario run on its own never stands for it).
    suite: runner.SuiteResult | None


class SubmissionScreen(Screen[Closed]):
    BINDING_GROUP_TITLE = "Submission"
    AUTO_FOCUS = "#diff-view"
    # Listed by `?` even while they do nothing, with when they act.
    HELP_LISTED = {"log_to_code": "from a stub-log line", "anchor_comment": "in the stub log or the diff"}
    BINDINGS = [
        Binding("escape,backspace", "back", "Back", id="submission.back"),
        # As in tig, q closes the view: back to triage (q there quits; ctrl+q quits from here).
        Binding("q", "back", "Back", show=False, id="submission.close"),
        # Digits and F-keys: alt+digit is unreliable through tmux and some terminals.
        Binding("1,f2", "pane('diff')", "Diff", id="submission.pane-diff"),
        Binding("2,f3", "pane('note')", "Note", id="submission.pane-note"),
        Binding("3,f4", "pane('commits')", "Commits", id="submission.pane-commits"),
        Binding("4,f5", "pane('rubric')", "Rubric", id="submission.pane-rubric"),
        Binding("5,f6", "pane('log')", "Stub log", id="submission.pane-log"),
        Binding("z", "zoom", "Zoom pane", id="submission.zoom"),
        Binding("ctrl+s", "save", "Save", id="submission.save"),
        Binding("ctrl+n", "save_and_next", "Save & next", id="submission.save-next"),
        # A browser keeps ctrl+n (a new window): the key it leaves to the page (`review serve`).
        Binding("ctrl+g", "save_and_next", "Save & next", show=False, id="submission.save-next-alt"),
        Binding("R", "reload_theirs", "Reload theirs", show=False, id="submission.reload-theirs"),
        # Only while the stub log has focus (elsewhere g is the focused pane's own key).
        Binding("g", "log_to_code", "Go to the code", id="submission.log-to-code"),
        Binding("m", "anchor_comment", "Comment here", id="submission.comment-here"),
        # `m` on the triage row; here m anchors a comment.
        Binding("x", "similar", "Similar code", id="submission.similar"),
        Binding("tab", "cycle_pane(1)", "Next pane", show=False, id="submission.focus-next"),
        Binding("shift+tab", "cycle_pane(-1)", "Previous pane", show=False, id="submission.focus-previous"),
    ]

    # The pane the reviewer last chose (in tabs, the one on screen).
    active_pane: reactive[str] = reactive("diff", init=False, repaint=False)
    # The left pane of a grid: diff, commits, or the note when it has no column of its own.
    main_pane: reactive[str] = reactive("diff", init=False, repaint=False)
    # z: the active pane alone, on the whole screen.
    zoomed: reactive[bool] = reactive(False, init=False, repaint=False)
    # The HEAD triage's folder watch saw this submission's folder move to while it is open.
    moved_head: reactive[str | None] = reactive(None, init=False, repaint=False)

    @dataclass
    class DiffParsed(Message):
        """The diff, parsed, while its lines are still being attributed (not read ahead by triage)."""

        diff: Diff

    @dataclass
    class Loaded(Message):
        analysis: Analysis | None
        problem: str | None = None
        # Earlier runs, per commit id: what the timeline already knows before anything runs.
        suites: dict[str, runner.SuiteResult] | None = None
        tests: dict[str, candidate_tests.TestRun] | None = None
        # Read in the worker, with the rest.
        scores: store.ScoreFile | None = None
        # This reviewer's viewed files, from the score file.
        viewed_files: viewed.ViewedFiles | None = None

    def __init__(
        self, context: ConsoleContext, row: cohort.Row, rubric: RubricChoice, similar: SimilarityWatch | None = None
    ) -> None:
        super().__init__()
        self.context = context
        # The triage's comparison of the cohort's code (the pair view's), when opened from the triage.
        self.similar = similar
        self.session = context.session
        self.path = Path(row.path)
        self.row = row
        self.analysis: Analysis | None = None
        # The latest suite at HEAD.
        self.suite: runner.SuiteResult | None = None
        # Commit -> red | green | none: the candidate's own tests.
        self.test_runs: dict[str, str] = {}
        # What the diff pane shows already, and what it painted before its analysis landed.
        self.diff_for: Analysis | None = None
        self.previewed: Diff | None = None
        # What the worker read while the panes were still being mounted.
        self.waiting: SubmissionScreen.Loaded | None = None
        self.layout_name = "tabs"
        # Zoomed by side by side (not by z): switching it off gives the panes back.
        self.zoomed_for_diff = False
        # 4 comes back to it after g went to its evidence.
        self.last_signal: SignalRow | None = None
        # The panes' widgets, made once: composed in the first frame or mounted just after it.
        self.title_bar = Static(
            Content(safe_line(f"{row.name} · HEAD {(row.head or '?')[:12]}", 200)), id="submission-title"
        )
        self.tabs = Tabs(
            *(
                Tab(f"{panes.KEYS[name]} {panes.TITLES[name]}", id=f"tab-{name}")
                for name in sorted(panes.KEYS, key=lambda pane: panes.KEYS[pane])
            ),
            id="pane-tabs",
        )
        self.workspace = Container(id="workspace")
        self.frames: dict[str, Vertical] = {}
        self.diff_pane = DiffPane(id="diff-pane")
        self.commits_table = CommitsTable(cursor_type="row", zebra_stripes=True, id="commits-table")
        self.commit_info = Static(id="commit-detail")
        self.note_view = NoteView(id="note-view")
        self.stub_log = StubLog(id="stub-log")
        self.form = RubricForm(rubric.rubric, id="rubric-form")
        self.score_session = ScoreSession(self.path, context.reviewers, rubric, context.blind)
        self.scoring = Scoring(self, self.score_session, self.form, self.saved_facts, self.finish)
        self.deferred = DeferredPanes(self, self.pane_content, self.panes_mounted)
        self.navigation = Navigation(self)
        self.runs = Runs(self, self.stub_log)

    @property
    def panes_ready(self) -> bool:
        return self.deferred.ready

    # ----------------------------------------------------------------- composing

    def compose(self) -> ComposeResult:
        # Panes composed already arranged for the terminal (arranged after mount, all were restyled).
        self.layout_name = panes.arrangement(*self.app.size)
        shown = panes.shown(self.layout_name, self.active_pane, self.main_pane)
        yield self.title_bar
        self.tabs.display = self.layout_name == "tabs"
        yield self.tabs
        # Every pane is composed once; the arrangement only changes which are displayed and where. The
        # ones off screen are mounted just after the first frame (fewer widgets to style before it).
        self.workspace.set_class(True, f"-{self.layout_name}")
        with self.workspace:
            for name in panes.ORDER:
                self.frames[name] = frame = panes.box(name, shown)
                with frame:
                    if name in shown or name == "diff":
                        yield from self.pane_content(name)
        self.deferred.defer(
            {name: frame for name, frame in self.frames.items() if name not in shown and name != "diff"}
        )
        yield KeysFooter()

    def pane_content(self, name: str) -> Iterator[Widget]:
        if name == "diff":
            yield self.diff_pane
        elif name == "commits":
            yield self.commits_table
            yield self.commit_info
        elif name == "note":
            yield self.note_view
        elif name == "log":
            yield self.stub_log
        else:
            yield self.form

    def on_mount(self) -> None:
        self.call_after_refresh(self.deferred.mount)
        # As composed, unless the terminal changed size meanwhile.
        self.arrange_panes()
        self.context.subscribe_to_scores(self, self.scoring.scores_changed)
        self.context.subscribe_to_scores(self, self.diff_pane.scores_changed)
        self.context.subscribe_to_suites(self, self.suite_written)
        self.context.subscribe_to_heads(self, self.heads_moved)
        known = self.session.last_opened(self.path, self.row.head)
        # Read ahead by triage: the diff is in the first frame; the worker checks HEAD.
        if known is not None:
            self.diff_pane.load(known)
            self.diff_for = known
        self.load()

    def on_unmount(self) -> None:
        self.context.release(self)

    def panes_mounted(self) -> None:
        """Every pane is mounted: fill them with what was read meanwhile."""
        if self.waiting is not None:
            self.fill_panes(self.waiting)
            self.waiting = None

    async def on_key(self, event: events.Key) -> None:
        if self.deferred.hold(event):
            event.stop()
            return
        # A pane key acts here, as it reaches the screen, not once the app reads it back for its
        # bindings: a key queued right behind it (5 then r) reaches the screen after, and waits for
        # the focus the pane key moves (a text box keeps its digits: they never come up here).
        bound = self.active_bindings.get(event.key)
        if bound is not None and bound.node is self and bound.binding.action.startswith("pane("):
            event.stop()
            await self.run_action(bound.binding.action)

    # ----------------------------------------------------------------- layout

    def on_resize(self, event: Resize) -> None:
        self.arrange_panes()

    def watch_active_pane(self) -> None:
        self.arrange_panes()

    def watch_main_pane(self) -> None:
        self.arrange_panes()

    def watch_zoomed(self) -> None:
        self.arrange_panes()

    def action_zoom(self) -> None:
        self.zoomed_for_diff = False
        self.zoomed = not self.zoomed
        self.app.notify("z again restores the panes" if self.zoomed else "panes restored", markup=False, timeout=2)

    @on(DiffPane.Widen)
    def widen_diff(self, message: DiffPane.Widen) -> None:
        """Side by side on a terminal that has the columns, where the diff pane does not: zoomed."""
        if message.wide and not self.zoomed:
            self.zoomed_for_diff = self.zoomed = True
        elif not message.wide and self.zoomed_for_diff:
            self.zoomed_for_diff = self.zoomed = False

    def arrange_panes(self) -> None:
        self.layout_name = "tabs" if self.zoomed else panes.arrangement(self.size.width, self.size.height)
        for name in ("tabs", "wide", "wider"):
            self.workspace.set_class(self.layout_name == name, f"-{name}")
        shown = panes.shown(self.layout_name, self.active_pane, self.main_pane)
        for name, frame in self.frames.items():
            frame.display = name in shown
            frame.set_class(panes.tall(name, shown), "-tall")
        if "note" in shown:
            # "Read" means it was on screen, in its own column or as the main pane.
            self.scoring.note_shown()
        self.tabs.display = self.layout_name == "tabs" and not self.zoomed
        if self.tabs.active != f"tab-{self.active_pane}":
            self.tabs.active = f"tab-{self.active_pane}"

    @on(Tabs.TabActivated, "#pane-tabs")
    def tab_clicked(self, event: Tabs.TabActivated) -> None:
        name = (event.tab.id or "").removeprefix("tab-")
        if name in panes.KEYS and name != self.active_pane:
            self.action_pane(name)

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """Focus moved (tab, a click): the pane it moved into becomes the active one."""
        if isinstance(event.widget, SignalRow):
            self.last_signal = event.widget
        for node in event.widget.ancestors_with_self:
            name = next((name for name, frame in self.frames.items() if frame is node), None)
            if name is not None:
                # Not arranged again: focus passing through a pane being hidden must not bring it back.
                self.set_reactive(SubmissionScreen.active_pane, name)
                self.tabs.active = f"tab-{name}"
                if name == "note":
                    self.scoring.note_shown()
                return

    def action_pane(self, name: str) -> None:
        # A tab clicked in the instant before the panes are mounted.
        if not self.panes_ready:
            return
        self.show_pane(name)
        if name == "note":
            self.note_view.focus()
        elif name == "diff":
            self.diff_pane.view.focus()
        elif name == "log":
            self.stub_log.focus_log()
        elif name == "rubric":
            rows = self.form.rows()
            last = self.last_signal if self.last_signal in rows else None
            if last or rows:
                target = last or rows[0]
                target.focus()
                # The pane was hidden a moment ago: brought into view once it is laid out.
                self.call_after_refresh(target.scroll_visible, animate=False)
        else:
            self.commits_table.focus()
        # Focus moves on a callback: a key typed right after (5 then r) may be queued already, and
        # belongs to the pane it was typed for.
        self.deferred.wait_for_focus()

    PANE_ORDER = ("diff", "note", "commits", "rubric", "log")

    def action_cycle_pane(self, step: int) -> None:
        """tab / shift+tab: the next pane in 1–5 order among those on screen (in tabs, or zoomed,
        every pane: the tab shown changes with it), focused as its digit does."""
        current = next((name for name in self.PANE_ORDER if self.focus_in(name)), self.active_pane)
        candidates = [
            name for name in self.PANE_ORDER if self.layout_name == "tabs" or self.zoomed or self.frames[name].display
        ]
        at = candidates.index(current) if current in candidates else -1
        self.action_pane(candidates[(at + step) % len(candidates)])

    def show_pane(self, name: str) -> None:
        """Put a pane on screen without moving focus (when there is room, others stay beside it)."""
        if self.layout_name == "tabs":
            self.active_pane = name
        if name in ("diff", "commits", "note") and not (name == "note" and self.layout_name == "wider"):
            self.main_pane = name
        if name == "note":
            self.scoring.note_shown()

    def focus_in(self, pane: str) -> bool:
        focused = self.focused
        return focused is not None and self.frames[pane] in focused.ancestors_with_self

    # ----------------------------------------------------------------- reading the submission

    @work(thread=True, exclusive=True, group="submission", name="submission-load")
    def load(self) -> None:
        try:
            # Triage's analysis when it made one at this HEAD; else the diff is painted once parsed.
            result = self.session.open(self.path, on_diff=lambda parsed: self.post_message(self.DiffParsed(parsed)))
            # Candidate-blind: its authors are masked before anything is drawn.
            self.context.register_people(self.path, result.commits, result.base)
            # Computed here, in the worker: a 130k-line diff took a second on the UI thread.
            result.code  # noqa: B018
            load_lexers(result.diff)
            suites, tests = self.session.earlier_runs(result.commits)
            scores = self.session.scores(self.path)
            viewed_files = viewed.read(scores, self.score_session.reviewers)
        except (gitsafe.GitSafeError, cohort.CohortError) as error:
            self.post_message(self.Loaded(None, str(error)))
            return
        # One boundary per submission: its banner, never the console's end.
        except Exception as error:
            self.post_message(self.Loaded(None, failures.record(f"submission {self.path}", error)))
            return
        self.post_message(self.Loaded(result, suites=suites, tests=tests, scores=scores, viewed_files=viewed_files))

    @on(DiffParsed)
    def diff_parsed(self, message: DiffParsed) -> None:
        shown = self.previewed
        if self.diff_for is None and not (message.diff.partial and shown is not None and not shown.partial):
            self.diff_pane.preview(message.diff, keep_position=shown is not None)
            self.previewed = message.diff

    @on(Loaded)
    def loaded(self, message: Loaded) -> None:
        if message.analysis is None:
            self.title_bar.update(Content(safe_line(f"{self.row.name}: {message.problem or 'unreadable'}", 300)))
            return
        # Not painted at mount, or HEAD moved since triage read it.
        if message.analysis is not self.diff_for:
            self.diff_pane.load(message.analysis, keep_position=message.analysis.diff is self.previewed)
            self.diff_for = message.analysis
        if self.panes_ready:
            self.fill_panes(message)
        else:
            self.waiting = message

    def fill_panes(self, message: Loaded) -> None:
        assert message.analysis is not None
        self.analysis = analysis = message.analysis
        # The HEAD read now, which triage may not have seen.
        self.show_title()
        suites, tests = message.suites or {}, message.tests or {}
        self.suite = suites.get(analysis.head)
        self.test_runs = {sha: run.colour for sha, run in tests.items()}
        runs = self.runs
        runs.repo = analysis.repo
        runs.head = runs.target = self.target_for(analysis.head)
        runs.draft = Target(analysis.draft, f"draft {analysis.draft[:7]}") if analysis.draft else None
        if self.suite:
            self.stub_log.last_verdicts = self.suite.verdicts_said()
            # The pane opens with the run triage (or an earlier session) made.
            self.stub_log.show_earlier(self.suite)
        scores = message.scores or store.ScoreFile(store.score_path(self.path))
        self.diff_pane.use_viewed(self.path, self.score_session.reviewers, message.viewed_files or viewed.ViewedFiles())
        self.scoring.start(analysis.head, [(c.sha, c.subject) for c in analysis.commits], scores)
        self.refresh_evidence()
        self.navigation.start_re_review(self.score_session.reviewed_before, suites)
        self.note_view.load(analysis)
        self.commits_table.fill(analysis.commits, analysis.commit_attributions, suites, tests)
        self.show_commit(0)
        if self.frames["note"].display:
            self.scoring.note_shown()
        # A move seen while the submission was still being read is said now.
        self.show_title()

    def show_title(self) -> None:
        head = self.analysis.head if self.analysis is not None else self.row.head
        title = f"{self.row.name} · HEAD {(head or '?')[:12]}"
        if self.score_session.moved_text() and self.moved_head is not None:
            title += f" · ⚠ HEAD now {self.moved_head[:7]}: reopen to review it"
        self.title_bar.update(Content(safe_line(title, 200)))

    def heads_moved(self, heads: dict[str, str]) -> None:
        """Triage's folder watch saw listed submissions' HEAD move: this one's, if among them."""
        self.moved_head = heads.get(self.path.name, self.moved_head)

    def watch_moved_head(self, head: str | None) -> None:
        if head is not None:
            self.scoring.head_moved(head)
        self.show_title()

    @on(DataTable.RowHighlighted, "#commits-table")
    def commit_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_commit(event.cursor_row)

    def show_commit(self, index: int) -> None:
        if not self.analysis or not (0 <= index < len(self.analysis.commits)):
            return
        text = commit_detail(self.analysis.commits[index], self.analysis.commit_attributions[index])
        self.commit_info.update(Content(text))

    # ----------------------------------------------------------------- evidence

    def evidence(self) -> evidence_document.EvidenceDocument:
        """The evidence `review show` prints, from what this screen holds (no I/O: the code was read
        in the load worker)."""
        assert self.analysis is not None
        return evidence_document.build(
            self.analysis,
            self.suite,
            dict(self.test_runs),
            self.score_session.rubric,
            self.score_session.scores,
        )

    def refresh_evidence(self) -> None:
        if self.analysis is not None:
            self.form.set_evidence(self.evidence().hints())

    @on(SignalRow.GoTo)
    def go_to_evidence(self, message: SignalRow.GoTo) -> None:
        self.navigation.go_to_source(message.hint.source, message.row.signal.name)

    def action_log_to_code(self) -> None:
        self.navigation.log_to_code()

    def action_anchor_comment(self) -> None:
        """m: a comment on the hunk the diff shows, or on the scenario at the top of the stub log."""
        at = self.navigation.log_anchor() if self.focus_in("log") else self.navigation.diff_anchor()
        if at is None:
            self.app.notify("Nothing here to comment on yet.", markup=False)
            return

        before = self.form.anchored_at(at)

        def keep(text: str | None) -> None:
            if text is None or text == before:
                return
            self.form.set_anchored(at, text)
            said = f"comment kept on {at} (listed in the rubric)" if text else f"comment on {at} deleted"
            self.app.notify(safe_line(said, 200), markup=False)

        # m again at the same place edits the comment kept there.
        self.app.push_screen(AnchorCommentScreen(at, before), keep)

    # ----------------------------------------------------------------- runs → evidence, diff, timeline

    @on(DiffPane.Shown)
    def diff_shown(self, message: DiffPane.Shown) -> None:
        """`r` in the stub log runs the commit the diff shows."""
        if self.analysis is not None:
            self.runs.target = self.target_for(message.range.target)

    def target_for(self, commit: str) -> Target:
        assert self.analysis is not None
        return Target(commit, f"HEAD {commit[:7]}" if commit == self.analysis.head else f"commit {commit[:7]}")

    @on(StubLog.Asked)
    def run_asked(self, message: StubLog.Asked) -> None:
        self.runs.asked(message)

    @on(StubLog.SuiteDone)
    def suite_done(self, message: StubLog.SuiteDone) -> None:
        """A run just finished: its verdicts become evidence beside the rubric at once."""
        suite = message.suite
        if not suite.is_full:
            # One scenario on its own: shown in the log as that, never as the suite (the evidence, the
            # commits table and the triage row keep the latest full suite).
            ran = ", ".join(f"{result.name} {result.verdict}" for result in suite.scenarios)
            kept = (
                "keep the latest full suite"
                if self.suite and suite.commit == self.suite.commit
                else "wait for a full suite"
            )
            self.stub_log.add(
                f"one scenario run on its own ({ran}): the evidence and the triage row {kept} (r runs it)"
            )
            return
        self.commits_table.set_cells(suite.commit, suite=suite)
        if self.analysis is not None and suite.commit == self.analysis.head:
            self.suite = suite
            self.refresh_evidence()

    def suite_written(self, suite: runner.SuiteResult) -> None:
        """A full suite for this HEAD written elsewhere (`review harness` in another terminal): shown as
        an earlier run is, unless the pane has one already or a run of its own is under way."""
        if self.analysis is None or suite.commit != self.analysis.head or self.suite or self.stub_log.running:
            return
        self.suite = suite
        self.stub_log.last_verdicts = suite.verdicts_said()
        self.stub_log.show_earlier(suite)
        self.commits_table.set_cells(suite.commit, suite=suite)
        self.refresh_evidence()

    @on(StubLog.CompareDone)
    def compare_done(self, message: StubLog.CompareDone) -> None:
        compared = message.comparison
        self.commits_table.set_cells(compared.before.commit, suite=compared.before_suite)
        self.commits_table.set_cells(compared.after.commit, suite=compared.after_suite)
        if self.analysis is not None and compared.after.commit == self.analysis.head:
            self.suite = compared.after_suite
            self.refresh_evidence()

    @on(StubLog.TimelineEntry)
    def timeline_entry(self, message: StubLog.TimelineEntry) -> None:
        entry = message.entry
        self.commits_table.set_cells(entry.commit, entry.suite, entry.tests)
        if entry.tests is not None:
            self.test_runs[entry.commit] = entry.tests.colour
        if self.analysis is not None and entry.commit == self.analysis.head and entry.suite is not None:
            self.suite = entry.suite
        self.refresh_evidence()

    @on(StubLog.CoverageDone)
    def coverage_done(self, message: StubLog.CoverageDone) -> None:
        result = message.result
        if not result.coverage:
            self.app.notify(
                safe_line(
                    f"Coverage of {result.name} recorded nothing ({result.verdict}: {'; '.join(result.reasons)})", 300
                ),
                severity="warning",
                markup=False,
            )
            return
        pane = self.diff_pane
        pane.set_coverage(message.target.commit, f"{result.name}: {result.verdict}", result.coverage)
        if not pane.display or not self.frames["diff"].display:
            self.app.notify(
                safe_line(f"Coverage of {result.name} is in the diff pane (1): counts in the gutter.", 200),
                markup=False,
            )

    def timeline_targets(self) -> list[Target]:
        assert self.analysis is not None
        return [self.target_for(c.sha) for c in self.analysis.commits]

    def action_timeline(self) -> None:
        if self.analysis is None:
            return
        self.runs.timeline(self.timeline_targets())

    def highlighted_commit(self) -> Target | None:
        table = self.commits_table
        if self.analysis is None or table.row_count == 0:
            return None
        index = table.cursor_row
        return self.timeline_targets()[index] if 0 <= index < len(self.analysis.commits) else None

    def action_before_after_from_commit(self) -> None:
        chosen, head = self.highlighted_commit(), self.runs.head
        if chosen is None or head is None:
            return
        if chosen.commit == head.commit:
            self.app.notify("That is HEAD: pick an earlier commit to compare with it.", markup=False)
            return
        if self.runs.before_after(chosen, head) and self.layout_name == "tabs":
            self.action_pane("log")

    def action_commit_diff(self) -> None:
        chosen = self.highlighted_commit()
        if chosen is not None and self.diff_pane.show_commit(chosen.commit):
            self.action_pane("diff")

    # ----------------------------------------------------------------- scoring and leaving

    def saved_facts(self) -> tuple[str | None, float | None]:
        """What a saved entry records beside the tiers: the harness at HEAD and the AI share."""
        return (self.suite.summary if self.suite else None, self.analysis.diff.ai_share if self.analysis else None)

    @on(RubricForm.Edited)
    def edited(self) -> None:
        self.scoring.edited()

    @on(RubricForm.StateAsked)
    def state_asked(self) -> None:
        self.scoring.state_asked()

    @on(Scoring.Saved)
    def saved(self, message: Scoring.Saved) -> None:
        self.scoring.saved(message)

    @on(Scoring.SaveFailed)
    def save_failed(self, message: Scoring.SaveFailed) -> None:
        self.scoring.failed(message)

    def action_similar(self) -> None:
        """This submission beside the ones it shares most code with, as from its triage row."""
        if self.similar is None:
            self.app.notify("The cohort's code is compared from the triage.", markup=False)
            return
        self.similar.open_pair(self.row.name)

    def action_save(self) -> None:
        self.scoring.save()

    def action_save_and_next(self) -> None:
        self.scoring.save(then="next")

    def action_reload_theirs(self) -> None:
        self.scoring.reload_theirs()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.panes_ready:
            return action == "back"
        if action == "log_to_code":
            return self.focus_in("log")
        if action == "anchor_comment":
            return self.focus_in("log") or self.focus_in("diff")
        return True

    def action_back(self) -> None:
        # Escape stops a run first (the timeline runs while the Commits pane has focus).
        if self.stub_log.running:
            self.runs.cancel()
            self.app.notify("Run cancelled; escape again goes back to triage.", markup=False)
            return
        self.leave("back")

    def leave(self, then: str) -> None:
        """Back to triage ("back"), the next unscored ("next") or "quit"; unsaved changes ask first."""
        self.scoring.leave(then)

    def finish(self, then: str) -> None:
        if then == "quit":
            self.app.exit()
        else:
            self.dismiss(Closed(then == "next", self.score_session.scores, self.suite))
