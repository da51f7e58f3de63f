"""gitsafe against real repositories, hostile ones included."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import git, make_repo
from review import gitsafe
from review.gitsafe.head import refs_from_files
from review.services import cohort, samples

HOOK_NAMES = [
    "pre-commit",
    "post-checkout",
    "post-merge",
    "pre-push",
    "post-rewrite",
    "reference-transaction",
    "pre-auto-gc",
    "post-index-change",
    "fsmonitor-watchman",
    "pre-receive",
    "update",
    "post-update",
    "push-to-checkout",
    "sendemail-validate",
]


def write_script(path: Path, sentinel: Path, tag: str) -> None:
    path.write_text(f"#!/bin/sh\necho {tag} >> '{sentinel}'\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A submission whose config, attributes and hooks all try to run a command."""
    sentinel_dir = tmp_path / "sentinels"
    sentinel_dir.mkdir()
    sentinel = sentinel_dir / "ran.txt"
    repo = make_repo(tmp_path / "evil", {"checkout.mjs": "export const a = 1;\n", "notes.txt": "one\n"})
    (repo / "checkout.mjs").write_text("export const a = 2;\n")
    (repo / "notes.txt").write_text("two\n")
    (repo / ".gitattributes").write_text("* diff=evil filter=evil merge=evil\n")
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "second", cwd=repo)
    script = tmp_path / "payload.sh"
    write_script(script, sentinel, "payload")
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in HOOK_NAMES:
        write_script(hooks / name, sentinel, f"hook-{name}")
    with open(repo / ".git" / "config", "a") as config:
        config.write(f"""
[core]
    fsmonitor = {script}
    pager = {script}
    hooksPath = {hooks}
    sshCommand = {script}
    editor = {script}
    askPass = {script}
[diff]
    external = {script}
[diff "evil"]
    textconv = {script}
    command = {script}
[filter "evil"]
    clean = {script}
    smudge = {script}
    process = {script}
[uploadpack]
    packObjectsHook = {script}
[credential]
    helper = !{script}
[gpg]
    program = {script}
""")
    return repo, sentinel


def test_the_trap_is_real(tmp_path):
    """Control: git run *inside* the hostile folder does run its commands, so the test below can fail."""
    repo, sentinel = hostile_repo(tmp_path)
    subprocess.run(
        ["git", "diff", "HEAD~1"],
        cwd=repo,
        capture_output=True,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"},
    )
    assert sentinel.exists()


def test_listing_diffing_and_logging_a_hostile_repo_runs_nothing(tmp_path):
    repo, sentinel = hostile_repo(tmp_path)
    row = cohort.load_row(repo)
    assert row.problem is None and row.commits == 2
    safe = gitsafe.open_submission(repo)
    patch = safe.diff(safe.root_commit(), "HEAD")
    assert b"-export const a = 1;" in patch and b"+export const a = 2;" in patch  # the real diff, no textconv
    assert safe.show("HEAD", "notes.txt") == b"two\n"
    assert [f.path for f in safe.files()] == [".gitattributes", "checkout.mjs", "notes.txt"]
    safe.fetch_notes()
    assert safe.notes("refs/notes/ai", safe.head) is None
    assert not sentinel.exists(), sentinel.read_text()
    # The clean clone has none of the submission's config.
    config = (safe.path / "config").read_text()
    for key in ("fsmonitor", "textconv", "hooksPath", "external", "packObjectsHook", "payload.sh"):
        assert key not in config, config


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the repository to another user")
def test_a_repository_owned_by_another_user_opens(tmp_path):
    repo = make_repo(tmp_path / "theirs", {"checkout.mjs": "x\n"})
    subprocess.run(["chown", "-R", "65534:65534", str(repo)], check=True)
    # Control: plain git refuses it (dubious ownership), which is what safe.directory is for.
    plain = subprocess.run(
        ["git", "-C", str(repo), "log", "-1"],
        capture_output=True,
        text=True,
        env={
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
        },
    )
    assert plain.returncode != 0 and "dubious ownership" in plain.stderr
    row = cohort.load_row(repo)
    assert row.problem is None and row.commits == 1


