"""Scoring a submission: the rubric form filled from this reviewer's entry (or carried over from a
stale one), saved through the store's lock and merge rules, conflicts with another console shown and
resolved by the reviewer, other reviewers' entries beside. The submission screen builds on it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from review.core.evidence import Inputs, gather
from review.core.rubric import ARTICLE, RubricError, from_settings
from review.core.text import safe_line
from review.harness import runner
from review.services import cohort, store
from review.services.analysis import Analysis
from review.tui.modals.leave import DISCARD, SAVE, LeaveScreen
from review.tui.widgets.rubric_form import RubricForm


@dataclass(frozen=True)
class Closed:
    """What the triage screen learns when a submission closes, without reading files again."""

    open_next: bool
    scores: store.ScoreFile | None  # the score file as last read or written here
    suite: runner.SuiteResult | None  # the latest suite at HEAD


class ScoringScreen(Screen[Closed]):
    """The state and behaviour of scoring; the panes and runs are the submission screen's."""

    saving = False  # a save is being written: the score watcher leaves our entry alone meanwhile

    def __init__(self, path: Path, reviewers: tuple[str, ...] = (), blind: bool = False) -> None:
        super().__init__()
        self.path = path
        self.reviewers = list(reviewers) or [store.default_reviewer()]
        self.blind = blind
        self.analysis: Analysis | None = None
        self.note_opened: str | None = None  # when the note pane was opened for this commit: the note gate
        self.suite: runner.SuiteResult | None = None  # the latest suite at HEAD
        self.loaded_review: store.Review | None = None  # the entry as it was on disk (for conflicts)
        self.conflict_theirs: store.Review | None = None  # after a refused save: the version on disk
        self.force_next_save = False
        self.scores: store.ScoreFile | None = None  # the score file as last read or written here
        self.autosave_timer: Timer | None = None
        self.queued_save: tuple[str | None, bool] | None = None  # (then, autosave) asked for during a save
        self.leave_after_save: str | None = None  # where to go once the save under way lands
        self.reviewed_before: store.Review | None = None  # my entry at an older commit: a re-review
        try:
            self.rubric = from_settings(cohort.cohort_settings(path.parent))
            self.rubric_problem: str | None = None
        except (RubricError, cohort.CohortError) as error:
            self.rubric, self.rubric_problem = ARTICLE, str(error)
        self.form = RubricForm(self.rubric, id="rubric-form")

    def close(self, open_next: bool = False) -> None:
        self.dismiss(Closed(open_next, self.scores, self.suite))

    def finish(self, then: str) -> None:
        """Where the reviewer asked to go: "next" (the next unscored), "back" (triage), "quit"."""
        if then == "quit":
            self.app.exit()
        else:
            self.close(open_next=then == "next")

    def leave(self, then: str) -> None:
        """Back to triage or quit; with unsaved rubric changes, ask first (autosave may not have run)."""
        if self.analysis is None or not self.form.dirty:  # no form yet before the analysis is shown
            if self.saving:
                self.leave_after_save = then  # everything is in the save under way: leave when it lands
            else:
                self.finish(then)
            return

        def answered(answer: str | None) -> None:
            if answer == SAVE:
                self.save(then=then)
            elif answer == DISCARD:
                self.finish(then)

        self.app.push_screen(LeaveScreen("quit" if then == "quit" else "leave this submission"),
                             answered)

    def evidence_inputs(self) -> Inputs:
        raise NotImplementedError  # the submission screen knows the runs and the commits

    # ----------------------------------------------------------------- the rubric

    def load_review(self, scores: store.ScoreFile) -> None:
        """Fill the form from this reviewer's entry at HEAD, or carry over their stale one (`scores`
        were read in the loading worker, not here on the UI thread)."""
        assert self.analysis is not None
        self.scores = scores
        head = self.analysis.head
        key = (tuple(sorted(self.reviewers)), head)
        mine = scores.find(key)
        self.loaded_review = mine
        self.reviewed_before = None
        status = []
        if self.rubric_problem:
            status.append(f"⚠ {self.rubric_problem}; using the article's rubric")
        for problem in (scores.problem, scores.unsealed_notice):
            if problem:
                status.append(f"⚠ {problem}")
        if mine is None:
            older = scores.latest_for(self.reviewers)
            if older is not None:
                status.append(self.stale_text(older))
                self.reviewed_before = older
            elif (unsealed := scores.unsealed_for(self.reviewers)) is not None:
                older = unsealed  # shown to check, never trusted as it stands: saving seals what is in the form
                status.append(f"UNSEALED: the file holds an entry in your name for {unsealed.commit[:7]} that this "
                              "console did not seal (saved by an older version, or planted). Its values are filled "
                              "in as a draft for you to check; saving seals yours in its place.")
            self.form.fill(older)
            if older is not None:
                self.form.state = "draft"  # a stale final is re-confirmed at HEAD, never carried over as final
                self.form.mark_clean()
        else:
            self.form.fill(mine)
            if mine.note_opened:
                self.note_opened = mine.note_opened
        self.form.set_status("\n".join(safe_line(s, 400) for s in status))
        self.update_rubric_header()
        self.form.set_evidence(gather(self.evidence_inputs()))
        self.update_others(scores)

    def stale_text(self, older: store.Review) -> str:
        assert self.analysis is not None
        shas = [c.sha for c in self.analysis.commits]
        since = shas[shas.index(older.commit) + 1:] if older.commit in shas else []
        subjects = [c.subject for c in self.analysis.commits if c.sha in since]
        what = f"{len(since)} new commit(s): " + "; ".join(subjects[:3]) if since else \
            "that commit is no longer in this history (rewritten?)"
        return (f"STALE: your {older.state} review was for {older.commit[:7]}; HEAD is {self.analysis.head[:7]}, "
                f"{what}. Its values are filled in as a draft for HEAD.")

    def update_rubric_header(self) -> None:
        if self.analysis is None:
            return
        gate = "note read ✓ (it was on screen)" if self.note_opened else \
            "note NOT on screen yet (2 shows it; final needs it)"
        self.form.set_header(safe_line(
            f"{self.rubric.version} · {self.path.name} @ {self.analysis.head[:7]} · reviewing as "
            f"{' + '.join(sorted(self.reviewers))} · will save as {self.form.state.upper()} · {gate}", 400))

    def update_others(self, scores: store.ScoreFile) -> None:
        others = [r for r in scores.reviews if sorted(r.reviewers) != sorted(self.reviewers)]
        if not others:
            self.form.set_others("No other reviews of this submission.")
            return
        mine = scores.find((tuple(sorted(self.reviewers)), self.analysis.head)) if self.analysis else None
        if self.blind and not (mine and mine.state == "final"):
            self.form.set_others(f"{len(others)} other review(s) hidden until yours is final (blind mode).")
            return
        lines = ["Other reviews (≠ where they differ from yours):"]
        for other in others:
            cells = []
            for signal in self.rubric.signals:
                theirs = other.tiers.get(signal.id, "—")
                own = mine.tiers.get(signal.id) if mine else None
                mark = " ≠" if mine and own and theirs != own else ""
                cells.append(f"{signal.name}: {theirs}{mark}")
            stale = "" if self.analysis and other.commit == self.analysis.head else f", at {other.commit[:7]} (stale)"
            lines.append(f"  {other.who} ({other.state}{stale}): " + " · ".join(cells))
        self.form.set_others("\n".join(safe_line(line, 600) for line in lines))

    # ----------------------------------------------------------------- saving

    AUTOSAVE_SECONDS = 0.8  # after the last change: one save per pause in typing, not per key

    @on(RubricForm.Edited)
    def edited(self) -> None:
        """Every change is saved as it stands a moment later: a crash or an SSH drop loses nothing."""
        if self.autosave_timer is not None:
            self.autosave_timer.stop()
        self.autosave_timer = self.set_timer(self.AUTOSAVE_SECONDS, self.autosave)

    def autosave(self) -> None:
        self.autosave_timer = None
        if self.analysis is None or not self.form.dirty or self.conflict_theirs is not None:
            return  # nothing new; or a conflict waits for the reviewer's decision (never forced)
        self.save(autosave=True)

    def action_save(self) -> None:
        self.save()

    def action_save_and_next(self) -> None:
        self.save(then="next")

    def save(self, then: str | None = None, autosave: bool = False) -> None:
        """`then`: what to do once it is on disk — "next" (open the next unscored), "back", "quit"."""
        if self.analysis is None:
            self.app.notify("Still reading the submission; nothing to save yet.", markup=False)
            return
        if self.saving:  # one save at a time (each builds on the revision the last one wrote)
            queued = self.queued_save
            if autosave and queued is not None:
                return  # a save is already queued: it will carry these values too
            self.queued_save = (then or (queued[0] if queued else None), autosave)
            return
        values = self.form.values()
        notes = []
        if values["state"] == "final":
            missing = self.form.missing()
            if missing:
                values["state"] = "draft"
                notes.append(f"not final: no tier yet for {', '.join(missing)} (n means no decision)")
            elif not self.note_opened:
                values["state"] = "draft"
                notes.append("not final: open the note first (2) — grading the diff and skipping the note "
                             "is the failure mode the article warns about")
        review = store.Review(
            reviewers=list(self.reviewers), commit=self.analysis.head, state=values["state"],
            rubric_version=self.rubric.version, tiers=values["tiers"], comments=values["comments"],
            comment=values["comment"], flags=values["flags"], anchored=values["anchored"],
            note_opened=self.note_opened,
            harness=self.suite.summary if self.suite else None, ai_share=self.analysis.diff.ai_share,
        )
        base = self.loaded_review.revision if self.loaded_review else None
        self.saving = True
        force = self.force_next_save and not autosave  # only the reviewer's own ctrl+s overwrites a conflict
        self.write_review(review, base, force, self.Intent(then, autosave, notes, self.form.values()))

    @dataclass(frozen=True)
    class Intent:
        then: str | None
        autosave: bool
        notes: list[str]
        values: dict  # the form as it was saved: what "clean" means afterwards

    @work(thread=True, exclusive=True, group="save", name="save-review")
    def write_review(self, review: store.Review, base: int | None, force: bool, intent: Intent) -> None:
        try:
            saved = store.save(self.path, review, base_revision=base, force=force, on_wait=self.waiting_for_lock)
        except store.SaveConflict as conflict:
            self.post_message(self.SaveFailed(str(conflict), conflict.theirs))
            return
        except store.StoreError as error:
            self.post_message(self.SaveFailed(str(error), None))
            return
        self.post_message(self.Saved(saved, intent, store.read_scores(self.path)))

    def waiting_for_lock(self, seconds: float) -> None:
        """Called from the save worker while another console holds the score file's lock."""
        self.app.call_from_thread(self.form.set_status, safe_line(
            f"waiting for another save of {store.score_path(self.path).name} ({seconds:.0f} s)…", 200))

    @dataclass
    class Saved(Message):
        review: store.Review
        intent: ScoringScreen.Intent
        scores: store.ScoreFile  # the file as it is after the save (others' entries included)

    @dataclass
    class SaveFailed(Message):
        problem: str
        theirs: store.Review | None

    def run_queued_save(self) -> None:
        """After a save lands: the save asked for meanwhile, else the leaving that waited for it."""
        queued, self.queued_save = self.queued_save, None
        if queued is not None and not (queued[1] and not self.form.dirty):
            self.save(then=queued[0], autosave=queued[1])
            return
        then, self.leave_after_save = self.leave_after_save, None
        if then is not None:
            self.finish(then)

    @on(Saved)
    def saved(self, message: Saved) -> None:
        self.saving = False
        self.call_after_refresh(self.run_queued_save)
        intent = message.intent
        self.loaded_review = message.review
        self.force_next_save = False
        if not intent.autosave:
            self.form.state = message.review.state  # a final that could not be final says so
        self.form.mark_clean(intent.values)
        self.scores = message.scores
        self.update_others(message.scores)
        what = f"{message.review.state} (revision {message.review.revision}) to {store.score_path(self.path).name}"
        why = " — " + "; ".join(intent.notes) if intent.notes else ""
        if intent.autosave:
            self.form.set_status(safe_line(f"autosaved {what} at {message.review.updated[11:19]} UTC{why}", 400))
            self.update_rubric_header()
            return
        text = f"saved {what}{why}"
        self.form.set_status(safe_line(text, 500))
        self.update_rubric_header()
        self.app.notify(safe_line(text, 300), severity="warning" if intent.notes else "information", markup=False)
        if intent.then:
            self.finish(intent.then)

    @on(SaveFailed)
    def save_failed(self, message: SaveFailed) -> None:
        self.saving = False
        self.queued_save = self.leave_after_save = None  # after a failed save, the reviewer decides
        if message.theirs is not None:
            theirs = message.theirs
            tiers = ", ".join(f"{k}={v}" for k, v in theirs.tiers.items()) or "no tiers"
            text = (f"CONFLICT: {message.problem}. On disk: {theirs.state}, {tiers}. Your values are still here: "
                    "ctrl+s again overwrites with yours; R reloads theirs.")
            self.force_next_save = True
            self.conflict_theirs = theirs
        else:
            text = f"NOT SAVED: {message.problem}"
        self.form.set_status(safe_line(text, 600))
        self.app.notify(safe_line(text, 400), severity="error", timeout=10, markup=False)

    def scores_changed(self, files: dict[str, store.ScoreFile]) -> None:
        """This submission's score file changed on disk: another console saved (or this one did).
        Others' reviews refresh; our own entry is reloaded when the form holds nothing unsaved."""
        scores = files.get(self.path.name)
        if self.analysis is None or scores is None or self.saving:
            return  # our own save in flight: Saved brings the file's new state
        before = {(r.who, r.commit): r.revision for r in (self.scores.reviews if self.scores else [])}
        for review in scores.reviews:
            if sorted(review.reviewers) != sorted(self.reviewers) and \
                    before.get((review.who, review.commit)) != review.revision:
                self.app.notify(safe_line(f"{review.who} saved their review of {self.path.name}: {review.state}"
                                          " (under the rubric, Other reviews)", 200), markup=False, timeout=5)
        self.scores = scores
        self.update_others(scores)
        mine = scores.find((tuple(sorted(self.reviewers)), self.analysis.head))
        loaded = self.loaded_review
        if mine is None or (loaded is not None and mine.revision == loaded.revision):
            return
        if self.form.dirty:
            self.form.set_status(safe_line(
                f"Your review was saved in another console ({mine.state}, revision {mine.revision}, {mine.updated}); "
                "your unsaved values are still here: ctrl+s shows the conflict.", 400))
            return
        self.form.fill(mine)
        self.loaded_review = mine
        if mine.note_opened:
            self.note_opened = mine.note_opened
        self.form.set_status(safe_line(f"Updated from disk: saved in another console ({mine.state}, revision "
                                       f"{mine.revision}, {mine.updated}).", 300))
        self.update_rubric_header()

    def action_reload_theirs(self) -> None:
        theirs = self.conflict_theirs
        if theirs is None:
            return
        self.form.fill(theirs)
        self.loaded_review = theirs
        self.force_next_save = False
        self.conflict_theirs = None
        self.form.set_status("loaded the version on disk")
