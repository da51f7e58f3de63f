"""What a triage row says at a glance, from what was observed: one mark per scenario, the key's
scope as the gateway saw it, the disclosure's state, and the filter a reviewer types. Pure.

Evidence, not verdicts: the key scope is read from the requests the gateway recorded (which keys,
in which call, in which process), never from the candidate's code or output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Short names for the scenarios, in the suite's order: the marks and the legend.
SHORT = {
    "happy": "ok",
    "first-503": "503",
    "lost-response": "lost",
    "always-503": "503∞",
    "timeout": "t/o",
    "decline": "402",
    "restart": "rst",
    "two-orders": "2×",
}
OK, BAD, NOT_RUN = "✓", "✗", "·"

# Worst first, as a sort by the column puts them: no key at all, a new key per retry (the draft's
# bug), two orders sharing one, not shown by the runs, reused by retries only, persisted.
KEY_SCOPES = ("none", "per-attempt", "per-amount", "unknown", "per-call", "persisted")
KEY_SCOPE_MEANS = {
    "per-attempt": "a new key on every retry: a retry is a new payment (the model draft's bug)",
    "per-call": "one key per call, reused by its retries, but not across a restart",
    "persisted": "the same key after a process restart",
    "per-amount": "two orders of the same amount share a key: the second order is lost",
    "none": "no idempotency key sent",
    "unknown": "the runs did not show it (nothing retried, no restart observed)",
}
RETRYING = ("first-503", "lost-response", "timeout", "always-503")

# Worst first: sources that disagree, nothing disclosed, lines that map nowhere, none declared, named.
DISCLOSURES = ("conflict", "none", "unmapped", "no-ai", "ok")
DISCLOSURE_MEANS = {
    "ok": "tools named and mapped to lines",
    "no-ai": "the candidate declares no AI use, and nothing says otherwise",
    "unmapped": "disclosure lines, or line-level records, that map to no file or line (listed on the note)",
    "conflict": "two sources name different authors for the same lines",
    "none": "nothing disclosed: no tool in the note or the commits",
}


# Verdicts, worst first: what a narrow cell names first and what a sort by runs puts on top.
VERDICT_SEVERITY = (
    "double-charge",
    "dropped-payment",
    "lost-order",
    "wrong-endpoint",
    "no-request",
    "crashed",
    "resource-limit",
    "missing-entrypoint",
    "hung",
    "retry-storm",
    "no-retry",
    "retried-decline",
    "no-backoff",
    "ok",
)


def severity(order: tuple[str, ...], value: str) -> int:
    """A value's place in a worst-first order (one the order does not know: after all it knows)."""
    return order.index(value) if value in order else len(order)


def runs_severity(verdicts: Mapping[str, str]) -> tuple[int, int]:
    """Most scenarios not ok first; among those, the worst verdict first."""
    bad = [verdict for verdict in verdicts.values() if verdict != "ok"]
    return -len(bad), min((severity(VERDICT_SEVERITY, verdict) for verdict in bad), default=len(VERDICT_SEVERITY))


def marks(verdicts: Mapping[str, str]) -> str:
    """One glyph per scenario, in the suite's order: ✓ ok, ✗ anything else, · not run."""
    return "".join(OK if verdicts.get(name) == "ok" else BAD if name in verdicts else NOT_RUN for name in SHORT)


def spelled_marks(verdicts: Mapping[str, str]) -> str:
    """`503 ✓ lost ✗ double-charge …`: the legend and the marks in one line."""
    parts = []
    for name, short in SHORT.items():
        verdict = verdicts.get(name)
        if verdict is None:
            parts.append(f"{short} {NOT_RUN}")
        elif verdict == "ok":
            parts.append(f"{short} {OK}")
        else:
            parts.append(f"{short} {BAD} {verdict}")
    return " · ".join(parts)


