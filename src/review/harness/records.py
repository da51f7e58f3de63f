"""What a scenario asks of the gateway and what the gateway records of each request: plain data,
shared by the scenarios (which judge the records) and the gateway (which writes them). Kept apart
from the gateway so that naming a scenario (`review harness --scenario`) loads no event loop."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from review.core.scenarios import FaultPlan

__all__ = ["FaultPlan", "RequestRecord"]


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
