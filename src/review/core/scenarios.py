"""The fault scenarios, as data: one row per scenario with everything its readers need — its short
name in the triage marks, what the gateway does to it (a `Fault`), what a correct client does there
(retries, rejects, waits between attempts) — so adding a scenario is adding a row. The verdicts
(`harness.scenarios.judge`), the runner, the gateway and the triage marks all read this table. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

AMOUNT = 1999
RETRY_BUDGET = 4  # one call + 3 retries, as the task allows
MIN_BACKOFF_MS = 20.0  # a wait between attempts under this is no wait
FIRST_RETRY_COST_MS = 40.0  # the first wait's allowance for the client's first failure, run cold


class Fault(StrEnum):
    """What the gateway does to a request."""

    OK = "ok"
    UNAVAILABLE = "503"  # refused before the endpoint begins: nothing stored
    DECLINE = "decline"  # 402 card_declined, stored like any completed response
    DROP_AFTER_CHARGE = "drop-after-charge"  # charges, then drops the connection unanswered
    HANG_AFTER_CHARGE = "hang-after-charge"  # charges and stores the response, never answers
    KILL_AFTER_CHARGE = "kill-after-charge"  # charges, never answers, and the client's process is killed


@dataclass(frozen=True)
class FaultPlan:
    """What the gateway does to the first request of a scenario, and to every later one."""

    first: Fault = Fault.OK
    every: Fault = Fault.OK
    processing_ms: int = 0  # time a charge takes to execute (a window for concurrent duplicates: 409)


@dataclass(frozen=True, kw_only=True)
class Scenario:
    name: str
    short: str  # its name in the triage table's marks and legend
    gateway_does: str
    correct_client: str
    plan: FaultPlan
    retries: bool  # a correct client retries here (a call with one attempt is `no-retry`)
    rejects: bool  # a correct client's call rejects here (one that resolves dropped the payment)
    checks_backoff: bool  # the waits between attempts are judged here (`no-backoff`)
    calls: tuple[int, ...] = (AMOUNT,)  # one call per amount, one after the other
    processes: int = 1  # 2: the first is killed when its first request arrives, a second calls again
    limit_s: float = 8.0
    starter_stub_line: bool = False  # the task's own scenario: its log ends with the starter stub's line

    @property
    def refusal_is_final(self) -> bool:
        """The gateway's answer is final: the call must reject without retrying (a retry is the fault)."""
        return self.rejects and not self.retries

    @property
    def restarts(self) -> bool:
        return self.processes > 1

    @property
    def orders(self) -> int:
        return len(self.calls)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="happy",
        short="ok",
        gateway_does="200",
        correct_client="1 request, 1 charge created",
        plan=FaultPlan(),
        retries=False,
        rejects=False,
        checks_backoff=False,
    ),
    Scenario(
        name="first-503",
        short="503",
        gateway_does="503 on the first request, then 200",
        correct_client="2 requests, 1 distinct key",
        plan=FaultPlan(first=Fault.UNAVAILABLE),
        retries=True,
        rejects=False,
        checks_backoff=True,
        starter_stub_line=True,
    ),
    Scenario(
        name="lost-response",
        short="lost",
        gateway_does="creates the charge, then drops the connection without answering",
        correct_client="retries with the same key → 1 charge created",
        plan=FaultPlan(first=Fault.DROP_AFTER_CHARGE),
        retries=True,
        rejects=False,
        checks_backoff=False,
    ),
    Scenario(
        name="always-503",
        short="503∞",
        gateway_does="503 forever",
        correct_client="gives up within its retry budget (≤ 4 requests), waits grow, rejects",
        plan=FaultPlan(first=Fault.UNAVAILABLE, every=Fault.UNAVAILABLE),
        retries=True,
        rejects=True,
        checks_backoff=True,
    ),
    Scenario(
        name="timeout",
        short="t/o",
        gateway_does="creates the charge and stores its response, but never answers the first request",
        correct_client="aborts and retries with the same key → 1 charge created",
        plan=FaultPlan(first=Fault.HANG_AFTER_CHARGE),
        retries=True,
        rejects=False,
        checks_backoff=False,
        limit_s=6.0,
    ),
    Scenario(
        name="decline",
        short="402",
        gateway_does="402 card_declined",
        correct_client="1 request, no retry, rejects",
        plan=FaultPlan(first=Fault.DECLINE, every=Fault.DECLINE),
        retries=False,
        rejects=True,
        checks_backoff=False,
    ),
    Scenario(
        name="restart",
        short="rst",
        gateway_does="the process is killed as its first request arrives (after the charge); a new one calls again",
        correct_client="1 distinct key across both processes → 1 charge created",
        plan=FaultPlan(first=Fault.KILL_AFTER_CHARGE),
        retries=False,
        rejects=False,
        checks_backoff=False,
        processes=2,
    ),
    Scenario(
        name="two-orders",
        short="2×",
        gateway_does="two calls in one process, same amount, both 200",
        correct_client="2 keys, 2 charges created",
        plan=FaultPlan(),
        retries=False,
        rejects=False,
        checks_backoff=False,
        calls=(AMOUNT, AMOUNT),
    ),
)

BY_NAME = {s.name: s for s in SCENARIOS}


# How the console says a scenario is run again (the key acts in the submission's stub log), and how a
# headless view (`review show`, `review export`) says it.
CONSOLE_AGAIN = "r in the stub log runs it again"
HEADLESS_AGAIN = "`review harness` runs it again"


# A run killed at its limit before its first call, or on a loaded machine, runs again with this many
# times the limit: at a load of 30 on 2 cores node's start alone took most of the 6 s of the timeout.
RERUN_FACTOR = 3


def hung_under_load(load: float | None, cores: int | None, again: str = CONSOLE_AGAIN) -> str:
    """How every view says a `hung` seen while the machine was loaded: what was observed (it hung on
    the run given RERUN_FACTOR times the limit too), with the load, and how to run it again ("": not
    said). Whose the hang is stays the reviewer's call: the code's reading says whether it has a timeout."""
    machine = f"load {load:g} on {cores} core{'' if cores == 1 else 's'}" if load is not None else "load unknown"
    return f"hung — also with {RERUN_FACTOR} times the time limit, on a loaded machine ({machine})" + (
        f"; {again}" if again else ""
    )
