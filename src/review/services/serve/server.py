"""The web server behind `review serve`: textual-serve's server, wrapped so that nobody else gets in
and the page loads nothing from elsewhere.

- Every path starts with a random token (`/TOKEN/…`); any request without it, websocket included, is
  refused with 403 before a handler runs.
- Every response carries a Content-Security-Policy that allows this server alone; the page, its
  stylesheet and script ship with this package, textual.js and the font with textual-serve.
- A page asks for the reviewer's name, then holds one of `limit` seats for its websocket; a page
  over the limit says so instead of opening a console.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jinja2
from aiohttp import web
from textual_serve.server import Server, to_int

from review.services.serve.address import url_for
from review.services.serve.sessions import ConsoleProcess

HERE = Path(__file__).resolve().parent
# The page's own files; textual-serve's (textual.js, xterm.css, the font) are served from its package.
PAGE_FILES = HERE / "static"
TEMPLATES = HERE / "templates"
# How long a page holds its seat before its websocket connects.
TICKET_SECONDS = 15.0
# A page past the limit waits this long for a seat before it says so: a reloaded tab's own console is
# still ending (its websocket closes only as the new page arrives).
SEAT_WAIT_SECONDS = 3.0
RETRY_SECONDS = 10
MAX_NAME = 64

# textual.js tries to add two <style> elements of its own (one empty); the policy refuses them (the
# browser's console says so) and the page's stylesheet sets what they would have.
CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "font-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


@dataclass(frozen=True)
class ServeSettings:
    cohort: Path
    # The console's command line for these reviewers (the command line layer knows its options).
    console: Callable[[tuple[str, ...]], list[str]]
    # Why these reviewer names cannot be saved, or None: the same check as the console's --reviewer.
    check_reviewers: Callable[[list[str]], str | None]
    # Who reviews when the page names nobody (the server's --reviewer); none: the page asks.
    reviewers: tuple[str, ...] = ()
    limit: int = 4


class Seats:
    """At most `limit` consoles at once: the ones running, and the pages that were promised one and
    have not connected yet (for TICKET_SECONDS), so two pages loaded together never both get the last."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.live: set[ConsoleProcess] = set()
        # Consoles whose tab has gone, still quitting (at most their grace): no longer a seat.
        self.ending: set[ConsoleProcess] = set()
        self.tickets: dict[str, tuple[tuple[str, ...], float]] = {}

    def _expire(self) -> None:
        now = time.monotonic()
        for ticket in [t for t, (_, until) in self.tickets.items() if until < now]:
            del self.tickets[ticket]

    def reserve(self, reviewers: tuple[str, ...]) -> str | None:
        self._expire()
        if len(self.live) + len(self.tickets) >= self.limit:
            return None
        ticket = secrets.token_urlsafe(16)
        self.tickets[ticket] = (reviewers, time.monotonic() + TICKET_SECONDS)
        return ticket

    def take(self, ticket: str) -> tuple[str, ...] | None:
        """The reviewers a page was given this ticket for, once: None when unknown, used or expired."""
        self._expire()
        entry = self.tickets.pop(ticket, None)
        return entry[0] if entry else None


