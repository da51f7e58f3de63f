"""The commit timeline: for each commit, the suite's verdicts and the candidate's own tests.

A red commit followed by a green one is "found it because a test went red", made visible.
Commits whose code is byte-for-byte the same as an earlier one's (a note, a README) reuse that
commit's results instead of running again: the fingerprint is the object ids of every file the
runs export.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from review import gitsafe
from review.core.text import safe_line
from review.harness import candidate_tests, export, runner, sandbox

# Lines of a red or hung test run's output shown under its commit.
OUTPUT_SHOWN = 12


@dataclass
class Entry:
    commit: str
    suite: runner.SuiteResult | None
    tests: candidate_tests.TestRun | None
    # An earlier commit with identical code, whose results these are.
    same_code_as: str | None = None
    problem: str | None = None


def code_fingerprint(entries: list[gitsafe.FileEntry]) -> str:
    """Equal for two commits exactly when the harness and the tests would see the same files."""
    digest = hashlib.sha256()
    for entry in sorted(entries, key=lambda e: e.path):
        if entry.kind == "blob" and entry.path.endswith((*export.CODE_SUFFIXES, "package.json")):
            digest.update(f"{entry.mode} {entry.oid} {entry.path}\0".encode("utf-8", "replace"))
    return digest.hexdigest()


async def run_timeline(
    repo: gitsafe.SafeRepo,
    commits: list[str],
    on_entry: Callable[[Entry], None],
    listener: runner.Listener | None = None,
    info: sandbox.SandboxInfo | None = None,
    fresh: bool = False,
) -> list[Entry]:
    """Oldest first. Cached suites and test runs are used unless `fresh`."""
    info = info or sandbox.detect()
    seen: dict[str, Entry] = {}
    entries = []
    for commit in commits:
        fingerprint = code_fingerprint(repo.files(commit))
        earlier = seen.get(fingerprint)
        if earlier is not None:
            entry = Entry(commit, earlier.suite, earlier.tests, earlier.same_code_as or earlier.commit, earlier.problem)
        else:
            entry = Entry(commit, None, None)
            try:
                entry.suite = None if fresh else runner.cached_suite(commit, info.kind)
                if entry.suite is None:
                    entry.suite = await runner.run_suite(repo, commit, listener=listener, info=info)
                entry.tests = await candidate_tests.run_tests(repo, commit, info, use_cache=not fresh)
            except (gitsafe.GitSafeError, sandbox.SandboxError) as error:
                entry.problem = str(error)
            seen[fingerprint] = entry
        entries.append(entry)
        on_entry(entry)
    return entries


def describe(entry: Entry, index: int, total: int) -> list[str]:
    """A commit's line (its number, id, the suite, the candidate's own tests), then the end of its
    tests' output when they went red or hung: the same in the stub log and `review harness --timeline`."""
    tests = entry.tests
    parts = [f"{index}/{total} {entry.commit[:12]}"]
    if entry.same_code_as:
        parts.append(f"same code as {entry.same_code_as[:12]}")
    parts.append(f"suite {entry.suite.summary}" if entry.suite else "suite not run")
    if tests is None:
        parts.append("own tests not run")
    else:
        # RED is the one word that must jump out.
        state = "RED" if tests.state == "red" else tests.state
        summary = f" ({tests.summary})" if tests.summary else ""
        reason = f" — {tests.reason}" if tests.state not in ("green", "red") else ""
        parts.append(f"own tests {state}{summary}{reason}")
    if entry.problem:
        parts.append(entry.problem)
    lines = [safe_line(" · ".join(parts), 400)]
    if tests is not None and tests.state in ("red", "hung"):
        lines += [safe_line(f"    {line}", 400) for line in tests.output[-OUTPUT_SHOWN:]]
    return lines
