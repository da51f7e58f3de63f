"""The Commits pane: every commit, oldest first, with its suite verdicts, the candidate's own tests
(red/green), its subject, the assistants its metadata names, date and author."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.widgets import DataTable

from review import gitsafe
from review.core import attribution, triage
from review.core.text import fit, safe_line
from review.harness import candidate_tests, runner
from review.tui import palette


class CommitsTable(DataTable):
    """The commits, oldest first, with each one's suite verdicts and the candidate's own tests."""

    HELP_GROUP = "Commits"
    BINDINGS = [
        Binding("t", "screen.timeline", "Timeline: suite + own tests", id="commits.timeline"),
        Binding("b", "screen.before_after_from_commit", "This commit vs HEAD", id="commits.before-after"),
        Binding("enter", "screen.commit_diff", "Its diff", id="commits.diff"),
        Binding("j", "cursor_down", "Down", show=False, id="commits.down"),
        Binding("k", "cursor_up", "Up", show=False, id="commits.up"),
    ]

    def on_mount(self) -> None:
        self.add_columns_once()

    def add_columns_once(self) -> None:
        # The screen may fill the table before its own mount handler has run.
        if self.columns:
            return
        # The timeline's columns first: the pane is often narrow.
        for label, key in (
            ("Commit", "commit"),
            ("Suite", "suite"),
            ("Own tests", "tests"),
            ("Subject", "subject"),
            ("Assistants", "assistants"),
            ("Date", "date"),
            ("Author", "author"),
        ):
            self.add_column(label, key=key)

    def fill(
        self,
        commits: list[gitsafe.Commit],
        attributions: list[attribution.CommitAttribution],
        suites: dict[str, runner.SuiteResult],
        tests: dict[str, candidate_tests.TestRun],
    ) -> None:
        self.add_columns_once()
        for commit, found in zip(commits, attributions):
            self.add_row(
                Text(commit.short),
                suite_cell(self.app, suites.get(commit.sha)),
                tests_cell(self.app, tests.get(commit.sha)),
                # Cut to the column with "…" (the whole message is in the detail under the table).
                Text(fit(safe_line(commit.subject), 50)),
                Text(fit(safe_line(", ".join(found.tools) or "—"), 40)),
                Text(commit.author_date[:10]),
                Text(fit(safe_line(commit.author_name), 40)),
                key=commit.sha,
            )

    def set_cells(
        self, commit: str, suite: runner.SuiteResult | None = None, tests: candidate_tests.TestRun | None = None
    ) -> None:
        """A run landed for `commit`: its Suite and Own tests cells follow."""
        if commit not in self.rows:
            return
        if suite is not None:
            self.update_cell(commit, "suite", suite_cell(self.app, suite), update_width=True)
        if tests is not None:
            self.update_cell(commit, "tests", tests_cell(self.app, tests), update_width=True)


def commit_detail(commit: gitsafe.Commit, found: attribution.CommitAttribution) -> str:
    """The line under the table: the whole id, author, message, and what its metadata claims."""
    lines = [f"{commit.sha}  {commit.author_name} <{commit.author_email}>  {commit.author_date}"]
    lines += [f"  {line}" for line in commit.message.splitlines()[:12]]
    for claim in found.signals:
        lines.append(f"  ⚑ {claim.tool}{f' ({claim.model})' if claim.model else ''} — {claim.source}")
    for rejected in found.rejected:
        lines.append(f"  ✗ not counted: {rejected.evidence} — {rejected.reason}")
    return "\n".join(safe_line(line, 300) for line in lines)


def suite_cell(app: App, suite: runner.SuiteResult | None) -> Text:
    if suite is None:
        return Text("—", style=Style(dim=True))
    # The worst first, so a narrow cell still names what matters.
    bad = sorted(
        {s.verdict for s in suite.scenarios if s.verdict != "ok"},
        key=lambda verdict: triage.severity(triage.VERDICT_SEVERITY, verdict),
    )
    ok = sum(s.verdict == "ok" for s in suite.scenarios)
    text = Text(f"{ok}/{len(suite.scenarios)} ok", style=palette.style(app, "ok") if not bad else "")
    if bad:
        text.append(
            f" {bad[0]}" + (f" +{len(bad) - 1}" if len(bad) > 1 else ""), style=palette.style(app, "bad", bold=True)
        )
    loaded = suite.loaded_said()
    if loaded:
        text.append(f" ({loaded})")
    return text


def tests_cell(app: App, tests: candidate_tests.TestRun | None) -> Text:
    if tests is None:
        return Text("—", style=Style(dim=True))
    role = {"green": "ok", "red": "bad", "hung": "bad", "limit": "bad"}.get(tests.state)
    style = palette.style(app, role, bold=True) if role else Style(dim=True)
    word = {"green": "● green", "red": "● RED", "hung": "● hung", "limit": "● over a cap", "none": "no tests"}.get(
        tests.state, tests.state
    )
    counts = tests.counts
    if "tests" in counts and "pass" in counts:
        word += f" {counts['pass']}/{counts['tests']} pass"
    return Text(word, style=style)
