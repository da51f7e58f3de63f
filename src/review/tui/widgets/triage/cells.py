"""The triage table's columns: what each cell shows, how it sorts, its colour, and what the filter
matches. The columns that answer "whom do I read first" come first, so 80 columns show them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual.app import App

from review.core import scenarios, triage
from review.core.similarity import share_text
from review.core.text import safe_line
from review.services import cohort
from review.tui import palette

PENDING, MISSING = "…", "—"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    value: Callable[[cohort.Row, str], object]  # (row, me) -> the value shown (and sorted by); None sorts last
    order: Callable[[cohort.Row, str], object] | None = None  # sorted by this instead, when given

    def sort_key(self, row: cohort.Row, me: str):
        value = (self.order or self.value)(row, me)
        if isinstance(value, list):
            value = ", ".join(map(str, value))
        return (value is None, value if value is not None else 0)


def my_state(row: cohort.Row, me: str) -> str:
    """This reviewer's own state: new, draft, final, stale; unreadable rows say so."""
    if row.problem and row.head is None:
        return "unreadable"
    return row.states.get(me, "new")


def others(row: cohort.Row, me: str) -> str | None:
    found = [f"{who} {triage.state_word(state)}" for who, state in row.states.items() if who != me]
    return ", ".join(found) if found else None


def as_seen(row: cohort.Row, me: str, blind: bool) -> cohort.Row:
    """The row as this reviewer may see it: reviewing blind, how far the others agree is hidden (its
    cell, its sort) until this reviewer's own review at HEAD is final, as the others' scores are."""
    if not blind or row.agreement is None or my_state(row, me) == "final":
        return row
    return dataclasses.replace(row, agreement=None)


def agreement_text(row: cohort.Row) -> str | None:
    return f"{row.agreement[0]}/{row.agreement[1]}" if row.agreement and row.agreement[1] else None


def harness_text(row: cohort.Row) -> str | None:
    if row.scenarios:
        return triage.marks(row.scenarios)
    return row.harness  # "not run: …", "queued", "running"


# My review, in the order of what is left to do: nothing saved, HEAD moved since a final, a draft, done.
MINE_ORDER = ("new", "stale", "draft", "final", "unreadable")


def similar_text(row: cohort.Row) -> str | None:
    """The largest share of this submission's own code found in another (`review similar`): the share
    alone, so the column fits at 80 columns; whose is in the row's detail. — once compared with no
    pair (as `review triage` prints it); None (blank) until compared."""
    found = row.similar
    if not found:
        return None
    return f"{found['share']:.0%}" if found.get("share") is not None else MISSING


def similar_detail(row: cohort.Row) -> str | None:
    """Whose code, with the share's base: 67% of 6 fingerprints is not 67% of 80."""
    found = row.similar
    if not found or found.get("share") is None:
        return None
    return f"similar: {share_text(found['share'], found['own'])} are in {found['with']} (m: side by side)"


def similar_share(row: cohort.Row) -> float | None:
    return float(row.similar["share"]) if row.similar and row.similar.get("share") is not None else None


def similar_fields(row: cohort.Row) -> list[str]:
    """The share as a number (`similar:>50`), and the name of every submission it shares own code with,
    as `review similar` pairs them (`similar:ada`; masked when blind)."""
    found = row.similar
    share = similar_share(row)
    if not found or share is None:
        return []
    return [f"{100 * share:.0f}"] + [safe_line(str(name)) for name in found.get("partners") or [found["with"]]]


def ranked(order: tuple[str, ...], value: str | None) -> int | None:
    return None if value is None else triage.severity(order, value)


