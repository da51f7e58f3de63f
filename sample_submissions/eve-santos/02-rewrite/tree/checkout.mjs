const GATEWAY_URL = "http://localhost:8099/charge";
const MAX_ATTEMPTS = 3;

class ChargeError extends Error {
  constructor(message, causes) {
    super(message);
    this.causes = causes;
  }
}

async function postCharge(amount, idempotencyKey) {
  const response = await fetch(GATEWAY_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ amount, idempotencyKey }),
  });
  if (!response.ok) {
    throw new Error(`HTTP ${response.status}`);
  }
  return response.json();
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  const causes = [];
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      return await postCharge(amount, idempotencyKey);
    } catch (error) {
      causes.push(error);
    }
  }
  throw new ChargeError(`charge failed after ${MAX_ATTEMPTS} attempts`, causes);
}
