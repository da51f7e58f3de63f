"""The fake gateway's idempotency semantics, over its real Unix socket with a real HTTP client."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from review.core.scenarios import Fault, FaultPlan
from review.harness.gateway import Gateway


@pytest.fixture
async def gateway_factory(tmp_path):
    started: list[Gateway] = []

    async def make(plan=FaultPlan()):
        gateway = Gateway(plan)
        path = tmp_path / f"gw{len(started)}.sock"
        await gateway.start(path)
        started.append(gateway)
        session = aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(path)))
        return gateway, session

    yield make
    for gateway in started:
        await gateway.stop()


async def charge(session, amount=1999, key="k1", headers=None, raw=None):
    body = (
        raw
        if raw is not None
        else json.dumps({"amount": amount, **({"idempotencyKey": key} if key is not None else {})})
    )
    async with session.post("http://localhost:8099/charge", data=body, headers=headers or {}) as response:
        return response.status, dict(response.headers), await response.json()


async def test_replay_returns_the_first_response_with_the_replayed_header(gateway_factory):
    gateway, session = await gateway_factory()
    async with session:
        first = await charge(session)
        second = await charge(session)
    assert first[0] == second[0] == 200 and first[2] == second[2]
    assert "Idempotent-Replayed" not in first[1] and second[1]["Idempotent-Replayed"] == "true"
    assert len(gateway.charges) == 1 and gateway.requests[1].replayed


async def test_same_key_different_amount_is_422(gateway_factory):
    gateway, session = await gateway_factory()
    async with session:
        await charge(session, amount=10)
        status, _, body = await charge(session, amount=11)
    assert status == 422 and body["error"] == "idempotency_error" and len(gateway.charges) == 1


async def test_concurrent_duplicate_is_409(gateway_factory):
    gateway, session = await gateway_factory(FaultPlan(processing_ms=300))
    async with session:
        results = await asyncio.gather(charge(session), charge(session))
    assert sorted(r[0] for r in results) == [200, 409]
    assert len(gateway.charges) == 1


async def test_no_key_is_charged_and_flagged(gateway_factory):
    gateway, session = await gateway_factory()
    async with session:
        await charge(session, key=None)
        await charge(session, key=None)
    assert len(gateway.charges) == 2
    assert all(r.note == "no key sent" and r.key_source == "none" for r in gateway.requests)


async def test_header_key_raw_and_quoted_and_bad_keys(gateway_factory):
    gateway, session = await gateway_factory()
    async with session:
        assert (await charge(session, key=None, headers={"Idempotency-Key": "h1"}))[0] == 200
        status, headers, _ = await charge(session, key=None, headers={"Idempotency-Key": '"h1"'})
        assert status == 200 and headers.get("Idempotent-Replayed") == "true"
        assert (await charge(session, key="x" * 256))[0] == 400
        assert (await charge(session, key=""))[0] == 400
        assert (await charge(session, raw="not json"))[0] == 400
        assert (await charge(session, amount=-5, key="neg"))[0] == 400
    assert len(gateway.charges) == 1 and gateway.requests[0].key_source == "header"


async def test_injected_503_stores_nothing(gateway_factory):
    gateway, session = await gateway_factory(FaultPlan(first=Fault.UNAVAILABLE))
    async with session:
        assert (await charge(session))[0] == 503
        status, headers, _ = await charge(session)
    assert status == 200 and "Idempotent-Replayed" not in headers and len(gateway.charges) == 1


async def test_lost_response_charges_then_drops(gateway_factory):
    gateway, session = await gateway_factory(FaultPlan(first=Fault.DROP_AFTER_CHARGE))
    async with session:
        with pytest.raises(aiohttp.ClientError):
            await charge(session)
        status, headers, body = await charge(session)
    assert status == 200 and headers["Idempotent-Replayed"] == "true" and body["id"] == "ch_0001"
    assert gateway.requests[0].status == "dropped" and gateway.requests[0].charge_created


async def test_decline_is_stored_and_replayed(gateway_factory):
    gateway, session = await gateway_factory(FaultPlan(first=Fault.DECLINE, every=Fault.DECLINE))
    async with session:
        first = await charge(session)
        second = await charge(session)
    assert first[0] == second[0] == 402 and first[2]["error"] == "card_declined"
    assert second[1]["Idempotent-Replayed"] == "true" and gateway.charges == []


async def test_the_gateway_takes_no_reports_about_outcomes(gateway_factory):
    """How calls settled is what the runner sees of the process (its exit), never something posted to the
    gateway: a report is just another request, to a path that does not exist."""
    gateway, session = await gateway_factory()
    async with session:
        async with session.post(
            "http://x/__review/outcome", data='{"kind":"resolved"}', headers={"X-Review-Token": "anything"}
        ) as forged:
            assert forged.status == 404
    assert not hasattr(gateway, "outcomes") and gateway.requests[0].path == "/__review/outcome"


async def test_malformed_and_flooding_clients_get_http_answers_not_tracebacks(gateway_factory):
    from review.harness import gateway as gateway_module

    gateway, session = await gateway_factory()
    async with session:
        deep = await charge(session, raw="[" * 30_000 + "]" * 30_000)  # under the size cap, past the parser
        assert deep[0] == 400
        huge = await session.post("http://localhost:8099/charge", data=b"x" * (gateway_module.MAX_BODY + 10))
        assert huge.status == 413
        for _ in range(gateway_module.MAX_REQUESTS - len(gateway.requests)):
            await charge(session, key=None)
        over = await charge(session)
        assert over[0] == 429 and gateway.refused == 1
    assert len(gateway.requests) == gateway_module.MAX_REQUESTS  # memory bounded: the rest only counted


async def test_the_call_a_request_belongs_to_is_the_gateways_call_not_the_clients(gateway_factory):
    gateway, session = await gateway_factory()
    async with session:
        await charge(session, key="a", headers={"X-Review-Call": "7"})
        await charge(session, key="b", headers={"X-Review-Call": "8"})
    assert [r.call for r in gateway.requests] == [1, 1]  # one call per process: both attempts are call 1
