"""Score files: ``COHORT/<name>.review.toml`` next to each submission's folder ``COHORT/<name>/``.

One file per submission keeps every review: one entry per reviewer (or pair) and commit.
Two reviewers in tmux may save the same file at the same moment, and a console may die
mid-save, so a save goes:

1. take ``flock`` on a sidecar ``<file>.lock`` that is never replaced (locking the data file
   itself loses updates once it is replaced);
2. re-read the file and merge: other entries are kept as they are on disk; if *this* entry
   changed on disk since the reviewer loaded it (another console of theirs saved), the two are
   merged field by field against the entry as loaded (``score_merge``), and only a field both
   consoles changed to different values stops the save (``SaveConflict``, naming those fields);
3. write a temp file in the same folder, ``fchmod`` it group-readable, ``fsync``, ``os.replace``,
   ``fsync`` the folder. A crash at any point leaves the old file or the new one, never half.
"""

from __future__ import annotations

import getpass
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path

from review.services import score_merge, seal
from review.services.score_lock import FILE_MODE, StoreError, locked
from review.support import files

SCHEMA = 1
SUFFIX = ".review.toml"
MAX_SCORE_FILE = 4 << 20  # thousands of reviews; a larger file is not ours


class SaveConflict(StoreError):
    def __init__(self, theirs: Review, conflicts: tuple[score_merge.Conflict, ...] = ()) -> None:
        super().__init__(
            f"this review was changed on disk since you opened it (revision {theirs.revision}, "
            f"updated {theirs.updated})"
        )
        self.theirs = theirs
        # The fields both sides changed (empty when there was nothing to merge against).
        self.conflicts = conflicts


