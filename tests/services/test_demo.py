"""The bundled sample cohort, built by the real builder into real git repositories."""

from review import gitsafe
from review.services import cohort, samples

ARCHETYPES = {
    "ada-okafor",
    "ben-larsen",
    "chen-wei",
    "dev-patel",
    "eve-santos",
    "finn-mueller",
    "gia-romano",
    "hal-kim",
}


def test_sample_cohort_builds_identical_commit_ids_twice(tmp_path):
    first = samples.build_demo(tmp_path / "one")
    second = samples.build_demo(tmp_path / "two")
    heads_one = {p.name: gitsafe.read_head(p).sha for p in cohort.list_submissions(first)}
    heads_two = {p.name: gitsafe.read_head(p).sha for p in cohort.list_submissions(second)}
    assert set(heads_one) == ARCHETYPES
    assert heads_one == heads_two


def test_every_candidate_starts_from_the_same_starter_commit(sample_cohort):
    roots = {gitsafe.open_submission(p).root_commit() for p in cohort.list_submissions(sample_cohort)}
    assert len(roots) == 1
    repo = gitsafe.open_submission(sample_cohort / "ada-okafor")
    assert b"server.listen(8099" in repo.show(repo.root_commit(), "gateway/fake-gateway.mjs")


def test_rebuilding_keeps_score_files(tmp_path):
    folder = samples.build_demo(tmp_path / "c")
    score = folder / "ada-okafor.review.toml"
    score.write_text("schema = 1\n")
    samples.build_demo(folder)
    assert score.read_text() == "schema = 1\n"


def test_the_draft_candidate_still_has_the_per_attempt_key(sample_cohort):
    repo = gitsafe.open_submission(sample_cohort / "ada-okafor")
    assert b"idempotencyKey: crypto.randomUUID(), // fresh key per attempt" in repo.show("HEAD", "checkout.mjs")
    chen = gitsafe.open_submission(sample_cohort / "chen-wei")
    subjects = [c.subject for c in chen.commits()]
    assert subjects.index("Add a test: a retry after a 503 must reuse the idempotency key") < subjects.index(
        "Persist the idempotency key before the first request"
    )


def test_rebuilding_never_deletes_what_it_did_not_build(tmp_path):
    folder = tmp_path / "c"
    # Someone's own work where a sample candidate's folder would go, with an older history.
    mine = folder / "ada-okafor"
    mine.mkdir(parents=True)
    (mine / "my-notes.txt").write_text("mine\n")
    built = samples.build_sample_cohort(folder)
    assert built.kept == [f"{mine}: not made by `review demo`; left as it is"]
    assert (mine / "my-notes.txt").read_text() == "mine\n" and not (mine / ".git").exists()
    # The others are built, and no scratch folder is left behind.
    assert (folder / "ben-larsen" / ".git").is_dir()
    assert not [p for p in folder.iterdir() if ".building-" in p.name]


def test_rebuilding_replaces_its_own_unchanged_repository_but_not_a_changed_one(tmp_path):

    folder = samples.build_demo(tmp_path / "c")
    ada, ben = folder / "ada-okafor", folder / "ben-larsen"
    # The samples moved on since the last build: both would be rebuilt.
    for repo in (ada, ben):
        (repo / ".git" / "refs" / "heads" / "main").write_text("0" * 40 + "\n")
    built = samples._read_manifest(folder)
    built["ada-okafor"] = samples._fingerprint(ada)
    built["ben-larsen"] = samples._fingerprint(ben)
    samples._write_manifest(folder, built)
    (ben / "scratch.txt").write_text("a file of mine\n")
    kept = samples.build_sample_cohort(folder).kept
    assert kept == [f"{ben}: changed since `review demo` built it (HEAD now {'0' * 12}); left as it is"]
    assert (ben / "scratch.txt").exists()
    assert gitsafe.read_head(ada).sha != "0" * 40
    assert not [p for p in folder.iterdir() if ".building-" in p.name]


def test_a_reviewers_commit_in_the_demo_is_kept_and_the_demo_still_opens(tmp_path):
    """The README's first command again after trying a resubmission: the reviewer's commit stays,
    `review demo` says which folder it left as it was, and opens the cohort all the same."""
    import subprocess
    import sys

    from helpers import git

    folder = samples.build_demo(tmp_path / "c")
    ada = folder / "ada-okafor"
    (ada / "checkout.mjs").write_text((ada / "checkout.mjs").read_text() + "// v2\n")
    git("commit", "-qam", "fix", cwd=ada)
    head = gitsafe.read_head(ada).sha
    result = subprocess.run(
        [sys.executable, "-m", "review", "demo", "--into", str(folder), "--build-only"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(folder)
    # Wrapped at 80 columns for the terminal it stays on, a path kept whole.
    said = " ".join(result.stderr.split())
    assert f"{ada}: changed since `review demo` built it (HEAD now {head[:12]}); left as it is" in said
    assert all(len(line) <= 80 or " " not in line.strip() for line in result.stderr.splitlines())
    assert gitsafe.read_head(ada).sha == head


def test_a_reviewer_who_ran_git_status_in_the_demo_can_still_rebuild_it(tmp_path):
    """git status writes the index again (the stat data it caches): looking is no change, and the
    README's first command must not refuse the demo it built for it."""
    import os

    from helpers import git

    folder = samples.build_demo(tmp_path / "c")
    ada = folder / "ada-okafor"
    head = gitsafe.read_head(ada).sha
    # The samples moved on since this build: its HEAD is an older commit of theirs.
    starter = git("rev-list", "--max-parents=0", "HEAD", cwd=ada).strip()
    (ada / ".git" / "refs" / "heads" / "main").write_text(starter + "\n")
    built = samples._read_manifest(folder)
    built["ada-okafor"] = samples._fingerprint(ada)
    samples._write_manifest(folder, built)
    git("status", "--porcelain", cwd=ada)
    index = ada / ".git" / "index"
    os.utime(index, ns=(index.stat().st_atime_ns, index.stat().st_mtime_ns + 10**9))  # as a refresh writes it
    samples.build_demo(folder)
    assert gitsafe.read_head(ada).sha == head


def test_every_sample_repository_has_its_files_checked_out_and_a_clean_status(sample_cohort):
    from helpers import git

    for path in cohort.list_submissions(sample_cohort):
        assert git("status", "--porcelain", "--untracked-files=no", cwd=path) == "", path.name
        assert (path / "checkout.mjs").is_file(), path.name
    # As committed: the file in the folder is HEAD's.
    repo = gitsafe.open_submission(sample_cohort / "ben-larsen")
    assert (sample_cohort / "ben-larsen" / "checkout.mjs").read_bytes() == repo.show(repo.head, "checkout.mjs")