def key_scope(records: Mapping[str, Iterable[Mapping]]) -> str:
    """The key's scope from the gateway's records, per scenario name: each record has `process`,
    `call` and `key` (None when no key was sent)."""
    by_scenario = {name: list(found) for name, found in records.items()}
    every = [r for found in by_scenario.values() for r in found]
    if not every:
        return "unknown"
    if all(r.get("key") is None for r in every):
        return "none"
    reused_in_a_call = False
    for name in RETRYING:
        calls: dict[tuple, set] = {}
        for record in by_scenario.get(name, []):
            calls.setdefault((record.get("process"), record.get("call")), set()).add(record.get("key"))
        for keys in calls.values():
            if len(keys) > 1:
                return "per-attempt"
        reused_in_a_call |= any(len(keys) == 1 for keys in calls.values()) and len(by_scenario.get(name, [])) > 1
    two = by_scenario.get("two-orders", [])
    by_call: dict[object, set] = {}
    for record in two:
        by_call.setdefault(record.get("call"), set()).add(record.get("key"))
    if len(by_call) > 1 and len({key for keys in by_call.values() for key in keys}) == 1:
        return "per-amount"
    restart = by_scenario.get("restart", [])
    processes = {r.get("process") for r in restart}
    if len(processes) > 1:
        return "persisted" if len({r.get("key") for r in restart}) == 1 else "per-call"
    return "per-call" if reused_in_a_call else "unknown"


def assistants_text(assistants: list[str], attribution: Mapping | None, empty: str = "none detected") -> str:
    """The row's assistants, each tool the console does not know marked so (it is shown as written)."""
    unknown = set((attribution or {}).get("unknown_tools") or ())
    return ", ".join(f"{tool} (not a known tool)" if tool in unknown else tool for tool in assistants) or empty


def disclosure_state(tools: list[str], conflicts: int, unmapped: int, declares_none: bool) -> str:
    if conflicts:
        return "conflict"
    if unmapped:
        return "unmapped"
    if tools:
        return "ok"
    return "no-ai" if declares_none else "none"


# --------------------------------------------------------------------------- the filter

FILTER_FIELDS = ("name", "state", "tool", "scope", "disclosure", "verdict", "reviewer", "similar")
# `similar:>50`: a field's number compared (a percentage), not matched as text.
COMPARED = re.compile(r"(>=|<=|>|<|=)(\d+(?:\.\d+)?)%?")


@dataclass(frozen=True)
class Term:
    field: str  # one of FILTER_FIELDS; plain words match the candidate's name only
    value: str


def parse_filter(text: str) -> tuple[list[Term], list[str]]:
    """`state:draft tool:claude ada` → terms, and the words not understood (an unknown field)."""
    terms, problems = [], []
    for word in text.lower().split():
        field, colon, value = word.partition(":")
        if not colon:
            terms.append(Term("name", word))
        elif field in FILTER_FIELDS and value:
            terms.append(Term(field, value))
        else:
            problems.append(word)
    return terms, problems


def matches(terms: list[Term], fields: Mapping[str, Iterable[str]]) -> bool:
    """Every term matches (a substring of one of its field's values, case-insensitive; `>50`, `<=10`
    and the like a value that is a number)."""
    for term in terms:
        values = [v.lower() for v in fields.get(term.field, ())]
        compared = COMPARED.fullmatch(term.value)
        if compared:
            if not any(_compare(value, *compared.groups()) for value in values):
                return False
        elif not any(term.value in value for value in values):
            return False
    return True


def _compare(value: str, how: str, number: str) -> bool:
    try:
        found = float(value)
    except ValueError:
        return False
    wanted = float(number)
    return {">": found > wanted, "<": found < wanted, ">=": found >= wanted, "<=": found <= wanted}.get(
        how, found == wanted
    )


def next_to_score(to_score: list[bool], at: int) -> int | None:
    """The next row after `at` (round to the first) still to score, never `at` itself; None when none."""
    count = len(to_score)
    return next(((at + step) % count for step in range(1, count) if to_score[(at + step) % count]), None)


def none_left_text(me: str, here: str | None, outside: int) -> str:
    """What `n` and save-and-next say when no other row shown is left to score."""
    said = f"No other submission shown is left for {me} to score"
    if here:
        said += f" ({here} is)"
    if outside:
        said += f"; {outside} more outside the filter (escape clears it)"
    return said + "."
