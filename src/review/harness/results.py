"""What a harness run produces: its events as they happen, each scenario's result, the suite."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from review.core import scenarios as core_scenarios
from review.core import triage


@dataclass
class HarnessEvent:
    kind: str  # scenario-start, process-start, request, response, outcome, stdout, stderr, process-end, scenario-done
    scenario: str
    t_ms: float
    data: dict = field(default_factory=dict)
    text: str = ""  # the event as one sanitised log line


@dataclass
class ScenarioResult:
    name: str
    requests: int
    distinct_keys: int  # keys sent: a request without one adds none (0 when none was sent)
    charges_created: int
    outcomes: list[dict]
    gaps_ms: list[float]
    verdict: str
    reasons: list[str]
    log: list[str]
    records: list[dict] = field(default_factory=list)
    wall_ms: float = 0.0
    coverage: dict[str, dict[int, int]] | None = None  # path -> line -> times it ran (coverage runs only)
    requests_without_key: int = 0  # requests to /charge that carried no idempotency key
    hung_under_load: bool = False  # hung at the limit while the machine was loaded (kept, and said so)
    # The machine when a run was killed at its limit: the 1-minute load average and the cores it had.
    load_average: float | None = None
    cores: int | None = None

    def to_json(self) -> dict:
        return asdict(self)

    def verdict_said(self, again: str = core_scenarios.CONSOLE_AGAIN) -> str:
        """The verdict as every view says it: a hang under load in words, with the load it was seen
        under and how to run it again (`again`: the console's key, or a command headless)."""
        if self.hung_under_load:
            return core_scenarios.hung_under_load(self.load_average, self.cores, again)
        return self.verdict


@dataclass
class SuiteResult:
    submission: str
    commit: str
    sandbox: str
    node: str
    scenarios: list[ScenarioResult]
    environment: dict[str, str] = field(default_factory=dict)  # SandboxInfo.fingerprint(): node, sandbox, gateway

    def to_json(self) -> dict:
        return {
            "submission": self.submission,
            "commit": self.commit,
            "sandbox": self.sandbox,
            "node": self.node,
            "environment": self.environment,
            "scenarios": [s.to_json() for s in self.scenarios],
        }

    @property
    def environment_text(self) -> str:
        env = self.environment
        return (
            f"pinned box: node {env.get('node', self.node)} · sandbox {env.get('sandbox', self.sandbox)} · "
            f"gateway {env.get('gateway', '?')}"
        )

    def log_lines(self) -> list[str]:
        """Every scenario's log lines, in order: an earlier run's raw output, shown again."""
        return [line for result in self.scenarios for line in result.log]

    @property
    def is_full(self) -> bool:
        """Every scenario ran: a suite, not one scenario run on its own (which never stands for one)."""
        from review.harness.scenarios import SCENARIOS

        return {s.name for s in self.scenarios} >= {s.name for s in SCENARIOS}

    @property
    def verdicts(self) -> dict[str, str]:
        """Scenario name -> verdict."""
        return {s.name: s.verdict for s in self.scenarios}

    def verdicts_said(self, again: str = core_scenarios.CONSOLE_AGAIN) -> dict[str, str]:
        """Scenario name -> its verdict as the views say it (a hang under load in words)."""
        return {s.name: s.verdict_said(again) for s in self.scenarios}

    @property
    def key_scope(self) -> str:
        """The key's scope as the gateway's records of this suite show it (core.triage.KEY_SCOPES)."""
        return triage.key_scope({s.name: s.records for s in self.scenarios})

    @property
    def summary(self) -> str:
        """For the triage column: how many scenarios were ok, and the bad verdicts."""
        bad = sorted({s.verdict for s in self.scenarios if s.verdict != "ok"})
        ok = sum(s.verdict == "ok" for s in self.scenarios)
        text = f"{ok}/{len(self.scenarios)} ok"
        text += f" · {', '.join(bad)}" if bad else ""
        # What was seen, not what to do: each view names its own way to run it again.
        loaded = self.loaded_said(again="")
        text += f" · {loaded}" if loaded else ""
        return text + (" (reduced sandbox)" if self.sandbox == "reduced" else "")

    def loaded_said(self, again: str = core_scenarios.CONSOLE_AGAIN) -> str | None:
        """The scenarios that hung while the machine was loaded, in words with the load (None: none did)."""
        loaded = self.hung_under_load
        if not loaded:
            return None
        names = ", ".join(s.name for s in loaded)
        return f"{names} {core_scenarios.hung_under_load(loaded[0].load_average, loaded[0].cores, again)}"

    @property
    def hung_under_load(self) -> list[ScenarioResult]:
        """The scenarios that hung while the machine was loaded: the suite is kept, and runs again
        in the background once the machine is quiet."""
        return [s for s in self.scenarios if s.hung_under_load]


Listener = Callable[[HarnessEvent], None]
