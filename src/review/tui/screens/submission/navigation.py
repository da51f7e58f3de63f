"""Going from what was observed to where it came from, on the submission screen: a hint's source
(note lines, a scenario's log lines, a commit, a diff line), the code that sent the stub log's
requests, and what changed since this reviewer's last review."""

from __future__ import annotations

from typing import Any, Protocol

from textual.app import App

from review.core.code_reading import CodeSite
from review.core.evidence import Attribution, Code, CommitRef, DiffLine, LogLines, NoteLines, Source
from review.core.text import fit, safe_line
from review.harness import runner, scenarios
from review.services import store
from review.services.analysis import Analysis
from review.tui.widgets.diff.commits import CommitsTable
from review.tui.widgets.diff.pane import DiffPane
from review.tui.widgets.note_view import NoteView
from review.tui.widgets.rubric_form import RubricForm
from review.tui.widgets.stub_log.log import StubLog


class Workspace(Protocol):
    """What navigation needs of the submission screen: its panes, and moving between them."""

    @property
    def app(self) -> App[Any]: ...

    layout_name: str
    analysis: Analysis | None
    suite: runner.SuiteResult | None
    diff_pane: DiffPane
    note_view: NoteView
    stub_log: StubLog
    commits_table: CommitsTable
    form: RubricForm

    def action_pane(self, name: str) -> None: ...

    def show_pane(self, name: str) -> None: ...


SITE_ORDER = {"key-sent": 0, "request": 1, "key-made": 2, "key-named": 3}
SITE_WORDS = {
    "key-sent": "sends the key",
    "request": "sends the request",
    "key-made": "makes the key",
    "key-named": "names the key (sends nothing)",
}


