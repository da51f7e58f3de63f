"""What the timeout scenario's window cannot see, said from the code: a client whose own timeout is
longer than the scenario waits is `hung` there, and its evidence names the timeout it does set (read
from the code, labelled so). Real node, the real gateway, the real analysis."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from helpers import submission
from review.core import rubric
from review.harness import runner, scenarios
from review.services import analysis, evidence_document

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

CLIENT = """\
const LIMIT_MS = {limit};

export async function chargeWithRetry(amount) {{
  const idempotencyKey = crypto.randomUUID();
  for (let attempt = 0; attempt < 3; attempt++) {{
    try {{
      const res = await fetch("http://localhost:8099/charge", {{
        method: "POST",
        headers: {{ "content-type": "application/json" }},
        body: JSON.stringify({{ amount, idempotencyKey }}),
        signal: AbortSignal.timeout(LIMIT_MS),
      }});
      if (res.ok) return res.json();
    }} catch {{}}
    await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
  }}
  throw new Error("charge failed");
}}
"""


def timeout_evidence(folder, limit: str) -> tuple[str, list[str]]:
    repo = submission(folder, {"README.md": "# Task\n", "checkout.mjs": CLIENT.format(limit=limit)})
    suite = asyncio.run(runner.run_suite(repo, names=["timeout"]))
    read = analysis.analyse(repo)
    document = evidence_document.build(read, suite, {}, rubric.ARTICLE)
    return suite.verdicts["timeout"], [h.text for h in document.hints()["key-scope"] if h.text.startswith("timeout:")]


def test_a_timeout_longer_than_the_window_is_named_beside_hung(tmp_path, monkeypatch):
    # A quiet machine, whatever this one is doing: on a loaded one the hang is also said to be the load's.
    (tmp_path / "loadavg").write_text("0.00 0.00 0.00 1/100 1\n")
    monkeypatch.setenv(runner.LOADAVG_ENV, str(tmp_path / "loadavg"))
    verdict, said = timeout_evidence(tmp_path / "slow", "60_000")
    assert verdict == "hung"
    limit = scenarios.BY_NAME["timeout"].limit_s
    assert said == [
        f"timeout: hung — a 60 s timeout is set (AbortSignal.timeout, read from the code, checkout.mjs:11); "
        f"the scenario waits {limit:g} s"
    ]


def test_a_timeout_within_the_window_is_not_spoken_of(tmp_path):
    verdict, said = timeout_evidence(tmp_path / "quick", "1000")
    assert verdict == "ok" and said == []
