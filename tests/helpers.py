"""One place for what tests build and wait for: repositories (plain git, for hostile shapes the
product's builder would refuse; the trusted builder, for candidates' code), the processes a test
started, and Pilot waits. Tests import from here; conftest.py holds only fixtures."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from review import gitsafe
from review.harness import cache, sandbox
from review.services import samples
from review.tui.screens.submission.screen import SubmissionScreen


def posted(app) -> list:
    """Every notification the app posted, faded or not (kept by conftest's notifications_kept)."""
    return list(getattr(app._notifications, "posted", []))


def git(*args: str, cwd: Path, env: dict | None = None, input_text: str | None = None) -> str:
    """Plain git, for tests that must build repositories the product's builder would refuse to."""
    full_env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": "2026-11-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-11-01T00:00:00Z",
    }
    full_env.update(env or {})
    return subprocess.run(
        ["git", *args], cwd=cwd, env=full_env, check=True, capture_output=True, text=True, input=input_text
    ).stdout


def make_repo(path: Path, files: dict[str, str], message: str = "initial") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "-b", "main", cwd=path)
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git("add", "-A", cwd=path)
    git("commit", "-q", "--cleanup=verbatim", "-F", "-", cwd=path, input_text=message)  # any length, as written
    return path


def submission(folder: Path, files: dict[str, str | bytes]) -> gitsafe.SafeRepo:
    data = {path: text.encode() if isinstance(text, str) else text for path, text in files.items()}
    samples.build_repo(
        folder, [samples.CommitSpec(data, "candidate code", "Cand", "c@example.com", "2026-11-01T10:00:00+00:00")]
    )
    return gitsafe.open_submission(folder)


def _own_descendants() -> list[int]:
    """Live processes below this test process. conftest makes it a child subreaper, so a process
    whose parent died (a leaked grandchild) is re-parented here rather than to init: it still counts."""
    from review.harness.process import live_processes

    children: dict[int, list[int]] = {}
    for pid, fields in live_processes():
        children.setdefault(int(fields[1]), []).append(pid)
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def leftover_processes(marker: str) -> list[str]:
    """Command lines of live processes this test process started (directly or not) that mention
    `marker`. Never the machine's other processes: an unrelated driver.mjs elsewhere is not ours."""
    found = []
    for pid in _own_descendants():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found


async def workers_done(app, pilot, timeout: float = 120.0) -> None:
    """Every worker started so far has ended. Not Textual's wait_for_complete: it raises when an
    exclusive worker was cancelled by a newer one, which is how the console works (and under load,
    when it happens)."""
    import time

    from textual.worker import WorkerState

    deadline = time.monotonic() + timeout
    while running := [w.name for w in app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)]:
        assert time.monotonic() < deadline, f"workers still running after {timeout} s: {running}"
        await pilot.pause(0.02)


async def settle(app, pilot):
    for _ in range(3):
        await pilot.pause()
        await workers_done(app, pilot)
    await pilot.pause()


async def open_filter(app, pilot, rows: int = 8):
    """The triage filter box, focused, once the table shows its `rows`: as `/` opens it for a reviewer."""
    from textual.widgets import Input

    await wait_until(pilot, lambda: app.screen.table.row_count == rows)
    await pilot.press("slash")
    await wait_until(pilot, lambda: isinstance(app.focused, Input))
    return app.focused


async def open_submission(app, pilot, name):
    await settle(app, pilot)
    screen = app.screen
    screen.table.move_cursor(row=screen.table.get_row_index(name))
    await pilot.press("enter")
    await settle(app, pilot)
    assert isinstance(app.screen, SubmissionScreen)
    # Its panes off screen are mounted after its first frame; until then only escape answers.
    await wait_until(pilot, lambda: app.screen.panes_ready, timeout=30)
    return app.screen


async def leftovers_after(marker: str, timeout: float = 30.0) -> list[str]:
    """What is still alive of what this test started, once it has had `timeout` seconds to die: an
    empty list as soon as nothing is left (a killed process takes a moment to go)."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout
    while (found := leftover_processes(marker)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return found


async def wait_until(pilot, predicate, timeout: float = 90.0) -> None:
    """Pilot pauses until `predicate()` holds (a failed assertion past `timeout` seconds). A predicate
    that reads a file or a key not there yet (LookupError, OSError) is "not yet"; past the deadline
    that error is raised."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            if predicate():
                return
        except (LookupError, OSError):
            if time.monotonic() >= deadline:
                raise
        else:
            assert time.monotonic() < deadline, "timed out waiting"
        await pilot.pause(0.05)


