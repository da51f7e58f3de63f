// fake-gateway.mjs — run with: node fake-gateway.mjs
import { createServer } from "node:http";

const seen = [];

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const { idempotencyKey, amount } = JSON.parse(body || "{}");
    seen.push({ key: idempotencyKey, amount });

    const isFirstAttempt = seen.length === 1;
    res.writeHead(isFirstAttempt ? 503 : 200, {
      "content-type": "application/json",
    });
    res.end(JSON.stringify({ ok: !isFirstAttempt }));

    if (seen.length === 2) {
      const distinct = new Set(seen.map((s) => s.key));
      console.log(JSON.stringify({
        charges: seen.length,
        distinctKeys: distinct.size,
      }));
      server.close();
    }
  });
});

server.listen(8099, () => console.log("gateway listening on :8099"));
