"""Before/after: the same scenarios on two commits, and what changed between them. Pure: no I/O.

"Before/after runs with raw output" is the article's strong tier for Evidence; the console
makes the same pair of runs itself, so the reviewer can hold the note's claims against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class Observed(Protocol):
    name: str
    verdict: str
    requests: int
    distinct_keys: int
    charges_created: int


@dataclass(frozen=True)
class Change:
    scenario: str
    before: str | None  # the verdict, or None when the scenario did not run on that side
    after: str | None
    before_facts: str
    after_facts: str
    kind: str  # fixed | broke | same | changed | missing

    @property
    def text(self) -> str:
        if self.kind == "same":
            return f"same ({self.after})"
        return f"{self.before or '—'} → {self.after or '—'}"


def facts(result: Observed | None) -> str:
    if result is None:
        return "not run"
    plural = "" if result.charges_created == 1 else "s"
    return (
        f"{result.requests} req seen · {result.distinct_keys} key{'s' if result.distinct_keys != 1 else ''}"
        f" · {result.charges_created} charge{plural} created"
    )


def classify(before: str | None, after: str | None) -> str:
    if before is None or after is None:
        return "missing"
    if before == after:
        return "same"
    if after == "ok":
        return "fixed"
    if before == "ok":
        return "broke"
    return "changed"


def compare(before: Sequence[Observed], after: Sequence[Observed]) -> list[Change]:
    """One row per scenario, in the order the scenarios ran (the before side first)."""
    by_before = {r.name: r for r in before}
    by_after = {r.name: r for r in after}
    names = list(dict.fromkeys([*by_before, *by_after]))
    changes = []
    for name in names:
        old, new = by_before.get(name), by_after.get(name)
        changes.append(
            Change(
                name,
                old.verdict if old else None,
                new.verdict if new else None,
                facts(old),
                facts(new),
                classify(old.verdict if old else None, new.verdict if new else None),
            )
        )
    return changes


def headline(changes: Sequence[Change]) -> str:
    """One line: how many scenarios were fixed, broke, changed or stayed the same."""
    counts: dict[str, int] = {}
    for change in changes:
        counts[change.kind] = counts.get(change.kind, 0) + 1
    order = ("fixed", "broke", "changed", "same", "missing")
    return ", ".join(f"{counts[k]} {k}" for k in order if counts.get(k)) or "nothing to compare"