def test_cache_is_refreshed_when_head_moves(tmp_path):
    repo = make_repo(tmp_path / "sub", {"checkout.mjs": "v1\n"})
    first = gitsafe.open_submission(repo)
    assert len(first.commits()) == 1
    assert gitsafe.open_submission(repo).path == first.path  # unchanged HEAD: the cache is reused
    (repo / "checkout.mjs").write_text("v2\n")
    git("commit", "-qam", "second", cwd=repo)
    second = gitsafe.open_submission(repo)
    assert second.head != first.head
    assert len(second.commits()) == 2
    assert second.show("HEAD", "checkout.mjs") == b"v2\n"


def test_head_is_read_from_files(tmp_path):
    repo = make_repo(tmp_path / "r", {"a": "1\n"})
    sha = git("rev-parse", "HEAD", cwd=repo).strip()
    assert gitsafe.read_head(repo) == gitsafe.HeadInfo(repo / ".git", sha, "main")
    git("pack-refs", "--all", cwd=repo)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert gitsafe.read_head(repo).sha == sha  # from packed-refs
    git("checkout", "-q", "--detach", cwd=repo)
    assert gitsafe.read_head(repo).sha == sha and gitsafe.read_head(repo).branch is None


@pytest.mark.parametrize(
    "head_text, reason",
    [
        ("garbage\n", "neither a commit id nor a ref"),
        ("ref: refs/heads/../../../etc/passwd\n", "malformed ref"),
        ("ref: --upload-pack=evil\n", "malformed ref"),
    ],
)
def test_unreadable_head_says_why(tmp_path, head_text, reason):
    repo = make_repo(tmp_path / "r", {"a": "1\n"})
    (repo / ".git" / "HEAD").write_text(head_text)
    with pytest.raises(gitsafe.GitSafeError, match=reason):
        gitsafe.read_head(repo)


def test_head_naming_a_missing_commit(tmp_path):
    repo = make_repo(tmp_path / "r", {"a": "1\n"})
    (repo / ".git" / "refs" / "heads" / "main").write_text("1" * 40 + "\n")
    with pytest.raises(gitsafe.GitSafeError, match="missing or corrupt"):
        gitsafe.open_submission(repo)


@pytest.mark.parametrize("packed", [False, True])
def test_head_naming_a_branch_that_does_not_exist_is_not_called_empty(tmp_path, packed):
    """HEAD left on a branch that was never made (or was deleted) while the work sits on another:
    the row says so and names the branches there are, never "no commits yet"."""
    repo = make_repo(tmp_path / "r", {"a": "1\n"})
    git("branch", "work", cwd=repo)
    if packed:
        git("pack-refs", "--all", cwd=repo)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/submitted\n")
    with pytest.raises(gitsafe.GitSafeError) as raised:
        gitsafe.open_submission(repo)
    said = str(raised.value)
    assert "HEAD names the branch submitted, which does not exist" in said, said
    assert "branches: main, work" in said and "no commits yet" not in said


def test_an_unborn_repository_is_still_called_empty(tmp_path):
    (tmp_path / "r").mkdir()
    git("init", "-q", cwd=tmp_path / "r")
    with pytest.raises(gitsafe.GitSafeError, match="no commits yet"):
        gitsafe.open_submission(tmp_path / "r")


@pytest.mark.parametrize("where", [".git/objects/deep", ".git/refs/notes/deep", ".git/refs/heads/deep"])
def test_folders_nested_deeper_than_python_recurses_in_the_git_internals_are_walked(tmp_path, where):
    """Empty folders 1,200 deep under objects/ or refs/ (git ignores them): the checks before the copy
    and the notes' fingerprint walk them, and the row reads as any other — not a RecursionError."""
    from review.support import trees

    repo = make_repo(tmp_path / "r", {"a": "1\n"})
    top = repo / where
    top.mkdir(parents=True)
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(1200):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    try:
        row = cohort.load_row(repo)
        assert row.problem is None and row.head == git("rev-parse", "HEAD", cwd=repo).strip(), row.problem
    finally:
        # pytest's own clean-up of old temporary folders would recurse into it.
        trees.remove(top)


