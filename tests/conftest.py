"""Shared fixtures: every test gets its own cache and config folders; the sample cohort is
built once per session from sample_submissions/ with the real builder and real git."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from review import demo

ROOT = Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36


def pytest_configure(config):
    # Orphans of what a test started come back to this process, not to init, so the leak checks
    # (harness_helpers.leftover_processes) see exactly what this process started and nothing else.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path_factory, monkeypatch):
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("REVIEW_CACHE_DIR", str(base / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(base / "data"))
    return base


@pytest.fixture(scope="session")
def sample_cohort_master(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sample-cohort")
    os.environ.setdefault("REVIEW_CACHE_DIR", str(folder.parent / "session-cache"))
    return demo.build_demo(folder)


@pytest.fixture
def sample_cohort(sample_cohort_master, tmp_path) -> Path:
    """A private copy, so tests may add score files or commits freely."""
    target = tmp_path / "cohort"
    shutil.copytree(sample_cohort_master, target, symlinks=True)
    return target


def git(*args: str, cwd: Path, env: dict | None = None) -> str:
    """Plain git, for tests that must build repositories the product's builder would refuse to."""
    full_env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
                "GIT_AUTHOR_DATE": "2026-11-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-11-01T00:00:00Z"}
    full_env.update(env or {})
    return subprocess.run(["git", *args], cwd=cwd, env=full_env, check=True, capture_output=True,
                          text=True).stdout


def make_repo(path: Path, files: dict[str, str], message: str = "initial") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "-b", "main", cwd=path)
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git("add", "-A", cwd=path)
    git("commit", "-q", "-m", message, cwd=path)
    return path
