"""The score session without a screen: which entry the form opens with, what a final needs, saves
queued behind the one under way, a conflict with another console, and that console's saves seen.
Real score files in a tmp cohort, written through the store."""

from __future__ import annotations

from pathlib import Path

from review.core.rubric import ARTICLE
from review.services import store
from review.services.scoring import RubricChoice, ScoreSession, read_rubric

COMMITS = [("a" * 40, "starter"), ("b" * 40, "the draft"), ("c" * 40, "hoist the key")]
HEAD = COMMITS[-1][0]
TIERS = {signal.id: "strong" for signal in ARTICLE.signals}


def values(state: str = "draft", tiers: dict | None = None) -> dict:
    return {"tiers": dict(TIERS if tiers is None else tiers), "comments": {}, "comment": "", "flags": [],
            "anchored": [], "state": state}


def submission(tmp_path: Path) -> Path:
    folder = tmp_path / "cohort" / "ada"
    folder.mkdir(parents=True)
    return folder


def session(path: Path, reviewers=("ana",), blind=False) -> ScoreSession:
    return ScoreSession(path, reviewers, RubricChoice(ARTICLE), blind)


def save(scoring: ScoreSession, form: dict, autosave: bool = False) -> store.Review:
    review, _ = scoring.review(form, [], None, None)
    base, force = scoring.begin_save(autosave)
    written = scoring.write(review, base, force)
    assert written.review is not None and written.scores is not None, written.problem
    scoring.saved(written.review, written.scores)
    return written.review


def test_a_rubric_cohort_toml_cannot_give_is_the_articles_with_why(tmp_path):
    (tmp_path / "cohort.toml").write_text("[rubric\n")
    chosen = read_rubric(tmp_path)
    assert chosen.rubric is ARTICLE and "cohort.toml" in (chosen.problem or "")
    assert read_rubric(tmp_path / "nothing-here").problem is None


def test_an_older_review_opens_as_a_draft_for_head_and_says_what_changed(tmp_path):
    path = submission(tmp_path)
    first = session(path)
    first.start(COMMITS[1][0], COMMITS[:2], store.read_scores(path))
    first.open_note()
    save(first, values("final"))

    again = session(path)
    start = again.start(HEAD, COMMITS, store.read_scores(path))
    assert start.as_draft and start.review is not None and start.review.state == "final"
    assert again.reviewed_before is not None and again.loaded is None
    assert any(line.startswith("STALE: your final review was for bbbbbbb") and "1 new commit(s): hoist the "
                                                                               "key"
               in line for line in start.status)
    # The note gate is per commit.
    assert again.note_opened is None


def test_final_needs_every_tier_and_the_note_on_screen(tmp_path):
    scoring = session(submission(tmp_path))
    scoring.start(HEAD, COMMITS, store.read_scores(scoring.path))
    review, notes = scoring.review(values("final", {"found-defect": "weak"}), ["Key scope"], "8/8 ok", 0.5)
    assert review.state == "draft" and "no tier yet for Key scope" in notes[0]
    review, notes = scoring.review(values("final"), [], None, None)
    assert review.state == "draft" and "open the note first" in notes[0]
    assert scoring.open_note() and not scoring.open_note()
    review, notes = scoring.review(values("final"), [], "8/8 ok", 0.25)
    assert (review.state, notes, review.harness, review.ai_share) == ("final", [], "8/8 ok", 0.25)


def test_saves_asked_for_during_a_save_wait_for_it_and_leaving_waits_too(tmp_path):
    scoring = session(submission(tmp_path))
    scoring.start(HEAD, COMMITS, store.read_scores(scoring.path))
    assert scoring.ask_save(None, autosave=True)
    scoring.begin_save(autosave=True)
    assert not scoring.ask_save(None, autosave=True)
    assert not scoring.ask_save("next", autosave=False)
    # Folded into the waiting one.
    assert not scoring.ask_save(None, autosave=True)
    assert scoring.queued_save == ("next", False)
    assert scoring.leave("back", form_dirty=False) == "wait"
    scoring.saving = False
    assert scoring.after_save(form_dirty=False) == ("save", "next", False)
    assert scoring.after_save(form_dirty=False) == ("leave", "back", False)
    assert scoring.after_save(form_dirty=False) is None
    assert scoring.leave("back", form_dirty=True) == "ask"
    assert scoring.leave("quit", form_dirty=False) == "go"


def test_a_conflict_is_overwritten_only_by_the_reviewers_own_save_or_reloaded(tmp_path):
    path = submission(tmp_path)
    mine, theirs = session(path), session(path)
    for scoring in (mine, theirs):
        scoring.start(HEAD, COMMITS, store.read_scores(path))
    save(theirs, values(tiers={"found-defect": "weak"}))

    review, _ = mine.review(values(), [], None, None)
    written = mine.write(review, *mine.begin_save(autosave=False))
    assert written.review is None and written.theirs is not None
    text = mine.refused(written.problem or "", written.theirs)
    assert text.startswith("CONFLICT:") and "found-defect=weak" in text and mine.conflict is not None
    # An autosave never overwrites.
    assert mine.begin_save(autosave=True) == (None, False)
    mine.saving = False
    assert mine.begin_save(autosave=False) == (None, True)
    mine.saving = False
    assert mine.reload_theirs() is written.theirs
    assert mine.loaded is written.theirs and not mine.force_next_save


def test_another_consoles_save_is_named_and_taken_when_the_form_holds_nothing_unsaved(tmp_path):
    path = submission(tmp_path)
    mine, bob = session(path), session(path, reviewers=("bob",))
    mine.start(HEAD, COMMITS, store.read_scores(path))
    bob.start(HEAD, COMMITS, store.read_scores(path))
    save(bob, values(tiers={"found-defect": "weak"}))
    change = mine.disk_changed(store.read_scores(path), form_dirty=False)
    assert change is not None and change.notices == [
        "bob saved their review of ada: draft (under the rubric, Other reviews)"]
    assert change.fill is None
    assert "bob (draft): Found the defect: weak ≠" not in mine.others(store.read_scores(path))

    # The same reviewer in another console: taken when nothing here is unsaved, kept (and said) otherwise.
    other_console = session(path)
    other_console.start(HEAD, COMMITS, store.read_scores(path))
    save(other_console, values())
    dirty = mine.disk_changed(store.read_scores(path), form_dirty=True)
    assert dirty is not None and dirty.fill is None
    assert "your unsaved values are still here" in (dirty.status or "")
    clean = mine.disk_changed(store.read_scores(path), form_dirty=False)
    assert clean is not None and clean.fill is not None and mine.loaded is clean.fill
    assert "Found the defect: weak ≠" in mine.others(store.read_scores(path))


def test_blind_hides_the_others_until_this_reviewer_is_final(tmp_path):
    path = submission(tmp_path)
    bob = session(path, reviewers=("bob",))
    bob.start(HEAD, COMMITS, store.read_scores(path))
    save(bob, values())
    mine = session(path, blind=True)
    mine.start(HEAD, COMMITS, store.read_scores(path))
    hidden = "1 other review(s) hidden until yours is final (blind mode)."
    assert mine.others(store.read_scores(path)) == hidden
    mine.open_note()
    save(mine, values("final"))
    assert mine.others(store.read_scores(path)).startswith("Other reviews")
