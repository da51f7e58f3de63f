"""The rubric form's side of scoring, owned by the submission screen: the form filled from what the
score session decided, autosave a moment after each change, saves written in a worker, conflicts and
other consoles' saves shown. What is decided (which entry, what a final needs, the queue of saves)
is the session's (services.scoring); this only shows it and starts the work."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from review.core.text import safe_line
from review.services import store
from review.services.scoring import ScoreSession, Then
from review.tui.modals.leave import DISCARD, SAVE, LeaveScreen
from review.tui.widgets.rubric_form import RubricForm

# (the harness summary at HEAD, the AI share of the diff): what a saved entry records beside the tiers.
Facts = Callable[[], tuple[str | None, float | None]]


class Scoring:
    # After the last change: one save per pause in typing, not per key.
    AUTOSAVE_SECONDS = 0.8

    @dataclass(frozen=True)
    class Intent:
        then: Then
        autosave: bool
        notes: list[str]
        # The form as it was saved: what "clean" means afterwards.
        values: dict

    @dataclass
    class Saved(Message):
        review: store.Review
        intent: Scoring.Intent
        # The file as it is after the save (others' entries included).
        scores: store.ScoreFile

    @dataclass
    class SaveFailed(Message):
        problem: str
        theirs: store.Review | None

    def __init__(self, screen: Screen, session: ScoreSession, form: RubricForm, facts: Facts,
                 finish: Callable[[str], None]) -> None:
        self.screen = screen
        self.session = session
        self.form = form
        self.facts = facts
        self.finish = finish
        self.autosave_timer: Timer | None = None

    def start(self, head: str, commits: list[tuple[str, str]], scores: store.ScoreFile) -> None:
        """Fill the form from this reviewer's entry at HEAD, or carry over their stale one (`scores`
        were read in the loading worker)."""
        start = self.session.start(head, commits, scores)
        self.form.fill(start.review)
        if start.as_draft:
            # A stale final is re-confirmed at HEAD, never carried over as final.
            self.form.state = "draft"
            self.form.mark_clean()
        self.form.set_status("\n".join(safe_line(s, 400) for s in start.status))
        self.update_header()
        self.form.set_others(self.session.others(scores))

    @property
    def dirty(self) -> bool:
        """Unsaved changes in the form (which holds nothing, and may not be mounted, before the
        submission is read)."""
        return self.session.started and self.form.dirty

    def update_header(self) -> None:
        if self.session.started:
            self.form.set_header(self.session.header(self.form.state))

    def note_shown(self) -> None:
        if self.session.open_note():
            self.update_header()

    # ----------------------------------------------------------------- saving

    def edited(self) -> None:
        """Every change is saved as it stands a moment later: a crash or an SSH drop loses nothing."""
        if self.autosave_timer is not None:
            self.autosave_timer.stop()
        self.autosave_timer = self.screen.set_timer(self.AUTOSAVE_SECONDS, self.autosave)

    def autosave(self) -> None:
        self.autosave_timer = None
        # Nothing new; or a conflict waits for the reviewer's decision (never forced).
        if self.dirty and self.session.conflict is None:
            self.save(autosave=True)

    def save(self, then: Then = None, autosave: bool = False) -> None:
        """`then`: what to do once it is on disk — "next" (open the next unscored), "back", "quit"."""
        if not self.session.started:
            self.screen.app.notify("Still reading the submission; nothing to save yet.", markup=False)
            return
        if not self.session.ask_save(then, autosave):
            return
        harness, ai_share = self.facts()
        review, notes = self.session.review(self.form.values(), self.form.missing(), harness, ai_share)
        base, force = self.session.begin_save(autosave)
        intent = self.Intent(then, autosave, notes, self.form.values())
        self.screen.run_worker(partial(self.write, review, base, force, intent), thread=True, exclusive=True,
                               group="save", name="save-review")

    def write(self, review: store.Review, base: int | None, force: bool, intent: Intent) -> None:
        """In the save worker: the store's lock, merge and atomic write, then the file read back."""
        written = self.session.write(review, base, force, on_wait=self.waiting_for_lock)
        if written.review is None or written.scores is None:
            self.screen.post_message(self.SaveFailed(written.problem or "not saved", written.theirs))
        else:
            self.screen.post_message(self.Saved(written.review, intent, written.scores))

    def waiting_for_lock(self, seconds: float) -> None:
        """Called from the save worker while another console holds the score file's lock."""
        name = store.score_path(self.session.path).name
        self.screen.app.call_from_thread(self.form.set_status,
                                         safe_line(f"waiting for another save of {name} ({seconds:.0f} s)…",
                                                   200))

    def saved(self, message: Saved) -> None:
        intent = message.intent
        self.session.saved(message.review, message.scores)
        self.screen.call_after_refresh(self.run_queued)
        if not intent.autosave:
            # A final that could not be final says so.
            self.form.state = message.review.state
        self.form.mark_clean(intent.values)
        self.form.set_others(self.session.others(message.scores))
        text = self.session.saved_text(message.review, intent.notes, intent.autosave)
        self.form.set_status(safe_line(text, 400 if intent.autosave else 500))
        self.update_header()
        if intent.autosave:
            return
        self.screen.app.notify(safe_line(text, 300), severity="warning" if intent.notes else "information",
                               markup=False)
        if intent.then:
            self.finish(intent.then)

    def run_queued(self) -> None:
        """After a save lands: the save asked for meanwhile, else the leaving that waited for it."""
        follow = self.session.after_save(self.dirty)
        if follow is None:
            return
        what, then, autosave = follow
        if what == "save":
            self.save(then=then, autosave=autosave)
        elif then is not None:
            self.finish(then)

    def failed(self, message: SaveFailed) -> None:
        text = self.session.refused(message.problem, message.theirs)
        self.form.set_status(safe_line(text, 600))
        self.screen.app.notify(safe_line(text, 400), severity="error", timeout=10, markup=False)

    def reload_theirs(self) -> None:
        theirs = self.session.reload_theirs()
        if theirs is not None:
            self.form.fill(theirs)
            self.form.set_status("loaded the version on disk")

    # ----------------------------------------------------------------- other consoles, leaving

    def scores_changed(self, files: dict[str, store.ScoreFile]) -> None:
        """This submission's score file changed on disk: others' reviews refresh, and our own entry
        is reloaded when the form holds nothing unsaved."""
        scores = files.get(self.session.path.name)
        change = self.session.disk_changed(scores, self.dirty) if scores is not None else None
        if change is None or scores is None:
            return
        for notice in change.notices:
            self.screen.app.notify(safe_line(notice, 200), markup=False, timeout=5)
        self.form.set_others(self.session.others(scores))
        if change.fill is not None:
            self.form.fill(change.fill)
        if change.status is not None:
            self.form.set_status(safe_line(change.status, 400 if change.fill is None else 300))
        if change.fill is not None:
            self.update_header()

    def leave(self, then: str) -> None:
        """Back to triage or quit; with unsaved rubric changes, ask first (autosave may not have run)."""
        decision = self.session.leave(then, self.dirty)
        if decision == "go":
            self.finish(then)
        if decision != "ask":
            return

        def answered(answer: str | None) -> None:
            if answer == SAVE:
                self.save(then=then)
            elif answer == DISCARD:
                self.finish(then)

        self.screen.app.push_screen(LeaveScreen("quit" if then == "quit" else "leave this submission"),
                                    answered)
