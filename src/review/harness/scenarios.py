"""The fault scenarios, as data, and what each observation means. Pure: no I/O.

Verdicts are computed only from the gateway's record (requests, keys, charges) and from the
driver's report of how each call settled; never from what the candidate's code prints.

Two figures are kept apart in every word shown: the requests the gateway saw and the charges it
created. The article's stub counts every request as a charge (`{"charges":2,...}`); its line is
shown as the starter stub's, labelled, never as this gateway's count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from review.core.scenarios import (
    AMOUNT,
    BY_NAME,
    FIRST_RETRY_COST_MS,
    MIN_BACKOFF_MS,
    RETRY_BUDGET,
    SCENARIOS,
    Fault,
    FaultPlan,
    Scenario,
)
from review.harness.records import RequestRecord

# How often the gateway reads how late this machine runs a timer (see Facts.lateness).
LATENESS_PROBE_MS = 5.0

__all__ = [
    "AMOUNT",
    "BY_NAME",
    "FIRST_RETRY_COST_MS",
    "MIN_BACKOFF_MS",
    "RETRY_BUDGET",
    "SCENARIOS",
    "Fault",
    "FaultPlan",
    "Scenario",
]

VERDICTS = (
    "ok",
    "double-charge",
    "dropped-payment",
    "no-retry",
    "no-backoff",
    "retry-storm",
    "retried-decline",
    "hung",
    "lost-order",
    "crashed",
    "missing-entrypoint",
    "wrong-endpoint",
    "no-request",
    "resource-limit",
)


@dataclass
class CallOutcome:
    process: int
    call: int
    kind: str  # resolved | rejected | hung | crashed | killed (the restart's deliberate kill)
    #            | claimed-resolved | claimed-rejected (a hung process's own word on an earlier call)
    detail: str = ""

    def to_json(self) -> dict:
        return {"process": self.process, "call": self.call, "kind": self.kind, "detail": self.detail}


@dataclass
class Facts:
    """What a run observed, gathered by the runner."""

    requests: list[RequestRecord]
    charges: int
    outcomes: list[CallOutcome]
    entry_missing: str | None = None  # why there is no chargeWithRetry to call
    crash: str | None = None  # import error, or the process died on its own
    notes: list[str] = field(default_factory=list)
    other_requests: int = 0  # requests to anything but /charge (a wrong path, a flood past the cap)
    resource_limit: str | None = None  # what the runner measured past a cap (memory, processes, disk)
    # (when, how late) in ms: how late the gateway's own timer ran while the client ran (a busy machine).
    lateness: list[tuple[float, float]] = field(default_factory=list)


def gaps_ms(requests: list[RequestRecord]) -> list[float]:
    """Waits between consecutive attempts of the same call in the same process."""
    gaps = []
    for before, after in zip(requests, requests[1:]):
        if (before.process, before.call) == (after.process, after.call):
            gaps.append(round(after.t_ms - before.t_ms, 1))
    return gaps


def lateness_ms(requests: list[RequestRecord], lateness: list[tuple[float, float]]) -> list[float]:
    """For each wait `gaps_ms` gives, how late this machine ran a timer during it (the most it ran
    late from the first attempt to just after the second, when the second was recorded)."""
    late = []
    for before, after in zip(requests, requests[1:]):
        if (before.process, before.call) == (after.process, after.call):
            end = after.t_ms + 2 * LATENESS_PROBE_MS
            late.append(max((ms for at, ms in lateness if before.t_ms < at <= end), default=0.0))
    return late


def judge(scenario: Scenario, facts: Facts) -> tuple[str, list[str]]:
    """The verdict word for one scenario, and the reasons behind it (shown beside it)."""
    reqs = facts.requests
    if facts.entry_missing:
        return "missing-entrypoint", [facts.entry_missing]
    if facts.resource_limit:
        return "resource-limit", [f"killed by the runner: {facts.resource_limit}"]
    if facts.crash and not any(o.kind in ("resolved", "rejected") for o in facts.outcomes):
        return "crashed", [facts.crash]
    if not reqs and not any(o.kind in ("hung", "killed", "crashed") for o in facts.outcomes):
        # Nothing reached the charge endpoint: never ok, never "no-retry" — it did not try at all.
        if facts.other_requests:
            return "wrong-endpoint", [
                f"{facts.other_requests} request(s), none to POST /charge (the gateway "
                "answered them 404): no payment was ever attempted"
            ]
        return "no-request", ["no request reached the gateway: no payment was ever attempted"]
    orders = len(scenario.calls)
    reasons = [counted(len(reqs), len(keys_sent(reqs)), facts.charges)]
    keyless = keyless_reason(reqs)
    if keyless:
        reasons.append(keyless)
    if facts.charges > orders:
        return "double-charge", reasons + [f"{facts.charges} charges created for {orders} order(s)"]
    for (_process, call), call_keys in _keys_per_call(reqs).items():
        if len(call_keys) > 1 and not scenario.refusal_is_final:  # there, retrying at all is the fault
            # The article's stub counts every request as a charge: two keys for one order is its
            # {"charges":2,"distinctKeys":2}. This gateway created fewer only because the failure
            # came before execution; after a lost response the same client charges twice.
            return "double-charge", reasons + [
                f"call {call} sent {len(call_keys)} different keys across its retries (a new key per attempt): "
                "the gateway sees each retry as a new payment"
                + (_why_fewer(facts.charges) if facts.charges < len(call_keys) else "")
            ]
    final_process = max((o.process for o in facts.outcomes), default=1)
    finals = [o for o in facts.outcomes if o.process == final_process and o.kind != "killed"]
    resolved = [o for o in finals if o.kind == "resolved"]
    if orders > 1 and len(resolved) == orders and facts.charges < orders:
        return "lost-order", reasons + [
            "both calls resolved but only one charge exists: the second order was "
            "deduplicated into the first (a key derived from the amount?)"
        ]
    for outcome in resolved:
        charged = [r for r in reqs if r.process == outcome.process and r.call == outcome.call and r.charge_id]
        if scenario.restarts:
            charged = [r for r in reqs if r.charge_id]
        if not charged:
            return "dropped-payment", reasons + [
                f"call {outcome.call} resolved ({outcome.detail[:80]}) but no charge exists for it"
            ]
    hung = [o for o in finals if o.kind == "hung"]
    if hung:
        how = (
            hung[0].detail
            if hung[0].detail.startswith(("the call", "call "))
            else f"call {hung[0].call} never settled; killed at the {scenario.limit_s:g} s limit"
        )
        return "hung", reasons + [how]
    crashed = [o for o in finals if o.kind == "crashed"]
    if crashed:
        return "crashed", reasons + [crashed[0].detail or (facts.crash or "the process died")]
    per_call = max((sum(1 for r in reqs if (r.process, r.call) == (o.process, o.call)) for o in finals), default=0)
    if scenario.refusal_is_final and len(reqs) > 1:
        return "retried-decline", reasons + ["a 402 decline is final; retrying it is wrong"]
    if per_call > RETRY_BUDGET:
        return "retry-storm", reasons + [f"{per_call} attempts for one call; the budget is {RETRY_BUDGET}"]
    if scenario.retries and per_call <= 1:
        return "no-retry", reasons + ["gave up after the first attempt"]
    final_reqs = [r for r in reqs if r.process == final_process]
    gaps = gaps_ms(final_reqs)
    if scenario.checks_backoff:
        backoff, said = backoff_reading(gaps, lateness_ms(final_reqs, facts.lateness))
        if said:
            reasons.append(said)
        if not backoff:
            return "no-backoff", reasons
    if scenario.checks_backoff and len(gaps) >= 2:
        reasons.append(growth_reading(gaps, lateness_ms(final_reqs, facts.lateness)))
    if scenario.rejects and resolved:
        return "dropped-payment", reasons + ["the call resolved although the payment failed"]
    return "ok", reasons


def backoff_reading(gaps: list[float], late: list[float] | None = None) -> tuple[bool, str]:
    """Whether the waits between one call's attempts, as a whole, show a backoff, and what they were.

    A backoff is a policy; one wait is one draw of it. Full jitter (a random wait in 0..cap) draws a
    wait under the floor now and then, so no single wait decides: the waits show no backoff only when
    there are at least two and none reaches the floor — the first allowed FIRST_RETRY_COST_MS more, as
    it also carries the client's first failure (its error path run cold: 40 ms for a client that never
    waits, on a loaded machine). A busy machine stretches every wait by as late as it ran timers then
    (`late`, measured beside them): that much of each wait is the machine's, not the client's."""
    if not gaps:
        return True, ""
    late = late or [0.0] * len(gaps)
    waits = [max(0.0, gap - stretch) for gap, stretch in zip(gaps, late)]
    shown = ", ".join(f"{gap:g}" for gap in gaps) + " ms"
    if max(late) > 0:
        shown += f" (this machine ran its timers up to {max(late):g} ms late then)"
    first_floor = MIN_BACKOFF_MS + FIRST_RETRY_COST_MS
    if len(waits) >= 2 and waits[0] < first_floor and all(wait < MIN_BACKOFF_MS for wait in waits[1:]):
        return False, (
            f"no backoff: none of the {len(gaps)} waits between attempts reached {MIN_BACKOFF_MS:g} ms "
            f"({first_floor:g} ms for the first) — {shown}"
        )
    short = [wait for wait in waits if wait < MIN_BACKOFF_MS]
    if not short:
        return True, ""
    if len(gaps) == 1:
        return True, (
            f"one wait between attempts, {shown}, under {MIN_BACKOFF_MS:g} ms: one wait is one draw of a "
            "policy, not the policy (always-503 shows more)"
        )
    return True, (
        f"waits between attempts: {shown}; {len(short)} of {len(gaps)} under {MIN_BACKOFF_MS:g} ms, "
        f"the others past it (a random wait can draw a short one)"
    )


def growth_reading(gaps: list[float], late: list[float]) -> str:
    """Whether the waits between attempts grow, as far as this machine's timing can tell: each wait less
    the lateness measured beside it (as backoff_reading). The first wait may also carry up to
    FIRST_RETRY_COST_MS of the client's first failure, so a first wait longer than the second by no
    more than that cannot be told from a shorter one, and is said so rather than guessed."""
    waits = [max(0.0, gap - stretch) for gap, stretch in zip(gaps, late)]
    pairs = list(zip(waits, waits[1:]))
    shown = ", ".join(f"{gap:g}" for gap in gaps) + " ms"
    if all(b > a for a, b in pairs):
        return "waits grow"
    if any(b <= a - (FIRST_RETRY_COST_MS if i == 0 else 0.0) for i, (a, b) in enumerate(pairs)):
        return f"waits do not grow ({shown})"
    return (
        f"cannot tell whether the waits grow ({shown}): the first also carries the client's first failure, "
        f"up to {FIRST_RETRY_COST_MS:g} ms on a loaded machine"
    )


def keys_sent(requests: list[RequestRecord]) -> set[str]:
    """The distinct idempotency keys the requests carried: a request without one adds none."""
    return {r.key for r in requests if r.key is not None}


def keyless_reason(requests: list[RequestRecord]) -> str:
    """How many requests carried no idempotency key, in words ("" when every one carried one)."""
    without = sum(r.key is None for r in requests)
    if not without:
        return ""
    if without == len(requests):
        return "no idempotency key sent" + (f" on any of the {without} requests" if without > 1 else "")
    return f"no idempotency key sent on {without} of {len(requests)} requests"


def _keys_per_call(requests: list[RequestRecord]) -> dict[tuple[int, int | None], set[str]]:
    """The keys each call sent (a request without a key sends none)."""
    keys: dict[tuple[int, int | None], set[str]] = {}
    for record in requests:
        found = keys.setdefault((record.process, record.call), set())
        if record.key is not None:
            found.add(record.key)
    return keys


def counted(requests: int, keys: int, created: int) -> str:
    """The gateway's own figures, each named for what it counts."""
    return f"{requests} request(s) seen, {keys} distinct key(s), {created} charge(s) created by the gateway"


def _why_fewer(created: int) -> str:
    """Why a client that sends a new key per attempt was charged less than once per key here."""
    if created == 0:
        return " (none was created here only because every attempt was refused before charging)"
    return f" ({created} created here only because the other attempts were refused before charging)"


ARTICLE_LABEL = "starter stub's line"
ARTICLE_MEANS = '(its "charges" counts the requests it received)'


def article_line(requests: list[RequestRecord]) -> str:
    """What the article's stub prints once two requests arrived — requests received (which it calls
    charges) and distinct keys — labelled as its line, not this gateway's count of charges created."""
    printed = '{"charges":%d,"distinctKeys":%d}' % (len(requests), len({r.key for r in requests}))
    keyless = sum(r.key is None for r in requests)
    # The stub puts every request's key in a Set, so requests without one count as one more "key".
    also = ' and its "distinctKeys" counts a missing key as one' if keyless else ""
    means = ARTICLE_MEANS[:-1] + also + ")"
    return f"{ARTICLE_LABEL}: {printed} {means}"
