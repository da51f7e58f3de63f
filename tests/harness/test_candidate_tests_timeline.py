"""The candidate's own tests and the commit timeline, with real node in the real sandbox, and the
coverage run that marks which lines ran."""

from __future__ import annotations

import shutil

import pytest

from helpers import leftovers_after, submission
from review import gitsafe
from review.harness import candidate_tests, runner, sandbox, scenarios, timeline

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
BWRAP = sandbox.detect().kind == "bwrap"
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="the candidate's tests and coverage run only inside bubblewrap")

PASSING = """import { test } from "node:test";
import assert from "node:assert/strict";
test("adds", () => assert.equal(1 + 1, 2));
"""


def test_test_files_follow_node_test_patterns_and_npm_placeholder_is_no_script():
    paths = [
        "checkout.mjs",
        "test/a.mjs",
        "checkout.test.mjs",
        "x_test.js",
        "test-x.cjs",
        "node_modules/y.test.js",
        "docs/testing.md",
        "latest.mjs",
        "contest.mjs",
        "test.mjs",
    ]
    assert candidate_tests.find_test_files(paths) == [
        "checkout.test.mjs",
        "test-x.cjs",
        "test.mjs",
        "test/a.mjs",
        "x_test.js",
    ]
    assert (
        candidate_tests.package_test_script(b'{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}')
        is None
    )
    assert candidate_tests.package_test_script(b'{"scripts":{"test":"node t.mjs"}}') == "node t.mjs"
    assert candidate_tests.package_test_script(b"{broken") is None
    assert candidate_tests.command_for(["checkout.mjs"], None) is None


@needs_bwrap
async def test_red_green_and_none_from_real_runs(tmp_path):
    failing = PASSING.replace("1 + 1, 2", "1 + 1, 3")
    none = submission(tmp_path / "none", {"checkout.mjs": "export const a = 1;\n"})
    assert (await candidate_tests.run_tests(none, none.head)).state == "none"
    red = submission(tmp_path / "red", {"checkout.mjs": "", "test/checkout.test.mjs": failing})
    run = await candidate_tests.run_tests(red, red.head)
    assert run.state == "red" and run.exit_code == 1 and "fail 1" in run.summary
    assert any("not ok 1 - adds" in line for line in run.output)
    green = submission(tmp_path / "green", {"checkout.mjs": "", "checkout.test.mjs": PASSING})
    assert (await candidate_tests.run_tests(green, green.head)).state == "green"
    # Kept per commit.
    assert candidate_tests.cached_tests(green.head).state == "green"


@needs_bwrap
async def test_a_test_may_run_its_own_stub_on_localhost_but_reach_nothing_else(tmp_path):
    code = """import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
test("own stub on :8099", async () => {
  const server = createServer((req, res) => res.end("stub"));
  await new Promise((r) => server.listen(8099, r));
  try {
    assert.equal(await (await fetch("http://localhost:8099/")).text(), "stub");
  } finally {
    server.close();
  }
});
test("the outside world is unreachable", async () => {
  await assert.rejects(fetch("http://example.com/", { signal: AbortSignal.timeout(3000) }));
});
"""
    repo = submission(tmp_path / "net", {"checkout.mjs": "", "test/net.test.mjs": code})
    run = await candidate_tests.run_tests(repo, repo.head)
    assert run.state == "green", run.output


@needs_bwrap
async def test_a_package_json_test_script_runs_and_a_hanging_suite_is_killed(tmp_path):
    repo = submission(
        tmp_path / "script",
        {
            "checkout.mjs": "",
            "package.json": '{"scripts":{"test":"node check.mjs"}}',
            "check.mjs": "process.exit(process.env.HOME ? 0 : 1);\n",
        },
    )
    run = await candidate_tests.run_tests(repo, repo.head)
    assert run.state == "green" and run.command == "npm test script: node check.mjs"
    hang = submission(
        tmp_path / "hang",
        {
            "checkout.mjs": "",
            "test/hang.test.mjs": "import { test } from 'node:test';\ntest('x', () => new Promise(() "
            "=> setInterval(() => {}, 1000)));\n",
        },
    )
    run = await candidate_tests.run_tests(hang, hang.head, timeout_s=3)
    assert run.state == "hung" and run.colour == "red"
    assert await leftovers_after("hang.test.mjs") == []
    assert list((gitsafe.cache_root() / "runs").iterdir()) == []


async def test_without_bubblewrap_own_tests_and_coverage_are_unavailable_not_unsandboxed(tmp_path):
    repo = submission(
        tmp_path / "sub", {"checkout.mjs": "export async function chargeWithRetry() {}\n", "checkout.test.mjs": PASSING}
    )
    reduced = sandbox.detect(force_reduced=True)
    run = await candidate_tests.run_tests(repo, repo.head, reduced)
    assert run.state == "unavailable" and "bubblewrap" in run.reason
    with pytest.raises(sandbox.SandboxError, match="bubblewrap"):
        await runner.run_scenario(repo, repo.head, scenarios.BY_NAME["happy"], info=reduced, coverage=True)