# Verdict-like columns sort by severity, worst first (▲); the rest by value.
COLUMNS = (
    Column("name", "Candidate", lambda row, me: row.name),
    Column(
        "mine",
        "My review",
        lambda row, me: triage.state_word(my_state(row, me)),
        lambda row, me: ranked(MINE_ORDER, my_state(row, me)),
    ),
    Column(
        "key_scope",
        "Key scope",
        lambda row, me: row.key_scope,
        lambda row, me: ranked(triage.KEY_SCOPES, row.key_scope),
    ),
    Column(
        "runs",
        "Runs",
        lambda row, me: harness_text(row),
        lambda row, me: triage.runs_severity(row.scenarios) if row.scenarios else None,
    ),
    Column(
        "disclosure",
        "Disclosure",
        lambda row, me: row.disclosure,
        lambda row, me: ranked(triage.DISCLOSURES, row.disclosure),
    ),
    Column("ai_share", "AI", lambda row, me: row.ai_share),
    # Lines no source speaks for: sorted by, most first, the submissions whose share says least.
    Column("unknown_share", "Unknown", lambda row, me: row.unknown_share, lambda row, me: _negated(row.unknown_share)),
    Column("others", "Others", others),
    # Sorted by the share of signals agreed on, least first: the submissions the reviewers disagree on.
    Column(
        "agreement",
        "Agree",
        lambda row, me: agreement_text(row),
        lambda row, me: row.agreement[0] / row.agreement[1] if row.agreement and row.agreement[1] else None,
    ),
    # The highest share first: the submissions most of whose own code another holds.
    Column(
        "similar",
        "Similar",
        lambda row, me: similar_text(row),
        lambda row, me: -share if (share := similar_share(row)) is not None else None,
    ),
    Column("assistants", "Assistants", lambda row, me: row.assistants or None),
    Column("commits", "Commits", lambda row, me: row.commits),
    Column("last_commit", "Last commit", lambda row, me: row.last_commit),
    Column("problem", "Problem", lambda row, me: row.problem),
)
COLUMN_INDEX = {column.key: index for index, column in enumerate(COLUMNS)}

GOOD_SCOPE, BAD_SCOPES = "persisted", ("per-attempt", "per-amount", "none")


def _negated(share: float | None) -> float | None:
    return None if share is None else -share


def share_cell(row: cohort.Row) -> str | None:
    """The AI column: the AI's share, and beside it the share no source speaks for when there is one
    ("0% · unknown 100%": a submission that discloses nothing is never a bare "0%")."""
    if row.ai_share is None:
        return None
    return f"{row.ai_share:.0%}" + (f" · unknown {row.unknown_share:.0%}" if row.unknown_share else "")


# Before the candidate's name: the row arrived after the console opened, or was given a new commit.
ARRIVED = "+ "
RESUBMITTED = "↻ "


def cell_text(column: Column, row: cohort.Row, me: str) -> str:
    """What one cell says: the value, or what stands for none yet (…) or none at all (—)."""
    pending = PENDING if not row.complete else MISSING
    value = column.value(row, me)
    if column.key == "ai_share":
        return share_cell(row) or MISSING
    if column.key == "unknown_share":
        return f"{value:.0%}" if isinstance(value, float) else MISSING
    if column.key == "last_commit":
        return str(value)[:10] if value else pending
    if value is None or value == []:
        return pending if column.key not in ("problem", "others", "agreement", "similar") else ""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def cells(app: App, row: cohort.Row, me: str, arrived: bool = False, resubmitted: bool = False) -> list[Text]:
    """Every cell as plain Text: DataTable would parse a str as markup."""
    texts = [Text(safe_line(cell_text(column, row, me), 80)) for column in COLUMNS]
    by_key = dict(zip(COLUMN_INDEX, texts))
    if arrived or resubmitted:
        by_key["name"] = texts[COLUMN_INDEX["name"]] = Text.assemble(
            (ARRIVED if arrived else RESUBMITTED, palette.style(app, "info", bold=True)), by_key["name"]
        )
    state = my_state(row, me)
    if state == "unreadable":
        by_key["mine"].stylize(palette.style(app, "bad", bold=True))
    elif state == "stale":
        by_key["mine"].stylize(palette.style(app, "warn"))
    elif state == "final":
        by_key["mine"].stylize(palette.style(app, "ok"))
    if row.key_scope == GOOD_SCOPE:
        by_key["key_scope"].stylize(palette.style(app, "ok"))
    elif row.key_scope in BAD_SCOPES:
        by_key["key_scope"].stylize(palette.style(app, "bad"))
    if row.disclosure in ("conflict", "unmapped", "none"):
        by_key["disclosure"].stylize(palette.style(app, "warn"))
    if row.unknown_share:
        by_key["unknown_share"].stylize(palette.style(app, "warn"))
    if row.scenarios:
        runs = by_key["runs"]
        for index, mark in enumerate(runs.plain):
            runs.stylize(
                palette.style(
                    app,
                    "ok" if mark == triage.OK else "bad" if mark == triage.BAD else "foreground",
                    bold=mark == triage.BAD,
                ),
                index,
                index + 1,
            )
    return texts


