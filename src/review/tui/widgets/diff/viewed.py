"""The diff pane's viewed files: this reviewer's marks (path → the blob at HEAD it was read at), which
files of a diff they make viewed, and the reading and saving of them in workers (the score file and
the seal key are files). Owned by the DiffPane, which shows what this decides."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual.message import Message
from textual.widget import Widget

from review.core import diff
from review.services import store, viewed
from review.services.score_lock import StoreError


class ViewedState:
    @dataclass
    class Read(Message):
        """The files this reviewer viewed, read from the score file (at opening, or saved elsewhere)."""

        files: viewed.ViewedFiles

    @dataclass
    class Failed(Message):
        """A mark could not be kept: undone on screen, and said."""

        changes: dict[str, str | None]
        problem: str

    def __init__(self, pane: Widget) -> None:
        self.pane = pane
        # Whose marks, in which submission (None until it is read: no marks before).
        self.submission: Path | None = None
        self.reviewers: list[str] = []
        self.blobs: dict[str, str] = {}
        # Why some marks were not counted (unsealed) or could not be read.
        self.note: str | None = None
        self.head = ""
        self.head_blobs: dict[str, str] = {}

    def start(self, submission: Path, reviewers: list[str], head: str, head_blobs: dict[str, str]) -> None:
        self.submission, self.reviewers = submission, list(reviewers)
        self.head, self.head_blobs = head, head_blobs

    def read(self, files: viewed.ViewedFiles) -> None:
        self.blobs = dict(files.files)
        notes = [files.problem] if files.problem else []
        if files.unsealed:
            notes.append(
                f"{files.unsealed} viewed entr{'ies' if files.unsealed > 1 else 'y'} in your name not "
                "counted: not sealed by this console"
            )
        self.note = "; ".join(notes) or None

    def applies(self, diff: diff.Diff) -> bool:
        """Marks are kept for the files at HEAD: on the ranges that end there."""
        return self.submission is not None and bool(self.head) and diff.target == self.head

    def blob_of(self, path: str) -> str:
        """What a mark is kept against: the file's blob at HEAD ("" when it is gone at HEAD)."""
        return self.head_blobs.get(path, "")

    def files(self, diff: diff.Diff) -> set[int]:
        """The indexes of the diff's files this reviewer has viewed as they are at HEAD."""
        if not self.applies(diff):
            return set()
        return {
            index
            for index, file_diff in enumerate(diff.files)
            if self.blobs.get(file_diff.path) == self.blob_of(file_diff.path)
        }

    def text(self, diff: diff.Diff) -> str:
        if not self.applies(diff):
            # Within the file list's 30 columns.
            return "viewed marks: at HEAD only" if self.head else ""
        return f"{len(self.files(diff))}/{len(diff.files)} viewed · u next"

    def change(self, changes: dict[str, str | None]) -> None:
        for path, blob in changes.items():
            if blob is None:
                self.blobs.pop(path, None)
            else:
                self.blobs[path] = blob

    def undo(self, changes: dict[str, str | None]) -> dict[str, str | None]:
        """The changes that take `changes` back."""
        return {path: None if blob is not None else self.blob_of(path) for path, blob in changes.items()}

    # ----------------------------------------------------------------- in workers

    def save(self, changes: dict[str, str | None]) -> None:
        self.pane.run_worker(partial(self._save, changes), thread=True, group="diff-viewed", name="diff-viewed")

    def _save(self, changes: dict[str, str | None]) -> None:
        assert self.submission is not None
        try:
            viewed.save(self.submission, self.reviewers, changes)
        except StoreError as error:
            self.pane.post_message(self.Failed(changes, str(error)))

    def reread(self, scores: store.ScoreFile) -> None:
        """Another console saved the score file: its marks, read again (the seal key is a file)."""
        self.pane.run_worker(
            partial(self._reread, scores),
            thread=True,
            exclusive=True,
            group="diff-viewed-read",
            name="diff-viewed-read",
        )

    def _reread(self, scores: store.ScoreFile) -> None:
        self.pane.post_message(self.Read(viewed.read(scores, self.reviewers)))