def type_in_one_burst(app, text: str) -> None:
    """Keys as a terminal over SSH or a browser tab sends them: all read at once, every one queued
    before the first is handled (Pilot's press waits for the app after each key)."""
    from textual import events

    names = {"/": "slash", ":": "colon", " ": "space", ">": "greater_than_sign"}
    for char in text:
        event = events.Key(names.get(char, char), char)
        event.set_sender(app)
        app._driver.send_message(event)


FIXTURES = Path(__file__).resolve().parent / "fixtures"
BEN_HEAD = "787629649341b644a3fb1b7d302646b50bd4f35d"  # ben-larsen's HEAD in the sample cohort (deterministic)


def seed_ben_suite() -> None:
    """A real suite run of ben-larsen's HEAD, recorded once (fixtures/), in the harness cache: what the
    stub log shows is fixed, timings included."""
    data = json.loads((FIXTURES / "suite-ben-larsen-head.json").read_text())
    assert data["commit"] == BEN_HEAD
    # Cached per sandbox kind: filed under this machine's, shown as recorded (a bubblewrap run).
    cache.write_json_atomic(cache._cache_file(BEN_HEAD, sandbox.detect().kind), data)


def seal_file(path: Path) -> Path:
    """Seal every entry of a hand-written score file with this console's key, as a save would (a
    file left unsealed is what a candidate could plant)."""
    import tomllib

    import tomli_w

    from review.services import seal

    secret = seal.key(create=True)
    assert secret is not None
    data = tomllib.loads(path.read_text())
    data["reviews"] = [{**entry, "seal": seal.sign(entry, secret)} for entry in data.get("reviews", [])]
    path.write_text(tomli_w.dumps(data))
    return path


