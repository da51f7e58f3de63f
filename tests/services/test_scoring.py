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
    return {
        "tiers": dict(TIERS if tiers is None else tiers),
        "comments": {},
        "comment": "",
        "flags": [],
        "anchored": [],
        "state": state,
    }


def submission(tmp_path: Path) -> Path:
    folder = tmp_path / "cohort" / "ada"
    folder.mkdir(parents=True)
    return folder


def session(path: Path, reviewers=("ana",), blind=False) -> ScoreSession:
    return ScoreSession(path, reviewers, RubricChoice(ARTICLE), blind)


def two_consoles(path: Path) -> tuple[ScoreSession, ScoreSession]:
    """The same reviewer's score sessions in two consoles, both started on the file as it is now."""
    one, two = session(path), session(path)
    for scoring in (one, two):
        scoring.start(HEAD, COMMITS, store.read_scores(path))
    return one, two


def save(scoring: ScoreSession, form: dict, autosave: bool = False) -> store.Review:
    sent = scoring.to_write(form, autosave)
    review, _ = scoring.review(sent, [], None, None)
    written = scoring.write(review, scoring.begin_save())
    assert written.review is not None and written.scores is not None, written.problem
    scoring.saved(written.review, written.scores, sent, form, autosave)
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
    assert any(
        line.startswith("STALE: your final review was for bbbbbbb") and "1 new commit(s): hoist the key" in line
        for line in start.status
    )
    # The note gate is per commit.
    assert again.note_opened is None


def test_final_needs_every_tier_and_the_note_on_screen(tmp_path):
    scoring = session(submission(tmp_path))
    scoring.start(HEAD, COMMITS, store.read_scores(scoring.path))
    review, notes = scoring.review(values("final", {"found-defect": "weak"}), ["Key scope"], "8/8 ok", 0.5)
    # Every reason, every time: the missing tier and the note.
    assert review.state == "draft" and notes == [
        "final refused — no tier yet for Key scope (n means no decision); the note has not been on screen (2 shows it)"
    ]
    review, notes = scoring.review(values("final"), [], None, None)
    assert review.state == "draft" and notes == ["final refused — the note has not been on screen (2 shows it)"]
    assert scoring.open_note() and not scoring.open_note()
    review, notes = scoring.review(values("final"), [], "8/8 ok", 0.25)
    assert (review.state, notes, review.harness, review.ai_share) == ("final", [], "8/8 ok", 0.25)


def test_the_header_says_the_state_a_save_would_write_and_why_final_is_refused(tmp_path):
    scoring = session(submission(tmp_path))
    scoring.start(HEAD, COMMITS, store.read_scores(scoring.path))
    assert "will save as DRAFT\n" in scoring.header("draft", ["Evidence"])
    asked = scoring.header("final", ["Evidence", "Blast radius"])
    assert "will save as DRAFT: final refused — no tier yet for Evidence, Blast radius" in asked
    assert "the note has not been on screen" in asked and "FINAL" not in asked
    assert scoring.toggled_text("final", []).startswith("final asked, but a save now writes a DRAFT")
    scoring.open_note()
    assert "will save as FINAL\n" in scoring.header("final", [])
    assert scoring.toggled_text("final", []) == "state will be saved as FINAL (ctrl+s saves)"
    review, notes = scoring.review(values("final"), ["Evidence"], None, None)
    text = scoring.saved_text(store.Review(["ana"], HEAD, revision=2), notes, autosave=False)
    assert text == (
        "saved draft (revision 2) to ada.review.toml as a DRAFT because final refused — no tier "
        "yet for Evidence (n means no decision). F asks for final again."
    )


def test_saving_nothing_writes_nothing(tmp_path):
    path = submission(tmp_path)
    scoring = session(path)
    scoring.start(HEAD, COMMITS, store.read_scores(path))
    untouched, _ = scoring.review(values(tiers={}), [], None, None)
    assert "nothing to save" in (scoring.unchanged(untouched) or "")
    # Final asked on an empty form: refused, so still nothing to write.
    refused, _ = scoring.review(values("final", tiers={}), ["Evidence"], None, None)
    assert scoring.unchanged(refused) is not None
    save(scoring, values())
    again, _ = scoring.review(values(), [], "8/8 ok", None)
    assert "already holds these values (revision 1)" in (scoring.unchanged(again) or "")
    changed, _ = scoring.review(values(tiers={"evidence": "weak"}), [], None, None)
    assert scoring.unchanged(changed) is None
    # A stale review carried over as a draft is something to save at HEAD, untouched or not.
    later = session(path)
    later.start("d" * 40, [*COMMITS, ("d" * 40, "more")], store.read_scores(path))
    carried, _ = later.review(values(), [], None, None)
    assert later.unchanged(carried) is None


def test_saves_asked_for_during_a_save_wait_for_it_and_leaving_waits_too(tmp_path):
    scoring = session(submission(tmp_path))
    scoring.start(HEAD, COMMITS, store.read_scores(scoring.path))
    assert scoring.ask_save(None, autosave=True)
    scoring.begin_save()
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


