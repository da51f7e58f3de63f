"""The candidate's own tests, run at one commit inside bubblewrap: red or green.

"Found it because a test went red" scores higher than "found it by reading the diff"; a test
that fails at one commit and passes at a later one is that story, visible. The tests are the
candidate's code like any other: exported from git objects into a fresh folder, run with no
network but their own loopback, killed as a process group at the end. The exit code says red or
green; the output is shown (sanitised) but a summary read from it is only a summary.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

from review import gitsafe
from review.core import jsondata
from review.core.text import safe_line
from review.harness import cache, driver_run, export, process, run_dirs, sandbox
from review.support import trees

TESTS_VERSION = "2"
TIMEOUT_S = 30.0
OUTPUT_CAP = 64 * 1024
KEPT_LINES = 80
# `node --test` with no arguments looks for these (Node 20's documented defaults); we list the
# files ourselves so "no tests" is known before anything runs.
_TEST_FILE = re.compile(r"(^|/)(test|test-[^/]*|[^/]*[.\-_]test)\.[cm]?js$|(^|/)test/.*\.[cm]?js$")
NPM_PLACEHOLDER = 'echo "Error: no test specified" && exit 1'


def find_test_files(paths: list[str]) -> list[str]:
    return sorted(p for p in paths if _TEST_FILE.search(p) and "node_modules" not in PurePosixPath(p).parts)


def package_test_script(package_json: bytes | None) -> str | None:
    """package.json's `test` script, unless it is npm's placeholder."""
    if not package_json:
        return None
    scripts = jsondata.obj(jsondata.obj(jsondata.loads(package_json)).get("scripts"))
    script = scripts.get("test")
    if not isinstance(script, str) or not script.strip() or script.strip() == NPM_PLACEHOLDER:
        return None
    return script


def command_for(paths: list[str], package_json: bytes | None) -> tuple[list[str], str] | None:
    """(argv inside the sandbox, how to show it), or None when the commit has no tests."""
    script = package_test_script(package_json)
    if script is not None:
        return ["/bin/sh", "-c", script], f"npm test script: {script}"
    files = find_test_files(paths)
    if files:
        return ["node", "--test", *files], "node --test " + " ".join(files)
    return None


_TAP_COUNT = re.compile(r"^# (tests|pass|fail|cancelled|todo|skipped) (\d+)$")


def tap_counts(lines: list[str]) -> dict[str, int]:
    """The TAP summary node --test prints (`# tests 1`, `# pass 0`, …): only a summary, the exit code
    decides."""
    return {m.group(1): int(m.group(2)) for line in lines for m in [_TAP_COUNT.match(line.strip())] if m}


def summarise(counts: dict[str, int]) -> str:
    return " · ".join(f"{name} {counts[name]}" for name in ("tests", "pass", "fail", "cancelled") if name in counts)


@dataclass
class TestRun:
    # Not a pytest class.
    __test__ = False

    commit: str
    # Red | green | none | hung | limit (past a resource cap) | unavailable.
    state: str
    command: str = ""
    exit_code: int | None = None
    summary: str = ""
    # sanitised, the last KEPT_LINES.
    output: list[str] = field(default_factory=list)
    wall_ms: float = 0.0
    reason: str = ""
    # From the TAP summary: tests, pass, fail, …
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def colour(self) -> str:
        """For the evidence and the timeline: a hung test run failed as surely as a red one."""
        return {"green": "green", "red": "red", "hung": "red", "limit": "red"}.get(self.state, "none")

    def to_json(self) -> dict:
        return asdict(self)


async def run_tests(
    repo: gitsafe.SafeRepo,
    commit: str,
    info: sandbox.SandboxInfo | None = None,
    timeout_s: float = TIMEOUT_S,
    use_cache: bool = True,
) -> TestRun:
    commit = repo.resolve(commit)
    if use_cache:
        cached = cached_tests(commit)
        if cached is not None:
            return cached
    started = time.monotonic()
    entries = repo.files(commit)
    paths = [e.path for e in entries if e.kind == "blob"]
    chosen = command_for(paths, repo.show(commit, "package.json", limit=256 * 1024))
    if chosen is None:
        result = TestRun(commit, "none", reason="no test files (node --test's patterns) and no test script")
        _store(result)
        return result
    argv_inside, shown = chosen
    try:
        info = info or sandbox.detect()
        sandbox.require_bwrap(info, sandbox.TESTS_NEED)
    except sandbox.SandboxError as error:
        return TestRun(commit, "unavailable", safe_line(shown, 300), reason=str(error))
    run_dir = Path(tempfile.mkdtemp(prefix=run_dirs.run_prefix("tests"), dir=run_dirs.runs_root()))
    try:
        work = run_dir / "work"
        work.mkdir()
        export.export_code(repo, commit, work, skipped=frozenset())
        argv = sandbox.tests_command(info, work, run_dir / "etc", argv_inside, cpu_seconds=int(timeout_s) + 5)
        lines, hung, limit, code = await _supervised(info, work, argv, timeout_s)
    finally:
        trees.remove(run_dir)
    wall = round((time.monotonic() - started) * 1000, 1)
    state = "hung" if hung else "limit" if limit else ("green" if code == 0 else "red")
    reason = (
        f"killed after {timeout_s:g} s" if hung else f"killed by the runner: {limit}" if limit else f"exit code {code}"
    )
    counts = tap_counts(lines)
    result = TestRun(
        commit, state, safe_line(shown, 300), code, summarise(counts), lines[-KEPT_LINES:], wall, reason, counts
    )
    _store(result)
    return result


async def _supervised(
    info: sandbox.SandboxInfo, work: Path, argv: list[str], timeout_s: float
) -> tuple[list[str], bool, str | None, int | None]:
    """The tests' process in the sandbox until it ends, hangs past `timeout_s` or passes a cap: (its
    output, hung, the cap it passed, its exit code when it exited of itself)."""
    env = sandbox.clean_env(info, work, {"NODE_ENV": "test", "CI": "1", "NO_COLOR": "1"})
    proc = await asyncio.create_subprocess_exec(
        *argv,
        env=env,
        cwd=work,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    lines: list[str] = []
    written = [0]
    reader = asyncio.create_task(_read(proc.stdout, lines, written))
    # The same caps as a scenario run (memory, processes, disk, output), measured by the runner.
    watchdog = asyncio.create_task(process.watch_resources(proc.pid, work, driver_run.LIMITS, output=written))
    ended = asyncio.create_task(proc.wait())
    try:
        done, _ = await asyncio.wait({ended, watchdog}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        # The tests' own servers and children too.
        process.kill_group(proc.pid)
        watchdog.cancel()
    limit = watchdog.result() if watchdog in done and ended not in done else None
    hung = not done
    await proc.wait()
    try:
        await asyncio.wait_for(reader, timeout=2)
    except TimeoutError:
        reader.cancel()
    return lines, hung, limit, None if hung or limit else proc.returncode


async def _read(stream: asyncio.StreamReader | None, lines: list[str], written: list[int]) -> None:
    async for text in process.capped_lines(stream, OUTPUT_CAP, notice_once=True, counted=written):
        lines.append(f"… output cut at {OUTPUT_CAP} bytes" if text is None else safe_line(text, 400))


# ----------------------------------------------------------------------------- per-commit cache


def _cache_file(commit: str) -> Path:
    return gitsafe.cache_root() / "harness" / f"{commit}-tests-v{TESTS_VERSION}.json"


def _store(result: TestRun) -> None:
    # Installing bubblewrap later must not meet a stale answer.
    if result.state == "unavailable":
        return
    cache.write_json_atomic(_cache_file(result.commit), result.to_json())


def cached_tests(commit: str) -> TestRun | None:
    try:
        return TestRun(**json.loads(_cache_file(commit).read_text()))
    except (OSError, ValueError, TypeError):
        return None
