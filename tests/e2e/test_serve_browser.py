"""`review serve` in a real browser: Debian's Chromium driven by Playwright, as the partner without a
terminal uses it. The terminal draws on canvases (no text in the DOM), so each tab's screen is read
from what the browser was sent over its websocket, drawn on a terminal of the tab's size (pyte), and
the rest from screenshots, the pages around the console (which are HTML) and the files on disk."""

from __future__ import annotations

import json
import shutil
import time
import tomllib
import zlib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyte
import pytest

from helpers import Served, leftover_processes, submission

CHROMIUM = "/usr/bin/chromium"
# A closed network: nothing in the background, no QUIC, no updates; a fresh profile per test.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1000, "height": 620}


@pytest.fixture
def browser(tmp_path):
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as playwright:
        try:
            context = playwright.chromium.launch_persistent_context(
                tmp_path / "chromium-profile",
                executable_path=CHROMIUM,
                args=CHROMIUM_ARGS,
                headless=True,
                viewport=VIEWPORT,
            )
        except Error as error:
            pytest.skip(f"Chromium cannot start here ({CHROMIUM}): {error.message.splitlines()[0]}")
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def served(sample_cohort):
    started: list[Served] = []

    def start(*options: str, cohort: Path = sample_cohort) -> Served:
        server = Served(cohort, *options)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


