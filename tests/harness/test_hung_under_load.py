"""`hung` is what the client did, not what the machine did: a scenario killed at its limit before
the client's first call started (node still starting, as under heavy load), or while the machine was
loaded, is run again with a longer limit before its verdict is recorded, and the verdict says so.
A client that really hangs is still `hung`; one that is merely slow to start is judged on what it
then does. Real node, the real gateway, in the sandbox; the scenario's limit shortened to keep the
test short (the rule is the same at any limit)."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil

import pytest

from helpers import submission
from review.core import scenarios as core_scenarios
from review.harness import runner, scenarios

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

LIMIT_S = 3.0
HAPPY = dataclasses.replace(scenarios.BY_NAME["happy"], limit_s=LIMIT_S)

CLIENT = """\
{before}
export async function chargeWithRetry(amount) {{
  const res = await fetch("http://localhost:8099/charge", {{
    method: "POST",
    headers: {{ "content-type": "application/json" }},
    body: JSON.stringify({{ amount, idempotencyKey: "order-1" }}),
  }});
  return res.json();
}}
"""


def run(folder, before: str):
    repo = submission(folder, {"README.md": "# Task\n", "checkout.mjs": CLIENT.format(before=before)})
    return asyncio.run(runner.run_scenario(repo, repo.resolve("HEAD"), HAPPY))


def test_a_client_slow_to_start_is_run_again_with_a_longer_limit_and_judged_on_what_it_does(tmp_path):
    # Past the limit before its first call, well within the longer one.
    result = run(tmp_path / "slow", f"await new Promise((r) => setTimeout(r, {int(LIMIT_S * 1000) + 1000}));")
    assert result.verdict == "ok", (result.reasons, result.log)
    # What was observed, both runs: the first killed at the limit, then the run again.
    assert any(f"killed at the {LIMIT_S:g} s limit" in line for line in result.log), result.log
    longer = LIMIT_S * core_scenarios.RERUN_FACTOR
    assert any(f"run again with a {longer:g} s limit" in line for line in result.log), result.log
    assert any(f"run again with a {longer:g} s limit" in reason for reason in result.reasons), result.reasons
    assert not result.hung_under_load


def test_a_client_that_really_hangs_is_still_hung_after_the_longer_limit(tmp_path):
    # Never settles, a timer keeping node alive: hung at any limit.
    result = run(tmp_path / "stuck", "await new Promise(() => setInterval(() => {}, 1000));")
    assert result.verdict == "hung", (result.reasons, result.log)
    longer = LIMIT_S * core_scenarios.RERUN_FACTOR
    # The reason that names the limit, with the load it was seen under beside it.
    assert f"killed at the {longer:g} s limit" in result.reasons[-1], result.reasons
    assert "(under load " in result.reasons[-1] and "core(s))" in result.reasons[-1], result.reasons
