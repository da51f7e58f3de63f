"""The rubric form's side of scoring, owned by the submission screen: the form filled from what the
score session decided, autosave a moment after each change, saves written in a worker, conflicts and
other consoles' saves shown, and what the form holds written before the console ends. What is decided
(which entry, what a final needs, the queue of saves, the merge with another console's save) is the
session's (services.scoring); this only shows it and starts the work."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from review.core.text import safe_line
from review.services import store
from review.services.scoring import Rebased, ScoreSession, Then, Written
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
        # The form's values as sent: what the form is compared with once the save lands.
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

    def __init__(
        self, screen: Screen, session: ScoreSession, form: RubricForm, facts: Facts, finish: Callable[[str], None]
    ) -> None:
        self.screen = screen
        self.session = session
        self.form = form
        self.facts = facts
        self.finish = finish
        self.autosave_timer: Timer | None = None
        # The leave question is open: nothing is autosaved behind it (d must leave the file as it was).
        self.asking = False
        # Set when the save under way lands (or fails): what the save at the console's end waits for.
        self.landed = asyncio.Event()
        self.landed.set()

    def start(self, head: str, commits: list[tuple[str, str]], scores: store.ScoreFile) -> None:
        """Fill the form from this reviewer's entry at HEAD, or carry over their stale one (`scores`
        were read in the loading worker)."""
        start = self.session.start(head, commits, scores)
        self.form.fill(start.review)
        if start.as_draft:
            # A stale final is re-confirmed at HEAD, never carried over as final.
            self.form.state = "draft"
            self.form.set_baseline()
        self.form.set_status("\n".join(safe_line(s, 400) for s in start.status))
        self.update_header()
        self.form.set_others(self.session.others(scores))

    @property
    def dirty(self) -> bool:
        """Unsaved changes in the form (which holds nothing, and may not be mounted, before the
        submission is read). A final asked for and refused is not one: a save would write a draft."""
        if not self.session.started:
            return False
        # A final already saved is not "unsaved" because the HEAD moved meanwhile.
        refused = self.form.state == "final" and bool(self.session.final_refusal(self.form.missing(), moved=False))
        return self.form.dirty_as("draft" if refused else self.form.state)

    def update_header(self) -> None:
        """The state a save now would write (a final asked for and refused says so, with why)."""
        if self.session.started:
            self.form.set_header(self.session.header(self.form.state, self.form.missing()))
            # Beside each signal still in conflict, not only in the table at the rubric's top.
            self.form.show_conflicts(
                {name for kind, name in (c.field for c in self.session.conflicts) if kind in ("tier", "comment")}
            )

    def head_moved(self, head: str) -> None:
        """The submission's folder holds `head` now (triage's watch): said in the rubric's header for
        as long as the screen is open, and once as a toast; a final of the old commit is refused."""
        if not self.session.head_moved(head):
            return
        self.update_header()
        self.screen.app.notify(safe_line(self.session.moved_text(), 300), markup=False, severity="warning", timeout=12)

    def note_shown(self) -> None:
        if self.session.open_note():
            self.update_header()

    def state_asked(self) -> None:
        """F: the header and a toast say what a save will now write, and why a final would be refused."""
        text = self.session.toggled_text(self.form.state, self.form.missing())
        self.update_header()
        self.form.set_status(safe_line(text, 400))
        # The status line may be scrolled out of view.
        refused = text.startswith("final asked")
        self.screen.app.notify(
            safe_line(text, 300),
            markup=False,
            timeout=6 if refused else 3,
            severity="warning" if refused else "information",
        )

    # ----------------------------------------------------------------- saving

    def edited(self) -> None:
        """Every change is saved as it stands a moment later: a crash or an SSH drop loses nothing."""
        self.update_header()
        self.stop_autosave()
        if not self.asking:
            self.autosave_timer = self.screen.set_timer(self.AUTOSAVE_SECONDS, self.autosave)

    def stop_autosave(self) -> None:
        if self.autosave_timer is not None:
            self.autosave_timer.stop()
            self.autosave_timer = None

    def autosave(self) -> None:
        self.autosave_timer = None
        if self.dirty:
            self.save(autosave=True)

    def save(self, then: Then = None, autosave: bool = False) -> None:
        """`then`: what to do once it is on disk — "next" (open the next unscored), "back", "quit"."""
        if not self.session.started:
            self.screen.app.notify("Still reading the submission; nothing to save yet.", markup=False)
            return
        if autosave and self.asking:
            # Queued behind a save that landed while the leave question is open: it waits for the answer.
            return
        if not self.session.ask_save(then, autosave):
            return
        review, notes, values = self.entry(autosave)
        unchanged = self.session.unchanged(review)
        if unchanged is not None:
            if not autosave:
                self.nothing_to_save(unchanged, notes, then)
            return
        base = self.session.begin_save()
        self.landed.clear()
        intent = self.Intent(then, autosave, notes, values)
        self.screen.run_worker(
            partial(self.write, review, base, intent), thread=True, exclusive=True, group="save", name="save-review"
        )

    def entry(self, autosave: bool) -> tuple[store.Review, list[str], dict]:
        """The entry a save now would write, why it is not final if final was asked for, and the
        form's values it was made from."""
        values = self.session.to_write(self.form.values(), autosave)
        harness, ai_share = self.facts()
        review, notes = self.session.review(values, self.form.missing(), harness, ai_share)
        return review, notes, values

    def nothing_to_save(self, why: str, notes: list[str], then: Then) -> None:
        """ctrl+s with nothing new: no file written, said briefly (with a refused final's reasons)."""
        text = why + ("; " + "; ".join(notes) if notes else "")
        self.form.set_status(safe_line(text, 400))
        self.screen.app.notify(
            safe_line(text, 300), markup=False, timeout=3, severity="warning" if notes else "information"
        )
        if notes:
            self.form.state = "draft"
            self.update_header()
        # The form now holds what the file holds: leaving asks nothing.
        self.form.set_baseline()
        if then:
            self.finish(then)

    def write(self, review: store.Review, base: store.Review | None, intent: Intent) -> Written:
        """In the save worker: the store's lock, merge and atomic write, then the file read back."""
        written = self.session.write(review, base, on_wait=self.waiting_for_lock)
        if written.review is None or written.scores is None:
            self.screen.post_message(self.SaveFailed(written.problem or "not saved", written.theirs))
        else:
            self.screen.post_message(self.Saved(written.review, intent, written.scores))
        return written

    def waiting_for_lock(self, seconds: float) -> None:
        """Called from the save worker while another console holds the score file's lock."""
        name = store.score_path(self.session.path).name
        self.screen.app.call_from_thread(
            self.form.set_status, safe_line(f"waiting for another save of {name} ({seconds:.0f} s)…", 200)
        )

    def saved(self, message: Saved) -> None:
        intent = message.intent
        rebased = self.session.saved(message.review, message.scores, intent.values, self.form.values(), intent.autosave)
        self.landed.set()
        # A final refused by the reviewer's own save comes back a draft (and the text says why).
        self.show_rebased(rebased)
        self.screen.call_after_refresh(self.run_queued)
        self.form.set_others(self.session.others(message.scores))
        text = safe_line(self.session.saved_text(message.review, intent.notes, intent.autosave), 500)
        self.form.set_status(
            lines(
                "\n".join(
                    part
                    for part in (self.session.conflict_text() if self.session.conflicts else "", rebased.status, text)
                    if part
                )
            )
        )
        self.update_header()
        if intent.autosave:
            if message.review.state == "final":
                # An edit to a final review rewrote it: said where the reviewer looks, not only up top.
                self.screen.app.notify(safe_line(text, 300), markup=False, severity="warning", timeout=4)
            return
        self.screen.app.notify(
            safe_line(text, 300),
            severity="warning" if intent.notes else "information",
            markup=False,
            timeout=8 if intent.notes else 4,
        )
        if intent.then:
            self.finish(intent.then)

    def show_rebased(self, rebased: Rebased) -> None:
        """The form after a merge with another console's save: their changes in, ours kept; what is
        not on disk yet is autosaved (a field in conflict keeps the other console's value there)."""
        self.form.apply(rebased.values, from_elsewhere=True)
        self.form.set_baseline(rebased.baseline)
        self.update_header()

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
        text, rebased = self.session.refused(message.problem, message.theirs, self.form.values())
        self.landed.set()
        if rebased is not None:
            self.show_rebased(rebased)
            # What only this console changed is written now; the fields in conflict wait.
            self.edited()
        self.form.set_status(lines(text))
        self.screen.app.notify(
            self.session.conflict_line() if rebased is not None and rebased.conflicts else safe_line(text, 400),
            severity="error",
            timeout=10,
            markup=False,
        )

    def reload_theirs(self) -> None:
        values = self.session.reload_theirs(self.form.values())
        if values is None:
            self.screen.app.notify(
                "No conflict to decide: R takes the other console's values after one.", markup=False, timeout=3
            )
            return
        self.form.apply(values)
        self.form.set_status("took the other console's values for the fields both changed")
        self.update_header()
        self.edited()

    async def flush(self) -> None:
        """Before the console ends, by any path (q, a closed browser tab, the console told to quit,
        SIGHUP): the save under way lands, then what the form holds that is not on disk is written at
        once rather than after the autosave's pause. A field in conflict keeps the other console's
        value on disk (the reviewer never decided)."""
        self.stop_autosave()
        try:
            # The save under way brings the revision the next one builds on (the lock gives up at 30 s).
            await asyncio.wait_for(self.landed.wait(), 40)
        except TimeoutError:
            return
        if not self.dirty:
            return
        review, _notes, values = self.entry(autosave=True)
        if self.session.unchanged(review) is not None:
            return
        base = self.session.begin_save()
        worker = self.screen.run_worker(
            partial(self.session.write, review, base),
            thread=True,
            group="save-at-exit",
            name="save-review-at-exit",
            exit_on_error=False,
        )
        try:
            written = await worker.wait()
        except Exception:
            written = Written(problem="the save at exit did not finish")
        self.session.saving = False
        if written.review is not None and written.scores is not None:
            self.show_rebased(
                self.session.saved(written.review, written.scores, values, self.form.values(), autosave=True)
            )

    # ----------------------------------------------------------------- other consoles, leaving

    def scores_changed(self, files: dict[str, store.ScoreFile]) -> None:
        """This submission's score file changed on disk: others' reviews refresh, and our own entry
        is merged into the form (a field both consoles changed is a conflict, both values shown)."""
        scores = files.get(self.session.path.name)
        change = self.session.disk_changed(scores, self.form.values()) if scores is not None else None
        if change is None or scores is None:
            return
        for notice in change.notices:
            self.screen.app.notify(safe_line(notice, 200), markup=False, timeout=5)
        self.form.set_others(self.session.others(scores))
        if change.rebased is not None:
            self.show_rebased(change.rebased)
            if change.rebased.conflicts:
                self.screen.app.notify(self.session.conflict_line(), severity="error", timeout=10, markup=False)
            elif change.rebased.status:
                # Said where the reviewer looks too, not only at the rubric's top.
                self.screen.app.notify(safe_line(change.rebased.status, 300), markup=False, timeout=8)
            if self.dirty:
                self.edited()
        if change.status:
            self.form.set_status(lines(change.status))

    def leave(self, then: str) -> None:
        """Back to triage or quit; with unsaved rubric changes, ask first (autosave may not have run)."""
        decision = self.session.leave(then, self.dirty)
        if decision == "go":
            self.finish(then)
        if decision != "ask":
            return

        def answered(answer: str | None) -> None:
            self.asking = False
            if answer == SAVE:
                self.save(then=then)
            elif answer == DISCARD:
                self.discard()
                self.finish(then)
            elif self.dirty:
                # Stayed: the autosave paused behind the question runs again.
                self.edited()

        # Nothing is written behind the question: "go without saving" leaves the file as it is now.
        self.asking = True
        self.stop_autosave()
        self.screen.app.push_screen(LeaveScreen("quit" if then == "quit" else "leave this submission"), answered)

    def discard(self) -> None:
        """The reviewer chose to go without saving: nothing is written after (not by the autosave, not
        when the console ends)."""
        self.stop_autosave()
        self.form.set_baseline()


def lines(text: str) -> str:
    """Status text of several lines (a conflict's table), each made safe on its own."""
    return "\n".join(safe_line(line, 400) for line in text.splitlines())
