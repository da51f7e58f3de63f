"""One submission: the diff with AI-attributed hunks, the note as written, the commits, and the
rubric form whose scores are saved next to the submission."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.content import Content
from textual.events import DescendantFocus, Resize
from textual.message import Message
from textual.widgets import DataTable, Static, Tab, Tabs

from review import gitsafe
from review.core.diff import Diff
from review.core.evidence import Inputs, gather
from review.core.text import safe_line
from review.harness import candidate_tests, runner, scenarios
from review.services import cohort, failures, store
from review.services.analysis import Analysis
from review.services.session import Session
from review.tui.modals.anchor import AnchorCommentScreen
from review.tui.score_updates import subscribe_to_scores
from review.tui.screens.submission import navigation, panes
from review.tui.screens.submission.deferred import DeferredPanesScreen
from review.tui.widgets.diff.commits import CommitsTable, commit_detail
from review.tui.widgets.diff.pane import DiffPane
from review.tui.widgets.diff.view import load_lexers
from review.tui.widgets.footer import KeysFooter
from review.tui.widgets.note_view import NoteView
from review.tui.widgets.rubric_form import SignalRow
from review.tui.widgets.stub_log.log import StubLog, Target


class SubmissionScreen(DeferredPanesScreen):
    BINDING_GROUP_TITLE = "Submission"
    AUTO_FOCUS = "#diff-view"
    BINDINGS = [
        Binding("escape,backspace", "back", "Back", id="submission.back"),
        # Digits and F-keys: alt+digit is unreliable through tmux and some terminals.
        Binding("1,f2", "pane('diff')", "Diff", id="submission.pane-diff"),
        Binding("2,f3", "pane('note')", "Note", id="submission.pane-note"),
        Binding("3,f4", "pane('commits')", "Commits", id="submission.pane-commits"),
        Binding("4,f5", "pane('rubric')", "Rubric", id="submission.pane-rubric"),
        Binding("5,f6", "pane('log')", "Stub log", id="submission.pane-log"),
        Binding("z", "zoom", "Zoom pane", id="submission.zoom"),
        Binding("ctrl+s", "save", "Save", id="submission.save"),
        Binding("ctrl+n", "save_and_next", "Save & next", id="submission.save-next"),
        Binding("R", "reload_theirs", "Reload theirs", show=False, id="submission.reload-theirs"),
        # Only while the stub log has focus (elsewhere g is the focused pane's own key).
        Binding("g", "log_to_code", "Go to the code", id="submission.log-to-code"),
        Binding("m", "anchor_comment", "Comment here", id="submission.comment-here"),
        Binding("tab", "app.focus_next", "Next pane", show=False, id="submission.focus-next"),
        Binding("shift+tab", "app.focus_previous", "Previous pane", show=False, id="submission.focus-previous"),
    ]

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
        scores: store.ScoreFile | None = None  # read in the worker, with the rest

    def __init__(self, path: Path, row: cohort.Row, session: Session, reviewers: tuple[str, ...] = (),
                 blind: bool = False) -> None:
        super().__init__(path, reviewers, blind)
        self.session = session
        self.row = row
        self.test_runs: dict[str, str] = {}  # commit -> red | green | none: the candidate's own tests
        self.diff_for: Analysis | None = None  # what the diff pane shows already
        self.previewed: Diff | None = None  # painted before its analysis landed
        # The panes' widgets, made once: composed in the first frame or mounted just after it.
        self.diff_pane = DiffPane(id="diff-pane")
        self.commits_table = CommitsTable(cursor_type="row", zebra_stripes=True, id="commits-table")
        self.commit_info = Static(id="commit-detail")
        self.note_view = NoteView(id="note-view")
        self.stub_log = StubLog(id="stub-log")

    def compose(self) -> ComposeResult:
        # Panes composed already arranged for the terminal (arranged after mount, all were restyled).
        self.layout_name = panes.arrangement(*self.app.size)
        shown = panes.shown(self.layout_name, self.active_pane, self.main_pane)
        yield Static(Content(safe_line(f"{self.row.name} · HEAD {(self.row.head or '?')[:12]}", 200)),
                     id="submission-title")
        tabs = Tabs(*(Tab(f"{panes.KEYS[name]} {panes.TITLES[name]}", id=f"tab-{name}")
                      for name in sorted(panes.KEYS, key=lambda pane: panes.KEYS[pane])), id="pane-tabs")
        tabs.display = self.layout_name == "tabs"
        yield tabs
        # Every pane is composed once; the arrangement only changes which are displayed and where. The
        # ones off screen are mounted just after the first frame (fewer widgets to style before it).
        self.unmounted = [name for name in panes.ORDER if name not in shown and name != "diff"]
        with Container(id="workspace", classes=f"-{self.layout_name}"):
            for name in panes.ORDER:
                with panes.box(name, shown):
                    if name not in self.unmounted:
                        yield from self.pane_content(name)
        yield KeysFooter()

    def pane_content(self, name: str) -> ComposeResult:
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
        self.call_after_refresh(self.mount_panes)
        self.arrange_panes()  # as composed, unless the terminal changed size meanwhile
        subscribe_to_scores(self, self.scores_changed)
        known = self.session.last_opened(self.path, self.row.head)
        if known is not None:  # read ahead by triage: the diff is in the first frame; the worker checks HEAD
            self.diff_pane.load(known)
            self.diff_for = known
        self.load()

    waiting: Loaded | None = None  # what the worker read while panes were still being mounted

    def panes_mounted(self) -> None:
        if self.waiting is not None:
            self.fill_panes(self.waiting)
            self.waiting = None

    # ----------------------------------------------------------------- layout

    active_pane = "diff"
    main_pane = "diff"
    layout_name = "tabs"
    last_signal: SignalRow | None = None  # 4 comes back to it after g went to its evidence

    def on_resize(self, event: Resize) -> None:
        self.arrange_panes()

    zoomed = False  # z: the active pane alone, on the whole screen

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        self.arrange_panes()
        self.app.notify("z again restores the panes" if self.zoomed else "panes restored", markup=False, timeout=2)

    def arrange_panes(self) -> None:
        self.layout_name = "tabs" if self.zoomed else panes.arrangement(self.size.width, self.size.height)
        workspace = self.query_one("#workspace")
        for name in ("tabs", "wide", "wider"):
            workspace.set_class(self.layout_name == name, f"-{name}")
        shown = panes.shown(self.layout_name, self.active_pane, self.main_pane)
        for name in panes.ORDER:
            pane = self.query_one(f"#pane-{name}")
            pane.display = name in shown
            pane.set_class(panes.tall(name, shown), "-tall")
        if "note" in shown:
            self.mark_note_opened()  # "read" means it was on screen, in its own column or as the main pane
        tabs = self.query_one("#pane-tabs", Tabs)
        tabs.display = self.layout_name == "tabs" and not self.zoomed
        if tabs.active != f"tab-{self.active_pane}":
            tabs.active = f"tab-{self.active_pane}"

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
            if node.id and node.id.startswith("pane-") and node.id.removeprefix("pane-") in panes.KEYS:
                name = node.id.removeprefix("pane-")
                if name != self.active_pane:
                    self.active_pane = name
                    self.query_one("#pane-tabs", Tabs).active = f"tab-{name}"
                if name == "note":
                    self.mark_note_opened()
                return

    @work(thread=True, exclusive=True, group="submission", name="submission-load")
    def load(self) -> None:
        try:
            # Triage's analysis when it made one at this HEAD; else the diff is painted once parsed.
            result = self.session.open(self.path, on_diff=lambda parsed: self.post_message(self.DiffParsed(parsed)))
            register = getattr(self.app, "register_people", None)
            if register is not None:  # candidate-blind: its authors are masked before anything is drawn
                register(self.path, result.commits)
            result.sites  # noqa: B018 — computed here, in the worker: a 130k-line diff took a second on the UI thread
            load_lexers(result.diff)
            suites, tests = self.session.earlier_runs(result.commits)
            scores = self.session.scores(self.path)
        except (gitsafe.GitSafeError, cohort.CohortError) as error:
            self.post_message(self.Loaded(None, str(error)))
            return
        except Exception as error:  # one boundary per submission: its banner, never the console's end
            self.post_message(self.Loaded(None, failures.record(f"submission {self.path}", error)))
            return
        self.post_message(self.Loaded(result, suites=suites, tests=tests, scores=scores))

    @on(DiffParsed)
    def diff_parsed(self, message: DiffParsed) -> None:
        shown = self.previewed
        if self.diff_for is None and not (message.diff.partial and shown is not None and not shown.partial):
            self.diff_pane.preview(message.diff, keep_position=shown is not None)
            self.previewed = message.diff

    @on(Loaded)
    def loaded(self, message: Loaded) -> None:
        if message.analysis is None:
            self.query_one("#submission-title", Static).update(
                Content(safe_line(f"{self.row.name}: {message.problem or 'unreadable'}", 300)))
            return
        if message.analysis is not self.diff_for:  # not painted at mount, or HEAD moved since triage read it
            self.diff_pane.load(message.analysis, keep_position=message.analysis.diff is self.previewed)
            self.diff_for = message.analysis
        if self.panes_ready:
            self.fill_panes(message)
        else:
            self.waiting = message

    def fill_panes(self, message: Loaded) -> None:
        assert message.analysis is not None
        self.analysis = analysis = message.analysis
        title = f"{self.row.name} · HEAD {analysis.head[:12]}"  # the HEAD read now, which triage may not have seen
        self.query_one("#submission-title", Static).update(Content(safe_line(title, 200)))
        suites, tests = message.suites or {}, message.tests or {}
        self.suite = suites.get(analysis.head)
        self.test_runs = {sha: run.colour for sha, run in tests.items()}
        log = self.stub_log
        log.repo = analysis.repo
        log.head = log.target = self.target_for(analysis.head)
        log.draft = Target(analysis.draft, f"draft {analysis.draft[:7]}") if analysis.draft else None
        if self.suite:
            log.last_verdicts = self.suite.verdicts
            log.show_earlier(self.suite)  # the pane opens with the run triage (or an earlier session) made
        log.update_status()
        self.load_review(message.scores or store.ScoreFile(store.score_path(self.path)))
        navigation.start_re_review(self, suites)
        self.note_view.load(analysis)
        self.commits_table.fill(analysis.commits, analysis.signals, suites, tests)
        self.show_commit(0)
        if self.query_one("#pane-note").display:
            self.mark_note_opened()

    @on(DataTable.RowHighlighted, "#commits-table")
    def commit_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_commit(event.cursor_row)

    def show_commit(self, index: int) -> None:
        if not self.analysis or not (0 <= index < len(self.analysis.commits)):
            return
        text = commit_detail(self.analysis.commits[index], self.analysis.signals[index])
        self.commit_info.update(Content(text))

    def mark_note_opened(self) -> None:
        if self.note_opened is None and self.analysis is not None:
            self.note_opened = store.now()
            self.update_rubric_header()

    def action_pane(self, name: str) -> None:
        if not self.panes_ready:
            return  # a tab clicked in the instant before the panes are mounted
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
                (last or rows[0]).focus()
        else:
            self.commits_table.focus()

    def show_pane(self, name: str) -> None:
        """Put a pane on screen without moving focus (when there is room, others stay beside it)."""
        if self.layout_name == "tabs":
            self.active_pane = name
        if name in ("diff", "commits", "note") and not (name == "note" and self.layout_name == "wider"):
            self.main_pane = name
        self.arrange_panes()
        if name == "note":
            self.mark_note_opened()

    def evidence_inputs(self) -> Inputs:
        assert self.analysis is not None
        analysis = self.analysis
        verdicts = {s.name: {"verdict": s.verdict, "requests": s.requests, "distinct_keys": s.distinct_keys,
                             "charges_created": s.charges_created} for s in self.suite.scenarios} \
            if self.suite else None
        conflicts = [c.message for c in analysis.attribution.conflicts if c.path is None]
        draft = (analysis.draft, analysis.draft_added, analysis.draft_surviving) if analysis.draft else None
        return Inputs(analysis.note.text, [(c.sha, c.subject) for c in analysis.commits],
                                      analysis.changed, verdicts, conflicts, draft, dict(self.test_runs) or None,
                                      analysis.sites)

    # ----------------------------------------------------------------- runs → evidence, diff, timeline

    @on(DiffPane.Shown)
    def diff_shown(self, message: DiffPane.Shown) -> None:
        """`r` in the stub log runs the commit the diff shows."""
        if self.analysis is None:
            return
        log = self.stub_log
        log.target = self.target_for(message.range.target)
        log.update_status()

    def target_for(self, commit: str) -> Target:
        assert self.analysis is not None
        return Target(commit, f"HEAD {commit[:7]}" if commit == self.analysis.head else f"commit {commit[:7]}")

    def refresh_evidence(self) -> None:
        if self.analysis is not None:
            self.form.set_evidence(gather(self.evidence_inputs()))

    @on(StubLog.SuiteDone)
    def suite_done(self, message: StubLog.SuiteDone) -> None:
        """A run just finished: its verdicts become evidence beside the rubric at once."""
        suite = message.suite
        if len(suite.scenarios) == len(scenarios.SCENARIOS):
            self.commits_table.set_cells(suite.commit, suite=suite)
        if self.analysis is not None and suite.commit == self.analysis.head:
            self.suite = suite
            self.refresh_evidence()

    @on(StubLog.CompareDone)
    def compare_done(self, message: StubLog.CompareDone) -> None:
        self.commits_table.set_cells(message.before.commit, suite=message.before_suite)
        self.commits_table.set_cells(message.after.commit, suite=message.after_suite)
        if self.analysis is not None and message.after.commit == self.analysis.head:
            self.suite = message.after_suite
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
            self.app.notify(safe_line(f"Coverage of {result.name} recorded nothing ({result.verdict}: "
                                      f"{'; '.join(result.reasons)})", 300), severity="warning", markup=False)
            return
        pane = self.diff_pane
        pane.set_coverage(message.target.commit, f"{result.name}: {result.verdict}", result.coverage)
        if not pane.display or not self.query_one("#pane-diff").display:
            self.app.notify(safe_line(f"Coverage of {result.name} is in the diff pane (1): counts in the gutter.", 200),
                            markup=False)

    def timeline_targets(self) -> list[Target]:
        assert self.analysis is not None
        return [self.target_for(c.sha) for c in self.analysis.commits]

    def action_timeline(self) -> None:
        if self.analysis is None:
            return
        self.stub_log.run_timeline(self.timeline_targets())

    def highlighted_commit(self) -> Target | None:
        table = self.commits_table
        if self.analysis is None or table.row_count == 0:
            return None
        index = table.cursor_row
        return self.timeline_targets()[index] if 0 <= index < len(self.analysis.commits) else None

    def action_before_after_from_commit(self) -> None:
        chosen = self.highlighted_commit()
        log = self.stub_log
        if chosen is None or log.head is None:
            return
        if chosen.commit == log.head.commit:
            self.app.notify("That is HEAD: pick an earlier commit to compare with it.", markup=False)
            return
        if log.before_after(chosen, log.head) is not False and self.layout_name == "tabs":
            self.action_pane("log")

    def action_commit_diff(self) -> None:
        chosen = self.highlighted_commit()
        if chosen is not None and self.diff_pane.show_commit(chosen.commit):
            self.action_pane("diff")

    @on(SignalRow.GoTo)
    def go_to_evidence(self, message: SignalRow.GoTo) -> None:
        navigation.go_to_source(self, message.hint.source, message.row.signal.name)

    next_site = 0  # g in the stub log cycles through the code sites

    def action_log_to_code(self) -> None:
        navigation.log_to_code(self)

    def action_anchor_comment(self) -> None:
        """m: a comment on the hunk the diff shows, or on the scenario at the top of the stub log."""
        at = navigation.log_anchor(self) if self.focus_in("log") else navigation.diff_anchor(self)
        if at is None:
            self.app.notify("Nothing here to comment on yet.", markup=False)
            return

        def keep(text: str | None) -> None:
            if text:
                self.form.add_anchored(at, text)
                self.app.notify(safe_line(f"comment kept on {at} (listed in the rubric)", 200), markup=False)

        self.app.push_screen(AnchorCommentScreen(at), keep)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.panes_ready:
            return action == "back"
        if action == "log_to_code":
            return self.focus_in("log")
        if action == "anchor_comment":
            return self.focus_in("log") or self.focus_in("diff")
        return True

    def focus_in(self, pane: str) -> bool:
        focused = self.focused
        return focused is not None and any(node.id == f"pane-{pane}" for node in focused.ancestors_with_self)

    def action_back(self) -> None:
        # Escape stops a run first (the timeline runs while the Commits pane has focus).
        if self.stub_log.running:
            self.stub_log.action_cancel()
            self.app.notify("Run cancelled; escape again goes back to triage.", markup=False)
            return
        self.leave("back")
