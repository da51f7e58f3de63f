"""The project stands alone: what a reader of the README, the docs or the source is sent to is in the
repository, and nothing points to a file outside it or to an issue tracker's numbers."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# What a reader reads: the README and the pages it links to.
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
# Backticked spans shaped like a path: `a/b`, `a/b.py`, `dir/`, `README.md`.
PATH_SPAN = re.compile(r"^\.?[\w.-]+(/[\w.-]*)+$|^[\w-]+\.(md|py|toml|mjs|json|txt)$")
# Paths the README names that live in a submission, a cohort or a candidate's repository, not here.
IN_A_SUBMISSION = {
    ".agent-trace/traces.jsonl",
    "AI-DECLARATION.md",
    "refs/notes/ai",
    "refs/notes/whogitit",
    "checkout.mjs",
    "package.json",
    "tree/",
    ".mjs/.js/.cjs/.json",
    # In the reviewer's own folders.
    "keymap.toml",
    "calibration.toml",
}
OUTSIDE = re.compile(r"\bshared/|take-home-article")
ISSUE_NUMBER = re.compile(r"(?<![\w&/])#\d{1,5}\b|\bissues?\s+#?\d+\b", re.I)


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"], capture_output=True
    )
    if listed.returncode != 0:
        # An unpacked source archive: what the checks read is the checkout's list of files.
        pytest.skip(f"not a git checkout: {listed.stderr.decode(errors='replace').strip()}")
    return [name for name in listed.stdout.decode().split("\0") if name]


def readme_paths(text: str) -> set[str]:
    spans = set(re.findall(r"`([^`\n]+)`", text))
    return {s for s in spans if PATH_SPAN.match(s) and not s.split("/")[0].isupper() and not s.startswith(".venv/")}


def text_files() -> list[Path]:
    files = [ROOT / name for name in tracked_files() if name.startswith("src/")]
    files += [*DOCS, ROOT / "sample_submissions" / "README.md"]
    return [f for f in files if f.is_file() and f.suffix in {".py", ".md", ".toml", ".tcss", ".mjs", ".txt", ""}]


def test_every_path_the_readme_and_the_docs_send_a_reader_to_exists():
    names = {Path(name).name for name in tracked_files()} | {Path(n).parent.name + "/" for n in tracked_files()}
    missing = []
    assert len(DOCS) > 1, "the docs/ pages are read too"
    for doc in DOCS:
        for span in sorted(readme_paths(doc.read_text())):
            if span in IN_A_SUBMISSION:
                continue
            here = (ROOT / span).exists() or (ROOT / "src" / "review" / span).exists()
            # A bare file name (`commit.toml`) is fine when the repository holds such a file.
            bare = "/" not in span.rstrip("/") and span in names
            if not (here or bare):
                missing.append(f"{doc.relative_to(ROOT)}: {span}")
    assert not missing, f"the README and docs name paths that are not in the repository: {missing}"


def test_the_path_check_notices_a_missing_path():
    assert readme_paths("see `src/review/core/rubric.py` and `docs/missing.md`, not `COHORT/x.toml`") == {
        "src/review/core/rubric.py",
        "docs/missing.md",
    }
    assert not (ROOT / "docs/missing.md").exists()


def test_nothing_points_outside_the_repository_or_to_an_issue_number():
    found = []
    for path in text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line) or ISSUE_NUMBER.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def test_the_patterns_catch_what_they_are_for():
    assert OUTSIDE.search("see ``shared/reference/security-and-gateway.md`` §2")
    assert ISSUE_NUMBER.search("as issue 19 asked") and ISSUE_NUMBER.search("fixed in #19")
    assert ISSUE_NUMBER.search("every #19 benchmark")
    assert not ISSUE_NUMBER.search('primary = "#5FA8FF"') and not ISSUE_NUMBER.search("checkout.mjs#L2-L17")
    assert not ISSUE_NUMBER.search("color: #000000;")


def test_the_readme_describes_the_task_it_grades_from_the_starter():
    text = README.read_text()
    assert "### The task it grades" in text
    starter = ROOT / "sample_submissions" / "_starter" / "tree" / "README.md"
    assert "`sample_submissions/_starter/tree/README.md`" in text and starter.is_file()
    assert "chargeWithRetry(amount)" in starter.read_text()
