// checkout.mjs — the version most assistants produce
export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = crypto.randomUUID(); // one key per logical charge
  for (let i = 0; i < attempts; i++) {
    const res = await fetch("http://localhost:8099/charge", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        amount,
        idempotencyKey,
      }),
    });
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 50 * (i + 1)));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