def test_two_consoles_of_one_reviewer_changing_different_fields_are_merged(tmp_path):
    """Console 1 sets Evidence, console 2 Explanation, at the same moment: both are kept."""
    path = submission(tmp_path)
    one, two = two_consoles(path)
    save(one, values(tiers={"evidence": "strong"}))
    landed = save(two, values(tiers={"explanation": "acceptable"}))
    assert landed.tiers == {"explanation": "acceptable", "evidence": "strong"} and landed.revision == 2
    assert two.conflicts == ()
    # Console 1's form, with nothing unsaved, takes console 2's field and keeps its own.
    change = one.disk_changed(store.read_scores(path), values(tiers={"evidence": "strong"}))
    assert change is not None and change.rebased is not None
    assert change.rebased.values["tiers"] == {"evidence": "strong", "explanation": "acceptable"}
    assert "taken in here: Explanation: Acceptable" in (change.status or "")


def test_a_field_both_consoles_changed_is_a_conflict_until_the_reviewer_decides(tmp_path):
    path = submission(tmp_path)
    one, two = two_consoles(path)
    save(one, values(tiers={"evidence": "strong", "explanation": "weak"}))

    form = values(tiers={"explanation": "strong", "blast-radius": "acceptable"})
    review, _ = two.review(two.to_write(form, False), [], None, None)
    written = two.write(review, two.begin_save())
    assert written.review is None and written.theirs is not None and written.theirs.revision == 1
    text, rebased = two.refused(written.problem or "", written.theirs, form)
    assert rebased is not None
    # Side by side, whose is whose; this console's value stays on screen.
    assert text.startswith("CONFLICT: this review was also saved in another console (revision 1")
    shown = [line.strip() for line in text.splitlines()]
    at = shown.index("Explanation")
    assert shown[at + 1 : at + 3] == ["yours: Strong", "other console's: Weak"]
    assert rebased.values["tiers"] == {"explanation": "strong", "blast-radius": "acceptable", "evidence": "strong"}
    assert [c.field for c in two.conflicts] == [("tier", "explanation")]

    # Until decided, a save leaves the conflicting field as the other console saved it and saves the rest.
    autosaved = save(two, rebased.values, autosave=True)
    assert autosaved.tiers == {"explanation": "weak", "blast-radius": "acceptable", "evidence": "strong"}
    assert two.conflicts and two.loaded is autosaved
    # ctrl+s keeps this console's value.
    kept = save(two, rebased.values)
    assert kept.tiers["explanation"] == "strong" and two.conflicts == ()


def test_r_takes_the_other_consoles_value_for_the_fields_both_changed_only(tmp_path):
    path = submission(tmp_path)
    one, two = two_consoles(path)
    save(one, values(tiers={"explanation": "weak"}))
    form = values(tiers={"explanation": "strong", "evidence": "acceptable"})
    _, rebased = two.refused("conflict", store.read_scores(path).find((("ana",), HEAD)), form)
    assert rebased is not None and two.conflicts
    taken = two.reload_theirs(rebased.values)
    assert taken is not None and taken["tiers"] == {"explanation": "weak", "evidence": "acceptable"}
    assert two.conflicts == () and two.reload_theirs(taken) is None


def test_another_consoles_save_is_named_and_merged_into_the_form(tmp_path):
    path = submission(tmp_path)
    mine, bob = session(path), session(path, reviewers=("bob",))
    mine.start(HEAD, COMMITS, store.read_scores(path))
    bob.start(HEAD, COMMITS, store.read_scores(path))
    save(bob, values(tiers={"found-defect": "weak"}))
    change = mine.disk_changed(store.read_scores(path), values(tiers={}))
    assert change is not None and change.notices == [
        "bob saved their review of ada: in review (under the rubric, Other reviews)"
    ]
    assert change.rebased is None
    assert "bob (in review): Found the defect: weak ≠" not in mine.others(store.read_scores(path))

    # The same reviewer in another console: merged into the form, clean or not.
    other_console = session(path)
    other_console.start(HEAD, COMMITS, store.read_scores(path))
    save(other_console, values())
    dirty = mine.disk_changed(store.read_scores(path), values(tiers={"evidence": "weak"}))
    assert dirty is not None and dirty.rebased is not None
    # Evidence: both changed (weak here, strong there).
    assert [c.field for c in dirty.rebased.conflicts] == [("tier", "evidence")]
    assert dirty.rebased.values["tiers"] == {**TIERS, "evidence": "weak"}
    assert "CONFLICT" in (dirty.status or "")
    save(other_console, values(tiers={**TIERS, "key-scope": "weak"}))
    clean = mine.disk_changed(store.read_scores(path), dirty.rebased.values)
    assert clean is not None and clean.rebased is not None
    assert clean.rebased.values["tiers"] == {**TIERS, "evidence": "weak", "key-scope": "weak"}
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


def test_another_reviewers_autosaves_are_said_once_and_their_final_again(tmp_path):
    path = submission(tmp_path)
    mine, bob = session(path), session(path, reviewers=("bob",))
    mine.start(HEAD, COMMITS, store.read_scores(path))
    bob.start(HEAD, COMMITS, store.read_scores(path))
    save(bob, values(tiers={"found-defect": "weak"}))
    first = mine.disk_changed(store.read_scores(path), values(tiers={}))
    assert first is not None and first.notices == [
        "bob saved their review of ada: in review (under the rubric, Other reviews)"
    ]
    # Bob's autosaves of the same draft refresh Other reviews without a word each; his final is said.
    save(bob, values(tiers={"found-defect": "acceptable"}))
    again = mine.disk_changed(store.read_scores(path), values(tiers={}))
    assert again is not None and again.notices == []
    bob.open_note()
    assert save(bob, values("final")).state == "final"
    final = mine.disk_changed(store.read_scores(path), values(tiers={}))
    assert final is not None and final.notices == [
        "bob saved their review of ada: final (under the rubric, Other reviews)"
    ]
