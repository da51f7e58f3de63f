"""Hostile candidate code: contained, reported, and nothing left behind."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import leftover_processes, submission
from review import gitsafe
from review.harness import run_dirs, runner, sandbox, scenarios

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
QUICK = dataclasses.replace(scenarios.BY_NAME["happy"], name="quick", limit_s=3.0)
BWRAP = sandbox.detect().kind == "bwrap"


async def run(tmp_path, code: str, scenario=QUICK, extra_files=None):
    repo = submission(tmp_path / "sub", {"checkout.mjs": code, **(extra_files or {})})
    lines: list[str] = []
    result = await runner.run_scenario(repo, repo.head, scenario, lambda e: lines.append(e.text))
    assert leftover_processes("driver.mjs") == []
    # The run's folders are gone.
    assert list((gitsafe.cache_root() / "runs").iterdir()) == []
    return result, lines


async def test_a_client_that_never_settles_is_killed_while_the_console_stays_responsive(tmp_path):
    ticks: list[float] = []

    async def ticker():
        while True:
            await asyncio.sleep(0.05)
            ticks.append(time.monotonic())

    task = asyncio.create_task(ticker())
    code = "export function chargeWithRetry() { setInterval(() => {}, 1000); return new Promise(() => {}); }\n"
    result, _ = await run(tmp_path, code)
    task.cancel()
    assert result.verdict == "hung" and result.outcomes[0]["kind"] == "hung"
    # Killed at the 3 s limit; on a loaded machine run again with three times the limit first.
    ran_again = any("run again with a 9 s limit" in reason for reason in result.reasons)
    assert f"{9 if ran_again else 3} s limit" in result.reasons[-1], result.reasons
    # The event loop kept turning for the whole 3 s: never held for half of it (a blocked loop would be
    # one gap of 3 s; on a loaded machine a tick may come late, never that late).
    assert len(ticks) >= 2 and max(b - a for a, b in zip(ticks, ticks[1:])) < 1.5


async def test_a_promise_left_pending_with_nothing_to_wait_for_is_hung_too(tmp_path):
    result, _ = await run(tmp_path, "export function chargeWithRetry() { return new Promise(() => {}); }\n")
    assert result.verdict == "hung" and "never settled" in result.reasons[-1]


async def test_an_endless_loop_is_killed(tmp_path):
    result, _ = await run(tmp_path, "export async function chargeWithRetry() { for (;;) {} }\n")
    assert result.verdict == "hung"


async def test_reading_home_and_writing_outside_are_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    outside = tmp_path / "outside" / "pwned.txt"
    outside.parent.mkdir()
    code = f"""
import {{ readFileSync, writeFileSync }} from "node:fs";
function attempt(fn) {{ try {{ return String(fn()); }} catch (e) {{ return "refused:" + e.code; }} }}
export async function chargeWithRetry(amount) {{
  const read = attempt(() => readFileSync({str(secret)!r}, "utf8"));
  const ssh = attempt(() => readFileSync(process.env.HOME + "/../../root/.ssh/id_rsa", "utf8"));
  const wrote = attempt(() => writeFileSync({str(outside)!r}, "x"));
  const res = await fetch("http://localhost:8099/charge", {{ method: "POST",
    body: JSON.stringify({{ amount, idempotencyKey: read + "|" + ssh + "|" + wrote }}) }});
  return res.json();
}}
"""
    result, _ = await run(tmp_path, code)
    key = result.records[0]["key"]
    assert "TOP-SECRET-VALUE" not in key and key.startswith("refused:")
    assert not outside.exists()


async def test_spawning_a_child_is_refused(tmp_path):
    sentinel = tmp_path / "spawned"
    code = f"""
