// driver.mjs — trusted code shipped with review. It runs inside the sandbox, before and
// around the candidate's checkout.mjs:
//   - routes the candidate's fetch() of http://localhost:8099 (also 127.0.0.1, [::1],
//     gateway.local and $GATEWAY_URL) to the gateway's Unix socket; any other host is refused;
//   - calls chargeWithRetry(amount) once per planned call, one after the other;
//   - says how the calls settled in the only way the runner believes: the process's exit code
//     (0 all resolved; 3 checkout.mjs failed to load; 4 no chargeWithRetry export; 64 + a mask of
//     the rejected calls; 5 or 6 the candidate's code ended the process itself, while loading or
//     during a call; 13 a call left pending with nothing to wait for), read by the runner outside
//     the sandbox together with the signal and the
//     time. It also prints each outcome to stderr, marked [review-driver]: a claim for the log only,
//     since code in this process can patch anything in it. Verdicts come from the gateway's record.
import http from "node:http";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

// Captured before the candidate's code can replace any of them.
const request = http.request;
const stringify = JSON.stringify;
const parse = JSON.parse;
const byteLength = Buffer.byteLength;
const concat = Buffer.concat;
const NativeResponse = globalThis.Response;
const NativeHeaders = globalThis.Headers;
const NativeRequest = globalThis.Request;
// A coverage run (bubblewrap only, NODE_V8_COVERAGE set) writes one cumulative report: each
// takeCoverage() resets V8's counters, and summed partial reports miscount async code. A call
// that hangs is killed at the time limit, so the report is also written just before it.
const COVERAGE = Boolean(process.env.NODE_V8_COVERAGE);
const COVERAGE_AT_MS = Number(process.env.REVIEW_COVERAGE_AT_MS || 0);
const takeCoverage = v8.takeCoverage;
const stopCoverage = v8.stopCoverage;
const exitProcess = process.exit;
const reallyExit = process.reallyExit;
let coverageDone = false;
function finishCoverage() {
  if (COVERAGE && !coverageDone) {
    coverageDone = true;
    takeCoverage();
    stopCoverage();
  }
}
if (COVERAGE && COVERAGE_AT_MS > 0) setTimeout(finishCoverage, COVERAGE_AT_MS).unref();

const SOCKET = process.env.REVIEW_GATEWAY_SOCKET;
const ENTRY = process.env.REVIEW_ENTRY;
const CALLS = parse(process.env.REVIEW_CALLS || "[1999]");
for (const name of ["REVIEW_GATEWAY_SOCKET", "REVIEW_ENTRY", "REVIEW_CALLS", "REVIEW_COVERAGE_AT_MS"]) {
  delete process.env[name];
}
process.env.GATEWAY_URL = "http://localhost:8099";

const GATEWAY_HOSTS = new Set(["localhost:8099", "127.0.0.1:8099", "[::1]:8099", "gateway.local"]);
let currentCall = 0;

// Every way out of the process passes here (process.exit ends in process.reallyExit): an exit code
// is the driver's only when the driver exits. The candidate's process.exit(0) mid-call would
// otherwise read as "every call resolved", and its exit(3) as an import error.
let ours = null;
Object.defineProperty(process, "reallyExit", {
  value: function reallyExitOnce(code) {
    if (ours !== null) return reallyExit.call(process, ours);
    report({ kind: "own-exit", call: currentCall, code: String(code) });
    return reallyExit.call(process, currentCall ? 6 : 5);
  },
  writable: false, configurable: false, enumerable: true,
});
function exit(code) {
  ours = code;
  exitProcess.call(process, code);
}
// A call left pending with nothing to wait for: Node would exit with whatever process.exitCode the
// candidate's code set (0 reads as "resolved"), so the driver says it first.
process.on("beforeExit", () => exit(13));

function abortReason(signal) {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function viaSocket(url, init) {
  return new Promise((resolve, reject) => {
    const headers = {};
    new NativeHeaders(init.headers || {}).forEach((value, key) => (headers[key] = value));
    headers["x-review-call"] = String(currentCall);
    let body = init.body ?? null;
    if (body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) body = String(body);
    if (body !== null) headers["content-length"] = String(byteLength(body));
    const signal = init.signal;
    if (signal?.aborted) return reject(abortReason(signal));
    const req = request(
      { socketPath: SOCKET, path: url.pathname + url.search, method: (init.method || "GET").toUpperCase(), headers },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("error", (err) => reject(new TypeError("fetch failed", { cause: err })));
        res.on("end", () => {
          const responseHeaders = new NativeHeaders();
          for (const [key, value] of Object.entries(res.headers)) {
            for (const item of [].concat(value)) responseHeaders.append(key, item);
          }
          const noBody = [101, 204, 205, 304].includes(res.statusCode);
          resolve(new NativeResponse(noBody ? null : concat(chunks), {
            status: res.statusCode, statusText: res.statusMessage, headers: responseHeaders,
          }));
        });
      },
    );
    req.on("error", (err) => reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: err })));
    signal?.addEventListener("abort", () => { req.destroy(); reject(abortReason(signal)); }, { once: true });
    if (body !== null) req.write(body);
    req.end();
  });
}

globalThis.fetch = async function fetch(input, init = {}) {
  let url;
  let options = init;
  if (input instanceof NativeRequest) {
    url = new URL(input.url);
    const method = input.method;
    options = {
      method, headers: input.headers, signal: input.signal,
      body: method === "GET" || method === "HEAD" ? null : await input.text(), ...init,
    };
  } else {
    url = new URL(String(input));
  }
  if (url.protocol === "http:" && (GATEWAY_HOSTS.has(url.host) || url.hostname === "gateway.local")) {
    return viaSocket(url, options);
  }
  throw new TypeError("fetch failed", {
    cause: new Error(`review harness: ${url.host} is not reachable; only the gateway at localhost:8099 is`),
  });
};

const writeErr = process.stderr.write.bind(process.stderr);
function report(outcome) {
  try {
    writeErr(`[review-driver] ${stringify(outcome)}\n`);  // shown as the process's claim, never believed
  } catch {
    // the candidate may have broken stderr: the exit code still says it
  }
}

function describe(err) {
  try {
    if (err instanceof Error) return `${err.name}: ${err.message}`.slice(0, 2000);
    return String(stringify(err) ?? err).slice(0, 2000);
  } catch {
    return "(an unprintable value)";
  }
}

function plain(value) {
  try {
    const text = stringify(value);
    return text === undefined ? "undefined" : text.slice(0, 2000);
  } catch {
    return describe(value);
  }
}

let mod;
try {
  mod = await import(pathToFileURL(ENTRY).href);
} catch (err) {
  report({ kind: "import-error", message: describe(err) });
  exit(3);
}
if (typeof mod.chargeWithRetry !== "function") {
  report({ kind: "missing-entrypoint", message: "checkout.mjs does not export a function chargeWithRetry" });
  exit(4);
}
let rejected = 0;
for (let i = 0; i < CALLS.length; i++) {
  currentCall = i + 1;
  report({ kind: "call-start", call: currentCall, amount: CALLS[i] });
  try {
    const value = await mod.chargeWithRetry(CALLS[i]);
    report({ kind: "resolved", call: currentCall, value: plain(value) });
  } catch (err) {
    rejected |= 1 << i;
    report({ kind: "rejected", call: currentCall, message: describe(err) });
  }
}
finishCoverage();
exit(rejected ? 64 + rejected : 0); // the candidate's stray timers must not keep the run alive
