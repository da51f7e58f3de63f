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
    try:
        samples.build_demo(folder)
    except samples.SampleError as error:
        assert str(mine) in str(error) and "nothing was deleted" in str(error)
    else:
        raise AssertionError("the build went ahead over a folder it did not make")
    assert (mine / "my-notes.txt").read_text() == "mine\n"
    # Nothing else was built either, and no scratch folder is left behind.
    assert sorted(p.name for p in folder.iterdir()) == ["ada-okafor"]


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
    try:
        samples.build_demo(folder)
    except samples.SampleError as error:
        assert str(ben) in str(error) and str(ada) not in str(error)
    else:
        raise AssertionError("a changed folder was replaced")
    assert (ben / "scratch.txt").exists()
    (ben / "scratch.txt").unlink()
    # With ben-larsen's folder moved away, the rebuild replaces only what it made and nobody touched.
    ben.rename(tmp_path / "ben-kept")
    samples.build_demo(folder)
    assert gitsafe.read_head(ada).sha != "0" * 40
    assert (tmp_path / "ben-kept" / ".git").is_dir()
    assert not [p for p in folder.iterdir() if ".building-" in p.name]


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
