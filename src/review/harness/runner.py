"""Run one scenario, or the suite, and stream what happens to whoever listens.

Per scenario: the candidate's code is exported from the clean clone at the chosen commit into a
fresh folder (`run_dirs`), a gateway is started on a Unix socket in a fresh folder, the trusted
driver runs in the sandbox and calls ``chargeWithRetry`` (`driver_run`), each call's outcome is read
from what the runner saw of the process (`driver_protocol`); at the end the whole process group is
killed, the gateway stopped, the folders removed. The verdict comes from the gateway.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path

from review import gitsafe
from review.core import scenarios as core_scenarios
from review.core.text import clip, safe_line
from review.harness import sandbox, scenarios
from review.harness.cache import cached_suite, store_cached
from review.harness.coverage import MAX_REPORT, parse_reports, ran_lines
from review.harness.driver_protocol import collect_outcomes, driver_claims
from review.harness.driver_run import run_driver
from review.harness.export import export_code, why_left_out
from review.harness.gateway import Gateway
from review.harness.log_text import describe_request
from review.harness.results import HarnessEvent, Listener, ScenarioResult, SuiteResult
from review.harness.run_dirs import RunDirs, make_run_dirs
from review.support import trees

__all__ = [
    "HarnessEvent",
    "Listener",
    "ScenarioResult",
    "SuiteResult",
    "cached_suite",
    "export_code",
    "run_scenario",
    "run_suite",
]

ENTRY = "checkout.mjs"


class _ScenarioLog:
    """A scenario's events, each with the time since it started, kept as log lines and handed on."""

    def __init__(self, scenario: scenarios.Scenario, listener: Listener | None) -> None:
        self.scenario, self.listener = scenario, listener
        self.lines: list[str] = []
        self.started = time.monotonic()

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self.started) * 1000, 1)

    def __call__(self, kind: str, data: dict | None = None, text: str = "") -> None:
        t_ms = self.elapsed_ms()
        line = f"[{t_ms:8.1f} ms] {self.scenario.name}: {text}" if text else ""
        if line:
            self.lines.append(line)
        if self.listener:
            self.listener(HarnessEvent(kind, self.scenario.name, t_ms, data or {}, line))


async def run_scenario(
    repo: gitsafe.SafeRepo,
    commit: str,
    scenario: scenarios.Scenario,
    listener: Listener | None = None,
    info: sandbox.SandboxInfo | None = None,
    coverage: bool = False,
) -> ScenarioResult:
    """With `coverage`, V8 records which lines ran (bubblewrap only; see sandbox.node_command).

    `hung` is what the client did, not what the machine did: a run killed at the limit before the
    client's first call started (node still starting), or while the machine was loaded, is run again
    once with a longer limit (RERUN_FACTOR times it), and only that run is judged; both are in the
    log, and the verdict's reasons say why it ran again and the load a `hung` was seen under."""
    info = info or sandbox.detect()
    # Both checked before anything starts.
    sandbox.require_runnable(info)
    if coverage:
        sandbox.require_bwrap(info, sandbox.COVERAGE_NEEDS)
    emit = _ScenarioLog(scenario, listener)
    emit(
        "scenario-start",
        {"gateway_does": scenario.gateway_does},
        f"start — gateway: {scenario.gateway_does}; expect: {scenario.correct_client}",
    )
    ran_again = ""
    run = await _run_once(repo, commit, scenario, info, coverage, emit)
    if run.stopped_at_limit and (run.load.loaded or not run.calls_started):
        longer = dataclasses.replace(scenario, limit_s=scenario.limit_s * core_scenarios.RERUN_FACTOR)
        why = "before the client's first call started" if not run.calls_started else "while the machine was loaded"
        ran_again = (
            f"a first run was killed at the {scenario.limit_s:g} s limit {why} ({run.load.text}); "
            f"run again with a {longer.limit_s:g} s limit"
        )
        emit("info", {}, f"[runner] {ran_again}")
        run = await _run_once(repo, commit, longer, info, coverage, emit)
    result = _judged(run.scenario, run.gateway, run.facts, emit, run.line_counts)
    if result.verdict == "hung" and run.stopped_at_limit:
        # Beside the reason that names the limit (the last, for a hang).
        result.reasons[-1] += f" (under {run.load.text})"
        result.hung_under_load = run.load.loaded
        result.load_average, result.cores = run.load.average, run.load.cores
    if ran_again:
        result.reasons.insert(max(0, len(result.reasons) - 1), ran_again)
    return result


