"""Where the candidate's code makes and sends the key, and the request that carries it, read from the
code's syntax tree: followed from the request's idempotency field back to where its value is made."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from review.core import code_reading

# A request id per attempt and an order id, both made before the idempotency key (as real SDK clients
# do): the key's line is the one that makes what the Idempotency-Key header carries.
REQUEST_ID_FIRST = """\
import { randomUUID } from "node:crypto";

const BASE = process.env.GATEWAY_URL ?? "http://localhost:8099";

export async function chargeWithRetry(amount, attempts = 3) {
  const orderId = randomUUID();
  const idempotencyKey = `charge-${randomUUID()}`;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const requestId = randomUUID();
    const res = await fetch(`${BASE}/charge`, {
      method: "POST",
      headers: {
        "X-Request-Id": requestId,
        "content-type": "application/json",
        "idempotency-key": idempotencyKey,
      },
      body: JSON.stringify({ amount, orderId }),
    });
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
  }
  throw new Error("charge failed");
}
"""

# The key made by a helper, carried in a Headers object built by a method, sent by an SDK-style client.
HELPER_AND_HEADERS = """\
import { randomUUID } from "node:crypto";

function traceId() {
  return randomUUID();
}

function newIdempotencyKey(prefix) {
  const raw = randomUUID().replaceAll("-", "");
  return `${prefix}_${raw}`;
}

export class PaymentsClient {
  constructor(http) {
    this.http = http;
  }

  buildHeaders(key) {
    const headers = new Headers();
    headers.set("X-Request-Id", traceId());
    headers.set("Idempotency-Key", key);
    return headers;
  }

  async charge(amount) {
    const key = newIdempotencyKey("pay");
    return this.http.post("/charge", { amount }, { headers: this.buildHeaders(key) });
  }
}
"""

# The key persisted before the first request and read back after a restart (a body field).
PERSISTED = """\
import { readFileSync, writeFileSync } from "node:fs";

const STATE = ".charge-state.json";

function loadOrCreateKey(amount) {
  try {
    const saved = JSON.parse(readFileSync(STATE, "utf8"));
    if (saved.amount === amount) return saved.key;
  } catch {}
  const requestId = crypto.randomUUID();
  console.log("request", requestId);
  const key = crypto.randomUUID();
  writeFileSync(STATE, JSON.stringify({ amount, key }));
  return key;
}

