// checkout.mjs
import { createHash } from "node:crypto";

const GATEWAY = "http://localhost:8099/charge";

// Same order, same key: derive it so a restarted process computes it again.
function keyFor(amount) {
  return createHash("sha256").update(`order:${amount}`).digest("hex");
}

export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = keyFor(amount);
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(GATEWAY, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount, idempotencyKey }),
    });
    if (res.ok) return res.json();
    if (res.status < 500) throw new Error("charge rejected: " + res.status);
    await new Promise((r) => setTimeout(r, 100 * 2 ** i));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
