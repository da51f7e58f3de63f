"""Shared fixtures: every test gets its own cache and config folders; the sample cohort is
built once per session from sample_submissions/ with the real builder and real git."""

from __future__ import annotations

import ctypes
import os
import shutil
from pathlib import Path

import pytest

from review.services import samples

ROOT = Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36


def _bubblewrap_works() -> bool:
    from review.harness import sandbox

    found = shutil.which("bwrap")
    return bool(found) and sandbox.bwrap_problem(found) is None


BWRAP_WORKS = _bubblewrap_works()


def pytest_configure(config):
    # No example is failed for its time: on a loaded machine the slower properties (git, parsing) take
    # longer than hypothesis's default 200 ms deadline without being wrong.
    from hypothesis import settings

    settings.register_profile("review", deadline=None)
    settings.load_profile("review")
    if not BWRAP_WORKS:
        # Set before collection: modules ask sandbox.detect() at import (and it is cached).
        from review.harness import sandbox

        os.environ[sandbox.UNSAFE_ENV] = "1"
    # Orphans of what a test started come back to this process, not to init, so the leak checks
    # (harness_helpers.leftover_processes) see exactly what this process started and nothing else.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


@pytest.fixture(autouse=True)
def notifications_kept(monkeypatch):
    """Every notification an app posts is kept for the test (helpers.posted) after its toast fades: on a
    loaded machine the check can come after a toast's few seconds are up."""
    from textual.notifications import Notifications

    add = Notifications.add

    def add_and_keep(self, notification):
        self.__dict__.setdefault("posted", []).append(notification)
        return add(self, notification)

    monkeypatch.setattr(Notifications, "add", add_and_keep)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch):
    if not BWRAP_WORKS:
        # On a machine without bubblewrap the suite runs the project's own fixtures the way a reviewer
        # would have to: with the explicit opt-in. Tests of the refusal itself take it away.
        from review.harness import sandbox

        monkeypatch.setenv(sandbox.UNSAFE_ENV, "1")
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("REVIEW_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    return base


@pytest.fixture(scope="session")
def sample_cohort_master(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sample-cohort")
    os.environ.setdefault("REVIEW_CACHE_DIR", str(folder.parent / "session-cache"))
    return samples.build_demo(folder)


@pytest.fixture
def sample_cohort(sample_cohort_master, tmp_path) -> Path:
    """A private copy, so tests may add score files or commits freely."""
    target = tmp_path / "cohort"
    shutil.copytree(sample_cohort_master, target, symlinks=True)
    return target
