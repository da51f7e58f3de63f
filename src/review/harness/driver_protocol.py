"""What the runner itself saw of one driver process, turned into how each call settled.

The trusted driver (driver.mjs) calls chargeWithRetry once per call of the scenario and says how the
calls settled through its exit code: 0 all resolved, 64 + a bit per rejected call, 3 the candidate's
module failed to load, 4 it exports no chargeWithRetry, 5 and 6 the candidate's code ended the process
itself (process.exit) while loading and during a call, 13 a promise left pending with nothing to wait
for. What the driver prints on stderr (`[review-driver] {json}`) adds details for the
log and is never the outcome itself: code in the candidate's process can print anything."""

from __future__ import annotations

from review.core import jsondata
from review.core.text import safe_line
from review.harness import sandbox, scenarios

DRIVER_CLAIM = "[review-driver] "
EXIT_IMPORT_ERROR, EXIT_NO_ENTRY, EXIT_REJECTED = 3, 4, 64
EXIT_OWN_WHILE_LOADING, EXIT_OWN_DURING_CALL = 5, 6
OWN_EXIT = "the candidate's code ended its own process (process.exit)"
EXIT_UNSETTLED = 13
# Node aborting (SIGABRT, 128 + 6 through bubblewrap) after its own fatal error line, which for a full
# heap is followed by a native stack trace: the reason is that line, not the trace's last characters.
NODE_ABORTED = (134, -6)
HEAP_FULL = "FATAL ERROR: Reached heap limit"


def driver_claims(lines: list[str]) -> list[dict]:
    """What the driver printed about the calls: details for the log, never the outcome itself."""
    claims = []
    for line in lines:
        if line.startswith(DRIVER_CLAIM):
            claim = jsondata.obj(jsondata.loads(line[len(DRIVER_CLAIM) :], 8192))
            if claim:
                claims.append(claim)
    return claims


class _Outcomes:
    """One process's calls, as they are added to the scenario's facts."""

    def __init__(
        self, facts: scenarios.Facts, scenario: scenarios.Scenario, process_no: int, stderr: list[str]
    ) -> None:
        self.facts, self.scenario, self.process_no = facts, scenario, process_no
        self.calls = range(1, len(scenario.calls) + 1)
        self.claims = driver_claims(stderr)
        self.said = {
            int(c["call"]): c
            for c in self.claims
            if c.get("kind") in ("resolved", "rejected") and isinstance(c.get("call"), int)
        }
        printed = [line for line in stderr if not line.startswith(DRIVER_CLAIM)]
        self.tail = safe_line("\n".join(printed)[-300:], 300)
        self.heap_full = any(line.startswith(HEAP_FULL) for line in printed)

    def add(self, call: int, kind: str, detail: str) -> None:
        self.facts.outcomes.append(scenarios.CallOutcome(self.process_no, call, kind, safe_line(detail, 300)))

    def detail(self, call: int) -> str:
        claim = self.said.get(call, {})
        return jsondata.text(claim.get("value")) or jsondata.text(claim.get("message"))

    def every(self, kind: str, detail: str) -> None:
        for call in self.calls:
            self.add(call, kind, detail)

    def hung_at_limit(self) -> None:
        """The process hung, so no exit code says which call did."""
        self._unsettled("hung", f"never settled; killed at the {self.scenario.limit_s:g} s limit")

    def _unsettled(self, kind: str, why: str) -> None:
        """The process ended with a call in flight, and its exit code cannot say which. The driver
        runs calls one after another: a call it says settled *and* after which it started the next is
        shown as that claim (never as resolved); the others did not settle, for `why`."""
        started = {
            int(c["call"]) for c in self.claims if c.get("kind") == "call-start" and isinstance(c.get("call"), int)
        }
        last = len(self.scenario.calls)
        for call in self.calls:
            if call in self.said and call + 1 in started and call < last:
                said = self.said[call]["kind"]
                detail = f": {self.detail(call)}" if self.detail(call) else ""
                self.add(
                    call,
                    f"claimed-{said}",
                    f"the process's own output says it {said}{detail} (a claim: only its exit code would show it)",
                )
            else:
                self.add(call, kind, f"call {call} {why}")

    def exited(self, code: int) -> None:
        if code == 0:
            for call in self.calls:
                self.add(call, "resolved", self.detail(call))
        elif EXIT_REJECTED <= code < EXIT_REJECTED + (1 << len(self.scenario.calls)):
            mask = code - EXIT_REJECTED
            for call in self.calls:
                self.add(call, "rejected" if mask & (1 << (call - 1)) else "resolved", self.detail(call))
        elif code == EXIT_IMPORT_ERROR:
            message = next(
                (jsondata.text(c.get("message")) for c in self.claims if c.get("kind") == "import-error"), self.tail
            )
            self.facts.crash = f"checkout.mjs failed to load: {safe_line(message, 300)}"
        elif code == EXIT_OWN_WHILE_LOADING:
            self.facts.crash = (
                "checkout.mjs ended its own process (process.exit) while it was loading: "
                "chargeWithRetry was never called"
            )
        elif code == EXIT_OWN_DURING_CALL:
            self._unsettled("crashed", f"never settled: {OWN_EXIT}")
        elif code == EXIT_NO_ENTRY:
            self.facts.entry_missing = "checkout.mjs does not export a function chargeWithRetry"
        elif code == EXIT_UNSETTLED:
            self.every("hung", "the call never settled (its promise was left pending with nothing to wait for)")
        elif code in NODE_ABORTED and self.heap_full:
            self.every(
                "crashed",
                f"out of memory: the JavaScript heap limit ({sandbox.HEAP_MB} MiB) was reached "
                f"and node aborted (exit code {code}; its stderr: {HEAP_FULL}…)",
            )
        else:
            tail = f": {self.tail}" if self.tail else ""
            if not any(c.get("kind") == "call-start" for c in self.claims):
                self.facts.crash = f"the process exited (code {code}) before calling chargeWithRetry{tail}"
            self.every("crashed", f"exit code {code}{tail}")


def collect_outcomes(
    facts: scenarios.Facts, scenario: scenarios.Scenario, process_no: int, ending: str, stderr: list[str]
) -> None:
    """How each call of this process settled, from what the runner itself saw of the process: its exit
    code (the driver's protocol), the time limit, the restart's kill, a resource cap. `ending` is
    exited:N, limit, killed-for-restart or resource:WHAT."""
    outcomes = _Outcomes(facts, scenario, process_no, stderr)
    if ending == "killed-for-restart":
        outcomes.every("killed", "killed (SIGKILL) as its first request arrived: the restart")
    elif ending == "limit":
        outcomes.hung_at_limit()
    elif ending.startswith("resource:"):
        facts.resource_limit = ending.removeprefix("resource:")
        outcomes.every("crashed", f"killed by the runner: {facts.resource_limit}")
    else:
        outcomes.exited(int(ending.split(":")[1]))
