"""The pinned fake gateway: aiohttp, in the console's own process, on a Unix socket.

It behaves like a real payment gateway's idempotency layer (Stripe's v1 API and the IETF
Idempotency-Key header draft), with faults injected by a plan:

- the key comes from the ``Idempotency-Key`` header (raw or RFC 8941 quoted) or the body's
  ``idempotencyKey``; none at all → charged anyway, and flagged "no key sent";
- the first *completed* response for a key is stored and replayed with
  ``Idempotent-Replayed: true``; the same key with a different amount → 422; the same key
  while its first request is still executing → 409;
- a 503 injected before execution stores nothing (the endpoint never began), as at Stripe.

Every request is recorded, and the record is the only source of verdicts: the candidate's
code runs in the sandbox and may print anything it likes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from review.core import jsondata
from review.core.scenarios import Fault, FaultPlan
from review.harness.records import RequestRecord
from review.harness.scenarios import LATENESS_PROBE_MS

if TYPE_CHECKING:
    from aiohttp import web


def _web():
    """aiohttp, imported on the first run: its 170 ms of imports should not delay the triage screen."""
    from aiohttp import web

    return web


MAX_KEY_LENGTH = 255
MAX_BODY = 64 * 1024
MAX_REQUESTS = 500  # per run: a flood is answered 429 and counted, never held in memory
# How late this machine runs a timer is read every LATENESS_PROBE_MS while the gateway is up: a
# client's wait between attempts is measured here, and a busy machine stretches it by as much.
MAX_LATENESS_SAMPLES = 20_000  # past it the oldest are dropped (a scenario of 100 s)


@dataclass
class Charge:
    id: str
    key: str | None
    amount: object
    request_seq: int


@dataclass
class _KeyState:
    fingerprint: str
    done: bool = False
    status: int = 0
    body: dict = field(default_factory=dict)
    charge_id: str | None = None


class Gateway:
    """One scenario's gateway. ``on_event`` receives ("request" | "response" | "outcome", data)."""

    def __init__(
        self, plan: FaultPlan, on_event: Callable[[str, dict], None] | None = None, calls_per_process: int = 1
    ) -> None:
        self.plan = plan
        # With one call per process the gateway knows every request's call itself; only with several
        # is the client's X-Review-Call header used, and then recorded as the client's claim.
        self.calls_per_process = calls_per_process
        self.refused = 0  # requests past MAX_REQUESTS: answered 429, counted, not recorded
        # Requests aiohttp's parser refused before any handler ran (a header past 8 KiB): it answers
        # 400 and logs a traceback, which would land on the reviewer's terminal; counted here instead.
        self.unparsed = 0
        self.on_event = on_event or (lambda kind, data: None)
        self.requests: list[RequestRecord] = []
        self.charges: list[Charge] = []
        self.process = 1
        self.kill_requested = asyncio.Event()
        self._keys: dict[tuple[str, str, str], _KeyState] = {}
        self._stopping = asyncio.Event()
        self._started = time.monotonic()
        self._runner: web.AppRunner | None = None
        # (when, how late) in ms: the timer's lateness, above a millisecond, while the gateway is up.
        self.lateness: list[tuple[float, float]] = []
        self._probe: asyncio.Task | None = None

    # ----------------------------------------------------------------- lifecycle

    async def start(self, socket_path: Path) -> None:
        app = _web().Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = _web().AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=0.5, logger=self._server_log()
        )
        await self._runner.setup()
        site = _web().UnixSite(self._runner, str(socket_path))
        await site.start()
        self._started = time.monotonic()
        self._probe = asyncio.create_task(self._probe_lateness())

    async def _probe_lateness(self) -> None:
        while True:
            asked = time.monotonic() + LATENESS_PROBE_MS / 1000
            await asyncio.sleep(LATENESS_PROBE_MS / 1000)
            late = (time.monotonic() - asked) * 1000
            if late > 1:
                self.lateness.append((self.elapsed_ms(), round(late, 1)))
                del self.lateness[:-MAX_LATENESS_SAMPLES]

    def _server_log(self) -> logging.Logger:
        """aiohttp's own log for this gateway: nothing printed, each error counted as a refused request."""
        gateway = self

        class Counted(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if record.levelno >= logging.ERROR:
                    gateway.unparsed += 1

        log = logging.Logger("review.gateway.server")
        log.propagate = False
        log.addHandler(Counted())
        return log

    async def stop(self) -> None:
        self._stopping.set()
        if self._probe is not None:
            self._probe.cancel()
            self._probe = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def elapsed_ms(self) -> float:
        return round((time.monotonic() - self._started) * 1000, 1)

    # ----------------------------------------------------------------- requests

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        """Any request, however malformed or many, gets an HTTP answer: never a traceback."""
        try:
            if len(self.requests) >= MAX_REQUESTS:
                self.refused += 1
                return _web().json_response({"error": "too_many_requests"}, status=429)
            return await self._charge(request)
        except Exception as error:  # the client's bytes must not be able to crash the gateway
            if isinstance(error, _web().HTTPException):
                raise  # aiohttp's own answer (413 for an oversized body)
            return _web().json_response({"error": "invalid_request", "message": type(error).__name__}, status=400)

    async def _charge(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        seq = len(self.requests) + 1
        claimed = request.headers.get("X-Review-Call", "")
        claimed_call = int(claimed) if claimed.isdigit() and len(claimed) < 6 else None
        record = RequestRecord(
            seq=seq,
            t_ms=self.elapsed_ms(),
            process=self.process,
            call=1 if self.calls_per_process == 1 else claimed_call,
            method=request.method,
            path=request.path,
            key=None,
            key_source="none",
            amount=None,
            fingerprint=hashlib.sha256(raw).hexdigest()[:12],
            status=0,
        )
        if self.calls_per_process > 1:
            record.note = "call number as the client's driver claims it"
        self.requests.append(record)
        body = jsondata.loads(raw or b"{}", MAX_BODY)
        if not isinstance(body, dict):
            return self._answer(record, 400, {"error": "invalid_request", "message": "body is not a JSON object"})
        record.amount = body.get("amount")
        key, source, problem = _idempotency_key(request, body)
        record.key, record.key_source = key, source
        record.fingerprint = _fingerprint(request.method, request.path, body)
        self.on_event("request", record.to_json())
        if problem:
            return self._answer(record, 400, {"error": "invalid_request", "message": problem})
        if request.method != "POST" or request.path.rstrip("/") != "/charge":
            return self._answer(record, 404, {"error": "not_found"})
        if not isinstance(record.amount, (int, float)) or isinstance(record.amount, bool) or record.amount <= 0:
            return self._answer(
                record, 400, {"error": "invalid_request", "message": "amount must be a positive number"}
            )

        fault = self.plan.first if seq == 1 else self.plan.every
        if fault == Fault.UNAVAILABLE:
            return self._answer(record, 503, {"ok": False, "error": "service_unavailable"})

        scope = (request.method, request.path.rstrip("/"), key or "")
        state = self._keys.get(scope) if key else None
        if state is not None:
            if state.fingerprint != record.fingerprint:
                return self._answer(
                    record,
                    422,
                    {
                        "error": "idempotency_error",
                        "message": "Keys for idempotent requests can only be used with the same parameters "
                        "they were first used with.",
                    },
                )
            if not state.done:
                return self._answer(
                    record,
                    409,
                    {"error": "idempotency_key_in_use", "message": "a request with this key is still being processed"},
                )
            record.replayed = True
            record.charge_id = state.charge_id
            return self._answer(record, state.status, state.body, replayed=True)

        state = _KeyState(record.fingerprint)
        if key:
            self._keys[scope] = state
        if self.plan.processing_ms:
            await asyncio.sleep(self.plan.processing_ms / 1000)
        if fault == Fault.DECLINE:
            state.done, state.status = True, 402
            state.body = {"ok": False, "error": "card_declined", "message": "Your card was declined."}
            return self._answer(record, 402, state.body)
        charge = Charge(f"ch_{len(self.charges) + 1:04d}", key, record.amount, seq)
        self.charges.append(charge)
        record.charge_created, record.charge_id = True, charge.id
        if not key:
            record.note = "no key sent"
        state.done, state.status, state.charge_id = True, 200, charge.id
        state.body = {"ok": True, "id": charge.id, "amount": record.amount}

        if fault == Fault.DROP_AFTER_CHARGE:
            record.status = "dropped"
            self.on_event("response", record.to_json())
            if request.transport is not None:
                request.transport.abort()  # the charge exists, the client never hears of it
            raise asyncio.CancelledError()
        if fault in (Fault.HANG_AFTER_CHARGE, Fault.KILL_AFTER_CHARGE):
            record.status = "no answer"
            self.on_event("response", record.to_json())
            if fault == Fault.KILL_AFTER_CHARGE:
                self.kill_requested.set()
            await self._stopping.wait()  # never answer; the client must time out (or be killed)
            raise asyncio.CancelledError()
        return self._answer(record, 200, state.body)

    def _answer(self, record: RequestRecord, status: int, body: dict, replayed: bool = False) -> web.Response:
        record.status = status
        headers = {"Idempotent-Replayed": "true"} if replayed else {}
        self.on_event("response", record.to_json())
        return _web().json_response(body, status=status, headers=headers)

    # ----------------------------------------------------------------- summaries

    @property
    def charge_requests(self) -> list[RequestRecord]:
        return [r for r in self.requests if r.path.rstrip("/") == "/charge"]

    def distinct_keys(self) -> int:
        return len({r.key for r in self.charge_requests if r.key is not None})


def _idempotency_key(request: web.Request, body: dict) -> tuple[str | None, str, str | None]:
    """(key, where it came from, problem) — a problem means answer 400."""
    headers = request.headers.getall("Idempotency-Key", [])
    if len(headers) > 1:
        return None, "header", "more than one Idempotency-Key header"
    if headers:
        key = headers[0].strip()
        if len(key) >= 2 and key[0] == key[-1] == '"':
            key = key[1:-1]  # RFC 8941 sf-string form, as the IETF draft writes it
        source = "header"
    elif "idempotencyKey" in body:
        value = body["idempotencyKey"]
        if value is None:
            return None, "none", None
        if not isinstance(value, str):
            return str(value)[: MAX_KEY_LENGTH + 1], "body", "idempotencyKey must be a string"
        key, source = value, "body"
    else:
        return None, "none", None
    if not key:
        return key, source, "the idempotency key is empty"
    if len(key) > MAX_KEY_LENGTH:
        return key, source, f"the idempotency key is longer than {MAX_KEY_LENGTH} characters"
    return key, source, None


def _fingerprint(method: str, path: str, body: dict) -> str:
    """What must match for a key to be replayed: the endpoint and the parameters, not the key."""
    params = {k: v for k, v in body.items() if k != "idempotencyKey"}
    canonical = json.dumps([method, path.rstrip("/"), params], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]