import {{ execSync }} from "node:child_process";
export async function chargeWithRetry(amount) {{
  let how = "spawned";
  try {{ execSync("touch {sentinel}"); }} catch (e) {{ how = "refused:" + (e.code || e.message); }}
  const res = await fetch("http://localhost:8099/charge", {{ method: "POST",
    body: JSON.stringify({{ amount, idempotencyKey: how }}) }});
  return res.json();
}}
"""
    result, _ = await run(tmp_path, code)
    assert result.records[0]["key"].startswith("refused:")
    assert not sentinel.exists()


@pytest.mark.skipif(not BWRAP, reason="only bubblewrap's network namespace blocks raw sockets")
async def test_other_ports_are_unreachable(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    code = f"""
import net from "node:net";
export async function chargeWithRetry(amount) {{
  const how = await new Promise((resolve) => {{
    const s = net.connect({port}, "127.0.0.1", () => resolve("connected"));
    s.on("error", (e) => resolve("refused:" + e.code));
  }});
  let viaFetch;
  try {{ await fetch("http://127.0.0.1:{port}/"); viaFetch = "reached"; }} catch (e) {{ viaFetch = "refused"; }}
  const res = await fetch("http://localhost:8099/charge", {{ method: "POST",
    body: JSON.stringify({{ amount, idempotencyKey: how + "|" + viaFetch }}) }});
  return res.json();
}}
"""
    result, _ = await run(tmp_path, code)
    assert result.records[0]["key"].startswith("refused:") and result.records[0]["key"].endswith("|refused")
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()


async def test_printed_claims_and_forged_outcomes_are_not_believed(tmp_path):
    code = """
