"""Score files: ``COHORT/<name>.review.toml`` next to each submission's folder ``COHORT/<name>/``.

One file per submission keeps every review: one entry per reviewer (or pair) and commit.
Two reviewers in tmux may save the same file at the same moment, and a console may die
mid-save, so saving follows ``shared/reference/security-and-gateway.md`` §4:

1. take ``flock`` on a sidecar ``<file>.lock`` that is never replaced (locking the data file
   itself loses updates once it is replaced);
2. re-read the file and merge: other entries are kept as they are on disk; if *this* entry
   changed on disk since the reviewer loaded it, nothing is written and the reviewer is shown
   the other version (``SaveConflict``);
3. write a temp file in the same folder, ``fchmod`` it group-readable, ``fsync``, ``os.replace``,
   ``fsync`` the folder. A crash at any point leaves the old file or the new one, never half.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import tomli_w

from review import files

SCHEMA = 1
SUFFIX = ".review.toml"
MAX_SCORE_FILE = 4 << 20  # thousands of reviews; a larger file is not ours
LOCK_TIMEOUT = 30.0  # a save waits this long for others (each takes milliseconds)
FILE_MODE = 0o664


class StoreError(Exception):
    """Saving failed; the message says why, and the review is still in the reviewer's hands."""


class SaveConflict(StoreError):
    def __init__(self, theirs: Review) -> None:
        super().__init__(f"this review was changed on disk since you opened it (revision {theirs.revision}, "
                         f"updated {theirs.updated})")
        self.theirs = theirs


def now() -> str:
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
    extra: dict = field(default_factory=dict)  # fields this version does not know: kept as they were

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        return tuple(sorted(self.reviewers)), self.commit

    @property
    def who(self) -> str:
        return " + ".join(sorted(self.reviewers))

    def to_toml(self) -> dict:
        data = {"reviewers": sorted(self.reviewers), "commit": self.commit, "state": self.state,
                "rubric_version": self.rubric_version, "revision": self.revision,
                "created": self.created, "updated": self.updated}
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
        return data

    @classmethod
    def from_toml(cls, data: dict) -> Review:
        reviewers = data.get("reviewers", [])
        return cls(
            reviewers=[str(r) for r in reviewers] if isinstance(reviewers, list) else [str(reviewers)],
            commit=str(data.get("commit", "")), state=str(data.get("state", "draft")),
            rubric_version=str(data.get("rubric_version", "")),
            tiers={str(k): str(v) for k, v in (data.get("tiers") or {}).items()},
            comments={str(k): str(v) for k, v in (data.get("comments") or {}).items()},
            comment=str(data.get("comment", "")), flags=[str(f) for f in data.get("flags", [])],
            anchored=_anchored(data.get("anchored")),
            note_opened=data.get("note_opened"), harness=data.get("harness"), ai_share=data.get("ai_share"),
            created=str(data.get("created", "")), updated=str(data.get("updated", "")),
            revision=int(data.get("revision", 0) or 0),
            extra={k: v for k, v in data.items() if k not in REVIEW_FIELDS},
        )


def _anchored(value: object) -> list[dict[str, str]]:
    items = value if isinstance(value, list) else []
    return [{"at": str(a.get("at", "")), "text": str(a.get("text", ""))} for a in items if isinstance(a, dict)]


REVIEW_FIELDS = {"reviewers", "commit", "state", "rubric_version", "tiers", "comments", "comment", "flags",
                 "anchored", "note_opened", "harness", "ai_share", "created", "updated", "revision"}


@dataclass
class ScoreFile:
    path: Path
    reviews: list[Review] = field(default_factory=list)
    schema: int = 1
    extra: dict = field(default_factory=dict)  # top-level fields this version does not know
    problem: str | None = None  # unreadable file: said, never silently treated as empty

    def find(self, key: tuple[tuple[str, ...], str]) -> Review | None:
        return next((r for r in self.reviews if r.key == key), None)

    def latest_for(self, reviewers: list[str]) -> Review | None:
        """This reviewer's (or pair's) most recently updated entry, at any commit."""
        mine = [(r.updated, index, r) for index, r in enumerate(self.reviews)
                if sorted(r.reviewers) == sorted(reviewers)]
        return max(mine, key=lambda item: item[:2])[2] if mine else None  # ties: the later entry


def score_path(submission: Path) -> Path:
    return submission.parent / f"{submission.name}{SUFFIX}"