class ConsoleServer(Server):
    """textual-serve's Server with its routes behind the token, its page replaced, a console per tab
    started as `settings.console` says, and every console ended when the server stops."""

    def __init__(self, settings: ServeSettings, token: str | None = None) -> None:
        super().__init__(command="review", title=f"review — {settings.cohort.name}", templates_path=TEMPLATES)
        self.settings = settings
        self.token = token or secrets.token_urlsafe(24)
        self.seats = Seats(settings.limit)
        self.pages = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True)

    @property
    def prefix(self) -> str:
        return f"/{self.token}/"

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        prefix = self.prefix
        app.add_routes(
            [
                web.get(prefix, self.handle_index, name="index"),
                web.get(prefix.rstrip("/"), self._add_slash),
                web.get(prefix + "ws/{ticket}", self.handle_websocket, name="websocket"),
                web.static(prefix + "static", self.statics_path, name="static"),
                web.static(prefix + "page", PAGE_FILES, name="page"),
            ]
        )
        app.on_response_prepare.append(self._add_headers)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler) -> web.StreamResponse:
        # The token is the first segment of the path, compared in constant time, before any handler.
        first = request.rel_url.raw_path.split("/")[1] if request.rel_url.raw_path.startswith("/") else ""
        if not secrets.compare_digest(first.encode(), self.token.encode()):
            raise _forbidden(
                "this address needs the token that `review serve` printed with it (http://HOST:PORT/TOKEN/)"
            )
        origin = request.headers.get("Origin")
        if request.headers.get("Upgrade", "").lower() == "websocket" and origin is not None:
            # A page from another site may not drive a console, even one that learned the token.
            if origin.split("://", 1)[-1] != request.host:
                raise _forbidden(f"a websocket from another site ({origin}) is not accepted")
        return await handler(request)

    async def _add_slash(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(self.prefix + (f"?{request.query_string}" if request.query_string else ""))

    async def _add_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)

    def _page(self, template: str, status: int = 200, **context) -> web.Response:
        html = self.pages.get_template(template).render(title=self.title, **context)
        return web.Response(text=html, status=status, content_type="text/html")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        names = request.query.getall("reviewer", [])
        if names:
            problem = self.settings.check_reviewers(names)
            if problem:
                return self._page(
                    "notice.html",
                    400,
                    lines=[f"That name cannot be used: {problem}."],
                    form=True,
                    name=names[0][:MAX_NAME],
                    max_name=MAX_NAME,
                )
        elif self.settings.reviewers:
            names = list(self.settings.reviewers)
        else:
            return self._page(
                "notice.html",
                lines=[
                    f"The console opens on {self.settings.cohort.name}. Scores "
                    "you save there carry the name you give here."
                ],
                form=True,
                name="",
                max_name=MAX_NAME,
            )
        ticket = self.seats.reserve(tuple(names))
        waited = 0.0
        while ticket is None and waited < SEAT_WAIT_SECONDS:
            await asyncio.sleep(0.1)
            waited += 0.1
            ticket = self.seats.reserve(tuple(names))
        if ticket is None:
            response = self._page(
                "notice.html",
                503,
                lines=[
                    f"All {self.seats.limit} consoles this server allows are open (each is a process on the "
                    "server). Quit one (q in its tab) or close its tab, then reload this page.",
                    "Whoever started the server can allow more with `review serve --max-sessions N`.",
                    f"This page tries again every {RETRY_SECONDS} seconds.",
                ],
                retry=RETRY_SECONDS,
            )
            response.headers["Retry-After"] = str(RETRY_SECONDS)
            return response
        scheme = "wss" if request.secure else "ws"
        font_size = min(max(to_int(request.query.get("fontsize", "16"), 16), 8), 40)
        return self._page(
            "console.html",
            websocket_url=f"{scheme}://{request.host}{self.prefix}ws/{ticket}",
            font_size=font_size,
            reviewers=", ".join(names),
            cohort=self.settings.cohort.name,
        )

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        reviewers = self.seats.take(request.match_info["ticket"])
        if reviewers is None:
            raise _forbidden("this console's link was used already or has expired: reload the page")
        websocket = web.WebSocketResponse(heartbeat=15)

        async def close() -> None:
            await websocket.close()

        console = ConsoleProcess(
            self.settings.console(reviewers),
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
        )
        self.seats.live.add(console)
        messages: asyncio.Task | None = None
        try:
            await websocket.prepare(request)
            await console.start(
                to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
            )
            # Until the tab goes (its messages end) or the console does (quit in it, or killed).
            messages = asyncio.create_task(self._process_messages(websocket, console))
            exited = asyncio.create_task(console.exited())
            await asyncio.wait({messages, exited}, return_when=asyncio.FIRST_COMPLETED)
            exited.cancel()
        finally:
            # The tab is gone: its seat is free now, while its console quits (a reload gets one at once).
            self.seats.live.discard(console)
            self.seats.ending.add(console)
            await console.stop()
            self.seats.ending.discard(console)
            if messages is not None:
                messages.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await messages
            await websocket.close()
        return websocket

    async def stop_consoles(self) -> None:
        """Ends every console at once (each quits, or is killed after its grace), with what it started."""
        consoles = [*self.seats.live, *self.seats.ending]
        await asyncio.gather(*(console.stop() for console in consoles), return_exceptions=True)

    async def run(self, listening: socket.socket, ready: Callable[[str], None]) -> None:
        """Serves on `listening` until SIGINT, SIGTERM or SIGHUP; calls `ready` with the URL to open
        once requests are answered. Every console is ended before this returns."""
        app = await self._make_app()
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=5.0)
        await runner.setup()
        await web.SockSite(runner, listening).start()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(number, stop.set)
        try:
            ready(url_for(listening, self.prefix))
            await stop.wait()
        finally:
            # A second Ctrl-C while the consoles end changes nothing: each is killed after its grace.
            await self.stop_consoles()
            await runner.cleanup()
            for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.remove_signal_handler(number)


def _forbidden(reason: str) -> web.HTTPException:
    return web.HTTPForbidden(text=f"403 Forbidden: {reason}\n")