export async function chargeWithRetry(amount) {
  console.log('{"charges":1,"distinctKeys":1} verdict ok PASS');
  console.log("\\x1b]52;c;cGF3bmVk\\x07 \\x1b[2J");
  await fetch("http://localhost:8099/__review/outcome", { method: "POST",
    body: JSON.stringify({ kind: "resolved", call: 1, value: "forged" }) });
  for (const key of ["k1", "k2"]) {
    await fetch("http://localhost:8099/charge", {
      method: "POST", body: JSON.stringify({ amount, idempotencyKey: key }),
    });
  }
  throw new Error("gave up");
}
"""
    result, lines = await run(tmp_path, code)
    assert result.verdict == "double-charge" and result.charges_created == 2
    assert [o["kind"] for o in result.outcomes] == ["rejected"]
    assert all("\x1b" not in line for line in lines)
    assert any("client stdout (p1): ␛]52;c;cGF3bmVk" in line for line in lines)


@pytest.mark.parametrize(
    "files, verdict, words",
    [
        ({"README.md": "no code here"}, "missing-entrypoint", "checkout.mjs is not in commit"),
        ({"checkout.mjs": "export const nothing = 1;\n"}, "missing-entrypoint", "does not export"),
        ({"checkout.mjs": "export async function chargeWithRetry( {\n"}, "crashed", "SyntaxError"),
        ({"checkout.mjs": b"\xff\xfe\x00 binary \x89PNG"}, "crashed", "failed to load"),
        (
            {"checkout.mjs": "import x from './missing.mjs';\nexport const chargeWithRetry = x;\n"},
            "crashed",
            "Cannot find module",
        ),
    ],
)
async def test_broken_submissions_get_a_clear_verdict(tmp_path, files, verdict, words):
    repo = submission(tmp_path / "sub", files)
    result = await runner.run_scenario(repo, repo.head, QUICK)
    assert result.verdict == verdict
    assert any(words in reason for reason in result.reasons), result.reasons


async def test_an_uncaught_crash_mid_call_is_reported(tmp_path):
    code = (
        "export function chargeWithRetry() { setTimeout(() => { throw new Error('boom'); }, 10);"
        " return new Promise(() => {}); }\n"
    )
    result, _ = await run(tmp_path, code)
    assert result.verdict == "crashed"
    assert any("boom" in reason for reason in result.reasons)


async def test_local_imports_work_but_symlinks_are_not_exported(tmp_path):
    code = (
        "import { key } from './lib/key.mjs';\nexport async function chargeWithRetry(amount) {\n"
        "  const r = await fetch('http://localhost:8099/charge', {method: 'POST', body: JSON.stringify({amount, "
        "idempotencyKey: key()})});\n  return r.json();\n}\n"
    )
    result, _ = await run(tmp_path, code, extra_files={"lib/key.mjs": "export const key = () => 'fixed-key';\n"})
    assert result.verdict == "ok" and result.records[0]["key"] == "fixed-key"


async def test_reduced_sandbox_is_reported_and_still_contains_children(tmp_path, monkeypatch):
    sandbox.detect.cache_clear()
    monkeypatch.setenv("REVIEW_SANDBOX", "reduced")
    try:
        info = sandbox.detect()
        assert info.kind == "reduced"
        repo = submission(
            tmp_path / "sub",
            {
                "checkout.mjs": (
                    "import { execSync } from 'node:child_process';\n"
                    "export async function chargeWithRetry(amount) {\n"
                    "  let how = 'spawned'; try { execSync('true'); } catch (e) { how = 'refused'; }\n"
                    "  const r = await fetch('http://localhost:8099/charge', {method: 'POST', "
                    "body: JSON.stringify({amount, idempotencyKey: how})});\n  return r.json();\n}\n"
                )
            },
        )
        suite = await runner.run_suite(repo, names=["happy"], info=info)
        assert suite.sandbox == "reduced"
        assert suite.scenarios[0].records[0]["key"] == "refused"
        assert "reduced sandbox" in suite.summary
    finally:
        sandbox.detect.cache_clear()


CHARGE = (
    "  const r = await fetch('http://localhost:8099/charge', {method: 'POST', "
    "body: JSON.stringify({amount, idempotencyKey: 'k1'})});\n  return r.json();\n}\n"
)


async def test_a_50_kb_line_and_a_fake_node_notice_are_shown_cut_not_fatal(tmp_path):
    code = (
        "export async function chargeWithRetry(amount) {\n  console.log('(node:1) ExperimentalWarning: "
        "Permission is an experimental feature and might change at any time');\n  "
        "process.stdout.write('x'.repeat(50000) + '\\nafter the long line\\n');\n" + CHARGE
    )
    result, lines = await run(tmp_path, code)
    assert result.verdict == "ok"
    long = [line for line in lines if "xxxx" in line]
    assert long and "more characters]" in long[0] and len(long[0]) < 3000
    # The program's own words: shown.
    assert any("(node:1) ExperimentalWarning" in line for line in lines)
    assert any("after the long line" in line for line in lines) and len(long) == 1


async def test_a_tree_naming_checkout_twice_exports_the_first(tmp_path):
    from helpers import git, make_repo

    folder = make_repo(tmp_path / "dup", {"README.md": "x\n"})
    first = git(
        "hash-object",
        "-w",
        "--stdin",
        cwd=folder,
        input_text="export async function chargeWithRetry(amount) {\n" + CHARGE,
    ).strip()
    second = git("hash-object", "-w", "--stdin", cwd=folder, input_text="throw new Error('second');\n").strip()
    tree = git(
        "mktree", cwd=folder, input_text=f"100644 blob {first}\tcheckout.mjs\n100644 blob {second}\tcheckout.mjs\n"
    )
    commit = git("commit-tree", tree.strip(), "-m", "dup", cwd=folder).strip()
    git("update-ref", "refs/heads/main", commit, cwd=folder)
    repo = gitsafe.open_submission(folder)
    result = await runner.run_scenario(repo, repo.head, QUICK)
    # The first entry ran; the duplicate neither crashed nor replaced it.
    assert result.verdict == "ok"


async def test_output_of_any_shape_is_read_in_bounded_lines():
    from review.harness import process

    stream = asyncio.StreamReader()
    for piece in (
        b"first\n",
        b"y" * 300_000,
        b"\nafter\n",
        b"(node:9) ExperimentalWarning: Permission is an experimental feature and might change at any time\n",
        b"no newline at the end",
    ):
        for start in range(0, len(piece), 4096):
            stream.feed_data(piece[start : start + 4096])
    stream.feed_eof()
    lines = [line async for line in process.capped_lines(stream, 1 << 20, notice_once=True)]
    assert lines[0] == "first" and lines[1].startswith("y" * 2000) and "the line goes on" in lines[1]
    # The notice, once, is Node's own: dropped.
    assert lines[2:] == ["after", "no newline at the end"]
    assert all(len(line) < 2100 for line in lines)


def _path_without_bwrap(tmp_path) -> str:
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("node", "git", "prlimit"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return str(folder)


def test_without_bubblewrap_nothing_runs_unless_the_reviewer_opts_in(tmp_path, monkeypatch, capsys):
    from review.cli import main
    from review.services import cohort

    monkeypatch.setenv("PATH", _path_without_bwrap(tmp_path))
    monkeypatch.delenv(sandbox.UNSAFE_ENV, raising=False)
    monkeypatch.delenv("REVIEW_SANDBOX", raising=False)
    sandbox.detect.cache_clear()
    try:
        info = sandbox.detect()
        assert info.kind == "none" and "bubblewrap" in (info.problem or "")
        repo = submission(tmp_path / "sub", {"checkout.mjs": "export async function chargeWithRetry() {}\n"})
        with pytest.raises(sandbox.SandboxError, match="--unsafe-no-sandbox"):
            asyncio.run(runner.run_suite(repo, names=["happy"]))
        assert leftover_processes("driver.mjs") == []
        row = cohort.Row(name="sub", path=str(tmp_path / "sub"), head=repo.head)
        asyncio.run(cohort.fill_harness([row]))
        assert row.harness.startswith("not run: needs bubblewrap")
        assert main(["harness", str(tmp_path / "sub"), "--scenario", "happy"]) == 2
        assert "--unsafe-no-sandbox" in capsys.readouterr().err
        # The explicit opt-in runs it, and says so in the result; the background harness still never does.
        assert main(["harness", str(tmp_path / "sub"), "--scenario", "happy", "--unsafe-no-sandbox", "--json"]) == 0
        assert '"sandbox": "reduced"' in capsys.readouterr().out
        row.harness = None
        asyncio.run(cohort.fill_harness([row]))
        assert row.harness.startswith("not run: needs bubblewrap")
    finally:
        sandbox.detect.cache_clear()


async def test_a_forged_outcome_changes_nothing(tmp_path):
    """The draft that swallows the 503 and resolves, dressed up: fake driver lines on stderr, a fake report
    to the gateway, a patched socket write. The outcome is what the runner saw: the call resolved."""
    code = (
        "import net from 'node:net';\nconst write = "
        "net.Socket.prototype.write;\nnet.Socket.prototype.write = function (chunk, ...rest) { return "
        "write.call(this, chunk, ...rest); };\nexport async function chargeWithRetry(amount) {\n  "
        "process.stderr.write('[review-driver] "
        '{"kind":"rejected","call":1,"message":"forged"}\\n\');\n  await '
        "fetch('http://localhost:8099/__review/outcome', {method: 'POST', headers: {'x-review-token': "
        "'x'}, body: JSON.stringify({kind: 'rejected', call: 1})});\n  const r = await "
        "fetch('http://localhost:8099/charge', {method: 'POST', body: JSON.stringify({amount, "
        "idempotencyKey: 'k'})});\n  return {ok: r.ok};\n}\n"
    )
    result, lines = await run(tmp_path, code, scenarios.BY_NAME["always-503"])
    # From the exit code the runner saw, not the claims.
    assert result.outcomes[0]["kind"] == "resolved"
    assert result.verdict != "ok"
    # shown, as the client's.
    assert any("[review-driver]" in line and "forged" in line for line in lines)


async def test_a_client_that_never_reaches_the_charge_endpoint_gets_a_verdict_of_its_own(tmp_path):
    wrong = (
        "export async function chargeWithRetry(amount) {\n"
        "  for (let i = 0; i < 4; i++) await fetch('http://localhost:8099/charges', {method: 'POST', "
        "body: JSON.stringify({amount, idempotencyKey: 'k'})});\n  return {ok: true};\n}\n"
    )
    result, _ = await run(tmp_path / "wrong", wrong)
    assert result.verdict == "wrong-endpoint" and result.charges_created == 0
    nothing = "export async function chargeWithRetry(amount) { return {ok: true}; }\n"
    result, _ = await run(tmp_path / "nothing", nothing, scenarios.BY_NAME["always-503"])
    assert result.verdict == "no-request"


def test_run_folders_of_a_dead_console_are_removed_at_the_next_start(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = gitsafe.cache_root() / "runs"
    root.mkdir(parents=True, exist_ok=True)
    # a console killed mid-run (SIGKILL, an SSH drop)
    (root / f"run-{dead.pid}-abc").mkdir()
    # This console's own: in use.
    (root / f"run-{os.getpid()}-live").mkdir()
    run_dirs._swept.clear()
    run_dirs.runs_root()
    assert sorted(p.name for p in root.iterdir()) == [f"run-{os.getpid()}-live"]


def test_log_lines_show_a_key_whole_and_say_how_much_of_a_hostile_one_was_cut():
    from review.harness.log_text import short_key

    uuid = "f5e32a5c-7d0e-4c1b-9a55-0b7f3c2e9d11"
    assert short_key(uuid) == uuid
    assert short_key(None) == "(no key)"
    shown = short_key("k" * 500 + "\x1b[2J")
    assert shown.endswith("…(+424chars)") and "\x1b" not in shown and " " not in shown


def test_a_full_disk_while_exporting_the_code_is_said_never_a_traceback(tmp_path):
    """A write limit (as a full disk gives: EFBIG here, ENOSPC there) in a real process: the export
    raises the harness's own error with the reason, which every caller shows as "not run: …"."""
    import sys
    import textwrap

    from helpers import make_repo

    repo_dir = make_repo(tmp_path / "sub", {"checkout.mjs": "// " + "x" * 5000 + "\n"})
    script = textwrap.dedent(f"""
        import resource, signal, sys
        from pathlib import Path
        from review import gitsafe
        from review.harness import sandbox
        from review.harness.export import export_code
        repo = gitsafe.open_submission(Path({str(repo_dir)!r}))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        dest = Path({str(tmp_path / "dest")!r}); dest.mkdir()
        try:
            export_code(repo, repo.head, dest)
        except sandbox.SandboxError as error:
            print("SAID:", error)
    """)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env={**os.environ}
    )
    assert result.returncode == 0, result.stderr
    assert "SAID: cannot write the candidate's code for the run (checkout.mjs): File too large" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "code, words",
    [
        # 300 MiB of Buffers (filled, so resident), then waiting: past the memory cap.
        (
            "const kept = []; for (let i = 0; i < 6; i++) kept.push(Buffer.alloc(50 * 1024 * 1024, 1));\nexport "
            "async function chargeWithRetry() { await new Promise((r) => setTimeout(r, 60000)); return kept; }\n",
            "MiB of memory in use (the limit is 100 MiB)",
        ),
        # 8 MiB files, one after another, into the only folder it may write: past the disk cap.
        (
            'import { writeFileSync } from "node:fs";\n'
            "export async function chargeWithRetry() {\n"
            "  for (let i = 0; i < 12; i++) { writeFileSync(`blob${i}.bin`, Buffer.alloc(8 * 1024 * 1024, 1));\n"
            "    await new Promise((r) => setTimeout(r, 50)); }\n"
            "  await new Promise((r) => setTimeout(r, 60000));\n}\n",
            "written to disk (the limit is 30 MiB)",
        ),
        # An endless flood on stdout (64 KiB are shown, the rest drained): past the output cap.
        (
            'const line = "x".repeat(8191) + "\\n";\n'
            "export async function chargeWithRetry() {\n"
            "  for (;;) {\n"
            "    if (!process.stdout.write(line)) await new Promise((r) => process.stdout.once('drain', r));\n"
            "  }\n}\n",
            "written to stdout and stderr (the limit is 4 MiB)",
        ),
    ],
)
async def test_memory_disk_and_output_past_the_caps_get_a_verdict_of_their_own(tmp_path, monkeypatch, code, words):
    """The runner measures the run's processes (resident memory, their count) and its folder, and
    kills the run past a cap: the verdict says which, from the runner's own measurement."""
    from review.harness import driver_run, process

    monkeypatch.setattr(
        driver_run, "LIMITS", process.Limits(memory=100 << 20, processes=64, disk=30 << 20, output=4 << 20)
    )
    result, lines = await run(tmp_path, code)
    assert result.verdict == "resource-limit", (result.verdict, result.reasons)
    assert any(words in reason for reason in result.reasons)
    assert any("[runner]" in line and words in line for line in lines)