TIER_VALUES = ("weak", "acceptable", "strong", "no-decision")
_SHAPES: dict[str, tuple[type, str]] = {
    "reviewers": (list, "a list of names"), "commit": (str, "a commit id in quotes"),
    "state": (str, '"draft" or "final"'), "tiers": (dict, "a table of signal = tier"),
    "comments": (dict, "a table of signal = comment"), "comment": (str, "text"), "flags": (list, "a list of flag ids"),
    "anchored": (list, "a list of {at, text} tables"), "revision": (int, "a number"),
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
    for number, entry in enumerate(reviews, start=1):
        try:
            if not isinstance(entry, dict):
                raise TypeError("not a table")
            wrong = shape_problems(entry)
            if wrong:
                raise ValueError("; ".join(wrong))
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


@contextmanager
def locked(path: Path, timeout: float = LOCK_TIMEOUT, on_wait: Callable[[float], None] | None = None
           ) -> Iterator[None]:
    """An exclusive lock on the sidecar `<path>.lock` (never replaced, so the lock means something).

    The wait is the kernel's blocking flock, not a polling loop: writers are served as the lock
    frees, none starves. `on_wait(seconds)` is called once a second while waiting (a progress
    message); past `timeout` the save is refused with the reason."""
    lock_path = path.with_name(path.name + ".lock")
    fd = _open_lock(path, lock_path)
    acquired = threading.Event()
    failure: list[OSError] = []
    # Whoever comes second closes the descriptor — the waiting thread once it has the lock, or this
    # side once it gives up — decided under one mutex, so it is closed exactly once and never leaks.
    decided = threading.Lock()
    given_up = False

    def wait() -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as error:
            failure.append(error)
        with decided:
            acquired.set()
            if given_up:
                os.close(fd)  # given up on: the lock (if taken) is released at once

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        threading.Thread(target=wait, name="score-lock", daemon=True).start()
        started = time.monotonic()
        while not acquired.wait(1.0):
            waited = time.monotonic() - started
            if waited > timeout:
                with decided:
                    given_up = not acquired.is_set()
                if given_up:
                    raise StoreError(f"{path.name} is locked by another save for over {timeout:g} s "
                                     "(your review is still in the form)") from None
                break  # it was taken just now: go on with it
            if on_wait:
                on_wait(waited)
        if failure:
            os.close(fd)
            raise StoreError(f"{lock_path.name} cannot be locked: {failure[0].strerror}") from None
    try:
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _open_lock(path: Path, lock_path: Path) -> int:
    """The lock file, opened without following links; created readable and writable by the group
    (a pair shares a setgid folder: the second reviewer must be able to lock it too)."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE)
    except PermissionError:
        raise StoreError(_permission_problem(path, lock_path)) from None
    except OSError as error:
        if error.errno == errno.ELOOP:  # a symbolic link in the lock's place
            raise StoreError(f"{lock_path.name} is a symbolic link; not followed (your review is still in the form)") \
                from None
        raise StoreError(f"cannot write in {path.parent}: {error.strerror} (cannot create {lock_path.name}); "
                         "your review is still in the form") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise StoreError(f"{lock_path.name} is not a regular file; not locking through it")
    if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) != FILE_MODE:
        try:
            os.fchmod(fd, FILE_MODE)  # the umask took the group's write bit: give it back
        except OSError:
            pass
    return fd


def _permission_problem(path: Path, lock_path: Path) -> str:
    """Why the lock cannot be opened, named: the folder, or a lock file another reviewer made."""
    try:
        info = os.stat(lock_path, follow_symlinks=False)
    except OSError:
        return (f"cannot write in {path.parent}: permission denied (the folder is read-only for you); "
                "your review is still in the form")
    return (f"{lock_path.name} belongs to user {info.st_uid} with mode {stat.S_IMODE(info.st_mode):04o}, which you "
            f"cannot write: ask its owner to run `chmod g+w {lock_path}` (pair review needs a shared group and a "
            "setgid folder; see the README); your review is still in the form")


def save(submission: Path, review: Review, base_revision: int | None = None, force: bool = False,
         on_wait: Callable[[float], None] | None = None) -> Review:
    """Save one review entry, merged into whatever is on disk now. Returns the entry as saved.

    `base_revision`: the entry's revision when the reviewer loaded it (None: it did not exist).
    A different revision on disk raises SaveConflict unless `force`.
    """
    path = score_path(submission)
    wrong = shape_problems(review.to_toml())
    if wrong:  # never write what the next read would refuse
        raise StoreError(f"not saved: {'; '.join(wrong)}")
    with locked(path, on_wait=on_wait):
        current = _parse(path)
        if current.problem:
            raise StoreError(f"{current.problem}; it was not overwritten, and your review is still in the form")
        if current.schema > SCHEMA:
            raise StoreError(f"{path.name} was written by a newer version of review (schema {current.schema}, this one "
                             f"writes {SCHEMA}); it was not overwritten: upgrade review. Your review is still in the form")
        on_disk = current.find(review.key)
        disk_revision = on_disk.revision if on_disk else None
        if not force and disk_revision != base_revision:
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
        reviews = [saved if r.key == saved.key else r for r in current.reviews]
        if on_disk is None:
            reviews.append(saved)
        document = {**current.extra, "schema": SCHEMA, "submission": submission.name,
                    "reviews": [r.to_toml() for r in reviews]}
        _remove_stale_temps(path)  # under the lock no save is writing: any temp file is a crashed one's
        _atomic_write(path, tomli_w.dumps(document).encode("utf-8"))
    return saved


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


def _atomic_write(path: Path, data: bytes) -> None:
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except PermissionError:
        raise StoreError(f"cannot write in {path.parent}: permission denied; your review is still in the form") from None
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