@pytest.mark.parametrize(
    "damage, words",
    [
        ("blob", "loose object"),
        ("tree", "bad tree object"),
    ],
)
def test_a_corrupt_or_missing_object_is_named_not_gits_last_words(tmp_path, damage, words):
    """git's last line for a copy that failed on a bad object is "invalid index-pack output": the
    reason is the line that names the object, and HEAD itself is not blamed."""
    repo = make_repo(tmp_path / "r", {"checkout.mjs": "export const a = 1;\n"})
    oid = git("rev-parse", "HEAD:checkout.mjs" if damage == "blob" else "HEAD^{tree}", cwd=repo).strip()
    loose = repo / ".git" / "objects" / oid[:2] / oid[2:]
    if damage == "blob":
        loose.chmod(0o644)
        loose.write_bytes(b"not zlib at all")
    else:
        loose.unlink()
    with pytest.raises(gitsafe.GitSafeError) as raised:
        gitsafe.open_submission(repo)
    said = str(raised.value)
    assert words in said and oid in said and "index-pack" not in said and "HEAD" not in said, said


@pytest.mark.parametrize("names, kind", [("HEAD:a", "blob"), ("HEAD^{tree}", "tree")])
def test_head_naming_an_object_that_is_no_commit_says_what_it_names(tmp_path, names, kind):
    repo = make_repo(tmp_path / "r", {"a": "1\n"})
    (repo / ".git" / "refs" / "heads" / "main").write_text(git("rev-parse", names, cwd=repo))
    with pytest.raises(gitsafe.GitSafeError, match=f"HEAD cannot be read: it names a {kind}, not a commit"):
        gitsafe.open_submission(repo)
    # No copy is left for the next reading to take as made; it meets the same reason.
    assert not gitsafe.cache_path_for(repo).exists()
    with pytest.raises(gitsafe.GitSafeError, match=f"it names a {kind}, not a commit"):
        gitsafe.open_submission(repo)


def test_option_like_revisions_are_refused(tmp_path):
    safe = gitsafe.open_submission(make_repo(tmp_path / "r", {"a": "1\n"}))
    for bad in ["--upload-pack=touch /tmp/x", "-c", "HEAD~1; rm -rf /", "main"]:
        with pytest.raises(gitsafe.GitSafeError):
            safe.check_rev(bad)
    with pytest.raises(gitsafe.GitSafeError):
        safe.resolve("--output=/tmp/x")
    assert safe.resolve(safe.head[:7]) == safe.head


def test_symlinked_git_dir_is_not_followed(tmp_path):
    real = make_repo(tmp_path / "real", {"a": "1\n"})
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / ".git").symlink_to(real / ".git")
    with pytest.raises(gitsafe.GitSafeError, match="symbolic link"):
        gitsafe.read_head(fake)


def test_build_repo_is_deterministic(tmp_path):
    spec = [
        samples.CommitSpec(
            {"a/b/c.txt": b"x\n", "top.md": b"y\n"}, "one\n\nbody\n", "A", "a@x", "2026-01-01T00:00:00Z"
        ),
        samples.CommitSpec({"a/d.txt": b"z\n"}, "two", "B", "b@x", "2026-01-02T00:00:00Z", delete=("top.md",)),
    ]
    first = samples.build_repo(tmp_path / "one", spec)
    second = samples.build_repo(tmp_path / "two", spec)
    assert first == second and gitsafe.SHA_RE.match(first)
    listing = git("ls-tree", "-r", "--name-only", "HEAD", cwd=tmp_path / "one").split()
    assert listing == ["a/b/c.txt", "a/d.txt"]


