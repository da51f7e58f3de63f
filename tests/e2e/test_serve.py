"""`review serve` without a browser: who gets in (the token, on every path and on the websocket), what
the page may load, the name a tab reviews as, the limit on consoles, and that every console it started
ends — with its runs — when its tab goes, when it is quit, and when the server is stopped. A
websocket client plays the tab here; tests/e2e/test_serve_browser.py does the same in Chromium."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import socket
import subprocess
import sys
import tomllib

import aiohttp
import pyte
import pytest

from helpers import Served, leftover_processes, leftovers_after
from review.devtools import doctor
from review.services.serve import address


@pytest.fixture
def served(sample_cohort):
    started: list[Served] = []

    def start(*options: str) -> Served:
        server = Served(sample_cohort, "--no-harness", *options)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def review(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "review", *argv], capture_output=True, text=True, timeout=60)


async def get(url: str, **headers: str) -> tuple[int, dict, str]:
    async with aiohttp.ClientSession() as client, client.get(url, headers=headers, allow_redirects=False) as answer:
        return answer.status, dict(answer.headers), (await answer.read()).decode("utf-8", "replace")


def websocket_url(page: str) -> str:
    found = re.search(r'data-session-websocket-url="([^"]+)"', page)
    assert found, page
    return found.group(1)


class Tab:
    """What a browser tab does over the websocket: sends keys, and draws what it is sent on a terminal
    screen of its size (pyte), as xterm.js does in the browser."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse, width: int, height: int) -> None:
        self.socket = socket
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.closed = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.stream.feed(message.data)
        self.closed.set()

    def shown(self) -> str:
        return "\n".join(self.screen.display)

    async def keys(self, *keys: str) -> None:
        # Unpaced: the console reads them in order; each test waits for the state a key leads to.
        for key in keys:
            await self.socket.send_str(json.dumps(["stdin", key]))

    async def wait_for(self, text: str, timeout: float = 60.0) -> str:
        try:
            async with asyncio.timeout(timeout):
                while text not in self.shown():
                    await asyncio.sleep(0.05)
        except TimeoutError:
            raise AssertionError(f"{text!r} never appeared; the tab showed:\n{self.shown()}") from None
        return self.shown()


async def open_tab(client: aiohttp.ClientSession, server: Served, reviewer: str = "ana") -> Tab:
    async with client.get(server.url, params={"reviewer": reviewer}) as answer:
        assert answer.status == 200
        page = await answer.text()
    tab = Tab(await client.ws_connect(websocket_url(page) + "?width=100&height=30"), 100, 30)
    await tab.wait_for("chen-wei")
    return tab


# ---------------------------------------------------------------- who gets in


async def test_every_request_without_the_token_is_refused(served):
    server = served()
    assert server.url.startswith("http://127.0.0.1:") and len(server.url.rsplit("/", 2)[1]) >= 32
    token = server.url.rsplit("/", 2)[1]
    # One character off: never the token's own last character (a token ending in "x" once made this the token).
    off = token[:-1] + ("y" if token.endswith("x") else "x")
    # textual-serve's own paths, a wrong token, a token one character off, the token as a query.
    for path in ["/", "/ws", "/static/js/textual.js", "/wrong-token/", f"/{off}/", f"/?token={token}", f"/x/{token}/"]:
        status, headers, text = await get(server.base + path)
        assert status == 403, path
        assert "needs the token" in text and "Content-Security-Policy" in headers
    async with aiohttp.ClientSession() as client:
        for path in ["/ws", f"/wrong/ws/{token}"]:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await client.ws_connect(server.base.replace("http", "ws") + path)
            assert refused.value.status == 403
        # With the token, a websocket still needs the ticket its page was given, once.
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(server.url.replace("http", "ws") + "ws/made-up")
        assert refused.value.status == 403
    # And the token itself opens the page.
    status, _, _ = await get(server.url)
    assert status == 200
    assert server.consoles() == []


async def test_a_websocket_from_another_site_is_refused_even_with_the_token(served):
    server = served()
    async with aiohttp.ClientSession() as client:
        async with client.get(server.url, params={"reviewer": "ana"}) as answer:
            url = websocket_url(await answer.text())
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(url, headers={"Origin": "http://evil.example"})
        assert refused.value.status == 403
    assert server.consoles() == []


async def test_the_page_loads_nothing_from_elsewhere(served):
    server = served()
    status, headers, page = await get(server.url + "?reviewer=ana")
    assert status == 200
    policy = headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "unsafe" not in policy and "http" not in policy
    for directive in ("script-src", "style-src", "font-src", "connect-src", "img-src"):
        assert f"{directive} 'self'" in policy
    assert "fonts.googleapis" not in page
    links = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert links and all(not re.match(r"[a-z]+:|//", link) for link in links), links
    # Each of them is served, from this server, to this token.
    for link in links:
        status, headers, _ = await get(server.url + link)
        assert status == 200, link
        assert "Content-Security-Policy" in headers
    # The font the page names ships with the package: no web font from a CDN.
    css = (await get(server.url + "page/console.css"))[2]
    fonts = re.findall(r'url\("([^"]+)"\)', css)
    assert fonts
    for font in fonts:
        status, headers, _ = await get(server.url + "page/" + font)
        assert status == 200 and int(headers["Content-Length"]) > 100_000, font


