"""Run one scenario, or the suite, and stream what happens to whoever listens.

Per scenario: the candidate's code is exported from the clean clone at the chosen commit
into a fresh folder, a gateway is started on a Unix socket in a fresh folder, the trusted
driver runs in the sandbox and calls ``chargeWithRetry``; at the end the whole process group
is killed, the gateway stopped, the folders removed. The verdict comes from the gateway.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from review import gitsafe
from review.core import jsondata
from review.core.text import clip, safe_line
from review.harness import process, sandbox, scenarios
from review.harness.cache import cached_suite, store_cached
from review.harness.coverage import MAX_REPORT, parse_reports, ran_lines
from review.harness.export import export_code
from review.harness.gateway import Gateway
from review.harness.process import capped_lines, kill_group
from review.harness.results import HarnessEvent, Listener, ScenarioResult, SuiteResult

__all__ = ["HarnessEvent", "Listener", "ScenarioResult", "SuiteResult", "cached_suite", "export_code", "run_scenario", "run_suite",
           "stream_suite"]

STREAM_CAP = 64 * 1024
LIMITS = process.Limits()  # per run: memory, processes, disk; past one, the verdict is resource-limit
ENTRY = "checkout.mjs"


KEY_SHOWN = 80  # a key is shown whole (the log pane scrolls sideways); a hostile one is cut, and says so


def short_key(key: str | None) -> str:
    if key is None:
        return "(no key)"
    shown = safe_line(key, KEY_SHOWN + 1).replace(" ", "\u2423")  # one token: the colour follows the key
    return shown if len(key) <= KEY_SHOWN else f"{shown[:KEY_SHOWN]}…(+{len(key) - KEY_SHOWN}chars)"


def _describe_request(record: dict) -> str:
    where = f"p{record['process']} call {record['call']}" if record.get("call") else f"p{record['process']}"
    status = record["status"]
    extra = []
    if record.get("charge_created"):
        extra.append(f"charge {record['charge_id']} created")
    if record.get("replayed"):
        extra.append(f"replayed {record.get('charge_id') or ''}".strip())
    if record.get("note"):
        extra.append(record["note"])
    return safe_line(f"#{record['seq']} {where} {record['method']} {record['path']} key={short_key(record['key'])}"
                     f" ({record['key_source']}) amount={record['amount']!r} → {status}"
                     + (f" · {', '.join(extra)}" if extra else ""), 400)


async def run_scenario(repo: gitsafe.SafeRepo, commit: str, scenario: scenarios.Scenario,
                       listener: Listener | None = None, info: sandbox.SandboxInfo | None = None,
                       coverage: bool = False) -> ScenarioResult:
    """With `coverage`, V8 records which lines ran (bubblewrap only; see sandbox.node_command)."""
    info = info or sandbox.detect()
    sandbox.require_runnable(info)  # before anything starts
    if coverage:
        sandbox.require_bwrap(info, sandbox.COVERAGE_NEEDS)  # before anything starts
    log: list[str] = []
    started = time.monotonic()

    def emit(kind: str, data: dict | None = None, text: str = "") -> None:
        t_ms = round((time.monotonic() - started) * 1000, 1)
        line = f"[{t_ms:8.1f} ms] {scenario.name}: {text}" if text else ""
        if line:
            log.append(line)
        if listener:
            listener(HarnessEvent(kind, scenario.name, t_ms, data or {}, line))

    emit("scenario-start", {"gateway_does": scenario.gateway_does},
         f"start — gateway: {scenario.gateway_does}; expect: {scenario.correct_client}")
    try:  # a full disk or a read-only cache is the machine's problem, said as such: never a traceback
        run_dir = Path(tempfile.mkdtemp(prefix=run_prefix("run"), dir=runs_root()))
        work, socket_dir = run_dir / "work", run_dir / "gw"
        work.mkdir()
        socket_dir.mkdir(mode=0o700)
        coverage_dir = run_dir / "cov" if coverage else None
        if coverage_dir is not None:
            coverage_dir.mkdir()
    except OSError as error:
        raise sandbox.SandboxError(f"cannot prepare the run folder in {runs_root()}: {error.strerror}") from None
    line_counts = None
    def on_gateway(kind: str, data: dict) -> None:
        if kind == "response":
            emit("response", data, _describe_request(data))

    gateway = Gateway(scenario.plan, on_gateway, calls_per_process=len(scenario.calls))
    facts = scenarios.Facts(requests=[], charges=0, outcomes=[])
    try:
        exported = export_code(repo, commit, work)
        if ENTRY not in exported:
            facts.entry_missing = f"{ENTRY} is not in commit {commit[:12]}" if repo.show(commit, ENTRY) is None \
                else f"{ENTRY} is not a regular file in commit {commit[:12]} (a symlink or too large)"
        else:
            await gateway.start(socket_dir / "gateway.sock")
            for process_no in range(1, scenario.processes + 1):
                gateway.process = process_no
                ending, stderr = await _run_process(info, work, socket_dir, scenario, process_no, gateway, emit,
                                                    coverage_dir)
                _collect_outcomes(facts, scenario, process_no, ending, stderr)
                for outcome in [o for o in facts.outcomes if o.process == process_no]:
                    detail = f": {clip(outcome.detail, 200)}" if outcome.detail else ""
                    emit("outcome", outcome.to_json(),
                         safe_line(f"p{process_no} call {outcome.call} {outcome.kind} (seen by the runner: "
                                   f"{ending.replace(':', ' ')}){detail}", 400))
            if coverage_dir is not None:
                line_counts = read_coverage(exported, coverage_dir)
                ran = {path: ran_lines(counts) for path, counts in line_counts.items()}
                emit("coverage", {"files": ran}, "coverage: " + (", ".join(
                    f"{safe_line(path, 80)} {lines} line(s) ran" for path, lines in ran.items()) or "nothing recorded"))
    finally:
        await gateway.stop()
        shutil.rmtree(run_dir, ignore_errors=True)
    charge_requests = gateway.charge_requests
    facts.requests, facts.charges = charge_requests, len(gateway.charges)
    facts.other_requests = len(gateway.requests) - len(charge_requests) + gateway.refused
    verdict, reasons = scenarios.judge(scenario, facts)
    if scenario.name == "first-503" and charge_requests:
        emit("summary", {}, scenarios.article_line(charge_requests))
    emit("scenario-done", {"verdict": verdict}, f"verdict {verdict} — {'; '.join(reasons)}")
    return ScenarioResult(
        name=scenario.name, requests=len(charge_requests), distinct_keys=len({r.key for r in charge_requests}),
        charges_created=len(gateway.charges), outcomes=[o.to_json() for o in facts.outcomes],
        gaps_ms=scenarios.gaps_ms(charge_requests), verdict=verdict, reasons=reasons, log=log,
        records=[r.to_json() for r in gateway.requests],
        wall_ms=round((time.monotonic() - started) * 1000, 1), coverage=line_counts,
    )


def read_coverage(exported: dict[str, bytes], folder: Path) -> dict[str, dict[int, int]]:
    """Line counts for the exported JavaScript, mapped onto the bytes exported from git (not onto the
    run's folder, which the candidate's code could have rewritten)."""
    sources = {path: data.decode("utf-8", "replace") for path, data in exported.items()
               if path.endswith((".mjs", ".js", ".cjs"))}
    reports = []
    for item in sorted(folder.glob("coverage-*.json"))[:500]:
        try:
            if item.is_file() and not item.is_symlink() and item.stat().st_size <= MAX_REPORT:
                reports.append(item.read_bytes())
        except OSError:
            continue
    return parse_reports(reports, sources, f"file://{sandbox.INSIDE_WORK}/")


def runs_root() -> Path:
    root = gitsafe.cache_root() / "runs"
    root.mkdir(exist_ok=True, mode=0o700)
    _sweep_stale_runs(root)
    return root


def run_prefix(kind: str) -> str:
    """Run folders carry the console's pid, so a later start can tell a dead console's leftovers."""
    return f"{kind}-{os.getpid()}-"


_swept: set[str] = set()


def _sweep_stale_runs(root: Path) -> None:
    """Once per process: remove run folders left by consoles that died (killed, an SSH drop) — never
    those of a console still running (two reviewers share the cache)."""
    if str(root) in _swept:
        return
    _swept.add(str(root))
    for entry in root.iterdir():
        parts = entry.name.split("-")
        if len(parts) < 3 or not parts[1].isdigit():
            continue
        try:
            os.kill(int(parts[1]), 0)
            continue  # alive (or not ours to signal): leave it
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except PermissionError:
            continue


async def _run_process(info: sandbox.SandboxInfo, work: Path, socket_dir: Path, scenario: scenarios.Scenario,
                       process_no: int, gateway: Gateway, emit,
                       coverage_dir: Path | None = None) -> tuple[str, list[str]]:
    """Run the driver once; returns (how it ended: exited:N | killed-for-restart | limit, stderr tail)."""
    entry, sock = sandbox.paths_for(info, work, socket_dir)
    extra = {"REVIEW_GATEWAY_SOCKET": sock, "REVIEW_ENTRY": entry,
             "REVIEW_CALLS": json.dumps(list(scenario.calls))}
    if coverage_dir is not None:
        extra["NODE_V8_COVERAGE"] = sandbox.INSIDE_COVERAGE
        extra["REVIEW_COVERAGE_AT_MS"] = str(int(scenario.limit_s * 1000) - 800)  # before the limit's kill
    env = sandbox.clean_env(info, work, extra)
    argv = sandbox.node_command(info, work, socket_dir, cpu_seconds=int(scenario.limit_s) + 2,
                                coverage_dir=coverage_dir)
    gateway.kill_requested.clear()
    proc = await asyncio.create_subprocess_exec(*argv, env=env, cwd=work, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                start_new_session=True)
    emit("process-start", {"process": process_no, "sandbox": info.kind},
         f"process {process_no} started ({info.kind} sandbox, node {info.node_version_text})")
    stderr_tail: list[str] = []
    written = [0]  # stdout and stderr bytes, for the output limit
    readers = [asyncio.create_task(_read_stream(proc.stdout, "stdout", process_no, emit, None, written)),
               asyncio.create_task(_read_stream(proc.stderr, "stderr", process_no, emit, stderr_tail, written))]
    exit_task = asyncio.create_task(proc.wait())
    watchdog = asyncio.create_task(process.watch_resources(proc.pid, work, LIMITS, output=written))
    waits = {exit_task, watchdog}
    kill_task = None
    if scenario.plan.first == "kill-after-charge" and process_no == 1:
        kill_task = asyncio.create_task(gateway.kill_requested.wait())
        waits.add(kill_task)
    try:
        done, _ = await asyncio.wait(waits, timeout=scenario.limit_s, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        # A cancelled run (the console quits, the reviewer presses escape): kill, reap, then give up.
        kill_group(proc.pid)
        for task in (*readers, kill_task, watchdog):
            if task is not None:
                task.cancel()
        try:
            await asyncio.wait_for(exit_task, timeout=2)
        except (TimeoutError, asyncio.CancelledError):
            pass
        # Close the pipes now, on this loop: left to the garbage collector they would be closed after the
        # loop is gone, with a traceback on the reviewer's terminal.
        transport = getattr(proc, "_transport", None)
        if transport is not None:
            transport.close()
        raise
    # Whatever ended the wait (the end, the limit, the restart, a resource cap), the whole group dies here.
    kill_group(proc.pid)
    if kill_task is not None:
        kill_task.cancel()
    watchdog.cancel()
    if watchdog in done and not watchdog.cancelled() and watchdog.exception() is None:
        ending = f"resource:{watchdog.result()}"
        emit("info", {"process": process_no}, f"[runner] process {process_no} killed: {watchdog.result()}")
    elif exit_task in done:
        ending = f"exited:{proc.returncode}"
    elif kill_task is not None and kill_task in done:
        ending = "killed-for-restart"
    else:
        ending = "limit"
    await proc.wait()
    try:
        await asyncio.wait_for(asyncio.gather(*readers), timeout=2)
    except TimeoutError:
        for reader in readers:
            reader.cancel()
    words = {"limit": f"killed at the {scenario.limit_s:g} s limit",
             "killed-for-restart": "killed (SIGKILL) as its first request arrived: the restart"}
    emit("process-end", {"process": process_no, "ending": ending},
         f"process {process_no} {words.get(ending, 'exited with code ' + ending.split(':')[-1])}")
    return ending, stderr_tail


async def _read_stream(stream: asyncio.StreamReader | None, name: str, process_no: int, emit,
                       tail: list[str] | None, written: list[int] | None = None) -> None:
    """Client output is shown (sanitised, capped, marked as the client's) but never believed."""
    async for text in capped_lines(stream, STREAM_CAP, notice_once=name == "stderr", counted=written):
        if text is None:
            emit(name, {"process": process_no}, f"client {name} (p{process_no}): … output cut at {STREAM_CAP} bytes")
            continue
        if tail is not None:
            tail.append(text)
            del tail[:-50]
        emit(name, {"process": process_no, "line": safe_line(text, 400)},
             safe_line(f"client {name} (p{process_no}): {text}", 400))


DRIVER_CLAIM = "[review-driver] "
EXIT_IMPORT_ERROR, EXIT_NO_ENTRY, EXIT_REJECTED = 3, 4, 64  # driver.mjs's exit codes
EXIT_UNSETTLED = 13  # Node's own: an unsettled top-level await (a promise left pending forever)


def driver_claims(lines: list[str]) -> list[dict]:
    """What the driver printed about the calls: details for the log, never the outcome itself (code in
    the candidate's process can print anything)."""
    claims = []
    for line in lines:
        if line.startswith(DRIVER_CLAIM):
            claim = jsondata.obj(jsondata.loads(line[len(DRIVER_CLAIM):], 8192))
            if claim:
                claims.append(claim)
    return claims


def _collect_outcomes(facts: scenarios.Facts, scenario: scenarios.Scenario, process_no: int, ending: str,
                      stderr: list[str]) -> None:
    """How each call of this process settled, from what the runner itself saw of the process: its exit
    code (the driver's protocol), the time limit, the restart's kill."""
    calls = len(scenario.calls)
    claims = driver_claims(stderr)
    said = {int(c["call"]): c for c in claims if c.get("kind") in ("resolved", "rejected")
            and isinstance(c.get("call"), int)}
    tail = safe_line("\n".join(line for line in stderr if not line.startswith(DRIVER_CLAIM))[-300:], 300)

    def add(call: int, kind: str, detail: str) -> None:
        facts.outcomes.append(scenarios.CallOutcome(process_no, call, kind, safe_line(detail, 300)))

    def detail(call: int) -> str:
        claim = said.get(call, {})
        return jsondata.text(claim.get("value")) or jsondata.text(claim.get("message"))

    if ending == "killed-for-restart":
        for call in range(1, calls + 1):
            add(call, "killed", "killed (SIGKILL) as its first request arrived: the restart")
        return
    if ending == "limit":
        # The process hung, so no exit code says which call did. The driver runs calls one after
        # another: a call it says settled *and* after which it started the next is shown as that
        # claim (never as resolved: the verdict stays hung); the last call started is the hung one.
        started = {int(c["call"]) for c in claims if c.get("kind") == "call-start" and isinstance(c.get("call"), int)}
        for call in range(1, calls + 1):
            if call in said and call + 1 in started and call < calls:
                add(call, f"claimed-{said[call]['kind']}", f"the process's own output says it {said[call]['kind']}"
                    f"{': ' + detail(call) if detail(call) else ''} (a claim: only its exit code would show it)")
            else:
                add(call, "hung", f"call {call} never settled; killed at the {scenario.limit_s:g} s limit")
        return
    if ending.startswith("resource:"):
        facts.resource_limit = ending.removeprefix("resource:")
        for call in range(1, calls + 1):
            add(call, "crashed", f"killed by the runner: {facts.resource_limit}")
        return
    code = int(ending.split(":")[1])
    if code == 0:
        for call in range(1, calls + 1):
            add(call, "resolved", detail(call))
    elif EXIT_REJECTED <= code < EXIT_REJECTED + (1 << calls):
        mask = code - EXIT_REJECTED
        for call in range(1, calls + 1):
            add(call, "rejected" if mask & (1 << (call - 1)) else "resolved", detail(call))
    elif code == EXIT_IMPORT_ERROR:
        message = next((jsondata.text(c.get("message")) for c in claims if c.get("kind") == "import-error"), tail)
        facts.crash = f"checkout.mjs failed to load: {message}"
    elif code == EXIT_NO_ENTRY:
        facts.entry_missing = "checkout.mjs does not export a function chargeWithRetry"
    elif code == EXIT_UNSETTLED:
        for call in range(1, calls + 1):
            add(call, "hung", "the call never settled (its promise was left pending with nothing to wait for)")
    else:
        if not any(c.get("kind") == "call-start" for c in claims):
            facts.crash = f"the process exited (code {code}) before calling chargeWithRetry" + (f": {tail}" if tail else "")
        for call in range(1, calls + 1):
            add(call, "crashed", f"exit code {code}" + (f": {tail}" if tail else ""))


async def run_suite(repo: gitsafe.SafeRepo, commit: str | None = None, names: list[str] | None = None,
                    listener: Listener | None = None, info: sandbox.SandboxInfo | None = None) -> SuiteResult:
    info = info or sandbox.detect()
    sandbox.require_runnable(info)
    commit = repo.resolve(commit or "HEAD")
    chosen = [scenarios.BY_NAME[n] for n in names] if names else list(scenarios.SCENARIOS)
    results = []
    for scenario in chosen:
        results.append(await run_scenario(repo, commit, scenario, listener, info))
    suite = SuiteResult(repo.source.name, commit, info.kind, info.node_version_text, results, info.fingerprint())
    if not names:
        store_cached(suite)
    return suite


async def stream_suite(repo: gitsafe.SafeRepo, commit: str | None = None, names: list[str] | None = None,
                       info: sandbox.SandboxInfo | None = None):
    """The suite as an async iterator of events, as they happen; the last is "suite-done" with the result."""
    queue: asyncio.Queue[HarnessEvent] = asyncio.Queue()
    task = asyncio.create_task(run_suite(repo, commit, names, queue.put_nowait, info))
    try:
        while not (task.done() and queue.empty()):
            getter = asyncio.create_task(queue.get())
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield getter.result()
            else:
                getter.cancel()
        suite = task.result()
        yield HarnessEvent("suite-done", "", 0.0, {"result": suite}, f"suite done: {suite.summary}")
    finally:
        if not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