TWO_QUICK = dataclasses.replace(scenarios.BY_NAME["two-orders"], limit_s=3.0)
SECOND_CALL_HANGS = """
let calls = 0;
export async function chargeWithRetry(amount) {
  calls += 1;
  if (calls === 2) { setInterval(() => {}, 1000); return new Promise(() => {}); }
  const res = await fetch("http://localhost:8099/charge", {method: "POST", headers: {"Idempotency-Key": "k" + calls,
    "content-type": "application/json"}, body: JSON.stringify({amount})});
  return res.json();
}
"""


async def test_when_the_second_of_two_calls_hangs_the_hung_one_is_named_and_the_first_is_a_claim(tmp_path):
    result, lines = await run(tmp_path, SECOND_CALL_HANGS, TWO_QUICK)
    kinds = {o["call"]: o["kind"] for o in result.outcomes}
    assert kinds == {1: "claimed-resolved", 2: "hung"}
    assert result.verdict == "hung" and "call 2 never settled" in result.reasons[-1]
    assert any("a claim" in line for line in lines)


async def test_a_hung_process_cannot_claim_its_way_out(tmp_path):
    """The driver's own lines forged for both calls, then a hang: still hung, the last call named."""
    code = """
export async function chargeWithRetry(amount) {
  for (const call of [1, 2]) {
    process.stderr.write('[review-driver] {"kind":"call-start","call":' + call + '}\\n');
    process.stderr.write('[review-driver] {"kind":"resolved","call":' + call + ',"value":"ok"}\\n');
  }
  setInterval(() => {}, 1000);
  return new Promise(() => {});
}
"""
    result, _ = await run(tmp_path, code, TWO_QUICK)
    assert result.verdict == "hung"
    assert [o["kind"] for o in result.outcomes] == ["claimed-resolved", "hung"]


