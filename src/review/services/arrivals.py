"""Submissions that arrive in a cohort folder while a console has it open (a copy, `review import`
from another window), listed ones whose HEAD moved (a resubmission: a ref or packed-refs
rewritten), and suites written for a listed HEAD by another process (`review harness` in another
terminal), found by looking at the folder's listing, each HEAD's files and the harness cache once a
second, as score files are watched (inotify does not see what another machine writes over NFS). No
git runs in a submitted folder: HEAD is read from its files.

No Textual: the triage screen looks from a worker and adds the rows it is handed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from review import gitsafe
from review.harness import cache
from review.harness.results import SuiteResult
from review.services import cohort

Stamp = tuple[int, ...]
# .git's direct entries looked at (HEAD, config, refs, objects, packed-refs, …: a dozen in a real one).
MAX_ENTRIES = 64


def stamp(folder: Path) -> Stamp:
    """What changes while a folder is still being copied or made into a repository: the modification
    times of the folder, of its .git, and of .git's direct entries. Links are not followed."""
    times = []
    for path in (folder, folder / ".git"):
        try:
            info = path.lstat()
        except OSError:
            times.append(0)
            continue
        times.append(info.st_mtime_ns)
        if path.name == ".git" and stat.S_ISDIR(info.st_mode):
            times += _entry_times(path)
        if stat.S_ISLNK(info.st_mode):
            break
    return tuple(times)


def _entry_times(git_dir: Path) -> list[int]:
    found = []
    try:
        with os.scandir(git_dir) as entries:
            for entry in entries:
                found.append(entry.stat(follow_symlinks=False).st_mtime_ns)
                if len(found) >= MAX_ENTRIES:
                    break
    except OSError:
        pass
    return sorted(found)


class Arrivals:
    """Folders that were not in the cohort when it was listed. Each is handed over once it looked the
    same at two looks in a row, so a copy still under way is not read half-made; one whose row came
    out unreadable is handed over again once it has changed and settled (a repository made in place,
    a copy slower than a look). Looked at from one worker at a time."""

    def __init__(
        self,
        cohort_dir: Path,
        known: Iterable[str],
        heads: dict[str, str] | None = None,
        without_suite: Iterable[str] = (),
    ) -> None:
        self.cohort_dir = cohort_dir
        self.known = set(known)
        # Folder -> the HEAD its row was read at: a new one is a resubmission.
        self.heads = dict(heads or {})
        # Rows read without a full suite, and each HEAD's cache stamp when last looked at.
        self.without_suite = set(without_suite)
        self.suite_stamps: dict[str, tuple[int, ...]] = {}
        # New folders seen at the last look, with how they looked.
        self.settling: dict[str, Stamp] = {}
        # Arrivals whose row was unreadable, with how they looked when read.
        self.unreadable: dict[str, Stamp] = {}

    def look(self) -> list[Path]:
        """The folders to read now (new and settled, or unreadable and changed since)."""
        try:
            paths = cohort.list_submissions(self.cohort_dir)
        except cohort.CohortError:
            # The folder itself went away or cannot be listed: the table keeps what it has.
            return []
        ready, settling = [], {}
        for path in paths:
            name = path.name
            if name in self.unreadable:
                if stamp(path) == self.unreadable[name]:
                    continue
                del self.unreadable[name]
                self.known.discard(name)
            if name in self.known:
                continue
            now = stamp(path)
            if self.settling.get(name) == now:
                ready.append(path)
                self.known.add(name)
            else:
                settling[name] = now
        self.settling = settling
        return ready

    def moved(self) -> list[Path]:
        """The listed submissions whose HEAD is not the one their row was read at, each handed over
        once per new HEAD. One whose HEAD cannot be read now (a ref being rewritten) is looked at
        again next time; git writes a commit's objects before the ref that names it."""
        found = []
        for name, head in list(self.heads.items()):
            path = self.cohort_dir / name
            try:
                now = gitsafe.read_head(path).sha
            except (gitsafe.GitSafeError, OSError):
                continue
            if now is not None and now != head:
                self.heads[name] = now
                found.append(path)
        return found

    def read(self, rows: Iterable[cohort.Row]) -> None:
        """The rows made of what `look` or `moved` handed over: an unreadable one is read again once
        it changes; a readable one's HEAD is watched from now on."""
        for row in rows:
            if row.head is None:
                self.unreadable[row.name] = stamp(Path(row.path))
                self.heads.pop(row.name, None)
            else:
                self.unreadable.pop(row.name, None)
                self.heads[row.name] = row.head
                if not row.scenarios:
                    self.without_suite.add(row.name)

    def suites(self) -> dict[str, SuiteResult]:
        """Full suites written for a listed HEAD since its row was read, by name, each handed over once
        per write: `review harness` in another terminal, or this console's own background run. A HEAD
        first looked at is only noted, unless its row was read without a suite."""
        found = {}
        for name, head in list(self.heads.items()):
            now = cache.stamp(head)
            before = self.suite_stamps.get(head)
            if now == before:
                continue
            self.suite_stamps[head] = now
            if not any(now) or (before is None and name not in self.without_suite):
                continue
            suite = cache.cached_suite(head)
            if suite is not None and suite.is_full:
                found[name] = suite
                self.without_suite.discard(name)
        return found