async function post(body) {
  return fetch("http://localhost:8099/charge", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

export async function chargeWithRetry(amount) {
  const idempotency_key = loadOrCreateKey(amount);
  for (let i = 0; i < 4; i++) {
    const res = await post({ amount, idempotency_key });
    if (res.ok) return res.json();
  }
}
"""

KEYLESS = """\
export async function chargeWithRetry(amount) {
  const requestId = crypto.randomUUID();
  const res = await fetch("http://localhost:8099/charge", {
    method: "POST",
    headers: { "content-type": "application/json", "X-Request-Id": requestId },
    body: JSON.stringify({ amount }),
  });
  return res.json();
}
"""


def sites(source: str, path: str = "checkout.mjs") -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for site in code_reading.read_file(path, source.encode()).sites:
        found.setdefault(site.kind, []).append(site.line)
    return found


def test_a_request_id_and_an_order_id_made_before_the_key_are_not_the_key():
    found = sites(REQUEST_ID_FIRST)
    assert found["key-made"] == [7]  # not the order id (6) nor the request id (9)
    assert found["key-sent"] == [15]
    assert found["request"] == [10]


def test_a_key_made_in_a_helper_and_sent_in_a_headers_object():
    found = sites(HELPER_AND_HEADERS)
    # Through the parameter, the call and the helper's return: the template made from randomUUID.
    assert found["key-made"] == [9]
    assert found["key-sent"] == [20]
    assert found["request"] == [26]


def test_a_key_persisted_to_a_file_and_read_back():
    reading = code_reading.read_file("checkout.mjs", PERSISTED.encode())
    made = {site.line: site.how for site in reading.sites if site.kind == "key-made"}
    # Made at 12 (not the request id at 10); read back from the file at 8.
    assert made == {12: "made", 8: "read"}
    kinds = {(site.kind, site.line) for site in reading.sites}
    # Sent in the body given to `post`, a function of the file whose fetch is the request.
    assert ("key-sent", 28) in kinds and ("request", 18) in kinds and ("request", 28) not in kinds


def test_a_keyless_client_has_no_key_site():
    reading = code_reading.read_file("checkout.mjs", KEYLESS.encode())
    assert reading.sites == [] and reading.problems == []


def test_what_cannot_be_followed_is_said_not_guessed():
    source = """\
import { sessionKey } from "./keys.mjs";
const other = crypto.randomUUID();
export async function chargeWithRetry(amount, key) {
  await fetch("/a", { headers: { "Idempotency-Key": key } });
  await fetch("/b", { headers: { "Idempotency-Key": sessionKey } });
}
"""
    reading = code_reading.read_file("checkout.mjs", source.encode())
    assert not [site for site in reading.sites if site.kind == "key-made"]
    assert reading.problems == [
        "checkout.mjs:4: could not follow the key from the request "
        "(`key` is a parameter of `chargeWithRetry`, passed by a caller outside this file)",
        "checkout.mjs:5: could not follow the key from the request (`sessionKey` is imported from another file)",
    ]


def test_node_http_and_axios_requests_carry_the_key():
    source = """\
import http from "node:http";
export function viaNode(amount) {
  const key = crypto.randomUUID();
  const options = { method: "POST", headers: { "IDEMPOTENCY-KEY": key } };
  const req = http.request("http://localhost:8099/charge", options);
  req.end(JSON.stringify({ amount }));
}
export async function viaAxios(amount) {
  const orderKey = crypto.randomUUID();
  const token = crypto.randomUUID();
  return axios.post("/charge", { amount, idempotencyKey: token }, { timeout: 60_000 });
}
"""
    found = sites(source)
    assert found["key-made"] == [3, 10]
    assert found["request"] == [5, 11]


TIMEOUTS = """\
const TIMEOUT_MS = 60 * 1000;
const stripeLike = new Client(secret, { timeout: 80000, maxNetworkRetries: 2 });
export async function chargeWithRetry(amount) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10 * 60 * 1000);
  await new Promise((r) => setTimeout(r, 250));
  return fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), timeout: 0 });
}
"""


def test_timeouts_the_code_sets_with_their_lengths():
    found = [(t.line, t.ms) for t in code_reading.read_file("checkout.mjs", TIMEOUTS.encode()).timeouts]
    # The backoff's setTimeout (6) aborts nothing; `timeout: 0` switches it off.
    assert found == [(2, 80000.0), (5, 600000.0), (7, 60000.0)]


def test_a_file_that_does_not_parse_is_read_from_what_does():
    broken = REQUEST_ID_FIRST.replace("for (let attempt", "for (let attempt {{{")
    reading = code_reading.read_file("checkout.mjs", broken.encode())
    assert reading.problems[0] == "checkout.mjs: does not parse cleanly as JavaScript; read from the parts that do"


@settings(deadline=None, max_examples=60)
@given(st.binary(max_size=400) | st.text(alphabet="{}()[];:,.'\"`=>\n abcfetchIdempotency-Key", max_size=400))
def test_any_bytes_are_read_without_an_exception(data):
    data = data if isinstance(data, bytes) else data.encode()
    reading = code_reading.read_file("checkout.mjs", data)
    lines = data.decode("utf-8", "replace").splitlines()
    assert all(1 <= site.line <= max(1, len(lines)) for site in reading.sites)


def test_hung_beside_the_timeouts_the_code_sets():
    from review.core import evidence

    def hung_words(source: str) -> list[str]:
        reading = code_reading.read_file("checkout.mjs", source.encode())
        verdicts = {"timeout": {"verdict": "hung", "requests": 1, "distinct_keys": 1, "limit_s": 6.0}}
        hints = evidence.gather(evidence.Inputs("", [], {}, verdicts, [], None, code=reading))["key-scope"]
        return [h.text for h in hints if h.text.startswith("timeout:")]

    assert hung_words(TIMEOUTS) == [
        "timeout: hung — a 10 min timeout is set (a setTimeout that aborts, read from the code, checkout.mjs:5); "
        "the scenario waits 6 s",
        "timeout: hung — an 80 s timeout is set (a `timeout` option, read from the code, checkout.mjs:2); "
        "the scenario waits 6 s",
    ]
    assert hung_words("const c = new Client({ timeout: config.ms });\n") == [
        "timeout: hung — a timeout is set (a `timeout` option; its length is not a number the file gives; read "
        "from the code, checkout.mjs:1); the scenario waits 6 s"
    ]
    assert hung_words("fetch(url, { signal: AbortSignal.timeout(2000) });\n") == [
        "timeout: hung — a 2 s timeout is set (AbortSignal.timeout, read from the code, checkout.mjs:1); within "
        "the scenario's 6 s, yet the call did not end"
    ]
    assert hung_words("fetch(url);\n") == ["timeout: hung — no timeout found in the code; the scenario waits 6 s"]


def test_a_class_field_a_copied_header_and_an_options_parameter_are_followed():
    source = """\
class Payments {
  key = crypto.randomUUID();
  async charge(amount, options) {
    const headers = { "content-type": "application/json" };
    Object.assign(headers, { "Idempotency-Key": this.key });
    await fetch(URL, { method: "POST", headers, body: JSON.stringify({ amount }) });
    await fetch(URL, { headers: { "Idempotency-Key": options.idempotencyKey } });
  }
}
export async function chargeWithRetry(amount) {
  const requestId = crypto.randomUUID();
  return new Payments().charge(amount, { requestId, idempotencyKey: `k-${amount}-${Date.now()}` });
}
"""
    reading = code_reading.read_file("checkout.mjs", source.encode())
    assert {(s.kind, s.line) for s in reading.sites} == {
        ("key-sent", 5),
        ("request", 6),
        ("key-made", 2),
        ("key-sent", 7),
        ("request", 7),
        ("key-sent", 12),  # the options' field, carried into charge()'s second fetch
        ("key-made", 12),
    }
    assert reading.problems == []


def test_a_key_from_the_submissions_own_module_is_said_to_come_from_there():
    from review.core import evidence

    source = """\
import { randomUUID } from "node:crypto";
import { loadKey } from "./keys.mjs";
export async function chargeWithRetry(amount) {
  const traceId = randomUUID();
  const key = await loadKey(amount);
  return fetch(URL, { headers: { "x-trace-id": traceId, "Idempotency-Key": key } });
}
"""
    reading = code_reading.read_file("checkout.mjs", source.encode())
    hints = evidence.gather(evidence.Inputs("", [], {}, None, [], None, code=reading))["key-scope"]
    assert hints[0].text == (
        "the key comes from a function of another file, called at checkout.mjs:5: const key = await loadKey(amount);"
    )
    made = code_reading.read_file("checkout.mjs", source.replace("./keys.mjs", "node:crypto").encode())
    assert [site.how for site in made.sites if site.kind == "key-made"] == ["made"]
