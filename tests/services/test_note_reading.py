"""The candidate's note as committed: a symbolic link, a note saved as UTF-16 or with a byte-order
mark. Real repositories, read through the sanitised clone."""

from __future__ import annotations

from pathlib import Path

from helpers import git, make_repo
from review import gitsafe
from review.services import analysis, note_files

CODE = "export async function chargeWithRetry(amount) {\n  return amount;\n}\n"
NOTE = "## AI use\n\n- checkout.mjs:1-3 — Claude Code\n"


def with_symlink(folder: Path, path: str, target: str) -> Path:
    """A commit whose `path` is a symbolic link to `target` (a blob of mode 120000), whatever the
    machine's checkout would do with it."""
    make_repo(folder, {"checkout.mjs": CODE, "README.md": "starter\n"})
    blob = git("hash-object", "-w", "--stdin", cwd=folder, input_text=target).strip()
    git("update-index", "--add", "--cacheinfo", f"120000,{blob},{path}", cwd=folder)
    git("commit", "-q", "-m", "link", cwd=folder)
    return folder


def test_a_note_committed_as_a_symbolic_link_is_said_to_be_one_and_its_target_never_shown_as_the_note(tmp_path):
    repo = gitsafe.open_submission(with_symlink(tmp_path / "sub", "NOTE.md", "/etc/passwd"))
    note = note_files.read_note(repo)
    assert note.text == ""
    assert note.problem is not None and "symbolic link" in note.problem and "/etc/passwd" in note.problem
    assert analysis.analyse(repo).attribution.note.entries == []


def test_the_modes_of_a_commits_files_are_read_from_its_trees(tmp_path):
    folder = with_symlink(tmp_path / "sub", "docs/NOTE.md", "../README.md")
    repo = gitsafe.open_submission(folder)
    assert repo.mode("HEAD", "docs/NOTE.md") == "120000"
    assert repo.mode("HEAD", "checkout.mjs") == "100644"
    assert repo.mode("HEAD", "docs") == "40000"
    assert repo.mode("HEAD", "missing.md") is None
    assert repo.mode("HEAD", "docs/missing.md") is None


def test_a_note_saved_as_utf16_is_read_with_its_disclosure(tmp_path):
    folder = make_repo(tmp_path / "sub", {"checkout.mjs": CODE})
    (folder / "NOTE.md").write_bytes(("\ufeff" + NOTE).encode("utf-16-le"))
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "note from PowerShell", cwd=folder)
    repo = gitsafe.open_submission(folder)
    note = note_files.read_note(repo)
    assert note.text == NOTE
    assert note.problem is not None and "UTF-16" in note.problem
    assert analysis.analyse(repo).attribution.tools == ["Claude Code"]


def test_a_byte_order_mark_does_not_hide_the_disclosure_heading(tmp_path):
    folder = make_repo(tmp_path / "sub", {"checkout.mjs": CODE})
    (folder / "NOTE.md").write_bytes(b"\xef\xbb\xbf" + NOTE.encode())
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "note", cwd=folder)
    repo = gitsafe.open_submission(folder)
    assert note_files.read_note(repo).text == NOTE
    assert analysis.analyse(repo).attribution.note.heading == "AI use"


def test_a_note_that_is_a_folder_is_said_to_be_one(tmp_path):
    folder = make_repo(tmp_path / "sub", {"checkout.mjs": CODE, "NOTE.md/part-1.md": NOTE})
    note = note_files.read_note(gitsafe.open_submission(folder))
    assert note.text == "" and note.problem is not None and "NOTE.md is a folder" in note.problem, note.problem


def test_a_readme_committed_as_a_symbolic_link_is_no_disclosure(tmp_path):
    """A link's blob is the path it points to, which can be any text (a section about AI use
    included): never a disclosure."""
    folder = make_repo(tmp_path / "sub", {"checkout.mjs": CODE})
    blob = git("hash-object", "-w", "--stdin", cwd=folder, input_text=NOTE).strip()
    git("update-index", "--add", "--cacheinfo", f"120000,{blob},README.md", cwd=folder)
    git("commit", "-q", "-m", "readme", cwd=folder)
    assert analysis.analyse(gitsafe.open_submission(folder)).attribution.tools == []
