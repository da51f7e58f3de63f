// checkout.mjs
export async function chargeWithRetry(amount, attempts = 3) {
  const key = crypto.randomUUID();
  for (let i = 0; i < attempts; i++) {
    const res = await fetch("http://127.0.0.1:8099/charge", {
      method: "POST",
      headers: { "content-type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify({ amount }),
    });
    if (res.ok) return res.json();
    if (res.status === 402) throw new Error("card declined");
    await new Promise((r) => setTimeout(r, 100 * 2 ** i + Math.random() * 50));
  }
  throw new Error(`charge failed after ${attempts} attempts`);
}