def _children_named(name: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat_line = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if stat_line.rpartition(")")[2].split()[1] == str(os.getpid()) and name.encode() in cmdline:
                found.append(int(entry))
    return found


def test_objects_are_read_through_one_batch_process_that_stays_in_step(tmp_path):
    earlier = set(_children_named("cat-file"))  # another test's reader, not yet collected, is not ours
    big = "x" * 200_000 + "\n"
    repo = make_repo(tmp_path / "sub", {"big.txt": big, "small.txt": "small\n", "caf\u00e9.mjs": "export {};\n"})
    safe = gitsafe.open_submission(repo)
    assert safe.show("HEAD", "big.txt", limit=10) == b"x" * 10  # the rest is read and dropped
    assert safe.show("HEAD", "small.txt") == b"small\n"  # so the next answer is the right one
    assert safe.show("HEAD", "caf\u00e9.mjs") == b"export {};\n"  # non-ASCII paths as they are
    assert safe.show("HEAD", "missing.txt") is None
    assert safe.show("HEAD", "small.txt\nHEAD:big.txt") is None  # no second request smuggled in
    assert safe.show("HEAD", "small.txt") == b"small\n"
    kind, data, size = safe.objects.read(f"{safe.head}:big.txt", 5)
    assert (kind, data, size) == ("blob", b"xxxxx", len(big))
    assert len(set(_children_named("cat-file")) - earlier) == 1  # one process for all of the reads above
    safe.objects.close()
    assert set(_children_named("cat-file")) - earlier == set()


def test_a_batch_of_objects_is_asked_for_at_once_and_answered_in_order(tmp_path):
    """5,000 notes cost one round trip, not one each: the names are written while the answers are
    read, so neither pipe fills up and stalls the other (the answers here are 4 MB, past any pipe)."""
    earlier = set(_children_named("cat-file"))
    files = {f"f{i}.txt": f"{i}\n" * (i % 7 + 1) for i in range(3000)}
    files["big.txt"] = "y" * 4_000_000 + "\n"
    safe = gitsafe.open_submission(make_repo(tmp_path / "sub", files))
    names = [f"{safe.head}:f{i}.txt" for i in range(3000)]
    names[10] = f"{safe.head}:missing.txt"
    names[20] = f"{safe.head}:f1.txt\n{safe.head}:big.txt"  # a smuggled second request reads as missing
    names.insert(500, f"{safe.head}:big.txt")
    answers = safe.objects.read_many(names, limit=100)
    assert len(answers) == len(names)
    assert answers[10] is None and answers[20] is None
    assert answers[500] == ("blob", b"y" * 100, 4_000_001)  # cut at the limit, the rest read and dropped
    for name, answer in zip(names, answers):
        if answer is not None and not name.endswith(":big.txt"):
            i = int(name.rsplit(":f", 1)[1].split(".")[0])
            assert answer == ("blob", f"{i}\n".encode() * (i % 7 + 1), len(f"{i}\n") * (i % 7 + 1))
    assert safe.objects.read_many([]) == []
    assert safe.show("HEAD", "f3.txt") == b"3\n" * 4  # still in step afterwards
    assert len(set(_children_named("cat-file")) - earlier) == 1
    safe.objects.close()
    assert set(_children_named("cat-file")) - earlier == set()


def test_a_huge_diff_is_read_only_up_to_its_cap(tmp_path):
    repo = make_repo(tmp_path / "big", {"small.txt": "x\n"})
    (repo / "big.txt").write_text("line of text\n" * 200_000)  # 2.6 MB of patch
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "big", cwd=repo)
    safe = gitsafe.open_submission(repo)
    first = safe.commits()[0].sha
    patch = safe.diff(first, "HEAD", max_bytes=100_000)
    assert len(patch) == 100_001  # one byte past the cap: the caller knows it was cut
    assert len(safe.diff(first, "HEAD")) > 2_000_000  # the default cap is far above this one


