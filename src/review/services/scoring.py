"""One reviewer's score of one submission, from opening to saving: which entry the form starts from
(theirs at HEAD, a stale one carried over as a draft, an unsealed one to check), what a final needs,
the save through the store's lock and merge, and what a conflict or another console's save means.

No Textual: the submission screen shows what this decides. `read_rubric` and `write` do I/O and run
in workers; every other method only reads and changes the session's own state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from review.core.rubric import ARTICLE, Rubric, RubricError, from_settings
from review.core.text import safe_line
from review.services import cohort, store

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
class DiskChange:
    """Another console saved this submission's file: whom to name, and what to do with our form."""

    notices: list[str]
    fill: store.Review | None = None
    status: str | None = None


class ScoreSession:
    """The state of one score while a submission is open. A save under way is never doubled: a save
    asked for meanwhile is queued, and leaving waits for it."""

    def __init__(self, path: Path, reviewers: Sequence[str], rubric: RubricChoice,
                 blind: bool = False) -> None:
        self.path = path
        self.reviewers = list(reviewers) or [store.default_reviewer()]
        self.rubric = rubric.rubric
        self.rubric_problem = rubric.problem
        self.blind = blind
        self.head: str | None = None
        self.commits: list[tuple[str, str]] = []
        self.scores: store.ScoreFile | None = None
        # The entry as it was on disk when loaded or last saved: what a conflict is measured against.
        self.loaded: store.Review | None = None
        self.conflict: store.Review | None = None
        self.force_next_save = False
        self.reviewed_before: store.Review | None = None
        # When the note was on screen for this commit: a final needs it.
        self.note_opened: str | None = None
        self.saving = False
        self.queued_save: tuple[Then, bool] | None = None
        self.leave_after_save: Then = None

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
            status.append(f"⚠ {self.rubric_problem}; using the article's rubric")
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
            status.append(f"UNSEALED: the file holds an entry in your name for {unsealed.commit[:7]} that "
                          "this console did not seal (saved by an older version, or planted). Its values are "
                          "filled in as a draft for you to check; saving seals yours in its place.")
        return Start(older, older is not None, status)

    def stale_text(self, older: store.Review) -> str:
        shas = [sha for sha, _ in self.commits]
        since = shas[shas.index(older.commit) + 1:] if older.commit in shas else []
        subjects = [subject for sha, subject in self.commits if sha in since]
        what = f"{len(since)} new commit(s): " + "; ".join(subjects[:3]) if since else \
            "that commit is no longer in this history (rewritten?)"
        return (f"STALE: your {older.state} review was for {older.commit[:7]}; HEAD is "
                f"{(self.head or '?')[:7]}, {what}. Its values are filled in as a draft for HEAD.")

    def open_note(self) -> bool:
        """The note is on screen: True when that is news (the header then says so)."""
        if self.note_opened is not None or not self.started:
            return False
        self.note_opened = store.now()
        return True

    def header(self, form_state: str) -> str:
        gate = "note read ✓ (it was on screen)" if self.note_opened else \
            "note NOT on screen yet (2 shows it; final needs it)"
        where = f"{self.path.name} @ {(self.head or '?')[:7]}"
        who = " + ".join(self.people)
        return safe_line(f"{self.rubric.version} · {where} · reviewing as {who} · will save as "
                         f"{form_state.upper()} · {gate}", 400)

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
            lines.append(f"  {other.who} ({other.state}{stale}): " + " · ".join(cells))
        return "\n".join(safe_line(line, 600) for line in lines)

    # ----------------------------------------------------------------- saving

    def review(self, values: dict, missing: list[str], harness: str | None,
               ai_share: float | None) -> tuple[store.Review, list[str]]:
        """The entry the form's `values` make, and why it is not final when final was asked for: a
        signal with no tier (`missing`), or the note never on screen."""
        assert self.head is not None
        state, notes = values["state"], []
        if state == "final" and missing:
            state = "draft"
            notes.append(f"not final: no tier yet for {', '.join(missing)} (n means no decision)")
        elif state == "final" and not self.note_opened:
            state = "draft"
            notes.append("not final: open the note first (2) — grading the diff and skipping the note "
                         "is the failure mode the article warns about")
        entry = store.Review(
            reviewers=list(self.reviewers), commit=self.head, state=state, rubric_version=self.rubric.version,
            tiers=values["tiers"], comments=values["comments"], comment=values["comment"],
            flags=values["flags"], anchored=values["anchored"], note_opened=self.note_opened, harness=harness,
            ai_share=ai_share)
        return entry, notes

    def ask_save(self, then: Then, autosave: bool) -> bool:
        """True: write now. False: a save is under way, and this one waits for it (an autosave is
        folded into a save already waiting, which will carry the same values)."""
        if not self.saving:
            return True
        queued = self.queued_save
        if not (autosave and queued is not None):
            self.queued_save = (then or (queued[0] if queued else None), autosave)
        return False

    def begin_save(self, autosave: bool) -> tuple[int | None, bool]:
        """(the revision the entry had when loaded, whether to overwrite a conflict): only the
        reviewer's own ctrl+s after a conflict overwrites, never an autosave."""
        self.saving = True
        return (self.loaded.revision if self.loaded else None), self.force_next_save and not autosave

    def write(self, review: store.Review, base: int | None, force: bool,
              on_wait: Callable[[float], None] | None = None) -> Written:
        """Save through the store's lock and merge, then read the file back (run it in a worker)."""
        try:
            saved = store.save(self.path, review, base_revision=base, force=force, on_wait=on_wait)
        except store.SaveConflict as conflict:
            return Written(problem=str(conflict), theirs=conflict.theirs)
        except store.StoreError as error:
            return Written(problem=str(error))
        return Written(saved, store.read_scores(self.path))

    def saved(self, review: store.Review, scores: store.ScoreFile) -> None:
        self.saving = False
        self.loaded = review
        self.force_next_save = False
        self.scores = scores

    def refused(self, problem: str, theirs: store.Review | None) -> str:
        """A save that did not land: the reviewer decides what next (nothing queued survives). With
        their version on disk, ctrl+s again overwrites it and R loads it."""
        self.saving = False
        self.queued_save = self.leave_after_save = None
        if theirs is None:
            return f"NOT SAVED: {problem}"
        self.force_next_save = True
        self.conflict = theirs
        tiers = ", ".join(f"{k}={v}" for k, v in theirs.tiers.items()) or "no tiers"
        return (f"CONFLICT: {problem}. On disk: {theirs.state}, {tiers}. Your values are still here: "
                "ctrl+s again overwrites with yours; R reloads theirs.")

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
        why = " — " + "; ".join(notes) if notes else ""
        if autosave:
            return f"autosaved {what} at {review.updated[11:19]} UTC{why}"
        return f"saved {what}{why}"

    def reload_theirs(self) -> store.Review | None:
        """After a conflict, R: their version, which the form then holds."""
        theirs, self.conflict = self.conflict, None
        if theirs is not None:
            self.loaded = theirs
            self.force_next_save = False
        return theirs

    # ----------------------------------------------------------------- leaving

    def leave(self, then: str, form_dirty: bool) -> str:
        """"go" now, "wait" for the save under way (everything is in it), or "ask" first: the form
        holds changes autosave may not have written."""
        if self.started and form_dirty:
            return "ask"
        if self.saving:
            self.leave_after_save = then
            return "wait"
        return "go"

    # ----------------------------------------------------------------- another console

    def disk_changed(self, scores: store.ScoreFile, form_dirty: bool) -> DiskChange | None:
        """This submission's file changed on disk (another console saved, or this one did). Others'
        entries refresh; ours is taken from disk when the form holds nothing unsaved. None while our
        own save is in flight: its result brings the file's new state."""
        if not self.started or self.saving:
            return None
        before = {(r.who, r.commit): r.revision for r in (self.scores.reviews if self.scores else [])}
        notices = [f"{review.who} saved their review of {self.path.name}: {review.state} (under the rubric, "
                   "Other reviews)" for review in scores.reviews
                   if tuple(sorted(review.reviewers)) != self.people
                   and before.get((review.who, review.commit)) != review.revision]
        self.scores = scores
        mine = scores.find((self.people, self.head or ""))
        loaded = self.loaded
        if mine is None or (loaded is not None and mine.revision == loaded.revision):
            return DiskChange(notices)
        if form_dirty:
            return DiskChange(notices, status=(
                f"Your review was saved in another console ({mine.state}, revision {mine.revision}, "
                f"{mine.updated}); your unsaved values are still here: ctrl+s shows the conflict."))
        self.loaded = mine
        if mine.note_opened:
            self.note_opened = mine.note_opened
        return DiskChange(notices, fill=mine, status=(
            f"Updated from disk: saved in another console ({mine.state}, revision {mine.revision}, "
            f"{mine.updated})."))
