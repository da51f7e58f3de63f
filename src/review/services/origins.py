"""Where each line of a submission comes from, worked out beside the rest of its reading: the
history's replay (one `git log -p` stream, core.line_origins, merges included) in a thread of its own,
so git runs on the other core while the notes and the diff are read; when nothing could claim a line,
which paths each commit changed (one git call). Blame per file is the named fallback: a history past
the commits read, a replay past its bound, or git failing; then the files are blamed in parallel and
the row says which and why."""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures import Future
from typing import TypeVar

from review import gitsafe
from review.core import line_origins

T = TypeVar("T")

# Commits: past this, the replay starts before the sources are read (mostly git's work, on another core).
LONG_HISTORY = 64


def replay_history(
    repo: gitsafe.SafeRepo, stop: threading.Event, why: list[str] | None = None
) -> line_origins.Replay | None:
    """Every line's origin from one `git log -p` stream; None leaves it to blame per file (a replay
    past its memory bound, git failing, or `stop` set because nothing needs it after all), the reason
    added to `why`."""

    def until_stopped(batches: Iterator[list[bytes]]) -> Iterator[list[bytes]]:
        for batch in batches:
            if stop.is_set():
                return
            yield batch

    stream = repo.history_patches("HEAD")
    try:
        replayed = line_origins.replay(until_stopped(stream))
    except line_origins.TooLarge:
        if why is not None:
            why.append(f"the history's replay held more than {line_origins.MAX_TRACKED_LINES:,} lines at once")
        return None
    except gitsafe.GitSafeError as error:
        if why is not None:
            why.append(f"git could not write the history's patches ({error})")
        return None
    finally:
        # Stopped early: git is stopped here.
        stream.close()
    return None if stop.is_set() else replayed


def in_thread(work: Callable[[], T], name: str) -> Future[T]:
    """Work started in a thread of its own while the caller does other work: git's processes run on
    another core meanwhile (the history's patches alone took 0.5 s of git on 5,000 commits)."""
    future: Future[T] = Future()

    def run() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(work())
        # Handed to the caller, whose boundary reports it.
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


class Origins:
    """Where the lines' origins come from while the rest is read: the history's replay (linear and read
    whole), in a thread of its own, when any source could claim a line; else blame per file. A long
    history is mostly git's work, so its replay starts first, before that is known (git runs on another
    core while the notes and the diff are read), and is stopped if nothing can claim; a short one is
    mostly Python, like the parsing, so while a screen waits to paint the diff it starts once the diff
    is handed out. Which paths each commit touched comes from the replay on its way, else one git call."""

    def __init__(self, repo: gitsafe.SafeRepo, start_now: bool = False) -> None:
        self.repo, self.replayable = repo, False
        self.why_blame: list[str] = []  # why the replay gave way to blame per file
        self.stop = threading.Event()
        # Started before the commits are read when the copy looks long (`looks_long`): git replays the
        # history while they are read and parsed.
        self.replay: Future[line_origins.Replay | None] | None = self.start_replay() if start_now else None
        self.changed: Future[dict[str, list[str]]] | None = None
        self.wanted = False

    @staticmethod
    def looks_long(repo: gitsafe.SafeRepo) -> bool:
        """Whether the copy holds objects enough for a long history (a commit, a tree and a blob each)."""
        return repo.object_count() >= 3 * LONG_HISTORY

    def history_read(self, whole: bool, long_history: bool) -> None:
        """The commits are read: a history not read whole (past gitsafe.MAX_COMMITS) is not replayed
        (blame per file); a long one is replayed from now on, before that any source could claim a line
        is known."""
        self.replayable = whole
        if not whole:
            self.why_blame.append(f"the history is past the {gitsafe.MAX_COMMITS:,} commits read")
            self.cancel_replay()
        elif long_history and self.replay is None:
            self.replay = self.start_replay()

    def start_replay(self) -> Future[line_origins.Replay | None]:
        # Each replay has its own stop: one stopped before never stops the next.
        self.stop = threading.Event()
        return in_thread(functools.partial(replay_history, self.repo, self.stop, self.why_blame), "line-origins")

    def plan(self, may_claim: bool, screen_waits: bool) -> None:
        """The sources are read: whether any could claim a line decides the replay."""
        self.wanted = self.replayable and may_claim
        if self.replay is not None and not self.wanted:
            self.cancel_replay()
        if self.wanted and self.replay is None and not screen_waits:
            self.replay = self.start_replay()
        if not self.wanted:
            self.changed = in_thread(self.repo.changed_paths, "changed-paths")

    def diff_handed_out(self) -> None:
        if self.wanted and self.replay is None:
            self.replay = self.start_replay()

    def changed_paths(self) -> tuple[dict[str, list[str]], line_origins.Replay | None]:
        """Which paths each commit changed, and the replay when there is one (it read them on its way)."""
        if self.changed is not None:
            return self.changed.result(), None
        assert self.replay is not None
        replayed = self.replay.result()
        return (replayed.changed if replayed is not None else self.repo.changed_paths()), replayed

    def traced(self, wanted: list[str], replayed: line_origins.Replay | None) -> line_origins.Replay | None:
        """The replay, once the files to trace are known: stopped when there are none (e.g. only
        README.md is claimed, and it is deleted), run now for a claim found only later (a disclosure
        in README.md)."""
        if self.replay is not None and not wanted:
            self.cancel_replay()
            return replayed
        if self.replay is not None:
            return self.replay.result()
        if wanted and self.replayable:
            return replay_history(self.repo, threading.Event(), self.why_blame)
        return replayed

    def cancel_replay(self) -> None:
        if self.replay is not None:
            self.stop.set()
            futures.wait([self.replay])
            self.replay = None

    def cancel(self) -> None:
        """A failure while reading: stop and wait for what runs beside it."""
        self.stop.set()
        running: list[Future] = [f for f in (self.replay, self.changed) if f is not None]
        futures.wait(running)


def blame_files(
    repo: gitsafe.SafeRepo, paths: list[str]
) -> dict[str, list[line_origins.Origin] | gitsafe.GitSafeError]:
    """`git blame -M -C -C` of each path, as many at once as there are cores (the fallback when the
    replay cannot answer): each path's lines, or the error that stopped it."""

    def one(path: str) -> list[line_origins.Origin] | gitsafe.GitSafeError:
        try:
            return repo.blame("HEAD", path)
        except gitsafe.GitSafeError as error:
            return error

    if len(paths) < 2:
        return {path: one(path) for path in paths}
    with futures.ThreadPoolExecutor(max_workers=min(len(paths), os.cpu_count() or 1)) as pool:
        return dict(zip(paths, pool.map(one, paths)))
