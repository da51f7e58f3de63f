"""Before/after: each scenario's verdict on two commits with what changed, and under it the
highlighted scenario's raw log from both runs."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable

from review.core.text import safe_line
from review.harness import compare, runner
from review.tui import palette
from review.tui.widgets.stub_log.lines import LogLines

# Same and missing are dim.
CHANGE_ROLES = {"fixed": "ok", "broke": "bad", "changed": "warn"}


class ComparisonView(Vertical):
    DEFAULT_CSS = """
    ComparisonView { height: 1fr; }
    ComparisonView #compare-table { height: auto; max-height: 11; }
    ComparisonView #compare-detail { height: 1fr; border-top: solid $panel; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: tuple[str, str] = ("", "")
        self.suites: tuple[runner.SuiteResult, runner.SuiteResult] | None = None
        self.table: DataTable = DataTable(cursor_type="row", id="compare-table")
        self.detail = LogLines(id="compare-detail", max_lines=2_000)

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.detail

    def show(
        self,
        labels: tuple[str, str],
        suites: tuple[runner.SuiteResult, runner.SuiteResult],
        changes: list[compare.Change],
    ) -> None:
        self.labels, self.suites = labels, suites
        table = self.table
        # re-added, so each column fits its commit's name.
        table.clear(columns=True)
        table.add_columns("Scenario", Text(labels[0]), Text(labels[1]), "Change")
        for change in changes:
            role = CHANGE_ROLES.get(change.kind)
            style = palette.style(self.app, role, bold=role != "warn") if role else Style(dim=True)
            table.add_row(
                Text(change.scenario),
                Text(change.before or "—"),
                Text(change.after or "—"),
                Text(change.kind, style=style),
                key=change.scenario,
            )
        self.show_detail(changes[0].scenario if changes else None)

    @on(DataTable.RowHighlighted, "#compare-table")
    def row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail(event.row_key.value if event.row_key else None)

    def show_detail(self, name: str | None) -> None:
        detail = self.detail
        detail.clear()
        detail.forget_keys()
        if self.suites is None or name is None:
            return
        for side, label, suite in zip(("before", "after"), self.labels, self.suites):
            result = next((r for r in suite.scenarios if r.name == name), None)
            verdict = result.verdict if result else "not run"
            heading = safe_line(f"{side}: {label} · {name}: {verdict} · {compare.facts(result)}", 200)
            detail.write(Text(heading, style=Style(bold=True)))
            for line in result.log if result else ["not run"]:
                detail.add(line, "cached")
