"""Viewed files in the score file: kept per reviewer against each file's blob, sealed, merged under
the lock with what is on disk, and separate from the reviews (a mark is no review, a review's save
keeps the marks)."""

from __future__ import annotations

import tomllib

import tomli_w

from review.services import seal, store, viewed


def test_marks_are_kept_sealed_and_read_back_as_written(tmp_path):
    sub = tmp_path / "ada"
    sub.mkdir()
    viewed.save(sub, ["ana"], {"checkout.mjs": "a" * 40, "money.mjs": "b" * 40})
    viewed.save(sub, ["ana"], {"money.mjs": None})
    marks = viewed.read(store.read_scores(sub), ["ana"])
    assert marks.files == {"checkout.mjs": "a" * 40} and marks.unsealed == 0 and marks.problem is None
    data = tomllib.loads((tmp_path / "ada.review.toml").read_text())
    (entry,) = data["viewed"]
    assert entry["reviewers"] == ["ana"] and entry["files"] == {"checkout.mjs": "a" * 40}
    assert seal.check(entry, seal.key()) is None
    # A mark is no review: the row stays new.
    scores = store.read_scores(sub)
    assert scores.reviews == [] and store.review_state(scores, "c" * 40) == "new"


def test_two_consoles_marking_other_files_both_keep_theirs_and_other_reviewers_are_untouched(tmp_path):
    sub = tmp_path / "ben"
    sub.mkdir()
    viewed.save(sub, ["bob"], {"a.mjs": "1" * 40})
    viewed.save(sub, ["ana"], {"a.mjs": "1" * 40})
    # Another console of ana's, on another file: merged, not overwritten.
    viewed.save(sub, ["ana"], {"b.mjs": "2" * 40})
    scores = store.read_scores(sub)
    assert viewed.read(scores, ["ana"]).files == {"a.mjs": "1" * 40, "b.mjs": "2" * 40}
    assert viewed.read(scores, ["bob"]).files == {"a.mjs": "1" * 40}
    assert viewed.read(scores, ["ana", "bob"]).files == {}


def test_reviews_and_marks_keep_each_other_on_save(tmp_path):
    sub = tmp_path / "chen"
    sub.mkdir()
    saved = store.save(sub, store.Review(reviewers=["ana"], commit="c" * 40, tiers={"evidence": "weak"}))
    viewed.save(sub, ["ana"], {"checkout.mjs": "a" * 40})
    # The review's seal still holds after the mark's save, and its revision is unchanged.
    again = store.read_scores(sub)
    assert again.unsealed == [] and again.find(saved.key).revision == 1
    store.save(sub, store.Review(reviewers=["ana"], commit="c" * 40, tiers={"evidence": "strong"}), base_revision=1)
    after = store.read_scores(sub)
    assert after.find(saved.key).tiers == {"evidence": "strong"}
    assert viewed.read(after, ["ana"]).files == {"checkout.mjs": "a" * 40}


def test_a_planted_or_edited_mark_is_not_counted_and_is_kept_on_disk(tmp_path):
    sub = tmp_path / "dev"
    sub.mkdir()
    path = tmp_path / "dev.review.toml"
    viewed.save(sub, ["ana"], {"checkout.mjs": "a" * 40})
    data = tomllib.loads(path.read_text())
    # A candidate marks their risky file read, in the reviewer's name.
    data["viewed"][0]["files"]["payments.mjs"] = "f" * 40
    path.write_text(tomli_w.dumps(data))
    marks = viewed.read(store.read_scores(sub), ["ana"])
    assert marks.files == {} and marks.unsealed == 1
    # Marking again makes a sealed entry of its own; the edited one stays as it was, still not counted.
    viewed.save(sub, ["ana"], {"checkout.mjs": "a" * 40})
    marks = viewed.read(store.read_scores(sub), ["ana"])
    assert marks.files == {"checkout.mjs": "a" * 40} and marks.unsealed == 1
    assert any("payments.mjs" in entry["files"] for entry in tomllib.loads(path.read_text())["viewed"])
