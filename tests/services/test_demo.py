"""The bundled sample cohort, built by the real builder into real git repositories."""

from review import gitsafe
from review.services import cohort, samples

ARCHETYPES = {"ada-okafor", "ben-larsen", "chen-wei", "dev-patel", "eve-santos", "finn-mueller", "gia-romano",
              "hal-kim"}


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
    assert subjects.index("Add a test: a retry after a 503 must reuse the idempotency key") < \
        subjects.index("Persist the idempotency key before the first request")
