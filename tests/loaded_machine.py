"""A loaded machine, or a quiet one, whatever the machine running the tests is doing: the runner reads
the load from REVIEW_LOADAVG_FILE (the /proc/loadavg format) when it is set. And a candidate whose
client hangs in `timeout` alone (at its limit, on any machine), its limit shortened to keep the tests
short (the rule is the same at any limit)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from review.harness import runner, scenarios
from review.services import samples

LIMIT_S = 2.0

# Hoists its key and retries, but never gives up on a request the gateway does not answer: only
# `timeout` hangs (at its limit, on any machine).
CLIENT = """\
export async function chargeWithRetry(amount) {
  const key = "order-" + Math.random().toString(36).slice(2);
  for (let attempt = 0; attempt < 4; attempt++) {
    const res = await fetch("http://localhost:8099/charge", {
      method: "POST",
      headers: { "content-type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify({ amount }),
    }).catch(() => null);
    if (res && res.status === 402) throw new Error("declined");
    if (res && res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
  }
  throw new Error("gave up");
}
"""

QUICK = "export async function chargeWithRetry(amount) { throw new Error('not written yet'); }\n"


def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    """What sets the load the runner sees: `set_load(50)` is loaded on any box, `set_load(0)` quiet."""
    load_file = tmp_path / "loadavg"
    monkeypatch.setenv(runner.LOADAVG_ENV, str(load_file))
    shorter = [dataclasses.replace(s, limit_s=LIMIT_S) if s.name == "timeout" else s for s in scenarios.SCENARIOS]
    monkeypatch.setattr(scenarios, "SCENARIOS", shorter)

    def set_load(average: float) -> None:
        load_file.write_text(f"{average:.2f} {average:.2f} {average:.2f} 1/100 1\n")

    return set_load


def candidate(cohort_dir: Path, name: str = "ada") -> Path:
    folder = cohort_dir / name
    samples.build_repo(
        folder,
        [
            samples.CommitSpec(
                {"README.md": b"# Task\n", "checkout.mjs": QUICK.encode()},
                "start",
                "Cand",
                "c@example.com",
                "2026-11-01T10:00:00+00:00",
            ),
            samples.CommitSpec(
                {"checkout.mjs": CLIENT.encode()}, "retry", "Cand", "c@example.com", "2026-11-01T11:00:00+00:00"
            ),
        ],
    )
    return folder


def loaded_words(cores: int) -> str:
    return (
        f"hung — also with 3 times the time limit, on a loaded machine (load 50 on {cores} "
        f"core{'' if cores == 1 else 's'})"
    )
