// checkout.mjs
export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = crypto.randomUUID();
  try {
    for (let i = 0; i < attempts; i++) {
      const res = await fetch("http://localhost:8099/charge", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
      });
      if (!res.ok) throw new Error("gateway returned " + res.status);
      return res.json();
    }
  } catch (err) {
    // A gateway hiccup must not crash the checkout page.
    console.warn("charge error:", err.message);
    return { ok: false, error: err.message };
  }
}