class Navigation:
    """The submission screen's moves from evidence to its source; g cycles through code sites."""

    def __init__(self, screen: Workspace) -> None:
        self.screen = screen
        # g in the stub log cycles through the code sites.
        self.next_site = 0

    def show_diff_line(self, path: str, line: int, focus: bool) -> bool:
        """The diff pane on screen, scrolled to HEAD's `line` of `path` (False, said, when not shown)."""
        if focus:
            self.screen.action_pane("diff")
        else:
            self.screen.show_pane("diff")
        if self.screen.diff_pane.view.go_to_line(path, line):
            return True
        self.screen.app.notify(
            safe_line(f"{path}:{line} is not in the diff shown (d shows the whole submission)", 200), markup=False
        )
        return False

    def go_to_source(self, source: Source, signal: str) -> None:
        """A hint's source, by its type. With room on screen the source appears beside the rubric and
        focus stays, so g cycles on; in tabs (80×24) the source's pane takes the screen, and 4 comes back."""
        tabs = self.screen.layout_name == "tabs"
        go = self.screen.action_pane if tabs else self.screen.show_pane
        if isinstance(source, (NoteLines, Attribution)):
            go("note")
            if isinstance(source, NoteLines) and source.lines:
                self.screen.note_view.scroll_to_line(source.lines[0])
        elif isinstance(source, LogLines):
            log = self.screen.stub_log
            go("log")
            if source.scenario and not log.scroll_to_scenario(source.scenario, self.screen.suite):
                self.screen.app.notify("No run of that scenario in the log yet: r runs the suite.", markup=False)
        elif isinstance(source, CommitRef):
            go("commits")
            table = self.screen.commits_table
            for index, key in enumerate(table.rows):
                if source.sha and key.value == source.sha:
                    table.move_cursor(row=index)
                    break
        elif isinstance(source, DiffLine):
            self.show_diff_line(source.path, source.line, focus=tabs)
        elif isinstance(source, Code):
            go("diff")
        back = " · 4 goes back to the rubric" if tabs else " · g again: the next hint"
        self.screen.app.notify(safe_line(f"{signal}: {source.label}{back}", 200), markup=False, timeout=3)

    def log_to_code(self) -> None:
        """From the requests in the stub log to the code that sent them: the line that sends the key,
        the request, where the key is made; g again goes to the next one."""
        if self.screen.analysis is None:
            return
        ordered = sorted(self.screen.analysis.sites, key=lambda site: (SITE_ORDER[site.kind], site.path, site.line))
        # One stop per line, under its first kind in that order (a line that makes and names the key
        # is where it is made).
        by_line: dict[tuple[str, int], CodeSite] = {}
        for site in ordered:
            by_line.setdefault((site.path, site.line), site)
        sites = list(by_line.values())
        if not sites:
            self.screen.app.notify(
                "No line in the diff sends a request or a key (is the client's code in the diff?)", markup=False
            )
            return
        site = sites[self.next_site % len(sites)]
        self.next_site += 1
        tabs = self.screen.layout_name == "tabs"
        if self.show_diff_line(site.path, site.line, focus=tabs):
            # In tabs the diff now has the keys, and its g goes to the top: the next site is the log's g.
            again = "5 goes back to the log, g there" if tabs else "g again"
            said = f"{site.path}:{site.line} {SITE_WORDS[site.kind]} · {again}: the next site ({len(sites)})"
            self.screen.app.notify(safe_line(said, 200), markup=False, timeout=3)

    def start_re_review(self, before: store.Review | None, suites: dict[str, runner.SuiteResult]) -> None:
        """HEAD moved since my review (`before`): open on what changed since, and say which verdicts
        changed."""
        analysis = self.screen.analysis
        if before is None or analysis is None or before.commit not in {c.sha for c in analysis.commits}:
            return
        pane = self.screen.diff_pane
        pane.reviewed = before.commit
        pane.action_since_review()
        old, new = suites.get(before.commit), suites.get(analysis.head)
        if old is None or new is None:
            text = (
                f"runs: {before.harness or 'none recorded'} when you reviewed; at HEAD "
                f"{new.summary if new else 'not run yet (5, r runs it)'}"
            )
        else:
            was = old.verdicts
            changed = [
                f"{s.name} {was.get(s.name, '?')} → {s.verdict}" for s in new.scenarios if was.get(s.name) != s.verdict
            ]
            text = "verdicts changed since your review: " + ("; ".join(changed) if changed else "none")
        form = self.screen.form
        # A line of its own under the status already there (safe_line would show the break as ⏎).
        form.set_status("\n".join(line for line in (form.status, safe_line(text, 400)) if line))
        said = (
            f"Re-review: the diff shows what changed since your review at {before.commit[:7]} "
            f"(d: the whole submission). {text}"
        )
        self.screen.app.notify(safe_line(said, 400), markup=False, timeout=8)

    def diff_anchor(self) -> str | None:
        """The current hunk, by its lines at the range's target: `checkout.mjs:12-19`, with the commit
        when the diff shows something else than HEAD."""
        pane = self.screen.diff_pane
        file_diff, hunk = pane.view.current()
        if file_diff is None or hunk is None or pane.shown is None or self.screen.analysis is None:
            return None
        end = hunk.new_start + max(hunk.new_len, 1) - 1
        where = f"{file_diff.path}:{hunk.new_start}" + (f"-{end}" if end != hunk.new_start else "")
        target = pane.shown.target
        return where if target == self.screen.analysis.head else f"{where} @ {target[:7]}"

    def log_anchor(self) -> str | None:
        """The scenario of the selected stub log line (or the one at its top), and that line: `stub log
        first-503: …`."""
        log = self.screen.stub_log
        top = log.top_index()
        if top is None:
            return None
        names = [s.name for s in scenarios.SCENARIOS]
        # The line's words only: the columns' bars and padding (side by side) say nothing in a score file.
        # Cut with a plain "…": the anchor is a place, and "[75 more characters]" said nothing there.
        said = fit(safe_line(" ".join(log.raw_lines[top].replace("│", " ").split())), 120)
        for line in reversed(log.raw_lines[: top + 1]):
            found = next((name for name in names if f"] {name}: " in line), None)
            if found:
                return f"stub log {found}: {said}"
        return f"stub log: {said}"
