"""The rubric as data: the article's five signals × three tiers, and its failure-mode flags.

A cohort may replace it in ``COHORT/cohort.toml`` (same shape, under ``[rubric]``); the
rubric's version is stored with every score, so a changed rubric never silently re-reads old
scores. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

TIERS = ("weak", "acceptable", "strong")
NO_DECISION = "no-decision"
TIER_LABELS = {"weak": "Weak", "acceptable": "Acceptable", "strong": "Strong", NO_DECISION: "No decision yet"}


class RubricError(Exception):
    pass


@dataclass(frozen=True)
class Signal:
    id: str
    name: str
    weak: str
    acceptable: str
    strong: str

    def description(self, tier: str) -> str:
        return {"weak": self.weak, "acceptable": self.acceptable, "strong": self.strong}.get(tier, "")


@dataclass(frozen=True)
class Flag:
    id: str
    label: str


@dataclass(frozen=True)
class Rubric:
    version: str
    signals: tuple[Signal, ...]
    flags: tuple[Flag, ...]

    def signal(self, signal_id: str) -> Signal | None:
        return next((s for s in self.signals if s.id == signal_id), None)


# "What you're grading", verbatim from the article.
ARTICLE = Rubric(
    version="article-v1",
    signals=(
        Signal(
            "found-defect",
            "Found the defect",
            "Did not see it",
            "Found it by reading the diff",
            "Found it because a test went red",
        ),
        Signal("key-scope", "Key scope", "Per attempt", "Per call", "Per call, persisted before the request"),
        Signal("evidence", "Evidence", '"It passes"', "Ran the stub once", "Before/after runs with raw output"),
        Signal(
            "explanation",
            "Explanation",
            "Restates the diff",
            "Names idempotency",
            "Explains the restart gap unprompted",
        ),
        Signal(
            "blast-radius",
            "Blast radius",
            "Ignores it",
            "Mentions duplicates",
            "Names what else is unsafe: timeouts, partial writes",
        ),
    ),
    flags=(
        Flag("fixed-symptom", "Fixed the symptom: swallowed the 503 (green harness, dropped payment)"),
        Flag("deleted-model-work", "Deleted the model's work: a full rewrite that also drops the backoff"),
        Flag("undisclosed-ai", "Undisclosed or unreviewable assistant use"),
    ),
)


def from_settings(settings: dict) -> Rubric:
    """The cohort's rubric from `cohort.toml`'s `[rubric]` table, or the article's."""
    table = settings.get("rubric")
    if not table:
        return ARTICLE
    if not isinstance(table, dict):
        raise RubricError("cohort.toml: [rubric] must be a table")
    version = table.get("version")
    if not isinstance(version, str) or not version:
        raise RubricError("cohort.toml: [rubric] needs a version (stored with every score)")
    signals = []
    for index, item in enumerate(table.get("signals", [])):
        missing = [k for k in ("id", "name", "weak", "acceptable", "strong") if not isinstance(item.get(k), str)]
        if missing:
            raise RubricError(f"cohort.toml: rubric signal {index + 1} lacks {', '.join(missing)}")
        signals.append(Signal(item["id"], item["name"], item["weak"], item["acceptable"], item["strong"]))
    if not signals:
        raise RubricError("cohort.toml: [rubric] has no [[rubric.signals]]")
    if len({s.id for s in signals}) != len(signals):
        raise RubricError("cohort.toml: two rubric signals share an id")
    flags = []
    for index, item in enumerate(table.get("flags", [])):
        if not isinstance(item.get("id"), str) or not isinstance(item.get("label"), str):
            raise RubricError(f"cohort.toml: rubric flag {index + 1} needs an id and a label")
        flags.append(Flag(item["id"], item["label"]))
    return Rubric(version, tuple(signals), tuple(flags) if "flags" in table else ARTICLE.flags)