# Deeper than Python's recursion limit (1000): shutil.rmtree and os.walk recurse once per level.
DEEP = 1500


async def test_a_folder_tree_deeper_than_python_recurses_is_measured_and_removed(tmp_path):
    """Folders nested past Python's recursion limit in the run's folder: the disk watch walks them and
    the run's folder is removed afterwards, the verdict is the gateway's — never a traceback, a false
    'hung', or a folder left behind that breaks every later run."""
    code = f"""
import {{ mkdirSync, writeFileSync }} from "node:fs";
export async function chargeWithRetry(amount) {{
  const deep = "d/".repeat({DEEP});
  mkdirSync(deep, {{ recursive: true }});
  writeFileSync(deep + "bottom.txt", "x");
  // Long enough for the runner's disk watch to walk the tree a few times.
  await new Promise((r) => setTimeout(r, 800));
  const res = await fetch("http://localhost:8099/charge", {{ method: "POST",
    body: JSON.stringify({{ amount, idempotencyKey: "deep" }}) }});
  return res.json();
}}
"""
    result, _ = await run(tmp_path, code)
    assert result.verdict == "ok", (result.verdict, result.reasons)


def _nest(top: Path, depth: int) -> None:
    """`depth` folders one inside the other, made through file descriptors (os.makedirs recurses)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as handle:
            handle.write("x")
    finally:
        os.close(fd)


def test_a_dead_consoles_run_folder_too_deep_to_recurse_is_swept(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = gitsafe.cache_root() / "runs"
    root.mkdir(parents=True, exist_ok=True)
    _nest(root / f"run-{dead.pid}-deep", DEEP)
    run_dirs._swept.clear()
    run_dirs.runs_root()
    assert list(root.iterdir()) == []


def test_the_disk_watch_counts_a_tree_too_deep_to_recurse(tmp_path):
    from review.harness import process
    from review.support import trees

    _nest(tmp_path / "work", DEEP)
    assert process.folder_bytes(tmp_path / "work", 1 << 20) > 0
    # pytest's own clean-up of old temporary folders would recurse into it.
    trees.remove(tmp_path / "work")


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="needs root to act as another user (root itself reads any folder)",
)
def test_folders_the_candidate_locked_are_removed_by_a_reviewer_who_is_not_root():
    """The candidate's code may chmod 000 what it made in its run folder: a reviewer (never root)
    still removes all of it, as the owner of those files."""
    import tempfile

    from review.support import trees

    # Not under pytest's folder, which only root may enter.
    top = Path(tempfile.mkdtemp(prefix="review-locked-"))
    (top / "run/locked/inner").mkdir(parents=True)
    (top / "run/locked/inner/file").write_text("x")
    for path in (top, top / "run", top / "run/locked", top / "run/locked/inner", top / "run/locked/inner/file"):
        os.chown(path, 65534, 65534)
    os.chmod(top / "run/locked/inner", 0)
    os.chmod(top / "run/locked", 0)
    top.chmod(0o755)
    source = Path(trees.__file__).parents[2]
    subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from review.support import trees; trees.remove(Path(sys.argv[1]))",
            str(top / "run"),
        ],
        check=True,
        env={"PYTHONPATH": str(source), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    left = list(top.iterdir())
    shutil.rmtree(top)
    assert left == []


@pytest.mark.parametrize(
    "code, words",
    [
        (
            "process.exit(0);\nexport async function chargeWithRetry() {}\n",
            "checkout.mjs ended its own process (process.exit) while it was loading",
        ),
        (
            "process.reallyExit(3);\nexport async function chargeWithRetry() {}\n",
            "checkout.mjs ended its own process (process.exit) while it was loading",
        ),
        (
            "export async function chargeWithRetry() { setTimeout(() => process.exit(0), 5); "
            "await new Promise((r) => setTimeout(r, 1000)); }\n",
            "call 1 never settled: the candidate's code ended its own process (process.exit)",
        ),
    ],
)
async def test_code_that_ends_its_own_process_is_said_so_never_resolved(tmp_path, code, words):
    """process.exit(0) mid-call is an exit code the runner would read as 'every call resolved', and
    exit(3) at load as an import error with no message: the log says what the code did instead."""
    result, lines = await run(tmp_path, code)
    assert result.verdict == "crashed", (result.verdict, result.reasons)
    assert not any(o["kind"] == "resolved" for o in result.outcomes)
    assert any(words in reason for reason in result.reasons), result.reasons


async def test_an_exit_code_set_before_leaving_the_call_pending_is_not_believed(tmp_path):
    code = "export function chargeWithRetry() { process.exitCode = 0; return new Promise(() => {}); }\n"
    result, _ = await run(tmp_path, code)
    assert result.verdict == "hung" and "never settled" in result.reasons[-1], (result.verdict, result.reasons)


async def test_an_import_error_full_of_escapes_reaches_the_log_and_the_verdict_made_visible(tmp_path):
    """The message of an error thrown while loading is the candidate's text: the verdict line that
    `review harness --log` prints to the reviewer's terminal carries no live escape (OSC 52 would
    write the reviewer's clipboard)."""
    code = "throw new Error('\\x1b]52;c;cGF3bmVk\\x07\\x1b[2J\\u202e boom');\n"
    result, lines = await run(tmp_path, code)
    assert result.verdict == "crashed"
    shown = [*result.reasons, *lines]
    assert not any(ch in text for text in shown for ch in "\x1b\x07\u202e"), shown
    assert any("␛]52;c;cGF3bmVk" in reason for reason in result.reasons), result.reasons