def filter_fields(row: cohort.Row, me: str, arrived: bool = False) -> dict[str, list[str]]:
    """What each filter field matches; a plain word matches the candidate's name only."""
    return {
        "name": [safe_line(row.name)],  # the alias in a candidate-blind session: a real name finds nothing
        # The file's word and the shown one ("in-review": a filter's words cannot hold a space).
        "state": [my_state(row, me), row.state, triage.state_word(my_state(row, me)).replace(" ", "-")]
        + (["arrived"] if arrived else []),
        "tool": list(row.assistants),
        # `scope:no-retry-seen` as well as `scope:no`: a filter's words cannot hold a space.
        "scope": [row.key_scope or "", (row.key_scope or "").replace(" ", "-")],
        "disclosure": [row.disclosure or ""],
        "verdict": sorted(set((row.scenarios or {}).values())),
        "reviewer": list(row.reviewers),
        "ai": triage.share_values(row.ai_share),
        "person": triage.share_values(row.person_share),
        "unknown": triage.share_values(row.unknown_share),
        # A percentage (`similar:>50`) and the other submission's name (`similar:ada`).
        "similar": similar_fields(row),
    }


MAX_NOTICES = 5  # line-level sources' notices in the row's detail; the Note pane lists every one

# One row at 80 columns, under the detail (a long detail no longer pushes it off).
LEGEND = "Runs, in order: " + triage.legend() + f" ({triage.OK} ok, {triage.BAD} not ok, {triage.NOT_RUN} not run)"


def no_row_text(rows: int, empty_text: str, reading: bool) -> str:
    """The detail when no row is highlighted: an empty cohort says what a cohort is (`empty_text`);
    rows listed but not one read yet; or a filter that matches none."""
    if not rows:
        return safe_line(empty_text or "No submissions.", 400)
    return f"Reading {rows} submissions…" if reading else "No row matches the filter."


def detail(row: cohort.Row) -> str:
    """The highlighted row, spelled out: the marks with the scenarios' names, what the scope means."""
    if row.problem and row.head is None:
        return f"{row.name}: {row.problem}"
    if not row.complete:
        return f"{row.name}: reading…"
    parts = [
        f"{row.name}: HEAD {row.head[:12] if row.head else '?'} · {row.commits} commits · "
        f"assistants: {triage.assistants_text(row.assistants, row.attribution)}"
    ]
    # Second: the detail box shows five lines at 80×24, and whose code this is is read with the column.
    similar = similar_detail(row)
    if similar:
        parts.append(similar)
    if row.scenarios:
        loaded = f"; {row.hung_under_load}; {scenarios.CONSOLE_AGAIN}" if row.hung_under_load else ""
        parts.append("runs: " + triage.spelled_marks(row.scenarios) + loaded)
    elif row.harness:
        parts.append(f"runs: {row.harness}")
    if row.key_scope:
        parts.append(f"key scope: {row.key_scope} — {triage.KEY_SCOPE_MEANS.get(row.key_scope, '')}")
    if row.disclosure:
        parts.append(f"disclosure: {row.disclosure} — {triage.DISCLOSURE_MEANS.get(row.disclosure, '')}")
    found = row.attribution or {}
    shares = triage.shares_text(row.ai_share, row.person_share, row.unknown_share)
    if shares:
        base = found.get("base_lines") or 0
        parts.append(
            f"share of the lines of code written here: {shares}"
            + (f" ({base} added lines from the base not counted)" if base else "")
        )
    if row.problem:
        parts.append(f"problem: {row.problem}")
    if found.get("rewritten_summary"):
        parts.append(str(found["rewritten_summary"]))
    notices = found.get("notices") or []
    parts += [f"· {notice.get('source')}: {notice.get('message')}" for notice in notices[:MAX_NOTICES]]
    if len(notices) > MAX_NOTICES:
        parts.append(f"· and {len(notices) - MAX_NOTICES} more (the submission's Note pane lists them all)")
    for what in found.get("cut") or []:
        parts.append(f"⚠ {what}")  # what was not read or counted: said, never silent
    return "\n".join(parts)