def test_a_folder_whose_name_git_config_cannot_carry_opens_when_it_is_the_reviewers_own(tmp_path):
    """A line break, quote or backslash in the folder's name cannot go into a safe.directory line;
    a folder the reviewer owns needs none, so it opens as any other."""
    folder = make_repo(tmp_path / 'eve\n"quoted"\\name', {"checkout.mjs": "export const a = 1;\n"})
    repo = gitsafe.open_submission(folder)
    assert repo.show("HEAD", "checkout.mjs") == b"export const a = 1;\n"


def test_a_long_history_is_streamed_whole_and_its_copy_counts_as_long(tmp_path):
    """A history whose patches run past the point where reads wait for more (the replay's batching)
    comes through byte for byte; its copy's object count, read from the pack index without git, says
    it is long, and a three-commit copy says it is not."""
    from review.devtools.bench.repo import make_large_repo
    from review.services.origins import Origins

    make_large_repo(tmp_path / "long", commits=400, lines=8000)
    repo = gitsafe.open_submission(tmp_path / "long")
    lines = [line for batch in repo.history_patches("HEAD") for line in batch]
    # The children come first (one line a commit), then git log's stream as it wrote it.
    children = [line for line in lines if line.startswith(b"\0children ")]
    assert len(children) == 400 and lines[: len(children)] == children
    streamed = b"\n".join(lines[len(children) :])
    whole = gitsafe.run_trusted(
        [
            "--git-dir",
            str(repo.path),
            "log",
            "--reverse",
            "--topo-order",
            "-m",
            "-p",
            "-U0",
            "-M",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--format=%x00commit %H %T %P",
            "HEAD",
            "--",
        ]
    )
    assert len(whole) > gitsafe.env.LONG_OUTPUT
    assert streamed + b"\n" == whole
    counted = gitsafe.run_trusted(["--git-dir", str(repo.path), "count-objects", "-v"]).decode()
    assert f"in-pack: {repo.object_count()}\n" in counted
    assert Origins.looks_long(repo)
    short = make_repo(tmp_path / "short", {"a.mjs": "1\n"})
    for n in range(2):
        (short / "a.mjs").write_text(f"{n}\n")
        git("commit", "-qam", f"edit {n}", cwd=short)
    small = gitsafe.open_submission(short)
    # Three commits, two trees and two blobs (the last edit brings the first text back).
    assert small.object_count() == 7
    assert not Origins.looks_long(small)


def test_consoles_opening_a_new_submission_at_once_make_one_copy_and_each_reads_it(tmp_path):
    """Two reviewers' consoles (or two browser tabs) start on the same cohort with an empty cache: each
    opens every submission at the same moment. One copies it; the others wait and read that copy. A
    second copy swapped in over the first would pull it from under the console reading it."""
    repo = make_repo(tmp_path / "sub", {"checkout.mjs": "v1\n"})
    for n in range(3):
        (repo / "checkout.mjs").write_text(f"v{n + 2}\n")
        git("commit", "-qam", f"edit {n}", cwd=repo)
    go = tmp_path / "go"
    # Each says it is ready (imports done) with a file of its own, opens the copy once `go` exists, then
    # reads its history and notes which copy it read.
    script = (
        "import os, sys, time\nfrom pathlib import Path\nfrom review import gitsafe\n"
        f"go = Path({str(go)!r})\n"
        f"Path({str(tmp_path)!r}, 'ready-' + sys.argv[1]).touch()\n"
        "while not go.exists(): time.sleep(0.001)\n"
        f"opened = gitsafe.open_submission(Path({str(repo)!r}))\n"
        "print(len(opened.commits()), os.stat(opened.path).st_ino)\n"
    )
    consoles = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for n in range(4)
    ]
    # Every console is started and waiting, however long that takes on a loaded machine.
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("ready-*"))) < 4:
        assert time.monotonic() < deadline and all(console.poll() is None for console in consoles)
        time.sleep(0.01)
    go.touch()
    said = [console.communicate(timeout=60) for console in consoles]
    assert all(console.returncode == 0 for console in consoles), said
    counts_and_copies = {tuple(out.split()) for out, _ in said}
    copy = gitsafe.cache_path_for(repo)
    # Every console read four commits, from one and the same copy: the one still in the cache.
    assert counts_and_copies == {("4", str(os.stat(copy).st_ino))}
    assert sorted(p.name for p in copy.parent.iterdir()) == sorted([copy.name, copy.name + ".lock"])