async def test_code_that_fills_its_heap_is_said_to_have_run_out_of_memory(tmp_path):
    """Node aborts with its heap limit's FATAL ERROR and a native stack trace: the reason names the
    heap limit, not the last 300 characters of the stack trace."""
    code = "export async function chargeWithRetry() { const kept = []; for (;;) kept.push(new Array(1e6).fill(1)); }\n"
    result, _ = await run(tmp_path, code)
    assert result.verdict == "crashed", (result.verdict, result.reasons)
    reason = result.reasons[-1]
    assert f"out of memory: the JavaScript heap limit ({sandbox.HEAP_MB} MiB)" in reason, reason
    assert "v8::internal" not in reason


def _linked_entry(folder: Path) -> gitsafe.SafeRepo:
    """checkout.mjs committed as a symbolic link to /etc/passwd."""
    from helpers import git, make_repo

    make_repo(folder, {"README.md": "starter\n"})
    blob = git("hash-object", "-w", "--stdin", cwd=folder, input_text="/etc/passwd").strip()
    git("update-index", "--add", "--cacheinfo", f"120000,{blob},checkout.mjs", cwd=folder)
    git("commit", "-q", "-m", "link", cwd=folder)
    return gitsafe.open_submission(folder)


def _submodule_entry(folder: Path) -> gitsafe.SafeRepo:
    """checkout.mjs committed as a submodule (a gitlink to some commit)."""
    from helpers import git, make_repo

    make_repo(folder, {"README.md": "starter\n"})
    head = git("rev-parse", "HEAD", cwd=folder).strip()
    git("update-index", "--add", "--cacheinfo", f"160000,{head},checkout.mjs", cwd=folder)
    git("commit", "-q", "-m", "submodule", cwd=folder)
    return gitsafe.open_submission(folder)