@needs_bwrap
async def test_timeline_goes_red_then_green_and_reuses_results_for_a_note_only_commit(sample_cohort_master):
    repo = gitsafe.open_submission(sample_cohort_master / "chen-wei")
    commits = [c.sha for c in repo.commits()]
    seen: list[timeline.Entry] = []
    entries = await timeline.run_timeline(repo, commits, seen.append)
    assert seen == entries
    colours = [e.tests.colour if e.tests else None for e in entries]
    # starter, draft, failing test, fix, note.
    assert colours == ["none", "none", "red", "green", "green"]
    assert entries[4].same_code_as == commits[3] and entries[4].suite is entries[3].suite
    # a test file is code too.
    assert entries[2].same_code_as is None
    verdicts = {s.name: s.verdict for s in entries[1].suite.scenarios}
    assert verdicts["first-503"] == "double-charge" and verdicts["restart"] == "double-charge"
    assert all(s.verdict == "ok" for s in entries[3].suite.scenarios)
    # One line per commit, the same in the stub log and on the command line; a red run's output below it.
    red = timeline.describe(entries[2], 3, 5)
    assert red[0].startswith(f"3/5 {commits[2][:12]} · suite ") and " · own tests RED (" in red[0]
    assert len(red) > 1 and all(line.startswith("    ") for line in red[1:])
    assert timeline.describe(entries[4], 5, 5)[0].startswith(f"5/5 {commits[4][:12]} · same code as {commits[3][:12]}")


@needs_bwrap
async def test_coverage_counts_the_fresh_key_line_twice_when_the_draft_retries(sample_cohort_master):
    repo = gitsafe.open_submission(sample_cohort_master / "ada-okafor")
    result = await runner.run_scenario(repo, repo.head, scenarios.BY_NAME["first-503"], coverage=True)
    source = repo.show(repo.head, "checkout.mjs").decode().split("\n")
    counts = result.coverage["checkout.mjs"]
    fresh_key = next(n for n, line in enumerate(source, 1) if "crypto.randomUUID()" in line)
    backoff = next(n for n, line in enumerate(source, 1) if "setTimeout" in line)
    assert result.verdict == "double-charge"
    # Two attempts, one wait between them.
    assert counts[fresh_key] == 2 and counts[backoff] == 1
    # The comment line.
    assert 1 not in counts


@needs_bwrap
async def test_coverage_of_a_hung_call_is_written_before_the_limit_kills_it(sample_cohort_master):
    repo = gitsafe.open_submission(sample_cohort_master / "ada-okafor")
    result = await runner.run_scenario(repo, repo.head, scenarios.BY_NAME["timeout"], coverage=True)
    source = repo.show(repo.head, "checkout.mjs").decode().split("\n")
    fetch_line = next(n for n, line in enumerate(source, 1) if "await fetch(" in line)
    assert result.verdict == "hung" and result.coverage["checkout.mjs"][fetch_line] == 1


@needs_bwrap
async def test_the_candidates_own_tests_run_unprivileged_even_when_the_console_is_root(tmp_path):
    """No permission flags can follow `node --test` into its children, so the sandbox itself must hold:
    an unprivileged uid, no capabilities, /usr read-only, no host files, a capped /tmp."""
    probe = """import { test } from "node:test";
import fs from "node:fs";
import { execSync } from "node:child_process";
test("probe", () => {
  const tried = [];
  for (const [what, act] of [
      ["write-usr", () => fs.writeFileSync("/usr/pwned", "x")],
      ["remount", () => execSync("mount -o remount,rw /usr 2>&1")],
      ["read-host", () => fs.readFileSync("/etc/shadow")],
      ["tmp-64mb", () => fs.writeFileSync("/tmp/big", Buffer.alloc(80 * 1024 * 1024))]]) {
    try { act(); tried.push(what + "=DONE"); } catch (e) { tried.push(what + "=refused"); }
  }
  console.log("PROBE uid=" + process.getuid() + " " + tried.join(" "));
});
"""
    repo = submission(tmp_path / "probe", {"checkout.mjs": "export const a = 1;\n", "test/probe.test.mjs": probe})
    run = await candidate_tests.run_tests(repo, repo.head)
    line = next((line for line in run.output if "PROBE" in line), "\n".join(run.output[-20:]))
    assert "uid=65534" in line
    assert "write-usr=refused" in line and "remount=refused" in line and "read-host=refused" in line
    assert "tmp-64mb=refused" in line
    assert not (tmp_path / "pwned").exists() and not __import__("os").path.exists("/usr/pwned")


@needs_bwrap
async def test_a_test_suite_past_the_memory_cap_is_stopped_and_says_why(tmp_path, monkeypatch):
    from review.harness import driver_run, process

    monkeypatch.setattr(driver_run, "LIMITS", process.Limits(memory=100 << 20, processes=64, disk=30 << 20))
    hog = """import { test } from "node:test";
test("hogs", async () => {
  const kept = []; for (let i = 0; i < 6; i++) kept.push(Buffer.alloc(50 * 1024 * 1024, 1));
  await new Promise((r) => setTimeout(r, 60000));
});
"""
    repo = submission(tmp_path / "hog", {"checkout.mjs": "", "test/hog.test.mjs": hog})
    run = await candidate_tests.run_tests(repo, repo.head, use_cache=False)
    assert run.state == "limit" and run.colour == "red"
    assert "MiB of memory in use (the limit is 100 MiB)" in run.reason