# A file in /proc/loadavg's format read instead of the machine's load: how the tests show the runner a
# loaded machine, or a quiet one, whatever the machine running them is doing.
LOADAVG_ENV = "REVIEW_LOADAVG_FILE"


@dataclass
class Load:
    """The machine's load when a run ended (the 1-minute average against the cores this process may use)."""

    average: float
    cores: int

    @classmethod
    def now(cls) -> Load:
        simulated = os.environ.get(LOADAVG_ENV)
        try:
            average = float(Path(simulated).read_text().split()[0]) if simulated else os.getloadavg()[0]
        except (OSError, ValueError, IndexError):
            average = os.getloadavg()[0]
        return cls(round(average, 1), len(os.sched_getaffinity(0)) or 1)

    @property
    def loaded(self) -> bool:
        return self.average >= self.cores

    @property
    def text(self) -> str:
        return f"load {self.average:g} on {self.cores} core(s)"


@dataclass
class _Run:
    scenario: scenarios.Scenario
    gateway: Gateway
    facts: scenarios.Facts
    line_counts: dict[str, dict[int, int]] | None
    stopped_at_limit: bool
    calls_started: bool  # the driver said it started a call (a claim: enough to decide on a second run)
    load: Load


async def _run_once(
    repo: gitsafe.SafeRepo,
    commit: str,
    scenario: scenarios.Scenario,
    info: sandbox.SandboxInfo,
    coverage: bool,
    emit: _ScenarioLog,
) -> _Run:
    dirs = make_run_dirs(coverage)

    def on_gateway(kind: str, data: dict) -> None:
        if kind == "response":
            emit("response", data, describe_request(data))

    gateway = Gateway(scenario.plan, on_gateway, calls_per_process=len(scenario.calls))
    facts = scenarios.Facts(requests=[], charges=0, outcomes=[])
    line_counts = None
    endings: list[tuple[str, list[str]]] = []
    try:
        exported = export_code(repo, commit, dirs.work)
        if ENTRY not in exported:
            facts.entry_missing = why_left_out(repo, commit, ENTRY)
        else:
            await gateway.start(dirs.socket_dir / "gateway.sock")
            endings = await _run_processes(info, dirs, scenario, gateway, facts, emit)
            if dirs.coverage is not None:
                line_counts = read_coverage(exported, dirs.coverage)
                _say_coverage(emit, line_counts)
    finally:
        await gateway.stop()
        trees.remove(dirs.root)
    at_limit = [stderr for ending, stderr in endings if ending == "limit"]
    started = all(any(c.get("kind") == "call-start" for c in driver_claims(stderr)) for stderr in at_limit)
    return _Run(scenario, gateway, facts, line_counts, bool(at_limit), started, Load.now())


async def _run_processes(
    info: sandbox.SandboxInfo,
    dirs: RunDirs,
    scenario: scenarios.Scenario,
    gateway: Gateway,
    facts: scenarios.Facts,
    emit: _ScenarioLog,
) -> list[tuple[str, list[str]]]:
    """The scenario's processes one after another (two for the restart), each call's outcome logged;
    how each ended, with its stderr's tail."""
    endings = []
    for process_no in range(1, scenario.processes + 1):
        gateway.process = process_no
        ending, stderr = await run_driver(
            info, dirs.work, dirs.socket_dir, scenario, process_no, gateway, emit, dirs.coverage
        )
        endings.append((ending, stderr))
        collect_outcomes(facts, scenario, process_no, ending, stderr)
        for outcome in [o for o in facts.outcomes if o.process == process_no]:
            detail = f": {clip(outcome.detail, 200)}" if outcome.detail else ""
            emit(
                "outcome",
                outcome.to_json(),
                safe_line(
                    f"p{process_no} call {outcome.call} {outcome.kind} (seen by the runner: "
                    f"{ending.replace(':', ' ')}){detail}",
                    400,
                ),
            )
    return endings


