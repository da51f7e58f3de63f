"""Words a reviewer leans on, on client code no one here wrote: a client that sends no key is counted
as sending none (and nothing speaks of its key surviving or being reused), a jittered backoff is judged
on its waits as a whole (one short draw is evidence, not a verdict), and the key scope says only what a
retry showed. Real node runs real client code against the real gateway, in the sandbox."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import subprocess

import pytest

from helpers import submission
from review.core import evidence, triage
from review.harness import runner, scenarios

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")

# A client that retries 503s and network errors with a short backoff but sends no idempotency key.
KEYLESS = """
export async function chargeWithRetry(amount) {
  let last;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 50 * attempt));
    try {
      const res = await fetch("http://localhost:8099/charge", {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ amount }),
      });
      if (res.status === 503) { last = new Error("503"); continue; }
      if (!res.ok) throw new Error("declined " + res.status);
      return await res.json();
    } catch (error) { last = error; }
  }
  throw last;
}
"""

# Sends a key on its first attempt only: the retry goes out without one.
KEY_ONCE = """
export async function chargeWithRetry(amount) {
  const key = crypto.randomUUID();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 50));
    const body = attempt ? { amount } : { amount, idempotencyKey: key };
    const res = await fetch("http://localhost:8099/charge", { method: "POST", body: JSON.stringify(body) });
    if (res.status === 503) continue;
    return await res.json();
  }
  throw new Error("gave up");
}
"""

# Never retries: one request with a fresh key, whatever the answer.
NO_RETRY = """
export async function chargeWithRetry(amount) {
  const res = await fetch("http://localhost:8099/charge", {
    method: "POST", body: JSON.stringify({ amount, idempotencyKey: crypto.randomUUID() }),
  });
  if (!res.ok) throw new Error("failed " + res.status);
  return await res.json();
}
"""

# Full jitter, the form cloud providers' retry guidance recommends: a random wait in 0..cap, the cap
# doubling, drawn from a seeded PRNG (mulberry32) so every run draws the same waits.
JITTER = """
export function mulberry32(seed) {
  return function () {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const CAPS = [100, 200, 400];
export function waits(seed) { const random = mulberry32(seed); return CAPS.map((cap) => Math.floor(random() * cap)); }
const SEED = Number("__SEED__");
export async function chargeWithRetry(amount) {
  const key = crypto.randomUUID();
  const planned = waits(SEED);
  for (let attempt = 0; ; attempt++) {
    const res = await fetch("http://localhost:8099/charge", {
      method: "POST", body: JSON.stringify({ amount, idempotencyKey: key }),
    });
    if (res.ok) return await res.json();
    if (res.status !== 503 || attempt >= planned.length) throw new Error("failed " + res.status);
    await new Promise((r) => setTimeout(r, planned[attempt]));
  }
}
"""


def run_suite(tmp_path, code: str, names: list[str]) -> runner.SuiteResult:
    repo = submission(tmp_path / "sub", {"checkout.mjs": code})
    return asyncio.run(runner.run_suite(repo, names=names))


def hints_for(suite: runner.SuiteResult) -> dict[str, list[evidence.Hint]]:
    verdicts = {
        s.name: {
            "verdict": s.verdict,
            "requests": s.requests,
            "distinct_keys": s.distinct_keys,
            "charges_created": s.charges_created,
            "requests_without_key": s.requests_without_key,
        }
        for s in suite.scenarios
    }
    return evidence.gather(evidence.Inputs("", [], {}, verdicts, [], None))


SPEAKS_OF_A_KEY = ("surviv", "reused", "one key", "persisted", "some request")


def test_a_client_that_sends_no_key_is_counted_as_sending_none_and_nothing_speaks_of_its_key(tmp_path):
    suite = run_suite(tmp_path, KEYLESS, ["first-503", "lost-response", "restart"])
    results = {s.name: s for s in suite.scenarios}
    for result in results.values():
        assert result.requests >= 1
        assert result.distinct_keys == 0 and result.requests_without_key == result.requests
        words = " ".join(result.reasons)
        assert "no idempotency key sent" in words, result.reasons
        assert not any(said in words for said in SPEAKS_OF_A_KEY), result.reasons
        if result.requests > 1:
            assert f"no idempotency key sent on any of the {result.requests} requests" in words
    first = results["first-503"]
    assert first.reasons[0] == "2 request(s) seen, 0 distinct key(s), 1 charge(s) created by the gateway"
    # The starter stub's own line is shown as it would print it, and says what its count means.
    stub = next(line for line in first.log if "starter stub's line" in line)
    assert '{"charges":2,"distinctKeys":1}' in stub and "counts a missing key as one" in stub
    assert suite.key_scope == "none" and triage.KEY_SCOPE_MEANS["none"].startswith("no idempotency key sent")
    said = [hint.text for hint in hints_for(suite)["key-scope"]]
    assert said and all("no idempotency key sent" in text for text in said), said
    assert not any(word in text for text in said for word in SPEAKS_OF_A_KEY), said


def test_a_retry_without_the_key_says_how_many_requests_lacked_one(tmp_path):
    suite = run_suite(tmp_path, KEY_ONCE, ["first-503"])
    first = suite.scenarios[0]
    assert first.distinct_keys == 1 and first.requests_without_key == 1
    assert "no idempotency key sent on 1 of 2 requests" in first.reasons
    assert suite.key_scope == "none"
    (hint,) = [h.text for h in hints_for(suite)["key-scope"]]
    assert hint.endswith("no idempotency key sent on 1 of 2 requests") and "one key" not in hint


def test_a_client_that_never_retried_shows_no_key_scope_and_no_key_survival(tmp_path):
    suite = run_suite(tmp_path, NO_RETRY, ["happy", "first-503", "restart", "two-orders"])
    assert suite.verdicts["first-503"] == "no-retry"
    assert suite.key_scope == "no retry seen"
    said = [hint.text for hint in hints_for(suite)["key-scope"]]
    assert "restart: double-charge — a new key after it: the key did not survive the restart" in said


def key_scope_of(**scenarios_records: list[tuple[int, int, str | None]]) -> str:
    return triage.key_scope(
        {
            name.replace("_", "-"): [{"process": p, "call": c, "key": k} for p, c, k in found]
            for name, found in scenarios_records.items()
        }
    )


def test_key_scope_is_what_a_retry_showed():
    # A retry that reused its key, and a restart whose second process sent a new one: per call.
    assert key_scope_of(first_503=[(1, 1, "a"), (1, 1, "a")], restart=[(1, 1, "b"), (2, 1, "c")]) == "per-call"
    # Reused after the restart: persisted.
    assert key_scope_of(first_503=[(1, 1, "a"), (1, 1, "a")], restart=[(1, 1, "b"), (2, 1, "b")]) == "persisted"
    # One request per call everywhere, a new key after the restart: nothing retried, nothing to say.
    assert key_scope_of(first_503=[(1, 1, "a")], restart=[(1, 1, "b"), (2, 1, "c")]) == "no retry seen"
    # No request after the restart is no evidence of persisting either.
    assert key_scope_of(first_503=[(1, 1, "a"), (1, 1, "a")], restart=[(1, 1, "b")]) == "per-call"
    assert key_scope_of(first_503=[(1, 1, "a"), (1, 1, "b")]) == "per-attempt"
    assert key_scope_of(first_503=[(1, 1, None), (1, 1, None)]) == "none"
    assert key_scope_of(two_orders=[(1, 1, "x"), (1, 2, "x")]) == "per-amount"
    assert key_scope_of() == "unknown"
    # Calls are told apart per scenario: happy's one key is not first-503's retry sending another.
    assert key_scope_of(happy=[(1, 1, "a")], first_503=[(1, 1, "b"), (1, 1, "b")]) == "per-call"


def node_waits(tmp_path, seeds: range) -> list[list[int]]:
    """The waits the jitter client draws for each seed, computed by node from the client's own code."""
    module = tmp_path / "jitter.mjs"
    module.write_text(JITTER.replace("__SEED__", "1"))
    script = (
        f"import {{ waits }} from {json.dumps(module.as_uri())};\n"
        f"console.log(JSON.stringify({list(seeds)}.map(waits)));"
    )
    printed = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    return json.loads(printed.stdout)


def judged_always_503(waits: list[float], lateness: list[tuple[float, float]] = ()) -> str:
    """The verdict on always-503 for a client whose attempts the gateway saw `waits` apart, on a
    machine that ran the gateway's timer late as `lateness` says ((when, how late) in ms)."""
    from review.harness.records import RequestRecord

    times = [0.0]
    for wait in waits:
        times.append(times[-1] + wait)
    requests = [
        RequestRecord(n, t, 1, 1, "POST", "/charge", "k", "body", 1999, "f", 503) for n, t in enumerate(times, 1)
    ]
    outcome = scenarios.CallOutcome(1, 1, "rejected", "failed 503")
    facts = scenarios.Facts(requests, 0, [outcome], lateness=list(lateness))
    return scenarios.judge(scenarios.BY_NAME["always-503"], facts)[0]


def test_a_jittered_backoff_gets_one_verdict_on_every_run(tmp_path):
    drawn = node_waits(tmp_path, range(1, 51))
    # The seed whose first wait is shortest (a few ms: under the floor however busy the machine).
    seed = min(range(1, 51), key=lambda seed: drawn[seed - 1][0])
    planned = drawn[seed - 1]
    assert planned[0] < scenarios.MIN_BACKOFF_MS / 4
    # That client through the real path a few times: the short first wait never decides.
    code = JITTER.replace("__SEED__", str(seed))
    hints_seen, recorded = [], []
    for attempt in range(3):
        suite = run_suite(tmp_path / str(attempt), code, ["first-503", "always-503"])
        assert suite.verdicts == {"first-503": "ok", "always-503": "ok"}, [s.reasons for s in suite.scenarios]
        # The short wait is said (when a busy machine did not stretch it past the floor).
        for result in suite.scenarios:
            if min(result.gaps_ms) < scenarios.MIN_BACKOFF_MS:
                assert any("under 20 ms" in reason for reason in result.reasons), result.reasons
        recorded.append(suite.scenarios[1].gaps_ms)
        hints_seen += hints_for(suite)["deleted-model-work"]
    # Nor is the jittered client filed under "deleted the model's work".
    assert not any("backoff" in hint.text for hint in hints_seen)
    # Fifty runs of the same client, each wait stretched as a loaded two-core machine stretches it
    # (up to 60 ms more on the first, 20 on the others, as measured here): one verdict.
    noise = random.Random(seed)
    stretched = [
        [wait + noise.uniform(0, 60 if index == 0 else 20) for index, wait in enumerate(planned)] for _ in range(50)
    ]
    assert {judged_always_503(waits) for waits in stretched + recorded} == {"ok"}


def test_one_short_draw_anywhere_is_not_no_backoff_and_waits_that_never_grow_past_the_floor_are():
    for waits in ([5, 150, 300], [150, 5, 300], [372, 620, 5], [0, 101, 288]):
        assert judged_always_503(waits) == "ok", waits
    # A client with no wait at all, as a loaded machine recorded it (its first retry runs its error path cold).
    for waits in ([38.8, 3.8], [45.5, 3.1], [13.6, 14.2], [1.2, 0.8, 2.0]):
        assert judged_always_503(waits) == "no-backoff", waits


def test_waits_that_never_reach_the_floor_are_no_backoff():
    assert scenarios.backoff_reading([1.2, 0.8, 2.0]) == (
        False,
        "no backoff: none of the 3 waits between attempts reached 20 ms (60 ms for the first) — 1.2, 0.8, 2 ms",
    )
    # One wait, however short, is one draw.
    assert scenarios.backoff_reading([3.0])[0] is True
    assert scenarios.backoff_reading([372.0, 620.0, 5.0])[0] is True


def test_whether_waits_grow_is_said_only_as_far_as_the_machine_can_tell():
    """50 then 100 ms grows; a loaded machine stretching the first (its first failure run cold, timers
    late) past the second is "cannot tell", never "do not grow"; equal or shrinking waits do not grow."""
    assert scenarios.growth_reading([52.0, 104.0], [0.0, 0.0]) == "waits grow"
    # The first stretched by the machine: its lateness taken off, it grows.
    assert scenarios.growth_reading([140.0, 104.0], [60.0, 0.0]) == "waits grow"
    # Longer than the second by less than the first failure's cost: cannot tell.
    said = scenarios.growth_reading([120.0, 104.0], [0.0, 0.0])
    assert said.startswith("cannot tell whether the waits grow (120, 104 ms)"), said
    # Past that, or a later pair that does not grow: they do not.
    assert scenarios.growth_reading([200.0, 104.0], [0.0, 0.0]) == "waits do not grow (200, 104 ms)"
    assert scenarios.growth_reading([100.0, 100.0, 100.0], [0.0, 0.0, 0.0]).startswith("waits do not grow")


def test_what_a_busy_machine_adds_to_a_wait_is_taken_off_before_it_is_judged():
    """A client that never waits, on a machine so busy that every gap between its attempts grew past
    the floor: the gateway's own timer ran as late at those moments, so it is still no backoff, and
    the reasons say how late the machine ran. A real backoff on the same machine stays a backoff."""
    stretched = [70.0, 38.0, 41.0]  # the attempts' gaps as recorded (t = 0, 70, 108, 149)
    busy = [(60.0, 55.0), (100.0, 30.0), (145.0, 36.0)]
    assert judged_always_503(stretched) == "ok"  # read as they were, the machine's delay passes for a wait
    assert judged_always_503(stretched, busy) == "no-backoff"
    reading = scenarios.backoff_reading(stretched, [55.0, 30.0, 36.0])
    assert reading[0] is False and "timers up to 55 ms late" in reading[1]
    # A wait far past the floor is a wait however busy the machine was.
    assert judged_always_503([400.0, 800.0], [(390.0, 60.0), (1190.0, 60.0)]) == "ok"
    # Lateness outside a gap is not taken off it.
    assert judged_always_503(stretched, [(500.0, 80.0)]) == "ok"


async def test_the_gateway_reads_how_late_this_machine_runs_its_timer(tmp_path):
    """The loop held for 80 ms (as a busy machine holds it): the gateway's probe records it."""
    import time

    from review.core.scenarios import FaultPlan
    from review.harness.gateway import Gateway

    gateway = Gateway(FaultPlan())
    await gateway.start(tmp_path / "gateway.sock")
    try:
        await asyncio.sleep(0)  # one turn of the loop: the probe's task runs to its first timer
        time.sleep(0.08)  # the loop held: every timer due now runs late
        deadline = time.monotonic() + 30
        while not any(late >= 60 for _, late in gateway.lateness):
            assert time.monotonic() < deadline, gateway.lateness
            await asyncio.sleep(0.01)
    finally:
        await gateway.stop()