@pytest.mark.parametrize(
    "make, words",
    [
        (_linked_entry, "checkout.mjs is a symbolic link (to /etc/passwd)"),
        (_submodule_entry, "checkout.mjs is a submodule"),
        (
            lambda folder: submission(folder, {"checkout.mjs": "export const a = 1;\n//" + "x" * (2 << 20) + "\n"}),
            "checkout.mjs is 2.0 MiB; the harness runs files of at most 1 MiB",
        ),
    ],
)
async def test_an_entry_point_that_is_not_run_says_which_reason_applies(tmp_path, make, words):
    repo = make(tmp_path / "sub")
    result = await runner.run_scenario(repo, repo.head, QUICK)
    assert result.verdict == "missing-entrypoint"
    assert any(words in reason for reason in result.reasons), result.reasons


async def test_a_request_the_gateways_http_parser_refuses_prints_no_traceback(tmp_path, caplog):
    """A 100 KB header is refused by aiohttp's parser before any handler runs, which it logs with a
    traceback to the reviewer's terminal (over the console's screen): counted instead, and the run
    goes on."""
    code = """
export async function chargeWithRetry(amount) {
  try { await fetch("http://localhost:8099/charge", { method: "POST", headers: { "x-big": "k".repeat(100000) },
    body: "{}" }); } catch (e) {}
  const res = await fetch("http://localhost:8099/charge", { method: "POST",
    body: JSON.stringify({ amount, idempotencyKey: "fine" }) });
  return res.json();
}
"""
    result, _ = await run(tmp_path, code)
    assert result.verdict == "ok", (result.verdict, result.reasons)
    # What would reach the terminal: pytest holds the log records that logging would print there.
    printed = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert printed == [], [record.getMessage() for record in printed]