def test_the_files_of_a_tree_are_what_git_ls_tree_lists(tmp_path):
    """The files at a commit are read through the one batch process, folder by folder; each path,
    mode, kind, size and id is what `git ls-tree -r --long` says, in its order: nested and empty-named
    folders, a name git sorts after its folder's sibling, spaces and a name that is not UTF-8, a link,
    an executable, a submodule, a file in two identical folders, an empty file."""
    repo = make_repo(
        tmp_path / "sub",
        {
            "checkout.mjs": "x\n",
            "a/b/c/deep.txt": "deep\n",
            "a-b.txt": "sorted\n",
            "a/b.txt": "y\n",
            "with space/n o.md": "z\n",
            "twin1/same.txt": "same\n",
            "twin2/same.txt": "same\n",
            "empty": "",
        },
    )
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    os.symlink("checkout.mjs", repo / "link.mjs")
    (repo / os.fsdecode(b"latin-\xe9.txt")).write_text("\n")
    git("add", "-A", cwd=repo)
    sub = git("rev-parse", "HEAD", cwd=repo).strip()
    git("update-index", "--add", "--cacheinfo", f"160000,{sub},vendor/lib", cwd=repo)
    git("commit", "-qm", "more", cwd=repo)
    copy = gitsafe.open_submission(repo)
    read = [(f.path, f.mode, f.kind, f.size, f.oid) for f in copy.files("HEAD")]
    assert read == _ls_tree(copy, "HEAD")
    assert ("vendor/lib", "160000", "commit", None, sub) in read and len(read) == 12
    first = git("rev-list", "--max-parents=0", "HEAD", cwd=repo).strip()
    assert [(f.path, f.mode, f.kind, f.size, f.oid) for f in copy.files(first)] == _ls_tree(copy, first)


def _ls_tree(copy: gitsafe.SafeRepo, rev: str) -> list[tuple]:
    raw = subprocess.run(
        ["git", "--git-dir", str(copy.path), "ls-tree", "-r", "-z", "--long", "--full-tree", rev],
        capture_output=True,
        check=True,
    ).stdout
    listed = []
    for item in filter(None, raw.split(b"\0")):
        meta, _, path = item.partition(b"\t")
        mode, kind, oid, size = meta.decode().split(maxsplit=3)
        listed.append((path.decode("utf-8", "replace"), mode, kind, None if size.strip() == "-" else int(size), oid))
    return listed


def test_a_tree_that_names_one_folder_in_many_places_is_refused_past_the_cap(tmp_path, monkeypatch):
    """Ten folders, each the same ten folders deep down: a few objects listing 10,000 files (a real
    bomb lists billions). Reading it stops at the cap and says why; nothing is listed half."""
    from review.gitsafe import objects

    repo = make_repo(tmp_path / "bomb", {"checkout.mjs": "x\n"})
    tree = git("write-tree", cwd=repo).strip()
    for _ in range(4):
        entries = "".join(f"040000 tree {tree}\td{n}\n" for n in range(10))
        tree = git("mktree", cwd=repo, input_text=entries).strip()
    commit = git("commit-tree", tree, "-m", "bomb", cwd=repo).strip()
    git("update-ref", "refs/heads/main", commit, cwd=repo)
    copy = gitsafe.open_submission(repo)
    monkeypatch.setattr(objects, "MAX_TREE_ENTRIES", 20_000)
    assert len(copy.files("HEAD")) == 10_000
    monkeypatch.setattr(objects, "MAX_TREE_ENTRIES", 5_000)
    with pytest.raises(gitsafe.GitSafeError, match="more than 5,000 files and folders"):
        copy.files("HEAD")


