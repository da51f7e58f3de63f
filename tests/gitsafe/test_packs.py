"""Objects read from a clone's own files (its packs, their deltas, loose objects) are the bytes git
gives, and what is odd there is left to git."""

from __future__ import annotations

import subprocess

from review import gitsafe
from review.gitsafe.packs import LocalObjects
from review.services import samples


def every_object(git_dir) -> dict[str, tuple[str, bytes]]:
    """Every object of the clone as git itself reads it."""
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    found, at = {}, 0
    while at < len(out):
        end = out.index(b"\n", at)
        oid, kind, size = out[at:end].decode().split()
        found[oid] = (kind, out[end + 1 : end + 1 + int(size)])
        at = end + 1 + int(size) + 1
    return found


def deltas(git_dir) -> int:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch-all-objects", "--batch-check=%(deltabase)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sum(1 for line in out.split() if line.strip("0"))


def a_history(folder) -> None:
    """A file edited a little in each of many commits: git's pack stores most versions as deltas."""
    lines = [f"export const value{n} = {n} * 2; // line {n} of the module" for n in range(300)]
    commits = []
    for step in range(12):
        lines[step * 20] = f"export const changed{step} = {step};"
        files = {"lib/big.mjs": ("\n".join(lines) + "\n").encode(), f"notes/{step}.md": b"# step\n"}
        commits.append(samples.CommitSpec(files, f"step {step}", "Ana", "ana@example.com", "2026-01-02T00:00:00Z"))
    samples.build_repo(folder, commits)


def test_every_object_of_a_clone_with_deltas_reads_as_git_reads_it(tmp_path):
    a_history(tmp_path / "sub")
    repo = gitsafe.open_submission(tmp_path / "sub")
    expected = every_object(repo.path)
    assert deltas(repo.path) >= 5  # the reading of deltas is what is checked
    local = LocalObjects.open(repo.path)
    assert local is not None
    try:
        assert {oid: local.read(oid) for oid in expected} == expected
        assert local.read("0" * 40) is None
    finally:
        local.close()

    # Through the reader the callers use, asked to read the clone's files first: the same listing and
    # bytes as through git, and no git process started for them.
    def read_all():
        listed = repo.files("HEAD")
        return listed, repo.objects.read_many([f.oid for f in listed]), repo.objects.read(f"{repo.head}^{{tree}}")

    by_git = read_all()
    repo.objects.close()
    repo.objects.local_first = True
    assert read_all() == by_git and repo.objects._proc is None
    assert by_git[1][0] == ("blob", (tmp_path / "sub" / "lib" / "big.mjs").read_bytes(), len(by_git[1][0][1]))
    repo.objects.close()


def test_a_pack_index_it_cannot_read_leaves_the_clone_to_git(tmp_path):
    a_history(tmp_path / "sub")
    repo = gitsafe.open_submission(tmp_path / "sub")
    head_tree = repo.objects.read(f"{repo.head}^{{tree}}")
    repo.objects.close()
    (index,) = (repo.path / "objects" / "pack").glob("*.idx")
    kept = index.read_bytes()
    index.chmod(0o600)
    index.write_bytes(kept[: len(kept) // 3])  # cut short: nothing guessed from what is left
    local = LocalObjects.open(repo.path)
    assert local is None or local.read(repo.head) is None
    if local is not None:
        local.close()
    # The reader asks git for what the clone's files did not give (git reads the pack without its index).
    repo.objects.local_first = True
    index.write_bytes(kept)
    assert repo.objects.read(f"{repo.head}^{{tree}}") == head_tree
    repo.objects.close()
