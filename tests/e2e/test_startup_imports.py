"""What a command loads before it does anything: `review --version` and `review --help` load no command's
module, and none of the heavy libraries (Textual, markdown-it, aiohttp) the console and the harness need."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("textual", "rich", "markdown_it", "aiohttp")


def modules_loaded(*argv: str) -> set[str]:
    """The modules imported by `review ARGV` run in a fresh interpreter, as a user's shell runs it."""
    code = (
        "import sys, json, contextlib, io\n"
        "from review.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({list(argv)!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(result.stdout))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_version_and_help_load_no_command_and_no_heavy_library():
    for argv in (["--version"], ["--help"]):
        loaded = modules_loaded(*argv)
        assert heavy(loaded) == [], argv
        # No command's own module: the registry names them, and imports one only when it is typed.
        assert not {"review.cli.headless", "review.cli.prepare", "review.cli.dev"} & loaded, argv
        assert not any(m.startswith(("review.services", "review.gitsafe", "review.harness")) for m in loaded), argv
        # Nor the standard library's slow imports no answer of theirs needs (each a few milliseconds of
        # the ~40 both may take).
        assert not {"dataclasses", "pathlib", "typing"} & loaded, argv


def test_a_command_loads_its_own_module_only():
    loaded = modules_loaded("triage", "--help")
    assert "review.cli.headless" in loaded and "review.cli.prepare" not in loaded and "review.cli.dev" not in loaded
    assert heavy(loaded) == []


def test_a_warm_triage_loads_no_parser_no_console_and_no_gateway(tmp_path):
    # One real submission, triaged once (cold) so the row cache answers the second run.
    from helpers import make_repo

    cohort = tmp_path / "cohort"
    make_repo(cohort / "ada", {"checkout.mjs": "export async function chargeWithRetry() {}\n"})
    cold = modules_loaded("triage", str(cohort), "--json")
    assert "review.services.analysis" in cold
    warm = modules_loaded("triage", str(cohort), "--json")
    assert heavy(warm) == []
    # The row came from the cache: nothing that reads a repository's history or diff was loaded.
    assert (
        not {"review.services.analysis", "review.core.attribution", "unidiff", "concurrent.futures", "tomllib"} & warm
    )


def test_the_console_starts_without_the_readers_of_a_history():
    """The console's triage reads rows from the cache: the diff parser, the attribution and Markdown are
    loaded by the first submission read, not at start (a fifth of a warm start)."""
    code = "import sys, json, review.tui.app; print(json.dumps(sorted(sys.modules)))"
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout))
    assert "review.tui.screens.cohort" in loaded
    assert not {"review.services.analysis", "review.core.attribution", "markdown_it", "unidiff"} & loaded
