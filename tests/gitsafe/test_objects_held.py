"""Which commits a submitted repository holds, read from its object files (no git in the folder):
the answer git gives, for loose and packed objects, and nothing odd followed."""

from __future__ import annotations

import os

from helpers import git, make_repo
from review.gitsafe import objects_held


def test_held_objects_are_found_loose_and_packed_as_git_finds_them(tmp_path):
    repo = make_repo(tmp_path / "s", {"a.txt": "a\n"})
    shas = []
    for n in range(30):
        (repo / "a.txt").write_text(f"{n}\n")
        git("commit", "-qam", f"c{n}", cwd=repo)
        shas.append(git("rev-parse", "HEAD", cwd=repo).strip())
    git("repack", "-q", "-a", "-d", cwd=repo)  # the first 30 packed
    (repo / "a.txt").write_text("loose\n")
    git("commit", "-qam", "loose", cwd=repo)
    loose = git("rev-parse", "HEAD", cwd=repo).strip()
    absent = ["0" * 40, "f" * 40, shas[0][:39] + ("0" if shas[0][-1] != "0" else "1")]
    found = objects_held.held(repo / ".git", [*shas, loose, *absent, "not-an-id"])
    assert found == {*shas, loose}


def test_an_index_that_lies_about_its_size_or_a_link_holds_nothing(tmp_path):
    repo = make_repo(tmp_path / "s", {"a.txt": "a\n"})
    sha = git("rev-parse", "HEAD", cwd=repo).strip()
    git("repack", "-q", "-a", "-d", cwd=repo)
    pack = repo / ".git" / "objects" / "pack"
    [index] = [p for p in pack.iterdir() if p.suffix == ".idx"]
    data = bytearray(index.read_bytes())
    data[8 + 4 * 255 : 8 + 4 * 256] = (10**9).to_bytes(4, "big")  # a billion objects in a small file
    index.write_bytes(bytes(data))
    assert objects_held.held(repo / ".git", [sha]) == set()
    index.unlink()
    os.symlink(tmp_path / "elsewhere.idx", index)
    assert objects_held.held(repo / ".git", [sha]) == set()
