"""Three-way merge of one reviewer's score: the entry as it was loaded (the base), what this console
holds (mine) and what is on disk now (theirs: another console of the same reviewer saved meanwhile).

A field only one side changed takes that side's value; a field both sides changed to different values
is a conflict, which keeps mine until the reviewer decides. A field is one signal's tier, one
signal's comment, one flag, the overall comment, or the state; line comments are merged as a list
(each side's additions kept, each side's removals applied) and never conflict.

Values are the rubric form's shape: ``{"tiers", "comments", "flags", "comment", "anchored", "state"}``.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# ("tier", signal id) · ("comment", signal id) · ("flag", flag id) · ("overall", "") · ("state", "")
Field = tuple[str, str]

EMPTY: dict = {"tiers": {}, "comments": {}, "flags": [], "comment": "", "anchored": [], "state": "draft"}


@dataclass(frozen=True)
class Conflict:
    """A field both sides changed: mine and theirs ("" for a field one side left empty)."""

    field: Field
    mine: str
    theirs: str


@dataclass(frozen=True)
class Merged:
    values: dict
    conflicts: tuple[Conflict, ...]
    # Fields whose value came from theirs (what the other console changed and this one took).
    taken: tuple[Field, ...]


def fields(values: dict) -> dict[Field, str]:
    """Every field that holds something (an empty tier, comment or flag is absent), and the state."""
    found: dict[Field, str] = {}
    for signal, tier in values.get("tiers", {}).items():
        if tier:
            found[("tier", signal)] = tier
    for signal, text in values.get("comments", {}).items():
        if text:
            found[("comment", signal)] = text
    for flag in values.get("flags", []):
        found[("flag", flag)] = "on"
    if values.get("comment"):
        found[("overall", "")] = values["comment"]
    found[("state", "")] = values.get("state") or "draft"
    return found


def same(one: dict, other: dict) -> bool:
    """The same review, whatever the order of flags or the empty entries."""
    return fields(one) == fields(other) and _anchors(one) == _anchors(other)


def merge(base: dict | None, mine: dict, theirs: dict, pending: Iterable[Field] = ()) -> Merged:
    """`pending`: fields already in conflict and not yet decided; they stay conflicts while mine and
    theirs differ, whatever the base says."""
    base_fields, mine_fields, their_fields = fields(base or EMPTY), fields(mine), fields(theirs)
    undecided = set(pending)
    result: dict[Field, str] = {}
    conflicts: list[Conflict] = []
    taken: list[Field] = []
    for field in _ordered(mine_fields, their_fields, base_fields):
        was, ours, other = base_fields.get(field, ""), mine_fields.get(field, ""), their_fields.get(field, "")
        if ours == other:
            value = ours
        elif field in undecided or (ours != was and other != was):
            value = ours
            conflicts.append(Conflict(field, ours, other))
        elif ours == was:
            value = other
            taken.append(field)
        else:
            value = ours
        if value:
            result[field] = value
    values = _values(result, mine, theirs)
    values["anchored"] = _merge_anchors(_anchors(base or EMPTY), _anchors(mine), _anchors(theirs))
    return Merged(values, tuple(conflicts), tuple(taken))


def with_theirs(values: dict, conflicts: Iterable[Conflict]) -> dict:
    """`values` with every conflicting field set to theirs (what is on disk keeps its value until the
    reviewer decides)."""
    chosen = fields(values)
    for conflict in conflicts:
        if conflict.theirs:
            chosen[conflict.field] = conflict.theirs
        else:
            chosen.pop(conflict.field, None)
    result = _values(chosen, values, values)
    result["anchored"] = [dict(a) for a in values.get("anchored", [])]
    return result


def _ordered(*sources: dict[Field, str]) -> list[Field]:
    seen: dict[Field, None] = {}
    for source in sources:
        seen.update(dict.fromkeys(source))
    return list(seen)


def _values(chosen: dict[Field, str], mine: dict, theirs: dict) -> dict:
    flags = [flag for flag in [*mine.get("flags", []), *theirs.get("flags", [])] if ("flag", flag) in chosen]
    return {
        "tiers": {name: value for (kind, name), value in chosen.items() if kind == "tier"},
        "comments": {name: value for (kind, name), value in chosen.items() if kind == "comment"},
        "flags": list(dict.fromkeys(flags)),
        "comment": chosen.get(("overall", ""), ""),
        "anchored": [],
        "state": chosen.get(("state", ""), "draft"),
    }


def _anchors(values: dict) -> list[tuple[str, str]]:
    return [(str(a.get("at", "")), str(a.get("text", ""))) for a in values.get("anchored", [])]


def _merge_anchors(
    base: list[tuple[str, str]], mine: list[tuple[str, str]], theirs: list[tuple[str, str]]
) -> list[dict[str, str]]:
    removed = [a for a in base if a not in mine]
    kept = [a for a in theirs if a not in removed]
    kept += [a for a in mine if a not in base and a not in kept]
    return [{"at": at, "text": text} for at, text in kept]