def test_the_notes_refs_read_from_the_copys_files_are_what_git_for_each_ref_lists(tmp_path):
    """Which notes a copy holds is read from its ref files (packed by the copy, loose once notes that
    came later are fetched), as `git for-each-ref` lists them; a symbolic ref is left to git."""
    repo = make_repo(tmp_path / "sub", {"checkout.mjs": "x\n"})
    head = git("rev-parse", "HEAD", cwd=repo).strip()
    git("notes", "--ref=ai", "add", "-m", "first", head, cwd=repo)
    copy = gitsafe.open_submission(repo)

    def for_each_ref() -> dict[str, str]:
        out = subprocess.run(
            [
                "git",
                "--git-dir",
                str(copy.path),
                "for-each-ref",
                "--format=%(objectname) %(refname)",
                "--",
                "refs/notes/",
                "refs/ai/",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return dict(reversed(line.split(" ", 1)) for line in out.splitlines())

    assert copy.refs_under("refs/notes/", "refs/ai/") == for_each_ref() and "refs/notes/ai" in for_each_ref()
    # Notes pushed after the copy: fetched into loose refs beside the packed ones.
    (repo / "checkout.mjs").write_text("y\n")
    git("notes", "--ref=ai", "add", "-f", "-m", "second", head, cwd=repo)
    git("notes", "--ref=whogitit", "add", "-m", "w", head, cwd=repo)
    git("update-ref", f"refs/ai/authorship/{head}", head, cwd=repo)
    copy = gitsafe.open_submission(repo)
    assert (copy.path / "refs" / "notes" / "whogitit").is_file()
    assert copy.refs_under("refs/notes/", "refs/ai/") == for_each_ref() and len(for_each_ref()) == 3
    assert refs_from_files(copy.path, ("refs/notes/", "refs/ai/")) == for_each_ref()  # no git asked
    assert copy.refs_under("refs/ai/") == {f"refs/ai/authorship/{head}": head}
    git("symbolic-ref", "refs/notes/other", "refs/notes/ai", cwd=copy.path)
    assert copy.refs_under("refs/notes/", "refs/ai/") == for_each_ref() and len(for_each_ref()) == 4
    assert refs_from_files(copy.path, ("refs/notes/",)) is None


def test_modes_an_old_or_odd_tree_records_are_read_as_git_reads_them(tmp_path):
    """Old repositories hold files of mode 100664; a crafted tree may hold 100777 or a mode git knows
    nothing of. Each reads as ls-tree lists it (100644, 100755, a submodule), so the harness still
    runs a 100664 file."""
    repo = make_repo(tmp_path / "sub", {"checkout.mjs": "x\n"})
    blob = git("hash-object", "-w", "checkout.mjs", cwd=repo).strip()
    raw = b"".join(
        mode + b" " + name + b"\0" + bytes.fromhex(blob)
        for mode, name in [
            (b"100664", b"a.mjs"),
            (b"100777", b"b.mjs"),
            (b"100600", b"c.mjs"),
            (b"100644", b"checkout.mjs"),
        ]
    )
    tree = (
        subprocess.run(
            ["git", "hash-object", "-w", "-t", "tree", "--literally", "--stdin"],
            cwd=repo,
            input=raw,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    commit = git("commit-tree", tree, "-m", "odd modes", cwd=repo).strip()
    git("update-ref", "refs/heads/main", commit, cwd=repo)
    copy = gitsafe.open_submission(repo)
    read = [(f.path, f.mode, f.kind, f.size, f.oid) for f in copy.files("HEAD")]
    assert read == _ls_tree(copy, "HEAD")
    assert [f.mode for f in copy.files("HEAD")] == ["100644", "100755", "100644", "100644"]