def _say_coverage(emit: _ScenarioLog, line_counts: dict[str, dict[int, int]]) -> None:
    ran = {path: ran_lines(counts) for path, counts in line_counts.items()}
    said = ", ".join(f"{safe_line(path, 80)} {lines} line(s) ran" for path, lines in ran.items())
    emit("coverage", {"files": ran}, "coverage: " + (said or "nothing recorded"))


def _judged(
    scenario: scenarios.Scenario,
    gateway: Gateway,
    facts: scenarios.Facts,
    emit: _ScenarioLog,
    line_counts: dict[str, dict[int, int]] | None,
) -> ScenarioResult:
    """The verdict, from the gateway's own record of the requests and charges."""
    charge_requests = gateway.charge_requests
    facts.requests, facts.charges = charge_requests, len(gateway.charges)
    facts.other_requests = len(gateway.requests) - len(charge_requests) + gateway.refused + gateway.unparsed
    facts.lateness = gateway.lateness
    verdict, reasons = scenarios.judge(scenario, facts)
    if scenario.starter_stub_line and charge_requests:
        emit("summary", {}, scenarios.article_line(charge_requests))
    emit("scenario-done", {"verdict": verdict}, f"verdict {verdict} — {'; '.join(reasons)}")
    return ScenarioResult(
        name=scenario.name,
        requests=len(charge_requests),
        distinct_keys=len(scenarios.keys_sent(charge_requests)),
        requests_without_key=sum(r.key is None for r in charge_requests),
        charges_created=len(gateway.charges),
        outcomes=[o.to_json() for o in facts.outcomes],
        gaps_ms=scenarios.gaps_ms(charge_requests),
        verdict=verdict,
        reasons=reasons,
        log=emit.lines,
        records=[r.to_json() for r in gateway.requests],
        wall_ms=emit.elapsed_ms(),
        coverage=line_counts,
    )


def read_coverage(exported: dict[str, bytes], folder: Path) -> dict[str, dict[int, int]]:
    """Line counts for the exported JavaScript, mapped onto the bytes exported from git (not onto the
    run's folder, which the candidate's code could have rewritten)."""
    sources = {
        path: data.decode("utf-8", "replace")
        for path, data in exported.items()
        if path.endswith((".mjs", ".js", ".cjs"))
    }
    reports = []
    for item in sorted(folder.glob("coverage-*.json"))[:500]:
        try:
            if item.is_file() and not item.is_symlink() and item.stat().st_size <= MAX_REPORT:
                reports.append(item.read_bytes())
        except OSError:
            continue
    return parse_reports(reports, sources, f"file://{sandbox.INSIDE_WORK}/")


async def run_suite(
    repo: gitsafe.SafeRepo,
    commit: str | None = None,
    names: list[str] | None = None,
    listener: Listener | None = None,
    info: sandbox.SandboxInfo | None = None,
) -> SuiteResult:
    info = info or sandbox.detect()
    sandbox.require_runnable(info)
    commit = repo.resolve(commit or "HEAD")
    chosen = [scenarios.BY_NAME[n] for n in names] if names else list(scenarios.SCENARIOS)
    results = []
    for scenario in chosen:
        results.append(await run_scenario(repo, commit, scenario, listener, info))
    suite = SuiteResult(repo.source.name, commit, info.kind, info.node_version_text, results, info.fingerprint())
    # Kept whatever it saw: a hang under load says so where it is shown, and the background harness runs
    # it again once the machine is quiet (cohort.needs_suite); `r` always runs it again.
    if not names:
        store_cached(suite)
    return suite
