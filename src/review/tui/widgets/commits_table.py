"""The Commits pane: every commit, oldest first, with its suite verdicts, the candidate's own tests
(red/green), its subject, the assistants its metadata names, date and author."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.widgets import DataTable

from review.harness import candidate_tests, runner
from review.tui import palette


class CommitsTable(DataTable):
    """The commits, oldest first, with each one's suite verdicts and the candidate's own tests."""

    HELP_GROUP = "Commits"
    BINDINGS = [
        Binding("t", "screen.timeline", "Timeline: suite + own tests", id="commits.timeline"),
        Binding("b", "screen.before_after_from_commit", "This commit vs HEAD", id="commits.before-after"),
        Binding("enter", "screen.commit_diff", "Its diff", id="commits.diff"),
    ]


# The worst first, so a narrow cell still names what matters.
SEVERITY = ("double-charge", "dropped-payment", "lost-order", "wrong-endpoint", "no-request", "crashed",
            "resource-limit", "missing-entrypoint", "hung", "retry-storm",
            "no-retry", "retried-decline", "no-backoff")


def suite_cell(app: App, suite: runner.SuiteResult | None) -> Text:
    if suite is None:
        return Text("—", style=Style(dim=True))
    bad = sorted({s.verdict for s in suite.scenarios if s.verdict != "ok"},
                 key=lambda v: SEVERITY.index(v) if v in SEVERITY else len(SEVERITY))
    ok = sum(s.verdict == "ok" for s in suite.scenarios)
    text = Text(f"{ok}/{len(suite.scenarios)} ok", style=palette.style(app, "ok") if not bad else "")
    if bad:
        text.append(f" {bad[0]}" + (f" +{len(bad) - 1}" if len(bad) > 1 else ""), style=palette.style(app, "bad", bold=True))
    return text


def tests_cell(app: App, tests: candidate_tests.TestRun | None) -> Text:
    if tests is None:
        return Text("—", style=Style(dim=True))
    role = {"green": "ok", "red": "bad", "hung": "bad", "limit": "bad"}.get(tests.state)
    style = palette.style(app, role, bold=True) if role else Style(dim=True)
    word = {"green": "● green", "red": "● RED", "hung": "● hung", "limit": "● over a cap",
            "none": "no tests"}.get(tests.state, tests.state)
    counts = tests.counts
    if "tests" in counts and "pass" in counts:
        word += f" {counts['pass']}/{counts['tests']} pass"
    return Text(word, style=style)