class Tab:
    """A browser tab on the server, and the screen its terminal was sent to draw."""

    def __init__(self, browser, url: str) -> None:
        self.browser = browser
        self.page = browser.new_page()
        self.screen: pyte.Screen | None = None
        self.page.on("websocket", self._connected)
        self.response = self.page.goto(url)

    def _connected(self, socket) -> None:
        size = parse_qs(urlsplit(socket.url).query)
        self.screen = pyte.Screen(int(size["width"][0]), int(size["height"][0]))
        stream = pyte.ByteStream(self.screen)
        socket.on("framereceived", lambda payload: stream.feed(payload) if isinstance(payload, bytes) else None)
        socket.on("framesent", self._sent)

    def _sent(self, payload) -> None:
        message = json.loads(payload) if isinstance(payload, str) else None
        if message and message[0] == "resize" and self.screen is not None:
            self.screen.resize(message[1]["height"], message[1]["width"])

    def shown(self) -> str:
        return "\n".join(self.screen.display) if self.screen else ""

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        for _ in range(int(timeout * 20)):
            if text in self.shown():
                return self.shown()
            self.page.wait_for_timeout(50)
        raise AssertionError(f"{text!r} never appeared; the tab showed:\n{self.shown()}")

    def wait_until(self, holds, what: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not holds():
            assert time.monotonic() < deadline, f"{what} never came; the tab showed:\n{self.shown()}"
            self.page.wait_for_timeout(50)

    def keys(self, *keys: str) -> None:
        """Unpaced: the console reads them in order. A test waits for the state a key leads to before
        the next key needs it, and never sends a key right after Escape (read as alt+key)."""
        # Focus without a click on the table (which would move its cursor): the title line.
        self.page.click("#terminal", position={"x": 4, "y": 4})
        for key in keys:
            self.page.keyboard.press(key)

    def cell_at(self, text: str) -> tuple[float, float]:
        """Where on the page the first character of `text` is drawn (the middle of its cell)."""
        assert self.screen is not None
        row = next(i for i, line in enumerate(self.screen.display) if text in line)
        column = self.screen.display[row].index(text)
        box = self.page.locator(".xterm-screen").bounding_box()
        assert box is not None
        width, height = box["width"] / self.screen.columns, box["height"] / self.screen.lines
        return box["x"] + (column + 0.5) * width, box["y"] + (row + 0.5) * height

    def row(self, name: str) -> str:
        return next(line for line in self.screen.display if line.lstrip().startswith(name)) if self.screen else ""


def review_in(cohort: Path, name: str) -> dict:
    return tomllib.loads((cohort / f"{name}.review.toml").read_text())["reviews"][0]


def test_a_reviewer_names_herself_and_grades_a_submission_end_to_end(browser, served, sample_cohort, tmp_path):
    server = served("--no-harness")
    tab = Tab(browser, server.url)
    # The page asks who is reviewing (HTML: the one place with text in the DOM).
    assert tab.response.status == 200
    tab.page.fill("input[name=reviewer]", "ana")
    tab.page.click("button[type=submit]")
    tab.wait_for("8 for ana to score")
    tab.wait_for("assistants: Claude Code")  # the rows are read
    tab.page.wait_for_selector("body.-first-byte")
    tab.page.screenshot(path=tmp_path / "triage.png")
    assert len(set((tmp_path / "triage.png").read_bytes())) > 200  # a drawn table, not an empty page
    assert len(server.consoles()) == 1 and "--reviewer=ana" in server.consoles()[0]
    tab.keys("ArrowDown", "ArrowDown", "Enter")
    tab.wait_for("whole submission (starter → HEAD)")
    assert tab.shown().splitlines()[0].lstrip().startswith("chen-wei")
    tab.keys("4")
    tab.wait_for("Found the defect: not scored yet")
    tab.keys("s", "Control+s")
    tab.wait_for("saved draft")
    review = review_in(sample_cohort, "chen-wei")
    assert review["reviewers"] == ["ana"] and review["state"] == "draft"
    assert review["tiers"] == {"found-defect": "strong"}


def test_a_second_tab_as_another_reviewer_sees_the_first_ones_save(browser, served, sample_cohort):
    server = served("--no-harness")
    bob = Tab(browser, server.url + "?reviewer=bob")
    bob.wait_for("8 for bob to score")
    assert "ana" not in bob.row("chen-wei")
    ana = Tab(browser, server.url + "?reviewer=ana")
    ana.wait_for("8 for ana to score")
    assert len(server.consoles()) == 2
    ana.keys("ArrowDown", "ArrowDown", "Enter")
    ana.wait_for("whole submission (starter → HEAD)")
    ana.keys("4")
    ana.wait_for("Found the defect: not scored yet")
    ana.keys("w", "Control+s")
    ana.wait_for("saved draft")
    # Bob's console, in its own tab and process, reads the file ana's saved.
    bob.wait_until(lambda: "ana in review" in bob.row("chen-wei"), "ana's draft in bob's row")
    assert review_in(sample_cohort, "chen-wei")["reviewers"] == ["ana"]


def test_a_request_without_the_token_is_refused_in_the_browser(browser, served):
    server = served("--no-harness")
    tab = Tab(browser, server.base + "/")
    assert tab.response.status == 403
    assert "needs the token that `review serve` printed" in tab.page.inner_text("body")
    assert tab.screen is None and server.consoles() == []


def test_a_tab_over_the_limit_gets_a_page_that_says_why(browser, served):
    server = served("--no-harness", "--max-sessions", "1")
    first = Tab(browser, server.url + "?reviewer=ana")
    first.wait_for("8 for ana to score")
    second = Tab(browser, server.url + "?reviewer=bob")
    assert second.response.status == 503
    said = second.page.inner_text("main")
    assert "All 1 consoles this server allows are open" in said and "close its tab, then reload" in said
    assert second.screen is None and len(server.consoles()) == 1
    # The first tab still answers.
    first.keys("?")
    first.wait_for("Keys — Triage")


def test_quitting_in_a_tab_or_closing_it_ends_its_console(browser, served):
    server = served("--no-harness")
    quitting = Tab(browser, server.url + "?reviewer=ana")
    closing = Tab(browser, server.url + "?reviewer=bob")
    quitting.wait_for("8 for ana to score")
    closing.wait_for("8 for bob to score")
    assert len(server.consoles()) == 2
    quitting.keys("q")
    quitting.page.wait_for_selector("body.-closed")
    assert "This console has ended" in quitting.page.inner_text(".closed-dialog")
    closing.page.close()
    for _ in range(300):
        if not server.consoles():
            break
        quitting.page.wait_for_timeout(50)
    assert server.consoles() == []


def test_the_theme_the_palette_and_the_keys_work_in_the_tab(browser, served):
    server = served("--no-harness", "--theme", "review-light", "--reviewer", "ana")
    tab = Tab(browser, server.url)
    tab.wait_for("8 for ana to score")
    tab.page.wait_for_selector("body.-first-byte")
    # Below the rows, the table's background: review-light's, not the page's dark one (once painted).
    tab.wait_until(lambda: min(_pixel(tab.page, 500, 400)) > 200, "review-light's background")
    tab.keys("Control+p")
    tab.wait_for("Search for commands")
    tab.keys("Escape")
    tab.wait_until(lambda: "Search for commands" not in tab.shown(), "the palette closed")
    tab.keys("?")
    tab.wait_for("triage.next-unscored")
    tab.keys("Escape")
    tab.wait_until(lambda: "triage.next-unscored" not in tab.shown(), "the help closed")
    tab.keys("/")
    tab.page.keyboard.type("state:draft")
    tab.wait_for("state:draft")


def _pixel(page, x: int, y: int) -> tuple[int, ...]:
    """The colour the page shows at (x, y): a one-pixel screenshot, its PNG read here (one row of
    one pixel: whatever its filter, the bytes after the filter byte are the colour)."""
    png = page.screenshot(clip={"x": x, "y": y, "width": 1, "height": 1})
    data, at = b"", 8
    while at < len(png):
        length = int.from_bytes(png[at : at + 4], "big")
        if png[at + 4 : at + 8] == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    assert png[24] == 8 and png[25] in (2, 6)  # 8 bits, RGB or RGBA
    return tuple(zlib.decompress(data)[1:4])


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_stub_log_streams_live_in_the_tab(browser, served):
    server = served("--no-harness", "--reviewer", "ana")
    tab = Tab(browser, server.url)
    tab.wait_for("8 for ana to score")
    tab.keys("ArrowDown", "ArrowDown", "Enter")
    tab.wait_for("whole submission (starter → HEAD)")
    tab.keys("5")
    tab.wait_for("r runs the suite on HEAD")
    tab.keys("r")
    # Requests are on screen while the suite is still running, then the suite ends.
    live = False
    for _ in range(1200):
        shown = tab.shown()
        if "POST /charge" in shown and "▶ suite on HEAD" in shown:
            live = True
        if "done in" in shown:
            break
        tab.page.wait_for_timeout(50)
    assert live, tab.shown()
    tab.wait_for("done in", timeout=120)
    assert leftover_processes("driver.mjs") == []


def test_submission_text_stays_text_in_the_tab(browser, served, sample_cohort):
    note = (
        "# Note\n\nMarkup stays text: [@click=app.quit]press here[/] and [b]bold[/b].\n"
        "A link stays text: https://example.invalid/leak?review=1\n"
    )
    submission(
        sample_cohort / "aaa-hostile", {"checkout.mjs": "export async function chargeWithRetry() {}\n", "NOTE.md": note}
    )
    server = served("--no-harness", "--reviewer", "ana")
    tab = Tab(browser, server.url)
    tab.wait_for("9 for ana to score")
    tab.keys("Enter")
    # The submission screen (the name is in the triage table already).
    tab.wait_for("whole submission (starter → HEAD)")
    tab.keys("2")
    # The note pane itself (the diff shows the same lines, cut at its width).
    tab.wait_for("NOTE.md at HEAD")
    shown = tab.wait_for("https://example.invalid/leak")
    assert "[@click=app.quit]press here[/]" in shown and "[b]bold[/b]" in shown
    # A click on the link, and on the markup, acts on nothing: no page opens, the console stays.
    opened: list = []
    browser.on("page", lambda page: opened.append(page.url))
    for text in ("https://example.invalid/leak", "press here"):
        x, y = tab.cell_at(text)
        tab.page.mouse.move(x, y)
        tab.page.wait_for_timeout(300)
        tab.page.mouse.click(x, y)
        tab.page.wait_for_timeout(700)
    assert opened == []
    assert len(server.consoles()) == 1
    tab.keys("1")
    tab.wait_for("whole submission")


def test_in_a_tab_the_help_names_the_keys_the_browser_keeps_and_the_second_key_works(browser, served, sample_cohort):
    """A headed browser keeps ctrl+n (a new window) whatever the page asks: the help of a console in a
    tab says so and names ctrl+g, which saves and opens the next submission as ctrl+n does."""
    server = served("--no-harness", "--reviewer", "ana")
    tab = Tab(browser, server.url)
    tab.wait_for("assistants: Claude Code")
    tab.keys("ArrowDown", "ArrowDown", "Enter")
    tab.wait_for("whole submission (starter → HEAD)")
    tab.keys("?")

    def said() -> str:
        return " ".join(tab.shown().replace("│", " ").split())

    tab.wait_until(lambda: "^n (Save & next): the browser keeps it" in said(), "the browser's keys in the help")
    assert "^g does it here" in said()
    tab.keys("Escape")
    tab.wait_until(lambda: "the browser keeps it" not in said(), "the help closed")
    tab.keys("4", "s", "Control+g")
    tab.wait_until(lambda: (sample_cohort / "chen-wei.review.toml").exists(), "chen-wei saved")
    assert review_in(sample_cohort, "chen-wei")["tiers"] == {"found-defect": "strong"}