class Served:
    """`review serve COHORT --port 0 OPTIONS` started by a test, in a session of its own (so a signal
    the test sends reaches it alone): the URL it printed, and what it started."""

    def __init__(self, cohort: Path, *options: str) -> None:
        import sys

        self.process = subprocess.Popen(
            [sys.executable, "-m", "review", "serve", str(cohort), "--port", "0", *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.url = self._first_line()
        self.base = self.url.rsplit("/", 2)[0]  # http://127.0.0.1:PORT, without the token

    def _first_line(self, timeout: float = 30.0) -> str:
        import select

        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline().strip() if ready else ""
        if not line.startswith("http://"):
            self.process.kill()
            raise AssertionError(f"review serve printed no URL: {line!r}; stderr: {self.process.communicate()[1]}")
        return line

    def consoles(self) -> list[str]:
        """The console processes it runs now (one per open tab): its own children only, since a console's
        child is named like it between its fork and its exec."""
        from review.harness.process import live_processes

        mine = {str(pid) for pid, fields in live_processes() if fields[1] == str(self.process.pid)}
        return [line for line in leftover_processes("-m review open") if line.split(":", 1)[0] in mine]

    def stop(self, timeout: float = 30.0) -> tuple[int, str]:
        """Ctrl-C, as the reviewer who started it would type it: its exit code and what it said."""
        import signal

        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            _, err = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
            raise AssertionError(f"review serve did not stop within {timeout} s of Ctrl-C: {err}") from None
        return self.process.returncode, err


def commit_as(
    repo: Path,
    message: str,
    files: dict[str, str] | None = None,
    author: tuple[str, str] = ("Pat Doe", "pat@example.com"),
    committer: tuple[str, str] | None = None,
) -> str:
    """One commit of `files` (written as given), by `author` and `committer` (default: the author),
    with the message exactly as written; its id."""
    for name, text in (files or {}).items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    committer = committer or author
    git("add", "-A", cwd=repo)
    git(
        "commit",
        "-q",
        "--allow-empty",
        "--cleanup=verbatim",
        "-F",
        "-",
        cwd=repo,
        input_text=message,
        env={
            "GIT_AUTHOR_NAME": author[0],
            "GIT_AUTHOR_EMAIL": author[1],
            "GIT_COMMITTER_NAME": committer[0],
            "GIT_COMMITTER_EMAIL": committer[1],
        },
    )
    return git("rev-parse", "HEAD", cwd=repo).strip()


STARTER = {"README.md": "# Task\nImplement chargeWithRetry in checkout.mjs.\n", "checkout.mjs": "// starter\n"}


def attribution_cohort(cohort: Path) -> Path:
    """Submissions whose authorship only each tool's own rules tell apart (real repositories):
    `monkey`  Assisted-by: MonkeyCode, and a note whose disclosure names it: its line is AI
    `sentence` "Claude Code wrote checkout.mjs." as the note's line 2, over Co-authored-by: Claude
    `aider`   a commit aider only committed (the person's edits), then one aider wrote
    `legacy`  git-ai legacy authorship listing the maintainer (full and first name) beside Claude and o3
    `readme`  no note, and a README listing supported editors as links
    `curl`    Assisted-by naming people, as curl uses it"""
    monkey = make_repo(cohort / "monkey", STARTER, "starter")
    commit_as(
        monkey,
        "Add the client\n\nAssisted-by: MonkeyCode\n",
        {"checkout.mjs": "export async function chargeWithRetry(amount) {}\n// starter\n"},
    )
    commit_as(
        monkey, "Add the note\n", {"NOTE.md": "# Note\n\n## AI disclosure\nMonkeyCode wrote checkout.mjs lines 1-1.\n"}
    )

    sentence = make_repo(cohort / "sentence", STARTER, "starter")
    commit_as(
        sentence,
        "Add the client\n\nCo-authored-by: Claude\n",
        {"checkout.mjs": "export async function chargeWithRetry(amount) {\n  return amount;\n}\n"},
    )
    commit_as(sentence, "Add the note\n", {"NOTE.md": "# Note\nClaude Code wrote checkout.mjs.\nI checked it.\n"})

    aider = make_repo(cohort / "aider", STARTER, "starter")
    commit_as(
        aider,
        "Commit the edits I made by hand\n",
        {"checkout.mjs": "export const mine = 1;\n"},
        author=("Ann Lee", "ann@example.com"),
        committer=("Ann Lee (aider)", "ann@example.com"),
    )
    commit_as(
        aider,
        "Add the retry loop\n",
        {"checkout.mjs": "export const mine = 1;\nexport const aiders = 2;\n"},
        author=("Ann Lee (aider)", "ann@example.com"),
        committer=("Ann Lee (aider)", "ann@example.com"),
    )
    commit_as(
        aider,
        "Add the note\n",
        {"NOTE.md": "# Note\n\n## AI use\nI used aider for line 2 of checkout.mjs.\n"},
        author=("Ann Lee", "ann@example.com"),
    )

    legacy = make_repo(cohort / "legacy", STARTER, "starter")
    noted = commit_as(
        legacy,
        "Add the client\n",
        {"checkout.mjs": "".join(f"export const line{n} = {n};\n" for n in range(1, 7))},
        author=("Jane Maintainer", "jane@example.org"),
    )
    record = {
        "files": {
            "checkout.mjs": {
                "file": "checkout.mjs",
                "authors": [
                    {"author": "Jane Maintainer", "lines": [1], "agent_metadata": None},
                    {"author": "Claude", "lines": [[2, 3]], "agent_metadata": None},
                    {"author": "o3", "lines": [4], "agent_metadata": None},
                    {"author": "Jane", "lines": [5], "agent_metadata": None},
                ],
            }
        },
        "schema_version": "authorship/0.0.1",
    }
    blob = git("hash-object", "-w", "--stdin", cwd=legacy, input_text=json.dumps(record)).strip()
    git("update-ref", f"refs/ai/authorship/{noted}", blob, cwd=legacy)
    commit_as(
        legacy,
        "Add the note\n",
        {"NOTE.md": "# Note\n\n## AI use\nClaude and o3 wrote parts; git-ai recorded which.\n"},
        author=("Jane Maintainer", "jane@example.org"),
    )

    readme = make_repo(cohort / "readme", STARTER, "starter")
    commit_as(
        readme,
        "Solve it and document the editors\n",
        {
            "checkout.mjs": "export async function chargeWithRetry(amount) {}\n",
            "README.md": "# Task\n\n## AI authorship in your editor\n\n"
            "- [Windsurf](https://marketplace.windsurf.com/ext)\n- [Cursor](https://cursor.com/ext)\n\n"
            'Works with Claude Code and GitHub Copilot too: it shows which lines were "generated by '
            'Copilot".\n',
        },
    )

    curl = make_repo(cohort / "curl", STARTER, "starter")
    commit_as(
        curl,
        "Retry on 503\n\nAssisted-by: Jay Satiro\nAssisted-by: Jane Doe <jane@example.org>\n",
        {"checkout.mjs": "export async function chargeWithRetry(amount) {}\n"},
    )
    return cohort


BACKOFF = (
    "export function backoff(attempt) {\n"
    "  const base = 100 * 2 ** attempt;\n"
    "  const jitter = Math.random() * 50;\n"
    "  return Math.min(base + jitter, 2000);\n"
    "}\n"
)
PARSE_AMOUNT = (
    "export function parseAmount(text) {\n"
    "  const value = Number.parseFloat(text);\n"
    "  if (Number.isNaN(value)) throw new Error(`not an amount: ${text}`);\n"
    "  return Math.round(value * 100);\n"
    "}\n"
)


def reading_submission(cohort: Path, name: str = "reader") -> Path:
    """A submission with what a reviewer reads past in a real diff, each in the one commit after the
    starter (a Claude trailer on it): `backoff.mjs` reformatted (two-space to four-space indents,
    nothing else), one word changed in `checkout.mjs` (`maxAttempts` → `maxRetries` on one line),
    `parseAmount` moved from `util.mjs` to `money.mjs`, and `gateway.mjs` renamed `client.mjs`."""
    checkout = (
        "import { backoff } from './backoff.mjs';\n\n"
        "export async function chargeWithRetry(amount) {\n"
        "  const limit = 3;\n"
        "  for (let attempt = 0; attempt < limit; attempt++) {\n"
        "    const response = await send(amount, { maxAttempts: limit });\n"
        "    if (response.ok) return response;\n"
        "    await sleep(backoff(attempt));\n"
        "  }\n"
        "  throw new Error('gave up');\n"
        "}\n"
    )
    util = "export const currency = 'EUR';\n\n" + PARSE_AMOUNT + "\nexport const cents = (n) => n * 100;\n"
    gateway = "".join(f"export const endpoint{n} = '/charge/{n}';\n" for n in range(6))
    repo = make_repo(
        cohort / name,
        {
            "README.md": "# Task\n",
            "checkout.mjs": checkout,
            "backoff.mjs": BACKOFF,
            "util.mjs": util,
            "gateway.mjs": gateway,
        },
        "starter",
    )
    (repo / "gateway.mjs").rename(repo / "client.mjs")
    commit_as(
        repo,
        "Tidy the client\n\nCo-authored-by: Claude <noreply@anthropic.com>\n",
        {
            "backoff.mjs": BACKOFF.replace("\n  ", "\n    "),
            "checkout.mjs": checkout.replace("{ maxAttempts: limit }", "{ maxRetries: limit }"),
            "util.mjs": "export const currency = 'EUR';\n\nexport const cents = (n) => n * 100;\n",
            "money.mjs": "export const rounding = 'half-up';\n\n" + PARSE_AMOUNT,
        },
    )
    return repo


def screen_text(app) -> list[str]:
    """The screen as a reader sees it: its rows of text, from the app's own screenshot."""
    import html
    import re
    from collections import defaultdict

    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = defaultdict(list)
    for found in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows[float(found.group(2))].append((float(found.group(1)), html.unescape(found.group(3))))
    # Each text run starts at its column: 12.2 units a cell in Textual's screenshots.
    lines = []
    for y in sorted(rows):
        line = ""
        for x, text in sorted(rows[y]):
            line = line.ljust(round(x / 12.2)) + text
        lines.append(line.replace("\xa0", " ").rstrip())
    return lines
