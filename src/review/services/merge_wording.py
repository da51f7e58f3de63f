"""How a merge of two consoles' saves of one review is said to the reviewer: each field by its rubric
name, each value as the form shows it, the fields both consoles changed with whose value is whose, and what
another console's save brought in. Pure wording over the rubric; no I/O."""

from __future__ import annotations

from collections.abc import Sequence

from review.core.rubric import TIER_LABELS, Rubric
from review.core.text import safe_line
from review.services import score_merge, store


class MergeWording:
    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric

    def field_name(self, field: score_merge.Field) -> str:
        kind, name = field
        signal = self.rubric.signal(name)
        label = signal.name if signal else name
        if kind == "tier":
            return label
        if kind == "comment":
            return f"{label} comment"
        if kind == "flag":
            flag = next((f for f in self.rubric.flags if f.id == name), None)
            return f"flag {(flag.label if flag else name).split(':')[0]}"
        return "Overall comment" if kind == "overall" else "State"

    @staticmethod
    def field_value(field: score_merge.Field, value: str) -> str:
        kind = field[0]
        if kind == "tier":
            return TIER_LABELS.get(value, value) if value else "not scored"
        if kind == "flag":
            return "on" if value else "off"
        return value or "(empty)"

    def conflict_text(self, conflicts: Sequence[score_merge.Conflict], theirs: store.Review | None) -> str:
        """The fields both consoles changed, one under the other: each field's name, then this console's
        value and the other's, each on a line of its own with whose it is (as columns they wrapped
        apart in a narrow rubric pane), and what each key does."""
        when = f"revision {theirs.revision}, {theirs.updated}" if theirs else "on disk"
        fields = [
            line
            for c in conflicts
            for line in (
                f"  {safe_line(self.field_name(c.field), 100)}",
                f"    yours: {safe_line(self.field_value(c.field, c.mine), 300)}",
                f"    other console's: {safe_line(self.field_value(c.field, c.theirs), 300)}",
            )
        ]
        return "\n".join(
            [
                f"CONFLICT: this review was also saved in another console ({when}). What only one side changed "
                "is merged; these fields both changed:",
                *fields,
                "ctrl+s keeps yours · R takes the other console's. Until you decide, saves leave these fields "
                "as the other console saved them and save the rest.",
            ]
        )

    def short_conflict(self, conflicts: Sequence[score_merge.Conflict]) -> str:
        """The conflict in one line, for a notification."""
        pairs = "; ".join(
            f"{self.field_name(c.field)}: yours {self.field_value(c.field, c.mine)}, other console's "
            f"{self.field_value(c.field, c.theirs)}"
            for c in conflicts
        )
        return safe_line(
            f"CONFLICT with your other console — {pairs}. ctrl+s keeps yours, R takes theirs "
            "(both shown in the rubric).",
            400,
        )

    def taken_text(self, taken: Sequence[score_merge.Field], theirs: store.Review, own: bool) -> str:
        """What another console's save brought into this form (`own`: the form keeps changes of its own)."""
        values = score_merge.fields(theirs.values())
        changes = ", ".join(f"{self.field_name(f)}: {self.field_value(f, values.get(f, ''))}" for f in taken)
        text = (
            f"Your review was saved in another console ({theirs.state}, revision {theirs.revision}, {theirs.updated})"
        )
        text += f"; taken in here: {changes}." if changes else "."
        return text + (" Your own changes here are kept (autosave writes them)." if own else "")
