import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { rmSync } from "node:fs";
import { chargeWithRetry } from "../checkout.mjs";

test("a retry after a 503 reuses the idempotency key", async () => {
  rmSync(".pending-charge.json", { force: true });
  const keys = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      keys.push(JSON.parse(body).idempotencyKey);
      res.writeHead(keys.length === 1 ? 503 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: keys.length > 1 }));
    });
  });
  await new Promise((resolve) => server.listen(8099, resolve));
  try {
    await chargeWithRetry(1999);
    assert.equal(keys.length, 2);
    assert.equal(new Set(keys).size, 1, "every attempt must carry the same key");
  } finally {
    server.close();
  }
});
