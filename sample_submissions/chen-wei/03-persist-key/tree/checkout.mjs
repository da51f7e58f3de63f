// checkout.mjs
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const PENDING = ".pending-charge.json";
const TIMEOUT_MS = 2000;
const RETRYABLE = new Set([409, 429, 500, 502, 503, 504]);

// The key must outlive the process: write it down before the first request.
function pendingKey(amount) {
  try {
    const pending = JSON.parse(readFileSync(PENDING, "utf8"));
    if (pending.amount === amount) return pending.idempotencyKey;
  } catch {
    // no pending charge
  }
  const idempotencyKey = crypto.randomUUID();
  writeFileSync(PENDING + ".tmp", JSON.stringify({ amount, idempotencyKey }));
  renameSync(PENDING + ".tmp", PENDING);
  return idempotencyKey;
}

const backoff = (i) => new Promise((r) => setTimeout(r, 50 * 2 ** i));

export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = pendingKey(amount);
  let lastError;
  for (let i = 0; i < attempts; i++) {
    let res;
    try {
      res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      lastError = err; // timeout or dropped connection: safe to retry with the same key
      await backoff(i);
      continue;
    }
    if (res.ok) {
      const body = await res.json();
      rmSync(PENDING, { force: true });
      return body;
    }
    if (!RETRYABLE.has(res.status)) {
      rmSync(PENDING, { force: true });
      throw new Error(`charge declined (${res.status})`);
    }
    lastError = new Error(`gateway returned ${res.status}`);
    await backoff(i);
  }
  throw new Error(`charge failed after ${attempts} attempts: ${lastError.message}`);
}
