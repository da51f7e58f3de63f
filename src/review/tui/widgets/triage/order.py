"""The order of the triage table's rows: by the sorted column, rows with nothing in it last, ties by
name — or, in a candidate-blind session, by the candidates' numbers, since the folders' (alphabetical)
order would give the names away."""

from __future__ import annotations

from collections.abc import Iterable

from review.services import cohort
from review.tui.widgets.triage.cells import Column


def table_order(
    rows: Iterable[cohort.Row], column: Column, backwards: bool, me: str, blind: dict[str, int]
) -> list[cohort.Row]:
    """`rows` sorted by `column` (reversed with `backwards`); `blind`: folder name -> candidate number
    while names are masked, empty otherwise."""

    def by_name(row: cohort.Row):
        return blind.get(row.name, len(blind) + 1) if blind else row.name

    def order(row: cohort.Row):
        return (False, by_name(row)) if blind and column.key == "name" else column.sort_key(row, me)

    named = sorted(rows, key=by_name)
    present = sorted((row for row in named if order(row)[0] is False), key=order, reverse=backwards)
    return present + [row for row in named if order(row)[0] is True]