async def test_the_tab_asks_who_is_reviewing_and_checks_it_as_the_console_does(served):
    server = served()
    status, _, page = await get(server.url)
    assert status == 200 and 'name="reviewer"' in page and "data-session-websocket-url" not in page
    status, _, page = await get(server.url + "?reviewer=" + "x" * 70)
    assert status == 400 and "at most 64 characters" in page and 'name="reviewer"' in page
    status, _, page = await get(server.url + "?reviewer=%1b%5b31m")
    assert status == 400 and "control, invisible or line-breaking characters" in page
    # What the name holds is shown as text, never as markup.
    status, _, page = await get(server.url + "?reviewer=%3Cb%3Eana")
    assert status == 200 and "&lt;b&gt;ana" in page and "<b>ana" not in page


async def test_through_another_port_forwarded_to_it_as_ssh_L_does(served):
    """`ssh -L 9000:127.0.0.1:8000`: the browser's address names the laptop's port, and so must the
    page's websocket. A forwarder on loopback plays the tunnel."""
    server = served()
    port = int(server.base.rsplit(":", 1)[1])

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def tunnel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        far_reader, far_writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.gather(pipe(reader, far_writer), pipe(far_reader, writer))

    forwarder = await asyncio.start_server(tunnel, "127.0.0.1", 0)
    local = forwarder.sockets[0].getsockname()[1]
    try:
        url = server.url.replace(f":{port}/", f":{local}/")
        async with aiohttp.ClientSession() as client:
            async with client.get(url, params={"reviewer": "ana"}) as answer:
                socket_url = websocket_url(await answer.text())
            assert socket_url.startswith(f"ws://127.0.0.1:{local}/")
            tab = Tab(await client.ws_connect(socket_url + "?width=100&height=30"), 100, 30)
            await tab.wait_for("8 for ana to score")
            await tab.socket.close()
    finally:
        forwarder.close()
    assert await leftovers_after("-m review open", timeout=15) == []


# ---------------------------------------------------------------- the command line


def test_another_address_needs_an_explicit_flag(sample_cohort):
    result = review("serve", str(sample_cohort), "--host", "0.0.0.0")
    assert result.returncode == 2
    assert "not this machine's loopback" in result.stderr and "ssh -L" in result.stderr
    assert "--allow-remote" in result.stderr and result.stdout == ""


def test_with_the_flag_it_listens_there_and_warns(sample_cohort):
    server = Served(sample_cohort, "--host", "0.0.0.0", "--allow-remote", "--no-harness")
    code, said = server.stop()
    assert code == 0 and "WARNING: listening on 0.0.0.0, not loopback" in said
    assert "unencrypted" in said


def test_loopback_is_told_from_other_addresses():
    assert address.is_loopback("127.0.0.1") and address.is_loopback("localhost") and address.is_loopback("::1")
    assert not address.is_loopback("0.0.0.0") and not address.is_loopback("192.0.2.1")
    assert not address.is_loopback("no-such-host.invalid")


def test_a_port_in_use_or_a_bad_option_is_said_before_anything_starts(sample_cohort):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = review("serve", str(sample_cohort), "--port", str(port))
    assert result.returncode == 2 and f"port {port} on 127.0.0.1 is in use" in result.stderr
    result = review("serve", str(sample_cohort), "--max-sessions", "0")
    assert result.returncode == 2 and "--max-sessions 0" in result.stderr
    result = review("serve", str(sample_cohort), "--theme", "nope")
    assert result.returncode == 2 and "unknown theme 'nope'" in result.stderr
    result = review("serve", str(sample_cohort), "--reviewer", "a\tb")
    assert result.returncode == 2 and "line-breaking" in result.stderr
    result = review("serve", str(sample_cohort / "missing"))
    assert result.returncode == 2 and result.stdout == ""


def test_doctor_says_whether_serving_is_possible(monkeypatch):
    check = doctor.check_serve(port=0)
    assert check.status == "ok" and "textual-serve 1.1" in check.detail
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        check = doctor.check_serve(port=port)
    assert check.status == "degraded" and f"port {port} on 127.0.0.1 is in use" in check.detail
    assert "--port" in check.fix
    # Without textual-serve (an install that lost it), said as such.
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    check = doctor.check_serve(port=0)
    assert check.status == "missing" and "`review serve` is unavailable" in check.detail
    assert "serve" in {c.name for c in doctor.run_checks()}


