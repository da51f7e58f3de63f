"""One reviewer's score of one submission, from opening to saving: which entry the form starts from
(theirs at HEAD, a stale one carried over as a draft, an unsealed one to check), what a final needs,
the save through the store's lock and merge, and what another console's save of the same entry
means: what only one side changed is merged (``score_merge``), a field both changed is a conflict
that keeps this console's value on screen until the reviewer decides.

No Textual: the submission screen shows what this decides. `read_rubric` and `write` do I/O and run
in workers; every other method only reads and changes the session's own state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from review.core.rubric import ARTICLE, Rubric, RubricError, from_settings
from review.core.text import safe_line
from review.core.triage import state_word
from review.services import cohort, score_merge, store
from review.services.merge_wording import MergeWording

# Where the reviewer asked to go once saved: "next" (the next unscored), "back" (triage), "quit".
Then = str | None


@dataclass(frozen=True)
class RubricChoice:
    """The cohort's rubric, or the article's with why the cohort's could not be used."""

    rubric: Rubric
    problem: str | None = None


def read_rubric(cohort_dir: Path) -> RubricChoice:
    """The rubric cohort.toml names (it reads the file: call it from a worker)."""
    try:
        return RubricChoice(from_settings(cohort.cohort_settings(cohort_dir)))
    except (RubricError, cohort.CohortError) as error:
        return RubricChoice(ARTICLE, str(error))


@dataclass(frozen=True)
class Start:
    """What the form opens with: `review` (None: empty), `as_draft` when it is carried over from an
    older or unsealed entry (to be confirmed at HEAD, never final as it stands), and why."""

    review: store.Review | None
    as_draft: bool
    status: list[str]


@dataclass(frozen=True)
class Written:
    """How a save ended: the entry as saved and the file after it, or the problem (with the entry on
    disk when it was a conflict)."""

    review: store.Review | None = None
    scores: store.ScoreFile | None = None
    problem: str | None = None
    theirs: store.Review | None = None


@dataclass(frozen=True)
class Rebased:
    """The form after another console's save of the same entry: `values` to show (what only they
    changed taken in, ours kept), `baseline` what is on disk now, and what to say."""

    values: dict
    baseline: dict
    status: str
    conflicts: tuple[score_merge.Conflict, ...]


@dataclass(frozen=True)
class DiskChange:
    """Another console saved this submission's file: whom to name, and what to do with our form."""

    notices: list[str]
    rebased: Rebased | None = None
    status: str | None = None


