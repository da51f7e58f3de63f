"""What a scenario asks of the gateway and what the gateway records of each request: plain data,
shared by the scenarios (which judge the records) and the gateway (which writes them). Kept apart
from the gateway so that naming a scenario (`review harness --scenario`) loads no event loop."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class FaultPlan:
    """What the gateway does to the first request(s) of a scenario. Data, not code paths."""

    first: str = "ok"  # ok | 503 | drop-after-charge | hang-after-charge | kill-after-charge
    every: str = "ok"  # ok | 503 | decline: what every later request (or every request) gets
    processing_ms: int = 0  # time a charge takes to execute (a window for concurrent duplicates: 409)


@dataclass
class RequestRecord:
    seq: int
    t_ms: float
    process: int
    call: int | None
    method: str
    path: str
    key: str | None
    key_source: str  # header | body | none
    amount: object
    fingerprint: str
    status: int | str  # an HTTP status, or "dropped" / "no answer"
    charge_created: bool = False
    charge_id: str | None = None
    replayed: bool = False
    note: str = ""

    def to_json(self) -> dict:
        return asdict(self)