def default_reviewer() -> str:
    """Who is reviewing when no --reviewer was given: the account's login name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "reviewer"


def now() -> str:
    from datetime import UTC, datetime  # here: reading scores (a warm triage) never stamps one

    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass
class Review:
    reviewers: list[str]
    commit: str
    state: str = "draft"  # draft | final
    rubric_version: str = ""
    tiers: dict[str, str] = field(default_factory=dict)  # signal id -> weak | acceptable | strong | no-decision
    comments: dict[str, str] = field(default_factory=dict)  # signal id -> comment
    comment: str = ""  # overall
    flags: list[str] = field(default_factory=list)
    # Comments anchored to a place: [{"at": "checkout.mjs:12-19", "text": …}] (a diff hunk, a scenario's log)
    anchored: list[dict[str, str]] = field(default_factory=list)
    note_opened: str | None = None  # when the note was opened for this commit (the note gate)
    harness: str | None = None  # the harness summary at this commit, as the reviewer saw it
    ai_share: float | None = None
    created: str = ""
    updated: str = ""
    revision: int = 0
    seal: str = ""  # see services/seal.py: what makes a planted entry tell from a saved one
    extra: dict = field(default_factory=dict)  # fields this version does not know: kept as they were
    # The entry exactly as read: another reviewer's entry is written back as it was, never re-made
    # (a re-made one could differ in a detail a newer version wrote, and its seal would break).
    raw: dict | None = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        return tuple(sorted(self.reviewers)), self.commit

    def values(self) -> dict:
        """What the reviewer chose, in the rubric form's shape (what a merge compares)."""
        return {
            "tiers": dict(self.tiers),
            "comments": {k: v for k, v in self.comments.items() if v},
            "flags": list(self.flags),
            "comment": self.comment,
            "anchored": [dict(a) for a in self.anchored],
            "state": self.state,
        }

    @property
    def who(self) -> str:
        return " + ".join(sorted(self.reviewers))

    def to_toml(self) -> dict:
        data = {
            "reviewers": sorted(self.reviewers),
            "commit": self.commit,
            "state": self.state,
            "rubric_version": self.rubric_version,
            "revision": self.revision,
            "created": self.created,
            "updated": self.updated,
        }
        for name in ("note_opened", "harness", "ai_share"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.flags:
            data["flags"] = list(self.flags)
        if self.comment:
            data["comment"] = self.comment
        data["tiers"] = dict(self.tiers)
        if self.comments:
            data["comments"] = {k: v for k, v in self.comments.items() if v}
        if self.anchored:
            data["anchored"] = [{"at": a["at"], "text": a["text"]} for a in self.anchored]
        for name, value in self.extra.items():
            data.setdefault(name, value)  # a newer console's fields survive an older one's save
        if self.seal:
            data["seal"] = self.seal
        return data

    @classmethod
    def from_toml(cls, data: dict) -> Review:
        reviewers = data.get("reviewers", [])
        return cls(
            reviewers=[str(r) for r in reviewers] if isinstance(reviewers, list) else [str(reviewers)],
            commit=str(data.get("commit", "")),
            state=str(data.get("state", "draft")),
            rubric_version=str(data.get("rubric_version", "")),
            tiers={str(k): str(v) for k, v in (data.get("tiers") or {}).items()},
            comments={str(k): str(v) for k, v in (data.get("comments") or {}).items()},
            comment=str(data.get("comment", "")),
            flags=[str(f) for f in data.get("flags", [])],
            anchored=_anchored(data.get("anchored")),
            note_opened=data.get("note_opened"),
            harness=data.get("harness"),
            ai_share=data.get("ai_share"),
            created=str(data.get("created", "")),
            updated=str(data.get("updated", "")),
            revision=int(data.get("revision", 0) or 0),
            seal=str(data.get("seal", "")),
            extra={k: v for k, v in data.items() if k not in REVIEW_FIELDS},
            raw=data,
        )


def _anchored(value: object) -> list[dict[str, str]]:
    items = value if isinstance(value, list) else []
    return [{"at": str(a.get("at", "")), "text": str(a.get("text", ""))} for a in items if isinstance(a, dict)]


# The fields a score file's entry holds: the dataclass's own, less what is kept beside them.
REVIEW_FIELDS = frozenset(f.name for f in fields(Review)) - {"extra", "raw"}


@dataclass
class ScoreFile:
    path: Path
    reviews: list[Review] = field(default_factory=list)
    schema: int = 1
    extra: dict = field(default_factory=dict)  # top-level fields this version does not know
    problem: str | None = None  # unreadable file: said, never silently treated as empty
    # Entries whose seal does not verify (planted, edited, or another key's): kept on disk as they
    # were, never counted; each with the reason it is not trusted.
    unsealed: list[tuple[dict, str]] = field(default_factory=list)

    @property
    def unsealed_notice(self) -> str | None:
        if not self.unsealed:
            return None
        first, why = self.unsealed[0]
        who = first.get("reviewers")
        who_text = " + ".join(str(name) for name in who) if isinstance(who, list) else "?"
        more = f" and {len(self.unsealed) - 1} more" if len(self.unsealed) > 1 else ""
        return (
            f"{self.path.name}: entry by {who_text[:60]!r}{more} not counted — {why} "
            "(planted by someone without the reviewers' key, or sealed on another machine: "
            "see seals in docs/scoring.md)"
        )

    def find(self, key: tuple[tuple[str, ...], str]) -> Review | None:
        return next((r for r in self.reviews if r.key == key), None)

    def unsealed_for(self, reviewers: list[str]) -> Review | None:
        """The last unsealed entry in these reviewers' name (to show them, never to count)."""
        mine = [
            entry
            for entry, _why in self.unsealed
            if isinstance(entry.get("reviewers"), list) and sorted(map(str, entry["reviewers"])) == sorted(reviewers)
        ]
        return Review.from_toml(mine[-1]) if mine else None

    def latest_for(self, reviewers: list[str]) -> Review | None:
        """This reviewer's (or pair's) most recently updated entry, at any commit."""
        mine = [
            (r.updated, index, r) for index, r in enumerate(self.reviews) if sorted(r.reviewers) == sorted(reviewers)
        ]
        return max(mine, key=lambda item: item[:2])[2] if mine else None  # ties: the later entry


def score_path(submission: Path) -> Path:
    return submission.parent / f"{submission.name}{SUFFIX}"


TIER_VALUES = ("weak", "acceptable", "strong", "no-decision")
_SHAPES: dict[str, tuple[type, str]] = {
    "reviewers": (list, "a list of names"),
    "commit": (str, "a commit id in quotes"),
    "state": (str, '"draft" or "final"'),
    "tiers": (dict, "a table of signal = tier"),
    "comments": (dict, "a table of signal = comment"),
    "comment": (str, "text"),
    "flags": (list, "a list of flag ids"),
    "anchored": (list, "a list of {at, text} tables"),
    "revision": (int, "a number"),
}


def shape_problems(entry: dict) -> list[str]:
    """What in one review entry has the wrong type, in words (a hand-edited or planted file is said
    to be wrong, never silently converted)."""
    problems = []
    for name, (kind, what) in _SHAPES.items():
        value = entry.get(name)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            problems.append(f"{name} must be {what}, not {type(value).__name__} {str(value)[:40]!r}")
    tiers = entry.get("tiers")
    for signal, tier in (tiers if isinstance(tiers, dict) else {}).items():
        if tier not in TIER_VALUES:
            problems.append(f"tier of {signal} must be one of {', '.join(TIER_VALUES)}, not {str(tier)[:40]!r}")
    if entry.get("state") not in (None, "draft", "final"):
        problems.append(f"state must be draft or final, not {str(entry.get('state'))[:40]!r}")
    return problems


def _parse(path: Path) -> ScoreFile:
    result = ScoreFile(path)
    try:
        raw, cut = files.read_regular(path, MAX_SCORE_FILE)  # never a FIFO, a device or a link
        if cut:
            raise files.TooLarge(f"larger than {MAX_SCORE_FILE // 1024} KiB")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return result
    except (OSError, UnicodeDecodeError) as error:
        result.problem = f"{path.name} cannot be read: {error}"
        return result
    # Imported only when there is a score file to parse (5 ms of a warm triage's start).
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        result.problem = f"{path.name} is not valid TOML: {error}"
        return result
    schema = data.get("schema", 1)
    if not isinstance(schema, int) or isinstance(schema, bool):
        result.problem = f"{path.name}: schema must be a number, not {str(schema)[:40]!r}"
        return result
    result.schema = schema
    result.extra = {k: v for k, v in data.items() if k not in ("schema", "submission", "reviews")}
    reviews = data.get("reviews", [])
    if not isinstance(reviews, list):
        result.problem = f"{path.name}: reviews must be a list of tables"
        return result
    try:
        secret = seal.key()
        key_problem = None
    except seal.SealError as error:
        secret, key_problem = None, str(error)
    for number, entry in enumerate(reviews, start=1):
        try:
            if not isinstance(entry, dict):
                raise TypeError("not a table")
            wrong = shape_problems(entry)
            if wrong:
                raise ValueError("; ".join(wrong))
            untrusted = key_problem or seal.check(entry, secret)
            if untrusted:
                result.unsealed.append((entry, untrusted))
                continue
            result.reviews.append(Review.from_toml(entry))
        except (TypeError, ValueError, AttributeError, KeyError) as error:
            result.problem = f"{path.name}: review {number} cannot be read ({error})"
    return result


def score_stamps(cohort: Path) -> dict[str, tuple[int, int, int]]:
    """Submission name -> (mtime, size, inode) of its score file: a cheap way to see another
    console's save (the atomic replace gives a new inode even within one mtime tick)."""
    stamps: dict[str, tuple[int, int, int]] = {}
    try:
        entries = list(os.scandir(cohort))
    except OSError:
        return stamps
    for entry in entries:
        if entry.name.endswith(SUFFIX) and not entry.name.startswith("."):
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            stamps[entry.name[: -len(SUFFIX)]] = (info.st_mtime_ns, info.st_size, info.st_ino)
    return stamps


def changed_names(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def read_scores(submission: Path) -> ScoreFile:
    return _parse(score_path(submission))


def review_state(scores: ScoreFile, head: str | None) -> str:
    """new / in review / scored / stale (scored, but HEAD moved since)."""
    if not scores.reviews:
        return "new"
    finals = [r for r in scores.reviews if r.state == "final"]
    if any(r.commit == head for r in finals):
        return "scored"
    if finals:
        return "stale"
    return "in review"


def reviewer_states(scores: ScoreFile, head: str | None) -> dict[str, str]:
    """Each reviewer's (or pair's) own state: draft / final at HEAD, or stale (their latest entry is
    for an older commit). Keys are `Review.who`."""
    states: dict[str, str] = {}
    for who in sorted({r.who for r in scores.reviews}):
        at_head = [r for r in scores.reviews if r.who == who and r.commit == head]
        if at_head:
            states[who] = at_head[0].state
        else:
            states[who] = "stale"
    return states


def save(
    submission: Path,
    review: Review,
    base_revision: int | None = None,
    force: bool = False,
    on_wait: Callable[[float], None] | None = None,
    *,
    merge: bool = False,
    base: Review | None = None,
) -> Review:
    """Save one review entry, merged into whatever is on disk now. Returns the entry as saved.

    `base_revision`: the entry's revision when the reviewer loaded it (None: it did not exist).
    A different revision on disk raises SaveConflict unless `force`.
    With `merge`, `base` is the entry as loaded (None: it did not exist; its revision is the base
    revision): a different entry on disk is merged with this one field by field, and SaveConflict
    is raised only for fields both changed (`force`: this entry's values win those).
    """
    if merge:
        base_revision = base.revision if base else None
    path = score_path(submission)
    wrong = shape_problems(review.to_toml())
    if wrong:  # never write what the next read would refuse
        raise StoreError(f"not saved: {'; '.join(wrong)}")
    try:
        secret = seal.key(create=True)
    except seal.SealError as error:
        raise StoreError(f"{error}; your review is still in the form") from None
    assert secret is not None
    with locked(path, on_wait=on_wait):
        current = _parse(path)
        if current.problem:
            raise StoreError(f"{current.problem}; it was not overwritten, and your review is still in the form")
        if current.schema > SCHEMA:
            raise StoreError(
                f"{path.name} was written by a newer version of review (schema {current.schema}, this one "
                f"writes {SCHEMA}); it was not overwritten: upgrade review. Your review is still in the form"
            )
        on_disk = current.find(review.key)
        disk_revision = on_disk.revision if on_disk else None
        if merge and on_disk is not None and disk_revision != base_revision:
            review = _merged(review, base, on_disk, force)
        elif not force and disk_revision != base_revision:
            if on_disk is not None:
                raise SaveConflict(on_disk)
            raise StoreError("this review was removed from the file since you opened it; save again to re-create it")
        stamp = now()
        saved = Review(**{**review.__dict__})
        saved.revision = (disk_revision or 0) + 1
        saved.created = on_disk.created if on_disk else (review.created or stamp)
        saved.updated = stamp
        if on_disk is not None:
            saved.extra = {**on_disk.extra, **review.extra}
        saved.seal, saved.raw = "", None
        saved.seal = seal.sign(saved.to_toml(), secret)
        reviews = [saved if r.key == saved.key else r for r in current.reviews]
        if on_disk is None:
            reviews.append(saved)
        document = {
            **current.extra,
            "schema": SCHEMA,
            "submission": submission.name,
            "reviews": [r.raw if r.raw is not None else r.to_toml() for r in reviews]
            + [
                entry
                for entry, _why in current.unsealed  # kept as they were, unless this save replaces one
                if Review.from_toml(entry).key != saved.key
            ],
        }
        _remove_stale_temps(path)  # under the lock no save is writing: any temp file is a crashed one's
        _atomic_write(path, _toml(document))
    return saved


def _merged(mine: Review, base: Review | None, theirs: Review, force: bool) -> Review:
    """`mine` with what only `theirs` changed since `base` taken in (SaveConflict for a field both
    changed, unless `force`)."""
    merged = score_merge.merge(base.values() if base else None, mine.values(), theirs.values())
    if merged.conflicts and not force:
        raise SaveConflict(theirs, merged.conflicts)
    values = merged.values
    opened = [when for when in (mine.note_opened, theirs.note_opened) if when]
    return Review(
        **{
            **mine.__dict__,
            "tiers": values["tiers"],
            "comments": values["comments"],
            "flags": values["flags"],
            "comment": values["comment"],
            "anchored": values["anchored"],
            "state": values["state"],
            "note_opened": min(opened) if opened else None,
        }
    )


def replace_file(path: Path, document: dict) -> None:
    """Write a whole score file, as a save does (call it holding the file's lock): a crashed save's
    temp file removed, then the atomic write."""
    _remove_stale_temps(path)
    _atomic_write(path, _toml(document))


def _remove_stale_temps(path: Path) -> None:
    prefix = f".{path.name}."
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(prefix) and entry.name.endswith(".tmp") and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _toml(document: dict) -> bytes:
    import tomli_w  # here: reading scores (a warm triage) never writes one

    return tomli_w.dumps(document).encode("utf-8")


def _atomic_write(path: Path, data: bytes) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except PermissionError:
        raise StoreError(
            f"cannot write in {path.parent}: permission denied; your review is still in the form"
        ) from None
    except OSError as error:
        raise StoreError(f"cannot write in {path.parent}: {error.strerror}; your review is still in the form") from None
    try:
        # mkstemp makes 0600 files: the other reviewer could no longer read the scores.
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StoreError(f"saving {path.name} failed: {error.strerror}; your review is still in the form") from None
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