class ScoreSession:
    """The state of one score while a submission is open. A save under way is never doubled: a save
    asked for meanwhile is queued, and leaving waits for it."""

    def __init__(self, path: Path, reviewers: Sequence[str], rubric: RubricChoice, blind: bool = False) -> None:
        self.path = path
        self.reviewers = list(reviewers) or [store.default_reviewer()]
        self.rubric = rubric.rubric
        self.rubric_problem = rubric.problem
        self.wording = MergeWording(self.rubric)
        self.blind = blind
        self.head: str | None = None
        self.commits: list[tuple[str, str]] = []
        self.scores: store.ScoreFile | None = None
        # The entry as it was on disk when loaded or last saved: what a merge is measured against.
        self.loaded: store.Review | None = None
        # Fields this console and another of the same reviewer both changed, not decided yet, and the
        # other console's entry they conflict with.
        self.conflicts: tuple[score_merge.Conflict, ...] = ()
        self.conflict_with: store.Review | None = None
        self.reviewed_before: store.Review | None = None
        # When the note was on screen for this commit: a final needs it.
        self.note_opened: str | None = None
        self.saving = False
        self.queued_save: tuple[Then, bool] | None = None
        self.leave_after_save: Then = None
        # The HEAD the submission's folder holds now, when triage's folder watch saw it move while
        # this was open: the form still reviews `head`, which a final would then misrecord.
        self.moved_to: str | None = None

    @property
    def started(self) -> bool:
        return self.head is not None

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(sorted(self.reviewers))

    # ----------------------------------------------------------------- opening

    def start(self, head: str, commits: list[tuple[str, str]], scores: store.ScoreFile) -> Start:
        """This reviewer's entry at `head`, else their latest at another commit (a re-review), else an
        unsealed one in their name. `commits`: (sha, subject), oldest first."""
        self.head, self.commits, self.scores = head, commits, scores
        mine = scores.find((self.people, head))
        self.loaded = mine
        self.reviewed_before = None
        status = []
        if self.rubric_problem:
            status.append(f"⚠ {self.rubric_problem}; using the bundled rubric")
        status += [f"⚠ {problem}" for problem in (scores.problem, scores.unsealed_notice) if problem]
        if mine is not None:
            if mine.note_opened:
                self.note_opened = mine.note_opened
            return Start(mine, False, status)
        older = scores.latest_for(self.reviewers)
        if older is not None:
            status.append(self.stale_text(older))
            self.reviewed_before = older
        elif (unsealed := scores.unsealed_for(self.reviewers)) is not None:
            # Shown to check, never trusted as it stands: saving seals what is in the form.
            older = unsealed
            status.append(
                f"UNSEALED: the file holds an entry in your name for {unsealed.commit[:7]} that "
                "this console did not seal (saved by an older version, or planted). Its values are "
                "filled in as a draft for you to check; saving seals yours in its place."
            )
        return Start(older, older is not None, status)

    def stale_text(self, older: store.Review) -> str:
        shas = [sha for sha, _ in self.commits]
        since = shas[shas.index(older.commit) + 1 :] if older.commit in shas else []
        subjects = [subject for sha, subject in self.commits if sha in since]
        what = (
            f"{len(since)} new commit(s): " + "; ".join(subjects[:3])
            if since
            else "that commit is no longer in this history (rewritten?)"
        )
        return (
            f"STALE: your {older.state} review was for {older.commit[:7]}; HEAD is "
            f"{(self.head or '?')[:7]}, {what}. Its values are filled in as a draft for HEAD."
        )

    def open_note(self) -> bool:
        """The note is on screen: True when that is news (the header then says so)."""
        if self.note_opened is not None or not self.started:
            return False
        self.note_opened = store.now()
        return True

    def head_moved(self, head: str) -> bool:
        """The submission's folder holds `head` now (read from its files by triage's watch): True when
        that is news to say."""
        if head == self.moved_to:
            return False
        self.moved_to = head
        return bool(self.moved_text())

    def moved_text(self) -> str:
        """What the reviewer must know while the folder's HEAD is not the one reviewed here, else ""."""
        if self.head is None or self.moved_to is None or self.moved_to == self.head:
            return ""
        return (
            f"HEAD moved to {self.moved_to[:7]} since this screen opened; this review is of {self.head[:7]}: "
            "escape and reopen the submission to review the new commit"
        )

    def final_refusal(self, missing: Sequence[str], moved: bool = True) -> list[str]:
        """What stops a final now: signals with no tier (`missing`, by name), the note never on screen,
        the HEAD moved since opening (`moved`: counted, unless asking whether the form is unsaved)."""
        reasons = []
        if missing:
            reasons.append(f"no tier yet for {', '.join(missing)} (n means no decision)")
        if not self.note_opened:
            reasons.append("the note has not been on screen (2 shows it)")
        if moved and self.moved_text() and self.moved_to is not None:
            reasons.append(f"HEAD moved to {self.moved_to[:7]} since this screen opened (escape, reopen to review it)")
        return reasons

    def will_save(self, form_state: str, missing: Sequence[str]) -> str:
        """The state a save now would write, and why not final when final was asked for."""
        refused = self.final_refusal(missing) if form_state == "final" else []
        if refused:
            return "will save as DRAFT: final refused — " + "; ".join(refused)
        return f"will save as {form_state.upper()}"

    def header(self, form_state: str, missing: Sequence[str] = ()) -> str:
        gate = (
            "note read ✓ (it was on screen)"
            if self.note_opened
            else "note NOT on screen yet (2 shows it; a final review needs it shown)"
        )
        where = f"{self.path.name} @ {(self.head or '?')[:7]}"
        who = " + ".join(self.people)
        moved = self.moved_text()
        # The gate on a line of its own: at 80 columns a wrapped header left a "·" at a line's end.
        return (
            (safe_line(f"⚠ {moved}", 300) + "\n" if moved else "")
            + safe_line(
                f"{where} · as {who} · rubric {self.rubric.version} · {self.will_save(form_state, missing)}", 400
            )
            + "\n"
            + gate
        )

    def toggled_text(self, form_state: str, missing: Sequence[str]) -> str:
        """What F just asked for, and what a save would write now."""
        refused = self.final_refusal(missing) if form_state == "final" else []
        if refused:
            return "final asked, but a save now writes a DRAFT: final refused — " + "; ".join(refused)
        return f"state will be saved as {form_state.upper()} (ctrl+s saves)"

    def others(self, scores: store.ScoreFile) -> str:
        """The other reviewers' entries, ≠ where they differ from ours (hidden while blind and ours is
        not final)."""
        others = [r for r in scores.reviews if tuple(sorted(r.reviewers)) != self.people]
        if not others:
            return "No other reviews of this submission."
        mine = scores.find((self.people, self.head)) if self.head else None
        if self.blind and not (mine and mine.state == "final"):
            return f"{len(others)} other review(s) hidden until yours is final (blind mode)."
        lines = ["Other reviews (≠ where they differ from yours):"]
        for other in others:
            cells = []
            for signal in self.rubric.signals:
                theirs = other.tiers.get(signal.id, "—")
                own = mine.tiers.get(signal.id) if mine else None
                mark = " ≠" if mine and own and theirs != own else ""
                cells.append(f"{signal.name}: {theirs}{mark}")
            stale = "" if other.commit == self.head else f", at {other.commit[:7]} (stale)"
            lines.append(f"  {other.who} ({state_word(other.state)}{stale}): " + " · ".join(cells))
        return "\n".join(safe_line(line, 600) for line in lines)

    # ----------------------------------------------------------------- saving

    def review(
        self, values: dict, missing: Sequence[str], harness: str | None, ai_share: float | None
    ) -> tuple[store.Review, list[str]]:
        """The entry the form's `values` make, and why it is not final when final was asked for: a
        signal with no tier (`missing`), the note never on screen — every reason, every time."""
        assert self.head is not None
        state, notes = values["state"], []
        refused = self.final_refusal(missing) if state == "final" else []
        if refused:
            state = "draft"
            notes.append("final refused — " + "; ".join(refused))
        entry = store.Review(
            reviewers=list(self.reviewers),
            commit=self.head,
            state=state,
            rubric_version=self.rubric.version,
            tiers=values["tiers"],
            comments=values["comments"],
            comment=values["comment"],
            flags=values["flags"],
            anchored=values["anchored"],
            note_opened=self.note_opened,
            harness=harness,
            ai_share=ai_share,
        )
        return entry, notes

    def to_write(self, values: dict, autosave: bool) -> dict:
        """What a save writes of the form's `values`: an autosave (or the save when the console ends)
        leaves the fields in conflict as the other console saved them, and the state as it is on
        disk (draft for a new entry): final or back to draft is the reviewer's ctrl+s alone. The
        reviewer's ctrl+s keeps this console's values."""
        if not autosave:
            return values
        state = self.loaded.state if self.loaded is not None else "draft"
        return {**score_merge.with_theirs(values, self.conflicts), "state": state}

    def unchanged(self, review: store.Review) -> str | None:
        """Why `review` would write nothing new (the entry on disk, or no entry and an untouched form),
        else None."""
        if self.loaded is not None:
            if score_merge.same(review.values(), self.loaded.values()):
                return (
                    f"nothing to save: {store.score_path(self.path).name} already holds these values "
                    f"(revision {self.loaded.revision}); nothing written"
                )
            return None
        if score_merge.same(review.values(), score_merge.EMPTY):
            return "nothing to save: no tier, flag or comment chosen yet; nothing written"
        return None

    def ask_save(self, then: Then, autosave: bool) -> bool:
        """True: write now. False: a save is under way, and this one waits for it (an autosave is
        folded into a save already waiting, which will carry the same values)."""
        if not self.saving:
            return True
        queued = self.queued_save
        if not (autosave and queued is not None):
            self.queued_save = (then or (queued[0] if queued else None), autosave)
        return False

    def begin_save(self) -> store.Review | None:
        """The entry as loaded, which the save is merged against."""
        self.saving = True
        return self.loaded

    def write(
        self, review: store.Review, base: store.Review | None, on_wait: Callable[[float], None] | None = None
    ) -> Written:
        """Save through the store's lock and merge, then read the file back (run it in a worker)."""
        try:
            saved = store.save(self.path, review, on_wait=on_wait, merge=True, base=base)
        except store.SaveConflict as conflict:
            return Written(problem=str(conflict), theirs=conflict.theirs)
        except store.StoreError as error:
            return Written(problem=str(error))
        return Written(saved, store.read_scores(self.path))

    def saved(
        self, review: store.Review, scores: store.ScoreFile, sent: dict, form_values: dict, autosave: bool
    ) -> Rebased:
        """A save landed. The form keeps what was typed since it began (`form_values` against `sent`)
        and takes what the store merged in from another console; a save the reviewer asked for
        decides the fields in conflict (theirs: this console's)."""
        self.saving = False
        self.loaded = review
        self.scores = scores
        landed = review.values()
        if autosave:
            # A final refused by an autosave is still what the reviewer asked for.
            landed["state"] = sent["state"] if review.state == "draft" else review.state
        else:
            self.conflicts, self.conflict_with = (), None
        merged = score_merge.merge(sent, form_values, landed)
        if review.note_opened and not self.note_opened:
            self.note_opened = review.note_opened
        # The state is ours (a refused final comes back a draft); the rest came from another console.
        taken = [field for field in merged.taken if field != ("state", "")]
        status = self.wording.taken_text(taken, review, own=True) if taken else ""
        return Rebased(merged.values, landed, status, self.conflicts)

    def refused(self, problem: str, theirs: store.Review | None, form_values: dict) -> tuple[str, Rebased | None]:
        """A save that did not land: the reviewer decides what next (nothing queued survives). A
        conflict: what only the other console changed is taken into the form, and the fields both
        changed keep this console's values on screen, shown beside the other's."""
        self.saving = False
        self.queued_save = self.leave_after_save = None
        if theirs is None:
            return f"NOT SAVED: {problem}", None
        rebased = self.rebase(theirs, form_values)
        return rebased.status, rebased

    def rebase(self, theirs: store.Review, form_values: dict) -> Rebased:
        """Another console saved our entry as `theirs`: merge the form into it (against the entry as
        loaded), keep the fields both changed as ours until decided, and build on `theirs` from now."""
        merged = score_merge.merge(
            self.base_values(), form_values, theirs.values(), [conflict.field for conflict in self.conflicts]
        )
        self.loaded = theirs
        self.conflicts = merged.conflicts
        self.conflict_with = theirs if merged.conflicts else None
        if theirs.note_opened and not self.note_opened:
            self.note_opened = theirs.note_opened
        own = not score_merge.same(merged.values, theirs.values())
        status = self.conflict_text() if merged.conflicts else self.wording.taken_text(merged.taken, theirs, own)
        return Rebased(merged.values, theirs.values(), status, merged.conflicts)

    def base_values(self) -> dict:
        return self.loaded.values() if self.loaded is not None else dict(score_merge.EMPTY)

    def after_save(self, form_dirty: bool) -> tuple[str, Then, bool] | None:
        """Once a save lands: ("save", then, autosave) for the one asked for meanwhile, ("leave", then,
        False) for a leaving that waited for it, or None."""
        queued, self.queued_save = self.queued_save, None
        if queued is not None and not (queued[1] and not form_dirty):
            return "save", queued[0], queued[1]
        then, self.leave_after_save = self.leave_after_save, None
        return ("leave", then, False) if then is not None else None

    def saved_text(self, review: store.Review, notes: list[str], autosave: bool) -> str:
        what = f"{review.state} (revision {review.revision}) to {store.score_path(self.path).name}"
        if autosave:
            text = f"autosaved {what} at {review.updated[11:19]} UTC"
            if review.state == "final":
                # An edit to a final review rewrites the final: never quietly.
                text += " — this rewrote your FINAL review"
            return text + (" — " + "; ".join(notes) if notes else "")
        if notes:
            # Final was asked for and refused: said every time, with every reason.
            return f"saved {what} as a DRAFT because " + "; ".join(notes) + ". F asks for final again."
        return f"saved {what}"

    def reload_theirs(self, form_values: dict) -> dict | None:
        """R after a conflict: the form's values with the other console's in every field in conflict
        (what only one side changed stays merged)."""
        if not self.conflicts:
            return None
        values = score_merge.with_theirs(form_values, self.conflicts)
        self.conflicts, self.conflict_with = (), None
        return values

    # ----------------------------------------------------------------- what a merge is shown as

    def conflict_text(self) -> str:
        """The fields still in conflict, each value with whose it is, as the rubric shows them."""
        return self.wording.conflict_text(self.conflicts, self.conflict_with)

    def conflict_line(self) -> str:
        """The same in one line, for a notification."""
        return self.wording.short_conflict(self.conflicts)

    # ----------------------------------------------------------------- leaving

    def leave(self, then: str, form_dirty: bool) -> str:
        """ "go" now, "wait" for the save under way (everything is in it), or "ask" first: the form
        holds changes autosave may not have written."""
        if self.started and form_dirty:
            return "ask"
        if self.saving:
            self.leave_after_save = then
            return "wait"
        return "go"

    # ----------------------------------------------------------------- another console

    def disk_changed(self, scores: store.ScoreFile, form_values: dict) -> DiskChange | None:
        """This submission's file changed on disk (another console saved, or this one did). Others'
        entries refresh; ours is merged into the form: what only the other console changed is taken,
        what only this form changed is kept (autosave writes it), a field both changed is a conflict.
        None while our own save is in flight: its result brings the file's new state."""
        if not self.started or self.saving:
            return None
        # Said when another's review appears or changes state (its autosaves refresh Other reviews quietly),
        # in the words triage uses.
        before = {(r.who, r.commit): r.state for r in (self.scores.reviews if self.scores else [])}
        notices = [
            f"{review.who} saved their review of {self.path.name}: {state_word(review.state)} "
            "(under the rubric, Other reviews)"
            for review in scores.reviews
            if tuple(sorted(review.reviewers)) != self.people
            and before.get((review.who, review.commit)) != review.state
        ]
        self.scores = scores
        mine = scores.find((self.people, self.head or ""))
        loaded = self.loaded
        if mine is None or (loaded is not None and mine.revision == loaded.revision):
            return DiskChange(notices)
        rebased = self.rebase(mine, form_values)
        return DiskChange(notices, rebased, rebased.status)
