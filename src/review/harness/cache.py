"""Suite results cached per commit id (and harness version and sandbox kind), written atomically."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from review import gitsafe
from review.harness.results import ScenarioResult, SuiteResult
from review.support import files

# 2: results carry the environment fingerprint; 3: keys sent counted, backoff as a policy; 4: a hang at the
# limit before the first call or under load is run again with a longer limit (earlier hangs may be load's).
HARNESS_VERSION = "4"


def _cache_file(commit: str, kind: str) -> Path:
    return gitsafe.cache_root() / "harness" / f"{commit}-v{HARNESS_VERSION}-{kind}.json"


def write_json_atomic(path: Path, data: dict | list) -> None:
    """`data` as JSON at `path`, whole or not at all; a failed write (a full disk) leaves no temp file.
    The cache's folders are made here, as they are first written to: the readers (a warm triage reads
    several files per row) only look."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    files.write_atomic(path, json.dumps(data).encode("utf-8"))


def store_cached(suite: SuiteResult) -> None:
    write_json_atomic(_cache_file(suite.commit, suite.sandbox), suite.to_json())


# Every kind a result may be filed under (sandbox.detect's kinds).
SANDBOX_KINDS = ("bwrap", "reduced", "none")


def stamp(commit: str) -> tuple[int, ...]:
    """When this commit's results were last written, one figure per sandbox kind (0: none), from
    three stats: cheap enough to look at once a second for every row."""
    times = []
    for kind in SANDBOX_KINDS:
        try:
            times.append(_cache_file(commit, kind).stat().st_mtime_ns)
        except OSError:
            times.append(0)
    return tuple(times)


# A field a later version added is left out, not a reason to refuse the result.
_SCENARIO_FIELDS = {f.name for f in dataclasses.fields(ScenarioResult)}


def cached_suite(commit: str, kind: str | None = None) -> SuiteResult | None:
    """A stored suite result for this commit id (same harness version and sandbox kind), if any."""
    if kind is None and not any(_cache_file(commit, each).exists() for each in SANDBOX_KINDS):
        # Nothing was ever run for this commit: no need to ask which sandbox this machine has (detecting
        # runs node and bwrap, 30 ms: most of a warm triage).
        return None
    from review.harness import sandbox  # here: a commit with no result (a warm triage's, mostly) never asks

    try:
        kind = kind or sandbox.detect().kind
        data = json.loads(_cache_file(commit, kind).read_text())
    except (OSError, ValueError, sandbox.SandboxError):
        return None
    return SuiteResult(
        data["submission"],
        data["commit"],
        data["sandbox"],
        data["node"],
        [ScenarioResult(**{k: v for k, v in s.items() if k in _SCENARIO_FIELDS}) for s in data["scenarios"]],
        data.get("environment") or {},
    )
