"""What a triage row says at a glance, from what was observed: one mark per scenario, the key's
scope as the gateway saw it, the disclosure's state, and the filter a reviewer types. Pure.

Evidence, not verdicts: the key scope is read from the requests the gateway recorded (which keys,
in which call, in which process), never from the candidate's code or output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from review.core.scenarios import SCENARIOS

# Every state word, one per state, the same in the console, `review triage` and `review show`. A
# reviewer's own review is "draft" or "final" in the score file; a draft reads "in review", as a
# submission with only drafts does (store.review_state).
STATE_WORDS = {
    "new": "new",
    "draft": "in review",
    "in review": "in review",
    "final": "final",
    # A final review at HEAD, by anyone: the word the console shows for its own final review.
    "scored": "final",
    "stale": "stale",
    "unreadable": "unreadable",
}
# A state column as wide as its longest word: a narrower one shifted that row's columns.
STATE_WIDTH = max(map(len, STATE_WORDS.values()))


def state_word(state: str) -> str:
    return STATE_WORDS.get(state, state)


OK, BAD, NOT_RUN = "✓", "✗", "·"

# Worst first, as a sort by the column puts them: no key at all (or a retry without one), a new key
# per retry (the draft's bug), two orders sharing one, nothing recorded, no retry to show it, reused by
# retries only, reused after a restart.
NO_RETRY_SEEN = "no retry seen"
KEY_SCOPES = ("none", "per-attempt", "per-amount", "unknown", NO_RETRY_SEEN, "per-call", "persisted")
KEY_SCOPE_MEANS = {
    "per-attempt": "a new key on a retry: a retry is a new payment (the model draft's bug)",
    "per-call": "a retry reused its call's key; no retry after a restart reused it",
    "persisted": "the call after a process restart reused the key sent before it",
    "per-amount": "two orders of the same amount share a key: the second order is lost",
    "none": "no idempotency key sent (on any request, or on a retry)",
    NO_RETRY_SEEN: "the client never retried, so no retry showed what it does with the key",
    "unknown": "no request recorded",
}

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
    return "".join(OK if verdicts.get(s.name) == "ok" else BAD if s.name in verdicts else NOT_RUN for s in SCENARIOS)


def spelled_marks(verdicts: Mapping[str, str]) -> str:
    """`503 ✓ lost ✗ double-charge …`: the legend and the marks in one line."""
    parts = []
    for scenario in SCENARIOS:
        short, verdict = scenario.short, verdicts.get(scenario.name)
        if verdict is None:
            parts.append(f"{short} {NOT_RUN}")
        elif verdict == "ok":
            parts.append(f"{short} {OK}")
        else:
            parts.append(f"{short} {BAD} {verdict}")
    return " · ".join(parts)


def legend() -> str:
    """The scenarios' short names, in the suite's order, as the marks show them."""
    return " ".join(scenario.short for scenario in SCENARIOS)


def key_scope(records: Mapping[str, Iterable[Mapping]]) -> str:
    """The key's scope from what the gateway recorded, per scenario name: each record has `process`,
    `call` and `key` (None when no key was sent). Only what was observed: `per-call` needs a retry that
    reused its key, `persisted` a call after a restart that reused the key sent before it; a client
    that never retried has shown no scope (`no retry seen`)."""
    by_scenario = {name: list(found) for name, found in records.items()}
    every = [r for found in by_scenario.values() for r in found]
    if not every:
        return "unknown"
    if all(r.get("key") is None for r in every):
        return "none"
    retries = _retry_keys(by_scenario)
    if retries == "new key":
        return "per-attempt"
    if retries == "no key":
        return "none"  # a retry without a key: the gateway cannot tell it from a new payment
    for scenario in SCENARIOS:
        found = by_scenario.get(scenario.name, [])
        if scenario.orders > 1 and _one_key_for_all_calls(found):
            return "per-amount"
    for scenario in SCENARIOS:
        after_restart = _keys_after_restart(by_scenario.get(scenario.name, [])) if scenario.restarts else None
        if after_restart is not None:
            before, after = after_restart
            if after <= before:
                return "persisted"
            if None in after:
                return "none"
    return "per-call" if retries == "same key" else NO_RETRY_SEEN


def _retry_keys(by_scenario: Mapping[str, list[Mapping]]) -> str | None:
    """What the retries (a call's attempts after its first, in one process of one scenario) sent: "new
    key" when one sent another key than its call's first, "no key" when one sent none, "same key" when
    every one reused it, None when nothing retried."""
    calls: dict[tuple, list] = {}
    for name, records in by_scenario.items():
        for record in records:
            calls.setdefault((name, record.get("process"), record.get("call")), []).append(record.get("key"))
    retried = [keys for keys in calls.values() if len(keys) > 1]
    if any(len(set(keys) - {None}) > 1 for keys in retried):
        return "new key"
    if any(None in keys for keys in retried):
        return "no key"
    return "same key" if retried else None


def _one_key_for_all_calls(records: list[Mapping]) -> bool:
    by_call: dict[object, set] = {}
    for record in records:
        by_call.setdefault(record.get("call"), set()).add(record.get("key"))
    return len(by_call) > 1 and len({key for keys in by_call.values() for key in keys} - {None}) == 1


def _keys_after_restart(records: list[Mapping]) -> tuple[set, set] | None:
    """The keys sent before the restart (the first process) and after it (the later ones), or None
    when no request came after the restart."""
    first = min((r.get("process") or 1 for r in records), default=1)
    before = {r.get("key") for r in records if (r.get("process") or 1) == first} - {None}
    after = {r.get("key") for r in records if (r.get("process") or 1) != first}
    return (before, after) if after else None


def assistants_text(assistants: list[str], attribution: Mapping | None, empty: str = "none detected") -> str:
    """The row's assistants, each tool the console does not know marked so (it is shown as written)."""
    unknown = set((attribution or {}).get("unknown_tools") or ())
    return ", ".join(f"{tool} (not a known tool)" if tool in unknown else tool for tool in assistants) or empty


def shares_text(ai: float | None, person: float | None, unknown: float | None) -> str | None:
    """ "AI 40% · person 20% · unknown 40%": the lines written in the range by state, a state with none
    left out but the AI's; never the AI's alone when a source speaks for no line ("AI 0% · unknown
    100%", not "0%", which reads as the candidate's own work). None when no line was counted."""
    if ai is None:
        return None
    parts = [f"AI {ai:.0%}"]
    parts += [f"{name} {share:.0%}" for name, share in (("person", person), ("unknown", unknown)) if share]
    return " · ".join(parts)


def disclosure_state(tools: list[str], conflicts: int, unmapped: int, declares_none: bool) -> str:
    if conflicts:
        return "conflict"
    if unmapped:
        return "unmapped"
    if tools:
        return "ok"
    return "no-ai" if declares_none else "none"


# --------------------------------------------------------------------------- the filter

FILTER_FIELDS = (
    "name",
    "state",
    "tool",
    "scope",
    "disclosure",
    "verdict",
    "reviewer",
    "ai",
    "person",
    "unknown",
    "similar",
)
# Fields holding a percentage, matched by a comparison: `unknown:>0`, `ai:<50`, `person:100`, `similar:>50`
# (a value that is no comparison is matched as text: `similar:ada`, the name of any submission it shares
# own code with).
SHARE_FIELDS = ("ai", "person", "unknown", "similar")
# Those that hold nothing but a share (`similar:` also holds the names it shares own code with).
ONLY_SHARES = ("ai", "person", "unknown")
_COMPARISON = re.compile(r"(>=|<=|>|<|=)?(\d{1,3})%?")


@dataclass(frozen=True)
class Term:
    field: str  # one of FILTER_FIELDS; plain words match the candidate's name only
    value: str


def filter_help() -> str:
    """The filter's form and every field, as the help says it (the box's placeholder points there)."""
    fields = " ".join(f"{field}:" for field in FILTER_FIELDS)
    return (
        f"Filter (/): a word matches candidate names; field:value matches that field — {fields} "
        f"({', '.join(f'{field}:' for field in SHARE_FIELDS)} compare a share in percent: unknown:>0, ai:<=50, "
        "similar:>50; similar:NAME, every submission sharing own code with NAME). All terms must match."
    )


def parse_filter(text: str) -> tuple[list[Term], list[str]]:
    """`state:draft tool:claude unknown:>0 ada` → terms, and the words not understood (an unknown
    field, or a share that is no comparison)."""
    terms, problems = [], []
    for word in text.lower().split():
        field, colon, value = word.partition(":")
        if not colon:
            terms.append(Term("name", word))
        elif field in FILTER_FIELDS and value and (field not in ONLY_SHARES or _COMPARISON.fullmatch(value)):
            terms.append(Term(field, value))
        else:
            problems.append(word)
    return terms, problems


def share_values(share: float | None) -> list[str]:
    """A share as the filter matches it: its whole percent ([] when the row has none)."""
    return [] if share is None else [str(round(share * 100))]


def _compared(wanted: str, value: str) -> bool:
    found = _COMPARISON.fullmatch(wanted)
    if found is None or not value.isdigit():
        return False
    sign, number, percent = found[1] or "=", int(found[2]), int(value)
    return {
        ">": percent > number,
        "<": percent < number,
        ">=": percent >= number,
        "<=": percent <= number,
        "=": percent == number,
    }[sign]


def matches(terms: list[Term], fields: Mapping[str, Iterable[str]]) -> bool:
    """Every term matches: a substring of one of its field's values, case-insensitive; a share field's
    percent by its comparison (`unknown:>0`)."""
    for term in terms:
        values = [v.lower() for v in fields.get(term.field, ())]
        if term.field in SHARE_FIELDS and _COMPARISON.fullmatch(term.value):
            if not any(_compared(term.value, value) for value in values):
                return False
        elif not any(term.value in value for value in values):
            return False
    return True


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
