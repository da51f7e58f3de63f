// checkout.mjs
const GATEWAY = "http://localhost:8099/charge";

export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = crypto.randomUUID();
  for (let attempt = 0; attempt < attempts; attempt++) {
    const res = await fetch(GATEWAY, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount, idempotencyKey }),
    });
    if (res.ok) return res.json();
    const delay = 100 * 2 ** attempt;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  throw new Error(`charge failed after ${attempts} attempts`);
}