# ---------------------------------------------------------------- consoles: how many, and their end


async def test_a_console_past_the_limit_is_refused_with_a_page_that_says_why(served):
    server = served("--max-sessions", "1")
    async with aiohttp.ClientSession() as client:
        tab = await open_tab(client, server)
        assert len(server.consoles()) == 1
        status, headers, page = await get(server.url + "?reviewer=bob")
        assert status == 503 and headers["Retry-After"]
        assert "All 1 consoles this server allows are open" in page and "--max-sessions" in page
        # Once the first tab goes, its seat is free again.
        await tab.socket.close()
        assert await leftovers_after("-m review open", timeout=15) == []
        status, _, page = await get(server.url + "?reviewer=bob")
        assert status == 200 and "data-session-websocket-url" in page


async def test_a_reloaded_tab_gets_its_seat_back_at_once(served):
    """A reload closes the tab's websocket as the new page is asked for: the seat is free as soon as
    the websocket goes, not when the console has finished quitting, and the page waits a moment for
    it rather than refusing."""
    server = served("--max-sessions", "1")
    async with aiohttp.ClientSession() as client:
        tab = await open_tab(client, server)
        page_load = asyncio.create_task(get(server.url + "?reviewer=ana"))
        await asyncio.sleep(0.2)
        await tab.socket.close()
        status, _, page = await page_load
        assert status == 200 and "data-session-websocket-url" in page
        # The reloaded page's console; past it, over the limit for good, a page says it tries again.
        again = Tab(await client.ws_connect(websocket_url(page) + "?width=100&height=30"), 100, 30)
        await again.wait_for("chen-wei")
        status, _, page = await get(server.url + "?reviewer=bob")
        assert status == 503 and 'http-equiv="refresh"' in page and "tries again every" in page
        await again.socket.close()


async def test_a_tab_that_closes_ends_its_console(served):
    server = served()
    async with aiohttp.ClientSession() as client:
        tab = await open_tab(client, server, reviewer="-ana-")
        [console] = server.consoles()
        assert "--reviewer=-ana-" in console and "--no-harness" in console
        await tab.socket.close()
    assert await leftovers_after("-m review open", timeout=15) == []


async def test_a_tab_closed_right_after_a_change_leaves_that_change_on_disk(served, sample_cohort):
    """A tier chosen, and the tab closed at once (well within the autosave's pause): the console ends
    as the tab goes, and writes the rubric first."""
    server = served()
    async with aiohttp.ClientSession() as client:
        tab = await open_tab(client, server)
        await tab.keys("\x1b[B", "\x1b[B", "\r")
        await tab.wait_for("whole submission")
        await tab.keys("4")
        await tab.wait_for("Found the defect")
        assert list(sample_cohort.glob("*.review.toml")) == []
        await tab.socket.send_str(json.dumps(["stdin", "s"]))
        await tab.socket.close()
    assert await leftovers_after("-m review open", timeout=15) == []
    [written] = list(sample_cohort.glob("*.review.toml"))
    [entry] = tomllib.loads(written.read_text())["reviews"]
    assert entry["reviewers"] == ["ana"] and entry["tiers"] == {"found-defect": "strong"}


async def test_quitting_the_console_in_its_tab_ends_it_and_closes_the_tab(served):
    server = served()
    async with aiohttp.ClientSession() as client:
        tab = await open_tab(client, server)
        await tab.keys("q")
        async with asyncio.timeout(15):
            await tab.closed.wait()
    assert await leftovers_after("-m review open", timeout=15) == []


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
async def test_ctrl_c_on_the_server_ends_every_console_and_the_runs_they_started(sample_cohort):
    server = Served(sample_cohort, "--no-harness")
    try:
        async with aiohttp.ClientSession() as client:
            tabs = [await open_tab(client, server, reviewer) for reviewer in ("ana", "bob")]
            assert len(server.consoles()) == 2
            # In the first tab, a suite run on a submission, still running when the server stops.
            await tabs[0].keys("\x1b[B", "\x1b[B", "\r")
            await tabs[0].wait_for("whole submission")
            await tabs[0].keys("5")
            await tabs[0].wait_for("r runs the suite on HEAD")
            await tabs[0].keys("r")
            await tabs[0].wait_for("▶ suite on HEAD")
            async with asyncio.timeout(60):
                while not leftover_processes("driver.mjs"):
                    await asyncio.sleep(0.05)
            code, said = await asyncio.to_thread(server.stop)
            assert code == 0 and "every console it started has ended" in said
            async with asyncio.timeout(10):
                await asyncio.gather(*(tab.closed.wait() for tab in tabs))
    finally:
        server.stop()
    assert await leftovers_after("-m review open") == []
    assert await leftovers_after("driver.mjs") == []
